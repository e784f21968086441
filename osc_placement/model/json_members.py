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

"""The members of a JSON object, decoded as the body's bytes arrive.

A candidates answer on a big cloud is tens of megabytes of JSON, most of
it in two members (``allocation_requests``, ``provider_summaries``), and
what a verdict needs of it is a set of roots. :func:`members` walks the
top-level object as its chunks come and hands over each item of an
array member (each name and value of an object member) of the keys asked
for, one at a time: the body is never held whole, nor its decoded form.
Each value is decoded by the standard library's decoder
(``json.JSONDecoder.raw_decode``), so what is accepted and how a value
reads are those of ``json.loads`` of the bytes (a UTF-8 BOM at the start
is dropped), but for two refusals (:class:`Unreadable`): a streamed key
given twice (``json.loads`` keeps the last, where the first one's items
have been handed over already) and values nested too deeply (where
``json.loads`` raises RecursionError). The chunks read at once join the
text left in one copy: a value of many chunks is copied a bounded
number of times, not once a chunk, and reading is linear in the size of
the body.
"""

import codecs
import enum
import json
import re

# JSON's white space (RFC 8259), a run of it.
_SPACES = re.compile('[ \t\n\r]*')
# Where a number the text held ends before one of these, the next chunk
# may carry the rest of it ('12.' then '5', '1e' then '3').
_NUMBER_GOES_ON = '.eE'
# How much of the body's start a NotJSON error keeps, to be quoted.
HEAD_CHARS = 65536

_DECODER = json.JSONDecoder()


class Part(enum.Enum):
    """What one step of :func:`members` hands over."""

    # A member's value, decoded whole.
    WHOLE = 'whole'
    # A streamed member whose value is an array: its start, then each item.
    ARRAY = 'array'
    ITEM = 'item'
    # A streamed member whose value is an object: its start, then each
    # (name, value).
    OBJECT = 'object'
    MEMBER = 'member'


class Shared(object):
    """One object for each JSON value met again: ``shared(value)``.

    The first value equal to ``value`` that was given (so the values kept
    must not be changed). A big cloud's providers repeat their
    inventories, traits and aggregates: each is then held once. Safe
    from several threads (one ``dict.setdefault``).
    """

    def __init__(self):
        self._kept = {}

    def __call__(self, value):
        key = json.dumps(value, sort_keys=True, separators=(',', ':'))
        return self._kept.setdefault(key, value)


class NotJSON(ValueError):
    """The body is not one JSON object; ``head``: the start of its text."""

    def __init__(self, why, head):
        super().__init__(why)
        self.head = head


class Unreadable(ValueError):
    """JSON this reader does not take; ``str()`` says why, for a line.

    A streamed member given twice (``json.loads`` would keep the last
    one, while its reader has been handed the first), or values nested
    deeper than the decoder goes.
    """


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class _Text(object):
    """The body's text, read a chunk at a time as the walk needs it."""

    def __init__(self, chunks):
        self._chunks = iter(chunks)
        # A UTF-8 BOM at the start is dropped, as json.loads drops it
        # from bytes.
        self._utf8 = codecs.getincrementaldecoder('utf-8-sig')('replace')
        self.text = ''
        self.pos = 0
        self.ended = False
        self._head = []
        self._head_chars = 0

    @property
    def head(self):
        """The start of the body's text (HEAD_CHARS at the most)."""
        return ''.join(self._head)

    def more(self, wanted=1):
        """Read until ``wanted`` more characters are held, or the end.

        What is left of the text and the new chunks are joined once, so
        that a value of many chunks is not copied again at each one.
        False: the end had been reached already.
        """
        if self.ended:
            return False
        pieces, count = [], 0
        while count < wanted and not self.ended:
            chunk = next(self._chunks, None)
            if chunk is None:
                self.ended = True
                decoded = self._utf8.decode(b'', final=True)
            else:
                decoded = self._utf8.decode(chunk)
            if self._head_chars < HEAD_CHARS:
                kept = decoded[:HEAD_CHARS - self._head_chars]
                self._head.append(kept)
                self._head_chars += len(kept)
            pieces.append(decoded)
            count += len(decoded)
        self.text = self.text[self.pos:] + ''.join(pieces)
        self.pos = 0
        return True

    def peek(self):
        """The next character that is not white space ('': the end)."""
        while True:
            self.pos = _SPACES.match(self.text, self.pos).end()
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self.more():
                return ''

    def take(self, allowed):
        """Consume the next character, one of ``allowed``; return it."""
        found = self.peek()
        if not found or found not in allowed:
            raise self.error('expecting one of %r, found %r'
                             % (allowed, found or 'the end'))
        self.pos += 1
        return found

    def value(self):
        """The next JSON value, decoded whole, consumed."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as exc:
                if self.ended:
                    raise self.error(exc.msg) from None
            except RecursionError:
                raise Unreadable('JSON nested too deeply') from None
            else:
                if self.ended or not (_is_number(value) and (
                        end == len(self.text)
                        or self.text[end] in _NUMBER_GOES_ON)):
                    self.pos = end
                    return value
            # Read until the text held has doubled: each value is decoded
            # a bounded number of times, however it is cut.
            self.more(len(self.text) - self.pos + 1)

    def end(self):
        """Nothing but white space is left."""
        if self.peek():
            raise self.error('extra data after the object')

    def error(self, why):
        """The :class:`NotJSON` of the body, its start kept."""
        if self._head_chars < HEAD_CHARS:
            self.more(HEAD_CHARS - self._head_chars)
        return NotJSON(why, self.head)


def members(chunks, streamed=()):
    """Yield (key, Part, value) for the members of one JSON object.

    chunks: the body's bytes (UTF-8), in pieces of any size. A member of
    a key in ``streamed`` whose value is an array gives (key,
    ``Part.ARRAY``, None), then (key, ``Part.ITEM``, item) per item; an
    object, (key, ``Part.OBJECT``, None), then (key, ``Part.MEMBER``,
    (name, value)) per member. Any other member gives (key,
    ``Part.WHOLE``, value). A body that is JSON but not an object has no
    member. Raises :class:`NotJSON` where the body is not JSON,
    :class:`Unreadable` where a key of ``streamed`` is given twice or
    values are nested too deeply.
    """
    text = _Text(chunks)
    if text.peek() not in ('{', ''):
        # JSON, but not an object: no member (where it is JSON at all).
        text.value()
        text.end()
        return
    text.take('{')
    # The streamed keys met: a second of one is refused.
    seen = set()
    if text.peek() == '}':
        text.take('}')
    else:
        while True:
            key = text.value()
            if not isinstance(key, str):
                raise text.error('a name that is not a string')
            text.take(':')
            opening = ''
            if key in streamed:
                if key in seen:
                    raise Unreadable('JSON whose %r is given twice' % key)
                seen.add(key)
                opening = text.peek()
            if opening == '[':
                yield key, Part.ARRAY, None
                yield from _items(text, key)
            elif opening == '{':
                yield key, Part.OBJECT, None
                yield from _named(text, key)
            else:
                yield key, Part.WHOLE, text.value()
            if text.take(',}') == '}':
                break
    text.end()


def _items(text, key):
    """(key, Part.ITEM, item) of each item of the array that follows."""
    return _elements(text, key, '[]', Part.ITEM, text.value)


def _named(text, key):
    """(key, Part.MEMBER, (name, value)) of the object that follows."""
    def member():
        name = text.value()
        if not isinstance(name, str):
            raise text.error('a name that is not a string')
        text.take(':')
        return name, text.value()
    return _elements(text, key, '{}', Part.MEMBER, member)


def _elements(text, key, brackets, part, element):
    """(key, part, element()) of each element of what the brackets hold."""
    opening, closing = brackets
    text.take(opening)
    if text.peek() == closing:
        text.take(closing)
        return
    while True:
        yield key, part, element()
        if text.take(',' + closing) == closing:
            return
