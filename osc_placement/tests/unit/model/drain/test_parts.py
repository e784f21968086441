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

"""A consumer's parts and where they land alone (``model/drain/parts.py``).
"""

from oslotest import base

from osc_placement.model.drain import cloud
from osc_placement.model.drain import parts
from osc_placement.tests.unit.model.drain import clouds as c

GOLD = cloud.Need(required=frozenset(['CUSTOM_GOLD']))


def _cloud(consumers=(), targets=('t1',)):
    return c.make(
        [c.host('old', aggregates=['agg1']),
         c.child('old-gpu', 'old', {'VGPU': c.inv(4)}),
         c.child('old-nic', 'old', {'NET_BW': c.inv(100)}),
         c.pool('nfs', 100, ['agg1']),
         c.host('t1', aggregates=['agg1']),
         c.child('t1-b', 't1', {'VGPU': c.inv(1)}),
         c.child('t1-a', 't1', {'VGPU': c.inv(2)}, traits=['CUSTOM_GOLD']),
         c.host('t2', aggregates=['agg2'])],
        ['old'], list(targets), list(consumers))


class TestSplit(base.BaseTestCase):

    def test_what_moves_and_what_stays(self):
        consumer = c.server('s1', {
            'old': {'VCPU': 2, 'MEMORY_MB': 0}, 'old-gpu': {'VGPU': 1},
            'nfs': {'DISK_GB': 10}, 'elsewhere': {'X': 1}},
            needs={'old-gpu': GOLD}, member_of=(frozenset(['agg1']),))
        cl = _cloud([consumer])
        moving = parts.split(consumer, cl, frozenset(['old']))
        self.assertEqual(parts.Shape(
            root=(('VCPU', 2),), children=(((('VGPU', 1),), GOLD),),
            member_of=(frozenset(['agg1']),),
            shares=(frozenset(['agg1']),)), moving.shape)
        self.assertEqual(('old', ('old',), ('old-gpu',)), (
            moving.source_root, moving.roots, moving.children))
        self.assertEqual({'nfs': {'DISK_GB': 10}, 'elsewhere': {'X': 1}},
                         moving.stays)
        self.assertEqual({'VCPU': 2, 'VGPU': 1}, moving.shape.amounts())

    def test_alike_consumers_have_one_shape(self):
        one = c.server('s1', {'old': {'VCPU': 2}})
        two = c.server('s2', {'old': {'VCPU': 2}})
        cl = _cloud([one, two])
        drained = frozenset(['old'])
        self.assertEqual(parts.split(one, cl, drained).shape,
                         parts.split(two, cl, drained).shape)
        self.assertEqual(parts.split(one, cl, drained).shape.key(),
                         parts.split(two, cl, drained).shape.key())

    def test_nothing_on_the_drained_trees(self):
        consumer = c.server('s1', {'nfs': {'DISK_GB': 1}})
        moving = parts.split(consumer, _cloud([consumer]),
                             frozenset(['old']))
        self.assertEqual((None, ()), (moving.source_root,
                                      moving.shape.root))


class TestTargets(base.BaseTestCase):

    def test_in_name_order_with_their_children(self):
        found = parts.targets(_cloud(targets=('t2', 't1', 'gone')))
        self.assertEqual([('t1', ['t1-a', 't1-b'], 0), ('t2', [], 1)], [
            (t.uuid, [p.uuid for p in t.children], t.index)
            for t in found])


class TestAlone(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.t1, self.t2 = parts.targets(_cloud(targets=('t1', 't2')))

    def test_child_options(self):
        shape = parts.Shape(root=(('VCPU', 1),),
                            children=(((('VGPU', 1),), cloud.Need()),))
        # t1-a (index 0) and t1-b (index 1) both take VGPU=1.
        self.assertEqual(((0, 1),), parts.alone(shape, self.t1))
        self.assertIsNone(parts.alone(shape, self.t2))

    def test_child_trait_and_amount(self):
        gold = parts.Shape(children=(((('VGPU', 1),), GOLD),))
        two = parts.Shape(children=(((('VGPU', 2),), cloud.Need()),))
        self.assertEqual((((0,),), ((0,),)), (
            parts.alone(gold, self.t1), parts.alone(two, self.t1)))

    def test_aggregates(self):
        shares = parts.Shape(root=(('VCPU', 1),),
                             shares=(frozenset(['agg2']),))
        member = parts.Shape(root=(('VCPU', 1),),
                             member_of=(frozenset(['agg2', 'agg3']),))
        self.assertEqual((None, (), None, ()), (
            parts.alone(shares, self.t1), parts.alone(shares, self.t2),
            parts.alone(member, self.t1), parts.alone(member, self.t2)))

    def test_root_capacity_and_need(self):
        self.assertIsNone(parts.alone(
            parts.Shape(root=(('VCPU', 9),)), self.t1))
        self.assertIsNone(parts.alone(
            parts.Shape(root=(('VCPU', 1),), root_need=GOLD), self.t1))


class TestMatch(base.BaseTestCase):

    def test_distinct_children_by_augmenting_paths(self):
        # Part 0 could take 0 or 1, part 1 only 0: 0 goes to part 1.
        self.assertEqual((1, 0), parts.match(((0, 1), (0,)),
                                             lambda part, child: True))

    def test_none_when_too_few_children(self):
        self.assertIsNone(parts.match(((0,), (0,)),
                                      lambda part, child: True))

    def test_usable_now(self):
        self.assertEqual((1,), parts.match(((0, 1),),
                                           lambda part, child: child == 1))


class TestHolds(base.BaseTestCase):

    def test_free_given_or_the_providers_own(self):
        provider = c.host('h', vcpu=4, used={'VCPU': 3})
        self.assertEqual((False, True), (
            parts.holds(provider, (('VCPU', 2),), cloud.Need()),
            parts.holds(provider, (('VCPU', 2),), cloud.Need(),
                        {'VCPU': 2})))
