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

from oslotest import base as oslotest_base
import testscenarios

from osc_placement.resources import tree
from osc_placement.tests.unit import base

load_tests = testscenarios.load_tests_apply_scenarios

URL = base.ENDPOINT
RP1 = base.RP1
RP2 = base.RP2


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
