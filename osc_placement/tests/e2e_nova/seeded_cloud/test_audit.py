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

"""resource provider audit on the seeded Nova, held against nova-manage.

The scenario (``support/nova_seed.audit_scenario``) has one known case
of each kind; the audit must name exactly those, never the quiet ones,
cover every consumer nova-manage's own audit reports but its false
positive on the sharing provider, find what ``heal_allocations`` would
heal, and after ``--fix`` leave nothing fixable, nothing for heal, and
give everything back with ``allocation restore`` of its undo file. The
tests run in name order on one cloud: the read-only ones first. They
leave the cloud changed (the aggregates the fix set, the later cases):
the class runs last on the seeded cloud it shares (``cloud_turn``).
"""

import json
import os
import stat
import tempfile

from osc_placement import microversions
from osc_placement.tests.e2e_nova import seeded
from osc_placement.tests.support import nova_seed as seed

AUDIT = ('resource', 'provider', 'audit')


class TestAudit(seeded.SeededNovaTestCase):

    # After every other class on the seeded cloud.
    cloud_turn = 2

    def audit(self, *argv, version=None):
        """(rows, stderr, exit code) of an audit, -f json.

        version: the --os-placement-api-version (default: none given,
        which negotiates 1.29).
        """
        first = ('--os-placement-api-version', version) if version else ()
        res = self.openstack(*(first + AUDIT + argv + ('-f', 'json')))
        rows = json.loads(res.stdout) if res.stdout.strip() else None
        return rows, res.stderr, res.returncode

    def names(self):
        return {name: uuid for name, uuid, *_rest in
                self.scenario.providers}

    def by_kind(self, rows):
        names = self.names()
        found = {}
        for row in rows:
            if row['problem'] == 'provider':
                item = names.get(row['resource_provider'])
            elif row['problem'] == 'aggregate':
                verb, _word, agg = row['fix'].split()[-3:]
                item = (names[row['resource_provider']], agg, verb)
            else:
                item = row['consumer']
            found.setdefault(row['problem'], []).append(item)
        return {kind: sorted(items) for kind, items in found.items()}

    def test_1_finds_each_kind_and_nothing_quiet(self):
        rows, err, code = self.audit('--grace', '0')
        self.assertEqual((3, ''), (code, err))
        found = self.by_kind(rows)
        # The building server is a guard row: its fix is none.
        self.assertEqual(
            [('missing', 'none: task state spawning: Nova is working on '
                         'it')],
            [(r['problem'], r['fix']) for r in rows
             if r['consumer'] == seed.SRV_BUILDING])
        found['missing'].remove(seed.SRV_BUILDING)
        self.assertEqual(self.scenario.expected, found)
        named = {r['consumer'] for r in rows} - {seed.SRV_BUILDING}
        self.assertEqual(set(), named & set(self.scenario.quiet))

    def test_1_rows_say_the_evidence_and_the_fix(self):
        rows, _err, _code = self.audit('--grace', '0', '--check',
                                       'evacuated', '--check', 'missing')
        evacuated = [r for r in rows if r['problem'] == 'evacuated'][0]
        self.assertEqual(('cmp-1', 'srv-evacuated (ACTIVE)',
                          'remove its allocations on cmp-1'),
                         (evacuated['resource_provider'],
                          evacuated['server'], evacuated['fix']))
        missing = [r for r in rows
                   if r['consumer'] == seed.SRV_NO_ALLOC][0]
        self.assertEqual('allocate DISK_GB=20, MEMORY_MB=2048, VCPU=2 on '
                         'cmp-3', missing['fix'])

    def test_1_the_same_findings_at_the_latest_microversion(self):
        # From 1.38 GET /usages?project_id&user_id sums by consumer type
        # too, a query Placement 16.0.0 fails (HTTP 500) on PostgreSQL:
        # the owners' usages are read at 1.37 whatever the session's
        # microversion, and every kind is checked at the latest too.
        rows, err, code = self.audit('--grace', '0',
                                     version=microversions.LATEST)
        self.assertEqual((3, ''), (code, err))
        found = self.by_kind(rows)
        self.assertIn(seed.SRV_OWNER, found['owner'])
        default, _err, _code = self.audit('--grace', '0')
        self.assertEqual(self.by_kind(default), found)

    def test_2_covers_nova_manage_audit_but_its_false_positive(self):
        rows, _err, _code = self.audit('--grace', '0')
        ours = {(r['consumer']) for r in rows if r['problem'] in (
            'orphan', 'migration', 'evacuated', 'wrong-host')}
        theirs = self.nova_manage.audit()
        reported = {o.consumer for o in theirs.orphans
                    if o.provider != seed.SHARED}
        self.assertEqual(set(), reported - ours)
        # Its false positive: a live server's disk on the sharing
        # provider, which we never flag.
        self.assertIn(seed.SRV_SHARED, {o.consumer for o in theirs.orphans})
        self.assertNotIn(seed.SRV_SHARED, {r['consumer'] for r in rows})
        # And more than it: a consumer of a class that is not Nova's.
        self.assertIn(seed.NEVER_SERVER_CUSTOM, ours - reported)

    def test_2_missing_and_owner_are_what_heal_would_do(self):
        rows, _err, _code = self.audit('--check', 'missing', '--check',
                                       'owner')
        heal = self.nova_manage.heal()
        fixable = {r['consumer']: r for r in rows
                   if not r['fix'].startswith('none')}
        self.assertEqual(sorted(list(heal.create) + list(heal.update)),
                         sorted(fixable))
        self.assertEqual('set project %s and user %s' % (
            seed.PROJECT, seed.USER), fixable[seed.SRV_OWNER]['fix'])

    def test_3_dry_run_writes_nothing(self):
        before = self.allocations()
        undo = os.path.join(tempfile.mkdtemp(), 'undo.json')
        self.addCleanup(os.rmdir, os.path.dirname(undo))
        rows, err, code = self.audit('--fix', '--dry-run', '--grace', '0',
                                     '--undo-file', undo)
        self.assertEqual(3, code)
        self.assertIn('Dry run:', err)
        self.assertEqual(before, self.allocations())
        self.assertFalse(os.path.exists(undo))

    def test_4_fix_then_nothing_fixable_then_undo(self):
        before = self.allocations()
        aggregates = {rp: self.provider_aggregates(rp)[0]
                      for rp in (seed.CMP2, seed.CMP3)}
        workdir = tempfile.mkdtemp()
        self.addCleanup(os.rmdir, workdir)
        undo = os.path.join(workdir, 'undo.json')
        self.addCleanup(os.unlink, undo)
        self.addCleanup(os.unlink, undo + '.aggregates')
        rows, err, code = self.audit('--fix', '--grace', '0',
                                     '--undo-file', undo)
        self.assertEqual((4, ''), (code, err))
        self.assertEqual(0o600, stat.S_IMODE(os.stat(undo).st_mode))
        # A second audit finds nothing fixable; heal has nothing to do.
        again, _err, code = self.audit('--grace', '0')
        self.assertEqual([], [r for r in again
                              if not r['fix'].startswith('none')])
        heal = self.nova_manage.heal()
        self.assertEqual(({}, {}), (heal.create, heal.update))
        after = self.allocations()
        for orphan in self.scenario.expected['orphan']:
            self.assertNotIn(orphan, after)
        self.assertEqual({seed.CMP3}, set(after[seed.SRV_EVACUATED]))
        self.assertIn(seed.AGG_UNMIRRORED,
                      self.provider_aggregates(seed.CMP2)[0])
        self.assertNotIn(seed.AGG_MIRRORED,
                         self.provider_aggregates(seed.CMP3)[0])
        # The aggregates' undo: each command with the generation its
        # provider had after the fix, run as it is; then a plain restore
        # of the allocations gives the consumers back.
        with open(undo + '.aggregates') as f:
            commands = [line.split() for line in f
                        if line.startswith('openstack ')]
        self.assertEqual(aggregates, {
            words[-1]: [words[i + 1] for i, word in enumerate(words)
                        if word == '--aggregate'] for words in commands})
        for words in commands:
            res = self.openstack(*words[1:])
            self.assertEqual(0, res.returncode, res.stderr)
        self.assertEqual(aggregates, {
            rp: self.provider_aggregates(rp)[0] for rp in aggregates})
        res = self.openstack('resource', 'provider', 'allocation',
                             'restore', '--file', undo)
        self.assertEqual(0, res.returncode, res.stderr)
        self.assertEqual(before, self.allocations())

    # -- After the scenario's tests: seed.later_cases() on the same cloud.

    def later(self):
        """(rows, stderr, exit code, network requests) of one dry run.

        The tests above need the scenario as seeded; these come after
        them in name order. The first that asks writes
        ``seed.later_cases()`` and runs ``audit --fix --dry-run`` (the
        default grace) once; the others read that run (every audit reads
        the whole cloud: one run keeps e2e-nova short).
        """
        cls = type(self)
        if getattr(cls, 'later_run', None) is None:
            cls.later_scenario = seed.seed(cls.cloud, seed.later_cases())
            undo = os.path.join(tempfile.mkdtemp(), 'undo.json')
            with cls.seeded.neutron.count_requests() as asked:
                res = self.openstack(*(AUDIT + (
                    '--fix', '--dry-run', '--undo-file', undo, '-f',
                    'json')))
            os.rmdir(os.path.dirname(undo))
            cls.later_run = (json.loads(res.stdout or 'null'), res.stderr,
                             res.returncode, asked)
        return cls.later_run

    def test_5_flavor_drift(self):
        rows, err, code, _asked = self.later()
        self.assertEqual(3, code, err)
        self.assertEqual(
            [('flavor', 'cmp-2', seed.SRV_DRIFT, 'srv-drift (ACTIVE)',
              'Holds VCPU=4; its flavor m1.seed asks VCPU=2.',
              'none: a resize or an edit by hand needs an operator')],
            [(r['problem'], r['resource_provider'], r['consumer'],
              r['server'], r['detail'], r['fix']) for r in rows
             if r['problem'] == 'flavor'])

    def test_5_migration_within_grace_is_not_fixed(self):
        rows, err, code, _asked = self.later()
        self.assertEqual(3, code, err)
        # Confirmed a minute ago: its compute may still clean it up; the
        # one confirmed two hours ago is fixed.
        self.assertEqual(
            [(seed.MIG_CONFIRMED, 'remove its allocations'),
             (seed.MIG_RECENT, 'none: updated within --grace; its '
                               'compute may still clean it up')],
            sorted((r['consumer'], r['fix']) for r in rows
                   if r['problem'] == 'migration'))
        self.assertEqual(
            'Migration of server %s is confirmed and still holds '
            'DISK_GB=20, MEMORY_MB=2048, VCPU=2 on cmp-3.'
            % seed.SRV_MIGRATED, [r['detail'] for r in rows
                                  if r['consumer'] == seed.MIG_RECENT][0])

    def test_5_reinstalled_compute(self):
        rows, err, code, _asked = self.later()
        self.assertEqual(3, code, err)
        # The provider of its old node holds the name; its new node has
        # none.
        self.assertEqual(sorted([
            ('', 'Hypervisor cmp-4 (%s, host cmp-4) has no resource '
                 'provider.' % seed.CMP4,
             'none: its compute service creates it'),
            ('cmp-4', 'A compute provider that no hypervisor has; '
                      'hypervisor cmp-4 is %s (a reinstalled compute?).'
                      % seed.CMP4,
             'none: deleting a provider needs an operator'),
            ('cmp-gone', 'A compute provider that no hypervisor has.',
             'none: deleting a provider needs an operator')]),
            sorted((r['resource_provider'], r['detail'], r['fix'])
                   for r in rows if r['problem'] == 'provider'))

    def test_5_a_page_of_more_than_150_servers(self):
        rows, err, code, asked = self.later()
        self.assertEqual(3, code, err)
        # One page of all the servers: Nova asked the network API for
        # the ports of 150 of them in one request line, over gunicorn's
        # default limit of 4,094 characters.
        self.assertGreater(max(len(r.uri) for r in asked
                               if r.uri.startswith('/v2.0/ports?')), 4094)
        servers = self.compute('GET', '/servers/detail?all_tenants=1')[
            'servers']
        self.assertLess(seed.FAILED_SERVERS, len(servers))
        # The failed servers (no host) are no finding.
        self.assertEqual(set(), {r['consumer'] for r in rows}
                         & set(self.later_scenario.quiet))
