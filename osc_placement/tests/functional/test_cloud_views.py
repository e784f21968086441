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

"""Capacity, allocations across providers and trees on a real Placement.

The in-process Placement's SQLite cannot serve concurrent requests: every
command runs with ``--os-placement-parallel 1``.
"""

import fixtures
import pydot

from osc_placement import tests
from osc_placement.tests.functional import base

SERIAL = ('--os-placement-parallel', '1')
HOST1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
NUMA0 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000011'
HOST2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
EMPTY = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000003'
AGG = 'dddddddd-dddd-4ddd-8ddd-000000000001'
VM1 = 'cccccccc-cccc-4ccc-8ccc-000000000001'
VM2 = 'cccccccc-cccc-4ccc-8ccc-000000000002'
GONE = 'cccccccc-cccc-4ccc-8ccc-000000000009'


class TestCloudViews(base.TestCase):
    """Three trees, three consumers.

    host-1 (in AGG) with child numa-0; host-2; a provider without
    inventory. VM1 on numa-0 and host-1, VM2 and GONE on host-2 (host-2
    over-committed at ratio 1.0).
    """

    def setUp(self):
        super().setUp()
        for name, uuid, parent, inventories in (
                ('host-1', HOST1, None, {'DISK_GB': {'total': 100,
                                                     'reserved': 10}}),
                ('numa-0', NUMA0, HOST1, {
                    'VCPU': {'total': 8, 'allocation_ratio': 4.0},
                    'MEMORY_MB': {'total': 4096, 'reserved': 512,
                                  'allocation_ratio': 1.5}}),
                ('host-2', HOST2, None, {'VCPU': {'total': 4,
                                                  'allocation_ratio': 2.0}}),
                ('empty', EMPTY, None, {})):
            tests.create_provider(
                self, uuid, name, inventories, parent=parent,
                aggregates=[AGG] if uuid == HOST1 else ())
        for consumer, allocations, ctype in (
                (VM1, {NUMA0: {'VCPU': 2, 'MEMORY_MB': 1024},
                       HOST1: {'DISK_GB': 20}}, 'INSTANCE'),
                (VM2, {HOST2: {'VCPU': 6}}, 'INSTANCE'),
                (GONE, {HOST2: {'VCPU': 1}}, 'MIGRATION')):
            tests.allocate(self, consumer, allocations, project='p1',
                           user='u1', consumer_type=ctype)
        # Lower the host-2 ratio under its usage: over-committed.
        generation = self.api('GET', '/resource_providers/' + HOST2)[
            'generation']
        self.api('PUT', '/resource_providers/%s/inventories/VCPU' % HOST2,
                 body={'resource_provider_generation': generation,
                       'total': 4,
                       'allocation_ratio': 1.0})

    def run_ok(self, *argv, version='1.39'):
        return self.ok(*(SERIAL + argv), version=version)

    def test_capacity_equals_inventory_and_usage_of_each_provider(self):
        rows = self.run_ok('resource', 'provider', 'capacity', 'list',
                           '-f', 'json')
        self.assertEqual([HOST1, NUMA0, NUMA0, HOST2],
                         [r['resource_provider'] for r in rows])
        for rp in (HOST1, NUMA0, HOST2):
            inventory = {r['resource_class']: r for r in self.run_ok(
                'resource', 'provider', 'inventory', 'list', rp, '--long',
                '-f', 'json')}
            usage = {r['resource_class']: r['usage'] for r in self.run_ok(
                'resource', 'provider', 'usage', 'show', rp, '-f', 'json')}
            mine = {r['resource_class']: r for r in rows
                    if r['resource_provider'] == rp}
            self.assertEqual(sorted(inventory), sorted(mine))
            for rc, row in mine.items():
                for column in ('total', 'reserved', 'allocation_ratio',
                               'capacity', 'free'):
                    self.assertEqual(inventory[rc][column], row[column],
                                     (rp, rc, column))
                self.assertEqual(usage[rc], row['used'])
        self.assertEqual(-3, rows[-1]['free'])

    def test_capacity_summary_of_an_aggregate_tree(self):
        rows = self.run_ok('resource', 'provider', 'capacity', 'list',
                           '--in-tree', 'host-1', '--summary', '-f', 'json')
        self.assertEqual(
            [['DISK_GB', 1, 100, 10, 90, 20, 70],
             ['MEMORY_MB', 1, 4096, 512, 5376, 1024, 4352],
             ['VCPU', 1, 8, 0, 32, 2, 30]],
            [[r[c] for c in ('resource_class', 'providers', 'total',
                             'reserved', 'capacity', 'used', 'free')]
             for r in rows])

    def test_allocations_across_providers_and_orphans(self):
        rows = self.run_ok('resource', 'provider', 'allocation', 'list',
                           '--long', '-f', 'json')
        self.assertEqual(
            sorted([(HOST1, VM1, 'INSTANCE'), (NUMA0, VM1, 'INSTANCE'),
                    (HOST2, VM2, 'INSTANCE'), (HOST2, GONE, 'MIGRATION')]),
            sorted((r['resource_provider'], r['consumer_uuid'],
                    r['consumer_type']) for r in rows))
        known = self.useFixture(fixtures.TempDir()).join('known')
        with open(known, 'w') as f:
            f.write('# servers\n%s\n%s\n' % (VM1, VM2))
        out = self.run_ok('resource', 'provider', 'allocation', 'list',
                          '--exclude-consumers-from', known,
                          '-f', 'value', '-c', 'consumer_uuid')
        self.assertEqual([GONE], out.split())

    def test_allocations_of_an_aggregate_by_type(self):
        rows = self.run_ok('resource', 'provider', 'allocation', 'list',
                           '--member-of', AGG, '--consumer-type', 'INSTANCE',
                           '-f', 'json')
        self.assertEqual([(HOST1, VM1)], [(r['resource_provider'],
                                           r['consumer_uuid']) for r in rows])

    def test_tree_list_is_each_tree_show(self):
        listed = self.run_ok('resource', 'provider', 'tree', 'list',
                             '--long')
        shown = ''
        for root in ('host-1', 'host-2', 'empty'):
            shown += self.run_ok('resource', 'provider', 'tree', 'show',
                                 root, '--long', '-f', 'value')
        self.assertEqual(
            shown, self.run_ok('resource', 'provider', 'tree', 'list',
                               '--long', '-f', 'value'))
        self.assertIn('VCPU=2/32,MEMORY_MB=1024/5376', listed)

    def test_tree_list_dot_reads_back(self):
        out = self.run_ok('resource', 'provider', 'tree', 'list', '--dot',
                          '--long', '--consumers')
        graph, = pydot.graph_from_dot_data(out)
        names = {n.get_name() for n in graph.get_nodes()} - {'node'}
        self.assertEqual(
            {'"%s"' % u for u in (HOST1, NUMA0, HOST2, EMPTY)}
            | {'"consumer %s"' % c for c in (VM1, VM2, GONE)}, names)
        self.assertIn(('"%s"' % NUMA0, '"%s"' % HOST1),
                      [(e.get_source(), e.get_destination())
                       for e in graph.get_edges()])
        self.assertIn('aggregates: ' + AGG,
                      graph.get_node('"%s"' % HOST1)[0].get_label())

    def test_bad_input_is_one_line(self):
        for argv, message in (
                (('resource', 'provider', 'capacity', 'list',
                  '--resource-provider', 'nope'),
                 "No resource provider with name or UUID 'nope' found."),
                (('resource', 'provider', 'allocation', 'list',
                  '--member-of', 'nope'),
                 "--member-of: 'nope' is not an aggregate UUID.")):
            err, code = self.fails(*(SERIAL + argv), version='1.39')
            self.assertEqual((1, [message]), (code, err.splitlines()))
