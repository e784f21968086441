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

"""``allocation candidate explain`` against a real Placement.

Each test builds a small cloud on the placement fixture and asks why its
trees are or are not candidates; the verdict must be Placement's and the
reason the one in the command's documented words.
"""

import json

import testscenarios

from osc_placement import tests
from osc_placement.tests.functional import base

load_tests = testscenarios.load_tests_apply_scenarios

HOST1 = '11111111-1111-4111-8111-000000000001'
HOST2 = '11111111-1111-4111-8111-000000000002'
NUMA = '11111111-1111-4111-8111-000000000003'
AGG = 'dddddddd-dddd-4ddd-8ddd-000000000001'
C1 = 'cccccccc-cccc-4ccc-8ccc-000000000001'


class ExplainTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        tests.create_provider(
            self, HOST1, 'host1',
            inventories={'VCPU': 16, 'MEMORY_MB': {'total': 8192,
                                                   'max_unit': 4096},
                         'DISK_GB': {'total': 100, 'step_size': 20,
                                     'min_unit': 20}},
            traits=['HW_CPU_X86_AVX2', 'CUSTOM_MAINTENANCE'],
            aggregates=[AGG])
        tests.create_provider(self, HOST2, 'host2',
                              inventories={'VCPU': 16, 'MEMORY_MB': 8192})
        tests.create_provider(self, NUMA, 'host2_numa0', parent=HOST2,
                              inventories={'SRIOV_NET_VF': 4})
        tests.allocate(self, C1, {HOST2: {'VCPU': 14}})

    def explain(self, *argv, version='1.39'):
        return self.ok('allocation', 'candidate', 'explain', *argv,
                       '-f', 'json', version=version)


class TestReasons(ExplainTestCase):
    """One reason of each kind, in its words; Placement's verdict."""

    scenarios = [
        ('free', {'argv': ['--resource', 'VCPU=4'],
                  'host1': '', 'host2': 'VCPU: 4 requested, 2 free '
                  '(capacity 16, used 14)'}),
        ('max-unit', {'argv': ['--resource', 'MEMORY_MB=8192'],
                      'host1': 'MEMORY_MB: 8192 requested, above max_unit '
                      '4096', 'host2': ''}),
        ('step-size', {'argv': ['--resource', 'DISK_GB=30'],
                       'host1': 'DISK_GB: 30 requested, not a multiple of '
                       'step_size 20',
                       'host2': 'no provider in the tree has DISK_GB'}),
        ('required', {'argv': ['--resource', 'VCPU=1', '--required',
                               'HW_CPU_X86_AVX2'],
                      'host1': '', 'host2': 'lacks required trait '
                      'HW_CPU_X86_AVX2'}),
        ('forbidden', {'argv': ['--resource', 'VCPU=1', '--forbidden',
                                'CUSTOM_MAINTENANCE'],
                       'host1': 'has forbidden trait CUSTOM_MAINTENANCE',
                       'host2': ''}),
        ('member-of', {'argv': ['--resource', 'VCPU=1', '--member-of', AGG],
                       'host1': '', 'host2': 'not in aggregate ' + AGG}),
    ]

    def test_reason(self):
        rows = self.explain(*self.argv)
        self.assertEqual(
            [(HOST1, 'host1', not self.host1, self.host1),
             (HOST2, 'host2', not self.host2, self.host2)],
            [(r['resource_provider'], r['name'], r['candidate'], r['reason'])
             for r in rows])


class TestExplain(ExplainTestCase):

    def test_verdict_is_placements(self):
        candidates = self.ok('allocation', 'candidate', 'list', '--resource',
                             'VCPU=4', '-f', 'json', version='1.39')
        self.assertEqual({HOST1}, {r['resource provider'] for r in
                                   candidates})
        rows = self.explain('--resource', 'VCPU=4')
        self.assertEqual({HOST1}, {r['resource_provider'] for r in rows
                                   if r['candidate']})

    def test_nested_group_names_the_group(self):
        rows = self.explain('--resource', 'VCPU=1', '--group', '1',
                            '--resource', 'SRIOV_NET_VF=8')
        self.assertEqual(
            ['group 1: no provider in the tree has SRIOV_NET_VF',
             'group 1: SRIOV_NET_VF: 8 requested, 4 free (capacity 4, '
             'used 0)'],
            [r['reason'] for r in rows])

    def test_long_lists_every_reason(self):
        rows = self.explain('--resource', 'VCPU=4', '--required',
                            'HW_CPU_X86_AVX2', '--long')
        self.assertEqual([], rows[0]['reasons'])
        self.assertEqual(
            ['VCPU: 4 requested, 2 free (capacity 16, used 14)',
             'lacks required trait HW_CPU_X86_AVX2'], rows[1]['reasons'])

    def test_resource_provider_selects_trees(self):
        rows = self.explain('--resource', 'VCPU=4', '--resource-provider',
                            'host2_numa0')
        self.assertEqual([HOST2], [r['resource_provider'] for r in rows])

    def test_summary_drops_one_constraint_at_a_time(self):
        rows = self.explain('--resource', 'VCPU=4', '--required',
                            'HW_CPU_X86_AVX2', '--forbidden',
                            'CUSTOM_MAINTENANCE', '--summary')
        self.assertEqual(
            [{'constraint': '(none: the request as given)',
              'candidates_without_it': 0},
             {'constraint': '--resource VCPU=4',
              'candidates_without_it': None},
             {'constraint': '--required HW_CPU_X86_AVX2',
              'candidates_without_it': 0},
             {'constraint': '--forbidden CUSTOM_MAINTENANCE',
              'candidates_without_it': 1}], rows)

    def test_summary_of_a_refused_request_exits_1(self):
        # The question asked (the request as given) has no answer: as
        # capacity fit for a flavor Placement refuses, exit 1 with the
        # refusal on one line of stderr, the counts it could make printed.
        out, err, code = self.openstack(
            'allocation', 'candidate', 'explain', '--resource', 'VCPU=1',
            '--required', 'CUSTOM_MAINTENANCE', '--forbidden',
            'CUSTOM_MAINTENANCE', '--summary', '-f', 'json',
            version='1.39')
        self.assertEqual(1, code, err)
        self.assertEqual(
            [{'constraint': '(none: the request as given)',
              'candidates_without_it': None},
             {'constraint': '--resource VCPU=1',
              'candidates_without_it': None},
             {'constraint': '--required CUSTOM_MAINTENANCE',
              'candidates_without_it': 1},
             {'constraint': '--forbidden CUSTOM_MAINTENANCE',
              'candidates_without_it': 1}], json.loads(out))
        # Beside the warning of a relaxed request refused (no resources).
        self.assertEqual(
            ['The request as given is refused: Conflicting required and '
             'forbidden traits found in the following traits keys: '
             'required: (CUSTOM_MAINTENANCE) (HTTP 400)'],
            [line for line in err.splitlines() if 'as given' in line])

    def test_resource_provider_checked_as_capacity_list_checks_it(self):
        # A UUID Placement does not know: capacity list's error.
        value = '11111111-1111-4111-8111-00000000000f'
        expected = ("No resource provider with name or UUID '%s' "
                    "found.\n" % value, 1)
        self.assertEqual(expected, self.fails(
            'resource', 'provider', 'capacity', 'list',
            '--resource-provider', value))
        self.assertEqual(expected, self.fails(
            'allocation', 'candidate', 'explain', '--resource',
            'VCPU=1', '--resource-provider', value))
        self.assertEqual(expected, self.fails(
            'resource', 'provider', 'capacity', 'fit', '--resource',
            'VCPU=1', '--resource-provider', value))
        # In capitals: Placement finds the provider, and so do they all.
        listed = self.ok('resource', 'provider', 'capacity', 'list',
                         '--resource-provider', HOST1.upper(), '-f', 'json')
        self.assertEqual({HOST1}, {r['resource_provider'] for r in listed})
        self.assertEqual([HOST1], [r['resource_provider'] for r in
                                   self.explain('--resource', 'VCPU=1',
                                                '--resource-provider',
                                                HOST1.upper())])
        self.assertEqual([HOST1], [r['resource_provider'] for r in self.ok(
            'resource', 'provider', 'capacity', 'fit', '--resource',
            'VCPU=1', '--resource-provider', HOST1.upper(), '-f', 'json',
            version='1.39')])

    def test_in_tree_keeps_every_row(self):
        rows = self.explain('--resource', 'VCPU=1', '--in-tree', HOST2)
        self.assertEqual(
            [(HOST1, False), (HOST2, True)],
            [(r['resource_provider'], r['candidate']) for r in rows])

    def test_bad_value_refused_as_list_refuses_it(self):
        err, code = self.fails('allocation', 'candidate', 'explain',
                               '--resource', 'VCPU')
        listed = self.fails('allocation', 'candidate', 'list',
                            '--resource', 'VCPU')
        self.assertEqual(listed, (err, code))

    def test_limit_is_not_offered(self):
        err, code = self.fails('allocation', 'candidate', 'explain',
                               '--resource', 'VCPU=1', '--limit', '1')
        self.assertEqual(2, code)
        self.assertIn('unrecognized arguments: --limit', err)


class TestCutAnswer(ExplainTestCase):
    """Placement cuts its answer to one candidate: asked again per tree.

    Each tree the answer leaves out is asked about again within the tree,
    in the rows and in ``--summary`` alike.
    """

    def setUp(self):
        super().setUp()
        self.placement.conf_fixture.config(max_allocation_candidates=1,
                                           group='placement')

    def test_the_answer_is_cut(self):
        self.assertEqual(1, len(self.ok(
            'allocation', 'candidate', 'list', '--resource', 'VCPU=1',
            '-f', 'json', version='1.39')))

    def test_rows(self):
        rows = self.explain('--resource', 'VCPU=1')
        self.assertEqual([True, True], [r['candidate'] for r in rows])

    def test_summary(self):
        rows = self.explain('--resource', 'VCPU=1', '--forbidden',
                            'CUSTOM_MAINTENANCE', '--summary')
        self.assertEqual(
            [{'constraint': '(none: the request as given)',
              'candidates_without_it': 1},
             {'constraint': '--resource VCPU=1',
              'candidates_without_it': None},
             {'constraint': '--forbidden CUSTOM_MAINTENANCE',
              'candidates_without_it': 2}], rows)


class TestReasonsAcrossProviders(base.TestCase):
    """Reasons that name providers and groups, on Placement's verdict."""

    def explain(self, *argv, version='1.39'):
        return self.ok('allocation', 'candidate', 'explain', *argv,
                       '--long', '-f', 'json', version=version)

    def test_the_closest_provider_is_named(self):
        tests.create_provider(self, HOST1, 'host1')
        tests.create_provider(self, NUMA, 'host1_numa0', parent=HOST1,
                              inventories={'VCPU': {'total': 32,
                                                    'max_unit': 64}})
        tests.create_provider(self, HOST2, 'host1_numa1', parent=HOST1,
                              inventories={'VCPU': {'total': 32,
                                                    'max_unit': 64}})
        tests.allocate(self, C1, {NUMA: {'VCPU': 4}})
        [row] = self.explain('--resource', 'VCPU=40')
        self.assertFalse(row['candidate'])
        self.assertEqual('VCPU: 40 requested, 32 free (capacity 32, used 0) '
                         'on host1_numa1', row['reason'])
        self.assertEqual(
            [row['reason'],
             'VCPU: 40 requested, 28 free (capacity 32, used 4) on '
             'host1_numa0'], row['reasons'])

    def test_the_groups_that_add_up_are_named(self):
        tests.create_provider(self, HOST1, 'host1',
                              inventories={'VCPU': {'total': 16,
                                                    'max_unit': 32}})
        [row] = self.explain('--group', '_A', '--resource', 'VCPU=12',
                             '--group', '_B', '--resource', 'VCPU=8')
        self.assertFalse(row['candidate'])
        self.assertEqual('VCPU: 20 requested by group _A (12) and group _B '
                         '(8), 16 free (capacity 16, used 0)', row['reason'])

    def test_isolate_names_the_providers_competed_for(self):
        tests.create_provider(self, HOST1, 'host1')
        tests.create_provider(self, NUMA, 'host1_numa0', parent=HOST1,
                              inventories={'VCPU': 16})
        tests.create_provider(self, HOST2, 'host1_numa1', parent=HOST1,
                              inventories={'VCPU': 16},
                              traits=['CUSTOM_X'])
        [row] = self.explain(
            '--group', '1', '--resource', 'VCPU=1', '--required', 'CUSTOM_X',
            '--group', '2', '--resource', 'VCPU=1', '--required', 'CUSTOM_X',
            '--group-policy', 'isolate')
        self.assertFalse(row['candidate'])
        self.assertEqual('group 1 and group 2 need separate providers '
                         '(group_policy isolate) and compete for host1_numa1',
                         row['reason'])

    def test_isolate_and_capacity_together(self):
        """Neither the policy alone nor the capacity alone: both."""
        tests.create_provider(self, HOST1, 'host1',
                              inventories={'VCPU': 4})
        [row] = self.explain(
            '--group', '1', '--resource', 'VCPU=3',
            '--group', '2', '--resource', 'VCPU=3',
            '--group-policy', 'isolate')
        self.assertFalse(row['candidate'])
        self.assertEqual('no combination of providers meets group_policy '
                         'isolate and the free capacity of each provider '
                         'together: group 1 and group 2 compete for host1',
                         row['reason'])


POOL = '22222222-2222-4222-8222-000000000006'
POOL_AGG = 'dddddddd-dddd-4ddd-8ddd-000000000003'


class TestSharingPool(base.TestCase):
    """A host without disk takes DISK_GB from a pool of its aggregate."""

    def test_the_verdict_is_placements(self):
        tests.create_provider(self, HOST1, 'host1',
                              inventories={'VCPU': 8}, aggregates=[POOL_AGG])
        tests.create_provider(self, HOST2, 'host2', inventories={'VCPU': 8})
        tests.create_provider(self, POOL, 'pool',
                              inventories={'DISK_GB': 100},
                              traits=['MISC_SHARES_VIA_AGGREGATE'],
                              aggregates=[POOL_AGG])
        rows = self.ok('allocation', 'candidate', 'explain', '--resource',
                       'VCPU=1', '--resource', 'DISK_GB=30', '-f', 'json',
                       version='1.39')
        self.assertEqual(
            [('host1', True, ''),
             ('host2', False, 'no provider in the tree has DISK_GB'),
             ('pool', False, 'no provider in the tree has VCPU')],
            [(r['name'], r['candidate'], r['reason']) for r in rows])
        # All of it from the pool: Placement anchors the request in each
        # tree the pool shares with, its own too.
        rows = self.ok('allocation', 'candidate', 'explain', '--resource',
                       'DISK_GB=30', '-f', 'json', version='1.39')
        self.assertEqual(
            [('host1', True, ''),
             ('host2', False, 'no provider in the tree has DISK_GB'),
             ('pool', True, '')],
            [(r['name'], r['candidate'], r['reason']) for r in rows])
