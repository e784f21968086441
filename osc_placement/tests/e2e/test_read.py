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

"""Reading the sample cloud with the installed ``openstack``, as scripts do.

Nothing here changes the server's data.
"""

import json
import re

from osc_placement.tests.e2e import base
from osc_placement.tests.support import cloud

UUID_LINE = re.compile(r'^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-'
                       r'[0-9a-f]{12}$')
ALL_PROVIDERS = [uuid for _, uuid, _, _, _ in cloud.PROVIDERS]


def _candidates(rows):
    """{candidate number: {provider: allocation}} from -f json rows."""
    result = {}
    for row in rows:
        result.setdefault(row['#'], {})[row['resource provider']] = (
            row['allocation'])
    return result


class TestReadTheSampleCloud(base.SandboxTestCase):

    def test_default_negotiation_then_provider_list(self):
        # Seed scenario 1: no version given, so the client asks the server
        # (GET / at 1.29), keeps 1.29 and lists the providers with the tree
        # columns of that version.
        with self.sandbox.count_requests() as seen:
            rows = self.cli.ok('resource', 'provider', 'list', '-f', 'json')
        self.assertEqual([
            ('GET', '/', 'placement 1.29'),
            ('GET', '/resource_providers', 'placement 1.29'),
        ], [(r.method, r.uri, r.version) for r in seen])
        columns = {'uuid', 'name', 'generation', 'root_provider_uuid',
                   'parent_provider_uuid'}
        self.assertEqual([columns] * len(rows), [set(row) for row in rows])
        self.assertEqual(sorted(
            (uuid, name,
             cloud.COMPUTE2 if uuid == cloud.COMPUTE2 else cloud.COMPUTE1,
             parent) for name, uuid, parent, _, _ in cloud.PROVIDERS),
            sorted((row['uuid'], row['name'], row['root_provider_uuid'],
                    row['parent_provider_uuid']) for row in rows))

    def test_exit_code_1_on_a_server_error(self):
        missing = 'aaaaaaaa-aaaa-4aaa-8aaa-999999999999'
        res = self.cli.run('resource', 'provider', 'show', missing)
        self.assertEqual(1, res.returncode)
        self.assertEqual('', res.stdout)
        self.assertEqual('No resource provider with uuid %s found '
                         '(HTTP 404)\n' % missing, res.stderr)

    def test_exit_code_1_on_a_version_gate_with_no_request(self):
        with self.sandbox.count_requests() as seen:
            res = self.cli.run('resource', 'provider', 'list', '--in-tree',
                               cloud.COMPUTE1, version='1.13')
        self.assertEqual(1, res.returncode)
        self.assertEqual('Operation or argument is not supported with '
                         'version 1.13; requires at least version 1.14\n',
                         res.stderr)
        self.assertEqual([], seen)

    def test_exit_code_2_on_a_usage_error(self):
        with self.sandbox.count_requests() as seen:
            res = self.cli.run('resource', 'provider', 'list',
                               '--no-such-option', version='1.14')
        self.assertEqual(2, res.returncode)
        self.assertTrue(res.stderr.startswith(
            'usage: openstack resource provider list'), res.stderr)
        self.assertTrue(res.stderr.endswith(
            'error: unrecognized arguments: --no-such-option\n'),
            res.stderr)
        self.assertEqual([], seen)

    def test_allocation_candidates_groups_isolated(self):
        # Seed scenario 4: two request groups of one virtual function each on
        # physnet1, plus disk from anywhere in the tree. With "isolate" the two
        # groups must land on different physical functions.
        argv = ['allocation', 'candidate', 'list', '--resource', 'DISK_GB=10',
                '--group', '1', '--resource', 'SRIOV_NET_VF=1',
                '--required', 'CUSTOM_PHYSNET1',
                '--group', '2', '--resource', 'SRIOV_NET_VF=1',
                '--required', 'CUSTOM_PHYSNET1', '-f', 'json']
        with self.sandbox.count_requests() as seen:
            isolated = _candidates(self.cli.ok(
                *argv + ['--group-policy', 'isolate']))
        self.assertEqual('GET', seen[-1].method)
        self.assertTrue(seen[-1].uri.startswith('/allocation_candidates?'),
                        seen[-1].uri)
        self.assertIn('group_policy=isolate', seen[-1].uri)
        pf0, pf1 = cloud.COMPUTE1_PF0, cloud.COMPUTE1_PF1
        expected = {cloud.COMPUTE1: 'DISK_GB=10', pf0: 'SRIOV_NET_VF=1',
                    pf1: 'SRIOV_NET_VF=1'}
        # Group 1 on ens1f0 and group 2 on ens1f1, or the other way round.
        self.assertEqual([expected, expected], list(isolated.values()))

        shared = _candidates(self.cli.ok(*argv + ['--group-policy', 'none']))
        # Without isolation both virtual functions may also come from the
        # same physical function.

        def key(candidate):
            return json.dumps(candidate, sort_keys=True)
        self.assertEqual(sorted(
            [{cloud.COMPUTE1: 'DISK_GB=10', pf0: 'SRIOV_NET_VF=2'},
             {cloud.COMPUTE1: 'DISK_GB=10', pf1: 'SRIOV_NET_VF=2'},
             expected, expected], key=key),
            sorted(shared.values(), key=key))

    def test_table_output_names_every_provider(self):
        out = self.cli.ok('resource', 'provider', 'list')
        self.assertEqual([
            ' uuid                                 ', ' name             ',
            ' generation ', ' root_provider_uuid                   ',
            ' parent_provider_uuid                 '],
            out.splitlines()[1].split('|')[1:-1])
        for name, uuid, _, _, _ in cloud.PROVIDERS:
            self.assertTrue(re.search(r'\| %s \| %s +\|' % (uuid, name), out),
                            name)

    def test_value_format_prints_bare_uuids(self):
        out = self.cli.ok('resource', 'provider', 'list', '-f', 'value',
                          '-c', 'uuid')
        lines = out.splitlines()
        self.assertEqual(sorted(ALL_PROVIDERS), sorted(lines))
        self.assertTrue(all(UUID_LINE.match(line) for line in lines))

    def test_json_format_parses(self):
        rows = self.cli.ok('resource', 'provider', 'inventory', 'list',
                           cloud.COMPUTE2, '-f', 'json')
        by_class = {row['resource_class']: row for row in rows}
        self.assertEqual(['CUSTOM_FPGA', 'DISK_GB', 'MEMORY_MB',
                          'VCPU'], sorted(by_class))
        self.assertEqual(16, by_class['VCPU']['total'])
        self.assertEqual(4.0, by_class['VCPU']['allocation_ratio'])
        self.assertEqual(1, by_class['CUSTOM_FPGA']['max_unit'])

    def test_show_allocations_of_a_provider_without_any_prints_braces(self):
        out = self.cli.ok('resource', 'provider', 'show', '--allocations',
                          cloud.COMPUTE1_NUMA1, '-c', 'allocations',
                          '-f', 'value')
        self.assertEqual('{}\n', out)

    def test_show_allocations_of_a_provider_with_some(self):
        shown = self.cli.ok('resource', 'provider', 'show', '--allocations',
                            cloud.COMPUTE1_NUMA0, '-f', 'json')
        self.assertEqual({
            cloud.VM2: {'resources': {'VCPU': 4, 'MEMORY_MB': 8192},
                        'consumer_generation': 1}}, shown['allocations'])

    def test_exit_code_0_on_success(self):
        res = self.cli.run('resource', 'provider', 'show', cloud.COMPUTE1)
        self.assertEqual(0, res.returncode)
        self.assertIn(cloud.COMPUTE1, res.stdout)

    def test_allocation_candidates_table(self):
        out = self.cli.ok('allocation', 'candidate', 'list',
                          '--group', '1', '--resource', 'CUSTOM_FPGA=1',
                          '--required', 'CUSTOM_LICENSED_WINDOWS')
        lines = out.splitlines()
        self.assertEqual([
            '#', 'allocation', 'resource provider', 'inventory used/capacity',
            'traits'], [cell.strip() for cell in lines[1].split('|')[1:-1]])
        self.assertEqual([
            '1', 'CUSTOM_FPGA=1', cloud.COMPUTE2,
            'VCPU=3/64,MEMORY_MB=5120/48384,DISK_GB=50/1900,CUSTOM_FPGA=1/2',
            'HW_CPU_X86_AVX2,CUSTOM_LICENSED_WINDOWS'],
            [cell.strip() for cell in lines[3].split('|')[1:-1]])
        self.assertEqual(5, len(lines))
