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

from osc_placement.model import fit_rows


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
