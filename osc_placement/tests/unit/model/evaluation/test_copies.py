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

"""The range of copies of a request of several groups (``copies.py``).

The truth is an exhaustive search written here, on its own reading of
Placement's rules for the trees drawn (a root with VCPU, up to six
children with VGPU, traits, ``max_unit`` and ``step_size``, a sharing
pool of DISK_GB; up to four numbered groups, ``none`` or ``isolate``, a
``same_subtree``, and an unnumbered group or none): the most copies that
can be placed at once, T. The product's range must hold it:
``fits <= T <= at_most``, and ``fits == T`` where ``fits == at_most``.
"""

import functools
import itertools

from unittest import mock

import hypothesis
from hypothesis import strategies as st
from oslotest import base

from osc_placement.model import evaluation
from osc_placement.model.evaluation import copies
from osc_placement.model.evaluation import tree as trees
from osc_placement.tests.unit.model.evaluation.trees import AGG1
from osc_placement.tests.unit.model.evaluation.trees import inv
from osc_placement.tests.unit.model.evaluation.trees import OTHER
from osc_placement.tests.unit.model.evaluation.trees import ROOT
from osc_placement.tests.unit.model.evaluation.trees import rp

TRAITS = ('CUSTOM_A', 'CUSTOM_B')


def child_uuid(index):
    return 'aaaaaaaa-0000-4000-8000-%012d' % (index + 1)


def gpu_tree(children, vgpu=1, used=0, root_vcpu=0):
    """A host with identical GPU children."""
    return [rp(ROOT, 'cn1', inventories={'VCPU': inv(root_vcpu)}
               if root_vcpu else {})] + [
        rp(child_uuid(i), 'gpu%d' % i, parent=ROOT,
           inventories={'VGPU': inv(vgpu)}, usages={'VGPU': used})
        for i in range(children)]


def gpu_query(groups, policy, amount=1):
    query = {'resources%d' % (i + 1): 'VGPU:%d' % amount
             for i in range(groups)}
    query['group_policy'] = policy
    return query


class TestClosedForms(base.BaseTestCase):
    """Alike groups on identical children: exact, and what it is."""

    def count(self, tree, query):
        request = evaluation.Request.from_query(query, '1.36')
        return evaluation.fit(request, tree)

    def test_isolated_groups_over_identical_gpus(self):
        # 8 GPUs of 2: 16 slots, 4 per copy on 4 distinct GPUs.
        found = self.count(gpu_tree(8, vgpu=2), gpu_query(4, 'isolate'))
        self.assertEqual((4, 4), (found.fits, found.at_most))

    def test_isolated_groups_need_distinct_gpus(self):
        # 3 GPUs of 4: 12 slots, but each copy needs 4 distinct GPUs.
        found = self.count(gpu_tree(4, vgpu=4, used=3),
                           gpu_query(4, 'isolate'))
        self.assertEqual((1, 1), (found.fits, found.at_most))
        found = self.count(gpu_tree(3, vgpu=4), gpu_query(4, 'isolate'))
        self.assertEqual((0, 0), (found.fits, found.at_most))

    def test_groups_share_a_gpu_under_none(self):
        # max_unit 4: four groups of one on one GPU in one copy.
        found = self.count(gpu_tree(3, vgpu=4), gpu_query(4, 'none'))
        self.assertEqual((3, 3), (found.fits, found.at_most))

    def test_max_unit_splits_a_copy(self):
        tree = gpu_tree(3, vgpu=4)
        for child in tree[1:]:
            child['inventories']['VGPU']['max_unit'] = 2
        found = self.count(tree, gpu_query(4, 'none'))
        # Each copy on at least two GPUs; 12 slots, 4 per copy.
        self.assertEqual((3, 3), (found.fits, found.at_most))

    def test_a_big_tree_stays_fast(self):
        # The closed form: no pattern is enumerated.
        tree = trees.Tree(gpu_tree(8))
        request = evaluation.Request.from_query(gpu_query(4, 'isolate'),
                                                '1.36')
        self.assertEqual(2, copies._closed_form(
            request, tree, copies.options_of(request, tree),
            copies._free(tree)))


class TestSearch(base.BaseTestCase):
    """Where the copies differ, the search; the bound names its reason."""

    def test_groups_of_different_classes(self):
        tree = gpu_tree(2, vgpu=1, root_vcpu=4)
        request = evaluation.Request.from_query(
            {'resources1': 'VCPU:1', 'resources2': 'VGPU:1',
             'group_policy': 'isolate'}, '1.36')
        found = evaluation.fit(request, tree)
        self.assertEqual((2, 2, 'VGPU'),
                         (found.fits, found.at_most, found.limited_by))

    def test_same_subtree(self):
        # The VCPU of the root is above every GPU: same subtree.
        tree = gpu_tree(3, vgpu=1, root_vcpu=2)
        request = evaluation.Request.from_query(
            {'resources1': 'VCPU:1', 'resources2': 'VGPU:1',
             'same_subtree': '1,2', 'group_policy': 'none'}, '1.36')
        found = evaluation.fit(request, tree)
        self.assertEqual((2, 2, 'VCPU'),
                         (found.fits, found.at_most, found.limited_by))


# The trees and requests drawn.

@st.composite
def clouds(draw):
    """(tree records, query) of a tree, a pool, and up to four groups."""
    root_vcpu = draw(st.integers(0, 3))
    tree = [rp(ROOT, 'cn1', inventories={'VCPU': inv(root_vcpu)}
               if root_vcpu else {}, aggregates=[AGG1])]
    # Identical children (the closed forms) or each drawn on its own.
    identical = draw(st.booleans())
    for index in range(draw(st.integers(1, 6))):
        if not index or not identical:
            total = draw(st.integers(1, 3))
            inventory = inv(total, max_unit=draw(st.integers(1, total)),
                            step=draw(st.integers(1, 2)))
            used = draw(st.integers(0, total))
            traits = draw(st.lists(st.sampled_from(TRAITS), unique=True,
                                   max_size=2))
        tree.append(rp(
            child_uuid(index), 'gpu%d' % index, parent=ROOT,
            inventories={'VGPU': dict(inventory)}, usages={'VGPU': used},
            traits=list(traits)))
    pool = draw(st.integers(0, 5))
    if pool:
        tree.append(dict(rp(OTHER, 'pool', inventories={
            'DISK_GB': inv(pool, max_unit=draw(st.integers(1, pool)))},
            traits=['MISC_SHARES_VIA_AGGREGATE'], aggregates=[AGG1]),
            shared=True, anchors=1))
    query = {'group_policy': draw(st.sampled_from(['none', 'isolate']))}
    count = draw(st.integers(1, 4))
    # Alike groups (the closed forms) or each drawn on its own.
    alike = draw(st.booleans())
    for number in range(1, count + 1):
        if number == 1 or not alike:
            rc = draw(st.sampled_from(['VGPU', 'VGPU', 'VCPU', 'DISK_GB']))
            amount = draw(st.integers(1, 2))
            trait = draw(st.sampled_from((None,) + TRAITS)) \
                if rc == 'VGPU' else None
        query['resources%d' % number] = '%s:%d' % (rc, amount)
        if trait:
            query['required%d' % number] = trait
    if count > 1 and draw(st.booleans()):
        query['same_subtree'] = '1,2'
    if draw(st.booleans()):
        # A flavor's unnumbered group beside them.
        query['resources'] = '%s:1' % draw(st.sampled_from(
            ['VCPU', 'DISK_GB', 'VGPU']))
    return tree, query


def _serves(record, rc, amount, required):
    """This test's reading: one provider takes a group alone."""
    found = record.get('inventories', {}).get(rc)
    if not found or required - set(record.get('traits', [])):
        return False
    free = trees.free(record, rc)
    return (found['min_unit'] <= amount <= found['max_unit']
            and amount % found['step_size'] == 0 and amount <= free)


def truth(tree, query):
    """The most copies of the query that fit at once, by trying all."""
    by_uuid = {r['uuid']: r for r in tree}
    groups = []
    if 'resources' in query:
        rc, amount = query['resources'].split(':')
        groups.append(('', rc, int(amount), set()))
    for number in range(1, 5):
        if 'resources%d' % number not in query:
            continue
        rc, amount = query['resources%d' % number].split(':')
        required = set([query['required%d' % number]]) \
            if 'required%d' % number in query else set()
        groups.append((str(number), rc, int(amount), required))
    choices = [[r['uuid'] for r in tree if _serves(r, rc, amount, req)]
               for _n, rc, amount, req in groups]
    patterns = set()
    for choice in itertools.product(*choices):
        numbered = [uuid for uuid, group in zip(choice, groups)
                    if group[0]]
        if query['group_policy'] == 'isolate' and len(numbered) > 1 and \
                len(set(numbered)) < len(numbered):
            continue
        if 'same_subtree' in query:
            pair = set(numbered[:2])
            if len(pair) > 1 and ROOT not in pair:
                continue
            if OTHER in pair and len(pair) > 1:
                continue
        need = {}
        for uuid, (_n, rc, amount, _r) in zip(choice, groups):
            need[uuid, rc] = need.get((uuid, rc), 0) + amount
        if all(amount <= trees.inventory(by_uuid[uuid], rc)['max_unit']
               for (uuid, rc), amount in need.items()):
            patterns.add(tuple(sorted(need.items())))
    keys = sorted(set(key for p in patterns for key, _a in p))
    start = tuple(max(trees.free(by_uuid[uuid], rc), 0)
                  for uuid, rc in keys)
    vectors = [tuple(dict(p).get(key, 0) for key in keys)
               for p in patterns]

    @functools.lru_cache(maxsize=None)
    def most(left):
        best = 0
        for vector in vectors:
            if all(a <= b for a, b in zip(vector, left)):
                best = max(best, 1 + most(tuple(
                    b - a for a, b in zip(vector, left))))
        return best

    return most(start)


def judged(cloud):
    """(the product's Fit, the truth) of a (tree records, query)."""
    tree, query = cloud
    request = evaluation.Request.from_query(query, '1.36')
    return evaluation.fit(request, tree), truth(tree, query)


class TestAgainstTheTruth(base.BaseTestCase):

    @hypothesis.given(clouds())
    def test_range_holds_the_truth(self, cloud):
        found, true = judged(cloud)
        query = cloud[1]
        self.assertLessEqual(found.fits, true, (found, query))
        self.assertLessEqual(true, found.at_most, (found, query))
        if found.fits == found.at_most:
            self.assertEqual(true, found.fits)


@st.composite
def flavors(draw):
    """(tree records, query) of a flavor: root VCPU, alike vGPU groups."""
    total = draw(st.integers(1, 3))
    inventory = inv(total, max_unit=draw(st.integers(1, total)))
    tree = [rp(ROOT, 'cn1', inventories={'VCPU': inv(draw(st.integers(
        1, 6)))}, usages={'VCPU': draw(st.integers(0, 1))})] + [
        rp(child_uuid(index), 'gpu%d' % index, parent=ROOT,
           inventories={'VGPU': dict(inventory)})
        for index in range(draw(st.integers(1, 6)))]
    query = {'group_policy': draw(st.sampled_from(['none', 'isolate'])),
             'resources': 'VCPU:%d' % draw(st.integers(1, 2))}
    for number in range(1, draw(st.integers(2, 4)) + 1):
        query['resources%d' % number] = 'VGPU:1'
    return tree, query


class TestApart(base.BaseTestCase):
    """A flavor's unnumbered group apart from its alike numbered groups."""

    @hypothesis.given(flavors())
    def test_exact_and_true(self, cloud):
        found, true = judged(cloud)
        self.assertEqual((true, true), (found.fits, found.at_most),
                         (found, cloud[1]))

    def test_counted_without_enumerating(self):
        # Eight GPUs take two copies of four isolated groups, the root's
        # six VCPU three of VCPU:2: two, and no pattern of the five groups
        # enumerated (only the unnumbered group's own, alone).
        tree = trees.Tree(gpu_tree(8, root_vcpu=6))
        request = evaluation.Request.from_query(
            dict(gpu_query(4, 'isolate'), resources='VCPU:2'), '1.36')
        with mock.patch.object(copies, '_patterns',
                               wraps=copies._patterns) as patterns:
            found = copies.count(request, tree)
        self.assertEqual((2, 2, ''), (found.fits, found.at_most, found.gap))
        self.assertEqual([['']], [list(call.args[0].groups)
                                  for call in patterns.call_args_list])
