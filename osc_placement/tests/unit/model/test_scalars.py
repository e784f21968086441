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

"""Placement's scalars (``model/scalars.py``): its largest integer, UUIDs."""

from oslotest import base

from osc_placement.model import scalars

UUID = '8a0e7f2c-34b1-4f5e-9c3a-0d6b1e2f3a4b'


class TestScalars(base.BaseTestCase):

    def test_max_int_is_a_signed_32_bit_column(self):
        self.assertEqual(2 ** 31 - 1, scalars.MAX_INT)

    def test_uuid_like_as_python_reads_one(self):
        for value in (UUID, UUID.upper(), UUID.replace('-', ''),
                      '{%s}' % UUID, 'urn:uuid:' + UUID):
            self.assertTrue(scalars.is_uuid_like(value), value)
        for value in ('rp-1', '', None, 42, UUID[:-1]):
            self.assertFalse(scalars.is_uuid_like(value), value)

    def test_canonical_uuid(self):
        self.assertEqual(UUID, scalars.canonical_uuid(
            '{%s}' % UUID.upper().replace('-', '')))
        self.assertIsNone(scalars.canonical_uuid('rp-1'))
