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

"""Tests of ``api/fit_requests.py`` beyond the command's own.

The candidates answers in flight are bounded by the trees they name
(``ANSWERS_TREES_IN_FLIGHT``): every several-flavor test of
``capacity fit`` runs again with one answer at a time, and must print
the same rows, errors and report, after a signal too.
"""

import fixtures

from osc_placement.api import fit_requests
from osc_placement.tests.unit.resources import test_capacity_fit as fit


class TestFitFlavorAnswersOneAtATime(fit.TestFitFlavorRefused):
    """The same rows, errors and report with one answer in flight."""

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.MonkeyPatch(
            'osc_placement.api.fit_requests.ANSWERS_TREES_IN_FLIGHT', 1))
        self.assertEqual(1, fit_requests.ANSWERS_TREES_IN_FLIGHT)
