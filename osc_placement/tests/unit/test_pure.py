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

"""Pure functions of the provider filters and the capacity commands.

No command runs here: each function is called with the values a command
would give it, and its result is compared with what the user then sees.
(The tests of the other pure functions are in the mirror of their
modules: model/test_amounts.py, resources/test_tree.py, cli/test_dot.py.)
"""

import argparse
from unittest import mock

from oslotest import base

from osc_placement.cli import filters
from osc_placement.cli import metrics
from osc_placement.model import fit_rows
from osc_placement.resources import capacity
from osc_placement.resources import capacity_fit
from osc_placement.resources import resource_provider


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
