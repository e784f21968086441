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

"""The seeded Nova is real: its own API and its own tools see the scenario.

Servers, migrations, hypervisors and host aggregates written with Nova's
object layer are what the compute API and ``openstack server list``
show; nova 34's ``nova-manage placement audit`` reports the orphans and
migration leftovers planted in Placement (and its false positive on the
sharing provider), ``heal_allocations --dry-run`` lists the server
without allocations and the one whose owner differs, and
``sync_aggregates`` adds the membership Placement lacks.
"""

from osc_placement.tests.e2e_nova import seeded
from osc_placement.tests.support import nova_seed as seed


class TestSeededNova(seeded.SeededNovaTestCase):

    def live_servers(self):
        return {uuid: s for uuid, s in self.scenario.servers.items()
                if not s['deleted']}

    def test_server_list_all_projects(self):
        with self.seeded.neutron.count_requests() as asked:
            rows = self.ok('server', 'list', '--all-projects', '--long',
                           '-f', 'json')
        self.assertEqual(
            sorted((uuid, s['name'], s['host'])
                   for uuid, s in self.live_servers().items()),
            sorted((r['ID'], r['Name'], r['Host']) for r in rows))
        # Nova asked the network API for the servers' ports.
        self.assertIn('/v2.0/ports', [r.uri.split('?')[0] for r in asked])

    def test_compute_api_servers(self):
        servers = self.compute(
            'GET', '/servers/detail?all_tenants=1')['servers']
        self.assertEqual(
            sorted((uuid, s['project'], s['user'], s['vm_state'],
                    s['task_state']) for uuid, s in
                   self.live_servers().items()),
            sorted((s['id'], s['tenant_id'], s['user_id'],
                    s['OS-EXT-STS:vm_state'], s['OS-EXT-STS:task_state'])
                   for s in servers))
        # The embedded flavor is the scenario's.
        flavors = {s['flavor']['original_name'] for s in servers}
        self.assertEqual({seed.FLAVOR['name']}, flavors)

    def test_compute_api_deleted_server(self):
        servers = self.compute(
            'GET', '/servers/detail?all_tenants=1&deleted=true')['servers']
        self.assertEqual([(seed.SRV_DELETED, 'DELETED')],
                         [(s['id'], s['status']) for s in servers])

    def test_migrations(self):
        migrations = self.compute('GET', '/os-migrations',
                                  version='2.80')['migrations']
        self.assertEqual(
            sorted((m['uuid'], m['server'], m['status'], m['source'],
                    m['dest']) for m in self.scenario.nova['migrations']),
            sorted((m['uuid'], m['instance_uuid'], m['status'],
                    m['source_compute'], m['dest_compute'])
                   for m in migrations))

    def test_hypervisors(self):
        hypervisors = self.compute('GET',
                                   '/os-hypervisors/detail')['hypervisors']
        self.assertEqual(
            sorted((h['uuid'], h['host']) for h in
                   self.scenario.nova['hosts']),
            sorted((h['id'], h['service']['host']) for h in hypervisors))
        self.assertEqual({'up 1 day'}, {h['uptime'] for h in hypervisors})
        rows = self.ok('hypervisor', 'list', '-f', 'json')
        self.assertEqual(['cmp-1', 'cmp-2', 'cmp-3'],
                         sorted(r['Hypervisor Hostname'] for r in rows))

    def test_aggregates(self):
        aggregates = self.compute('GET', '/os-aggregates')['aggregates']
        self.assertEqual(
            sorted((a['uuid'], a['name'], a['hosts'])
                   for a in self.scenario.nova['aggregates']),
            sorted((a['uuid'], a['name'], a['hosts']) for a in aggregates))

    def test_nova_manage_audit(self):
        audit = self.nova_manage.audit()
        self.assertEqual(3, audit.run.code, audit.run)
        # Every orphan and leftover of Nova's classes, where it is; the
        # custom class's orphan is not Nova's, so not reported; the live
        # server's disk on the sharing provider is its false positive.
        self.assertEqual(
            sorted([(seed.SRV_DELETED, seed.CMP1),
                    (seed.NEVER_SERVER, seed.CMP2),
                    (seed.NEVER_SERVER_VGPU, seed.CMP1_GPU),
                    (seed.MIG_CONFIRMED, seed.CMP1),
                    (seed.SRV_EVACUATED, seed.CMP1),
                    (seed.SRV_WRONG_HOST, seed.CMP3),
                    (seed.SRV_SHARED, seed.SHARED)]),
            sorted((o.consumer, o.provider) for o in audit.orphans))
        self.assertEqual({'DISK_GB': 20}, [
            o.resources for o in audit.orphans
            if o.provider == seed.SHARED][0])
        # The providers whose root is no compute node.
        self.assertEqual(sorted([seed.STALE, seed.SHARED]),
                         audit.no_compute_node)

    def test_nova_manage_heal_dry_run(self):
        before = self.allocations()
        heal = self.nova_manage.heal()
        self.assertEqual(4, heal.run.code, heal.run)
        self.assertEqual(
            {seed.SRV_NO_ALLOC: {
                'allocations': {seed.CMP3: {
                    'resources': seed.FLAVOR_RESOURCES}},
                'project_id': seed.PROJECT, 'user_id': seed.USER,
                'consumer_generation': None}}, heal.create)
        self.assertEqual([seed.SRV_OWNER], list(heal.update))
        update = heal.update[seed.SRV_OWNER]
        self.assertEqual(
            ({seed.CMP1: {'resources': seed.FLAVOR_RESOURCES}},
             seed.PROJECT, seed.USER),
            ({rp: {'resources': a['resources']}
              for rp, a in update['allocations'].items()},
             update['project_id'], update['user_id']))
        self.assertEqual({seed.SRV_BUILDING: 'spawning'}, heal.task_state)
        # A dry run.
        self.assertEqual(before, self.allocations())

    def test_nova_manage_sync_aggregates(self):
        before = {rp: self.provider_aggregates(rp)[0]
                  for rp in (seed.CMP1, seed.CMP2, seed.CMP3)}
        sync = self.nova_manage.sync_aggregates()
        after = {rp: self.provider_aggregates(rp)
                 for rp in (seed.CMP1, seed.CMP2, seed.CMP3)}
        # Leave the class's cloud as seeded.
        aggs, generation = after[seed.CMP2]
        self.addCleanup(
            self.placement, 'PUT', '/resource_providers/%s/aggregates'
            % seed.CMP2, {'aggregates': before[seed.CMP2],
                          'resource_provider_generation': generation})
        self.assertEqual(0, sync.run.code, sync.run)
        self.assertEqual(
            sorted([('cmp-1', seed.CMP1, seed.AGG_MIRRORED),
                    ('cmp-2', seed.CMP2, seed.AGG_UNMIRRORED)]),
            sync.added)
        # What it added: cmp-2 to its aggregate; it removes nothing (cmp-3
        # stays in agg-mirrored, where Nova does not have it).
        self.assertEqual(
            {seed.CMP1: before[seed.CMP1],
             seed.CMP2: sorted(before[seed.CMP2] + [seed.AGG_UNMIRRORED]),
             seed.CMP3: before[seed.CMP3]},
            {rp: a[0] for rp, a in after.items()})
