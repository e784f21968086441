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

"""The views over many providers: capacity, allocations, trees.

One small cloud, served by requests-mock:

* compute-1 (RP1, root, in AGG1): DISK_GB 100, 10 reserved; C1 holds 10.
* numa-0 (RP2, child of RP1): VCPU 8 at ratio 4.0, MEMORY_MB 4096 with
  512 reserved at ratio 1.5; C1 holds VCPU 2 and MEMORY_MB 1024.
* compute-2 (RP3, root): VCPU 4, over-committed: C2 holds 6.
* empty (RP4, root): no inventory, no allocation.
"""

import io
import json

import fixtures
import pydot
import testscenarios

from osc_placement.tests.unit import base

load_tests = testscenarios.load_tests_apply_scenarios

URL = base.ENDPOINT
RP1, RP2, RP3 = base.RP1, base.RP2, base.RP3
RP4 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000004'
C1, C2, C3 = base.C1, base.C2, base.C3
AGG1 = base.AGG1

PROVIDERS = [base.provider(RP1, 'compute-1'),
             base.provider(RP2, 'numa-0', parent=RP1),
             base.provider(RP3, 'compute-2'),
             base.provider(RP4, 'empty')]


def inventory(total, reserved=0, ratio=1.0):
    return {'total': total, 'reserved': reserved, 'allocation_ratio': ratio,
            'min_unit': 1, 'max_unit': total, 'step_size': 1}


INVENTORIES = {
    RP1: {'DISK_GB': inventory(100, 10)},
    RP2: {'VCPU': inventory(8, ratio=4.0),
          'MEMORY_MB': inventory(4096, 512, 1.5)},
    RP3: {'VCPU': inventory(4)},
    RP4: {},
}
USAGES = {RP1: {'DISK_GB': 10}, RP2: {'VCPU': 2, 'MEMORY_MB': 1024},
          RP3: {'VCPU': 6}, RP4: {}}
ALLOCATIONS = {
    RP1: {C1: {'resources': {'DISK_GB': 10}}},
    RP2: {C1: {'resources': {'VCPU': 2, 'MEMORY_MB': 1024}}},
    RP3: {C2: {'resources': {'VCPU': 6}}},
    RP4: {},
}
CONSUMERS = {
    C1: {'project_id': 'p1', 'user_id': 'u1', 'consumer_type': 'INSTANCE'},
    # Written before 1.38: Placement shows no type.
    C2: {'project_id': 'p2', 'user_id': 'u2', 'consumer_type': 'unknown'},
}
TRAITS = {RP1: ['COMPUTE_VOLUME_MULTI_ATTACH'], RP2: ['HW_NUMA_ROOT'],
          RP3: [], RP4: []}


class CloudTestCase(base.TestCase):
    """The small cloud on requests-mock.

    ``failing``: the providers whose every request answers HTTP 500.
    """

    api_version = '1.39'
    failing = ()

    def setUp(self):
        super().setUp()
        mock = self.requests_mock
        mock.get(URL + '/resource_providers', complete_qs=True,
                 json={'resource_providers': PROVIDERS})
        for rp in (RP1, RP2, RP3, RP4):
            path = URL + '/resource_providers/' + rp
            if rp in self.failing:
                for what in ('inventories', 'usages', 'allocations',
                             'traits', 'aggregates'):
                    mock.get(path + '/' + what, **base.error_reply(
                        500, 'Boom on %s.' % rp))
                continue
            generation = {'resource_provider_generation': 1}
            mock.get(path + '/inventories', json=dict(
                generation, inventories=INVENTORIES[rp]))
            mock.get(path + '/usages', json=dict(generation,
                                                 usages=USAGES[rp]))
            mock.get(path + '/allocations', json=dict(
                generation, allocations=ALLOCATIONS[rp]))
            mock.get(path + '/traits', json=dict(generation,
                                                 traits=TRAITS[rp]))
            mock.get(path + '/aggregates', json=dict(
                generation, aggregates=[AGG1] if rp == RP1 else []))
        for consumer, owner in CONSUMERS.items():
            mock.get(URL + '/allocations/' + consumer, json=dict(
                owner, allocations={}, consumer_generation=1))

    def json(self, *argv, **kwargs):
        out, err, code = self.openstack(*(argv + ('-f', 'json')), **kwargs)
        self.assertEqual(('', 0), (err, code))
        return json.loads(out)

    def gets(self):
        """The paths of the requests sent, sorted (parallel order)."""
        return sorted(path for method, path in self.sent()
                      if method == 'GET')

    def assertRefused(self, argv, message, version=None):
        out, err, code = self.openstack(*argv, version=version)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual([message], err.splitlines())
        self.assertEqual([], self.sent())


def per_provider(*what, providers=(RP1, RP2, RP3, RP4)):
    return sorted('/resource_providers/%s/%s' % (rp, w)
                  for rp in providers for w in what)


class TestCapacityList(CloudTestCase):

    command = ('resource', 'provider', 'capacity', 'list')

    def test_rows_per_provider_and_class(self):
        rows = self.json()
        self.assertEqual([
            [RP1, 'compute-1', 'DISK_GB', 100, 10, 1.0, 90, 10, 80],
            [RP2, 'numa-0', 'MEMORY_MB', 4096, 512, 1.5, 5376, 1024, 4352],
            [RP2, 'numa-0', 'VCPU', 8, 0, 4.0, 32, 2, 30],
            # Over-committed: free is negative, not clamped.
            [RP3, 'compute-2', 'VCPU', 4, 0, 1.0, 4, 6, -2],
        ], [[r[c] for c in (
            'resource_provider', 'name', 'resource_class', 'total',
            'reserved', 'allocation_ratio', 'capacity', 'used', 'free')]
            for r in rows])
        self.assertEqual(
            sorted(['/resource_providers'] + per_provider(
                'inventories', 'usages')), self.gets())

    def test_summary_per_class(self):
        rows = self.json('--summary')
        self.assertEqual([
            {'resource_class': 'DISK_GB', 'providers': 1, 'total': 100,
             'reserved': 10, 'capacity': 90, 'used': 10, 'free': 80},
            {'resource_class': 'MEMORY_MB', 'providers': 1, 'total': 4096,
             'reserved': 512, 'capacity': 5376, 'used': 1024, 'free': 4352},
            {'resource_class': 'VCPU', 'providers': 2, 'total': 12,
             'reserved': 0, 'capacity': 36, 'used': 8, 'free': 28},
        ], rows)

    def test_resource_class_filter(self):
        rows = self.json('--resource-class', 'VCPU', '--summary')
        self.assertEqual(['VCPU'], [r['resource_class'] for r in rows])

    def test_named_providers_are_looked_up_in_the_given_order(self):
        self.requests_mock.get(
            URL + '/resource_providers?name=compute-2', complete_qs=True,
            json={'resource_providers': [PROVIDERS[2]]})
        self.requests_mock.get(
            URL + '/resource_providers?uuid=' + RP1, complete_qs=True,
            json={'resource_providers': [PROVIDERS[0]]})
        rows = self.json('--resource-provider', 'compute-2',
                         '--resource-provider', RP1)
        self.assertEqual([RP3, RP1], [r['resource_provider'] for r in rows])
        self.assertEqual(sorted(
            ['/resource_providers?name=compute-2',
             '/resource_providers?uuid=' + RP1]
            + per_provider('inventories', 'usages',
                           providers=(RP1, RP3))), self.gets())

    def test_filters_are_sent_to_the_provider_list(self):
        self.requests_mock.get(
            URL + '/resource_providers?in_tree=%s&member_of=in%%3A%s'
            '&required=HW_NUMA_ROOT' % (RP1, AGG1), complete_qs=True,
            json={'resource_providers': [PROVIDERS[1]]})
        rows = self.json('--in-tree', RP1, '--member-of', AGG1,
                         '--required', 'HW_NUMA_ROOT')
        self.assertEqual([RP2, RP2], [r['resource_provider'] for r in rows])

    def test_unknown_provider_is_one_line(self):
        self.requests_mock.get(
            URL + '/resource_providers?name=nope', complete_qs=True,
            json={'resource_providers': []})
        out, err, code = self.openstack('--resource-provider', 'nope')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ["No resource provider with name or UUID 'nope' found."],
            err.splitlines())
        self.assertEqual([('GET', '/resource_providers?name=nope')],
                         self.sent())

    def test_bad_aggregate_is_refused_without_a_request(self):
        self.assertRefused(
            ['--member-of', '%s,not-a-uuid' % AGG1],
            "--member-of: 'not-a-uuid' is not an aggregate UUID.")

    def test_member_of_needs_its_microversion(self):
        self.assertRefused(
            ['--member-of', AGG1],
            'Operation or argument is not supported with version 1.2; '
            'requires at least version 1.3', version='1.2')


class TestAllocationListAcross(CloudTestCase):

    command = ('resource', 'provider', 'allocation', 'list')

    def test_every_provider_without_consumer_reads(self):
        rows = self.json()
        self.assertEqual([
            {'resource_provider': RP1, 'consumer_uuid': C1,
             'resources': {'DISK_GB': 10}},
            {'resource_provider': RP2, 'consumer_uuid': C1,
             'resources': {'VCPU': 2, 'MEMORY_MB': 1024}},
            {'resource_provider': RP3, 'consumer_uuid': C2,
             'resources': {'VCPU': 6}},
        ], rows)
        self.assertEqual(sorted(['/resource_providers']
                                + per_provider('allocations')), self.gets())

    def test_long_reads_each_consumer_once(self):
        rows = self.json('--long')
        self.assertEqual(
            [(RP1, C1, 'p1', 'u1', 'INSTANCE'),
             (RP2, C1, 'p1', 'u1', 'INSTANCE'),
             (RP3, C2, 'p2', 'u2', 'unknown')],
            [(r['resource_provider'], r['consumer_uuid'], r['project_id'],
              r['user_id'], r['consumer_type']) for r in rows])
        self.assertEqual(
            sorted(['/resource_providers', '/allocations/' + C1,
                    '/allocations/' + C2] + per_provider('allocations')),
            self.gets())


class TestAllocationFilters(CloudTestCase):

    command = ('resource', 'provider', 'allocation', 'list')
    scenarios = [
        ('project', {'filter': ['--project-id', 'p2'], 'rows': [(RP3, C2)]}),
        ('user', {'filter': ['--user-id', 'u1'],
                  'rows': [(RP1, C1), (RP2, C1)]}),
        ('type', {'filter': ['--consumer-type', 'INSTANCE'],
                  'rows': [(RP1, C1), (RP2, C1)]}),
        ('type_unknown', {'filter': ['--consumer-type', 'unknown'],
                          'rows': [(RP3, C2)]}),
        ('resource_class', {'filter': ['--resource-class', 'VCPU'],
                            'rows': [(RP2, C1), (RP3, C2)]}),
    ]

    def test_filter(self):
        rows = self.json(*self.filter)
        self.assertEqual(self.rows, [(r['resource_provider'],
                                      r['consumer_uuid']) for r in rows])


class TestAllocationExclude(CloudTestCase):

    command = ('resource', 'provider', 'allocation', 'list')

    def test_exclude_consumers_from_file(self):
        path = self.useFixture(fixtures.TempDir()).join('known')
        with open(path, 'w') as f:
            f.write('# servers\n\n%s\n' % C1.upper())
        rows = self.json('--exclude-consumers-from', path)
        self.assertEqual([C2], [r['consumer_uuid'] for r in rows])

    def test_exclude_consumers_from_stdin(self):
        self.useFixture(fixtures.MonkeyPatch(
            'sys.stdin', io.StringIO(C2 + '\n')))
        rows = self.json('--exclude-consumers-from', '-')
        self.assertEqual([C1, C1], [r['consumer_uuid'] for r in rows])

    def test_malformed_line_is_named(self):
        path = self.useFixture(fixtures.TempDir()).join('known')
        with open(path, 'w') as f:
            f.write('%s\n\nnot-a-uuid\n' % C1)
        self.assertRefused(
            ['--exclude-consumers-from', path],
            "--exclude-consumers-from %s: line 3: 'not-a-uuid' is not a "
            "consumer UUID." % path)

    def test_unreadable_file_is_one_line(self):
        path = self.useFixture(fixtures.TempDir()).join('missing')
        out, err, code = self.openstack('--exclude-consumers-from', path)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(1, len(err.splitlines()))
        self.assertIn('--exclude-consumers-from %s: cannot read it: ' % path,
                      err)
        self.assertEqual([], self.sent())

    def test_consumer_type_below_1_38_is_refused(self):
        self.assertRefused(
            ['--consumer-type', 'INSTANCE'],
            'Operation or argument is not supported with version 1.37; '
            'requires at least version 1.38', version='1.37')

    def test_provider_filters_need_no_provider(self):
        self.assertRefused(
            [RP1, '--in-tree', RP1],
            '--in-tree and --member-of select the providers to read: give '
            'them without a resource provider.')

    def test_with_a_provider_filters_apply_too(self):
        rows = self.json(RP2, '--project-id', 'p1')
        self.assertEqual([{'consumer_uuid': C1,
                           'resources': {'VCPU': 2, 'MEMORY_MB': 1024}}],
                         rows)


class TestTreeList(CloudTestCase):

    command = ('resource', 'provider', 'tree', 'list')

    def test_every_tree_in_list_order(self):
        out, err, code = self.openstack('-f', 'value', '-c', 'name')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(['compute-1', 'numa-0', 'compute-2', 'empty'],
                         out.splitlines())
        self.assertEqual([('GET', '/resource_providers')], self.sent())

    def test_json_has_depth(self):
        rows = self.json()
        self.assertEqual([('compute-1', 0), ('numa-0', 1), ('compute-2', 0),
                          ('empty', 0)],
                         [(r['name'], r['depth']) for r in rows])

    def test_name_keeps_the_trees_of_matching_roots(self):
        self.requests_mock.get(
            URL + '/resource_providers?name=compute-1', complete_qs=True,
            json={'resource_providers': [PROVIDERS[0]]})
        rows = self.json('--name', 'compute-1')
        self.assertEqual(['compute-1', 'numa-0'], [r['name'] for r in rows])

    def test_long_reads_capacity_and_traits(self):
        rows = self.json('--long')
        self.assertEqual(
            ['DISK_GB=10/90', 'VCPU=2/32,MEMORY_MB=1024/5376', 'VCPU=6/4',
             ''], [r['inventory used/capacity'] for r in rows])
        self.assertEqual(
            sorted(['/resource_providers'] + per_provider(
                'inventories', 'usages', 'traits')), self.gets())

    def test_consumers_needs_dot(self):
        self.assertRefused(['--consumers'], '--consumers needs --dot.')

    def dot(self, *argv):
        out, err, code = self.openstack('--dot', *argv)
        self.assertEqual(('', 0), (err, code))
        graphs = pydot.graph_from_dot_data(out)
        self.assertEqual(1, len(graphs))
        return graphs[0]

    def test_dot_has_a_node_per_provider_and_child_to_parent_edges(self):
        graph = self.dot()
        self.assertEqual('digraph', graph.get_type())
        self.assertEqual(
            {'"%s"' % rp for rp in (RP1, RP2, RP3, RP4)},
            {n.get_name() for n in graph.get_nodes()} - {'node'})
        self.assertEqual([('"%s"' % RP2, '"%s"' % RP1)],
                         [(e.get_source(), e.get_destination())
                          for e in graph.get_edges()])
        self.assertEqual([('GET', '/resource_providers')], self.sent())

    def test_dot_long_and_consumers(self):
        graph = self.dot('--long', '--consumers')
        label = graph.get_node('"%s"' % RP2)[0].get_label()
        self.assertEqual(
            '"numa-0\\n%s\\nVCPU: 2/32\\nMEMORY_MB: 1024/5376\\n'
            'traits: HW_NUMA_ROOT"' % RP2, label)
        self.assertIn('aggregates: ' + AGG1,
                      graph.get_node('"%s"' % RP1)[0].get_label())
        consumer_edges = sorted(
            (e.get_source(), e.get_destination(), e.get_label())
            for e in graph.get_edges() if 'consumer' in e.get_source())
        self.assertEqual([
            ('"consumer %s"' % C1, '"%s"' % RP1, '"DISK_GB=10"'),
            ('"consumer %s"' % C1, '"%s"' % RP2,
             '"VCPU=2, MEMORY_MB=1024"'),
            ('"consumer %s"' % C2, '"%s"' % RP3, '"VCPU=6"'),
        ], consumer_edges)
        self.assertEqual(sorted(['/resource_providers'] + per_provider(
            'inventories', 'usages', 'traits', 'aggregates',
            'allocations')), self.gets())


class TestTreeSort(CloudTestCase):
    """--sort-column name sorts on the name, not on its indentation.

    Before, the children (names led by blanks) came before every root.
    """

    scenarios = testscenarios.multiply_scenarios(
        [('list', {'command': ('resource', 'provider', 'tree', 'list'),
                   'names': ['compute-1', 'numa-0', 'compute-2', 'empty']}),
         ('show', {'command': ('resource', 'provider', 'tree', 'show', RP1),
                   'names': ['compute-1', 'numa-0']})],
        [('value', {'format': 'value', 'descending': False}),
         ('table', {'format': 'table', 'descending': False}),
         ('json', {'format': 'json', 'descending': False}),
         ('value-descending', {'format': 'value', 'descending': True})])

    def test_sort_on_the_plain_name(self):
        self.requests_mock.get(
            URL + '/resource_providers?in_tree=' + RP1, complete_qs=True,
            json={'resource_providers': PROVIDERS[:2]})
        argv = ['-f', self.format, '--sort-column', 'name', '-c', 'name']
        if self.descending:
            argv.append('--sort-descending')
        out, err, code = self.openstack(*argv)
        self.assertEqual(('', 0), (err, code))
        if self.format == 'json':
            shown = [row['name'] for row in json.loads(out)]
        else:
            shown = [line.strip('| ') for line in out.splitlines()
                     if not line.startswith('+')]
            if self.format == 'table':
                shown = shown[1:]
        self.assertEqual(sorted(self.names, reverse=self.descending),
                         [name.strip() for name in shown])
        if self.format == 'table':
            # Still indented by depth.
            self.assertIn('  numa-0', out)


class TestDotNames(base.TestCase):
    """Any provider name gives DOT that a real parser reads back."""

    api_version = '1.39'
    command = ('resource', 'provider', 'tree', 'show', RP1, '--dot')
    scenarios = [(label, {'name': name}) for label, name in (
        ('quotes', 'a "quoted" name'),
        ('angles', '<b>bold</b> & co'),
        ('unicode', 'hôte-\u4e2d\u6587-\U0001f5a5'),
        ('newline', 'two\nlines\r\nand more'),
        ('backslashes', 'back\\slash \\N \\" end\\'),
        ('braces', '} digraph x { "a" -> "b"; //'),
    )]

    def test_name_survives_the_parser(self):
        self.requests_mock.get(
            URL + '/resource_providers?in_tree=' + RP1, complete_qs=True,
            json={'resource_providers': [
                base.provider(RP1, self.name),
                base.provider(RP2, self.name + '-child', parent=RP1)]})
        out, err, code = self.openstack()
        self.assertEqual(('', 0), (err, code))
        graphs = pydot.graph_from_dot_data(out)
        self.assertEqual(1, len(graphs))
        nodes = {n.get_name(): n for n in graphs[0].get_nodes()}
        self.assertEqual({'"%s"' % RP1, '"%s"' % RP2}, set(nodes) - {'node'})
        self.assertEqual(1, len(graphs[0].get_edges()))
        # No raw line break inside a string: one statement per line.
        self.assertEqual(7, len(out.splitlines()))


class TestPartialFailure(CloudTestCase):
    """A provider that cannot be read: the rest is printed, exit 1.

    The output is the same at any parallelism.
    """

    failing = (RP2,)
    scenarios = [
        ('capacity', {'argv': ['resource', 'provider', 'capacity', 'list'],
                      'shown': 2}),
        ('allocations', {'argv': ['resource', 'provider', 'allocation',
                                  'list', '--long'],
                         'shown': 2}),
        ('tree_long', {'argv': ['resource', 'provider', 'tree', 'list',
                                '--long'],
                       'shown': 4}),
        ('tree_dot', {'argv': ['resource', 'provider', 'tree', 'list',
                               '--dot', '--long', '--consumers'],
                      'shown': None}),
    ]

    def run_at(self, parallel):
        options = [] if parallel is None else [
            '--os-placement-parallel', str(parallel)]
        formats = [] if '--dot' in self.argv else ['-f', 'value']
        return self.openstack(*(options + self.argv + formats))

    def test_same_output_at_any_parallelism(self):
        serial = self.run_at(1)
        out, err, code = serial
        self.assertEqual(1, code)
        self.assertEqual(
            ['Failed to read resource provider %s: Boom on %s. (HTTP 500)'
             % (RP2, RP2),
             'Failed to read 1 of 4 resource providers.'],
            err.splitlines())
        if self.shown is not None:
            self.assertEqual(self.shown, len(out.splitlines()))
        for parallel in (None, 2, 8):
            self.assertEqual(serial, self.run_at(parallel), parallel)
