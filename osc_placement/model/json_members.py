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
reads are those of ``json.loads``.
"""

import codecs
import enum
import json

# JSON's white space (RFC 8259).
_SPACE = ' \t\n\r'
# What may follow a value inside an object or an array (a name: its colon);
# a value that the text held ends with may go on in the next chunk.
_AFTER_VALUE = ',:]}' + _SPACE
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


class _Text(object):
    """The body's text, read a chunk at a time as the walk needs it."""

    def __init__(self, chunks):
        self._chunks = iter(chunks)
        self._utf8 = codecs.getincrementaldecoder('utf-8')('replace')
        self.text = ''
        self.pos = 0
        self.ended = False
        self.head = ''

    def more(self):
        """Read one more chunk (False: there is none)."""
        if self.ended:
            return False
        chunk = next(self._chunks, None)
        if chunk is None:
            self.ended = True
            decoded = self._utf8.decode(b'', final=True)
        else:
            decoded = self._utf8.decode(chunk)
        if len(self.head) < HEAD_CHARS:
            self.head += decoded[:HEAD_CHARS - len(self.head)]
        self.text = self.text[self.pos:] + decoded
        self.pos = 0
        return True

    def peek(self):
        """The next character that is not white space ('': the end)."""
        while True:
            while self.pos < len(self.text) and self.text[self.pos] in _SPACE:
                self.pos += 1
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
            else:
                if self.ended or (end < len(self.text)
                                  and self.text[end] in _AFTER_VALUE):
                    self.pos = end
                    return value
            # Read until the text held has doubled: each value is decoded
            # a bounded number of times, however it is cut.
            wanted = 2 * (len(self.text) - self.pos) + 1
            while len(self.text) - self.pos < wanted and self.more():
                pass

    def end(self):
        """Nothing but white space is left."""
        if self.peek():
            raise self.error('extra data after the object')

    def error(self, why):
        """The :class:`NotJSON` of the body, its start kept."""
        while len(self.head) < HEAD_CHARS and self.more():
            pass
        return NotJSON(why, self.head)


def members(chunks, streamed=()):
    """Yield (key, Part, value) for the members of one JSON object.

    chunks: the body's bytes (UTF-8), in pieces of any size. A member of
    a key in ``streamed`` whose value is an array gives (key,
    ``Part.ARRAY``, None), then (key, ``Part.ITEM``, item) per item; an
    object, (key, ``Part.OBJECT``, None), then (key, ``Part.MEMBER``,
    (name, value)) per member. Any other member gives (key,
    ``Part.WHOLE``, value). A body that is JSON but not an object has no
    member. Raises :class:`NotJSON` where the body is not JSON.
    """
    text = _Text(chunks)
    if text.peek() not in ('{', ''):
        # JSON, but not an object: no member (where it is JSON at all).
        text.value()
        text.end()
        return
    text.take('{')
    if text.peek() == '}':
        text.take('}')
    else:
        while True:
            key = text.value()
            if not isinstance(key, str):
                raise text.error('a name that is not a string')
            text.take(':')
            opening = text.peek() if key in streamed else ''
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
