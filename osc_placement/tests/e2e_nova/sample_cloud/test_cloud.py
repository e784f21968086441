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

"""What the plugin does first in every cloud, against real servers.

A token from Keystone, the Placement endpoint found in the catalog by
service type, region and interface, a real token accepted by Placement's
keystonemiddleware; and the Nova objects the flavor commands will read
(flavors with extra specs, aggregates with an availability zone), made
with OpenStackClient's own commands and read back from the compute API.
"""

import json
import os

from osc_placement.tests.e2e_nova import base
from osc_placement.tests.support import cloud
from osc_placement.tests.support import keystone
from osc_placement.tests.support import nova_seed
from osc_placement.tests.support import nova_services
from osc_placement.tests.support import service
from osc_placement.tests.support import stack

# A provider per endpoint check: the path of the request each watches
# for on the relays is its own.
COMPUTE_1, NUMA0, NUMA1, PF0 = (p[1] for p in cloud.PROVIDERS[:4])


class TestNovaCloud(base.NovaCloudTestCase):

    def test_clean_up_check_sees_every_server(self):
        # What the class's clean-up check looks for must be there now:
        # each server's gunicorn master and its worker, nothing else.
        found = service.started_by(os.getpid())
        masters = [box.server_pids[0] for box in (
            self.cloud.keystone, self.cloud.placement, self.cloud.nova)]
        self.assertEqual([], sorted(set(masters) - set(found)))
        self.assertEqual(6, len(found), found)

    def test_token_issued_by_keystone(self):
        token = self.ok('token', 'issue', '-f', 'json')
        # Keystone itself says the token is valid, and whose it is.
        _, body = service.request(
            self.cloud.keystone.url + '/auth/tokens', token=self.cloud.token,
            headers={'X-Subject-Token': token['id']})
        self.assertEqual(keystone.ADMIN, body['token']['user']['name'])
        self.assertEqual(body['token']['project']['id'], token['project_id'])

    def check_endpoint(self, region, interface, provider):
        """A command of ``region`` and ``interface`` reaches their URL."""
        key = (region, interface)
        path = '/resource_providers/%s' % provider
        arrived = {k: relay.intercept('GET', path, lambda: None)
                   for k, relay in self.cloud.relays.items()}
        with self.cloud.placement.count_requests() as seen:
            shown = self.ok('resource', 'provider', 'show', provider,
                            '-f', 'json', region=region, interface=interface)
        self.assertEqual(provider, shown['uuid'])
        hit = sorted(k for k, event in arrived.items() if event.is_set())
        self.assertEqual([key], hit, 'expected the request at %s, the URL '
                         'of %s' % (self.cloud.placement_urls[key], key))
        self.assertIn(path, [r.uri for r in seen])

    def test_public_endpoint(self):
        self.check_endpoint(stack.REGION, 'public', COMPUTE_1)

    def test_internal_endpoint(self):
        self.check_endpoint(stack.REGION, 'internal', NUMA0)

    def test_admin_endpoint(self):
        self.check_endpoint(stack.REGION, 'admin', NUMA1)

    def test_endpoint_of_another_region(self):
        self.check_endpoint(stack.OTHER_REGION, 'public', PF0)

    def test_unknown_region_is_one_line(self):
        with self.cloud.placement.count_requests() as seen:
            res = self.openstack('resource', 'provider', 'list',
                                 region='RegionNowhere')
        self.assertNotEqual(0, res.returncode)
        self.assertEqual('', res.stdout)
        self.assertNotIn('Traceback', res.stderr)
        lines = res.stderr.strip().splitlines()
        self.assertEqual(1, len(lines), res.stderr)
        self.assertIn('RegionNowhere', lines[0])
        self.assertEqual([], seen)

    def test_provider_list_with_a_real_token(self):
        with self.cloud.placement.count_requests() as seen:
            rows = self.ok('resource', 'provider', 'list', '-f', 'json')
        # The sample cloud, and the providers of the --flavor tests if
        # they ran first.
        made = getattr(type(self), '_flavor_cloud', None) or {}
        self.assertEqual(
            sorted([p[1] for p in cloud.PROVIDERS] + list(made.values())),
            sorted(row['uuid'] for row in rows))
        self.assertIn('/resource_providers',
                      [r.uri.split('?')[0] for r in seen])

    def test_flavor_extra_specs_read_back(self):
        specs = {'hw:cpu_policy': 'dedicated',
                 'resources:CUSTOM_E2E_WIDGET': '2',
                 'trait:HW_CPU_X86_AVX2': 'required'}
        argv = ['flavor', 'create', '--vcpus', '4', '--ram', '8192',
                '--disk', '40', '--swap', '1024', '--ephemeral', '5']
        for key, value in sorted(specs.items()):
            argv += ['--property', '%s=%s' % (key, value)]
        made = self.ok(*argv + ['m1.e2e', '-f', 'json'])

        # The compute API (2.61: the extra specs in the flavor itself).
        flavor = self.cloud.compute('GET', '/flavors/%s' % made['id'])[
            'flavor']
        self.assertEqual(
            ('m1.e2e', 4, 8192, 40, 1024, 5, specs),
            (flavor['name'], flavor['vcpus'], flavor['ram'], flavor['disk'],
             flavor['swap'], flavor['OS-FLV-EXT-DATA:ephemeral'],
             flavor['extra_specs']))
        # And the separate extra-specs call of older microversions.
        self.assertEqual(specs, self.cloud.compute(
            'GET', '/flavors/%s/os-extra_specs' % made['id'],
            version='2.1')['extra_specs'])

    def test_aggregate_with_zone_listed_with_uuid(self):
        made = self.ok('aggregate', 'create', '--zone', 'az1', 'agg-e2e',
                       '-f', 'json')
        listed = self.ok('aggregate', 'list', '--long', '-f', 'json')
        rows = [row for row in listed if row['Name'] == 'agg-e2e']
        self.assertEqual(1, len(rows), listed)
        self.assertEqual(('az1', made['uuid']),
                         (rows[0]['Availability Zone'], rows[0]['UUID']))
        # The UUID is Nova's own (the one it mirrors into Placement).
        aggregates = self.cloud.compute('GET', '/os-aggregates',
                                        version='2.41')['aggregates']
        self.assertEqual(
            [('az1', made['uuid'])],
            [(a['availability_zone'], a['uuid']) for a in aggregates
             if a['name'] == 'agg-e2e'])

    # The --flavor commands: flavors and a zone made in Nova, providers
    # made in Placement, the answers of the real servers.

    def flavor_cloud(self):
        """Two compute nodes of their own, m1.fit and m1.fit-big; az-fit.

        fit-a: VCPU 8, MEMORY_MB 16384, DISK_GB 200, in the aggregate of
        availability zone az-fit; fit-b: VCPU 2, MEMORY_MB 4096, DISK_GB
        50, outside it. Made once for the tests that share them.
        """
        cls = type(self)
        if getattr(cls, '_flavor_cloud', None):
            return cls._flavor_cloud
        made = {}
        for name, amounts in (('fit-a', (8, 16384, 200)),
                              ('fit-b', (2, 4096, 50))):
            rp = self.ok('resource', 'provider', 'create', name, '-f',
                         'json')
            argv = ['resource', 'provider', 'inventory', 'set', rp['uuid']]
            for rc, total in zip(('VCPU', 'MEMORY_MB', 'DISK_GB'),
                                 amounts):
                argv += ['--resource', '%s=%d' % (rc, total)]
            self.ok(*argv + ['-f', 'json'])
            made[name] = rp['uuid']
        zone = self.ok('aggregate', 'create', '--zone', 'az-fit',
                       'agg-fit', '-f', 'json')
        self.ok('--os-placement-api-version', '1.18', 'resource',
                'provider', 'aggregate', 'set', made['fit-a'],
                '--aggregate', zone['uuid'], '-f', 'json')
        self.ok('flavor', 'create', '--vcpus', '2', '--ram', '2048',
                '--disk', '20', 'm1.fit', '-f', 'json')
        self.ok('flavor', 'create', '--vcpus', '4', '--ram', '4096',
                '--disk', '20', '--property', 'resources:VCPU=6',
                'm1.fit-big', '-f', 'json')
        cls._flavor_cloud = made
        return made

    def fit(self, *argv):
        made = self.flavor_cloud()
        return self.ok(
            '--os-placement-api-version', '1.39', 'resource', 'provider',
            'capacity', 'fit', '--resource-provider', made['fit-a'],
            '--resource-provider', made['fit-b'], *argv + ('-f', 'json'))

    def test_fit_flavor(self):
        made = self.flavor_cloud()
        self.assertEqual(
            [{'resource_provider': made['fit-a'], 'name': 'fit-a',
              'fits': 4, 'at_most': 4, 'limited_by': 'VCPU'},
             {'resource_provider': made['fit-b'], 'name': 'fit-b',
              'fits': 1, 'at_most': 1, 'limited_by': 'VCPU'}],
            self.fit('--flavor', 'm1.fit'))

    def test_fit_flavor_at_the_default_version(self):
        # No version pinned: the flavor's request (root_required, 1.35)
        # goes at the version it needs, in silence; pinned below it, the
        # one line as ever.
        made = self.flavor_cloud()
        argv = ('resource', 'provider', 'capacity', 'fit',
                '--resource-provider', made['fit-a'], '--resource-provider',
                made['fit-b'], '--flavor', 'm1.fit')
        self.assertEqual(
            [(made['fit-a'], 4), (made['fit-b'], 1)],
            [(r['resource_provider'], r['fits'])
             for r in self.ok(*argv + ('-f', 'json'))])
        res = self.openstack('--os-placement-api-version', '1.29', *argv)
        self.assertEqual(
            (1, '', 'Flavor m1.fit: root_required (!COMPUTE_STATUS_DISABLED) '
             'needs --os-placement-api-version 1.35 or later (this session '
             'uses 1.29).\n'), (res.returncode, res.stdout, res.stderr))

    def test_fit_two_flavors_and_summary(self):
        made = self.flavor_cloud()
        rows = self.fit('--flavor', 'm1.fit', '--flavor', 'm1.fit-big')
        self.assertEqual(
            [('m1.fit', made['fit-a'], 4), ('m1.fit', made['fit-b'], 1),
             ('m1.fit-big', made['fit-a'], 1),
             ('m1.fit-big', made['fit-b'], 0)],
            [(r['flavor'], r['resource_provider'], r['fits'])
             for r in rows])
        self.assertIn('VCPU', rows[-1]['limited_by'])
        summary = self.fit('--flavor', 'm1.fit', '--flavor', 'm1.fit-big',
                           '--summary')
        self.assertEqual(
            [{'flavor': 'm1.fit', 'fits': 5, 'at_most': 5, 'trees': 2,
              'limited_by': 'VCPU'},
             {'flavor': 'm1.fit-big', 'fits': 1, 'at_most': 1,
              'trees': 1,
              'limited_by': 'VCPU'}], summary)

    def test_fit_all_flavors(self):
        made = self.flavor_cloud()
        # A flavor of a class Placement does not know: its request is
        # refused (other tests' flavors may be refused too).
        self.ok('flavor', 'create', '--vcpus', '1', '--ram', '512',
                '--disk', '1', '--property', 'resources:CUSTOM_E2E_UNKNOWN=1',
                'm1.fit-refused', '-f', 'json')
        res = self.openstack(
            '--os-placement-api-version', '1.39', 'resource', 'provider',
            'capacity', 'fit', '--resource-provider', made['fit-a'],
            '--resource-provider', made['fit-b'], '--all-flavors',
            '--summary', '-f', 'json')
        self.assertEqual(1, res.returncode)
        rows = {row['flavor']: row for row in json.loads(res.stdout)}
        self.assertEqual((5, 1), (rows['m1.fit']['fits'],
                                  rows['m1.fit-big']['fits']))
        # The refused flavor keeps its row, with Placement's reason, and
        # its line on stderr; the exit code says a flavor failed.
        refused = rows['m1.fit-refused']
        self.assertEqual((None, None), (refused['fits'], refused['trees']))
        self.assertTrue(refused['limited_by'].startswith(
            'refused by Placement: '), refused['limited_by'])
        self.assertIn('CUSTOM_E2E_UNKNOWN', refused['limited_by'])
        self.assertTrue(refused['limited_by'].endswith('(HTTP 400)'))
        errors = res.stderr.splitlines()
        self.assertIn('Failed to ask Placement for flavor m1.fit-refused: '
                      + refused['limited_by'][len('refused by Placement: '):],
                      errors)
        self.assertRegex(errors[-1],
                         r'^Failed to ask Placement for \d+ of %d flavors\.$'
                         % len(rows))

    def test_fit_availability_zone(self):
        made = self.flavor_cloud()
        self.assertEqual(
            [(made['fit-a'], 4)],
            [(r['resource_provider'], r['fits']) for r in self.fit(
                '--flavor', 'm1.fit', '--availability-zone', 'az-fit')])

    def test_fit_unknown_zone_is_one_line(self):
        self.flavor_cloud()
        with self.cloud.placement.count_requests() as seen:
            res = self.openstack(
                '--os-placement-api-version', '1.39', 'resource',
                'provider', 'capacity', 'fit', '--flavor', 'm1.fit',
                '--availability-zone', 'az-none')
        self.assertEqual(
            (1, '', ["No host aggregate of the compute API is in "
                     "availability zone 'az-none'."]),
            (res.returncode, res.stdout, res.stderr.splitlines()))
        self.assertEqual([], [r.uri for r in seen])

    def test_fit_flavor_of_specs_the_scheduler_skips(self):
        # Specs set at compute 2.1, before the flavor API validates them
        # (2.86): Nova's scheduler skips both and boots the server, so
        # the flavor counts as m1.fit does, with a warning for each.
        made = self.flavor_cloud()
        flavor = self.cloud.compute('POST', '/flavors', {'flavor': {
            'name': 'm1.fit-old', 'vcpus': 2, 'ram': 2048, 'disk': 20}},
            version='2.1')['flavor']
        specs = {'resources:VCPU': 'two', 'trait:CUSTOM_E2E_OLD': 'maybe'}
        self.cloud.compute('POST', '/flavors/%s/os-extra_specs'
                           % flavor['id'], {'extra_specs': specs},
                           version='2.1')
        res = self.openstack(
            '--os-placement-api-version', '1.39', 'resource', 'provider',
            'capacity', 'fit', '--resource-provider', made['fit-a'],
            '--resource-provider', made['fit-b'], '--flavor', 'm1.fit-old',
            '-f', 'json')
        self.assertEqual(
            (0, ["Flavor m1.fit-old: extra spec resources:VCPU=two: the "
                 "amount is not an integer; Nova's flavor API refuses it "
                 "(compute 2.86 and later), its scheduler skips it.",
                 "Flavor m1.fit-old: extra spec trait:CUSTOM_E2E_OLD=maybe: "
                 "a trait is \"required\" or \"forbidden\"; Nova's flavor "
                 "API refuses it (compute 2.86 and later), its scheduler "
                 "skips it."]),
            (res.returncode, sorted(res.stderr.splitlines())))
        self.assertEqual([(made['fit-a'], 4), (made['fit-b'], 1)],
                         [(r['resource_provider'], r['fits'])
                          for r in json.loads(res.stdout)])

    def test_fit_default_zone(self):
        # Nova's default zone 'nova': compute hosts in no aggregate with a
        # zone (fit-b-host, whose compute node is fit-b: its
        # hypervisor_hostname, which names its provider, is not the
        # service's host; and fit-gone, a service without a compute
        # node); the internal zone of a conductor. No aggregate carries
        # 'nova': the request names none (as Nova's) and only the tree of
        # fit-b, the provider of fit-b-host's compute node, counts.
        made = self.flavor_cloud()
        nova_seed.write_nova('%s/nova.conf' % self.cloud.nova.workdir, {
            'hosts': [{'host': 'fit-b-host', 'node': 'fit-b',
                       'uuid': made['fit-b'], 'vcpus': 2,
                       'memory_mb': 4096, 'local_gb': 50}]})
        for host, binary in (('fit-gone', 'nova-compute'),
                             ('fit-controller', 'nova-conductor')):
            nova_services.create(self.cloud.nova, host, binary)
        zones = {row['Zone Name']: row for row in self.ok(
            'availability', 'zone', 'list', '--compute', '--long', '-f',
            'json') if row['Host Name'] in ('fit-b-host', 'fit-gone')}
        self.assertEqual(['nova'], sorted(zones))
        # What the compute API says of the node: its UUID, the
        # provider's, and a name that is not its host's.
        self.assertEqual(
            [(made['fit-b'], 'fit-b')],
            [(h['id'], h['hypervisor_hostname']) for h in self.cloud.compute(
                'GET', '/os-hypervisors/detail',
                version='2.53')['hypervisors']
             if h['service']['host'] == 'fit-b-host'])
        res = self.openstack(
            '--os-placement-api-version', '1.39', 'resource', 'provider',
            'capacity', 'fit', '--resource-provider', made['fit-a'],
            '--resource-provider', made['fit-b'], '--flavor', 'm1.fit',
            '--availability-zone', 'nova', '-f', 'json')
        self.assertEqual(
            (0, ["Availability zone 'nova' is Nova's default one (its hosts "
                 "are in no aggregate with a zone): the request names no "
                 "aggregate, and only the trees of its 2 nova-compute hosts "
                 "count (fit-b-host, fit-gone), by the UUIDs of their "
                 "compute nodes in GET /os-hypervisors/detail (1 found).",
                 "No hypervisor of the compute API is on host(s) fit-gone of "
                 "availability zone 'nova': no tree of theirs counts."]),
            (res.returncode, res.stderr.splitlines()))
        self.assertEqual([(made['fit-b'], 1)],
                         [(r['resource_provider'], r['fits'])
                          for r in json.loads(res.stdout)])
        # Nova's internal zone has no compute: one line.
        res = self.openstack(
            '--os-placement-api-version', '1.39', 'resource', 'provider',
            'capacity', 'fit', '--flavor', 'm1.fit', '--availability-zone',
            'internal')
        self.assertEqual(
            (1, '', ["Availability zone 'internal' has no host aggregate and "
                     "no enabled nova-compute host in the compute API."]),
            (res.returncode, res.stdout, res.stderr.splitlines()))

    def test_explain_flavor(self):
        made = self.flavor_cloud()
        rows = self.ok(
            '--os-placement-api-version', '1.39', 'allocation', 'candidate',
            'explain', '--flavor', 'm1.fit-big', '--resource-provider',
            made['fit-a'], '--resource-provider', made['fit-b'], '-f',
            'json')
        self.assertEqual(
            [(made['fit-a'], True, ''), (made['fit-b'], False)],
            [(r['resource_provider'], r['candidate'], r['reason'])[
                :2 if r['candidate'] is False else 3] for r in rows])
        self.assertIn('VCPU', rows[1]['reason'])
