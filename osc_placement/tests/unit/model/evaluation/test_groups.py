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

"""How one request group is served in a tree (``model/evaluation/groups.py``).

A numbered group, and the unnamed one before 1.29, take everything from
one provider; from 1.29 the unnamed group takes each class from some
provider of the tree. Where no way is found, the reasons say why. (The
whole request's verdicts are ``test_search.py``'s.)
"""

from oslotest import base

from osc_placement.model.evaluation import groups
from osc_placement.model.evaluation import request
from osc_placement.model.evaluation import tree as trees
from osc_placement.tests.unit.model.evaluation.trees import inv
from osc_placement.tests.unit.model.evaluation.trees import NUMA0
from osc_placement.tests.unit.model.evaluation.trees import NUMA1
from osc_placement.tests.unit.model.evaluation.trees import numa_tree

# VCPU on one NUMA node, memory on the other.
SPLIT = trees.Tree(numa_tree(
    numa0={'inventories': {'VCPU': inv(4)}},
    numa1={'inventories': {'MEMORY_MB': inv(1024)}}))


def group(suffix, **resources):
    found = request.Group(suffix)
    found.resources = dict(resources)
    return found


class TestJoin(base.BaseTestCase):

    def test_words(self):
        self.assertEqual(['a', 'a and b', 'a, b and c'],
                         [groups.join(words) for words in (
                             ['a'], ['a', 'b'], ['a', 'b', 'c'])])


class TestOptions(base.BaseTestCase):

    def test_unnamed_group_nested_takes_each_class_from_some_provider(self):
        found, reasons = groups.options(
            SPLIT, group('', VCPU=2, MEMORY_MB=512), nested=True)
        self.assertEqual([], reasons)
        self.assertEqual(
            [([(NUMA0, 'VCPU', 2), (NUMA1, 'MEMORY_MB', 512)],
              {NUMA0, NUMA1})],
            [(option.amounts, option.providers) for option in found])

    def test_unnamed_group_before_1_29_one_provider(self):
        self.assertEqual(
            ([], ['no single provider has VCPU:2 and MEMORY_MB:512 '
                  '(before microversion 1.29 one provider serves all the '
                  'resources)']),
            groups.options(SPLIT, group('', VCPU=2, MEMORY_MB=512),
                           nested=False))

    def test_numbered_group_one_provider(self):
        self.assertEqual(
            ([], ['no single provider has VCPU:2 and MEMORY_MB:512']),
            groups.options(SPLIT, group('1', VCPU=2, MEMORY_MB=512),
                           nested=True))

    def test_forbidden_trait_on_the_one_provider_of_the_class(self):
        tree = trees.Tree(numa_tree(numa0={
            'inventories': {'VCPU': inv(4)}, 'traits': ['CUSTOM_X']}))
        unnamed = group('', VCPU=2)
        unnamed.forbidden = ['CUSTOM_X']
        self.assertEqual(([], ['has forbidden trait CUSTOM_X']),
                         groups.options(tree, unnamed, nested=True))

    def test_group_without_resources_or_filter_matches_nothing(self):
        self.assertEqual(
            ([], ['a group without resources matches providers only by a '
                  'required trait or aggregate']),
            groups.options(SPLIT, group('2'), nested=True))
