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

"""The evaluation as a whole (``evaluation/search.py``): its words.

``evaluate()`` and its ``Verdict``: each reason's exact wording, and the
rules that change with the microversion. The agreement with a real
Placement is the functional property test's
(``functional/test_evaluation_property.py``).
"""

from oslotest import base
import testscenarios

from osc_placement.model import evaluation
from osc_placement.tests.unit.model.evaluation.trees import AGG1
from osc_placement.tests.unit.model.evaluation.trees import AGG2
from osc_placement.tests.unit.model.evaluation.trees import host
from osc_placement.tests.unit.model.evaluation.trees import inv
from osc_placement.tests.unit.model.evaluation.trees import NUMA1
from osc_placement.tests.unit.model.evaluation.trees import numa_tree
from osc_placement.tests.unit.model.evaluation.trees import OTHER
from osc_placement.tests.unit.model.evaluation.trees import VCPU16
from osc_placement.tests.unit.model.evaluation.trees import VCPU32

load_tests = testscenarios.load_tests_apply_scenarios


class TestReasons(base.BaseTestCase):

    scenarios = [
        ('capacity', dict(
            tree=host(**VCPU16), query={'resources': 'VCPU:4'},
            version='1.10',
            reasons=['VCPU: 4 requested, 2 free (capacity 16, used 14)'])),
        ('capacity_reserved_ratio', dict(
            tree=host(inventories={'VCPU': inv(10, reserved=1, ratio=1.5)},
                      usages={'VCPU': 10}),
            query={'resources': 'VCPU:4'}, version='1.10',
            reasons=['VCPU: 4 requested, 3 free (capacity 13, used 10)'])),
        ('max_unit', dict(
            tree=host(inventories={'MEMORY_MB': inv(8192, max_unit=4096)}),
            query={'resources': 'MEMORY_MB:8192'}, version='1.10',
            reasons=['MEMORY_MB: 8192 requested, above max_unit 4096'])),
        ('step_size', dict(
            tree=host(inventories={'DISK_GB': inv(100, step=20)}),
            query={'resources': 'DISK_GB:30'}, version='1.10',
            reasons=['DISK_GB: 30 requested, not a multiple of step_size '
                     '20'])),
        ('min_unit', dict(
            tree=host(inventories={'DISK_GB': inv(100, min_unit=10)}),
            query={'resources': 'DISK_GB:5'}, version='1.10',
            reasons=['DISK_GB: 5 requested, below min_unit 10'])),
        ('no_class', dict(
            tree=host(**VCPU16), query={'resources': 'SRIOV_NET_VF:1'},
            version='1.10',
            reasons=['no provider in the tree has SRIOV_NET_VF'])),
        ('fits', dict(
            tree=host(**VCPU16), query={'resources': 'VCPU:2'},
            version='1.10', reasons=[])),
        ('required_trait', dict(
            tree=host(**VCPU16),
            query={'resources': 'VCPU:1', 'required': 'HW_CPU_X86_AVX2'},
            version='1.17', reasons=['lacks required trait HW_CPU_X86_AVX2'])),
        ('any_of_traits', dict(
            tree=host(**VCPU16),
            query={'resources': 'VCPU:1',
                   'required': 'in:HW_CPU_X86_AVX2,HW_CPU_X86_AVX512F'},
            version='1.39',
            reasons=['lacks any of HW_CPU_X86_AVX2, HW_CPU_X86_AVX512F'])),
        ('forbidden_trait', dict(
            tree=host(traits=['CUSTOM_MAINTENANCE'], **VCPU16),
            query={'resources': 'VCPU:1', 'required': '!CUSTOM_MAINTENANCE'},
            version='1.22',
            reasons=['has forbidden trait CUSTOM_MAINTENANCE'])),
        ('every_failure', dict(
            tree=host(traits=['CUSTOM_MAINTENANCE'], **VCPU16),
            query={'resources': 'VCPU:4',
                   'required': 'CUSTOM_GOLD,!CUSTOM_MAINTENANCE'},
            version='1.22',
            reasons=['VCPU: 4 requested, 2 free (capacity 16, used 14)',
                     'lacks required trait CUSTOM_GOLD',
                     'has forbidden trait CUSTOM_MAINTENANCE'])),
        ('member_of', dict(
            tree=host(**VCPU16),
            query={'resources': 'VCPU:1', 'member_of': AGG1},
            version='1.21', reasons=['not in aggregate %s' % AGG1])),
        ('member_of_any', dict(
            tree=host(**VCPU16),
            query={'resources': 'VCPU:1',
                   'member_of': 'in:%s,%s' % (AGG2, AGG1)},
            version='1.21',
            reasons=['not in any of aggregates %s, %s' % (AGG1, AGG2)])),
        ('member_of_forbidden', dict(
            tree=host(aggregates=[AGG1], **VCPU16),
            query={'resources': 'VCPU:1', 'member_of': '!' + AGG1},
            version='1.32', reasons=['in forbidden aggregate %s' % AGG1])),
        ('root_required', dict(
            tree=host(traits=['CUSTOM_B'], **VCPU16),
            query={'resources': 'VCPU:1',
                   'root_required': 'CUSTOM_A,!CUSTOM_B'},
            version='1.35',
            reasons=['root lacks required trait CUSTOM_A',
                     'root has forbidden trait CUSTOM_B'])),
        ('in_tree', dict(
            tree=host(**VCPU16),
            query={'resources': 'VCPU:1', 'in_tree': OTHER},
            version='1.31', reasons=['not in tree %s' % OTHER])),
        ('in_tree_child', dict(
            tree=numa_tree(numa0=VCPU16),
            query={'resources': 'VCPU:1', 'in_tree': NUMA1},
            version='1.31', reasons=[])),
        ('group_prefix', dict(
            tree=host(**VCPU16),
            query={'resources': 'VCPU:1', 'required': 'CUSTOM_A',
                   'resources1': 'VCPU:1', 'required1': 'CUSTOM_B',
                   'group_policy': 'none'},
            version='1.25',
            reasons=['unnamed group: lacks required trait CUSTOM_A',
                     'group 1: lacks required trait CUSTOM_B'])),
        ('named_group_prefix', dict(
            tree=host(**VCPU16),
            query={'resources_NIC': 'SRIOV_NET_VF:1',
                   'group_policy': 'none'},
            version='1.33',
            reasons=['group _NIC: no provider in the tree has '
                     'SRIOV_NET_VF'])),
        ('no_single_provider', dict(
            tree=numa_tree(numa0=VCPU16,
                           numa1={'traits': ['HW_CPU_X86_AVX2']}),
            query={'resources1': 'VCPU:2', 'required1': 'HW_CPU_X86_AVX2',
                   'group_policy': 'none'},
            version='1.29',
            reasons=['group 1: no single provider has VCPU:2 and '
                     'HW_CPU_X86_AVX2'])),
        ('resources_on_several_providers', dict(
            tree=numa_tree(numa0=VCPU16, numa1=VCPU16),
            query={'resources': 'VCPU:4'}, version='1.29',
            reasons=['VCPU: 4 requested, 2 free (capacity 16, used 14) '
                     'on numa0',
                     'VCPU: 4 requested, 2 free (capacity 16, used 14) '
                     'on numa1'])),
        # The one reason names the provider closest to serving.
        ('closest_provider_first', dict(
            tree=numa_tree(numa0={'inventories': {'VCPU': VCPU32},
                                  'usages': {'VCPU': 4}},
                           numa1={'inventories': {'VCPU': VCPU32}}),
            query={'resources': 'VCPU:40'}, version='1.29',
            reasons=['VCPU: 40 requested, 32 free (capacity 32, used 0) on '
                     'numa1',
                     'VCPU: 40 requested, 28 free (capacity 32, used 4) on '
                     'numa0'])),
        ('isolate', dict(
            tree=host(inventories={'VCPU': inv(16)}),
            query={'resources1': 'VCPU:1', 'resources2': 'VCPU:1',
                   'group_policy': 'isolate'},
            version='1.25',
            reasons=['group 1 and group 2 need separate providers '
                     '(group_policy isolate) and compete for cn1'])),
        ('isolate_three_on_two', dict(
            tree=numa_tree(numa0=VCPU16, numa1=VCPU16),
            query={'resources1': 'VCPU:1', 'resources2': 'VCPU:1',
                   'resources3': 'VCPU:1', 'group_policy': 'isolate'},
            version='1.29',
            reasons=['groups 1, 2 and 3 need separate providers '
                     '(group_policy isolate) and compete for numa0 and '
                     'numa1'])),
        # Groups 1 and 2 need the trait of numa1; group 3 may not have it.
        ('isolate_names_who_competes', dict(
            tree=numa_tree(numa0=VCPU16,
                           numa1=dict(VCPU16, traits=['CUSTOM_X'])),
            query={'resources1': 'VCPU:1', 'required1': 'CUSTOM_X',
                   'resources2': 'VCPU:1', 'required2': 'CUSTOM_X',
                   'resources3': 'VCPU:1', 'required3': '!CUSTOM_X',
                   'group_policy': 'isolate'},
            version='1.29',
            reasons=['groups 1, 2 and 3 need separate providers '
                     '(group_policy isolate): group 1 and group 2 compete '
                     'for numa1'])),
        # Neither rule alone: both together.
        ('isolate_and_capacity', dict(
            tree=host(inventories={'VCPU': inv(4)}),
            query={'resources1': 'VCPU:3', 'resources2': 'VCPU:3',
                   'group_policy': 'isolate'},
            version='1.29',
            reasons=['no combination of providers meets group_policy '
                     'isolate and the free capacity of each provider '
                     'together: group 1 and group 2 compete for cn1'])),
        ('isolate_numa', dict(
            tree=numa_tree(numa0=VCPU16, numa1=VCPU16),
            query={'resources1': 'VCPU:1', 'resources2': 'VCPU:1',
                   'group_policy': 'isolate'},
            version='1.29', reasons=[])),
        ('shared_capacity', dict(
            tree=host(inventories={'VCPU': inv(4, max_unit=8)}),
            query={'resources1': 'VCPU:3', 'resources2': 'VCPU:3',
                   'group_policy': 'none'},
            version='1.25',
            reasons=['VCPU: 6 requested by group 1 (3) and group 2 (3), 4 '
                     'free (capacity 4, used 0)'])),
        ('shared_capacity_named_groups', dict(
            tree=host(inventories={'VCPU': inv(16, max_unit=32)}),
            query={'resources_A': 'VCPU:12', 'resources_B': 'VCPU:8',
                   'group_policy': 'none'},
            version='1.33',
            reasons=['VCPU: 20 requested by group _A (12) and group _B (8), '
                     '16 free (capacity 16, used 0)'])),
        ('shared_capacity_unnamed', dict(
            tree=host(inventories={'VCPU': inv(16, max_unit=32)}),
            query={'resources': 'VCPU:12', 'resources1': 'VCPU:8',
                   'group_policy': 'none'},
            version='1.25',
            reasons=['VCPU: 20 requested by unnamed group (12) and group 1 '
                     '(8), 16 free (capacity 16, used 0)'])),
        # exceeds_capacity: max_unit holds for the sum over the groups.
        ('shared_max_unit', dict(
            tree=host(inventories={'VCPU': inv(16, max_unit=4)}),
            query={'resources1': 'VCPU:3', 'resources2': 'VCPU:3',
                   'group_policy': 'none'},
            version='1.25',
            reasons=['VCPU: 6 requested by group 1 (3) and group 2 (3), '
                     'above max_unit 4'])),
        ('same_subtree', dict(
            tree=numa_tree(numa0=VCPU16,
                           numa1={'traits': ['CUSTOM_NIC']}),
            query={'resources_CPU': 'VCPU:1', 'required_NIC': 'CUSTOM_NIC',
                   'same_subtree': '_CPU,_NIC', 'group_policy': 'none'},
            version='1.36',
            reasons=['groups _CPU, _NIC not under one provider '
                     '(same_subtree)'])),
        ('same_subtree_root', dict(
            tree=numa_tree(root={'traits': ['CUSTOM_NIC']}, numa0=VCPU16),
            query={'resources_CPU': 'VCPU:1', 'required_NIC': 'CUSTOM_NIC',
                   'same_subtree': '_CPU,_NIC', 'group_policy': 'none'},
            version='1.36', reasons=[])),
        # research_context.get_provider_ids_matching: a group without
        # resources keeps only providers that passed a positive filter.
        ('resourceless_forbidden_only', dict(
            tree=numa_tree(numa0=VCPU16),
            query={'resources_CPU': 'VCPU:1', 'required_NIC': '!CUSTOM_X',
                   'same_subtree': '_CPU,_NIC', 'group_policy': 'none'},
            version='1.36',
            reasons=['group _NIC: a group without resources matches '
                     'providers only by a required trait or aggregate'])),
        # ...and get_providers_with_root ignores its in_tree.
        ('resourceless_in_tree_ignored', dict(
            tree=numa_tree(root={'traits': ['CUSTOM_NIC']}, numa0=VCPU16),
            query={'resources_CPU': 'VCPU:1', 'required_NIC': 'CUSTOM_NIC',
                   'in_tree_NIC': OTHER,
                   'same_subtree': '_CPU,_NIC', 'group_policy': 'none'},
            version='1.36', reasons=[])),
    ]

    def test_reasons(self):
        request = evaluation.Request.from_query(self.query, self.version)
        verdict = evaluation.evaluate(request, self.tree)
        self.assertEqual(self.reasons, verdict.reasons)
        self.assertEqual(self.reasons[0] if self.reasons else '',
                         verdict.reason)


# A compute node with memory, its NUMA node with the VCPUs, the trait and
# the aggregate on the compute node.
SPLIT = numa_tree(
    root={'inventories': {'MEMORY_MB': inv(1024)}, 'traits': ['CUSTOM_T'],
          'aggregates': [AGG1]},
    numa0={'inventories': {'VCPU': inv(8)}})


class TestMicroversions(base.BaseTestCase):

    scenarios = [
        ('spread_before_1_29', dict(
            query={'resources': 'VCPU:1,MEMORY_MB:512'}, version='1.28',
            reasons=['no single provider has VCPU:1 and MEMORY_MB:512 '
                     '(before microversion 1.29 one provider serves all '
                     'the resources)'])),
        ('spread_from_1_29', dict(
            query={'resources': 'VCPU:1,MEMORY_MB:512'}, version='1.29',
            reasons=[])),
        ('child_alone_before_1_29', dict(
            query={'resources': 'VCPU:1'}, version='1.28', reasons=[])),
        # The unnamed group: an aggregate on the root covers the tree...
        ('root_aggregate_unnamed', dict(
            query={'resources': 'VCPU:1', 'member_of': AGG1},
            version='1.29', reasons=[])),
        # ...but a numbered group's provider must be in it itself.
        ('root_aggregate_group', dict(
            query={'resources1': 'VCPU:1', 'member_of1': AGG1,
                   'group_policy': 'none'},
            version='1.29',
            reasons=['group 1: no single provider has VCPU:1 and '
                     'aggregate %s' % AGG1])),
        # Traits count on the providers that serve the resources only.
        ('root_trait_serves_nothing', dict(
            query={'resources': 'VCPU:1', 'required': 'CUSTOM_T'},
            version='1.29', reasons=['lacks required trait CUSTOM_T'])),
        ('trait_on_a_serving_provider', dict(
            query={'resources': 'VCPU:1,MEMORY_MB:1', 'required': 'CUSTOM_T'},
            version='1.29', reasons=[])),
        ('forbidden_on_a_serving_provider', dict(
            query={'resources': 'VCPU:1,MEMORY_MB:1',
                   'required': '!CUSTOM_T'},
            version='1.29', reasons=['has forbidden trait CUSTOM_T'])),
        ('forbidden_on_an_idle_provider', dict(
            query={'resources': 'VCPU:1', 'required': '!CUSTOM_T'},
            version='1.29', reasons=[])),
        # Before 1.39 only the last required parameter counts.
        ('last_required_before_1_39', dict(
            query={'resources': 'MEMORY_MB:1',
                   'required': ['CUSTOM_X', 'CUSTOM_T']},
            version='1.38', reasons=[])),
        ('every_required_from_1_39', dict(
            query={'resources': 'MEMORY_MB:1',
                   'required': ['CUSTOM_X', 'CUSTOM_T']},
            version='1.39', reasons=['lacks required trait CUSTOM_X'])),
    ]

    def test_reasons(self):
        request = evaluation.Request.from_query(self.query, self.version)
        self.assertEqual(self.reasons,
                         evaluation.evaluate(request, SPLIT).reasons)
