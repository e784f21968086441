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

"""Resource provider commands against a real Placement."""

import testscenarios

from osc_placement import tests
from osc_placement.tests.functional import base

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
RP2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
RP3 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000003'
AGG1 = 'dddddddd-dddd-4ddd-8ddd-000000000001'
AGG2 = 'dddddddd-dddd-4ddd-8ddd-000000000002'
GATE = ('Operation or argument is not supported with version %s; '
        'requires at least version %s')

load_tests = testscenarios.load_tests_apply_scenarios


def names(rows):
    return sorted(r['name'] for r in rows)


class TestResourceProvider(base.TestCase):

    def test_list_at_default_negotiated_version(self):
        tests.create_provider(self, RP1, 'compute-1')
        rows = self.ok('resource', 'provider', 'list', '-f', 'json')
        # Negotiation stops at 1.29: the tree columns are there.
        self.assertEqual([{'uuid': RP1, 'name': 'compute-1', 'generation': 0,
                           'root_provider_uuid': RP1,
                           'parent_provider_uuid': None}], rows)

    def test_list_at_1_0_has_three_columns(self):
        tests.create_provider(self, RP1, 'compute-1')
        rows = self.ok('resource', 'provider', 'list', '-f', 'json',
                       version='1.0')
        self.assertEqual([{'uuid': RP1, 'name': 'compute-1', 'generation': 0}],
                         rows)

    def test_create_show_set_delete(self):
        created = self.ok('resource', 'provider', 'create', 'compute-1',
                          '--uuid', RP1, '-f', 'json', version='1.14')
        self.assertEqual({'uuid': RP1, 'name': 'compute-1', 'generation': 0,
                          'root_provider_uuid': RP1,
                          'parent_provider_uuid': None}, created)
        child = self.ok('resource', 'provider', 'create', 'numa-0',
                        '--parent-provider', 'compute-1', '-f', 'json',
                        version='1.14')
        self.assertEqual(RP1, child['parent_provider_uuid'])
        self.assertEqual(RP1, child['root_provider_uuid'])
        shown = self.ok('resource', 'provider', 'show', 'numa-0',
                        '-f', 'json')
        self.assertEqual(child['uuid'], shown['uuid'])
        renamed = self.ok('resource', 'provider', 'set', RP1, '--name',
                          'compute-one', '-f', 'json')
        self.assertEqual('compute-one', renamed['name'])
        self.assertEqual('compute-one',
                         self.api('GET', '/resource_providers/' + RP1)['name'])
        err, code = self.fails('resource', 'provider', 'delete', RP1)
        self.assertEqual(1, code)
        self.assertIn('child resource providers', err)
        self.ok('resource', 'provider', 'delete', 'numa-0')
        self.ok('resource', 'provider', 'delete', 'compute-one')
        self.assertEqual([], self.api('GET', '/resource_providers')[
            'resource_providers'])

    def test_create_parent_needs_1_14(self):
        tests.create_provider(self, RP1, 'compute-1')
        err, code = self.fails('resource', 'provider', 'create', 'child',
                               '--parent-provider', RP1, version='1.13')
        self.assertEqual((GATE % ('1.13', '1.14') + '\n', 1), (err, code))
        self.assertEqual(1, len(self.api('GET', '/resource_providers')[
                         'resource_providers']))

    def test_show_allocations_of_an_idle_provider_prints_empty_dict(self):
        tests.create_provider(self, RP1, 'compute-1')
        out = self.ok('resource', 'provider', 'show', '--allocations', RP1,
                      '-c', 'allocations', '-f', 'value')
        self.assertEqual('{}\n', out)

    def test_unknown_name_is_one_clear_line(self):
        err, code = self.fails('resource', 'provider', 'show', 'nope')
        self.assertEqual((
            "No resource provider with name or UUID 'nope' found.\n", 1),
            (err, code))

    def test_set_reparent_and_no_parent_at_1_37(self):
        tests.create_provider(self, RP1, 'compute-1')
        tests.create_provider(self, RP2, 'compute-2')
        tests.create_provider(self, RP3, 'numa-0', parent=RP1)
        moved = self.ok('resource', 'provider', 'set', 'numa-0', '--name',
                        'numa-0', '--parent-provider', 'compute-2',
                        '-f', 'json', version='1.37')
        self.assertEqual(RP2, moved['parent_provider_uuid'])
        self.assertEqual(RP2, moved['root_provider_uuid'])
        orphan = self.ok('resource', 'provider', 'set', RP3, '--name',
                         'numa-0', '--no-parent', '-f', 'json',
                         version='1.37')
        self.assertIsNone(orphan['parent_provider_uuid'])
        self.assertEqual(RP3, orphan['root_provider_uuid'])
        self.assertIsNone(self.api('GET', '/resource_providers/' + RP3)[
            'parent_provider_uuid'])

    def test_no_parent_needs_1_37(self):
        tests.create_provider(self, RP1, 'compute-1')
        tests.create_provider(self, RP3, 'numa-0', parent=RP1)
        err, code = self.fails('resource', 'provider', 'set', RP3, '--name',
                               'numa-0', '--no-parent', version='1.36')
        self.assertEqual((GATE % ('1.36', '1.37') + '\n', 1), (err, code))
        self.assertEqual(RP1, self.api('GET', '/resource_providers/' + RP3)[
            'parent_provider_uuid'])

    def test_reparenting_before_1_37_is_refused_by_the_server(self):
        tests.create_provider(self, RP1, 'compute-1')
        tests.create_provider(self, RP2, 'compute-2')
        tests.create_provider(self, RP3, 'numa-0', parent=RP1)
        err, code = self.fails('resource', 'provider', 'set', RP3, '--name',
                               'numa-0', '--parent-provider', RP2,
                               version='1.36')
        self.assertEqual(1, code)
        self.assertIn('re-parenting a provider is not currently '
                      'allowed', err)
        self.assertTrue(err.endswith('(HTTP 400)\n'), err)

    def test_delete_several_reports_each_failure(self):
        tests.create_provider(self, RP1, 'compute-1')
        tests.create_provider(self, RP2, 'compute-2')
        out, err, code = self.openstack('resource', 'provider', 'delete',
                                        'compute-1', 'ghost', RP2)
        self.assertEqual(1, code)
        self.assertEqual([
            "Failed to delete resource provider ghost: No resource provider "
            "with name or UUID 'ghost' found.",
            'Failed to delete 1 of 3 resource providers.'], err.splitlines())
        self.assertEqual([], self.api('GET', '/resource_providers')[
            'resource_providers'])


class CloudTestCase(base.TestCase):
    """compute-1 (AVX, agg1, 8 VCPU) with a child; compute-2 (agg2)."""

    def setUp(self):
        super().setUp()
        tests.create_provider(self, RP1, 'compute-1')
        tests.create_provider(self, RP2, 'compute-2')
        tests.create_provider(self, RP3, 'numa-0', parent=RP1)
        self.api('PUT', '/resource_providers/%s/inventories' % RP1,
                 body={'resource_provider_generation': 0,
                       'inventories': {'VCPU': {'total': 8}}})
        self.api('PUT', '/resource_providers/%s/traits' % RP1,
                 body={'resource_provider_generation': 1,
                       'traits': ['HW_CPU_X86_AVX']})
        self.api('PUT', '/resource_providers/%s/aggregates' % RP1,
                 body={'resource_provider_generation': 2,
                       'aggregates': [AGG1]})
        self.api('PUT', '/resource_providers/%s/aggregates' % RP2,
                 body={'resource_provider_generation': 0,
                       'aggregates': [AGG2]})


class TestResourceProvidersInACloud(CloudTestCase):

    def test_list_filters(self):
        def listed(*argv, version=None):
            return names(self.ok('resource', 'provider', 'list', *argv,
                                 '-f', 'json', version=version))

        self.assertEqual(['compute-2'], listed('--name', 'compute-2'))
        self.assertEqual(['compute-1'], listed('--uuid', RP1))
        self.assertEqual(['compute-1'],
                         listed('--resource', 'VCPU=4', version='1.4'))
        self.assertEqual(['compute-1', 'numa-0'],
                         listed('--in-tree', RP3, version='1.14'))
        self.assertEqual(['compute-1'], listed(
            '--required', 'HW_CPU_X86_AVX', version='1.18'))
        self.assertEqual(['compute-2', 'numa-0'], listed(
            '--forbidden', 'HW_CPU_X86_AVX', version='1.22'))
        self.assertEqual(['compute-1', 'compute-2'], listed(
            '--member-of', AGG1 + ',' + AGG2, version='1.3'))
        self.assertEqual([], listed('--member-of', AGG1, '--member-of', AGG2,
                                    version='1.24'))

    def test_list_any_of_required_traits_at_1_39(self):
        rows = self.ok('resource', 'provider', 'list', '--required',
                       'HW_CPU_X86_AVX,HW_CPU_X86_SSE', '-f', 'json',
                       version='1.39')
        self.assertEqual(['compute-1'], names(rows))
        err, code = self.fails('resource', 'provider', 'list', '--required',
                               'HW_CPU_X86_AVX,HW_CPU_X86_SSE', version='1.38')
        self.assertEqual((GATE % ('1.38', '1.39') + '\n', 1), (err, code))

    def test_list_forbidden_aggregate_from_1_32(self):
        rows = self.ok('resource', 'provider', 'list', '--member-of',
                       '!' + AGG1, '-f', 'json', version='1.32')
        self.assertEqual(['compute-2', 'numa-0'], names(rows))
        rows = self.ok('resource', 'provider', 'list', '--member-of',
                       '!%s,%s' % (AGG1, AGG2), '-f', 'json', version='1.32')
        self.assertEqual(['numa-0'], names(rows))
        err, code = self.fails('resource', 'provider', 'list', '--member-of',
                               '!' + AGG1, version='1.31')
        self.assertEqual((GATE % ('1.31', '1.32') + '\n', 1), (err, code))

    def test_repeated_member_of_needs_1_24(self):
        err, code = self.fails('resource', 'provider', 'list', '--member-of',
                               AGG1, '--member-of', AGG2, version='1.23')
        self.assertEqual((GATE % ('1.23', '1.24') + '\n', 1), (err, code))

    def test_tree_show(self):
        tests.create_provider(self, 'aaaaaaaa-aaaa-4aaa-8aaa-000000000004',
                              'numa-1', parent=RP1)
        tests.create_provider(self, 'aaaaaaaa-aaaa-4aaa-8aaa-000000000005',
                              'pf-0', parent=RP3)
        out = self.ok('resource', 'provider', 'tree', 'show', 'pf-0',
                      '-f', 'value', '-c', 'name', '-c', 'depth')
        self.assertEqual(['compute-1 0', 'numa-0 1', 'pf-0 2',
                          'numa-1 1'], out.splitlines())
        rows = self.ok('resource', 'provider', 'tree', 'show', RP1,
                       '-f', 'json')
        self.assertEqual([
            ('compute-1', 0, None), ('numa-0', 1, RP1),
            ('pf-0', 2, RP3), ('numa-1', 1, RP1)],
            [(r['name'], r['depth'], r['parent_provider_uuid'])
             for r in rows])
        long_rows = self.ok('resource', 'provider', 'tree', 'show', RP1,
                            '--long', '-f', 'json')
        self.assertEqual('VCPU=0/8', long_rows[0]['inventory used/capacity'])
        self.assertEqual('HW_CPU_X86_AVX', long_rows[0]['traits'])
        self.assertEqual('', long_rows[1]['inventory used/capacity'])

    def test_tree_show_needs_1_14(self):
        err, code = self.fails('resource', 'provider', 'tree', 'show', RP1,
                               version='1.13')
        self.assertEqual((GATE % ('1.13', '1.14') + '\n', 1), (err, code))


class TestProviderListGates(CloudTestCase):
    scenarios = [
        (option, {'option': option, 'value': value, 'below': below,
                  'since': since})
        for option, value, below, since in [
            ('--resource', 'VCPU=1', '1.3', '1.4'),
            ('--in-tree', RP1, '1.13', '1.14'),
            ('--required', 'HW_CPU_X86_AVX', '1.17', '1.18'),
            ('--forbidden', 'HW_CPU_X86_AVX', '1.21', '1.22'),
            ('--member-of', AGG1, '1.2', '1.3'),
        ]
    ]

    def test_list_gates(self):
        err, code = self.fails('resource', 'provider', 'list', self.option,
                               self.value, version=self.below)
        self.assertEqual((GATE % (self.below, self.since) + '\n', 1),
                         (err, code))
