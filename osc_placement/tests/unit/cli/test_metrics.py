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

"""The metrics of the capacity commands (``cli/metrics.py``).

Each command that offers ``-f openmetrics`` declares its metrics, and
refuses the options that would drop some of them, whatever the command.
"""

from oslotest import base
import testscenarios

from osc_placement.cli import metrics
from osc_placement.resources import capacity
from osc_placement.resources import capacity_fit
from osc_placement.tests.unit import clouds

load_tests = testscenarios.load_tests_apply_scenarios


class TestMetricsDeclared(base.BaseTestCase):
    """A command offering -f openmetrics must declare its metrics."""

    def test_a_command_without_metric_families_cannot_be_made(self):
        class Undeclared(metrics.Metrics):
            pass

        self.assertRaises(TypeError, Undeclared)

    def test_the_capacity_commands_declare_theirs(self):
        for cmd in (capacity.ListCapacity, capacity_fit.FitCapacity):
            self.assertEqual(frozenset(), cmd.__abstractmethods__)


class TestOpenMetricsColumns(clouds.TwoTrees):
    """-f openmetrics writes every metric: -c and --sort-column refused.

    One line, exit 1, before any request (the formatter used to guess its
    metrics from the columns it was handed, and failed on a KeyError).
    """

    scenarios = [
        ('%s %s %s' % (command, flag, column),
         {'argv': argv + [flag, column], 'flag': flag})
        for command, argv in (
            ('list', ['resource', 'provider', 'capacity', 'list']),
            ('list-summary', ['resource', 'provider', 'capacity', 'list',
                              '--summary']),
            ('fit', ['resource', 'provider', 'capacity', 'fit',
                     '--resource', 'VCPU=1']))
        for flag, column in (('-c', 'free'), ('-c', 'fits'),
                             ('--sort-column', 'name'))]

    def test_refused(self):
        out, err, code = self.openstack(*self.argv, '-f', 'openmetrics')
        self.assertEqual(
            ('', '%s cannot be used with -f openmetrics: it writes every '
             'metric of the command.\n' % self.flag, 1), (out, err, code))
        self.assertEqual([], self.sent())


class TestRows(base.BaseTestCase):
    """What take_action returns for -f openmetrics: a value, not state."""

    def test_a_frozen_value_of_the_rows_and_facts(self):
        rows = metrics.Rows((row for row in [(1, 'a'), (2, 'b')]), ['fact'])
        # Held once: each metric reads every row.
        self.assertEqual([[(1, 'a'), (2, 'b')]] * 2, [list(rows)] * 2)
        self.assertEqual([(1, 'a'), (2, 'b')], list(rows))
        self.assertEqual(['fact'], rows.facts)
        self.assertRaises(AttributeError, setattr, rows, 'facts', None)
        self.assertRaises(AttributeError, setattr, rows, 'extra', 1)

    def test_gauge_family_of_its_rows(self):
        gauge = metrics.Gauge('m', 'help', 'free', [('rp', 'name')])
        rows = metrics.Rows([('one', 3), ('two', 4)])
        self.assertEqual(
            ('m', 'help', [([('rp', 'one')], 3), ([('rp', 'two')], 4)]),
            gauge.family(('name', 'free'), rows))
