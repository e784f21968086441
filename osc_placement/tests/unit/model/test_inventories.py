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

"""Placement's rules of an inventory record (``model/inventories.py``).

The ranges and defaults of its inventory schema, the capacity that must
be at least 1 (at least 0 from 1.26), and what a write does to what is in
use.
"""

from oslotest import base

from osc_placement.model import inventories
from osc_placement.model import scalars


class TestComplete(base.BaseTestCase):

    def test_placement_defaults_fill_what_is_left_out(self):
        self.assertEqual(
            {'allocation_ratio': 1.0, 'min_unit': 1,
             'max_unit': scalars.MAX_INT, 'reserved': 2, 'step_size': 1,
             'total': 8, 'reserved_extra': None},
            inventories.complete({'total': 8, 'reserved': 2,
                                  'reserved_extra': None}))

    def test_no_total_stays_without_one(self):
        self.assertNotIn('total', inventories.complete({}))


class TestRefusals(base.BaseTestCase):

    def test_total_required(self):
        self.assertEqual(['no total (Placement requires one)'],
                         inventories.refusals({'reserved': 1}, True))

    def test_ranges(self):
        self.assertEqual(
            ['min_unit 0 is out of range (1 to 2147483647)',
             'total 2147483648 is out of range (1 to 2147483647)'],
            inventories.refusals({'total': scalars.MAX_INT + 1,
                                  'min_unit': 0}, True))
        self.assertEqual(
            ['allocation_ratio 1e+39 is above 3.40282e+38'],
            inventories.refusals({'total': 1, 'allocation_ratio': 1e39},
                                 True))

    def test_capacity_zero_accepted_from_1_26(self):
        record = {'total': 4, 'reserved': 4}
        self.assertEqual([], inventories.refusals(record, True))
        self.assertEqual(
            ['capacity (total - reserved) * allocation_ratio = (4 - 4) * '
             '1.0 is below 1 (0 is accepted from '
             '--os-placement-api-version 1.26)'],
            inventories.refusals(record, False))

    def test_capacity_below_zero_refused(self):
        self.assertEqual(
            ['capacity (total - reserved) * allocation_ratio = (4 - 5) * '
             '1.0 is below 0'],
            inventories.refusals({'total': 4, 'reserved': 5}, True))


class TestUsage(base.BaseTestCase):

    def test_lowers_capacity(self):
        current = {'VCPU': {'total': 8, 'allocation_ratio': 2.0}}
        self.assertTrue(inventories.lowers_capacity(
            current, {'VCPU': {'total': 8}}))
        self.assertFalse(inventories.lowers_capacity(
            current, {'VCPU': {'total': 16}, 'DISK_GB': {'total': 1}}))

    def test_usage_above_the_new_capacity_and_a_class_removed(self):
        texts = inventories.usage_warnings(
            {'VCPU': {'total': 2}, 'PCPU': {'total': 1}},
            {'VCPU': 3, 'MEMORY_MB': 512, 'PCPU': 5, 'DISK_GB': 0},
            replaces=True, skip=('PCPU',))
        self.assertEqual(2, len(texts))
        self.assertTrue(texts[0].startswith(
            'VCPU has 3 in use, more than its new capacity 2 '), texts[0])
        self.assertTrue(texts[1].startswith(
            'MEMORY_MB has 512 in use and the write would remove it: '
            'Placement refuses that (HTTP 409)'), texts[1])

    def test_amend_removes_nothing(self):
        self.assertEqual([], inventories.usage_warnings(
            {'VCPU': {'total': 8}}, {'MEMORY_MB': 512}, replaces=False))
