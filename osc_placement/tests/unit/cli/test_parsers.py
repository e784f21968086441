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

"""The value parsers of the command framework (``cli/parsers.py``).

Property tests: a value of the expected type, or the plugin's own
one-line error, never another exception (see
:mod:`osc_placement.tests.unit.strategies`; the properties of the other
modules' parsers are in the tests of those modules).
"""

import argparse
import math
import uuid

import hypothesis
from hypothesis import strategies as st

from osc_placement.cli import parsers
from osc_placement.tests.unit import base
from osc_placement.tests.unit import strategies

NUMBERS_OR_NONE = st.one_of(strategies.TEXT,
                            st.sampled_from(strategies.NUMBERS), st.none())


class TestParsers(base.TestCase):

    @strategies.SETTINGS
    @hypothesis.given(NUMBERS_OR_NONE, st.sampled_from([None, 0, 1]))
    # str.strip() takes the ASCII separators around it, int() does not.
    @hypothesis.example('0\x1f', None)
    def test_parse_int_gives_an_int_or_names_the_option_and_value(
            self, value, minimum):
        number, error = strategies.outcome(parsers.parse_int, value,
                                           '--amount', minimum)
        if error is None:
            self.assertIs(int, type(number))
            self.assertEqual(int(value), number)
            self.assertTrue(minimum is None or number >= minimum)
            return
        message = str(error)
        self.assertOneLine(message)
        self.assertTrue(message.startswith('--amount: %r ' % (value,)))
        self.assertIn('integer', message)

    @strategies.SETTINGS
    @hypothesis.given(NUMBERS_OR_NONE)
    def test_parse_float_gives_a_finite_float_or_names_the_value(self, value):
        number, error = strategies.outcome(parsers.parse_float, value,
                                           '--ratio')
        if error is None:
            self.assertTrue(
                isinstance(number, float) and math.isfinite(number))
            self.assertEqual(float(value), number)
            return
        message = str(error)
        self.assertOneLine(message)
        self.assertEqual('--ratio: %r is not a number.' % (value,), message)

    @strategies.SETTINGS
    @hypothesis.given(strategies.TEXT)
    def test_non_empty_keeps_the_value_or_is_an_argparse_error(self, value):
        kept, error = strategies.outcome(parsers.non_empty, value,
                                         errors=argparse.ArgumentTypeError)
        if error is None:
            self.assertEqual(value, kept)
            self.assertTrue(value.strip())
        else:
            self.assertFalse(value.strip())
            self.assertOneLine(str(error))

    @strategies.SETTINGS
    @hypothesis.given(st.one_of(strategies.TEXT, st.uuids().map(str)))
    def test_uuid_is_canonical_or_an_argparse_error(self, value):
        kept, error = strategies.outcome(parsers.uuid, value,
                                         errors=argparse.ArgumentTypeError)
        if error is None:
            self.assertEqual(str(uuid.UUID(value)), kept)
        else:
            self.assertOneLine(str(error))
