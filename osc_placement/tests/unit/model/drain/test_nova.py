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

"""osc_placement.model.drain.nova: Nova's state as the plan's terms."""

from oslotest import base

from osc_placement.model.audit import state
from osc_placement.model.drain import cloud
from osc_placement.model.drain import nova
from osc_placement.tests.unit.model.drain import clouds

FLAVOR = {'name': 'f', 'vcpus': 2, 'ram': 1024, 'disk': 10, 'ephemeral': 0,
          'swap': 0, 'extra_specs': {}}


def _server(uuid='s1', status='ACTIVE', task_state=None, specs=None,
            zone=None, pinned=None, flavor=True):
    return state.Server(
        uuid=uuid, name='vm', status=status, task_state=task_state,
        project_id='p', user_id='u', node='cn1',
        flavor=dict(FLAVOR, extra_specs=dict(specs or {})) if flavor
        else None, boot_from_volume=False, host='h1', zone=zone,
        pinned_zone=pinned)


def _migration(uuid, server, status):
    return state.Migration(uuid, server, status, 'cn1', 'cn2', None)


class TestStays(base.BaseTestCase):

    def test_a_server_that_may_move(self):
        self.assertIsNone(nova.stays('s1', _server(), {}))

    def test_each_rule(self):
        moving = {'m1': _migration('m1', 's1', 'running')}
        cases = [
            ('x', None, {}, 'an orphan'),
            ('m1', None, moving, 'a migration in progress of server s1'),
            ('m2', None, {'m2': _migration('m2', 's1', 'confirmed')},
             'which is confirmed: an orphan'),
            ('s1', _server(status='DELETED'), {}, 'deleted'),
            ('s1', _server(status='UNKNOWN'), {}, 'cell is down'),
            ('s1', _server(status='BUILD'), {}, 'building'),
            ('s1', _server(task_state='resize_prep'), {},
             'task state resize_prep'),
            ('s1', _server(), moving, 'in a migration in progress (running)'),
            ('s1', _server(flavor=False), {}, 'no flavor'),
        ]
        for uuid, server, migrations, said in cases:
            self.assertIn(said, nova.stays(uuid, server, migrations))

    def test_an_ended_migration_of_the_server_does_not_hold_it(self):
        ended = {'m1': _migration('m1', 's1', 'completed')}
        self.assertIsNone(nova.stays('s1', _server(), ended))


class TestNeeds(base.BaseTestCase):

    def providers(self):
        return {p.uuid: p for p in (
            clouds.host('cn1'),
            clouds.child('gpu-a', 'cn1', {'VGPU': clouds.inv(2)}),
            clouds.child('gpu-b', 'cn1', {'VGPU': clouds.inv(2)},
                         traits=['CUSTOM_FAST']))}

    def test_root_traits_of_the_unnamed_group(self):
        request = nova.request(_server(specs={
            'trait:CUSTOM_GOLD': 'required',
            'trait:CUSTOM_SLOW': 'forbidden'}))
        found = nova.needs(request, {'cn1': {'VCPU': 2}}, self.providers(),
                           'cn1')
        self.assertEqual({'cn1': cloud.Need(frozenset(['CUSTOM_GOLD']),
                                            frozenset(['CUSTOM_SLOW']))},
                         found)

    def test_a_granular_group_goes_with_the_child_that_meets_it(self):
        request = nova.request(_server(specs={
            'resources1:VGPU': '1', 'trait1:CUSTOM_FAST': 'required'}))
        held = {'cn1': {'VCPU': 2}, 'gpu-a': {'VGPU': 1},
                'gpu-b': {'VGPU': 1}}
        found = nova.needs(request, held, self.providers(), 'cn1')
        self.assertEqual(
            {'gpu-b': cloud.Need(frozenset(['CUSTOM_FAST']), frozenset())},
            found)

    def test_traits_of_requests(self):
        requests = [nova.request(_server(specs={
            'trait:CUSTOM_GOLD': 'required', 'resources1:VGPU': '1',
            'trait1:CUSTOM_FAST': 'forbidden'}))]
        self.assertEqual({'CUSTOM_GOLD', 'CUSTOM_FAST'},
                         nova.traits_of(requests))

    def test_a_flavor_nova_refuses(self):
        self.assertRaises(nova.Untranslatable, nova.request, _server(
            specs={'hw:cpu_policy': 'sometimes'}))


class TestZone(base.BaseTestCase):

    def test_pinned_zone_when_known(self):
        server = _server(zone='az1', pinned='az2')
        self.assertEqual((frozenset(['zone:az2']),), nova.zone(server, True))
        self.assertEqual((), nova.zone(_server(zone='az1'), True))

    def test_current_zone_when_pinning_is_unknown(self):
        self.assertEqual((frozenset(['zone:az1']),),
                         nova.zone(_server(zone='az1'), False))

    def test_zone_name(self):
        self.assertEqual('availability zone az1',
                         nova.zone_name(nova.zone_key('az1')))


class TestElsewhere(base.BaseTestCase):

    def test_a_server_on_the_drained_hypervisor_may_move(self):
        self.assertIsNone(nova.elsewhere(_server(), {('h1', 'cn1')}))
        self.assertIsNone(nova.elsewhere(None, set()))

    def test_a_server_on_another_hypervisor_stays(self):
        self.assertEqual(
            'its server is on hypervisor cn1 (host h1): these allocations '
            'are left over (see resource provider audit)',
            nova.elsewhere(_server(), {('h2', 'cn2')}))
        # The same host, another of its nodes (Ironic).
        self.assertIsNotNone(nova.elsewhere(_server(), {('h1', 'cn9')}))

    def test_a_server_on_no_host_stays(self):
        self.assertIn('on no host', nova.elsewhere(
            _server()._replace(host=None, node=None), {('h1', 'cn1')}))


class TestStatus(base.BaseTestCase):

    def test_a_status_nova_migrates_no_server_in_stays(self):
        for status in ('SUSPENDED', 'ERROR', 'RESCUE', 'VERIFY_RESIZE'):
            self.assertEqual(
                'its server is %s: Nova migrates ACTIVE and PAUSED servers '
                'live, SHUTOFF ones cold, no other' % status,
                nova.stays('s1', _server(status=status), {}))

    def test_live_or_cold_may_move(self):
        for status in ('ACTIVE', 'PAUSED', 'SHUTOFF'):
            self.assertIsNone(nova.stays('s1', _server(status=status), {}))
