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

import os

from osc_placement.tests.e2e_nova import base
from osc_placement.tests.support import cloud
from osc_placement.tests.support import keystone
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
        self.assertEqual(sorted(p[1] for p in cloud.PROVIDERS),
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
