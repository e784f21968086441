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

"""osc_placement.model.audit.state: the compute API's bodies, typed."""

import datetime

from oslotest import base

from osc_placement.model.audit import state


class TestParse(base.BaseTestCase):

    def test_a_down_cell_s_server(self):
        found = state.server({'id': 'x', 'status': 'UNKNOWN'})
        self.assertTrue(found.unknown)
        self.assertIsNone(found.flavor)
        self.assertEqual('x (UNKNOWN)', found.shown())

    def test_boot_from_volume_has_no_image(self):
        self.assertTrue(state.server({'id': 'x', 'image': ''})
                        .boot_from_volume)
        self.assertFalse(state.server({'id': 'x', 'image': {'id': 'i'}})
                         .boot_from_volume)

    def test_migration_time_and_status(self):
        found = state.migration({'uuid': 'm', 'instance_uuid': 's',
                                 'status': 'Confirmed',
                                 'updated_at': '2026-01-01T10:00:00.000000'})
        self.assertTrue(found.ended)
        self.assertEqual(datetime.datetime(
            2026, 1, 1, 10, tzinfo=datetime.timezone.utc), found.updated_at)

    def test_migration_without_update_time_takes_its_creation(self):
        found = state.migration({'uuid': 'm', 'status': 'running',
                                 'created_at': '2026-01-01T10:00:00Z'})
        self.assertFalse(found.ended)
        self.assertEqual(10, found.updated_at.hour)

    def test_foreign_provider(self):
        body = {'uuid': 'r'}
        self.assertTrue(state.provider(body, ['OWNER_CYBORG']).foreign)
        self.assertFalse(state.provider(body, ['OWNER_CYBORG',
                                               'OWNER_NOVA']).foreign)
        self.assertFalse(state.provider(body, ['COMPUTE_NODE']).foreign)

    def test_compute_root(self):
        self.assertTrue(state.provider({'uuid': 'r'},
                                       ['COMPUTE_NODE']).compute_root)
        self.assertFalse(state.provider(
            {'uuid': 'c', 'root_provider_uuid': 'r'},
            ['COMPUTE_NODE']).compute_root)
