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


UTC = datetime.timezone.utc


class TestParseTime(base.BaseTestCase):

    def test_naive_is_utc(self):
        self.assertEqual(datetime.datetime(2026, 1, 1, 10, 0, 0, 500,
                                           tzinfo=UTC),
                         state.parse_time('2026-01-01T10:00:00.000500'))

    def test_an_offset_is_kept_as_the_moment_it_names(self):
        self.assertEqual(datetime.datetime(2026, 1, 1, 8, tzinfo=UTC),
                         state.parse_time('2026-01-01T10:00:00+02:00'))
        self.assertEqual(datetime.datetime(2026, 1, 1, 15, tzinfo=UTC),
                         state.parse_time('2026-01-01T10:00:00-05:00'))
        self.assertEqual(datetime.datetime(2026, 1, 1, 10, tzinfo=UTC),
                         state.parse_time('2026-01-01T10:00:00Z'))

    def test_none(self):
        self.assertIsNone(state.parse_time(None))
        self.assertIsNone(state.parse_time(''))


CN1, CN3 = 'c' * 8 + '-0000-4000-8000-000000000001', \
    'c' * 8 + '-0000-4000-8000-000000000003'


def _cloud(servers=(), migrations=()):
    return state.Cloud(
        servers, migrations, [state.Hypervisor(CN1, 'compute', 'host1'),
                              state.Hypervisor(CN3, 'compute', 'host3')],
        [], {}, {})


class TestCloud(base.BaseTestCase):

    def test_a_server_s_hypervisor_is_that_of_its_host_and_name(self):
        cloud = _cloud()
        on = state.server({'id': 's', 'OS-EXT-SRV-ATTR:host': 'host3',
                           'OS-EXT-SRV-ATTR:hypervisor_hostname': 'compute'})
        self.assertEqual(CN3, cloud.server_provider(on))
        self.assertEqual(CN1, cloud.server_provider(on._replace(
            host='host1')))
        # The name alone is never enough.
        self.assertIsNone(cloud.server_provider(on._replace(host=None)))
        self.assertIsNone(cloud.server_provider(on._replace(host='host2')))

    def test_with_nova_replaces_the_servers_read_again(self):
        was = state.server({'id': 's1', 'status': 'ACTIVE'})
        other = state.server({'id': 's2', 'status': 'ACTIVE'})
        old = state.migration({'uuid': 'm1', 'instance_uuid': 's1',
                               'status': 'confirmed'})
        kept = state.migration({'uuid': 'm2', 'instance_uuid': 's2',
                                'status': 'running'})
        cloud = _cloud([was, other], [old, kept])
        new = state.migration({'uuid': 'm3', 'instance_uuid': 's1',
                               'status': 'running'})
        now = cloud.with_nova({'s1': None, 's3': other._replace(uuid='s3')},
                              [new])
        self.assertEqual(['s2', 's3'], sorted(now.servers))
        self.assertEqual(['m2', 'm3'], sorted(now.migrations))
        self.assertEqual(['m3'], [m.uuid for m in now.in_progress('s1')])
        # The cloud read first is as it was.
        self.assertEqual(['s1', 's2'], sorted(cloud.servers))
        self.assertEqual(cloud.now, now.now)
        self.assertEqual(cloud.grace, now.grace)
