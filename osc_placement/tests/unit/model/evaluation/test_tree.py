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

"""The facts of a tree (``evaluation/tree.py``): a provider's record."""

from oslotest import base

from osc_placement.model import evaluation
from osc_placement.tests.unit.model.evaluation.trees import AGG1
from osc_placement.tests.unit.model.evaluation.trees import inv
from osc_placement.tests.unit.model.evaluation.trees import NUMA0
from osc_placement.tests.unit.model.evaluation.trees import ROOT
from osc_placement.tests.unit.model.evaluation.trees import rp


class TestProviderRecord(base.BaseTestCase):

    def test_from_reads(self):
        """The record of what the commands read (verdicts.Trees)."""
        record = evaluation.provider_record(
            {'uuid': NUMA0, 'name': 'numa0', 'parent_provider_uuid': ROOT,
             'root_provider_uuid': ROOT, 'generation': 3},
            {'inventories': {'VCPU': inv(4)}, 'usages': {'VCPU': 1},
             'traits': ['CUSTOM_A'], 'aggregates': [AGG1]})
        self.assertEqual(
            rp(NUMA0, 'numa0', parent=ROOT,
               inventories={'VCPU': inv(4)}, usages={'VCPU': 1},
               traits=['CUSTOM_A'], aggregates=[AGG1]), record)

    def test_root_before_1_14(self):
        """No root_provider_uuid in the provider list: its own root."""
        record = evaluation.provider_record(
            {'uuid': ROOT, 'name': 'cn1', 'generation': 1},
            {'inventories': {}, 'usages': {}, 'traits': [],
             'aggregates': []})
        self.assertEqual(rp(ROOT, 'cn1'), record)
