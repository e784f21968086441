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

"""``allocation candidate list`` against a real Placement.

The cloud: ``compute-1``, a compute node with two NUMA nodes (VCPU and
memory) and, on NUMA node 0, an SR-IOV physical function on physnet1
(``CUSTOM_PHYSNET1``); its root has disk and the trait ``CUSTOM_GOLD``.
Beside it ``compute-2``, a flat compute node in an aggregate.
"""

from osc_placement import tests
from osc_placement.tests.functional import base

CN1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
NUMA0 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000011'
NUMA1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000012'
PF = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000021'
CN2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
AGG1 = 'dddddddd-dddd-4ddd-8ddd-000000000001'
AGG2 = 'dddddddd-dddd-4ddd-8ddd-000000000002'
LIST = ('allocation', 'candidate', 'list')
GATE = 'Operation or argument is not supported with version %s; ' \
    'requires at least version %s\n'


def candidates(rows):
    """{candidate number: {provider: allocation}} from the JSON rows."""
    found = {}
    for row in rows:
        found.setdefault(row['#'], {})[row['resource provider']] = \
            row['allocation']
    return found


def as_set(rows):
    """The candidates as a set of frozensets of (provider, allocation)."""
    return {frozenset(c.items()) for c in candidates(rows).values()}


NUMA_REQUEST = ('--resource', 'DISK_GB=10',
                '--group', '1', '--resource', 'VCPU=1',
                '--resource', 'MEMORY_MB=512',
                '--group', '2', '--resource', 'VCPU=2')


class TestAllocationCandidateList(base.TestCase):
    """The cloud of the module docstring."""

    def setUp(self):
        super().setUp()
        tests.create_provider(self, CN1, 'compute-1', {'DISK_GB': 100},
                              traits=['CUSTOM_GOLD'], aggregates=[AGG1])
        tests.create_provider(self, NUMA0, 'compute-1-numa0',
                              {'VCPU': 4, 'MEMORY_MB': 2048}, parent=CN1,
                              traits=['HW_CPU_X86_AVX'])
        tests.create_provider(self, NUMA1, 'compute-1-numa1',
                              {'VCPU': 4, 'MEMORY_MB': 2048}, parent=CN1,
                              traits=['HW_CPU_X86_SSE'])
        tests.create_provider(self, PF, 'compute-1-pf0', {'SRIOV_NET_VF': 8},
                              parent=NUMA0, traits=['CUSTOM_PHYSNET1'])
        tests.create_provider(self, CN2, 'compute-2',
                              {'VCPU': 8, 'MEMORY_MB': 4096, 'DISK_GB': 50},
                              aggregates=[AGG2])

    def test_gate_below_1_10(self):
        err, code = self.fails(*LIST, '--resource', 'VCPU=1', version='1.9')
        self.assertEqual((GATE % ('1.9', '1.10'), 1), (err, code))

    def test_1_10_reads_list_shaped_requests(self):
        rows = self.ok(*LIST, '--resource', 'VCPU=1', '-f', 'json',
                       version='1.10')
        # No traits column before 1.17; one provider per candidate here.
        self.assertEqual({
            (CN2, 'VCPU=1', 'VCPU=0/8'), (NUMA0, 'VCPU=1', 'VCPU=0/4'),
            (NUMA1, 'VCPU=1', 'VCPU=0/4')},
            {(r['resource provider'], r['allocation'],
              r['inventory used/capacity']) for r in rows})
        self.assertEqual([1, 2, 3], sorted(r['#'] for r in rows))
        self.assertTrue(all(len(r) == 4 for r in rows))

    def test_limit_from_1_16(self):
        rows = self.ok(*LIST, '--resource', 'VCPU=1', '--limit', '1',
                       '-f', 'json', version='1.29')
        self.assertEqual(1, len(candidates(rows)))
        err, code = self.fails(*LIST, '--resource', 'VCPU=1', '--limit', '1',
                               version='1.15')
        self.assertEqual(GATE % ('1.15', '1.16'), err)

    def test_required_from_1_17_with_traits_column(self):
        rows = self.ok(*LIST, '--resource', 'VCPU=1', '--required',
                       'HW_CPU_X86_AVX', '-f', 'json', version='1.29')
        self.assertEqual([{'#': 1, 'allocation': 'VCPU=1',
                           'resource provider': NUMA0,
                           'inventory used/capacity':
                           'VCPU=0/4,MEMORY_MB=0/2048',
                           'traits': 'HW_CPU_X86_AVX'}], rows)
        err, code = self.fails(*LIST, '--resource', 'VCPU=1', '--required',
                               'HW_CPU_X86_AVX', version='1.16')
        self.assertEqual(GATE % ('1.16', '1.17'), err)

    def test_forbidden_from_1_22(self):
        rows = self.ok(*LIST, '--resource', 'VCPU=1', '--forbidden',
                       'HW_CPU_X86_AVX', '-f', 'json', version='1.29')
        self.assertEqual({frozenset({(NUMA1, 'VCPU=1')}),
                          frozenset({(CN2, 'VCPU=1')})}, as_set(rows))
        err, code = self.fails(*LIST, '--resource', 'VCPU=1', '--forbidden',
                               'HW_CPU_X86_AVX', version='1.21')
        self.assertEqual(GATE % ('1.21', '1.22'), err)

    def test_required_any_of_from_1_39(self):
        rows = self.ok(*LIST, '--resource', 'VCPU=1', '--required',
                       'HW_CPU_X86_AVX,HW_CPU_X86_SSE', '-f', 'json',
                       version='1.39')
        self.assertEqual({frozenset({(NUMA0, 'VCPU=1')}),
                          frozenset({(NUMA1, 'VCPU=1')})}, as_set(rows))
        err, code = self.fails(*LIST, '--resource', 'VCPU=1', '--required',
                               'HW_CPU_X86_AVX,HW_CPU_X86_SSE', version='1.38')
        self.assertEqual(GATE % ('1.38', '1.39'), err)

    def test_member_of_from_1_21(self):
        rows = self.ok(*LIST, '--resource', 'DISK_GB=1', '--member-of', AGG2,
                       '-f', 'json', version='1.21')
        self.assertEqual({frozenset({(CN2, 'DISK_GB=1')})}, as_set(rows))
        err, code = self.fails(*LIST, '--resource', 'DISK_GB=1', '--member-of',
                               AGG2, version='1.20')
        self.assertEqual(GATE % ('1.20', '1.21'), err)

    def test_repeated_member_of_from_1_24(self):
        rows = self.ok(*LIST, '--resource', 'DISK_GB=1', '--member-of',
                       AGG1 + ',' + AGG2, '--member-of', AGG1, '-f', 'json',
                       version='1.24')
        self.assertEqual({frozenset({(CN1, 'DISK_GB=1')})}, as_set(rows))
        err, code = self.fails(*LIST, '--resource', 'DISK_GB=1', '--member-of',
                               AGG1, '--member-of', AGG2, version='1.23')
        self.assertEqual(GATE % ('1.23', '1.24'), err)

    def test_forbidden_aggregate_from_1_32(self):
        rows = self.ok(*LIST, '--resource', 'DISK_GB=1', '--member-of',
                       '!' + AGG1, '-f', 'json', version='1.32')
        self.assertEqual({frozenset({(CN2, 'DISK_GB=1')})}, as_set(rows))
        err, code = self.fails(*LIST, '--resource', 'DISK_GB=1', '--member-of',
                               '!' + AGG1, version='1.31')
        self.assertEqual(GATE % ('1.31', '1.32'), err)

    def test_deprecated_aggregate_uuid(self):
        out, err, code = self.openstack(*LIST, '--resource', 'DISK_GB=1',
                                        '--aggregate-uuid', AGG2, '-f', 'json',
                                        version='1.21')
        self.assertEqual(0, code)
        self.assertEqual('The --aggregate-uuid option is deprecated, please '
                         'use --member-of instead.\n', err)

    def test_groups_from_1_25(self):
        err, code = self.fails(*LIST, '--group', '1', '--resource', 'VCPU=1',
                               version='1.24')
        self.assertEqual(GATE % ('1.24', '1.25'), err)
        rows = self.ok(*LIST, '--group', '1', '--resource', 'VCPU=1',
                       '--required', 'HW_CPU_X86_SSE', '-f', 'json',
                       version='1.25')
        self.assertEqual({frozenset({(NUMA1, 'VCPU=1')})}, as_set(rows))

    def test_nested_numa_groups_isolate(self):
        rows = self.ok(*LIST, *NUMA_REQUEST, '--group-policy', 'isolate',
                       '-f', 'json', version='1.29')
        # The two groups land on different NUMA nodes of compute-1.
        self.assertEqual({
            frozenset({(CN1, 'DISK_GB=10'), (NUMA0, 'VCPU=1,MEMORY_MB=512'),
                       (NUMA1, 'VCPU=2')}),
            frozenset({(CN1, 'DISK_GB=10'), (NUMA1, 'VCPU=1,MEMORY_MB=512'),
                       (NUMA0, 'VCPU=2')})}, as_set(rows))

    def test_nested_numa_groups_policy_none(self):
        rows = self.ok(*LIST, *NUMA_REQUEST, '-f', 'json', version='1.29')
        # Both groups may also share one NUMA node, or the flat compute-2.
        self.assertEqual({
            frozenset({(CN1, 'DISK_GB=10'), (NUMA0, 'VCPU=1,MEMORY_MB=512'),
                       (NUMA1, 'VCPU=2')}),
            frozenset({(CN1, 'DISK_GB=10'), (NUMA1, 'VCPU=1,MEMORY_MB=512'),
                       (NUMA0, 'VCPU=2')}),
            frozenset({(CN1, 'DISK_GB=10'), (NUMA0, 'VCPU=3,MEMORY_MB=512')}),
            frozenset({(CN1, 'DISK_GB=10'), (NUMA1, 'VCPU=3,MEMORY_MB=512')}),
            frozenset({(CN2, 'DISK_GB=10,VCPU=3,MEMORY_MB=512')})},
            as_set(rows))

    def test_sriov_group_with_physnet_trait(self):
        rows = self.ok(*LIST, '--resource', 'VCPU=1',
                       '--group', '1', '--resource', 'SRIOV_NET_VF=1',
                       '--required', 'CUSTOM_PHYSNET1',
                       '--group-policy', 'isolate', '-f', 'json',
                       version='1.29')
        self.assertEqual({
            frozenset({(NUMA0, 'VCPU=1'), (PF, 'SRIOV_NET_VF=1')}),
            frozenset({(NUMA1, 'VCPU=1'), (PF, 'SRIOV_NET_VF=1')})},
            as_set(rows))
        pf_rows = [r for r in rows if r['resource provider'] == PF]
        self.assertEqual('CUSTOM_PHYSNET1', pf_rows[0]['traits'])
        self.assertEqual('SRIOV_NET_VF=0/8',
                         pf_rows[0]['inventory used/capacity'])

    def test_provider_summaries_cover_all_classes_from_1_27(self):
        def inventory(version):
            rows = self.ok(*LIST, '--resource', 'VCPU=1', '-f', 'json',
                           version=version)
            return {r['resource provider']: r['inventory used/capacity']
                    for r in rows}

        self.assertEqual({CN2: 'VCPU=0/8', NUMA0: 'VCPU=0/4',
                          NUMA1: 'VCPU=0/4'}, inventory('1.26'))
        self.assertEqual({
            CN2: 'VCPU=0/8,MEMORY_MB=0/4096,DISK_GB=0/50',
            NUMA0: 'VCPU=0/4,MEMORY_MB=0/2048',
            NUMA1: 'VCPU=0/4,MEMORY_MB=0/2048'}, inventory('1.27'))

    def test_reserved_equal_to_total_from_1_26(self):
        inventory = self.api(
            'GET', '/resource_providers/%s/inventories/DISK_GB' % CN2,
            version='1.26')
        self.api('PUT', '/resource_providers/%s/inventories/DISK_GB' % CN2,
                 version='1.26',
                 body={'resource_provider_generation':
                        inventory['resource_provider_generation'],
                        'total': 50, 'reserved': 50})
        rows = self.ok(*LIST, '--resource', 'DISK_GB=1', '-f', 'json',
                       version='1.26')
        # compute-2 has no free disk left: only compute-1 is a candidate.
        self.assertEqual({frozenset({(CN1, 'DISK_GB=1')})}, as_set(rows))

    def test_long_from_1_29(self):
        rows = self.ok(*LIST, '--resource', 'VCPU=1', '--required',
                       'HW_CPU_X86_SSE', '--long', '-f', 'json',
                       version='1.29')
        self.assertEqual([{'#': 1, 'allocation': 'VCPU=1',
                           'resource provider': NUMA1,
                           'inventory used/capacity':
                           'VCPU=0/4,MEMORY_MB=0/2048',
                           'traits': 'HW_CPU_X86_SSE',
                           'root provider': CN1, 'parent provider': CN1}],
                         rows)
        err, code = self.fails(*LIST, '--resource', 'VCPU=1', '--long',
                               version='1.28')
        self.assertEqual(GATE % ('1.28', '1.29'), err)

    def test_in_tree_from_1_31_by_name_and_in_a_group(self):
        rows = self.ok(*LIST, '--resource', 'VCPU=1', '--in-tree', 'compute-1',
                       '-f', 'json', version='1.31')
        self.assertEqual({frozenset({(NUMA0, 'VCPU=1')}),
                          frozenset({(NUMA1, 'VCPU=1')})}, as_set(rows))
        rows = self.ok(*LIST, '--resource', 'DISK_GB=1', '--group', '1',
                       '--resource', 'VCPU=1', '--in-tree', CN2, '-f', 'json',
                       version='1.31')
        self.assertEqual({frozenset({(CN2, 'DISK_GB=1,VCPU=1')})},
                         as_set(rows))
        err, code = self.fails(*LIST, '--resource', 'VCPU=1', '--in-tree',
                               CN1, version='1.30')
        self.assertEqual(GATE % ('1.30', '1.31'), err)

    def test_named_groups_from_1_33(self):
        rows = self.ok(*LIST, '--group', 'NUMA_A', '--resource', 'VCPU=1',
                       '--required', 'HW_CPU_X86_AVX', '-f', 'json',
                       version='1.33')
        self.assertEqual({frozenset({(NUMA0, 'VCPU=1')})}, as_set(rows))
        err, code = self.fails(*LIST, '--group', 'NUMA_A', '--resource',
                               'VCPU=1', version='1.32')
        self.assertEqual("--group 'NUMA_A': before --os-placement-api-version "
                         "1.33 a group name must be a positive integer (e.g. "
                         "1).\n", err)

    def test_mappings_from_1_34(self):
        rows = self.ok(*LIST, '--group', '_CPU', '--resource', 'VCPU=1',
                       '--required', 'HW_CPU_X86_AVX', '--group', '_NET',
                       '--resource', 'SRIOV_NET_VF=1', '--long', '-f', 'json',
                       version='1.34')
        self.assertEqual({
            (NUMA0, '_CPU'), (PF, '_NET')},
            {(r['resource provider'], r['mappings']) for r in rows})
        rows = self.ok(*LIST, '--group', '_CPU', '--resource', 'VCPU=1',
                       '--long', '-f', 'json', version='1.33')
        self.assertNotIn('mappings', rows[0])
        self.assertIn('root provider', rows[0])

    def test_root_required_from_1_35(self):
        rows = self.ok(*LIST, '--resource', 'VCPU=1', '--root-required',
                       'CUSTOM_GOLD', '-f', 'json', version='1.35')
        self.assertEqual({frozenset({(NUMA0, 'VCPU=1')}),
                          frozenset({(NUMA1, 'VCPU=1')})}, as_set(rows))
        rows = self.ok(*LIST, '--resource', 'VCPU=1', '--root-required',
                       '!CUSTOM_GOLD', '-f', 'json', version='1.35')
        self.assertEqual({frozenset({(CN2, 'VCPU=1')})}, as_set(rows))
        err, code = self.fails(*LIST, '--resource', 'VCPU=1',
                               '--root-required', 'CUSTOM_GOLD',
                               version='1.34')
        self.assertEqual(GATE % ('1.34', '1.35'), err)

    def test_same_subtree_from_1_36_with_a_resourceless_group(self):
        rows = self.ok(*LIST, '--group', '_NUMA', '--resource', 'VCPU=1',
                       '--group', '_NIC', '--required', 'CUSTOM_PHYSNET1',
                       '--same-subtree', '_NUMA,_NIC', '--long', '-f', 'json',
                       version='1.36')
        # Only NUMA node 0 has the physnet1 PF in its subtree; the PF serves
        # the group without resources and is shown without an allocation.
        self.assertEqual([
            (1, NUMA0, 'VCPU=1', '_NUMA'), (1, PF, '', '_NIC')],
            [(r['#'], r['resource provider'], r['allocation'],
              r['mappings']) for r in rows])
        err, code = self.fails(*LIST, '--group', '_NUMA', '--resource',
                               'VCPU=1', '--same-subtree', '_NUMA',
                               version='1.35')
        self.assertEqual(GATE % ('1.35', '1.36'), err)

    def test_server_errors_are_one_line(self):
        err, code = self.fails(*LIST, '--resource', 'CUSTOM_NOPE=1',
                               version='1.29')
        self.assertEqual((
            'Invalid resource class in resources parameter: No such resource '
            'class CUSTOM_NOPE. (HTTP 400)\n', 1), (err, code))
