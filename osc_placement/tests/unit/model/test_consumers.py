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

"""Consumers and their allocations (``model/consumers.py``): pure."""

from osc_placement.model import consumers
from osc_placement.tests.unit import base

C1, C2 = base.C1, base.C2
RP1, RP2, RP3 = base.RP1, base.RP2, base.RP3


class TestConsumers(base.TestCase):
    """The pure parts: sums, differences, the body per version."""

    def test_diff_names_added_removed_changed(self):
        self.assertEqual(
            [(RP1, 'changed', {'VCPU': 1}, {'VCPU': 2}),
             (RP2, 'removed', {'DISK_GB': 1}, {}),
             (RP3, 'added', {}, {'VGPU': 1})],
            consumers.diff({RP1: {'VCPU': 1}, RP2: {'DISK_GB': 1}},
                           {RP1: {'VCPU': 2}, RP3: {'VGPU': 1}}))

    def test_body_without_a_writable_type_sends_none(self):
        records = {C1: {'allocations': {}, 'project_id': 'p',
                        'user_id': 'u', 'consumer_generation': 1,
                        'consumer_type': 'unknown'},
                   C2: {'allocations': {}, 'project_id': 'p',
                        'user_id': 'u', 'consumer_generation': None,
                        'consumer_type': 'INSTANCE'}}
        entries, types_sent = consumers.body(records, True, True)
        self.assertFalse(types_sent)
        self.assertNotIn('consumer_type', entries[C1])
        self.assertNotIn('consumer_type', entries[C2])
        self.assertEqual([C1], consumers.untyped(records))

    def test_without_types_is_the_version_before_consumer_types(self):
        self.assertEqual('1.37', consumers.WITHOUT_TYPES)
