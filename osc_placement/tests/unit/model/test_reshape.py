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

"""What a reshape changes and why Placement would refuse it (``reshape.py``).

A ``Plan`` of the usual reshape, a compute node's VCPU moved to a child
provider with its allocation: the rows before and after, Placement's
refusals (a stale generation, an amount outside the step, a provider
that does not exist, a class left with allocations) and its warnings.
"""

import copy

from oslotest import base

from osc_placement.model import reshape

ROOT, CHILD, C1 = 'rp-root', 'rp-child', 'c-1'

DATA = {
    'inventories': {
        ROOT: {'resource_provider_generation': 3,
               'inventories': {'MEMORY_MB': {'total': 1024}}},
        CHILD: {'resource_provider_generation': 2,
                'inventories': {'VCPU': {'total': 4}}}},
    'allocations': {
        C1: {'allocations': {ROOT: {'resources': {'MEMORY_MB': 512}},
                             CHILD: {'resources': {'VCPU': 3}}},
             'project_id': 'p', 'user_id': 'u', 'consumer_generation': 1}},
}
NOW = {C1: {'allocations': {ROOT: {'resources': {'VCPU': 3,
                                                 'MEMORY_MB': 512}}},
            'project_id': 'p', 'user_id': 'u', 'consumer_generation': 1}}


def states():
    return {ROOT: (3, {'VCPU': {'total': 4}, 'MEMORY_MB': {'total': 1024}},
                   {'VCPU': 3, 'MEMORY_MB': 512}),
            CHILD: (2, {}, {})}


class TestPlan(base.BaseTestCase):

    def test_rows_before_and_after(self):
        plan = reshape.Plan.of_states(DATA, states(), NOW)
        self.assertEqual(
            [(ROOT, 'VCPU', '', '3/4', ''), (CHILD, 'VCPU', '', '', '3/4'),
             (ROOT, 'VCPU', C1, 3, ''), (CHILD, 'VCPU', C1, '', 3)],
            plan.rows())
        self.assertEqual(([], []), (plan.problems(), plan.warnings()))

    def test_stale_generation_and_an_amount_off_the_step(self):
        data = copy.deepcopy(DATA)
        data['inventories'][CHILD]['resource_provider_generation'] = 1
        data['inventories'][CHILD]['inventories']['VCPU']['step_size'] = 2
        self.assertEqual(
            ['resource provider rp-child: generation 1 in the file, 2 now',
             'consumer c-1: VCPU=3 on resource provider rp-child is '
             'outside min_unit 1, max_unit 2147483647, step_size 2'],
            reshape.Plan.of_states(data, states(), NOW).problems())

    def test_provider_that_does_not_exist(self):
        found = dict(states(), **{CHILD: None})
        plan = reshape.Plan.of_states(DATA, found, NOW)
        self.assertEqual(['resource provider rp-child does not exist'],
                         plan.problems())
        # Its rows show the file's side only.
        self.assertIn((CHILD, 'VCPU', '', '', '3/4'), plan.rows())

    def test_class_left_with_allocations(self):
        data = copy.deepcopy(DATA)
        data['allocations'][C1]['allocations'] = NOW[C1]['allocations']
        self.assertEqual(
            ['consumer c-1: resource provider rp-root has no VCPU '
             'inventory',
             'resource provider rp-root: VCPU leaves the inventory but 3 '
             'stay allocated (inventory in use)'],
            reshape.Plan.of_states(data, states(), NOW).problems())

    def test_capacity_below_what_others_use_is_a_warning(self):
        data = copy.deepcopy(DATA)
        data['inventories'][ROOT]['inventories']['MEMORY_MB']['total'] = 256
        data['allocations'][C1]['allocations'].pop(ROOT)
        now = {C1: {'allocations': {ROOT: {'resources': {'VCPU': 3}}},
                    'consumer_generation': 1}}
        self.assertEqual(
            ['resource provider rp-root: MEMORY_MB stays used 512, above '
             'its new capacity 256'],
            reshape.Plan.of_states(data, states(), now).warnings())
