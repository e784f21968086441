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

"""Messages that count things say one or many as the count is."""

import json
import os

import fixtures

from osc_placement import tests
from osc_placement.tests.functional import base

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
C1 = 'cccccccc-cccc-4ccc-8ccc-000000000001'
C2 = 'cccccccc-cccc-4ccc-8ccc-000000000002'


class TestCounts(base.TestCase):

    def setUp(self):
        super().setUp()
        tests.create_provider(self, RP1, 'compute-1', {'VCPU': 8})

    def reshape_file(self, generations):
        """A reshape file of RP1's inventory, at these generations."""
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'reshape.json')
        with open(path, 'w') as f:
            json.dump({'inventories': {RP1: {
                'resource_provider_generation': generations,
                'inventories': {'VCPU': {'total': 8}}}},
                'allocations': {}}, f)
        return path

    def test_one_problem(self):
        now = self.api('GET', '/resource_providers/' + RP1)['generation']
        err, code = self.fails('resource', 'provider', 'reshape',
                               self.reshape_file(now + 5), '--dry-run',
                               version='1.39')
        self.assertEqual(1, code)
        self.assertIn('Placement would refuse this reshape (1 problem); '
                      'nothing was sent.', err)

    def test_consumers_without_a_type(self):
        # Written at 1.28: the server reads their type back as 'unknown'.
        tests.allocate(self, C1, {RP1: {'VCPU': 2}}, consumer_type=None)
        tests.allocate(self, C2, {RP1: {'VCPU': 1}}, consumer_type=None)
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'move', C1, C2,
            version='1.39')
        self.assertEqual(0, code, err)
        self.assertIn('Consumers %s, %s have no type that can be written '
                      '(none, or unknown): the request is sent at '
                      '--os-placement-api-version 1.37' % (C1, C2), err)
