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

"""The metrics of the capacity commands (``cli/metrics.py``)."""

from oslotest import base

from osc_placement.cli import metrics
from osc_placement.resources import capacity
from osc_placement.resources import capacity_fit


class TestMetricsDeclared(base.BaseTestCase):
    """A command offering -f openmetrics must declare its metrics."""

    def test_a_command_without_metric_families_cannot_be_made(self):
        class Undeclared(metrics.Metrics):
            pass

        self.assertRaises(TypeError, Undeclared)

    def test_the_capacity_commands_declare_theirs(self):
        for cmd in (capacity.ListCapacity, capacity_fit.FitCapacity):
            self.assertEqual(frozenset(), cmd.__abstractmethods__)
