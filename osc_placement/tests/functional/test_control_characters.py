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

"""Names with control characters on a real Placement: refused when written
here, escaped when printed."""

from prometheus_client.openmetrics import parser
import pydot

from osc_placement.tests.functional import base

BELL = 'bad\x07name\n'
ESCAPES = 'evil\x1b[2J\x1b[31mred'


class TestControlCharacters(base.TestCase):

    def test_create_refused_and_nothing_written(self):
        for name in (BELL, ESCAPES):
            err, code = self.fails('resource', 'provider', 'create', name)
            self.assertEqual(2, code)
            self.assertIn('contains control characters', err)
        self.assertEqual(
            [], self.api('GET', '/resource_providers')['resource_providers'])

    def test_names_the_server_holds_are_escaped(self):
        # Written by another client: the server takes them.
        for name in (BELL, ESCAPES):
            self.api('POST', '/resource_providers', body={'name': name})
        value = self.ok('resource', 'provider', 'list', '-f', 'value',
                        '-c', 'name', '--sort-column', 'name')
        self.assertEqual([r'bad\x07name\n', r'evil\x1b[2J\x1b[31mred'],
                         value.splitlines())
        table = self.ok('resource', 'provider', 'list')
        for char in '\x07\x1b':
            self.assertNotIn(char, table)
        self.assertEqual(
            sorted([BELL, ESCAPES]),
            sorted(row['name'] for row in self.ok(
                'resource', 'provider', 'list', '-f', 'json')))

    def test_rename_refused(self):
        uuid = self.api('POST', '/resource_providers',
                        body={'name': 'compute-1'})['uuid']
        err, code = self.fails('resource', 'provider', 'set', uuid,
                               '--name', ESCAPES)
        self.assertEqual(2, code)
        self.assertEqual(
            'compute-1', self.api('GET', '/resource_providers/' + uuid)[
                'name'])


# ESC (a terminal title, a cleared screen), CR (which makes Prometheus'
# parser refuse the whole scrape), LF and a line separator.
HOSTILE = 'h\x1b]0;owned\x07\x1b[2J\rx\ny\u2028z\u2029'
SHOWN = r'h\x1b]0;owned\x07\x1b[2J\rx\ny\u2028z\u2029'
RAW = '\x1b\x07\r\u2028\u2029'


class TestNamesInOtherFormats(base.TestCase):
    """--dot and -f openmetrics escape a name as the tables do."""

    def setUp(self):
        super().setUp()
        self.uuid = self.api('POST', '/resource_providers',
                             body={'name': HOSTILE})['uuid']
        generation = self.api('GET', '/resource_providers/' + self.uuid)[
            'generation']
        self.api('PUT', '/resource_providers/%s/inventories' % self.uuid,
                 body={'resource_provider_generation': generation,
                       'inventories': {'VCPU': {'total': 4}}})

    def assertEscaped(self, out):
        for char in RAW:
            self.assertNotIn(char, out)
        # The one line breaks are those of the format itself.
        self.assertNotIn('\n' + 'y', out)

    def test_dot(self):
        out = self.ok('resource', 'provider', 'tree', 'show', self.uuid,
                      '--dot', version='1.39')
        self.assertEscaped(out)
        graph, = pydot.graph_from_dot_data(out)
        node, = [n for n in graph.get_nodes()
                 if n.get_name() == '"%s"' % self.uuid]
        # What Graphviz shows: the name as the table shows it.
        self.assertEqual('"%s\\n%s"' % (SHOWN.replace('\\', '\\\\'),
                                        self.uuid), node.get('label'))
        table = self.ok('resource', 'provider', 'show', self.uuid, '-f',
                        'value', '-c', 'name')
        self.assertEqual(SHOWN + '\n', table)

    def test_openmetrics(self):
        out = self.ok('resource', 'provider', 'capacity', 'list', '-f',
                      'openmetrics', version='1.39')
        self.assertEscaped(out)
        found = {family.name: family for family in
                 parser.text_string_to_metric_families(out)}
        samples = found['openstack_placement_resource_total'].samples
        self.assertEqual([({'hostname': SHOWN, 'resourcetype': 'VCPU'}, 4)],
                         [(s.labels, s.value) for s in samples])
