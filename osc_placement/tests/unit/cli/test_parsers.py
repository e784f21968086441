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

"""Property tests of the value parsers.

Each parser gets arbitrary text, and text built around its separators
(``=``, ``,``, ``:``, ``!``). The property is always the same: the parser
returns a value of the expected type and shape, or raises the plugin's
own error (``CommandError``; ``argparse.ArgumentTypeError`` or
``ValueError`` for the functions argparse calls as a ``type``), never
another exception, and its message is one line.

"One line" means no line feed and no carriage return, what a terminal
breaks on. A few messages repeat the user's value as typed: a value that
itself holds a line break is left out of those properties (the line-break
cases of ``test_bad_input.py`` show what the user sees then).

``allocation.parse_allocations`` and ``request_groups.
parse_resource`` have their properties in ``test_allocation.py`` and
``test_allocation_candidate.py``.
"""

import argparse
import json
import math
import re
import types

import hypothesis
from hypothesis import strategies as st
from osc_lib import exceptions

from osc_placement.cli import candidate_options
from osc_placement.cli import parsers
from osc_placement.cli import request_groups
from osc_placement import errors
from osc_placement import http
from osc_placement.model import inventories
from osc_placement.model import query_values
from osc_placement.model import text
from osc_placement import plugin
from osc_placement.resources import allocation_candidate
from osc_placement.resources import inventory
from osc_placement.tests.unit import base
from osc_placement import version

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


# inventory: --resource <class>[:<field>]=<value>

# Well-formed values, to check what a successful parse returns.
GOOD_CLASSES = st.sampled_from(['VCPU', 'MEMORY_MB', 'CUSTOM_X', 'custom'])
AMOUNTS = st.one_of(st.integers(-10, 10 ** 12).map(str),
                    st.sampled_from(NUMBERS))
RATIOS = st.one_of(st.floats(allow_nan=False).map(repr), AMOUNTS)

INVENTORY_VALUES = st.one_of(
    TEXT,
    built_from(CLASSES + list(inventories.FIELDS) + NUMBERS + SEPARATORS
               + ['Total', 'foo']),
    st.builds('{}:{}={}'.format, st.sampled_from(CLASSES),
              st.sampled_from(inventories.FIELDS), st.sampled_from(NUMBERS)),
    st.builds('{}={}'.format, GOOD_CLASSES, AMOUNTS),
    st.builds('{}:{}={}'.format, GOOD_CLASSES,
              st.sampled_from(inventories.FIELDS), AMOUNTS),
    st.builds('{}:allocation_ratio={}'.format, GOOD_CLASSES, RATIOS),
)


AGGREGATE_VALUES = st.one_of(
    TEXT, built_from(['!', ',', 'in:', 'agg1', 'agg2', ' ', '']))


TRAITS = st.lists(st.one_of(
    TEXT, built_from(['CUSTOM_A', 'HW_CPU_X86_AVX', ',', '!', ''])),
    max_size=4)


def _candidates_command(api_version):
    client_manager = types.SimpleNamespace(
        _api_version={'placement': api_version},
        placement=types.SimpleNamespace(api_version=api_version))
    app = types.SimpleNamespace(client_manager=client_manager,
                                options=None)
    return allocation_candidate.ListAllocationCandidate(app, None)


def mostly(good, bad, percent=85):
    """``good`` in ``percent`` % of the draws, else ``bad``."""
    return st.integers(0, 99).flatmap(
        lambda draw: good if draw < percent else bad)


GROUP_NAMES = mostly(
    st.one_of(st.integers(1, 999).map(str),
              st.from_regex(request_groups.NAMED_GROUP,
                            fullmatch=True)),
    st.one_of(st.text(min_size=1, max_size=70),
              st.sampled_from(['0', '01', '-1', 'x' * 65, 'a b', 'é'])))
RESOURCES = mostly(
    st.builds('{}={}'.format, GOOD_CLASSES,
              st.integers(0, 10 ** 6).map(str)),
    st.one_of(TEXT, built_from(CLASSES + NUMBERS + SEPARATORS),
              st.builds('{}={}'.format, st.sampled_from(CLASSES),
                        st.sampled_from(NUMBERS)),
              st.builds('{}={}'.format, GOOD_CLASSES, AMOUNTS)))


VERSION_VALUES = st.one_of(
    TEXT,
    st.sampled_from(version.SUPPORTED_MICROVERSIONS + [
        '1', 'latest', 'LATEST', ' latest ', '1.40', '2.0', '1.x', '1.',
        '', '0.9', '1.030', ' 1.5 ']),
    built_from(['1', '.', '2', '9', ' ', 'latest', 'x']))


def _response(status, body, content_type=None, reason='Bad Request'):
    """Our reading of a response whose encoding requests guesses."""
    return http.Response('GET', base.response(
        status, body, content_type, reason, encoding=None))


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


class TestParsers(base.TestCase):

    @SETTINGS
    @hypothesis.given(INVENTORY_VALUES)
    def test_inventory_resource_is_a_typed_field_or_a_command_error(
            self, argument):
        parsed, error = outcome(inventory.parse_resource, argument)
        if error is not None:
            if '\n' not in argument and '\r' not in argument:
                self.assertOneLine(str(error))
            return
        resource_class, field, number = parsed
        name, value = argument.split('=')
        self.assertTrue(
            resource_class and resource_class == name.split(':')[0])
        self.assertIn(field, inventories.FIELDS)
        if field == 'allocation_ratio':
            self.assertTrue(
                isinstance(number, float) and math.isfinite(number))
            self.assertEqual(float(value), number)
        else:
            self.assertIs(int, type(number))
            self.assertEqual(int(value), number)

    @SETTINGS
    @hypothesis.given(st.one_of(TEXT, st.sampled_from(NUMBERS)))
    def test_inventory_ratio_type_is_a_finite_float_or_a_value_error(
            self, text):
        # argparse turns the ValueError into "invalid float value: '<text>'".
        number, error = outcome(inventory.finite_float, text,
                                errors=ValueError)
        if error is None:
            self.assertTrue(
                isinstance(number, float) and math.isfinite(number))
            self.assertEqual(float(text), number)
        else:
            self.assertEqual('float', inventory.finite_float.__name__)

    # common: numbers, names, query values

    @SETTINGS
    @hypothesis.given(st.one_of(TEXT, st.sampled_from(NUMBERS), st.none()),
                      st.sampled_from([None, 0, 1]))
    def test_parse_int_gives_an_int_or_names_the_option_and_value(
            self, value, minimum):
        number, error = outcome(parsers.parse_int, value, '--amount', minimum)
        if error is None:
            self.assertIs(int, type(number))
            self.assertEqual(int(value), number)
            self.assertTrue(minimum is None or number >= minimum)
            return
        message = str(error)
        self.assertOneLine(message)
        self.assertTrue(message.startswith('--amount: %r ' % (value,)))
        self.assertIn('integer', message)

    @SETTINGS
    @hypothesis.given(st.one_of(TEXT, st.sampled_from(NUMBERS), st.none()))
    def test_parse_float_gives_a_finite_float_or_names_the_value(self, value):
        number, error = outcome(parsers.parse_float, value, '--ratio')
        if error is None:
            self.assertTrue(
                isinstance(number, float) and math.isfinite(number))
            self.assertEqual(float(value), number)
            return
        message = str(error)
        self.assertOneLine(message)
        self.assertEqual('--ratio: %r is not a number.' % (value,), message)

    @SETTINGS
    @hypothesis.given(TEXT)
    def test_non_empty_keeps_the_value_or_is_an_argparse_error(self, value):
        kept, error = outcome(parsers.non_empty, value,
                              errors=argparse.ArgumentTypeError)
        if error is None:
            self.assertEqual(value, kept)
            self.assertTrue(value.strip())
        else:
            self.assertFalse(value.strip())
            self.assertOneLine(str(error))

    @SETTINGS
    @hypothesis.given(AGGREGATE_VALUES)
    def test_member_of_param_is_in_or_forbidden_of_the_same_aggregates(
            self, value):
        param = query_values.member_of_param(value)
        self.assertIsInstance(param, str)
        if not value.startswith('!'):
            self.assertEqual('in:' + value, param)
            return
        aggregates = value[1:]
        if ',' in aggregates:
            self.assertEqual('!in:' + aggregates, param)
        else:
            self.assertEqual('!' + aggregates, param)

    @SETTINGS
    @hypothesis.given(TRAITS, TRAITS)
    def test_required_traits_params_keep_every_trait_in_order(
            self, required, forbidden):
        params = query_values.required_traits_params(required, forbidden)
        self.assertTrue(all(isinstance(p, str) for p in params))
        any_of = ['in:' + t for t in required if ',' in t]
        all_of = [t for t in required if ',' not in t] + \
            ['!' + t for value in forbidden for t in value.split(',')]
        self.assertEqual(
            any_of + ([','.join(all_of)] if all_of else []),
            params)

    # allocation candidate list: request groups, name lists

    # Mostly good names and resources, so that a whole command line is often

    # valid; single bad values are common enough.

    @SETTINGS
    @hypothesis.given(
        st.sampled_from(['1.25', '1.32', '1.33', '1.39']),
        st.lists(RESOURCES, max_size=2),
        st.lists(st.tuples(GROUP_NAMES, st.lists(RESOURCES, min_size=1,
                                                 max_size=2)),
                 max_size=3))
    def test_candidate_groups_are_a_query_or_a_command_error(
            self, api_version, unnamed, groups):
        argv = ['--resource=' + value for value in unnamed]
        for name, resources in groups:
            argv.append('--group=' + name)
            argv += ['--resource=' + value for value in resources]
        command = _candidates_command(api_version)
        try:
            parsed_args = command.get_parser(
                'allocation candidate list').parse_args(argv)
        except SystemExit as usage_error:
            # argparse refused it (e.g. ``--group=--``): a usage error.
            self.assertEqual(2, usage_error.code)
            return
        given = request_groups.request_groups(parsed_args)

        def query():
            request_groups.check_group_names(
                given, version.parse(api_version) >= (1, 33))
            request_groups.require_resources(given)
            resources = request_groups.check_resources(given, [])
            return candidate_options.query(command, None, parsed_args,
                                           given, resources, [], '', None)

        params, error = outcome(query)
        if error is not None:
            if '\n' not in ''.join(argv) and '\r' not in ''.join(argv):
                self.assertOneLine(str(error))
            return
        named = version.parse(api_version) >= (1, 33)
        pattern = request_groups.NAMED_GROUP if named \
            else request_groups.INTEGER_GROUP
        self.assertTrue(all(re.match(pattern, name) for name, _ in groups))
        keys = [key for key, value in params]
        # One resources<suffix> per group, in the order the groups came.
        expected = ['resources' + name for name in given]
        self.assertEqual(
            expected,
            [k for k in keys if k.startswith('resources')])
        for key, value in params:
            if key.startswith('resources'):
                for pair in value.split(','):
                    resource_class, amount = pair.rsplit(':', 1)
                    self.assertEqual(resource_class, resource_class.strip())
                    self.assertTrue(
                        resource_class and int(amount) == int(amount.strip()))

    @SETTINGS
    @hypothesis.given(st.one_of(TEXT, built_from(['a', 'b', ',', ' ', '!'])))
    def test_name_lists_have_no_empty_name_or_are_refused(self, value):
        names, error = outcome(request_groups.split_names, value,
                               '--same-subtree')
        if error is None:
            self.assertEqual([n.strip() for n in value.split(',')], names)
            self.assertTrue(all(names))
        else:
            self.assertOneLine(str(error))
            self.assertTrue(str(error).startswith('--same-subtree %r' % value))

    # --os-placement-api-version

    @SETTINGS
    @hypothesis.given(VERSION_VALUES)
    def test_api_version_is_supported_or_refused_in_one_line(self, value):
        option = version.normalize_option(value)
        # Always major 1: OpenStackClient then runs the placement command,
        # which names the bad value.
        self.assertTrue(option == '1' or option.startswith('1.'))
        accepted, error = outcome(version.validate, option)
        stripped = value.strip()
        if error is None:
            self.assertIn(accepted, version.SUPPORTED_VERSIONS)
            self.assertTrue(
                stripped in version.SUPPORTED_MICROVERSIONS + ['1']
                or stripped.lower() == 'latest', stripped)
            return
        self.assertIsInstance(error, version.UnsupportedVersion)
        self.assertNotIn(stripped, version.SUPPORTED_MICROVERSIONS + ['1'])
        message = str(error)
        self.assertIn(repr(stripped), message)
        self.assertIn('1.0 to %s' % version.MAX_VERSION, message)
        if '\n' not in value and '\r' not in value:
            self.assertOneLine(message)

    # --os-placement-timeout

    @SETTINGS
    @hypothesis.given(st.one_of(LINE, st.sampled_from(NUMBERS)))
    def test_timeout_is_positive_seconds_or_a_command_error(self, value):
        seconds, error = outcome(plugin._timeout_seconds, value,
                                 errors=exceptions.CommandError)
        if error is None:
            self.assertTrue(
                isinstance(seconds, float) and 0 < seconds < math.inf)
        else:
            self.assertOneLine(str(error))
            self.assertIn(repr(value), str(error))

    # The error line of a failed response, whatever its body

    # Strings inside JSON bodies: no carriage return (a test below has one).

    @SETTINGS
    @hypothesis.given(st.integers(400, 599), BODIES,
                      st.sampled_from([None, 'application/json', 'text/html',
                                       'text/plain; charset=latin-1']),
                      st.sampled_from(['Bad Request', '', None]))
    def test_error_line_of_any_body_is_one_clean_line(
            self, status, body, content_type, reason):
        response = _response(status, body, content_type, reason)
        message = errors.error_message(response)
        self.assertTrue(
            isinstance(message, str) and message.strip() == message)
        self.assertTrue(message)
        self.assertOneLine(message)
        self.assertFalse(re.search(text._CONTROL_RE, message), repr(message))
        error = errors.exception_for(response)
        self.assertIsInstance(error, exceptions.ClientException)
        self.assertEqual('%s (HTTP %d)' % (message, status), str(error))

    @SETTINGS
    @hypothesis.given(BODIES)
    def test_json_of_any_body_is_data_or_an_invalid_response(self, body):
        response = _response(200, body)
        data, error = outcome(response.json, errors=errors.InvalidResponse)
        try:
            expected = json.loads(body.decode('utf-8'))
        except ValueError:
            # Not UTF-8 JSON; requests may still read it in the encoding it
            # guesses (a lone b'\xf0' is '0' in EBCDIC).
            expected = json.loads(response.text) if error is None else None
        if error is None:
            # Compared as JSON text: a body of NaN is a float that equals
            # no other, itself included.
            self.assertEqual(json.dumps(expected, sort_keys=True),
                             json.dumps(data, sort_keys=True))
        else:
            self.assertIsNone(expected)
            self.assertOneLine(str(error))
            self.assertTrue(
                str(error).startswith('Invalid response from the Placement '
                                      'API: GET http://placement.test/'))

    def test_carriage_return_in_a_json_detail_is_not_printed(self):
        body = json.dumps({'errors': [{'status': 400,
                                       'detail': 'Refused.\rAll good'}]})
        message = errors.error_message(_response(400, body.encode()))
        self.assertOneLine(message)
