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
that is JSON but not an object has no member.
"""

import json

import hypothesis
from hypothesis import strategies as st
from oslotest import base

from osc_placement.model import json_members
from osc_placement.tests.unit import strategies

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
    @hypothesis.given(st.text(max_size=12),
                      st.lists(st.integers(0, 4), max_size=6))
    def test_refused_as_json_loads_refuses_it(self, text, sizes):
        body = text.encode('utf-8')
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
