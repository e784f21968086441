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

"""resource provider drain plan: its columns and its usage errors.

The command against a real Placement is in
``tests/functional/test_drain.py``.
"""

from oslotest import base

from osc_placement.resources import drain


class TestAmounts(base.BaseTestCase):

    def test_table_and_json(self):
        amounts = {'VCPU': 2, 'DISK_GB': 10}
        self.assertEqual('DISK_GB=10, VCPU=2',
                         drain.Amounts.column(amounts, 'table'))
        self.assertEqual(amounts, drain.Amounts.column(
            amounts, 'json').machine_readable())
        self.assertEqual('', drain.Amounts.column(None, 'json'))

    def test_allocations_by_provider(self):
        allocations = {'rp-b': {'VGPU': 1}, 'rp-a': {'VCPU': 1, 'DISK_GB': 1}}
        self.assertEqual('rp-a: DISK_GB=1, VCPU=1; rp-b: VGPU=1',
                         drain.Amounts.column(allocations, 'value'))


class TestUsage(base.BaseTestCase):

    def test_something_to_drain(self):
        command = drain.PlanDrain(None, None)
        parser = command.get_parser('drain')
        self.assertEqual(['give the providers to drain, or --aggregate'],
                         command.usage_errors(parser.parse_args([])))
        self.assertEqual([], command.usage_errors(parser.parse_args(
            ['cn1'])))
