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

"""Parsers of the values users type, before any request.

Each fails with one line naming the option and the value: the argparse
types (``non_empty``, ``name_list``, ``integer``) as a usage error, the
others (``parse_int``, ``parse_amount``, ``parse_float``) as a
``CommandError``. None of them touches the network.
"""

import argparse

from osc_lib import exceptions

from osc_placement.model import scalars
from osc_placement.model.text import printable


def non_empty(value):
    """argparse type of positionals: an empty string is a usage error."""
    if not value.strip():
        raise argparse.ArgumentTypeError(
            'must not be empty, got %r' % value)
    return value


def uuid(text):
    """argparse type of an aggregate's UUID: canonical, else a usage error."""
    found = scalars.canonical_uuid(text)
    if found is None:
        raise argparse.ArgumentTypeError('%r is not a UUID' % text)
    return found


def name_list(value):
    """argparse type of comma-separated names, optionally led by ``!``.

    Traits, aggregates, group names: no name in the list may be empty.
    """
    names = value[1:] if value.startswith('!') else value
    if not all(name.strip() for name in names.split(',')):
        raise argparse.ArgumentTypeError(
            '%r: empty name in the comma-separated list' % value)
    return value


# What int() strips around a number: str.strip() also takes the ASCII
# separators (\x1c-\x1f), which int() refuses.
_BLANKS = ' \t\n\r\x0b\x0c'


def _is_decimal(text):
    digits = text[1:] if text[:1] in '+-' else text
    return digits.isascii() and digits.isdigit()


def parse_int(value, what, minimum=None):
    """int(value), or a CommandError naming ``what`` and the value.

    Only plain decimal digits: not Python's ``1_000`` or other scripts'
    digits.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and _is_decimal(value.strip(_BLANKS)):
        number = int(value.strip(_BLANKS))
    else:
        raise exceptions.CommandError(
            '%s: %r is not an integer.' % (printable(what), value))
    if minimum is not None and number < minimum:
        raise exceptions.CommandError(
            '%s: %r must be an integer of at least %d.'
            % (printable(what), value, minimum))
    return number


def is_integer(text):
    """Whether ``text`` is an integer as :func:`parse_int` reads one."""
    return isinstance(text, str) and _is_decimal(text.strip(_BLANKS))


def in_range(number, what, lowest=1):
    """``number``, or a CommandError when negative or above the maximum.

    The error names ``what``, the value and the range ``lowest`` to
    ``scalars.MAX_INT``. Zero passes even where ``lowest`` is 1: the server
    judges it, with its own words (contract rule D18).
    """
    if number < 0 or number > scalars.MAX_INT:
        raise exceptions.CommandError(
            '%s: %d is out of range (%d to %d).'
            % (printable(what), number, lowest, scalars.MAX_INT))
    return number


def parse_amount(value, what, lowest=1):
    """An amount: :func:`parse_int` then :func:`in_range`."""
    return in_range(parse_int(value, what), what, lowest)


def integer(text):
    """argparse type of integer options: the digits :func:`parse_int` takes.

    A ValueError makes argparse print its usual "invalid int value".
    """
    if not _is_decimal(text.strip(_BLANKS)):
        raise ValueError(text)
    return int(text.strip(_BLANKS))


# argparse names the type in its error ("invalid int value: '1_000'").
integer.__name__ = 'int'


def parse_float(value, what):
    """float(value), or a CommandError naming ``what`` and the value."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = None
    if number is None or number != number or abs(number) == float('inf'):
        raise exceptions.CommandError(
            '%s: %r is not a number.' % (printable(what), value))
    return number


def add_file(parser, help_text):
    """The file a command reads: ``<path>`` or ``--file <path>``.

    ``--file`` as ``allocation save`` writes it; the positional kept.
    :func:`file_of` gives the one path.
    """
    parser.add_argument('path', metavar='<path>', nargs='?',
                        help=help_text + ' (``-``: standard input).')
    parser.add_argument('--file', metavar='<path>',
                        help='The same as <path>.')


def file_of(parsed_args):
    """The path of :func:`add_file`, or one line: none given, or two."""
    path, option = parsed_args.path, parsed_args.file
    if path is None and option is None:
        raise exceptions.CommandError(
            'Give the file: <path> or --file <path>.')
    if path is not None and option is not None and path != option:
        raise exceptions.CommandError(
            'Two files given: %s and --file %s; give one.'
            % (printable(path), printable(option)))
    return option if path is None else path
