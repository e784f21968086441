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

"""Text safe to print on one line of a terminal."""

import re

# Line breaks, C0/C1 controls (ANSI escapes, NUL, BEL...), the Unicode
# line and paragraph separators (U+2028, U+2029: a line break to many
# terminals, editors and JavaScript) and the format characters that
# reorder or hide text (bidi overrides, zero widths).
# (A pattern string: re compiles it, once, the first time it is needed.)
_CONTROL_RE = ('[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e'
               '\u2066-\u2069\ufeff]')
# The C0 and C1 control characters and DEL: what a name may not contain.
_C0_C1_DEL_RE = '[\x00-\x1f\x7f-\x9f]'


def printable(text):
    """``text`` with control characters shown escaped (``\\x1b``, ``\\n``).

    Plain text is returned unchanged, so messages of ordinary values stay
    exactly as the reference prints them.
    """
    text = str(text)
    if text.isprintable():
        # Nothing to escape: every character of the pattern is
        # non-printable.
        return text
    return re.sub(
        _CONTROL_RE,
        lambda m: m.group().encode('unicode_escape').decode('ascii'),
        text.replace('\t', ' '))


def has_control(text):
    """True if ``text`` holds a C0 or C1 control character or DEL."""
    return re.search(_C0_C1_DEL_RE, text) is not None


def undecodable(text):
    """True if ``text`` came from bytes that are not UTF-8.

    Python hands such bytes of the command line over as lone surrogates
    (``'\\udcff'`` for the byte 0xff), which cannot be sent anywhere.
    """
    try:
        text.encode('utf-8')
    except UnicodeEncodeError:
        return True
    return False


def shown_bytes(text):
    """``text`` as typed: bytes that are not UTF-8 shown as ``\\xff``."""
    try:
        raw = text.encode('utf-8', 'surrogateescape')
    except UnicodeEncodeError:
        # A surrogate that stands for no byte: shown as \\udXXX.
        raw = text.encode('utf-8', 'backslashreplace')
    return printable(raw.decode('utf-8', 'backslashreplace'))
