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

"""The typed inputs of a drain plan (``model/drain/cloud.py``)."""

from oslotest import base

from osc_placement.model.drain import cloud


class TestInventory(base.BaseTestCase):

    def test_capacity_is_placements_formula_rounded_down(self):
        inventory = cloud.Inventory(total=10, reserved=3,
                                    allocation_ratio=1.5)
        self.assertEqual(10, inventory.capacity)

    def test_defaults_accept_any_positive_amount(self):
        inventory = cloud.Inventory(total=4)
        self.assertEqual((4, 0, 1, cloud.MAX_INT, 1, 1.0), (
            inventory.capacity, inventory.reserved, inventory.min_unit,
            inventory.max_unit, inventory.step_size,
            inventory.allocation_ratio))
        self.assertTrue(inventory.accepts(1))
        self.assertFalse(inventory.accepts(0))

    def test_units(self):
        inventory = cloud.Inventory(total=100, min_unit=4, max_unit=16,
                                    step_size=4)
        self.assertEqual([4, 8, 16], [a for a in (2, 4, 6, 8, 16, 20)
                                      if inventory.accepts(a)])

    def test_frozen(self):
        inventory = cloud.Inventory(total=4)
        self.assertRaises(AttributeError, setattr, inventory, 'total', 5)


class TestProvider(base.BaseTestCase):

    def test_free_is_capacity_less_used(self):
        provider = cloud.Provider(
            'p1', 'cn1', 'p1', None,
            inventories={'VCPU': cloud.Inventory(8, allocation_ratio=2.0)},
            used={'VCPU': 5})
        self.assertEqual((11, 0), (provider.free('VCPU'),
                                   provider.free('MEMORY_MB')))

    def test_sharing(self):
        pool = cloud.Provider('s1', 'pool', 's1', None,
                              traits=frozenset([cloud.SHARING]))
        host = cloud.Provider('p1', 'cn1', 'p1', None,
                              traits=frozenset([cloud.COMPUTE_NODE]))
        self.assertEqual((True, False), (pool.sharing, host.sharing))


class TestNeed(base.BaseTestCase):

    def test_required_and_forbidden(self):
        need = cloud.Need(required=frozenset(['CUSTOM_GOLD']),
                          forbidden=frozenset(['CUSTOM_SLOW']))
        self.assertTrue(need.met_by(frozenset(['CUSTOM_GOLD', 'X'])))
        self.assertFalse(need.met_by(frozenset(['X'])))
        self.assertFalse(need.met_by(frozenset(['CUSTOM_GOLD',
                                                'CUSTOM_SLOW'])))

    def test_empty_need_is_met_by_anything(self):
        self.assertTrue(cloud.Need().met_by(frozenset()))


class TestConsumer(base.BaseTestCase):

    def test_defaults(self):
        consumer = cloud.Consumer('c1', {'p1': {'VCPU': 1}})
        self.assertEqual(({}, (), None, '', None), (
            consumer.needs, consumer.member_of, consumer.stays,
            consumer.server, consumer.consumer_type))

    def test_member_of_is_an_and_of_ors(self):
        consumer = cloud.Consumer(
            'c1', {}, member_of=(frozenset(['a1', 'a2']), frozenset(['b'])))
        self.assertTrue(consumer.in_aggregates(frozenset(['a2', 'b'])))
        self.assertFalse(consumer.in_aggregates(frozenset(['a1', 'a2'])))
        self.assertTrue(cloud.Consumer('c2', {}).in_aggregates(frozenset()))


class TestCloud(base.BaseTestCase):

    def test_tree_is_the_root_then_its_descendants_by_name(self):
        providers = {
            'r': cloud.Provider('r', 'cn1', 'r', None),
            'c2': cloud.Provider('c2', 'gpu-b', 'r', 'r'),
            'c1': cloud.Provider('c1', 'gpu-a', 'r', 'r'),
            'g': cloud.Provider('g', 'leaf', 'r', 'c1'),
            'o': cloud.Provider('o', 'cn2', 'o', None),
        }
        found = cloud.Cloud(providers, ['r'], ['o'], []).tree('r')
        self.assertEqual(
            {}, cloud.Cloud(providers, [], [], []).aggregate_names)
        self.assertEqual(['r', 'c1', 'c2', 'g'], [p.uuid for p in found])
