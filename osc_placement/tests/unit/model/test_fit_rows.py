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

"""The rows of ``capacity fit`` (``model/fit_rows.py``) and their sum."""

from oslotest import base

from osc_placement.model import evaluation
from osc_placement.model import fit_rows


class TestFitSummary(base.BaseTestCase):
    """capacity fit --summary: the trees together, each pool once."""

    EXACT = fit_rows.Counted.EXACT

    def test_exact_rows(self):
        rows = [fit_rows.Fit('a', 'a', 3, 3, 'VCPU', self.EXACT),
                fit_rows.Fit('b', 'b', 0, 0, 'no VCPU', self.EXACT),
                fit_rows.Fit('c', 'c', 2, 2, 'MEMORY_MB', self.EXACT),
                fit_rows.Fit('d', 'd', 1, 1, 'VCPU', self.EXACT)]
        self.assertEqual((6, 6, 3, 'VCPU'), fit_rows.summary(rows))

    def test_a_bound_marks_the_sum(self):
        rows = [fit_rows.Fit('a', 'a', 3, 3, 'VCPU', self.EXACT),
                fit_rows.Fit('b', 'b', 5, 5, 'VCPU',
                             fit_rows.Counted.UPPER_BOUND),
                fit_rows.Fit('c', 'c', 2, 2, 'MEMORY_MB', self.EXACT)]
        self.assertEqual('VCPU' + fit_rows.UPPER_BOUND, rows[1].shown()[4])
        self.assertEqual((10, 10, 3, 'VCPU' + fit_rows.UPPER_BOUND),
                         fit_rows.summary(rows))

    def test_a_range_says_its_gap(self):
        row = fit_rows.Fit('a', 'a', 3, 4, 'VCPU', fit_rows.Counted.RANGE,
                           'which providers each copy takes')
        self.assertEqual(('a', 'a', 3, 4, 'VCPU; fits below at_most: which '
                          'providers each copy takes'), row.shown())
        self.assertEqual((3, 4, 1, 'VCPU'), fit_rows.summary([row]))

    def test_unknown_count(self):
        rows = [fit_rows.Fit('a', 'a', 3, 3, 'VCPU', self.EXACT),
                fit_rows.Fit('b', 'b', None, None, 'unexplained',
                             fit_rows.Counted.NONE)]
        self.assertEqual((None, None, 1, 'VCPU'), fit_rows.summary(rows))


def draw(trees, sole=True):
    """A draw of 30 GB a copy on a pool of 100 GB free."""
    return evaluation.Draw('pool-uuid', 'pool', 'DISK_GB', 100, 30, sole,
                           trees)


class TestPoolsCountedOnce(base.BaseTestCase):
    """Trees that share a pool: each counted as if alone, the cloud once."""

    def test_the_pool_bounds_the_trees_together(self):
        rows = [fit_rows.Fit(name, name, 3, 3, 'DISK_GB',
                             fit_rows.Counted.EXACT, '', (draw(2),))
                for name in ('a', 'b')]
        # Each alone takes 3 of 30 GB from 100; together 3 in all.
        self.assertEqual((3, 3, 2, 'pool pool (shared by 2 trees)'),
                         fit_rows.summary(rows))

    def test_a_tree_that_may_not_take_the_pool(self):
        rows = [fit_rows.Fit('a', 'a', 3, 3, 'DISK_GB',
                             fit_rows.Counted.EXACT, '', (draw(2),)),
                fit_rows.Fit('b', 'b', 2, 2, 'VCPU',
                             fit_rows.Counted.EXACT, '',
                             (draw(2, sole=False),))]
        # b has disk of its own: the bound is the sum; what is reachable
        # takes the pool as b's copies might.
        self.assertEqual((3, 5, 2, 'DISK_GB'), fit_rows.summary(rows))
