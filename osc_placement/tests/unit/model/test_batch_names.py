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

"""The names of the batches (``model/batch_names.py``).

The batch report words its lines with them and ``require_complete()``
matches batches by them: each constant is its own object, with its own
words.
"""

from oslotest import base

from osc_placement.model import batch_names

BATCHES = [value for value in vars(batch_names).values()
           if isinstance(value, batch_names.Things)]


class TestThings(base.BaseTestCase):

    def test_each_batch_has_its_own_words(self):
        self.assertEqual(10, len(BATCHES))
        self.assertEqual(len(BATCHES), len(set(t.one for t in BATCHES)))
        self.assertEqual(len(BATCHES), len(set(t.many for t in BATCHES)))

    def test_slots_hold_the_words_alone(self):
        things = batch_names.Things('tree', 'trees')
        self.assertRaises(AttributeError, setattr, things, 'other', 1)
        self.assertEqual("Things('tree', 'trees')", repr(things))

    def test_matched_as_the_same_object(self):
        # Two values of the same words are two batches.
        self.assertNotEqual(batch_names.Things('tree', 'trees'),
                            batch_names.TREES)

    def test_what_is_left_out(self):
        self.assertEqual(('rows', 'totals', 'save file'),
                         (batch_names.ROWS, batch_names.TOTALS,
                          batch_names.SAVE_FILE))
