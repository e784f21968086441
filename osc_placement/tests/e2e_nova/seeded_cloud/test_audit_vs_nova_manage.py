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

"""``resource provider audit`` held against Nova's own tools, one cloud.

On the seeded Nova (:mod:`osc_placement.tests.support.nova_seed`) and
its Placement, nova 34's ``nova-manage placement audit``,
``heal_allocations --dry-run`` and ``sync_aggregates`` are the oracle:

* our ``orphan``, ``migration``, ``evacuated`` and ``wrong-host`` rows
  (``--grace 0``) name every consumer, on the same provider, that
  nova-manage's audit reports, except its false positive on the sharing
  provider (a live server's disk), which we never flag; and we find more
  (an orphan of a class that is not Nova's);
* our ``missing`` and ``owner`` rows that we would fix are the servers
  heal would create or update, with the same resources and owner;
* our ``aggregate`` additions are what ``sync_aggregates`` adds
  (Placement read before and after);
* after ``--fix``, a second audit finds nothing it could fix, heal and
  sync_aggregates have nothing left to do, and nova-manage's audit
  reports only what we leave by design (the server on the wrong host, its
  false positive); ``allocation restore`` of the undo file gives
  back exactly the allocations before (``--force``: the fix changed the
  generations of the consumers it rewrote).

Every test leaves the cloud as seeded (the memberships sync_aggregates
adds are taken away again; the fix is undone), so that they may run in
any order, but for the vGPU server, deleted as Nova deletes (a deleted
server of the compute API): the class runs after the tests of the
seeding (``cloud_turn``).
"""

import json
import os

import fixtures

from osc_placement.tests.e2e_nova import seeded
from osc_placement.tests.support import nova_seed as seed

# The kinds of rows that remove allocations nova-manage's audit reports.
LEFTOVERS = ('orphan', 'migration', 'evacuated', 'wrong-host')


def _amounts(resources):
    return ', '.join('%s=%d' % item for item in sorted(resources.items()))


class TestAuditVsNovaManage(seeded.SeededNovaTestCase):

    # After test_seeded_nova's, which lists the deleted servers.
    cloud_turn = 1

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.uuid_of = {p[0]: p[1] for p in cls.scenario.providers}
        cls.name_of = {p[1]: p[0] for p in cls.scenario.providers}
        cls.sharing = {p[1] for p in cls.scenario.providers
                       if 'MISC_SHARES_VIA_AGGREGATE' in p[4]}

    def audit(self, *argv):
        """``resource provider audit --grace 0 -f json``: (exit, rows)."""
        res = self.openstack('resource', 'provider', 'audit', '--grace',
                             '0', *argv + ('-f', 'json'))
        self.assertNotIn('Traceback', res.stderr)
        return res.returncode, json.loads(res.stdout) if res.stdout else []

    def rows(self, rows, *kinds):
        return [r for r in rows if r['problem'] in kinds]

    def test_leftovers_cover_nova_manage_audit(self):
        code, rows = self.audit()
        self.assertEqual(3, code)
        ours = {(r['consumer'], self.uuid_of[r['resource_provider']])
                for r in self.rows(rows, *LEFTOVERS)}
        theirs = self.nova_manage.audit()
        self.assertEqual(3, theirs.run.code)
        reported = {(o.consumer, o.provider) for o in theirs.orphans}
        false_positives = {(c, rp) for c, rp in reported
                           if rp in self.sharing}
        # Its false positive: the live server's disk on the sharing
        # provider, whose root is no compute node; never ours.
        self.assertEqual({(seed.SRV_SHARED, seed.SHARED)}, false_positives)
        self.assertNotIn(seed.SRV_SHARED, {c for c, _ in ours})
        # Everything else it reports, we report, on the same provider.
        self.assertEqual(set(), reported - false_positives - ours)
        # And more: the orphan of a class that is not Nova's.
        self.assertEqual({(seed.NEVER_SERVER_CUSTOM, seed.CMP3)},
                         ours - reported)
        # Each of our rows is of the kind the scenario planted.
        for kind in LEFTOVERS:
            self.assertEqual(
                self.scenario.expected[kind],
                sorted(r['consumer'] for r in self.rows(rows, kind)), kind)

    def test_missing_and_owner_are_what_heal_writes(self):
        _, rows = self.audit('--check', 'missing', '--check', 'owner')
        heal = self.nova_manage.heal()
        self.assertEqual(4, heal.run.code, heal.run)
        fixed = {r['consumer']: r['fix'] for r in rows
                 if not r['fix'].startswith('none')}
        expected = {}
        for server, body in heal.create.items():
            (rp, held), = body['allocations'].items()
            expected[server] = 'allocate %s on %s' % (
                _amounts(held['resources']), self.name_of[rp])
        for server, body in heal.update.items():
            expected[server] = 'set project %s and user %s' % (
                body['project_id'], body['user_id'])
        self.assertEqual(expected, fixed)
        self.assertEqual(sorted(self.scenario.expected['missing']
                                + self.scenario.expected['owner']),
                         sorted(fixed))
        # What heal leaves alone (a task state), we do not fix either.
        skipped = {r['consumer'] for r in rows
                   if r['fix'].startswith('none')}
        self.assertEqual(set(heal.task_state), skipped)

    def test_aggregate_additions_are_what_sync_adds(self):
        _, rows = self.audit('--check', 'aggregate')
        ours = sorted((self.uuid_of[r['resource_provider']],
                       r['fix'].split()[-1]) for r in rows
                      if r['fix'].startswith('add aggregate '))
        computes = (seed.CMP1, seed.CMP2, seed.CMP3)
        before = {rp: self.provider_aggregates(rp)[0] for rp in computes}
        sync = self.nova_manage.sync_aggregates()
        self.assertEqual(0, sync.run.code, sync.run)
        after = {rp: self.provider_aggregates(rp) for rp in computes}
        for rp in computes:
            self.addCleanup(
                self.placement, 'PUT', '/resource_providers/%s/aggregates'
                % rp, {'aggregates': before[rp],
                       'resource_provider_generation': after[rp][1]})
        added = sorted((rp, agg) for rp in computes
                       for agg in set(after[rp][0]) - set(before[rp]))
        self.assertEqual([(seed.CMP2, seed.AGG_UNMIRRORED)], added)
        self.assertEqual(added, ours)
        # It removes nothing; we would remove the membership Nova lacks.
        self.assertEqual([], [rp for rp in computes
                              if set(before[rp]) - set(after[rp][0])])
        self.assertEqual(
            [('cmp-3', 'remove aggregate %s' % seed.AGG_MIRRORED)],
            [(r['resource_provider'], r['fix']) for r in rows
             if r['fix'].startswith('remove')])

    def test_vgpu_server_heal_stops_we_do_not_fix(self):
        config = os.path.join(self.cloud.nova.workdir, 'nova.conf')
        seed.write_nova(config, seed.vgpu_server())
        self.addCleanup(seed.write_nova, config,
                        {'delete_servers': [seed.SRV_VGPU]})
        heal = self.nova_manage.heal()
        self.assertEqual(8, heal.run.code, heal.run)
        self.assertIn('Healing allocation for instance %s with vGPU '
                      'resource request is not supported.' % seed.SRV_VGPU,
                      heal.run.stdout)
        # We name it, and leave it: a vGPU needs a nested provider.
        code, rows = self.audit('--check', 'missing')
        self.assertEqual(3, code)
        vgpu = [r for r in rows if r['consumer'] == seed.SRV_VGPU]
        self.assertEqual([('missing', 'cmp-1')],
                         [(r['problem'], r['resource_provider'])
                          for r in vgpu])
        self.assertTrue(vgpu[0]['fix'].startswith('none: '), vgpu[0])

    def test_fix_leaves_nothing_for_nova_manage_and_undo_restores(self):
        computes = (seed.CMP1, seed.CMP2, seed.CMP3)
        before = self.allocations()
        aggregates = {rp: self.provider_aggregates(rp)[0] for rp in computes}
        undo = self.useFixture(fixtures.TempDir()).join('undo.json')

        def put_back():
            self.openstack('resource', 'provider', 'allocation', 'restore',
                           '--force', undo)
            for rp in computes:
                self.placement(
                    'PUT', '/resource_providers/%s/aggregates' % rp,
                    {'aggregates': aggregates[rp],
                     'resource_provider_generation':
                         self.provider_aggregates(rp)[1]})
        self.addCleanup(put_back)

        res = self.openstack('resource', 'provider', 'audit', '--grace', '0',
                             '--fix', '--undo-file', undo)
        self.assertEqual((4, ''), (res.returncode, res.stderr))
        # Nothing left for sync_aggregates to add.
        fixed_aggregates = {rp: self.provider_aggregates(rp)[0]
                            for rp in computes}
        sync = self.nova_manage.sync_aggregates()
        self.assertEqual(0, sync.run.code, sync.run)
        self.assertEqual(fixed_aggregates,
                         {rp: self.provider_aggregates(rp)[0]
                          for rp in computes})
        self.assertEqual(
            {seed.CMP1: aggregates[seed.CMP1],
             seed.CMP2: sorted(aggregates[seed.CMP2]
                               + [seed.AGG_UNMIRRORED]),
             seed.CMP3: sorted(set(aggregates[seed.CMP3])
                               - {seed.AGG_MIRRORED})},
            fixed_aggregates)
        # A second audit finds nothing it could fix.
        code, rows = self.audit()
        self.assertEqual([], [r for r in rows
                              if not r['fix'].startswith('none')])
        # Heal has nothing left to do.
        heal = self.nova_manage.heal()
        self.assertEqual((4, {}, {}), (heal.run.code, heal.create,
                                       heal.update))
        # nova-manage's audit reports only what we leave by design: the
        # server on the wrong host, and its own false positive.
        theirs = self.nova_manage.audit()
        self.assertEqual(
            sorted([(seed.SRV_WRONG_HOST, seed.CMP3),
                    (seed.SRV_SHARED, seed.SHARED)]),
            sorted((o.consumer, o.provider) for o in theirs.orphans))
        # The undo file gives back exactly the consumers before: a plain
        # restore (the fix's own changes are no change since the save).
        res = self.openstack('resource', 'provider', 'allocation',
                             'restore', undo)
        self.assertEqual(0, res.returncode, res.stderr)
        self.assertEqual(before, self.allocations())
