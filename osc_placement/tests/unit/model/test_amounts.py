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

"""The amounts (``model/amounts.py``): capacity, and used of capacity."""

from oslotest import base
import testscenarios

from osc_placement.model import amounts

load_tests = testscenarios.load_tests_apply_scenarios


def inventory(total, reserved=0, ratio=1.0):
    return {'total': total, 'reserved': reserved, 'allocation_ratio': ratio}


class TestCapacity(base.BaseTestCase):
    """(total - reserved) * allocation_ratio, rounded down."""

    scenarios = [
        ('plain', {'inventory': inventory(8), 'capacity': 8}),
        ('reserved-then-ratio', {'inventory': inventory(8, 2, 16.0),
                                 'capacity': 96}),
        ('rounded-down', {'inventory': inventory(3, 0, 1.5), 'capacity': 4}),
        ('ratio-below-one', {'inventory': inventory(10, 1, 0.5),
                             'capacity': 4}),
        ('all-reserved', {'inventory': inventory(4, 4, 2.0), 'capacity': 0}),
    ]

    def test_capacity(self):
        self.assertEqual(self.capacity, amounts.capacity(self.inventory))


class TestCapacityAsTheServer(base.BaseTestCase):
    """The capacity the evaluation counts with: Placement's own."""

    scenarios = [
        ('plain', dict(inventory=inventory(16), capacity=16)),
        ('reserved', dict(inventory=inventory(16, reserved=4), capacity=12)),
        ('ratio_floored', dict(
            inventory=inventory(10, reserved=1, ratio=1.5), capacity=13)),
        ('under_one', dict(inventory=inventory(3, ratio=0.7), capacity=2)),
        # The float product, as the server's SQL compares it.
        ('float_product', dict(inventory=inventory(100, ratio=0.29),
                               capacity=28)),
    ]

    def test_capacity(self):
        self.assertEqual(self.capacity,
                         amounts.capacity(self.inventory))


class TestUsedOfCapacity(base.BaseTestCase):

    records = {'VCPU': {'used': 2, 'capacity': 16},
               'MEMORY_MB': {'used': 0, 'capacity': 2048}}

    def test_in_the_order_given(self):
        self.assertEqual(['VCPU=2/16', 'MEMORY_MB=0/2048'],
                         amounts.used_of_capacity(self.records))

    def test_separator(self):
        self.assertEqual(['VCPU: 2/16', 'MEMORY_MB: 0/2048'],
                         amounts.used_of_capacity(self.records, sep=': '))


class TestText(base.BaseTestCase):

    def test_classes_sorted(self):
        self.assertEqual('MEMORY_MB=512, VCPU=2',
                         amounts.text({'VCPU': 2, 'MEMORY_MB': 512}))
        self.assertEqual('', amounts.text({}))
