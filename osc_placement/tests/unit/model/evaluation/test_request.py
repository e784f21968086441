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

"""The request read from its query (``evaluation/request.py``)."""

from oslotest import base
import testscenarios

from osc_placement.model import evaluation
from osc_placement.tests.unit.model.evaluation.trees import AGG1
from osc_placement.tests.unit.model.evaluation.trees import AGG2

load_tests = testscenarios.load_tests_apply_scenarios


class TestBadQueries(base.BaseTestCase):
    """What Placement answers 400 for, from_query refuses."""

    scenarios = [
        ('no_resources', dict(query={'required': 'CUSTOM_A'},
                              version='1.17')),
        ('any_of_before_1_39', dict(
            query={'resources': 'VCPU:1', 'required': 'in:CUSTOM_A,CUSTOM_B'},
            version='1.38')),
        ('forbidden_before_1_22', dict(
            query={'resources': 'VCPU:1', 'required': '!CUSTOM_A'},
            version='1.21')),
        ('forbidden_aggregate_before_1_32', dict(
            query={'resources': 'VCPU:1', 'member_of': '!' + AGG1},
            version='1.31')),
        ('repeated_member_of_before_1_24', dict(
            query={'resources': 'VCPU:1', 'member_of': [AGG1, AGG2]},
            version='1.23')),
        ('resourceless_outside_same_subtree', dict(
            query={'resources': 'VCPU:1', 'required1': 'CUSTOM_A',
                   'group_policy': 'none'},
            version='1.36')),
        ('same_subtree_unknown_group', dict(
            query={'resources_A': 'VCPU:1', 'same_subtree': '_A,_B',
                   'group_policy': 'none'},
            version='1.36')),
        ('amount_zero', dict(query={'resources': 'VCPU:0'}, version='1.10')),
    ]

    def test_refused(self):
        self.assertRaises(ValueError, evaluation.Request.from_query,
                          self.query, self.version)
