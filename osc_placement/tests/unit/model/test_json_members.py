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

"""The members of a JSON object decoded as it arrives (json_members).

Property tests: whatever the object and however its bytes are cut into
chunks, the members (and the items of the streamed ones) are those of
``json.loads``; a body ``json.loads`` refuses is refused, one
that is JSON but not an object has no member. Refused though
``json.loads`` takes them: a streamed key given twice, values nested
deeper than the decoder goes (``json.loads`` raises RecursionError).
"""

import codecs
import json

import fixtures
import hypothesis
from hypothesis import strategies as st
from oslotest import base
import testscenarios

from osc_placement.model import json_members
from osc_placement.tests.unit import strategies

load_tests = testscenarios.load_tests_apply_scenarios

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(),
    st.floats(allow_nan=False, allow_infinity=False), st.text())
VALUES = st.recursive(
    SCALARS, lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=4), inner, max_size=4)),
    max_leaves=12)
OBJECTS = st.dictionaries(
    st.sampled_from(['a', 'b', 'list', 'dict', 'é\\"']), VALUES, max_size=5)
STREAMED = ('list', 'dict')


def chunked(body, sizes):
    """The body cut into pieces of the sizes (the last as long as left)."""
    chunks, start = [], 0
    for size in sizes:
        chunks.append(body[start:start + size])
        start += size
    return chunks + [body[start:]]


def rebuilt(chunks):
    """The object json_members hands over, put together again."""
    found = {}
    for key, part, value in json_members.members(chunks, STREAMED):
        if part is json_members.Part.ARRAY:
            found[key] = []
        elif part is json_members.Part.ITEM:
            found[key].append(value)
        elif part is json_members.Part.OBJECT:
            found[key] = {}
        elif part is json_members.Part.MEMBER:
            found[key][value[0]] = value[1]
        else:
            found[key] = value
    return found


class TestMembers(base.BaseTestCase):

    @strategies.SETTINGS
    @hypothesis.given(OBJECTS, st.lists(st.integers(0, 9), max_size=40),
                      st.sampled_from([None, 0, 2]))
    def test_the_object_whatever_its_chunks(self, document, sizes, indent):
        body = json.dumps(document, indent=indent,
                          ensure_ascii=False).encode('utf-8')
        self.assertEqual(document, rebuilt(chunked(body, sizes)))

    @strategies.SETTINGS
    @hypothesis.given(OBJECTS, st.lists(st.integers(0, 9), max_size=40))
    def test_a_bom_at_the_start_is_dropped(self, document, sizes):
        body = codecs.BOM_UTF8 + json.dumps(document).encode('utf-8')
        self.assertEqual(json.loads(body), rebuilt(chunked(body, sizes)))

    @strategies.SETTINGS
    @hypothesis.given(st.sampled_from([b'', codecs.BOM_UTF8]),
                      st.text(max_size=12),
                      st.lists(st.integers(0, 4), max_size=6))
    def test_refused_as_json_loads_refuses_it(self, bom, text, sizes):
        body = bom + text.encode('utf-8')
        try:
            loaded = json.loads(body)
        except ValueError:
            self.assertRaises(json_members.NotJSON, rebuilt,
                              chunked(body, sizes))
            return
        expected = loaded if isinstance(loaded, dict) else {}
        self.assertEqual(expected, rebuilt(chunked(body, sizes)))

    def test_a_number_cut_between_chunks_is_read_whole(self):
        self.assertEqual({'a': [12.5e3, 7]},
                         rebuilt([b'{"a": [1', b'2.', b'5e', b'3, 7]}']))

    def test_the_error_keeps_the_start_of_the_body(self):
        exc = self.assertRaises(json_members.NotJSON, rebuilt,
                                [b'<html>', b'Please log in</html>'])
        self.assertEqual('<html>Please log in</html>', exc.head)

    def test_items_are_handed_over_as_they_arrive(self):
        seen = []

        def chunks():
            for piece in (b'{"list": [', b'{"n": 1},', b'{"n": 2}', b']}'):
                seen.append(piece)
                yield piece
        walk = json_members.members(chunks(), STREAMED)
        self.assertEqual(('list', json_members.Part.ARRAY, None), next(walk))
        self.assertEqual(('list', json_members.Part.ITEM, {'n': 1}),
                         next(walk))
        # Not a chunk past the item's own.
        self.assertEqual(2, len(seen))


class TestRefused(base.BaseTestCase):
    """JSON this reader does not take: one error to make one line of."""

    scenarios = [
        ('nested-array', {'body': b'[' * 100000}),
        ('nested-in-a-streamed-item', {
            'body': b'{"list": [1, ' + b'[' * 100000}),
        ('nested-in-a-member', {
            'body': b'{"a": ' + b'{"a": ' * 50000 + b'1' + b'}' * 50001}),
    ]

    def test_deep_nesting_is_one_error(self):
        exc = self.assertRaises(json_members.Unreadable, rebuilt,
                                chunked(self.body, [65536] * 100))
        self.assertEqual('JSON nested too deeply', str(exc))


class TestRepeated(base.BaseTestCase):

    scenarios = [
        ('array-twice', {'body': b'{"list": [1], "list": [2]}',
                         'key': 'list'}),
        ('then-not-an-array', {'body': b'{"list": [1], "a": 2, "list": 3}',
                               'key': 'list'}),
        ('object-twice', {'body': b'{"dict": {}, "dict": {"b": 1}}',
                          'key': 'dict'}),
    ]

    def test_a_streamed_key_given_twice_is_refused(self):
        exc = self.assertRaises(json_members.Unreadable, rebuilt,
                                [self.body])
        self.assertEqual('JSON whose %r is given twice' % self.key, str(exc))


class TestRepeatedNotStreamed(base.BaseTestCase):

    def test_each_is_handed_over(self):
        self.assertEqual(
            [('a', json_members.Part.WHOLE, 1),
             ('a', json_members.Part.WHOLE, 2)],
            list(json_members.members([b'{"a": 1, "a": 2}'], STREAMED)))


class TestLinear(base.BaseTestCase):
    """A value of many chunks is not copied again at each chunk.

    No clock: the text the reader holds is looked at each time it asks
    for a chunk; the sizes of the distinct texts it built add up to what
    was copied, which must stay within a few times the body's size (one
    copy per chunk would be about chunks / 2 times).
    """

    def copied(self, body, size):
        readers = []

        class Watched(json_members._Text):
            def __init__(self, chunks):
                super().__init__(chunks)
                readers.append(self)

        self.useFixture(fixtures.MonkeyPatch(
            'osc_placement.model.json_members._Text', Watched))
        built = set()

        def chunks():
            for start in range(0, len(body), size):
                built.add((id(readers[0].text), len(readers[0].text)))
                yield body[start:start + size]
        found = rebuilt(chunks())
        built.add((id(readers[0].text), len(readers[0].text)))
        return found, sum(length for _id, length in built)

    def test_a_long_string(self):
        text = 'x' * (1 << 18)
        body = json.dumps({'a': text, 'list': [1]}).encode('utf-8')
        found, copied = self.copied(body, 1024)
        self.assertEqual({'a': text, 'list': [1]}, found)
        self.assertLess(copied, 4 * len(body))

    def test_many_items(self):
        items = [{'n': n} for n in range(20000)]
        body = json.dumps({'list': items}).encode('utf-8')
        found, copied = self.copied(body, 1024)
        self.assertEqual({'list': items}, found)
        self.assertLess(copied, 4 * len(body))


class TestShared(base.BaseTestCase):

    @strategies.SETTINGS
    @hypothesis.given(st.lists(VALUES, max_size=6))
    def test_each_value_is_the_first_equal_one(self, values):
        shared = json_members.Shared()
        kept = [shared(json.loads(json.dumps(value))) for value in values]
        self.assertEqual(values, kept)
        # An equal value read again (a new object) gives the one kept.
        for one, value in zip(kept, values):
            self.assertIs(one, shared(json.loads(json.dumps(value))))

    def test_keys_in_another_order_are_the_same_value(self):
        shared = json_members.Shared()
        first = shared({'VCPU': {'total': 8}, 'DISK_GB': {'total': 1}})
        self.assertIs(first, shared({'DISK_GB': {'total': 1},
                                     'VCPU': {'total': 8}}))
        self.assertIsNot(first, shared({'VCPU': {'total': 9},
                                        'DISK_GB': {'total': 1}}))
