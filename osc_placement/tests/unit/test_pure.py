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

"""The pure functions of the house: capacity, tree order, DOT, filters.

No command runs here: each function is called with the values a command
would give it, and its result is compared with what the user then sees.
"""

import argparse
from unittest import mock

from oslotest import base
import pydot
import testscenarios

from osc_placement.cli import dot
from osc_placement.cli import filters
from osc_placement.cli import metrics
from osc_placement.model import amounts
from osc_placement.model import fit_rows
from osc_placement.resources import capacity
from osc_placement.resources import capacity_fit
from osc_placement.resources import resource_provider
from osc_placement.resources import tree

load_tests = testscenarios.load_tests_apply_scenarios


def inventory(total, reserved=0, ratio=1.0):
    return {'total': total, 'reserved': reserved, 'allocation_ratio': ratio}


class TestCapacity(base.BaseTestCase):
    """(total - reserved) * allocation_ratio, rounded down."""

    scenarios = [
        ('plain', {'inventory': inventory(8), 'capacity': 8}),
        ('reserved-then-ratio', {'inventory': inventory(8, 2, 16.0),
                                 'capacity': 96}),
        ('rounded-down', {'inventory': inventory(3, 0, 1.5), 'capacity': 4}),
        ('ratio-below-one', {'inventory': inventory(10, 1, 0.5),
                             'capacity': 4}),
        ('all-reserved', {'inventory': inventory(4, 4, 2.0), 'capacity': 0}),
    ]

    def test_capacity(self):
        self.assertEqual(self.capacity, amounts.capacity(self.inventory))


class TestUsedOfCapacity(base.BaseTestCase):

    records = {'VCPU': {'used': 2, 'capacity': 16},
               'MEMORY_MB': {'used': 0, 'capacity': 2048}}

    def test_in_the_order_given(self):
        self.assertEqual(['VCPU=2/16', 'MEMORY_MB=0/2048'],
                         amounts.used_of_capacity(self.records))

    def test_separator(self):
        self.assertEqual(['VCPU: 2/16', 'MEMORY_MB: 0/2048'],
                         amounts.used_of_capacity(self.records, sep=': '))


def rp(uuid, name, parent=None):
    return {'uuid': uuid, 'name': name, 'parent_provider_uuid': parent}


class TestTreeOrder(base.BaseTestCase):

    def test_depth_first_siblings_by_name(self):
        records = [rp('c2', 'numa1', 'r'), rp('r', 'root'),
                   rp('g', 'pf', 'c1'), rp('c1', 'numa0', 'r')]
        self.assertEqual(
            [(0, 'root'), (1, 'numa0'), (2, 'pf'), (1, 'numa1')],
            [(depth, p['name']) for depth, p in tree.tree_order(records)])

    def test_orphan_is_shown_as_a_root(self):
        records = [rp('b', 'b-root'), rp('x', 'orphan', 'gone')]
        self.assertEqual(
            [(0, 'b-root'), (0, 'orphan')],
            [(depth, p['name']) for depth, p in tree.tree_order(records)])


class TestIndentedName(base.BaseTestCase):

    def test_shows_indented_and_sorts_on_the_name(self):
        names = [tree.IndentedName('b', 0), tree.IndentedName('a', 2)]
        self.assertEqual(['    a', 'b'], [str(n) for n in sorted(names)])


class TestDotString(base.BaseTestCase):

    scenarios = [
        ('plain', {'text': 'compute-1', 'dot': '"compute-1"'}),
        ('quote', {'text': 'a"b', 'dot': '"a\\"b"'}),
        ('backslash', {'text': 'a\\N', 'dot': '"a\\\\N"'}),
        ('line-break', {'text': 'a\r\nb\rc', 'dot': '"a\\nb\\nc"'}),
    ]

    def test_dot_string(self):
        self.assertEqual(self.dot, dot.dot_string(self.text))


class TestDotGraph(base.BaseTestCase):
    """The text parses as DOT (pydot), with the nodes and edges expected."""

    def graph(self, text):
        graphs = pydot.graph_from_dot_data(text)
        self.assertEqual(1, len(graphs))
        return graphs[0]

    def test_providers_and_parent_edges(self):
        ordered = [(0, rp('r', 'root')), (1, rp('c', 'child "x"', 'r'))]
        details = {'c': {'capacity': {'VCPU': {'used': 1, 'capacity': 4}},
                         'traits': ['HW_CPU_X86_AVX2'],
                         'aggregates': ['agg-1']}}
        graph = self.graph(dot.dot_graph(ordered, details, {}))
        labels = {node.get_name().strip('"'): node.get('label')
                  for node in graph.get_nodes() if node.get('label')}
        self.assertEqual('"root\\nr"', labels['r'])
        self.assertEqual('"child \\"x\\"\\nc\\nVCPU: 1/4\\ntraits: '
                         'HW_CPU_X86_AVX2\\naggregates: agg-1"', labels['c'])
        self.assertEqual([('"c"', '"r"')],
                         [(e.get_source(), e.get_destination())
                          for e in graph.get_edges()])

    def test_consumers_once_with_an_edge_per_provider(self):
        ordered = [(0, rp('r', 'root')), (1, rp('c', 'child', 'r'))]
        held = {'cons': {'resources': {'VCPU': 2}}}
        graph = self.graph(dot.dot_graph(ordered, {}, {'r': held, 'c': held}))
        consumers = [n for n in graph.get_nodes()
                     if n.get('shape') == 'ellipse']
        self.assertEqual(1, len(consumers))
        edges = [(e.get_source(), e.get_destination(), e.get('label'))
                 for e in graph.get_edges()
                 if e.get_source() == '"consumer cons"']
        self.assertEqual([('"consumer cons"', '"r"', '"VCPU=2"'),
                          ('"consumer cons"', '"c"', '"VCPU=2"')], edges)


class TestProviderFilters(base.BaseTestCase):
    """The query of the provider filters: declared once, in one order."""

    def query(self, **values):
        cmd = resource_provider.ListResourceProvider(mock.Mock(), None)
        cmd.get_parser('openstack resource provider list')
        args = argparse.Namespace(**{dest: values.get(dest, []) for dest in (
            'name', 'uuid', 'resource', 'in_tree', 'required', 'forbidden',
            'member_of', 'aggregate_uuid')})
        return filters.query(cmd, mock.Mock(), args)

    def test_order_of_the_query_whatever_the_order_given(self):
        params = self.query(member_of=['a1,a2', '!a3'], required=['T1'],
                            forbidden=['F1,F2'], resource=['VCPU=1'],
                            name='n')
        self.assertEqual(
            [('name', 'n'), ('resources', 'VCPU:1'),
             ('required', ['T1,!F1,!F2']),
             ('member_of', ['in:a1,a2', '!a3'])],
            list(params.items()))

    def test_any_of_traits_is_a_parameter_of_its_own(self):
        self.assertEqual({'required': ['in:A,B', 'C']},
                         self.query(required=['A,B', 'C']))

    def test_nothing_given_nothing_sent(self):
        self.assertEqual({}, self.query())


class TestFitSummary(base.BaseTestCase):
    """capacity fit --summary: a bounded count counts for its class."""

    EXACT = fit_rows.Counted.EXACT

    def test_exact_rows(self):
        rows = [fit_rows.Fit('a', 'a', 3, 'VCPU', self.EXACT),
                fit_rows.Fit('b', 'b', 0, 'no VCPU', self.EXACT),
                fit_rows.Fit('c', 'c', 2, 'MEMORY_MB', self.EXACT),
                fit_rows.Fit('d', 'd', 1, 'VCPU', self.EXACT)]
        self.assertEqual((6, 3, 'VCPU'), fit_rows.summary(rows))

    def test_a_bound_marks_the_sum(self):
        rows = [fit_rows.Fit('a', 'a', 3, 'VCPU', self.EXACT),
                fit_rows.Fit('b', 'b', 5, 'VCPU',
                             fit_rows.Counted.UPPER_BOUND),
                fit_rows.Fit('c', 'c', 2, 'MEMORY_MB', self.EXACT)]
        self.assertEqual('VCPU' + fit_rows.UPPER_BOUND, rows[1].shown()[3])
        self.assertEqual((10, 3, 'VCPU' + fit_rows.UPPER_BOUND),
                         fit_rows.summary(rows))

    def test_unknown_count(self):
        rows = [fit_rows.Fit('a', 'a', 3, 'VCPU', self.EXACT),
                fit_rows.Fit('b', 'b', None, 'unexplained',
                             fit_rows.Counted.NONE)]
        self.assertEqual((None, 1, 'VCPU'), fit_rows.summary(rows))


class TestMetricsDeclared(base.BaseTestCase):
    """A command offering -f openmetrics must declare its metrics."""

    def test_a_command_without_metric_families_cannot_be_made(self):
        class Undeclared(metrics.Metrics):
            pass

        self.assertRaises(TypeError, Undeclared)

    def test_the_capacity_commands_declare_theirs(self):
        for cmd in (capacity.ListCapacity, capacity_fit.FitCapacity):
            self.assertEqual(frozenset(), cmd.__abstractmethods__)
