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

"""The tree commands (``resources/tree.py``): order, output, --dot, help.

The rows come depth first, siblings by name; only the table indents the
names; --dot is the output itself and refuses the options of the other
formats.
"""

import csv
import io
import json

from oslotest import base as oslotest_base
import pydot
import testscenarios

from osc_placement.resources import tree
from osc_placement.tests.unit import base
from osc_placement.tests.unit import clouds

load_tests = testscenarios.load_tests_apply_scenarios

URL = base.ENDPOINT
RP1 = base.RP1
RP2 = base.RP2
RP3 = base.RP3
C1, C2 = base.C1, base.C2
AGG1 = base.AGG1


class TestTreeFormatsWithoutIndentation(base.TestCase):
    """Only the table indents the names; value and csv give the depth."""

    api_version = '1.39'
    scenarios = [('show', {'command': ('resource', 'provider', 'tree',
                                       'show', RP1)}),
                 ('list', {'command': ('resource', 'provider', 'tree',
                                       'list')})]

    def setUp(self):
        super().setUp()
        tree = {'resource_providers': [
            base.provider(RP1, 'compute-1'),
            base.provider(RP2, 'compute-1_NUMA0', parent=RP1)]}
        self.requests_mock.get(URL + '/resource_providers', json=tree)

    def test_value(self):
        out, err, code = self.openstack('-f', 'value', '-c', 'name',
                                        '-c', 'depth')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(['compute-1 0', 'compute-1_NUMA0 1'],
                         out.splitlines())

    def test_csv(self):
        out, err, code = self.openstack('-f', 'csv')
        self.assertEqual(('', 0), (err, code))
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual([('compute-1', '0'), ('compute-1_NUMA0', '1')],
                         [(r['name'], r['depth']) for r in rows])

    def test_table_still_indents(self):
        out, err, code = self.openstack('-c', 'name')
        self.assertEqual(('', 0), (err, code))
        self.assertIn('|   compute-1_NUMA0 |', out)
        self.assertNotIn('depth', out)


class TestDotRefusesOutputOptions(base.TestCase):
    """--dot is the output: -f, -c and the sort options are refused."""

    api_version = '1.39'
    scenarios = testscenarios.multiply_scenarios(
        [('show', {'command': ('resource', 'provider', 'tree', 'show',
                               RP1, '--dot')}),
         ('list', {'command': ('resource', 'provider', 'tree', 'list',
                               '--dot')})],
        [('format', {'argv': ['-f', 'json'], 'named': '-f/--format'}),
         ('format_table', {'argv': ['--format', 'table'],
                           'named': '-f/--format'}),
         ('column', {'argv': ['-c', 'name'], 'named': '-c/--column'}),
         ('sort_column', {'argv': ['--sort-column', 'name'],
                          'named': '--sort-column'}),
         ('descending', {'argv': ['--sort-descending'],
                         'named': '--sort-ascending/--sort-descending'})])

    def test_refused_before_any_request(self):
        out, err, code = self.openstack(*self.argv)
        self.assertEqual(
            ('', '--dot prints Graphviz DOT: it cannot be combined with '
             '%s.\n' % self.named, 1), (out, err, code))
        self.assertEqual([], self.sent())

    def test_all_named_at_once(self):
        out, err, code = self.openstack('-f', 'json', '-c', 'name')
        self.assertEqual(
            ('', '--dot prints Graphviz DOT: it cannot be combined with '
             '-f/--format, -c/--column.\n', 1), (out, err, code))


class TestDotAlone(base.TestCase):
    """Without the output options --dot still prints the graph."""

    api_version = '1.39'

    def test_dot(self):
        self.requests_mock.get(
            URL + '/resource_providers?in_tree=' + RP1, complete_qs=True,
            json={'resource_providers': [base.provider(RP1, 'compute-1')]})
        out, err, code = self.openstack(
            'resource', 'provider', 'tree', 'show', RP1, '--dot')
        self.assertEqual(('', 0), (err, code))
        self.assertTrue(out.startswith('digraph "resource providers" {'))


class TestTreeShowHelp(base.TestCase):

    def test_help_names_only_formats_it_offers(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'tree', 'show', '--help')
        self.assertEqual(('', 0), (err, code))
        text = ' '.join(out.split())
        self.assertIn('The other formats (value, csv, json, yaml) give the '
                      'bare name', text)
        self.assertNotIn('shell', text)


class TestTreeOrder(oslotest_base.BaseTestCase):

    def test_depth_first_siblings_by_name(self):
        records = [base.provider('c2', 'numa1', parent='r'),
                   base.provider('r', 'root'),
                   base.provider('g', 'pf', parent='c1'),
                   base.provider('c1', 'numa0', parent='r')]
        self.assertEqual(
            [(0, 'root'), (1, 'numa0'), (2, 'pf'), (1, 'numa1')],
            [(depth, p['name']) for depth, p in tree.tree_order(records)])

    def test_orphan_is_shown_as_a_root(self):
        records = [base.provider('b', 'b-root'),
                   base.provider('x', 'orphan', parent='gone')]
        self.assertEqual(
            [(0, 'b-root'), (0, 'orphan')],
            [(depth, p['name']) for depth, p in tree.tree_order(records)])


class TestIndentedName(oslotest_base.BaseTestCase):

    def test_shows_indented_and_sorts_on_the_name(self):
        names = [tree.IndentedName('b', 0), tree.IndentedName('a', 2)]
        self.assertEqual(['    a', 'b'], [str(n) for n in sorted(names)])


class TestTreeList(clouds.CloudTestCase):

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
            json={'resource_providers': [clouds.PROVIDERS[0]]})
        rows = self.json('--name', 'compute-1')
        self.assertEqual(['compute-1', 'numa-0'], [r['name'] for r in rows])

    def test_long_reads_capacity_and_traits(self):
        rows = self.json('--long')
        self.assertEqual(
            ['DISK_GB=10/90', 'VCPU=2/32,MEMORY_MB=1024/5376', 'VCPU=6/4',
             ''], [r['inventory used/capacity'] for r in rows])
        self.assertEqual(
            sorted(['/resource_providers'] + clouds.per_provider(
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
            {'"%s"' % rp for rp in (RP1, RP2, RP3, clouds.RP4)},
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
        self.assertEqual(sorted(['/resource_providers'] + clouds.per_provider(
            'inventories', 'usages', 'traits', 'aggregates',
            'allocations')), self.gets())


class TestTreeSort(clouds.CloudTestCase):
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
            json={'resource_providers': clouds.PROVIDERS[:2]})
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


# Bad values, refused before any request (see base.RefusedLocallyTestCase).

BAD_VALUES = base.empty_positionals([
    ('resource provider tree show', (), ()),
])


class TestRefusedLocally(base.RefusedLocallyTestCase):

    scenarios = BAD_VALUES


class TestCaseIds(base.CaseIdsTestCase):

    tables = (BAD_VALUES,)


class TestRefusedWithTheServerDown(base.ServerDownTestCase):

    scenarios = base.server_down([
        ('tree-member-of',
         ['resource', 'provider', 'tree', 'list', '--member-of', 'x'],
         "--member-of: 'x' is not an aggregate UUID."),
    ])
