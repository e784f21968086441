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

"""The rules across the groups of a request (``model/evaluation/combine.py``).

The checks a request brings (one provider per tree before 1.29,
``group_policy=isolate``, the capacity summed over the groups) and the
reasons of a combination that none meets. (The whole request's verdicts
are ``test_search.py``'s.)
"""

from oslotest import base
import testscenarios

from osc_placement.model import evaluation
from osc_placement.model.evaluation import combine
from osc_placement.model.evaluation import groups
from osc_placement.model.evaluation import request as requests
from osc_placement.model.evaluation import tree as trees
from osc_placement.tests.unit.model.evaluation.trees import host
from osc_placement.tests.unit.model.evaluation.trees import inv
from osc_placement.tests.unit.model.evaluation.trees import numa_tree

load_tests = testscenarios.load_tests_apply_scenarios

VCPU4 = host(inventories={'VCPU': inv(4)})


class TestCombination(base.BaseTestCase):

    scenarios = [
        ('isolate', dict(
            tree=VCPU4, version='1.29',
            query={'resources1': 'VCPU:1', 'resources2': 'VCPU:1',
                   'group_policy': 'isolate'},
            checks=['isolate', 'capacity'],
            reasons=['group 1 and group 2 need separate providers '
                     '(group_policy isolate) and compete for cn1'])),
        ('summed-capacity', dict(
            tree=VCPU4, version='1.29',
            query={'resources1': 'VCPU:3', 'resources2': 'VCPU:3',
                   'group_policy': 'none'},
            checks=['capacity'],
            reasons=['VCPU: 6 requested by group 1 (3) and group 2 (3), '
                     'above max_unit 4',
                     'VCPU: 6 requested by group 1 (3) and group 2 (3), '
                     '4 free (capacity 4, used 0)'])),
        ('fits', dict(
            tree=VCPU4, version='1.29',
            query={'resources1': 'VCPU:1', 'resources2': 'VCPU:1',
                   'group_policy': 'none'},
            checks=['capacity'], reasons=[])),
        ('one-provider-before-1.29', dict(
            tree=numa_tree(numa0={'inventories': {'VCPU': inv(4)}},
                           numa1={'inventories': {'MEMORY_MB': inv(1024)}}),
            version='1.25',
            query={'resources': 'VCPU:1', 'resources1': 'MEMORY_MB:1',
                   'group_policy': 'none'},
            checks=['nested', 'capacity'],
            reasons=['no single provider has VCPU:1 and MEMORY_MB:1 '
                     '(before microversion 1.29 one provider serves all '
                     'the resources)'])),
    ]

    def test_checks_and_reasons(self):
        request = evaluation.Request.from_query(self.query, self.version)
        tree = trees.Tree(self.tree)
        nested = request.at_least(requests.NESTED)
        options = {suffix: groups.options(tree, group, nested)[0]
                   for suffix, group in request.groups.items()}
        combination = combine.Combination(request, tree, options)
        self.assertEqual(
            (self.checks, self.reasons),
            ([name for name, _check in combination.checks()],
             combination.reasons()))
