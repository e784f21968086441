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
import os
import signal
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
# Two groups and no group_policy: Placement refuses the request (HTTP 400).
NO_POLICY = _flavor('f-nopolicy', 'm1.nopolicy', 1, 2048, 20,
                    {'resources1:VCPU': '1', 'resources2:VCPU': '1'})
# An extra spec Nova refuses: never asked for.
SOMETIMES = _flavor('f-sometimes', 'm1.sometimes', 1, 2048, 20,
                    {'hw:cpu_policy': 'sometimes'})
# A named group: Placement 1.33.
NAMED = _flavor('f-named', 'm1.named', 1, 2048, 20,
                {'resources_A:VCPU': '1'})
GROUP_POLICY_DETAIL = base.webob_detail(
    'The "group_policy" parameter is required when specifying more than '
    'one "resources{N}" parameter.', 'The server could not comply with '
    'the request since it is either malformed or otherwise incorrect.')


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
            # asks for AGG1: then only RP1's. Two numbered groups without
            # a group_policy are refused, as Placement refuses them.
            if 'resources2' in request.url and \
                    'group_policy' not in request.url:
                context.status_code = 400
                return base.placement_error(400, GROUP_POLICY_DETAIL,
                                            'Bad Request')
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
        for body in (LARGE, SMALL, ACCEL, TWO_GROUPS, NO_POLICY, SOMETIMES,
                     NAMED):
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
        # Each flavor's series carry its own request; os-capacity's names
        # keep os-capacity's labels.
        large = ('flavor="m1.large",shape="DISK_GB=80,MEMORY_MB=8192,VCPU=4;'
                 'root_required=!COMPUTE_STATUS_DISABLED"')
        small = ('flavor="m1.small",shape="DISK_GB=20,MEMORY_MB=2048,VCPU=1;'
                 'root_required=!COMPUTE_STATUS_DISABLED"')
        self.assertEqual([
            'openstack_placement_fit{hostname="big",%s} 4' % large,
            'openstack_placement_fit{hostname="small",%s} 1' % large,
            'openstack_placement_fit{hostname="big",%s} 16' % small,
            'openstack_placement_fit{hostname="small",%s} 4' % small,
            'openstack_placement_cloud_fit{%s} 5' % large,
            'openstack_placement_cloud_fit{%s} 20' % small,
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

    def test_openmetrics_summary_shape_of_groups(self):
        # The shape of a flavor of request groups names each group.
        out, err, code = self.fit('--flavor', 'f-two', '--flavor',
                                  'f-small', '--summary', '-f',
                                  'openmetrics')
        self.assertEqual(('', 0), (err, code))
        self.assertIn(
            'openstack_placement_cloud_fit_trees{flavor="two",shape='
            '"DISK_GB=20,MEMORY_MB=2048;resources1=VCPU=1;resources2=VCPU=1;'
            'root_required=!COMPUTE_STATUS_DISABLED;group_policy=none"} 2\n',
            out)
        self.assertIn('openstack_free_capacity_by_flavor_total'
                      '{flavor_name="m1.small"} 20\n', out)

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


class TestFitFlavorRefused(FlavorTestCase):
    """Several flavors: one that fails keeps its row; the others go on."""

    REFUSED = ('refused by Placement: The "group_policy" parameter is '
               'required when specifying more than one "resources{N}" '
               'parameter. (HTTP 400)')
    NOT_ASKED = ("not asked for: extra spec hw:cpu_policy=sometimes: not "
                 "one of dedicated, shared, mixed; Nova refuses it.")

    def all_flavors(self, *flavors):
        self.requests_mock.get(NOVA + '/flavors/detail?is_public=None',
                               json={'flavors': list(flavors)})

    def failed_summary(self, *flavors):
        """--all-flavors --summary of these flavors: exit 1; its lines."""
        self.all_flavors(*flavors)
        out, err, code = self.fit('--all-flavors', '--summary', '-f',
                                  'value')
        self.assertEqual(1, code)
        return out.splitlines(), err.splitlines()

    def test_refused_request_keeps_a_row(self):
        self.all_flavors(LARGE, NO_POLICY, SMALL)
        out, err, code = self.fit('--all-flavors', '-f', 'value')
        self.assertEqual(1, code)
        self.assertEqual(
            ['m1.large %s big 4 VCPU' % RP1,
             'm1.large %s small 1 VCPU' % RP2,
             'm1.nopolicy None None None ' + self.REFUSED,
             'm1.small %s big 16 VCPU' % RP1,
             'm1.small %s small 4 VCPU' % RP2], out.splitlines())
        self.assertEqual(
            ['Flavor m1.nopolicy has 2 request groups and no group_policy: '
             'Placement refuses the request, as it refuses Nova\'s.',
             'Failed to read flavor m1.nopolicy: The "group_policy" '
             'parameter is required when specifying more than one '
             '"resources{N}" parameter. (HTTP 400)',
             'Failed to read 1 of 3 flavors.'], err.splitlines())
        self.assertEqual(3, len(self.candidates_sent()))

    def test_untranslated_flavor_keeps_a_row_and_is_not_asked(self):
        out, err = self.failed_summary(LARGE, SOMETIMES, SMALL)
        self.assertEqual(['m1.large 5 2 VCPU', 'm1.small 20 2 VCPU',
                          'm1.sometimes None None ' + self.NOT_ASKED], out)
        self.assertEqual(
            ['Failed to read flavor m1.sometimes: extra spec '
             'hw:cpu_policy=sometimes: not one of dedicated, shared, mixed; '
             'Nova refuses it.', 'Failed to read 1 of 3 flavors.'], err)
        # Only the two translated flavors are asked for.
        self.assertEqual(2, len(self.candidates_sent()))

    def test_each_failure_in_flavor_order(self):
        out, err = self.failed_summary(LARGE, NO_POLICY, SOMETIMES)
        self.assertEqual(['m1.large 5 2 VCPU',
                          'm1.nopolicy None None ' + self.REFUSED,
                          'm1.sometimes None None ' + self.NOT_ASKED], out)
        self.assertEqual(['Failed to read flavor m1.nopolicy',
                          'Failed to read flavor m1.sometimes',
                          'Failed to read 2 of 3 flavors.'],
                         [line.split(':')[0] for line in err
                          if line.startswith('Failed')])

    def test_a_provider_not_read_stops_the_rows(self):
        # Not a flavor that failed: every row is made of every provider.
        self.all_flavors(LARGE, NO_POLICY)
        self.requests_mock.get(URL + '/resource_providers/%s/usages' % RP2,
                               **base.error_reply(500, 'Boom.'))
        out, err, code = self.fit('--all-flavors', '-f', 'value')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ['Failed to read flavor m1.nopolicy',
             'Failed to read resource provider %s' % RP2,
             'Failed to read 1 of 2 flavors, 1 of 2 resource providers; no '
             'rows printed.'],
            [line.split(':')[0] if ': ' in line else line
             for line in err.splitlines() if line.startswith('Failed')])

    def test_interrupted_among_the_flavors_prints_no_rows(self):
        # The trees are read after the candidates requests: after the
        # signal they are not, and no row is made of them.
        self.all_flavors(LARGE, SMALL)

        def candidates(request, context):
            os.kill(os.getpid(), signal.SIGINT)
            return {'allocation_requests': [], 'provider_summaries': {}}
        self.requests_mock.get(URL + '/allocation_candidates',
                               json=candidates)
        out, err, code = self.fit('--os-placement-parallel', '1',
                                  '--all-flavors', '-f', 'value')
        self.assertEqual(('', 130), (out, code))
        self.assertEqual(
            ['Interrupted: 1 of 2 flavors read; the other 1 were not read; '
             'no rows printed.'], err.splitlines())
        self.assertEqual([], [r for r in self.placement_sent()
                              if '/usages' in r.url])

    def test_one_flavor_below_its_microversion(self):
        # 1.30 takes the numbered groups of the others, not a named one.
        self.all_flavors(LARGE, NAMED)
        out, err, code = self.fit('--all-flavors', '--include-disabled',
                                  '--summary', '-f', 'json', version='1.30')
        self.assertEqual(1, code)
        self.assertEqual(
            [{'flavor': 'm1.large', 'fits': 5, 'trees': 2,
              'limited_by': 'VCPU'},
             {'flavor': 'm1.named', 'fits': None, 'trees': None,
              'limited_by': 'not asked for: request group _A needs '
                            '--os-placement-api-version 1.33 or later (this '
                            'session uses 1.30).'}], json.loads(out))
        self.assertEqual(
            ['Failed to read flavor m1.named: request group _A needs '
             '--os-placement-api-version 1.33 or later (this session uses '
             '1.30).', 'Failed to read 1 of 2 flavors.'], err.splitlines())
        self.assertEqual(1, len(self.candidates_sent()))

    def test_openmetrics_no_samples_for_a_refused_flavor(self):
        self.all_flavors(LARGE, NO_POLICY)
        out, err, code = self.fit('--all-flavors', '-f', 'openmetrics')
        self.assertEqual(1, code)
        self.assertIn('Failed to read 1 of 2 flavors.', err)
        samples = [line for line in out.splitlines()
                   if not line.startswith('#')]
        self.assertEqual([], [line for line in samples
                              if 'nopolicy' in line])
        # m1.large's: two trees, its total, os-capacity's three.
        self.assertEqual(6, len(samples))
        self.assertEqual('# EOF', out.splitlines()[-1])

    def test_one_flavor_refused_is_one_line(self):
        out, err, code = self.fit('--flavor', 'f-nopolicy')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            'The "group_policy" parameter is required when specifying more '
            'than one "resources{N}" parameter. (HTTP 400)',
            err.splitlines()[-1])
        self.assertEqual(2, len(err.splitlines()))

    def test_one_flavor_untranslated_no_placement_request(self):
        out, err, code = self.fit('--flavor', 'f-sometimes')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ['Flavor m1.sometimes: extra spec hw:cpu_policy=sometimes: not '
             'one of dedicated, shared, mixed; Nova refuses it.'],
            err.splitlines())
        self.assertEqual([], self.placement_sent())


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
            'print("osc_placement.api.compute" in sys.modules)\n')
        done = subprocess.run([sys.executable, '-c', code],
                              capture_output=True, text=True, check=True)
        self.assertEqual('False', done.stdout.splitlines()[-1])
