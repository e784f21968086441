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

"""Batches in parallel: what is printed never tells how many ran at once.

Each batch command runs with ``--os-placement-parallel`` left out, 1, 2
and 8; stdout, stderr, the exit code and the set of requests must be those
of the run with 1, partial failures included. With 1 (and by default, for
the commands of the original plugin) the requests keep their order.
"""

import testscenarios

from osc_placement.tests.unit import base

load_tests = testscenarios.load_tests_apply_scenarios

RC = ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C', 'CUSTOM_D', 'CUSTOM_E']
TRAITS = ['CUSTOM_T%d' % i for i in range(5)]
PROVIDERS = ['aaaaaaaa-aaaa-4aaa-8aaa-00000000001%d' % i for i in range(5)]
CONSUMERS = ['cccccccc-cccc-4ccc-8ccc-00000000001%d' % i for i in range(5)]


class TestMultiDelete(base.TestCase):
    """The multi-deletes, every second item failing or all succeeding."""

    api_version = '1.39'
    scenarios = testscenarios.multiply_scenarios(
        [('provider', {'argv': ['resource', 'provider', 'delete'],
                       'items': PROVIDERS, 'path': '/resource_providers/',
                       'thing': 'resource provider',
                       'things': 'resource providers'}),
         ('class', {'argv': ['resource', 'class', 'delete'], 'items': RC,
                    'path': '/resource_classes/', 'thing': 'resource class',
                    'things': 'resource classes'}),
         ('trait', {'argv': ['trait', 'delete'], 'items': TRAITS,
                    'path': '/traits/', 'thing': 'trait',
                    'things': 'traits'}),
         ('allocation', {'argv': ['resource', 'provider', 'allocation',
                                  'delete'],
                         'items': CONSUMERS, 'path': '/allocations/',
                         'thing': 'allocations of consumer',
                         'things': 'allocations'})],
        [('all_succeed', {'failing': ()}),
         ('some_fail', {'failing': (1, 3)})])

    def setUp(self):
        super().setUp()
        for number, item in enumerate(self.items):
            if number in self.failing:
                reply = base.error_reply(404, 'No such thing %s.' % item)
            else:
                reply = {'status_code': 204}
            self.requests_mock.delete(base.ENDPOINT + self.path + item,
                                      **reply)

    def delete(self, parallel=None):
        options = []
        if parallel is not None:
            options = ['--os-placement-parallel', str(parallel)]
        before = len(self.sent())
        out, err, code = self.openstack(*(options + self.argv + self.items))
        return (out, err, code), self.sent()[before:]

    def test_same_output_and_requests_at_any_parallelism(self):
        (serial, serial_sent) = self.delete(1)
        for parallel in (None, 2, 8):
            printed, sent = self.delete(parallel)
            self.assertEqual(serial, printed, parallel)
            self.assertEqual(sorted(serial_sent), sorted(sent), parallel)

    def test_serial_keeps_the_order_and_reports_in_item_order(self):
        (out, err, code), sent = self.delete()
        self.assertEqual([('DELETE', self.path + item)
                          for item in self.items], sent)
        expected = ['Failed to delete %s %s: No such thing %s. (HTTP 404)'
                    % (self.thing, self.items[n], self.items[n])
                    for n in self.failing]
        if self.failing:
            expected.append('Failed to delete %d of %d %s.' % (
                len(self.failing), len(self.items), self.things))
        self.assertEqual(('', 1 if self.failing else 0), (out, code))
        self.assertEqual(expected, err.splitlines())


class TestParallelOption(base.TestCase):
    """Bad values are refused in one line; other services never mind."""

    api_version = '1.39'
    # An empty OS_PLACEMENT_PARALLEL is the same as none: not in the table.
    scenarios = [(repr(value), {'value': value})
                 for value in ('0', '65', 'abc', '-1', '1.5', ' ', '١')]

    def test_bad_option_fails_placement_commands_in_one_line(self):
        out, err, code = self.openstack('--os-placement-parallel',
                                        self.value, 'trait', 'list')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ['--os-placement-parallel (or OS_PLACEMENT_PARALLEL): %r is not '
             'a whole number from 1 to 64.' % self.value], err.splitlines())
        self.assertEqual([], self.sent())

    def test_bad_option_leaves_other_services_alone(self):
        out, err, code = self.openstack(
            '--os-placement-parallel', self.value, 'module', 'list',
            '-f', 'value')
        self.assertEqual(('', 0), (err, code))

    def test_bad_environment_fails_placement_commands_in_one_line(self):
        out, err, code = self.openstack(
            'trait', 'list', env={'OS_PLACEMENT_PARALLEL': self.value})
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ['--os-placement-parallel (or OS_PLACEMENT_PARALLEL): %r is not '
             'a whole number from 1 to 64.' % self.value], err.splitlines())
        self.assertEqual([], self.sent())

    def test_bad_environment_leaves_other_services_alone(self):
        out, err, code = self.openstack(
            'module', 'list', '-f', 'value',
            env={'OS_PLACEMENT_PARALLEL': self.value})
        self.assertEqual(('', 0), (err, code))
