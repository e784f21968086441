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

"""Graphviz DOT (``cli/dot.py``): strings, and the graph of a tree.

The text is read back with pydot: it must parse, with the nodes and edges
expected.
"""

from oslotest import base as oslotest_base
import pydot
import testscenarios

from osc_placement.cli import dot
from osc_placement.tests.unit import base

load_tests = testscenarios.load_tests_apply_scenarios


class TestDotString(oslotest_base.BaseTestCase):

    scenarios = [
        ('plain', {'text': 'compute-1', 'dot': '"compute-1"'}),
        ('quote', {'text': 'a"b', 'dot': '"a\\"b"'}),
        ('backslash', {'text': 'a\\N', 'dot': '"a\\\\N"'}),
        # Shown escaped, as the tables show them: one line, no control.
        ('line-break', {'text': 'a\r\nb\rc',
                        'dot': '"a\\\\r\\\\nb\\\\rc"'}),
        ('escape', {'text': 'a\x1b[2Jb\u2028c',
                    'dot': '"a\\\\x1b[2Jb\\\\u2028c"'}),
    ]

    def test_dot_string(self):
        self.assertEqual(self.dot, dot.dot_string(self.text))


class TestDotGraph(oslotest_base.BaseTestCase):
    """The text parses as DOT (pydot), with the nodes and edges expected."""

    def graph(self, text):
        graphs = pydot.graph_from_dot_data(text)
        self.assertEqual(1, len(graphs))
        return graphs[0]

    def test_providers_and_parent_edges(self):
        ordered = [(0, base.provider('r', 'root')),
                   (1, base.provider('c', 'child "x"', parent='r'))]
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
        ordered = [(0, base.provider('r', 'root')),
                   (1, base.provider('c', 'child', parent='r'))]
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
