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

"""The drain plan's search (``model/drain/search.py``).

Hand-made clouds for each rule of a move, and properties on generated
small clouds (up to 4 target hosts with GPU children, 2 drained hosts,
6 consumers, a sharing DISK_GB pool, a disabled host, tight capacity):
the plan moves as many consumers as an exhaustive search written here
(every assignment of every consumer tried), and the plan is valid (its
allocations, summed, fit every provider's capacity and units).
"""

import collections
import itertools

import hypothesis
from hypothesis import strategies as st
from oslotest import base

from osc_placement.model.drain import cloud
from osc_placement.model.drain import search
from osc_placement.tests.unit.model.drain import clouds as c

AGG1, AGG2 = 'agg1', 'agg2'


def _options(cons, providers, targets, drained):
    """Every destination of one consumer: None, then {rp: amounts}."""
    found = [None]
    if cons.stays is not None:
        return found
    moving = {rp: a for rp, a in cons.allocations.items()
              if rp in providers and providers[rp].root in drained}
    if not moving:
        return found
    shared = [providers[rp] for rp in cons.allocations
              if rp in providers and providers[rp].sharing
              and providers[rp].root not in drained]
    on_root = [rp for rp in moving if providers[rp].parent is None]
    on_child = sorted(rp for rp in moving if rp not in on_root)
    for target in targets:
        root = providers[target]
        if not all(g & root.aggregates for g in cons.member_of):
            continue
        if not all(s.aggregates & root.aggregates for s in shared):
            continue
        below = sorted(p.uuid for p in providers.values()
                       if p.root == target and p.uuid != target)
        for dests in itertools.permutations(below, len(on_child)):
            pairs = [(rp, target) for rp in on_root] + list(
                zip(on_child, dests))
            found.append(_landing(cons, providers, pairs))
    return [f for f in found if f is not False]


def _landing(cons, providers, pairs):
    """{dest: amounts} of a pairing, or False when a rule refuses it."""
    landing = collections.defaultdict(collections.Counter)
    for source, dest in pairs:
        need = cons.needs.get(source, cloud.Need())
        traits = providers[dest].traits
        if not need.required <= traits or need.forbidden & traits:
            return False
        landing[dest].update(cons.allocations[source])
    for dest, amounts in landing.items():
        for rc, amount in amounts.items():
            inventory = providers[dest].inventories.get(rc)
            if inventory is None or not (
                    inventory.min_unit <= amount <= inventory.max_unit
                    and amount % inventory.step_size == 0):
                return False
    return landing


def truth(cl):
    """The most consumers that can move at once: every assignment."""
    providers, drained = cl.providers, set(cl.drained)
    targets = [t for t in cl.targets if t in providers]
    options = [_options(x, providers, targets, drained)
               for x in cl.consumers]
    left = {p.uuid: {rc: int((i.total - i.reserved) * i.allocation_ratio)
                     - p.used.get(rc, 0) for rc, i in p.inventories.items()}
            for p in providers.values()}
    best = [0]

    def walk(index, moved):
        if index == len(options):
            best[0] = max(best[0], moved)
            return
        for landing in options[index]:
            if landing is None:
                walk(index + 1, moved)
                continue
            if all(left[d][rc] >= a for d, amounts in landing.items()
                   for rc, a in amounts.items()):
                for d, amounts in landing.items():
                    for rc, a in amounts.items():
                        left[d][rc] -= a
                walk(index + 1, moved + 1)
                for d, amounts in landing.items():
                    for rc, a in amounts.items():
                        left[d][rc] += a
    walk(0, 0)
    return best[0]


def problems(cl, plan):
    """What is wrong with a plan's moves (an empty list when valid)."""
    providers, drained = cl.providers, set(cl.drained)
    found = []
    landed = collections.defaultdict(collections.Counter)
    by_uuid = {x.uuid: x for x in cl.consumers}
    for row in plan.rows:
        if row.target_root is None:
            continue
        cons = by_uuid[row.consumer]
        if cons.stays is not None:
            found.append('%s stays but moves' % row.consumer)
        if row.target_root not in cl.targets:
            found.append('%s to a non-target' % row.consumer)
        for rp, amounts in row.allocations.items():
            if providers[rp].root == row.target_root:
                landed[rp].update(amounts)
                for rc, amount in amounts.items():
                    if not providers[rp].inventories[rc].accepts(amount):
                        found.append('%s: units on %s' % (row.consumer, rp))
            elif amounts != cons.allocations.get(rp) or (
                    providers[rp].root in drained):
                found.append('%s: %s changed' % (row.consumer, rp))
        options = _options(cons, providers, [row.target_root], drained)
        moved = {rp: a for rp, a in row.allocations.items()
                 if providers[rp].root == row.target_root}
        if moved not in [dict(o) if o else o for o in options]:
            found.append('%s: not a move the rules allow' % row.consumer)
    for rp, amounts in landed.items():
        for rc, amount in amounts.items():
            provider = providers[rp]
            if provider.used.get(rc, 0) + amount > \
                    provider.inventories[rc].capacity:
                found.append('over capacity: %s %s' % (rp, rc))
    return found


def _moves(plan):
    """{consumer: target root} of a plan's rows (None: not moved)."""
    return {row.consumer: row.target_root for row in plan.rows}


def _tight():
    """Greedy, largest or smallest first, moves 2; the most is 3.

    c0 and c2 fill new0; c3 alone fits new1 (2 VCPU).
    """
    return c.make(
        [c.host('old', vcpu=64, memory=64, disk=0),
         c.host('new0', vcpu=6, memory=5, disk=0),
         c.host('new1', vcpu=2, memory=4, disk=0)], ['old'],
        ['new0', 'new1'],
        [c.server('c0', {'old': {'VCPU': 3, 'MEMORY_MB': 1}}),
         c.server('c1', {'old': {'VCPU': 4, 'MEMORY_MB': 3}}),
         c.server('c2', {'old': {'VCPU': 3, 'MEMORY_MB': 2}}),
         c.server('c3', {'old': {'VCPU': 1}})])


class TestPlan(base.BaseTestCase):
    """The rules of a move, each on a hand-made cloud."""

    def test_moves_to_the_emptiest_target_and_says_what_moves(self):
        cl = c.make([c.host('old'), c.host('b', memory=4096),
                     c.host('a', memory=4096), c.host('z', memory=8192)],
                    ['old'], ['a', 'b', 'z'],
                    [c.server('s1', {'old': {'VCPU': 2, 'MEMORY_MB': 1024}},
                              server='vm1 (ACTIVE)')])
        plan = search.plan(cl)
        self.assertEqual([search.Row(
            consumer='s1', server='vm1 (ACTIVE)', source_root='old',
            target_root='z', resources={'VCPU': 2, 'MEMORY_MB': 1024},
            reason='', allocations={'z': {'VCPU': 2, 'MEMORY_MB': 1024}})],
            plan.rows)
        self.assertEqual((1, 1, True, 0), (plan.moved, plan.total,
                                           plan.exact, plan.might_improve))

    def test_ties_in_free_memory_go_by_name(self):
        cl = c.make([c.host('old'), c.host('b'), c.host('a')], ['old'],
                    ['b', 'a'],
                    [c.server('s1', {'old': {'MEMORY_MB': 4096}}),
                     c.server('s2', {'old': {'MEMORY_MB': 2048}})])
        # s1 (largest) to a (name first), then s2 to b (now emptier).
        self.assertEqual({'s1': 'a', 's2': 'b'}, _moves(search.plan(cl)))

    def test_the_search_finds_more_than_greedy(self):
        plan = search.plan(_tight())
        self.assertEqual({'c0': 'new0', 'c1': None, 'c2': 'new0',
                          'c3': 'new1'}, _moves(plan))
        self.assertEqual((3, True, 0), (plan.moved, plan.exact,
                                        plan.might_improve))
        self.assertEqual(
            'needs MEMORY_MB=3, VCPU=4: 1 target tree could hold it alone, '
            'none after the other moves', plan.rows[1].reason)

    def test_a_cut_search_says_by_how_much_it_might_improve(self):
        plan = search.plan(_tight(), budget=0)
        self.assertEqual((2, False), (plan.moved, plan.exact))
        self.assertGreaterEqual(plan.might_improve, 1)

    def test_the_most_moves_small_consumers_before_a_big_one(self):
        # Largest first moves big alone; the smallest-first plan moves
        # both small ones, and no plan can move more: exact, uncut or not.
        cl = c.make([c.host('old'), c.host('new', vcpu=4)], ['old'],
                    ['new'], [c.server('big', {'old': {'VCPU': 4}}),
                              c.server('s1', {'old': {'VCPU': 2}}),
                              c.server('s2', {'old': {'VCPU': 2}})])
        for budget in (0, search.DEFAULT_BUDGET):
            plan = search.plan(cl, budget=budget)
            self.assertEqual(
                ({'big': None, 's1': 'new', 's2': 'new'}, True, 0),
                (_moves(plan), plan.exact, plan.might_improve))

    def test_a_child_part_goes_to_a_child_with_its_class(self):
        cl = c.make(
            [c.host('old'), c.child('old-gpu', 'old', {'VGPU': c.inv(4)}),
             c.host('plain', memory=65536), c.host('gpu'),
             c.child('gpu-0', 'gpu', {'VGPU': c.inv(1)}, used={'VGPU': 1}),
             c.child('gpu-1', 'gpu', {'VGPU': c.inv(2)})],
            ['old'], ['plain', 'gpu'],
            [c.server('s1', {'old': {'VCPU': 1}, 'old-gpu': {'VGPU': 2}})])
        plan = search.plan(cl)
        self.assertEqual({'gpu': {'VCPU': 1}, 'gpu-1': {'VGPU': 2}},
                         plan.rows[0].allocations)

    def test_child_parts_go_to_distinct_children(self):
        cl = c.make(
            [c.host('old'), c.child('g1', 'old', {'VGPU': c.inv(4)}),
             c.child('g2', 'old', {'VGPU': c.inv(4)}), c.host('one'),
             c.child('one-gpu', 'one', {'VGPU': c.inv(8)})],
            ['old'], ['one'],
            [c.server('s1', {'g1': {'VGPU': 1}, 'g2': {'VGPU': 1}})])
        plan = search.plan(cl)
        self.assertIsNone(plan.rows[0].target_root)

    def test_a_sharing_part_stays_and_the_target_must_share_it(self):
        cl = c.make(
            [c.host('old', aggregates=['agg1']), c.pool('nfs', 100, ['agg1']),
             c.host('far', memory=65536, aggregates=['agg2']),
             c.host('near', aggregates=['agg1'])],
            ['old'], ['far', 'near'],
            [c.server('s1', {'old': {'VCPU': 1}, 'nfs': {'DISK_GB': 10}})])
        plan = search.plan(cl)
        self.assertEqual({'near': {'VCPU': 1}, 'nfs': {'DISK_GB': 10}},
                         plan.rows[0].allocations)

    def test_only_the_targets_given_receive(self):
        # 'off' (disabled: the command leaves it out of targets) is the
        # emptiest; the one target is too small.
        cl = c.make([c.host('old'), c.host('off', memory=65536),
                     c.host('small', vcpu=1)], ['old'], ['small'],
                    [c.server('s1', {'old': {'VCPU': 2}})])
        plan = search.plan(cl)
        self.assertEqual((None, 'needs VCPU=2: 0 of 1 target trees have '
                          'that much free'),
                         (plan.rows[0].target_root, plan.rows[0].reason))

    def test_units(self):
        cases = [({'step_size': 2}, 3, None), ({'step_size': 2}, 4, 'new'),
                 ({'max_unit': 2}, 3, None), ({'min_unit': 4}, 3, None),
                 ({'min_unit': 2, 'max_unit': 3}, 3, 'new')]
        for units, amount, found in cases:
            cl = c.make([c.host('old'), c.host('new', inventories={
                'VCPU': c.inv(8, **units)})], ['old'], ['new'],
                [c.server('s1', {'old': {'VCPU': amount}})])
            self.assertEqual({'s1': found}, _moves(search.plan(cl)),
                             (units, amount))

    def test_allocation_ratio_and_reserved(self):
        # (10 - 2) * 1.5 = 12; 9 used: 3 left.
        inventories = {'VCPU': c.inv(10, reserved=2, allocation_ratio=1.5)}
        for amount, found in [(3, 'new'), (4, None)]:
            cl = c.make([c.host('old'), c.host(
                'new', inventories=inventories, used={'VCPU': 9})],
                ['old'], ['new'], [c.server('s1', {'old': {'VCPU': amount}})])
            self.assertEqual({'s1': found}, _moves(search.plan(cl)))

    def test_capacity_is_summed_over_the_plan(self):
        cl = c.make([c.host('old'), c.host('new', vcpu=3)], ['old'], ['new'],
                    [c.server('s%d' % i, {'old': {'VCPU': 1}})
                     for i in range(5)])
        plan = search.plan(cl)
        self.assertEqual((3, 5), (plan.moved, plan.total))

    def test_traits_required_and_forbidden(self):
        need = cloud.Need(required=frozenset(['CUSTOM_GOLD']),
                          forbidden=frozenset(['CUSTOM_SLOW']))
        cl = c.make([c.host('old'), c.host('a', memory=65536),
                     c.host('b', traits=['CUSTOM_GOLD', 'CUSTOM_SLOW']),
                     c.host('c', traits=['CUSTOM_GOLD'])],
                    ['old'], ['a', 'b', 'c'],
                    [c.server('s1', {'old': {'VCPU': 1}},
                              needs={'old': need})])
        self.assertEqual({'s1': 'c'}, _moves(search.plan(cl)))

    def test_a_child_needs_its_trait_on_the_child(self):
        need = cloud.Need(required=frozenset(['CUSTOM_A100']))
        cl = c.make(
            [c.host('old'), c.child('old-gpu', 'old', {'VGPU': c.inv(1)}),
             c.host('t'), c.child('t-0', 't', {'VGPU': c.inv(1)}),
             c.child('t-1', 't', {'VGPU': c.inv(1)},
                     traits=['CUSTOM_A100'])],
            ['old'], ['t'],
            [c.server('s1', {'old-gpu': {'VGPU': 1}},
                      needs={'old-gpu': need})])
        self.assertEqual({'t-1': {'VGPU': 1}},
                         search.plan(cl).rows[0].allocations)

    def test_member_of(self):
        cl = c.make([c.host('old'), c.host('a', memory=65536,
                                           aggregates=['az1']),
                     c.host('b', aggregates=['az2'])],
                    ['old'], ['a', 'b'],
                    [c.server('s1', {'old': {'VCPU': 1}},
                              member_of=(frozenset(['az2', 'az3']),))])
        self.assertEqual({'s1': 'b'}, _moves(search.plan(cl)))

    def test_stays_keeps_the_commands_reason(self):
        cl = c.make([c.host('old'), c.host('new')], ['old'], ['new'],
                    [c.server('s1', {'old': {'VCPU': 1}},
                              stays='task state: migrating')])
        plan = search.plan(cl)
        self.assertEqual((0, 1, None, 'task state: migrating'), (
            plan.moved, plan.total, plan.rows[0].target_root,
            plan.rows[0].reason))

    def test_rows_by_source_name_then_consumer(self):
        cl = c.make([c.host('z-uuid'), c.host('a-uuid'), c.host('new')],
                    ['z-uuid', 'a-uuid'], ['new'],
                    [c.server('s2', {'z-uuid': {'VCPU': 1}}),
                     c.server('s3', {'a-uuid': {'VCPU': 1}}),
                     c.server('s1', {'a-uuid': {'VCPU': 1}})])
        plan = search.plan(cl)
        self.assertEqual(['s1', 's3', 's2'], [r.consumer for r in plan.rows])

    def test_same_input_same_plan(self):
        self.assertEqual(search.plan(_tight()), search.plan(_tight()))

    def test_nothing_to_move(self):
        plan = search.plan(c.make([c.host('old')], ['old'], [], []))
        self.assertEqual(([], 0, 0, True), (plan.rows, plan.moved,
                                            plan.total, plan.exact))


@st.composite
def _inventory(draw, least, most):
    total = draw(st.integers(least, most))
    return cloud.Inventory(
        total, reserved=draw(st.sampled_from([0, 0, 1])),
        max_unit=draw(st.sampled_from([total, total, 3])),
        step_size=draw(st.sampled_from([1, 1, 1, 2])),
        allocation_ratio=draw(st.sampled_from([1.0, 1.0, 1.0, 1.5])))


@st.composite
def _target(draw, name):
    """A compute root, up to 2 GPU children; some of it used."""
    inventories = {'VCPU': draw(_inventory(2, 6)),
                   'MEMORY_MB': draw(_inventory(1, 6))}
    root = cloud.Provider(
        name, name, name, None,
        traits=c.COMPUTE | frozenset(draw(st.sets(
            st.sampled_from(['CUSTOM_GOLD']), max_size=1))),
        aggregates=frozenset(draw(st.sets(st.sampled_from([AGG1, AGG2])))),
        inventories=inventories,
        used={rc: draw(st.integers(0, 1)) for rc in inventories})
    gpus = [c.child('%s-gpu%d' % (name, i), name,
                    {'VGPU': draw(_inventory(1, 3))},
                    traits=draw(st.sets(st.sampled_from(['CUSTOM_A']))))
            for i in range(draw(st.integers(0, 2)))]
    return [root] + gpus


@st.composite
def _consumer(draw, name, host, gpus):
    allocations = {host: {'VCPU': draw(st.integers(1, 4)),
                          'MEMORY_MB': draw(st.integers(0, 3))}}
    needs = {}
    for gpu in gpus[:draw(st.sampled_from([0, 0, 1, 2]))]:
        allocations[gpu] = {'VGPU': draw(st.integers(1, 2))}
        if draw(st.integers(0, 3)) == 0:
            needs[gpu] = cloud.Need(required=frozenset(['CUSTOM_A']))
    if draw(st.integers(0, 2)) == 0:
        allocations['pool'] = {'DISK_GB': draw(st.integers(1, 5))}
    if draw(st.integers(0, 3)) == 0:
        needs[host] = cloud.Need(
            required=frozenset(draw(st.sets(st.just('CUSTOM_GOLD')))),
            forbidden=frozenset(draw(st.sets(st.just('CUSTOM_BAD')))))
    allocations = {rp: {rc: a for rc, a in amounts.items() if a}
                   for rp, amounts in allocations.items()}
    member_of = ((frozenset([AGG2]),) if draw(st.integers(0, 4)) == 0
                 else ())
    stays = 'task state migrating' if draw(
        st.integers(0, 9)) == 0 else None
    return c.server(name, allocations, needs=needs, member_of=member_of,
                    stays=stays)


@st.composite
def small_clouds(draw):
    """Up to 4 targets, 2 drained hosts, 6 consumers, a pool, a disabled.

    The drained hosts have GPU children; the pool shares DISK_GB with
    AGG1; one more compute host is disabled (not a target).
    """
    providers = [c.pool('pool', 8, [AGG1])]
    drained = ['old%d' % i for i in range(draw(st.integers(1, 2)))]
    gpus = {}
    for name in drained:
        providers.append(c.host(name, vcpu=64, memory=64, disk=0,
                                aggregates=[AGG1]))
        gpus[name] = ['%s-gpu%d' % (name, i) for i in range(2)]
        providers += [c.child(g, name, {'VGPU': c.inv(8)})
                      for g in gpus[name]]
    targets = ['new%d' % i for i in range(draw(st.sampled_from(
        [0, 1, 2, 2, 3, 4])))]
    for name in targets + ['off']:
        providers += draw(_target(name))
    consumers = []
    for i in range(draw(st.sampled_from([0, 2, 4, 5, 6, 6]))):
        host = draw(st.sampled_from(drained))
        consumers.append(draw(_consumer('c%d' % i, host, gpus[host])))
    return c.make(providers, drained, targets, consumers)


@st.composite
def tight_clouds(draw):
    """2 or 3 small targets, 3 to 6 consumers of VCPU and MEMORY_MB.

    Nothing but capacity decides: the greedy first plan often moves
    fewer than the most.
    """
    providers = [c.host('old', vcpu=64, memory=64, disk=0)]
    targets = ['new%d' % i for i in range(draw(st.integers(2, 3)))]
    providers += [c.host(name, vcpu=draw(st.integers(2, 6)),
                         memory=draw(st.integers(1, 6)), disk=0)
                  for name in targets]
    consumers = [
        c.server('c%d' % i, {'old': {
            rc: a for rc, a in (('VCPU', draw(st.integers(1, 4))),
                                ('MEMORY_MB', draw(st.integers(0, 3))))
            if a}})
        for i in range(draw(st.integers(3, 6)))]
    return c.make(providers, ['old'], targets, consumers)


class TestAgainstExhaustiveSearch(base.BaseTestCase):
    """The plan on generated small clouds, against every assignment."""

    @hypothesis.settings(max_examples=150)
    @hypothesis.given(small_clouds())
    def test_moves_the_most_and_is_valid(self, cl):
        plan = search.plan(cl)
        self.assertEqual((truth(cl), [], True, 0), (
            plan.moved, problems(cl, plan), plan.exact, plan.might_improve))
        self.assertEqual(sorted(x.uuid for x in cl.consumers),
                         sorted(row.consumer for row in plan.rows))

    @hypothesis.settings(max_examples=150)
    @hypothesis.given(tight_clouds())
    def test_tight_capacity(self, cl):
        plan = search.plan(cl)
        self.assertEqual((truth(cl), []), (plan.moved, problems(cl, plan)))

    @hypothesis.settings(max_examples=100)
    @hypothesis.given(small_clouds())
    def test_a_cut_search_states_a_true_bound(self, cl):
        plan = search.plan(cl, budget=0)
        best = truth(cl)
        self.assertEqual([], problems(cl, plan))
        self.assertLessEqual(plan.moved, best)
        self.assertGreaterEqual(plan.moved + plan.might_improve, best)
        if plan.exact:
            self.assertEqual((best, 0), (plan.moved, plan.might_improve))
