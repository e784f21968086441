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

"""``resource provider capacity list`` (``resources/capacity.py``).

Against the small cloud of ``clouds.CloudTestCase``.
"""

import testscenarios

from osc_placement.tests.unit import base
from osc_placement.tests.unit import clouds

URL = base.ENDPOINT
RP1, RP2, RP3 = base.RP1, base.RP2, base.RP3
AGG1 = base.AGG1

load_tests = testscenarios.load_tests_apply_scenarios


class TestCapacityList(clouds.CloudTestCase):

    command = ('resource', 'provider', 'capacity', 'list')

    def test_rows_per_provider_and_class(self):
        rows = self.json()
        self.assertEqual([
            [RP1, 'compute-1', 'DISK_GB', 100, 10, 1.0, 90, 10, 80],
            [RP2, 'numa-0', 'MEMORY_MB', 4096, 512, 1.5, 5376, 1024, 4352],
            [RP2, 'numa-0', 'VCPU', 8, 0, 4.0, 32, 2, 30],
            # Over-committed: free is negative, not clamped.
            [RP3, 'compute-2', 'VCPU', 4, 0, 1.0, 4, 6, -2],
        ], [[r[c] for c in (
            'resource_provider', 'name', 'resource_class', 'total',
            'reserved', 'allocation_ratio', 'capacity', 'used', 'free')]
            for r in rows])
        self.assertEqual(
            sorted(['/resource_providers'] + clouds.per_provider(
                'inventories', 'usages')), self.gets())

    def test_summary_per_class(self):
        rows = self.json('--summary')
        self.assertEqual([
            {'resource_class': 'DISK_GB', 'providers': 1, 'total': 100,
             'reserved': 10, 'capacity': 90, 'used': 10, 'free': 80},
            {'resource_class': 'MEMORY_MB', 'providers': 1, 'total': 4096,
             'reserved': 512, 'capacity': 5376, 'used': 1024, 'free': 4352},
            {'resource_class': 'VCPU', 'providers': 2, 'total': 12,
             'reserved': 0, 'capacity': 36, 'used': 8, 'free': 28},
        ], rows)

    def test_resource_class_filter(self):
        # The classes given are checked first: they exist.
        self.requests_mock.get(URL + '/resource_classes', json={
            'resource_classes': [{'name': 'VCPU'}]})
        rows = self.json('--resource-class', 'VCPU', '--summary')
        self.assertEqual(['VCPU'], [r['resource_class'] for r in rows])

    def test_named_providers_are_looked_up_in_the_given_order(self):
        self.requests_mock.get(
            URL + '/resource_providers?name=compute-2', complete_qs=True,
            json={'resource_providers': [clouds.PROVIDERS[2]]})
        self.requests_mock.get(
            URL + '/resource_providers?uuid=' + RP1, complete_qs=True,
            json={'resource_providers': [clouds.PROVIDERS[0]]})
        rows = self.json('--resource-provider', 'compute-2',
                         '--resource-provider', RP1)
        self.assertEqual([RP3, RP1], [r['resource_provider'] for r in rows])
        self.assertEqual(sorted(
            ['/resource_providers?name=compute-2',
             '/resource_providers?uuid=' + RP1]
            + clouds.per_provider('inventories', 'usages',
                                  providers=(RP1, RP3))), self.gets())

    def test_filters_are_sent_to_the_provider_list(self):
        self.requests_mock.get(
            URL + '/resource_providers?in_tree=%s&member_of=in%%3A%s'
            '&required=HW_NUMA_ROOT' % (RP1, AGG1), complete_qs=True,
            json={'resource_providers': [clouds.PROVIDERS[1]]})
        rows = self.json('--in-tree', RP1, '--member-of', AGG1,
                         '--required', 'HW_NUMA_ROOT')
        self.assertEqual([RP2, RP2], [r['resource_provider'] for r in rows])

    def test_unknown_provider_is_one_line(self):
        self.requests_mock.get(
            URL + '/resource_providers?name=nope', complete_qs=True,
            json={'resource_providers': []})
        out, err, code = self.openstack('--resource-provider', 'nope')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ["No resource provider with name or UUID 'nope' found."],
            err.splitlines())
        self.assertEqual([('GET', '/resource_providers?name=nope')],
                         self.sent())

    def test_bad_aggregate_is_refused_without_a_request(self):
        self.assertRefused(
            ['--member-of', '%s,not-a-uuid' % AGG1],
            "--member-of: 'not-a-uuid' is not an aggregate UUID.")

    def test_member_of_needs_its_microversion(self):
        self.assertRefused(
            ['--member-of', AGG1],
            'Operation or argument is not supported with version 1.2; '
            'requires at least version 1.3', version='1.2')


class TestRefusedWithTheServerDown(base.ServerDownTestCase):

    scenarios = base.server_down([
        ('capacity-member-of',
         ['resource', 'provider', 'capacity', 'list', '--member-of', 'x'],
         "--member-of: 'x' is not an aggregate UUID."),
    ])
