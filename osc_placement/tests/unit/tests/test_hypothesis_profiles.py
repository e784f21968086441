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

"""The hypothesis profile: the same examples at each CI run."""

import os

import fixtures
import hypothesis

from osc_placement.tests import hypothesis_profiles
from osc_placement.tests.unit import base
from osc_placement.tests.unit import strategies

# The settings a test module builds when it is imported.
AT_IMPORT = hypothesis.settings()


class TestHypothesisProfiles(base.TestCase):

    def setUp(self):
        super().setUp()
        # Run last: the profile of the run's own environment is back.
        self.addCleanup(hypothesis_profiles.load)

    def test_ci_profile_is_derandomized(self):
        self.useFixture(fixtures.EnvironmentVariable('CI', 'true'))
        self.assertEqual('ci', hypothesis_profiles.load())
        default = hypothesis.settings.default
        self.assertEqual((True, None, None, 100), (
            default.derandomize, default.deadline, default.database,
            default.max_examples))
        # A test that asks for more examples keeps the rest of the profile.
        self.assertIs(True, hypothesis.settings(max_examples=300).derandomize)

    def test_dev_profile_is_random(self):
        self.useFixture(fixtures.EnvironmentVariable('CI'))
        self.assertEqual('dev', hypothesis_profiles.load())
        default = hypothesis.settings.default
        self.assertEqual((False, None, 100), (
            default.derandomize, default.deadline, default.max_examples))

    def test_the_tests_run_with_the_profile_of_their_environment(self):
        """Loaded before the test modules made their settings."""
        on_ci = bool(os.environ.get('CI'))
        # hypothesis' own defaults have a deadline of 200 ms.
        self.assertEqual((on_ci, None, 100), (
            AT_IMPORT.derandomize, AT_IMPORT.deadline, AT_IMPORT.max_examples))
        own = strategies.SETTINGS
        self.assertEqual((on_ci, 200), (own.derandomize, own.max_examples))
