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

"""resource provider drain plan on the seeded Nova.

Six more hosts join the seeded cloud (Nova's services, compute nodes,
servers, a zone's host aggregate through its object layer; their
providers and allocations in Placement), after every other class on it
(``cloud_turn``). Each compute node's hypervisor hostname differs from
its service host (``drn-1.node`` on host ``drn-1``), as with Ironic or
a FQDN: the rows name the providers, the commands the hosts.

``drn-5``, the emptiest, has its service disabled in Nova only (no
compute runs to set ``COMPUTE_STATUS_DISABLED`` on its provider).
``drn-1`` (in zone ``az-drain``) is drained. Its servers: ``srv-plain``
(goes where there is most free memory: ``drn-2``), two servers whose
flavor requires ``CUSTOM_DRAIN_GOLD``, which only ``drn-3`` has, with
room for one of them, ``srv-pinned``, booted into ``az-drain`` (its
request spec's zone, compute 2.96's ``pinned_availability_zone``), whose
only other host is ``drn-4``, and ``srv-busy``, in a task state. The
proof is Placement's: the ``allocations`` of every server the plan
moves, written as ONE ``POST /allocations`` with the consumers'
generations, owners and types, are accepted; then undone.
"""

import json

from osc_placement import tests
from osc_placement.tests.e2e_nova import seeded
from osc_placement.tests.support import cloud
from osc_placement.tests.support import nova_seed as seed

DRAIN = ('resource', 'provider', 'drain', 'plan')


def _uuid(kind, n):
    return '%s0000-0000-4000-8000-%012d' % (kind, n)


DRN1, DRN2, DRN3, DRN4, DRN5, DRN6 = (_uuid('d7a1', n) for n in range(1, 7))
SRV_PLAIN, SRV_GOLD1, SRV_GOLD2, SRV_PINNED, SRV_BUSY, SRV_OTHER, \
    SRV_STOPPED, SRV_SUSPENDED = (_uuid('d75e', n) for n in range(1, 9))
AGG_ZONE = _uuid('d7a9', 1)
ZONE = 'az-drain'
GOLD = 'CUSTOM_DRAIN_GOLD'

FLAVOR = {'name': 'm1.drain', 'flavorid': 'drain-1', 'vcpus': 2,
          'memory_mb': 4096, 'root_gb': 20, 'ephemeral_gb': 0, 'swap': 0,
          'extra_specs': {}}
GOLD_FLAVOR = dict(FLAVOR, name='m1.drain-gold', flavorid='drain-gold',
                   vcpus=4, extra_specs={'trait:%s' % GOLD: 'required'})


def _held(flavor):
    return {'VCPU': flavor['vcpus'], 'MEMORY_MB': flavor['memory_mb'],
            'DISK_GB': flavor['root_gb']}


# host, compute node UUID, VCPU, MEMORY_MB, traits
HOSTS = (
    ('drn-1', DRN1, 32, 65536, []),
    ('drn-2', DRN2, 16, 262144, []),
    ('drn-3', DRN3, 4, 131072, [GOLD]),
    ('drn-4', DRN4, 16, 65536, []),
    # The emptiest, but its service is disabled in Nova (and no compute
    # runs to set COMPUTE_STATUS_DISABLED on its provider).
    ('drn-5', DRN5, 64, 524288, []),
    ('drn-6', DRN6, 8, 16384, []),
)

# uuid, name, host, flavor, extra fields of the server's specification
SERVERS = (
    (SRV_PLAIN, 'srv-plain', 'drn-1', FLAVOR, {}),
    (SRV_GOLD1, 'srv-gold-1', 'drn-1', GOLD_FLAVOR, {}),
    (SRV_GOLD2, 'srv-gold-2', 'drn-1', GOLD_FLAVOR, {}),
    (SRV_PINNED, 'srv-pinned', 'drn-1', FLAVOR, {'pinned_zone': ZONE}),
    (SRV_BUSY, 'srv-busy', 'drn-1', FLAVOR, {'task_state': 'migrating'}),
    (SRV_OTHER, 'srv-other', 'drn-2', FLAVOR, {}),
    (SRV_STOPPED, 'srv-stopped', 'drn-2', FLAVOR, {'vm_state': 'stopped'}),
    (SRV_SUSPENDED, 'srv-suspended', 'drn-6', FLAVOR,
     {'vm_state': 'suspended'}),
)


def scenario():
    """The drain's hosts and servers, to seed into the seeded cloud."""
    hosts = [{'host': host, 'node': host + '.node', 'uuid': uuid,
              'vcpus': vcpus, 'memory_mb': memory, 'local_gb': 1000,
              'disabled': host == 'drn-5'}
             for host, uuid, vcpus, memory, _traits in HOSTS]
    servers = []
    for uuid, name, host, flavor, extra in SERVERS:
        spec = {'uuid': uuid, 'name': name, 'flavor': flavor['name'],
                'host': host, 'image': seed.IMAGE, 'project': seed.PROJECT,
                'user': seed.USER, 'vm_state': 'active', 'task_state': None,
                'deleted': False, 'launched': '2026-01-01T00:00:00'}
        spec.update(extra)
        servers.append(spec)
    nova = {'flavors': [FLAVOR, GOLD_FLAVOR], 'hosts': hosts,
            'servers': servers,
            'aggregates': [{'name': 'agg-drain', 'uuid': AGG_ZONE,
                            'hosts': ['drn-1', 'drn-4'], 'zone': ZONE}]}
    providers = [
        (host + '.node', uuid, None,
         {'VCPU': {'total': vcpus}, 'MEMORY_MB': {'total': memory},
          'DISK_GB': {'total': 1000}},
         ['COMPUTE_NODE'] + traits,
         [AGG_ZONE] if host in ('drn-1', 'drn-4') else [])
        for host, uuid, vcpus, memory, traits in HOSTS]
    nodes = {host: uuid for host, uuid, *_rest in HOSTS}
    allocations = [(uuid, 'INSTANCE', seed.PROJECT, seed.USER,
                    {nodes[host]: _held(flavor)})
                   for uuid, _name, host, flavor, _extra in SERVERS]
    return seed.Scenario(nova, providers, allocations, {}, [])


class TestDrainPlan(seeded.SeededNovaTestCase):

    # After every other class on the seeded cloud: it adds hosts.
    cloud_turn = 3

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cloud.create_names(cls.cloud.placement.endpoint, [GOLD], (),
                           token=cls.cloud.token)
        seed.seed(cls.cloud, scenario())

    def plan(self, *argv):
        """(rows, stderr, exit code) of a plan, --long -f json."""
        res = self.openstack(*(DRAIN + argv + ('--long', '-f', 'json')))
        rows = json.loads(res.stdout) if res.stdout.strip() else None
        return rows, res.stderr, res.returncode

    def prove(self, rows):
        """ONE POST /allocations of the plan's moves: accepted, undone.

        The consumers' generations, owners and types are Placement's.
        """
        moved = {row['consumer']: row['allocations'] for row in rows
                 if row['to']}
        before = {c: self.placement('GET', '/allocations/' + c)
                  for c in moved}

        def body(consumer, allocations, generation):
            return tests.allocations_entry(before[consumer], allocations,
                                           generation)
        self.placement('POST', '/allocations', {
            c: body(c, allocations, before[c]['consumer_generation'])
            for c, allocations in moved.items()})
        after = {c: self.placement('GET', '/allocations/' + c)
                 for c in moved}
        self.placement('POST', '/allocations', {
            c: body(c, {rp: held['resources'] for rp, held in
                        before[c]['allocations'].items()},
                    after[c]['consumer_generation']) for c in moved})
        self.assertEqual(
            {c: {rp: held['resources'] for rp, held in
                 before[c]['allocations'].items()} for c in moved},
            {c: {rp: held['resources'] for rp, held in self.placement(
                'GET', '/allocations/' + c)['allocations'].items()}
             for c in moved})
        return {c: {rp: held['resources'] for rp, held in
                    after[c]['allocations'].items()} for c in moved}

    def test_plan_respects_traits_zone_and_task_state(self):
        rows, err, code = self.plan('drn-1.node')
        self.assertEqual(3, code, err)
        self.assertEqual(['3 of 5 consumers can move; 2 cannot.'],
                         err.splitlines())
        found = {row['consumer']: row for row in rows}
        self.assertEqual(
            {SRV_PLAIN, SRV_GOLD1, SRV_GOLD2, SRV_PINNED, SRV_BUSY},
            set(found))
        self.assertEqual({'drn-1.node'}, {row['from'] for row in rows})
        # The emptiest enabled target; the zone's other host, not the
        # emptiest.
        self.assertEqual(('drn-2.node', ''), (found[SRV_PLAIN]['to'],
                                              found[SRV_PLAIN]['reason']))
        self.assertEqual(('drn-4.node', ''), (found[SRV_PINNED]['to'],
                                              found[SRV_PINNED]['reason']))
        # Room on drn-3, the only host with the trait, for one of them.
        self.assertEqual(
            [('', 'needs VCPU=4: 1 target tree (with trait '
                  'CUSTOM_DRAIN_GOLD) could hold it alone, none after the '
                  'other moves'), ('drn-3.node', '')],
            sorted((found[c]['to'], found[c]['reason'])
                   for c in (SRV_GOLD1, SRV_GOLD2)))
        self.assertEqual(('', 'its server has task state migrating'),
                         (found[SRV_BUSY]['to'], found[SRV_BUSY]['reason']))
        self.assertEqual('srv-pinned (ACTIVE)', found[SRV_PINNED]['server'])
        # The commands name the services' hosts, not the nodes.
        hosts = {'drn-2.node': 'drn-2', 'drn-3.node': 'drn-3',
                 'drn-4.node': 'drn-4'}
        for row in rows:
            self.assertEqual(
                'openstack server migrate --live-migration --host %s %s'
                % (hosts[row['to']], row['consumer'])
                if row['to'] else '', row['command'])
        held = {uuid: _held(flavor)
                for uuid, _name, _host, flavor, _extra in SERVERS}
        nodes = {name: uuid for name, uuid in (
            ('drn-2.node', DRN2), ('drn-3.node', DRN3),
            ('drn-4.node', DRN4))}
        moved = {row['consumer']: {nodes[row['to']]: held[row['consumer']]}
                 for row in rows if row['to']}
        self.assertEqual(moved, {row['consumer']: row['allocations']
                                 for row in rows if row['to']})
        self.assertEqual(moved, self.prove(rows))

    def test_every_server_can_move(self):
        # A stopped server moves cold: Nova migrates it live no more.
        rows, err, code = self.plan('drn-2.node')
        self.assertEqual(0, code, err)
        self.assertEqual(['2 of 2 consumers can move; 0 cannot.'],
                         err.splitlines())
        self.assertEqual(
            [(SRV_OTHER, 'srv-other (ACTIVE)', 'drn-2.node', 'drn-3.node',
              '', 'openstack server migrate --live-migration --host drn-3 '
                  + SRV_OTHER),
             (SRV_STOPPED, 'srv-stopped (SHUTOFF)', 'drn-2.node',
              'drn-3.node', '',
              'openstack server migrate --host drn-3 ' + SRV_STOPPED)],
            [(r['consumer'], r['server'], r['from'], r['to'], r['reason'],
              r['command']) for r in rows])
        self.assertEqual({SRV_OTHER: {DRN3: _held(FLAVOR)},
                          SRV_STOPPED: {DRN3: _held(FLAVOR)}},
                         self.prove(rows))

    def test_a_server_nova_does_not_migrate_stays(self):
        rows, err, code = self.plan('drn-6.node')
        self.assertEqual(3, code, err)
        self.assertEqual(['0 of 1 consumer can move; 1 cannot.'],
                         err.splitlines())
        self.assertEqual(
            [(SRV_SUSPENDED, 'srv-suspended (SUSPENDED)', '',
              'its server is SUSPENDED: Nova migrates ACTIVE and PAUSED '
              'servers live, SHUTOFF ones cold, no other', '')],
            [(r['consumer'], r['server'], r['to'], r['reason'],
              r['command']) for r in rows])

    def test_no_hypervisor_or_a_disabled_one_is_no_target(self):
        # cmp-gone: a compute provider whose compute node is gone (the
        # audit's stale provider); Nova cannot send a server there.
        # drn-5: its compute service is disabled.
        rows, err, code = self.plan('drn-1.node', '--target', 'cmp-gone',
                                    '--target', 'drn-5.node')
        self.assertEqual(3, code, err)
        self.assertEqual(
            ['Not a target: cmp-gone: no hypervisor of the compute API '
             'has it.',
             'Not a target: drn-5.node: its compute service is disabled in '
             'the compute API.',
             '0 of 5 consumers can move; 5 cannot.'],
            err.splitlines())
        no_target = ('no target tree: every candidate is drained, '
                     'disabled or left out')
        self.assertEqual(
            {SRV_PLAIN: ('', no_target, ''), SRV_PINNED: ('', no_target, ''),
             SRV_GOLD1: ('', no_target, ''), SRV_GOLD2: ('', no_target, ''),
             SRV_BUSY: ('', 'its server has task state migrating', '')},
            {row['consumer']: (row['to'], row['reason'], row['command'])
             for row in rows})

    def test_the_audit_s_kinds_stay(self):
        # cmp-1 of the audit's scenario: two servers that move, and what
        # the audit finds there, each left as it is and said why.
        rows, err, code = self.plan('cmp-1')
        self.assertEqual(3, code, err)
        self.assertEqual(['2 of 7 consumers can move; 5 cannot.'],
                         err.splitlines())
        orphan = '(see resource provider audit)'
        self.assertEqual({
            seed.SRV_OK: ('srv-ok (ACTIVE)', 'drn-2.node', ''),
            seed.SRV_OWNER: ('srv-owner (ACTIVE)', 'drn-2.node', ''),
            # On cmp-3 since its evacuation: a migration would move it
            # from there.
            seed.SRV_EVACUATED: (
                'srv-evacuated (ACTIVE)', '',
                'its server is on hypervisor cmp-3 (host cmp-3): these '
                'allocations are left over ' + orphan),
            seed.SRV_DELETED: ('srv-deleted (DELETED)', '',
                               'its server is deleted: an orphan ' + orphan),
            seed.NEVER_SERVER_VGPU: (
                '', '', 'no server nor migration has this UUID: an orphan '
                + orphan),
            seed.MIG_CONFIRMED: (
                '', '', 'the allocations of migration of server %s, which '
                'is confirmed: an orphan %s' % (seed.SRV_MIGRATED, orphan)),
            seed.MIG_RESIZING: (
                '', '', 'the allocations of a migration in progress of '
                'server %s (finished): left to it' % seed.SRV_RESIZING)},
            {row['consumer']: (row['server'], row['to'], row['reason'])
             for row in rows})
        self.assertEqual(
            ['openstack server migrate --live-migration --host drn-2 '
             + uuid for uuid in sorted([seed.SRV_OK, seed.SRV_OWNER])],
            sorted(row['command'] for row in rows if row['command']))
        self.prove(rows)

    def test_drain_the_zone_s_aggregate(self):
        # Nova's aggregate of az-drain, mirrored in Placement: drn-1 and
        # drn-4 drained, the pinned server has no host left in its zone.
        rows, err, code = self.plan('--aggregate', AGG_ZONE)
        self.assertEqual(3, code, err)
        self.assertEqual(['2 of 5 consumers can move; 3 cannot.'],
                         err.splitlines())
        self.assertEqual(
            ('drn-1.node', '', 'must be in aggregate availability zone '
             'az-drain: 0 of 6 target trees are in it'),
            [(row['from'], row['to'], row['reason']) for row in rows
             if row['consumer'] == SRV_PINNED][0])
        self.assertEqual(
            {SRV_PLAIN: 'drn-2.node', SRV_GOLD1: 'drn-3.node',
             SRV_GOLD2: '', SRV_PINNED: '', SRV_BUSY: ''},
            {row['consumer']: row['to'] for row in rows})
        self.prove(rows)
