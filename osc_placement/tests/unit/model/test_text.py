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

"""Text safe on one terminal line (``model/text.py``)."""

from oslotest import base

from osc_placement.model import text


class TestPrintable(base.BaseTestCase):

    def test_plain_text_unchanged(self):
        self.assertEqual('rp-1 café', text.printable('rp-1 café'))

    def test_controls_escaped_and_tab_a_space(self):
        self.assertEqual('a\\x1b[31mb\\nc d\\u2028e',
                         text.printable('a\x1b[31mb\nc\td\u2028e'))

    def test_format_characters_escaped(self):
        # A bidi override and a zero width space hide or reorder text.
        self.assertEqual('x\\u202ey\\u200bz',
                         text.printable('x\u202ey\u200bz'))

    def test_not_text_is_made_text(self):
        self.assertEqual('42', text.printable(42))


class TestChecks(base.BaseTestCase):

    def test_has_control(self):
        self.assertEqual([True, True, True, False, False],
                         [text.has_control(value) for value in (
                             'a\x00', 'b\x7f', 'c\x85', 'd\u2028', 'e')])

    def test_undecodable(self):
        # What Python makes of the byte 0xff on a command line.
        self.assertTrue(text.undecodable('a\udcff'))
        self.assertFalse(text.undecodable('é'))

    def test_shown_bytes(self):
        self.assertEqual('a\\xff', text.shown_bytes('a\udcff'))
        self.assertEqual('é\\x1b', text.shown_bytes('é\x1b'))
