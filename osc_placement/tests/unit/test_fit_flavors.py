# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""``capacity fit --flavor``: the flavors read from Nova, the requests sent.

Placement and Nova both on requests-mock; the compute client a real
openstacksdk connection, as OpenStackClient holds one.

* big (RP1, root, in AGG1): VCPU 16, MEMORY_MB 65536, DISK_GB 800.
* small (RP2, root): VCPU 4, MEMORY_MB 16384, DISK_GB 200.

Both roots have COMPUTE_ACCELERATORS; the fake answer of the candidates
request holds both trees (RP1 only when the request names AGG1).
"""

import json
import subprocess
import sys
from urllib import parse as urlparse

import fixtures
from keystoneauth1 import noauth
from keystoneauth1 import session
from openstack import connection
from osc_lib import clientmanager as osc_clientmanager

from osc_placement.tests.unit import base

URL = base.ENDPOINT
NOVA = 'http://nova.example/v2.1'
RP1, RP2 = base.RP1, base.RP2
AGG1 = base.AGG1
FIT = ('resource', 'provider', 'capacity', 'fit')


def _inventory(total):
    return {'total': total, 'reserved': 0, 'allocation_ratio': 1.0,
            'min_unit': 1, 'max_unit': total, 'step_size': 1}


INVENTORIES = {
    RP1: {'VCPU': 16, 'MEMORY_MB': 65536, 'DISK_GB': 800},
    RP2: {'VCPU': 4, 'MEMORY_MB': 16384, 'DISK_GB': 200},
}


def _flavor(id_, name, vcpus, ram, disk, specs=None):
    return {'id': id_, 'name': name, 'vcpus': vcpus, 'ram': ram,
            'disk': disk, 'swap': 0, 'OS-FLV-EXT-DATA:ephemeral': 0,
            'os-flavor-access:is_public': True,
            'extra_specs': specs or {}}


LARGE = _flavor('f-large', 'm1.large', 4, 8192, 80)
SMALL = _flavor('f-small', 'm1.small', 1, 2048, 20)
ACCEL = _flavor('f-accel', 'accel', 1, 2048, 20,
                {'accel:device_profile': 'gpu'})
TWO_GROUPS = _flavor('f-two', 'two', 1, 2048, 20,
                     {'resources1:VCPU': '1', 'resources2:VCPU': '1',
                      'group_policy': 'none'})


class FlavorTestCase(base.TestCase):

    api_version = '1.39'

    def setUp(self):
        super().setUp()
        mock = self.requests_mock
        mock.get(URL + '/resource_providers', complete_qs=True, json={
            'resource_providers': [base.provider(RP1, 'big'),
                                   base.provider(RP2, 'small')]})
        for rp, amounts in INVENTORIES.items():
            path = URL + '/resource_providers/' + rp
            generation = {'resource_provider_generation': 1}
            mock.get(path + '/inventories', json=dict(generation, inventories={
                rc: _inventory(total) for rc, total in amounts.items()}))
            mock.get(path + '/usages', json=dict(generation, usages={}))
            mock.get(path + '/traits', json=dict(
                generation, traits=['COMPUTE_ACCELERATORS']))
            mock.get(path + '/aggregates', json=dict(
                generation, aggregates=[AGG1] if rp == RP1 else []))

        def candidates(request, context):
            # Both trees take one of anything asked, unless the request
            # asks for AGG1: then only RP1's.
            rps = (RP1,) if AGG1 in request.url else (RP1, RP2)
            return {'allocation_requests': [
                {'allocations': {rp: {'resources': {'VCPU': 1}}}}
                for rp in rps], 'provider_summaries': {}}
        mock.get(URL + '/allocation_candidates', json=candidates)
        mock.get(URL + '/resource_providers?member_of=in:' + AGG1,
                 complete_qs=True, json={'resource_providers': [
                     base.provider(RP1, 'big')]})
        mock.get(NOVA, json=self.nova_version())
        mock.get(NOVA + '/', json=self.nova_version())
        for body in (LARGE, SMALL, ACCEL, TWO_GROUPS):
            mock.get(NOVA + '/flavors/' + body['id'], json={'flavor': body})
            # openstacksdk asks again for empty extra specs.
            mock.get(NOVA + '/flavors/%s/os-extra_specs' % body['id'],
                     json={'extra_specs': body['extra_specs']})
        mock.get(NOVA + '/flavors/detail?is_public=None', json={
            'flavors': [LARGE, SMALL]})
        mock.get(NOVA + '/os-aggregates', json={'aggregates': [
            {'id': 1, 'name': 'az1-hosts', 'uuid': AGG1,
             'availability_zone': 'az1',
             'metadata': {'availability_zone': 'az1'}, 'hosts': []}]})
        conn = connection.Connection(
            session=session.Session(auth=noauth.NoAuth()),
            compute_endpoint_override=NOVA)
        self.useFixture(fixtures.MockPatchObject(
            osc_clientmanager.ClientManager, 'compute',
            new=property(lambda manager: conn.compute)))

    @staticmethod
    def nova_version():
        return {'version': {'id': 'v2.1', 'status': 'CURRENT',
                            'version': '2.96', 'min_version': '2.1',
                            'links': [{'rel': 'self', 'href': NOVA + '/'}]}}

    def fit(self, *argv, version=None):
        return self.openstack(*(FIT + argv), version=version)

    def candidates_sent(self):
        return [urlparse.unquote(r.url[len(URL):])
                for r in self.requests_mock.request_history
                if r.url.startswith(URL + '/allocation_candidates')]

    def placement_sent(self):
        return [r for r in self.requests_mock.request_history
                if r.url.startswith(URL)]


class TestFitFlavor(FlavorTestCase):

    def test_one_flavor(self):
        out, err, code = self.fit('--flavor', 'f-large', '-f', 'json')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            [{'resource_provider': RP1, 'name': 'big', 'fits': 4,
              'limited_by': 'VCPU'},
             {'resource_provider': RP2, 'name': 'small', 'fits': 1,
              'limited_by': 'VCPU'}], json.loads(out))
        self.assertEqual(
            ['/allocation_candidates?resources=DISK_GB:80,MEMORY_MB:8192,'
             'VCPU:4&root_required=!COMPUTE_STATUS_DISABLED'],
            self.candidates_sent())

    def test_several_flavors_one_read_of_the_trees(self):
        out, err, code = self.fit('--flavor', 'f-large', '--flavor',
                                  'f-small', '-f', 'value')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            ['m1.large %s big 4 VCPU' % RP1,
             'm1.large %s small 1 VCPU' % RP2,
             'm1.small %s big 16 VCPU' % RP1,
             'm1.small %s small 4 VCPU' % RP2], out.splitlines())
        gets = [r.url for r in self.placement_sent()]
        self.assertEqual(1, gets.count(URL + '/resource_providers'))
        self.assertEqual(
            1, gets.count(URL + '/resource_providers/%s/inventories' % RP1))
        self.assertEqual(2, len(self.candidates_sent()))

    def test_summary_per_flavor(self):
        out, err, code = self.fit('--all-flavors', '--summary', '-f',
                                  'value')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(['m1.large 5 2 VCPU', 'm1.small 20 2 VCPU'],
                         out.splitlines())

    def test_include_disabled_and_boot_from_volume(self):
        out, err, code = self.fit('--flavor', 'f-large', '--include-disabled',
                                  '--boot-from-volume', '-f', 'value')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            ['/allocation_candidates?resources=MEMORY_MB:8192,VCPU:4'],
            self.candidates_sent())

    def test_availability_zone(self):
        out, err, code = self.fit('--flavor', 'f-large',
                                  '--availability-zone', 'az1', '-f',
                                  'value')
        self.assertEqual(('', 0), (err, code))
        # The zone selects the trees, as --member-of does.
        self.assertEqual(['%s big 4 VCPU' % RP1], out.splitlines())
        self.assertEqual(
            ['/allocation_candidates?resources=DISK_GB:80,MEMORY_MB:8192,'
             'VCPU:4&member_of=in:%s&root_required=!COMPUTE_STATUS_'
             'DISABLED' % AGG1], self.candidates_sent())

    def test_unknown_zone_no_placement_request(self):
        out, err, code = self.fit('--flavor', 'f-large',
                                  '--availability-zone', 'nowhere')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(["No host aggregate of the compute API is in "
                          "availability zone 'nowhere'."], err.splitlines())
        self.assertEqual([], self.placement_sent())

    def test_refused_with_resource(self):
        out, err, code = self.fit('--flavor', 'f-large', '--resource',
                                  'VCPU=1')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(['--flavor and --all-flavors replace --resource: '
                          'give one or the other.'], err.splitlines())
        self.assertEqual([], self.requests_mock.request_history)

    def test_zone_needs_a_flavor(self):
        out, err, code = self.fit('--resource', 'VCPU=1',
                                  '--availability-zone', 'az1')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(['--availability-zone needs --flavor or '
                          '--all-flavors.'], err.splitlines())
        self.assertEqual([], self.requests_mock.request_history)

    def test_root_required_adds_to_the_flavor(self):
        out, err, code = self.fit('--flavor', 'f-large', '--root-required',
                                  'COMPUTE_ACCELERATORS', '-f', 'value')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            ['/allocation_candidates?resources=DISK_GB:80,MEMORY_MB:8192,'
             'VCPU:4&root_required=COMPUTE_ACCELERATORS,'
             '!COMPUTE_STATUS_DISABLED'], self.candidates_sent())

    def test_microversion_too_low(self):
        out, err, code = self.fit('--flavor', 'f-large', version='1.30')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ['Flavor m1.large: root_required (!COMPUTE_STATUS_DISABLED) '
             'needs --os-placement-api-version 1.35 or later (this session '
             'uses 1.30).'], err.splitlines())
        self.assertEqual([], self.placement_sent())

    def test_untranslated_is_an_upper_bound(self):
        out, err, code = self.fit('--flavor', 'f-accel', '-f', 'value')
        self.assertEqual(0, code)
        self.assertIn('accel:device_profile', err)
        self.assertIn('the answer is incomplete', err)
        self.assertEqual(['%s big 16 VCPU (upper bound)' % RP1,
                          '%s small 4 VCPU (upper bound)' % RP2],
                         out.splitlines())

    def test_several_groups_not_counted(self):
        out, err, code = self.fit('--flavor', 'f-two', '-f', 'value',
                                  '-c', 'fits', '-c', 'limited_by')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            ['None a candidate; not counted (the request has 3 groups)']
            * 2, out.splitlines())

    def test_openmetrics(self):
        out, err, code = self.fit('--flavor', 'f-large', '--flavor',
                                  'f-small', '-f', 'openmetrics')
        self.assertEqual(('', 0), (err, code))
        samples = [line for line in out.splitlines()
                   if not line.startswith('#')]
        self.assertEqual([
            'openstack_placement_fit{hostname="big",flavor="m1.large"} 4',
            'openstack_placement_fit{hostname="small",flavor="m1.large"} 1',
            'openstack_placement_fit{hostname="big",flavor="m1.small"} 16',
            'openstack_placement_fit{hostname="small",flavor="m1.small"} 4',
            'openstack_placement_cloud_fit{flavor="m1.large"} 5',
            'openstack_placement_cloud_fit{flavor="m1.small"} 20',
            'openstack_free_capacity_by_flavor_total'
            '{flavor_name="m1.large"} 5',
            'openstack_free_capacity_by_flavor_total'
            '{flavor_name="m1.small"} 20',
            'openstack_free_capacity_hypervisor_by_flavor'
            '{hypervisor="big",flavor_name="m1.large"} 4',
            'openstack_free_capacity_hypervisor_by_flavor'
            '{hypervisor="small",flavor_name="m1.large"} 1',
            'openstack_free_capacity_hypervisor_by_flavor'
            '{hypervisor="big",flavor_name="m1.small"} 16',
            'openstack_free_capacity_hypervisor_by_flavor'
            '{hypervisor="small",flavor_name="m1.small"} 4'], samples)
        self.assertEqual('# EOF', out.splitlines()[-1])

    def test_several_groups_summary_counts_the_candidates(self):
        out, err, code = self.fit('--flavor', 'f-two', '--summary', '-f',
                                  'value')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            ['None 2 a candidate; not counted (the request has 3 groups)'],
            out.splitlines())

    def test_debug_prints_the_request(self):
        out, err, code = self.openstack('--debug', *(FIT + (
            '--flavor', 'f-large', '-f', 'value')))
        self.assertEqual(0, code)
        self.assertIn('Flavor m1.large: GET /allocation_candidates?'
                      'resources=DISK_GB:80,MEMORY_MB:8192,VCPU:4&'
                      'root_required=!COMPUTE_STATUS_DISABLED', err)


class TestCandidatesFlavor(FlavorTestCase):
    """allocation candidate list and explain --flavor."""

    def test_list(self):
        out, err, code = self.openstack(
            'allocation', 'candidate', 'list', '--flavor', 'f-large',
            '--limit', '5', '-f', 'value', '-c', 'resource provider')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual([RP1, RP2], out.splitlines())
        self.assertEqual(
            ['/allocation_candidates?limit=5&resources=DISK_GB:80,'
             'MEMORY_MB:8192,VCPU:4&root_required=!COMPUTE_STATUS_DISABLED'],
            self.candidates_sent())

    def test_list_refuses_group(self):
        out, err, code = self.openstack(
            'allocation', 'candidate', 'list', '--flavor', 'f-large',
            '--group', '1', '--resource', 'VCPU=1')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(['--flavor replaces --resource and --group: give '
                          'one or the other.'], err.splitlines())
        self.assertEqual([], self.requests_mock.request_history)

    def test_explain_with_required(self):
        out, err, code = self.openstack(
            'allocation', 'candidate', 'explain', '--flavor', 'f-large',
            '--required', 'COMPUTE_ACCELERATORS', '-f', 'value')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(['%s big True ' % RP1, '%s small True ' % RP2],
                         out.splitlines())
        self.assertEqual(
            ['/allocation_candidates?resources=DISK_GB:80,MEMORY_MB:8192,'
             'VCPU:4&required=COMPUTE_ACCELERATORS&root_required='
             '!COMPUTE_STATUS_DISABLED'], self.candidates_sent())

    def test_explain_summary_drops_each_constraint(self):
        out, err, code = self.openstack(
            'allocation', 'candidate', 'explain', '--flavor', 'f-large',
            '--availability-zone', 'az1', '--summary', '-f', 'value')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            ['(none: the request as given) 1',
             'resources=DISK_GB:80 1',
             'resources=MEMORY_MB:8192 1',
             'resources=VCPU:4 1',
             'member_of=in:%s 2' % AGG1,
             'root_required=!COMPUTE_STATUS_DISABLED 1'], out.splitlines())
        self.assertEqual(6, len(self.candidates_sent()))


class TestComputeNotLoaded(base.TestCase):
    """A command without --flavor never imports the compute helpers."""

    def test_plain_command(self):
        code = (
            'import sys\n'
            'from osc_placement.tests import cli\n'
            'cli.run(cli.auth_argv() + ["resource", "provider", "capacity",'
            ' "fit", "--help"])\n'
            'print("osc_placement.compute" in sys.modules)\n')
        done = subprocess.run([sys.executable, '-c', code],
                              capture_output=True, text=True, check=True)
        self.assertEqual('False', done.stdout.splitlines()[-1])
