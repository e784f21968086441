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

"""osc_placement.cli.drain: what Nova's state adds to the plan's inputs.

The reads are tested through the command, on a real Placement
(``tests/functional/test_drain.py``).
"""

from oslotest import base

from osc_placement.api import drain as drain_api
from osc_placement.cli import drain
from osc_placement.model.audit import state
from osc_placement.model.drain import cloud
from osc_placement.model.drain import search

NOVA = drain_api.Nova(
    servers={'s1': state.Server(
        uuid='s1', name='vm', status='ACTIVE', task_state=None,
        project_id='p', user_id='u', node='cn1',
        flavor={'name': 'f', 'vcpus': 1, 'ram': 512, 'disk': 1,
                'ephemeral': 0, 'swap': 0,
                'extra_specs': {'trait:CUSTOM_GOLD': 'required'}},
        boot_from_volume=False, host='h1', zone='az1', pinned_zone='az1')},
    migrations={}, nodes={'cn2': state.Hypervisor('cn2', 'cn2', 'h2')},
    zones={'h2': 'az1'}, pinned_known=True)
RECORD = {'allocations': {'cn1': {'resources': {'VCPU': 1}}}}
PROVIDERS = {'cn1': cloud.Provider('cn1', 'cn1', 'cn1', None)}


def _row(consumer, target):
    return search.Row(consumer, '', 'cn1', target, {}, '', None)


class TestConstraints(base.BaseTestCase):

    def constraints(self, uuid, nova=NOVA):
        asked = drain._asked(uuid, nova) if nova else None
        return drain._constraints(uuid, RECORD, nova, asked, PROVIDERS,
                                  ['cn1'])

    def test_a_server_s_traits_and_zone(self):
        found = self.constraints('s1')
        self.assertEqual('vm (ACTIVE)', found['server'])
        self.assertEqual({'cn1': cloud.Need(frozenset(['CUSTOM_GOLD']))},
                         found['needs'])
        self.assertEqual((frozenset(['zone:az1']),), found['member_of'])

    def test_no_server_stays(self):
        found = self.constraints('x')
        self.assertEqual('', found['server'])
        self.assertIn('orphan', found['stays'])

    def test_without_nova_nothing(self):
        self.assertEqual({}, self.constraints('s1', nova=None))


class TestAggregates(base.BaseTestCase):

    def test_a_target_root_has_its_zone_and_pools(self):
        self.assertEqual(frozenset(['agg', 'zone:az1']), drain._aggregates(
            'cn2', {'uuid': 'cn2'}, {}, {'agg': ['cn2']}, NOVA))

    def test_a_sharing_provider_has_its_own(self):
        self.assertEqual(frozenset(['agg']), drain._aggregates(
            'pool', {'uuid': 'pool'}, {'pool': ['agg']}, {}, NOVA))


class TestCommand(base.BaseTestCase):

    def test_the_migrate_line_of_a_moved_server(self):
        read = drain.Read(cloud=None, nova=NOVA)
        self.assertEqual(
            'openstack server migrate --live-migration --host h2 s1',
            drain.command(read, _row('s1', 'cn2')))
        self.assertEqual('', drain.command(read, _row('s1', None)))
        self.assertEqual('', drain.command(read, _row('x', 'cn2')))
        self.assertEqual('', drain.command(drain.Read(None, None),
                                           _row('s1', 'cn2')))

    def test_a_stopped_server_is_migrated_cold(self):
        stopped = NOVA.servers['s1']._replace(status='SHUTOFF')
        read = drain.Read(cloud=None, nova=drain_api.Nova(
            servers={'s1': stopped}, migrations={}, nodes=NOVA.nodes,
            zones=NOVA.zones, pinned_known=True))
        self.assertEqual('openstack server migrate --host h2 s1',
                         drain.command(read, _row('s1', 'cn2')))
