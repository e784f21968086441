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

"""The hypothesis strategies and helpers of the property tests.

Each parser gets arbitrary text, and text built around its separators
(``=``, ``,``, ``:``, ``!``). The property is always the same: the parser
returns a value of the expected type and shape, or raises the plugin's
own error (``CommandError``; ``argparse.ArgumentTypeError`` or
``ValueError`` for the functions argparse calls as a ``type``), never
another exception, and its message is one line (:func:`outcome` tells the
two apart). The tests of each parser are in the mirror of its module.

"One line" means no line feed and no carriage return, what a terminal
breaks on. A few messages repeat the user's value as typed: a value that
itself holds a line break is left out of those properties (the
line-break cases of the bad-input tables show what the user sees then).
"""

import json

import hypothesis
from hypothesis import strategies as st
from osc_lib import exceptions

from osc_placement.http import responses
from osc_placement.tests.unit import base

SETTINGS = hypothesis.settings(max_examples=200, deadline=None)

# Arbitrary text, and the same without line breaks.
TEXT = st.text(max_size=40)
LINE = TEXT.map(lambda s: s.replace('\n', ' ').replace('\r', ' '))


def built_from(pieces, max_pieces=6):
    """Text made of the given pieces and of short arbitrary text."""
    return st.lists(st.one_of(st.sampled_from(pieces), st.text(max_size=3)),
                    max_size=max_pieces).map(''.join)


CLASSES = ['VCPU', 'MEMORY_MB', 'CUSTOM_X', 'custom_x', '', ' ']
NUMBERS = ['0', '1', '16', '-1', ' 4 ', '1.5', '1e3', 'abc', '', 'nan',
           'inf', '-inf', '1_000', '0x10', '9' * 30, '٣']
SEPARATORS = ['=', ':', ',', '!']


def outcome(function, *args, errors=(exceptions.CommandError,)):
    """(value, None) or (None, the plugin's error); anything else fails."""
    try:
        return function(*args), None
    except errors as exc:
        return None, exc


# Well-formed values, to check what a successful parse returns.
GOOD_CLASSES = st.sampled_from(['VCPU', 'MEMORY_MB', 'CUSTOM_X', 'custom'])
AMOUNTS = st.one_of(st.integers(-10, 10 ** 12).map(str),
                    st.sampled_from(NUMBERS))


# The body of a failed response, whatever it is.

# Strings inside JSON bodies: no carriage return (a test of test_errors.py
# has one).
JSON_TEXT = st.text(max_size=60).map(lambda s: s.replace('\r', ' '))
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | JSON_TEXT,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(JSON_TEXT, inner, max_size=3),
    max_leaves=8)
PLACEMENT_ERRORS = st.fixed_dictionaries({'errors': st.lists(
    st.fixed_dictionaries({}, optional={
        'status': st.integers(400, 599), 'title': JSON_VALUES,
        'detail': st.one_of(JSON_TEXT, JSON_VALUES),
        'code': JSON_VALUES}),
    max_size=2)})
KEYSTONE_ERRORS = st.fixed_dictionaries({'error': st.fixed_dictionaries(
    {}, optional={'message': st.one_of(st.text(max_size=60), JSON_VALUES),
                  'code': JSON_VALUES})})
BODIES = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200).map(lambda s: s.encode('utf-8')),
    built_from(['<html>', '<head><title>x</title></head>', '<body>',
                '<h1>Bad Gateway</h1>', '</body>', '&amp;', '&lt;', '\n',
                '\x1b[31m', '<script>alert(1)</script>', ' ']).map(
        lambda s: s.encode('utf-8')),
    st.one_of(JSON_VALUES, PLACEMENT_ERRORS, KEYSTONE_ERRORS).map(
        lambda v: json.dumps(v).encode('utf-8')),
)


def read_response(status, body, content_type=None, reason='Bad Request'):
    """Our reading of a response whose encoding requests guesses."""
    return responses.Response('GET', base.response(
        status, body, content_type, reason, encoding=None))
