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

"""The command framework (``cli/common.py``) as a user meets it.

Names: a name with a control character is refused before any request;
names the server holds with them are printed escaped (the JSON and YAML
formats keep the exact value); arguments that are not UTF-8 are refused
in one line. Usage and help: a command the reference lacks shows every
option in its usage, the help is plain text, and a command about one
named thing lists its positional once.
"""

import csv
import importlib.metadata
import io
import json
import logging

import fixtures
import testscenarios
import yaml

from osc_placement.tests.unit import base

load_tests = testscenarios.load_tests_apply_scenarios

URL = base.ENDPOINT
RP1 = base.RP1
RP2 = base.RP2

BELL = 'bad\x07name\n'
ESCAPES = 'evil\x1b[2J\x1b[31mred'
CONTROLS = ''.join(map(chr, range(0x20))) + '\x7f' + \
    ''.join(map(chr, range(0x80, 0xa0)))

# The commands that write a name, with the name in the place it is given.
WRITERS = [
    ('provider_create', {'argv': lambda name: [
        'resource', 'provider', 'create', name]}),
    ('provider_set', {'argv': lambda name: [
        'resource', 'provider', 'set', RP1, '--name', name]}),
    ('class_create', {'argv': lambda name: [
        'resource', 'class', 'create', name]}),
    ('class_set', {'argv': lambda name: [
        'resource', 'class', 'set', name]}),
    ('trait_create', {'argv': lambda name: ['trait', 'create', name]}),
]


class TestControlCharactersRefused(base.TestCase):
    """A name with a C0/C1 control character or DEL is never sent."""

    api_version = '1.39'
    scenarios = testscenarios.multiply_scenarios(WRITERS, [
        ('bell_newline', {'name': BELL, 'shown': r"'bad\x07name\n'"}),
        ('escapes', {'name': ESCAPES,
                     'shown': r"'evil\x1b[2J\x1b[31mred'"}),
        ('del', {'name': 'CUSTOM_A\x7f', 'shown': r"'CUSTOM_A\x7f'"}),
        ('c1', {'name': 'CUSTOM_\x9b31m', 'shown': r"'CUSTOM_\x9b31m'"}),
        ('tab', {'name': 'a\tb', 'shown': "'a b'"}),
    ])

    def test_refused_before_any_request(self):
        out, err, code = self.openstack(*self.argv(self.name))
        self.assertEqual(('', 2), (out, code))
        self.assertEqual([], self.sent())
        last = err.splitlines()[-1]
        self.assertIn("%s contains control characters, which a name cannot "
                      "have" % self.shown, last)
        for char in CONTROLS:
            self.assertNotIn(char, last)


class TestPrintableNamesStillWritten(base.TestCase):
    """Names with accents or spaces are no control characters."""

    api_version = '1.39'

    def test_trait_with_accents_is_created(self):
        self.requests_mock.put(URL + '/traits/CUSTOM_%C3%89T%C3%89',
                               status_code=201)
        out, err, code = self.openstack('trait', 'create', 'CUSTOM_\xc9T\xc9')
        self.assertEqual(('', '', 0), (out, err, code))


class TestServerNamesEscaped(base.TestCase):
    """Names with control characters that the server returns.

    table, value and csv print them escaped, one provider per line; json
    and yaml keep the exact value.
    """

    api_version = '1.39'

    def setUp(self):
        super().setUp()
        self.requests_mock.get(URL + '/resource_providers', json={
            'resource_providers': [base.provider(RP1, BELL),
                                   base.provider(RP2, ESCAPES)]})
        self.requests_mock.get(URL + '/resource_providers/' + RP1,
                               json=base.provider(RP1, BELL))

    def assertNoControl(self, out):
        for char in CONTROLS:
            if char != '\n':
                self.assertNotIn(char, out)

    def test_value_one_line_per_provider(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'list', '-f', 'value', '-c', 'uuid',
            '-c', 'name')
        self.assertEqual(('', 0), (err, code))
        self.assertNoControl(out)
        self.assertEqual(
            [RP1 + r' bad\x07name\n', RP2 + r' evil\x1b[2J\x1b[31mred'],
            out.splitlines())

    def test_table(self):
        out, err, code = self.openstack('resource', 'provider', 'list')
        self.assertEqual(('', 0), (err, code))
        self.assertNoControl(out)
        self.assertIn(r'| bad\x07name\n ', out)
        self.assertIn(r'| evil\x1b[2J\x1b[31mred ', out)

    def test_csv(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'list', '-f', 'csv', '-c', 'name')
        self.assertEqual(('', 0), (err, code))
        self.assertNoControl(out.replace('\r\n', ''))
        self.assertEqual(
            [['name'], [r'bad\x07name\n'], [r'evil\x1b[2J\x1b[31mred']],
            # cliff's csv writes a backslash as two (escapechar).
            list(csv.reader(io.StringIO(out), escapechar='\\')))

    def test_show_value(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'show', RP1, '-f', 'value', '-c', 'name')
        self.assertEqual((r'bad\x07name\n' + '\n', '', 0), (out, err, code))

    def test_json_keeps_the_exact_value(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'list', '-f', 'json')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual([BELL, ESCAPES],
                         [row['name'] for row in json.loads(out)])

    def test_yaml_keeps_the_exact_value(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'show', RP1, '-f', 'yaml')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(BELL, yaml.safe_load(out)['name'])

    def test_tree_table_escapes_indented_names(self):
        self.requests_mock.get(
            URL + '/resource_providers?in_tree=' + RP1, complete_qs=True,
            json={'resource_providers': [
                base.provider(RP1, BELL),
                base.provider(RP2, ESCAPES, parent=RP1)]})
        out, err, code = self.openstack(
            'resource', 'provider', 'tree', 'show', RP1, '-c', 'name',
            '--sort-column', 'name')
        self.assertEqual(('', 0), (err, code))
        self.assertNoControl(out)
        self.assertIn(r'| bad\x07name\n ', out)
        self.assertIn(r'|   evil\x1b[2J\x1b[31mred ', out)


class TestUndecodableArguments(base.TestCase):
    """Bytes that are not UTF-8 (surrogate-escaped by Python) are refused.

    Before any request, in one line naming the argument, not with
    Python's codec error.
    """

    api_version = '1.39'
    scenarios = [
        ('trait_create', {
            'argv': ['trait', 'create', 'CUSTOM_\udcff'],
            'line': "argument <name>: 'CUSTOM_\\xff' is not valid UTF-8"}),
        ('provider_list_name', {
            'argv': ['resource', 'provider', 'list', '--name', 'a\udcc3'],
            'line': "argument --name: 'a\\xc3' is not valid UTF-8"}),
        ('trait_set_trait', {
            'argv': ['resource', 'provider', 'trait', 'set', RP1,
                     '--trait', 'CUSTOM_\udcfe'],
            'line': "argument --trait: 'CUSTOM_\\xfe' is not "
                    "valid UTF-8"}),
        ('candidate_resource', {
            'argv': ['allocation', 'candidate', 'list', '--resource',
                     'VCPU\udce9=1'],
            'line': "argument --resource: 'VCPU\\xe9=1' is not valid "
                    "UTF-8"}),
        ('inventory_total', {
            'argv': ['resource', 'provider', 'inventory', 'class', 'set',
                     RP1, 'VCPU', '--total', '1\udcff'],
            'line': "argument --total: '1\\xff' is not valid UTF-8"}),
        ('provider_delete_more', {
            'argv': ['resource', 'provider', 'delete', RP1, 'x\udcff'],
            'line': "'x\\xff' is not valid UTF-8"}),
    ]

    def setUp(self):
        super().setUp()
        # osc-lib logs the command line; the log capture of the tests
        # (fixtures' FakeLogger) raises on text it cannot encode, where
        # logging only reports it: capture the log as text instead.
        self.useFixture(fixtures.LogHandler(
            logging.StreamHandler(io.StringIO()), level=logging.DEBUG))

    def test_refused_in_one_line(self):
        out, err, code = self.openstack(*self.argv)
        self.assertEqual([], self.sent())
        self.assertEqual(('', 2), (out, code))
        self.assertTrue(err.splitlines()[-1].endswith(self.line),
                        err.splitlines()[-1])
        self.assertNotIn('codec', err)
        self.assertNotIn('\udcff', err)


class TestUsageOfOwnCommands(base.TestCase):
    """A command the reference lacks shows every option in its usage."""

    def usage(self, *argv):
        out, err, code = self.openstack(*(argv + ('--no-such-option',)))
        self.assertEqual(2, code)
        return ' '.join(err.split())

    def test_allocation_list_shows_every_option(self):
        usage = self.usage('resource', 'provider', 'allocation', 'list')
        for option in ('[--project-id <project_id>]', '[--user-id <user_id>]',
                       '[--consumer-type <consumer_type>]',
                       '[--resource-class <resource_class>]',
                       '[--exclude-consumers-from <file>]'):
            self.assertIn(option, usage)
        self.assertIn('[--member-of <member_of>] [--project-id', usage)

    def test_tree_show_shows_dot(self):
        usage = self.usage('resource', 'provider', 'tree', 'show', RP1)
        self.assertIn('[--long] [--dot] [--consumers] <uuid>', usage)

    def test_reference_command_keeps_its_usage(self):
        usage = self.usage('resource', 'provider', 'set', RP1)
        self.assertNotIn('--no-parent', usage)


class TestHelpIsPlainText(base.TestCase):
    """--help prints no reStructuredText markup."""

    scenarios = [
        ('allocation_list', {'argv': ['resource', 'provider', 'allocation',
                                      'list', '--help'],
                             'expected': 'other consumers, e.g.:\n'}),
        ('tree_show', {'argv': ['resource', 'provider', 'tree', 'show',
                                '--help'],
                       'expected': '--sort-column name sorts'}),
        ('trait_list', {'argv': ['trait', 'list', '--help'],
                        'expected': 'startswith:<prefix>'}),
        ('provider_list', {'argv': ['resource', 'provider', 'list',
                                    '--help'],
                           'expected': '--os-placement-api-version'}),
    ]

    def test_no_markup(self):
        out, err, code = self.openstack(*self.argv)
        self.assertEqual(('', 0), (err, code))
        self.assertNotIn('``', out)
        self.assertNotIn('::', out)
        self.assertIn(self.expected, out)


class TestDeleteHelp(base.TestCase):
    """The deletes of several objects list their positional once.

    The usage synopsis stays the reference's: one positional.
    """

    scenarios = [
        (' '.join(command), {'command': command, 'metavar': metavar})
        for command, metavar in (
            (('resource', 'provider', 'delete'), '<uuid>'),
            (('resource', 'provider', 'allocation', 'delete'), '<uuid>'),
            (('resource', 'class', 'delete'), '<name>'),
            (('trait', 'delete'), '<name>'))]

    def test_positional_listed_once(self):
        out, err, code = self.openstack(*(self.command + ('--help',)))
        self.assertEqual(('', 0), (err, code))
        lines = out.splitlines()
        self.assertEqual('usage: openstack %s [-h] %s'
                         % (' '.join(self.command), self.metavar), lines[0])
        listed = [line for line in lines
                  if line.strip().startswith(self.metavar)]
        self.assertEqual(1, len(listed), out)
        self.assertIn('can follow.', ' '.join(out.split()))


def _commands():
    """(name, class) of every command of the plugin's entry points."""
    for ep in importlib.metadata.entry_points(group='openstack.placement.v1'):
        yield ep.name, ep.load()


class TestExitCodesInHelp(base.TestCase):
    """The help of each command of this plugin's own says its exit codes.

    The upstream plugin's commands keep their help as it was.
    """

    def test_own_commands_state_them_reference_ones_do_not(self):
        own, silent, added = [], [], []
        for name, cls in _commands():
            text = cls(None, None).get_description()
            if cls.in_reference:
                if 'Exit codes' in text:
                    added.append(name)
                continue
            own.append(name)
            if 'Exit codes' not in text:
                silent.append(name)
        self.assertEqual(([], []), (silent, added))
        self.assertIn('resource_provider_drain_plan', own)
        self.assertIn('resource_provider_audit', own)
