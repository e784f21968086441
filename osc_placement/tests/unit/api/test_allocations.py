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

"""The allocations service (``api/allocations.py``): a refused write."""

from osc_placement.api import allocations
from osc_placement.tests.unit import base

RP1 = base.RP1
C1 = base.C1


class TestConflict(base.TestCase):
    """A refused write is a value; its text is derived from it."""

    def test_the_advice_follows_the_kind_of_the_first_change(self):
        conflict = allocations.Conflict(
            'generation conflict.', 409, True, [
                allocations.Change(allocations.Kind.PROVIDER, RP1, 3, 4),
                allocations.Change(allocations.Kind.CONSUMER, C1, None, 1)])
        self.assertEqual(
            'generation conflict (HTTP 409). Nothing was written. Changed '
            'since it was read: resource provider %s (generation 3 when '
            'read, 4 now); consumer %s (generation none: no such consumer '
            'when read, 1 now). Resource provider %s changed since it was '
            'read: read it again with "openstack resource provider show '
            '%s", then run the command again.' % (RP1, C1, RP1, RP1),
            conflict.text())

    def test_a_concurrent_update_without_changes_says_run_again(self):
        conflict = allocations.Conflict('conflict', 409, True)
        self.assertEqual(
            'conflict (HTTP 409). Nothing was written; the generations read '
            'are current again: run the command again.', conflict.text())

    def test_the_error_carries_the_conflict(self):
        conflict = allocations.Conflict('no room', 409, False)
        error = allocations.WriteConflict(conflict)
        self.assertIs(conflict, error.conflict)
        self.assertEqual('no room (HTTP 409). Nothing was written.',
                         str(error))
