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

"""Usage and help of the commands: every option shown, plain text."""

import testscenarios

from osc_placement.tests.unit import base

load_tests = testscenarios.load_tests_apply_scenarios

RP1 = base.RP1


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
