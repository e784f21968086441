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

"""The local evaluation of an allocation-candidates request: its words.

The agreement with a real Placement is the functional property test's
(``functional/test_evaluation_property.py``); here, each reason's exact
wording, the microversion differences and the fit counts.
"""

from oslotest import base
import testscenarios

from osc_placement.model import amounts
from osc_placement.model import evaluation

load_tests = testscenarios.load_tests_apply_scenarios

AGG1 = '11111111-1111-4111-8111-111111111111'
AGG2 = '22222222-2222-4222-8222-222222222222'
ROOT = 'aaaaaaaa-0000-4000-8000-000000000000'
NUMA0 = 'aaaaaaaa-0000-4000-8000-000000000001'
NUMA1 = 'aaaaaaaa-0000-4000-8000-000000000002'
OTHER = 'bbbbbbbb-0000-4000-8000-000000000000'


def inv(total, reserved=0, ratio=1.0, min_unit=1, max_unit=None, step=1):
    return {'total': total, 'reserved': reserved, 'allocation_ratio': ratio,
            'min_unit': min_unit,
            'max_unit': total if max_unit is None else max_unit,
            'step_size': step}


def rp(uuid, name, parent=None, inventories=None, usages=None, traits=(),
       aggregates=()):
    return {'uuid': uuid, 'name': name, 'parent_provider_uuid': parent,
            'root_provider_uuid': ROOT if parent else uuid,
            'inventories': inventories or {}, 'usages': usages or {},
            'traits': list(traits), 'aggregates': list(aggregates)}


def host(**kwargs):
    """A tree of one provider."""
    return [rp(ROOT, 'cn1', **kwargs)]


def numa_tree(root=None, numa0=None, numa1=None):
    """A compute node with two NUMA nodes below it."""
    return [rp(ROOT, 'cn1', **(root or {})),
            rp(NUMA0, 'numa0', parent=ROOT, **(numa0 or {})),
            rp(NUMA1, 'numa1', parent=ROOT, **(numa1 or {}))]


VCPU16 = {'inventories': {'VCPU': inv(16)}, 'usages': {'VCPU': 14}}
VCPU32 = inv(32, max_unit=64)


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


class TestCapacity(base.BaseTestCase):

    scenarios = [
        ('plain', dict(inventory=inv(16), capacity=16)),
        ('reserved', dict(inventory=inv(16, reserved=4), capacity=12)),
        ('ratio_floored', dict(inventory=inv(10, reserved=1, ratio=1.5),
                               capacity=13)),
        ('under_one', dict(inventory=inv(3, ratio=0.7), capacity=2)),
        # The float product, as the server's SQL compares it.
        ('float_product', dict(inventory=inv(100, ratio=0.29),
                               capacity=28)),
    ]

    def test_capacity(self):
        self.assertEqual(self.capacity,
                         amounts.capacity(self.inventory))


def fit(count, limited_by, exact=True):
    return evaluation.Fit(count, limited_by, exact)


# The trees of the core review: a host whose child has the memory...
MEMORY_CHILD = [
    rp(ROOT, 'cn1', inventories={'VCPU': inv(8), 'MEMORY_MB': inv(1024)}),
    rp(NUMA0, 'cn1_mem', parent=ROOT,
       inventories={'MEMORY_MB': inv(8192)})]
# ...and a small child with the trait beside a big one without.
SMALL_GOLD = numa_tree(numa0={'inventories': {'VCPU': inv(2)},
                              'traits': ['CUSTOM_GOLD']},
                       numa1={'inventories': {'VCPU': inv(8)}})
# Memory on the root and the gold NUMA node, VCPU on both NUMA nodes.
GOLD_SPLIT = numa_tree(root={'inventories': {'MEMORY_MB': inv(1024)}},
                       numa0={'inventories': {'VCPU': inv(4),
                                              'MEMORY_MB': inv(1024)},
                              'traits': ['CUSTOM_GOLD']},
                       numa1={'inventories': {'VCPU': inv(4)}})


class TestFit(base.BaseTestCase):

    scenarios = [
        ('one_class', dict(
            tree=host(inventories={'VCPU': inv(16)}, usages={'VCPU': 4}),
            query={'resources': 'VCPU:4'}, version='1.10',
            fit=fit(3, 'VCPU'))),
        ('smallest_class', dict(
            tree=host(inventories={'VCPU': inv(16), 'MEMORY_MB': inv(2048)}),
            query={'resources': 'VCPU:4,MEMORY_MB:1024'}, version='1.10',
            fit=fit(2, 'MEMORY_MB'))),
        ('ratio', dict(
            tree=host(inventories={'VCPU': inv(10, reserved=1, ratio=1.5)}),
            query={'resources': 'VCPU:2'}, version='1.10',
            fit=fit(6, 'VCPU'))),
        ('step_size', dict(
            tree=host(inventories={'DISK_GB': inv(100, step=20)}),
            query={'resources': 'DISK_GB:30'}, version='1.10',
            fit=fit(0, 'DISK_GB: 30 requested, not a multiple of step_size '
                       '20'))),
        ('full', dict(
            tree=host(**VCPU16), query={'resources': 'VCPU:4'},
            version='1.10',
            fit=fit(0, 'VCPU: 4 requested, 2 free (capacity 16, used 14)'))),
        ('over_committed', dict(
            tree=host(inventories={'VCPU': inv(4), 'MEMORY_MB': inv(64)},
                      usages={'VCPU': 6}),
            query={'resources': 'MEMORY_MB:1'}, version='1.10',
            fit=fit(64, 'MEMORY_MB'))),
        ('numa_nodes_summed', dict(
            tree=numa_tree(numa0={'inventories': {'VCPU': inv(4)}},
                           numa1={'inventories': {'VCPU': inv(5)}}),
            query={'resources': 'VCPU:2'}, version='1.29',
            fit=fit(4, 'VCPU'))),
        # From 1.29 the classes come from any provider: independent.
        ('classes_apart', dict(
            tree=numa_tree(root={'inventories': {'MEMORY_MB': inv(4096)}},
                           numa0={'inventories': {'VCPU': inv(4)}},
                           numa1={'inventories': {'VCPU': inv(6)}}),
            query={'resources': 'VCPU:2,MEMORY_MB:1024'}, version='1.29',
            fit=fit(4, 'MEMORY_MB'))),
        ('group_traits', dict(
            tree=numa_tree(numa0={'inventories': {'VCPU': inv(4)},
                                  'traits': ['CUSTOM_FAST']},
                           numa1={'inventories': {'VCPU': inv(8)}}),
            query={'resources1': 'VCPU:2', 'required1': 'CUSTOM_FAST',
                   'group_policy': 'none'},
            version='1.29', fit=fit(2, 'VCPU'))),
        ('group_aggregates', dict(
            tree=numa_tree(numa0={'inventories': {'VCPU': inv(4)}},
                           numa1={'inventories': {'VCPU': inv(8)},
                                  'aggregates': [AGG1]}),
            query={'resources1': 'VCPU:2', 'member_of1': '!' + AGG1,
                   'group_policy': 'none'},
            version='1.32', fit=fit(2, 'VCPU'))),
        # Before 1.29 one provider serves the whole allocation: the
        # child's memory is no use to the host's VCPU.
        ('one_provider_before_1_29', dict(
            tree=MEMORY_CHILD,
            query={'resources': 'VCPU:2,MEMORY_MB:1024'}, version='1.28',
            fit=fit(1, 'MEMORY_MB'))),
        # A numbered group too: per provider, the smallest over the
        # classes.
        ('one_provider_group', dict(
            tree=MEMORY_CHILD,
            query={'resources1': 'VCPU:2,MEMORY_MB:1024'}, version='1.29',
            fit=fit(1, 'MEMORY_MB'))),
        ('one_provider_each_summed', dict(
            tree=numa_tree(numa0={'inventories': {'VCPU': inv(4),
                                                  'MEMORY_MB': inv(4096)}},
                           numa1={'inventories': {'VCPU': inv(8),
                                                  'MEMORY_MB': inv(1024)}}),
            query={'resources1': 'VCPU:2,MEMORY_MB:1024'}, version='1.29',
            fit=fit(3, 'VCPU'))),
        # One class: the provider that serves it holds the trait itself.
        ('trait_on_the_small_child', dict(
            tree=SMALL_GOLD,
            query={'resources': 'VCPU:2', 'required': 'CUSTOM_GOLD'},
            version='1.29', fit=fit(1, 'VCPU'))),
        # A trait that one class's providers all have holds whatever the
        # other classes choose: still exact.
        ('trait_on_every_provider_of_a_class', dict(
            tree=numa_tree(root={'inventories': {'MEMORY_MB': inv(4096)},
                                 'traits': ['CUSTOM_GOLD']},
                           numa0={'inventories': {'VCPU': inv(4)}},
                           numa1={'inventories': {'VCPU': inv(6)}}),
            query={'resources': 'VCPU:2,MEMORY_MB:1024',
                   'required': 'CUSTOM_GOLD'},
            version='1.29', fit=fit(4, 'MEMORY_MB'))),
        # A trait held by some providers of two classes: a bound, at most
        # the slots on providers with the trait.
        ('trait_held_together', dict(
            tree=GOLD_SPLIT,
            query={'resources': 'VCPU:1,MEMORY_MB:512',
                   'required': 'CUSTOM_GOLD'},
            version='1.29', fit=fit(4, 'MEMORY_MB', exact=False))),
        ('trait_held_together_tightened', dict(
            tree=numa_tree(root={'inventories': {'MEMORY_MB': inv(4096)}},
                           numa0={'inventories': {'VCPU': inv(2)},
                                  'traits': ['CUSTOM_GOLD']},
                           numa1={'inventories': {'VCPU': inv(8)}}),
            query={'resources': 'VCPU:2,MEMORY_MB:512',
                   'required': 'CUSTOM_GOLD'},
            version='1.29', fit=fit(1, 'VCPU', exact=False))),
    ]

    def test_fit(self):
        request = evaluation.Request.from_query(self.query, self.version)
        self.assertEqual(self.fit, evaluation.fit(request, self.tree))


class TestFitShape(base.BaseTestCase):

    def test_several_groups_refused(self):
        request = evaluation.Request.from_query(
            {'resources': 'VCPU:1', 'resources1': 'VCPU:1',
             'group_policy': 'none'}, '1.25')
        self.assertRaises(ValueError, evaluation.fit, request,
                          host(**VCPU16))


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
