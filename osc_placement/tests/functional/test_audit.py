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

"""``resource provider audit`` against a real Placement.

Nova does not run here (``tests/e2e_nova`` has a real one): the compute
API's answers (servers, deleted servers, migrations, hypervisors, host
aggregates) come from requests-mock at the compute endpoint only, through
the openstacksdk connection OpenStackClient would hold; every Placement
request goes to the real in-process Placement, so what the command reads,
writes, refuses and restores is Placement's own doing.

The cloud: compute nodes ``cn1`` and ``cn2`` (hosts ``h1`` and ``h2``),
a compute provider ``cn-stale`` that no hypervisor has, a hypervisor
``cn-nohv`` without a provider, a sharing disk provider ``shared-disk``
and, under ``cn1``, a device provider of Cyborg's (``OWNER_CYBORG``, not
``OWNER_NOVA``). One consumer for each kind of finding (:data:`EXPECTED`)
and some that must never be one (:data:`QUIET`).
"""

import datetime
import json
import os
import re
import urllib.parse

import fixtures

from osc_placement import tests
from osc_placement.tests import cli
from osc_placement.tests.functional import base

NOVA = 'http://nova.test/v2.1'
AUDIT = ('resource', 'provider', 'audit')
VERSION = '1.39'


def _uuid(kind, n):
    return '%s0000-0000-4000-8000-%012d' % (kind, n)


# Providers (a compute node's UUID is its provider's).
CN1, CN2, STALE, NOHV = (_uuid('c0de', n) for n in (1, 2, 3, 4))
SHARED = _uuid('d15c', 1)
CYBORG = _uuid('cb0c', 1)
# Servers.
(S_OK, S_DELETED, S_MIGRATED, S_EVACUATED, S_WRONG_HOST, S_MISSING,
 S_OWNER, S_FLAVOR, S_TASK, S_SHARED, S_RECENT) = (
    _uuid('5e7e', n) for n in range(1, 12))
# Consumers that never were servers.
X_ORPHAN, X_SHARED, X_CYBORG = (_uuid('0c0c', n) for n in (1, 2, 3))
# Migrations: one ended long ago, one ended a minute ago.
M_CONFIRMED, M_RECENT = (_uuid('a161', n) for n in (1, 2))
# Host aggregates: Nova's (mirrored wrongly) and Placement's own.
AGG_ADD, AGG_REMOVE, AGG_PLACEMENT = (_uuid('a99e', n) for n in (1, 2, 3))

PROJECT, USER = 'project-a', 'user-a'
OTHER_PROJECT, OTHER_USER = 'project-b', 'user-b'
SMALL = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 10}
FLAVOR = {'original_name': 'small', 'vcpus': 1, 'ram': 512, 'disk': 10,
          'ephemeral': 0, 'swap': 0, 'extra_specs': {}}
INVENTORY = {'VCPU': 16, 'MEMORY_MB': 32768, 'DISK_GB': 500}

# Kind -> the consumers (the providers' names for ``provider``, the
# provider and the fix for ``aggregate``) it names.
EXPECTED = {
    'migration': [M_CONFIRMED, M_RECENT],
    'evacuated': [S_EVACUATED],
    'wrong-host': [S_WRONG_HOST],
    'orphan': sorted([S_DELETED, X_ORPHAN, X_SHARED]),
    'missing': sorted([S_MISSING, S_TASK]),
    'owner': [S_OWNER],
    'flavor': [S_FLAVOR],
    'aggregate': sorted([('cn1', 'add aggregate ' + AGG_ADD),
                         ('cn2', 'remove aggregate ' + AGG_REMOVE)]),
    'provider': sorted(['', 'cn-stale']),
}
# Never a finding: a healthy server, one whose disk is on the sharing
# provider, a migration's server, and a consumer of Cyborg's device.
QUIET = [S_OK, S_SHARED, S_MIGRATED, S_RECENT, X_CYBORG]


def _ago(minutes):
    moment = datetime.datetime.now(datetime.timezone.utc) - \
        datetime.timedelta(minutes=minutes)
    return moment.strftime('%Y-%m-%dT%H:%M:%S.000000')


def _server(uuid, name, node, status='ACTIVE', task_state=None,
            project=PROJECT, user=USER):
    """A server of ``GET /servers/detail`` at 2.80, flavor embedded."""
    return {'id': uuid, 'name': name, 'status': status,
            'tenant_id': project, 'user_id': user,
            'OS-EXT-STS:task_state': task_state,
            'OS-EXT-SRV-ATTR:hypervisor_hostname': node,
            'OS-EXT-SRV-ATTR:host': node and 'h' + node[-1],
            'image': {'id': _uuid('1a9e', 1)}, 'flavor': dict(FLAVOR)}


def _migration(uuid, server, status, minutes_ago):
    return {'id': int(uuid[-2:]), 'uuid': uuid, 'instance_uuid': server,
            'status': status, 'migration_type': 'migration',
            'source_node': 'cn1', 'dest_node': 'cn2',
            'source_compute': 'h1', 'dest_compute': 'h2',
            'created_at': _ago(minutes_ago + 5),
            'updated_at': _ago(minutes_ago)}


class AuditTestCase(base.TestCase):
    """The cloud of this module's docstring, and the audit's helpers."""

    def setUp(self):
        super().setUp()
        self.build_placement()
        self.servers = [
            _server(S_OK, 'srv-ok', 'cn1'),
            _server(S_MIGRATED, 'srv-migrated', 'cn2'),
            _server(S_RECENT, 'srv-recent', 'cn2'),
            _server(S_EVACUATED, 'srv-evacuated', 'cn2'),
            _server(S_WRONG_HOST, 'srv-wrong-host', 'cn1'),
            _server(S_MISSING, 'srv-missing', 'cn2'),
            _server(S_OWNER, 'srv-owner', 'cn1'),
            _server(S_FLAVOR, 'srv-flavor', 'cn2'),
            _server(S_TASK, 'srv-task', 'cn1', task_state='migrating'),
            _server(S_SHARED, 'srv-shared', 'cn2'),
        ]
        self.deleted = [_server(S_DELETED, 'srv-deleted', None,
                                status='DELETED')]
        self.migrations = [
            _migration(M_CONFIRMED, S_MIGRATED, 'confirmed', 120),
            _migration(M_RECENT, S_RECENT, 'confirmed', 1),
        ]
        self.hypervisors = [
            {'id': uuid, 'hypervisor_hostname': name, 'state': 'up',
             'status': 'enabled', 'service': {'host': host, 'id': n}}
            for n, (uuid, name, host) in enumerate((
                (CN1, 'cn1', 'h1'), (CN2, 'cn2', 'h2'),
                (NOHV, 'cn-nohv', 'h4')))]
        self.aggregates = [
            {'id': 1, 'name': 'agg-add', 'uuid': AGG_ADD, 'hosts': ['h1']},
            # Its one host has no provider: only cn2's membership is
            # wrong.
            {'id': 2, 'name': 'agg-remove', 'uuid': AGG_REMOVE,
             'hosts': ['h4']},
        ]
        self.mock_nova()
        self.dir = self.useFixture(fixtures.TempDir()).path

    def build_placement(self):
        tests.create_provider(self, CN1, 'cn1', INVENTORY,
                              traits=['COMPUTE_NODE', 'OWNER_NOVA'])
        tests.create_provider(self, CYBORG, 'cn1_fpga0', {'FPGA': 2},
                              parent=CN1, traits=['OWNER_CYBORG'])
        tests.create_provider(self, CN2, 'cn2', INVENTORY,
                              traits=['COMPUTE_NODE'],
                              aggregates=[AGG_REMOVE, AGG_PLACEMENT])
        tests.create_provider(self, STALE, 'cn-stale', INVENTORY,
                              traits=['COMPUTE_NODE'])
        tests.create_provider(self, SHARED, 'shared-disk',
                              {'DISK_GB': 2000},
                              traits=['MISC_SHARES_VIA_AGGREGATE'],
                              aggregates=[AGG_PLACEMENT])
        held = [
            (S_OK, {CN1: SMALL}),
            (S_DELETED, {CN1: SMALL}),
            (X_ORPHAN, {CN2: {'VCPU': 2}}),
            # A consumer on the sharing provider only, no server: judged
            # by its (missing) server, never by the provider's root.
            (X_SHARED, {SHARED: {'DISK_GB': 30}}),
            (X_CYBORG, {CYBORG: {'FPGA': 1}}),
            (S_MIGRATED, {CN2: SMALL}),
            (M_CONFIRMED, {CN1: SMALL}),
            (S_RECENT, {CN2: SMALL}),
            (M_RECENT, {CN1: SMALL}),
            (S_EVACUATED, {CN1: SMALL, CN2: SMALL}),
            (S_WRONG_HOST, {CN2: SMALL}),
            (S_FLAVOR, {CN2: dict(SMALL, VCPU=4)}),
            (S_SHARED, {CN2: {'VCPU': 1, 'MEMORY_MB': 512},
                        SHARED: {'DISK_GB': 10}}),
        ]
        for consumer, allocations in held:
            tests.allocate(self, consumer, allocations, project=PROJECT,
                           user=USER, consumer_type=(
                               'MIGRATION' if consumer.startswith('a161')
                               else 'INSTANCE'))
        tests.allocate(self, S_OWNER, {CN1: SMALL}, project=OTHER_PROJECT,
                       user=OTHER_USER)

    def mock_nova(self):
        """The compute API at NOVA: every list in one page."""
        mock = cli.mock_compute(self, NOVA)

        def servers(request, context):
            query = urllib.parse.parse_qs(request.query)
            return {'servers': self.deleted if query.get('deleted') == [
                'true'] else self.servers}

        def migrations(request, context):
            query = urllib.parse.parse_qs(request.query)
            server = query.get('instance_uuid', [None])[0]
            return {'migrations': [m for m in self.migrations if server in (
                None, m['instance_uuid'])]}

        mock.get(NOVA + '/servers/detail', json=servers)
        mock.get(re.compile(re.escape(NOVA + '/servers/') + '[0-9a-f-]+$'),
                 json=cli.server_by_id(lambda: self.servers))
        mock.get(NOVA + '/os-migrations', json=migrations)
        mock.get(NOVA + '/os-hypervisors/detail',
                 json=lambda r, c: {'hypervisors': self.hypervisors})
        mock.get(NOVA + '/os-aggregates',
                 json=lambda r, c: {'aggregates': self.aggregates})
        self.nova = mock

    # -- helpers ------------------------------------------------------------

    def audit(self, *argv):
        """(rows, stderr, exit code) of an audit, ``-f json``."""
        out, err, code = self.openstack(*(AUDIT + argv + ('-f', 'json')),
                                        version=VERSION)
        return (json.loads(out) if out.strip() else None), err, code

    def by_kind(self, rows):
        found = {}
        for row in rows:
            if row['problem'] == 'provider':
                item = row['resource_provider']
            elif row['problem'] == 'aggregate':
                item = (row['resource_provider'], row['fix'])
            else:
                item = row['consumer']
            found.setdefault(row['problem'], []).append(item)
        return {kind: sorted(items) for kind, items in found.items()}

    def row(self, rows, consumer):
        found = [r for r in rows if r['consumer'] == consumer]
        self.assertEqual(1, len(found), rows)
        return found[0]

    def state(self):
        """Placement's state, as two dicts.

        {provider: (generation, aggregates, {consumer: resources})} and
        {consumer: (project, user, generation)}.
        """
        providers, consumers = {}, {}
        for rp in self.api('GET', '/resource_providers')[
                'resource_providers']:
            uuid = rp['uuid']
            held = self.api('GET', '/resource_providers/%s/allocations'
                            % uuid)['allocations']
            aggs = self.api('GET', '/resource_providers/%s/aggregates'
                            % uuid)['aggregates']
            providers[uuid] = (rp['generation'], sorted(aggs), {
                c: a['resources'] for c, a in held.items()})
            consumers.update(dict.fromkeys(held))
        for consumer in consumers:
            body = self.api('GET', '/allocations/' + consumer,
                            version='1.38')
            consumers[consumer] = (body['project_id'], body['user_id'],
                                   body['consumer_generation'])
        return providers, consumers

    def allocations(self):
        """{consumer: ({rp: resources}, project, user)}."""
        providers, consumers = self.state()
        found = {}
        for rp, (_gen, _aggs, held) in providers.items():
            for consumer, resources in held.items():
                found.setdefault(consumer, ({}, ) + consumers[consumer][:2])
                found[consumer][0][rp] = resources
        return found

    def nova_writes(self):
        return [r for r in self.nova.request_history
                if r.url.startswith(NOVA) and r.method != 'GET']


class TestAudit(AuditTestCase):

    # -- finding ------------------------------------------------------------

    def test_finds_each_kind_once_and_nothing_quiet(self):
        rows, err, code = self.audit()
        self.assertEqual((3, ''), (code, err))
        self.assertEqual(EXPECTED, self.by_kind(rows))
        self.assertEqual(set(), {r['consumer'] for r in rows} & set(QUIET))
        # One consumer is one finding: the evacuated server is not also
        # a flavor drift, the wrong-host one not also missing.
        consumers = [r['consumer'] for r in rows if r['consumer']]
        self.assertEqual(sorted(set(consumers)), sorted(consumers))
        # The stable order: kind, then provider list order, then consumer.
        kinds = [r['problem'] for r in rows]
        self.assertEqual(
            ['migration', 'evacuated', 'wrong-host', 'orphan', 'missing',
             'owner', 'flavor', 'aggregate', 'provider'],
            list(dict.fromkeys(kinds)))
        self.assertEqual(sorted(kinds, key=kinds.index), kinds)
        self.assertEqual([], self.nova_writes())

    def test_rows_say_the_evidence_and_the_fix(self):
        rows, _err, _code = self.audit()
        self.assertEqual({
            'problem': 'migration', 'resource_provider': 'cn1',
            'consumer': M_CONFIRMED, 'server': 'srv-migrated (ACTIVE)',
            'detail': 'Migration of server %s is confirmed and still holds '
                      'DISK_GB=10, MEMORY_MB=512, VCPU=1 on cn1.'
                      % S_MIGRATED,
            'fix': 'remove its allocations'}, self.row(rows, M_CONFIRMED))
        evacuated = self.row(rows, S_EVACUATED)
        self.assertEqual(
            ('cn1', 'srv-evacuated (ACTIVE)',
             'remove its allocations on cn1'),
            (evacuated['resource_provider'], evacuated['server'],
             evacuated['fix']))
        wrong = self.row(rows, S_WRONG_HOST)
        self.assertEqual(
            ('Nova says the server is on cn1; it holds DISK_GB=10, '
             'MEMORY_MB=512, VCPU=1 on cn2.',
             'none: which of Nova and Placement is right needs an '
             'operator'), (wrong['detail'], wrong['fix']))
        self.assertEqual(
            ('srv-deleted (DELETED)', 'Its server is deleted; it holds '
             'DISK_GB=10, MEMORY_MB=512, VCPU=1 on cn1.'),
            (self.row(rows, S_DELETED)['server'],
             self.row(rows, S_DELETED)['detail']))
        self.assertEqual(
            ('shared-disk', 'No server or migration has this UUID; it '
             'holds DISK_GB=30 on shared-disk.', 'remove its allocations'),
            tuple(self.row(rows, X_SHARED)[k] for k in (
                'resource_provider', 'detail', 'fix')))
        self.assertEqual(
            ('cn2', 'allocate DISK_GB=10, MEMORY_MB=512, VCPU=1 on cn2'),
            (self.row(rows, S_MISSING)['resource_provider'],
             self.row(rows, S_MISSING)['fix']))
        self.assertEqual(
            ('Held by project %s and user %s; the server is of project %s '
             'and user %s.' % (OTHER_PROJECT, OTHER_USER, PROJECT, USER),
             'set project %s and user %s' % (PROJECT, USER)),
            (self.row(rows, S_OWNER)['detail'],
             self.row(rows, S_OWNER)['fix']))
        self.assertEqual(
            ('Holds VCPU=4; its flavor small asks VCPU=1.',
             'none: a resize or an edit by hand needs an operator'),
            (self.row(rows, S_FLAVOR)['detail'],
             self.row(rows, S_FLAVOR)['fix']))
        provider = {r['resource_provider']: r for r in rows
                    if r['problem'] == 'provider'}
        self.assertEqual(
            'Hypervisor cn-nohv (%s, host h4) has no resource provider.'
            % NOHV, provider['']['detail'])
        self.assertEqual('A compute provider that no hypervisor has.',
                         provider['cn-stale']['detail'])

    def test_check_picks_kinds(self):
        rows, err, code = self.audit('--check', 'orphan', '--check',
                                     'aggregate')
        self.assertEqual((3, ''), (code, err))
        self.assertEqual({'orphan': EXPECTED['orphan'],
                          'aggregate': EXPECTED['aggregate']},
                         self.by_kind(rows))

    def test_a_provider_selects_its_consumers(self):
        rows, err, code = self.audit('shared-disk')
        self.assertEqual(3, code)
        # The providers and aggregates are judged on compute roots only.
        self.assertEqual(
            ["Not checked: aggregate: no compute node's root provider is "
             "among those audited.",
             "Not checked: provider: no compute node's root provider is "
             "among those audited."], err.splitlines())
        # Only the sharing provider's allocations are read: its orphan is
        # found; the servers without allocations there are not missing.
        self.assertEqual([X_SHARED], [r['consumer'] for r in rows
                                      if r['problem'] == 'orphan'])
        self.assertEqual([], [r for r in rows if r['problem'] == 'missing'])
        # The live server whose disk is there holds its CPUs and memory
        # on cn2, which was not read: no flavor drift for what is unseen.
        self.assertNotIn(S_SHARED, [r['consumer'] for r in rows])

    def test_named_source_of_an_evacuation_is_evacuated(self):
        # Only cn1 given: the evacuated server's allocations on cn2 (its
        # hypervisor) are read with the server alone, not cn2's.
        kinds = ('--check', 'evacuated', '--check', 'wrong-host',
                 '--check', 'missing', '--check', 'flavor')
        sent = []
        self.before_request(
            lambda method, url, kwargs: sent.append((method, url)))
        rows, err, code = self.audit('cn1', *kinds)
        self.assertEqual((3, ''), (code, err))
        # cn1's allocations, then the two servers on or of cn1 that hold
        # something elsewhere or nothing there; not cn2's allocations.
        self.assertEqual(
            [('GET', '/resource_providers/%s/allocations' % CN1)] + sorted(
                ('GET', '/allocations/' + c) for c in (
                    S_EVACUATED, S_WRONG_HOST, S_TASK)),
            [(m, u) for m, u in sent if 'allocations' in u])
        self.assertEqual({'evacuated': [S_EVACUATED], 'missing': [S_TASK]},
                         self.by_kind(rows))
        self.assertEqual(
            ('cn1', 'Server on cn2 (its hypervisor) also holds DISK_GB=10, '
             'MEMORY_MB=512, VCPU=1 on cn1, with no migration in '
             'progress.', 'remove its allocations on cn1'),
            tuple(self.row(rows, S_EVACUATED)[k] for k in (
                'resource_provider', 'detail', 'fix')))
        # srv-wrong-host, on cn1 by Nova, holds all it holds on cn2: not
        # missing on cn1 (its wrong-host row is cn2's).
        self.assertNotIn(S_WRONG_HOST, [r['consumer'] for r in rows])
        # The same cn1 selected by its Placement aggregate: none yet, and
        # an audit of nothing is no all-clear.
        rows, err, code = self.audit('--aggregate', AGG_ADD, *kinds)
        self.assertEqual(
            (1, 'Nothing was audited: aggregate %s has no resource '
                'provider.\n' % AGG_ADD, []), (code, err, rows or []))
        self.api('PUT', '/resource_providers/%s/aggregates' % CN1, body={
            'resource_provider_generation': self.api(
                'GET', '/resource_providers/' + CN1)['generation'],
            'aggregates': [AGG_ADD]}, version='1.19')
        rows, err, code = self.audit('--aggregate', AGG_ADD, *kinds)
        self.assertEqual((3, ''), (code, err))
        self.assertEqual({'evacuated': [S_EVACUATED], 'missing': [S_TASK]},
                         self.by_kind(rows))

    def test_fix_of_a_named_source_removes_only_its_part(self):
        before, _consumers = self.state()
        undo = os.path.join(self.dir, 'undo.json')
        rows, err, code = self.audit('cn1', '--check', 'evacuated', '--fix',
                                     '--undo-file', undo)
        self.assertEqual((4, ''), (code, err))
        self.assertEqual(['done: remove its allocations on cn1'],
                         [r['fix'] for r in rows])
        providers, _consumers = self.state()
        # cn1 lost the evacuated server's part and nothing else; cn2 and
        # every other provider hold what they held.
        held_cn1 = dict(before[CN1][2])
        held_cn1.pop(S_EVACUATED)
        self.assertEqual(held_cn1, providers[CN1][2])
        for rp in (CN2, STALE, SHARED, CYBORG):
            self.assertEqual(before[rp][2], providers[rp][2])
        self.assertEqual(SMALL, providers[CN2][2][S_EVACUATED])

    def test_fix_of_a_selection_never_touches_another_provider(self):
        # The orphan holds on cn2 and on cn1; cn1 given: its part on cn2
        # stays, and one on cn1 only goes whole.
        tests.allocate(self, X_ORPHAN, {CN2: {'VCPU': 2}, CN1: {'VCPU': 1}},
                       project=PROJECT, user=USER, generation=self.api(
                           'GET', '/allocations/' + X_ORPHAN,
                           version='1.38')['consumer_generation'])
        undo = os.path.join(self.dir, 'undo.json')
        rows, err, code = self.audit('cn1', '--check', 'orphan', '--fix',
                                     '--undo-file', undo)
        self.assertEqual((4, ''), (code, err))
        self.assertEqual(
            sorted([(S_DELETED, 'done: remove its allocations on cn1'),
                    (X_ORPHAN, 'done: remove its allocations on cn1')]),
            sorted((r['consumer'], r['fix']) for r in rows))
        after = self.allocations()
        self.assertNotIn(S_DELETED, after)
        self.assertEqual(({CN2: {'VCPU': 2}}, PROJECT, USER),
                         after[X_ORPHAN])

    def test_named_host_of_an_evacuation_leaves_the_source_alone(self):
        # cn2 given, the server's own host; the leftover is on cn1, not
        # given: no row of it on cn2, and --fix writes nothing (cn2's
        # one row is srv-wrong-host's, which has no fix).
        before = self.state()
        undo = os.path.join(self.dir, 'undo.json')
        rows, err, code = self.audit('cn2', '--check', 'evacuated',
                                     '--check', 'wrong-host', '--fix',
                                     '--undo-file', undo)
        self.assertEqual((3, ''), (code, err))
        self.assertEqual([('wrong-host', 'cn2', S_WRONG_HOST)], [
            (r['problem'], r['resource_provider'], r['consumer'])
            for r in rows])
        self.assertEqual(before, self.state())

    # -- guards -------------------------------------------------------------

    def test_guards_task_state_and_recent_migration_are_none_rows(self):
        rows, _err, _code = self.audit()
        self.assertEqual(
            ('missing', 'none: task state migrating: Nova is working on '
                        'it'),
            (self.row(rows, S_TASK)['problem'],
             self.row(rows, S_TASK)['fix']))
        self.assertEqual(
            ('migration', 'none: updated within --grace; its compute may '
                          'still clean it up'),
            (self.row(rows, M_RECENT)['problem'],
             self.row(rows, M_RECENT)['fix']))
        # With no grace, the migration that ended a minute ago is fixed.
        rows, _err, _code = self.audit('--grace', '0')
        self.assertEqual('remove its allocations',
                         self.row(rows, M_RECENT)['fix'])

    def test_sharing_provider_consumer_is_judged_by_its_server(self):
        rows, _err, _code = self.audit('--check', 'orphan', '--check',
                                       'evacuated', '--check', 'wrong-host')
        # The live server's disk on the sharing provider (whose root is
        # no compute node) is not an orphan, nor a second root.
        self.assertNotIn(S_SHARED, [r['consumer'] for r in rows])
        self.assertIn(X_SHARED, [r['consumer'] for r in rows])
        # Had its server been deleted, its disk there is orphaned too.
        self.servers = [s for s in self.servers if s['id'] != S_SHARED]
        self.deleted.append(_server(S_SHARED, 'srv-shared', None,
                                    status='DELETED'))
        rows, _err, _code = self.audit('--check', 'orphan')
        self.assertEqual('Its server is deleted; it holds MEMORY_MB=512, '
                         'VCPU=1 on cn2; DISK_GB=10 on shared-disk.',
                         self.row(rows, S_SHARED)['detail'])

    def test_cyborg_provider_is_left_out(self):
        rows, _err, _code = self.audit()
        self.assertNotIn(X_CYBORG, [r['consumer'] for r in rows])
        self.assertNotIn('cn1_fpga0', [r['resource_provider']
                                       for r in rows])
        # The same provider owned by Nova too is audited: its consumer,
        # no server, is an orphan.
        self.api('PUT', '/resource_providers/%s/traits' % CYBORG, body={
            'resource_provider_generation': self.api(
                'GET', '/resource_providers/' + CYBORG)['generation'],
            'traits': ['OWNER_CYBORG', 'OWNER_NOVA']})
        rows, _err, _code = self.audit('--check', 'orphan')
        self.assertEqual('cn1_fpga0',
                         self.row(rows, X_CYBORG)['resource_provider'])

    # -- fixing -------------------------------------------------------------

    def test_dry_run_writes_nothing_exit_3(self):
        before = self.state()
        undo = os.path.join(self.dir, 'undo.json')
        rows, err, code = self.audit('--fix', '--dry-run', '--undo-file',
                                     undo)
        self.assertEqual(3, code)
        self.assertEqual(
            ['Dry run: 7 consumers would be written in one request, and '
             'the aggregates of 2 providers; nothing was sent.'],
            err.splitlines())
        self.assertEqual(before, self.state())
        self.assertEqual([], os.listdir(self.dir))
        # The rows are those of --fix: what it would do, not 'done'.
        self.assertEqual(EXPECTED, self.by_kind(rows))
        self.assertEqual([], [r for r in rows
                              if r['fix'].startswith('done')])

    def test_fix_then_nothing_fixable_then_undo_gives_back(self):
        before = self.allocations()
        before_aggs = {rp: self.state()[0][rp][1] for rp in (CN1, CN2)}
        undo = os.path.join(self.dir, 'undo.json')
        rows, err, code = self.audit('--fix', '--undo-file', undo)
        self.assertEqual((4, ''), (code, err))
        done = sorted((r['problem'], r['consumer'] or r['resource_provider'])
                      for r in rows if r['fix'].startswith('done: '))
        self.assertEqual(sorted(
            [('migration', M_CONFIRMED), ('evacuated', S_EVACUATED),
             ('orphan', S_DELETED), ('orphan', X_ORPHAN),
             ('orphan', X_SHARED), ('missing', S_MISSING),
             ('owner', S_OWNER), ('aggregate', 'cn1'),
             ('aggregate', 'cn2')]), done)
        # Placement afterwards: each fix as its row said.
        after = self.allocations()
        for gone in (M_CONFIRMED, S_DELETED, X_ORPHAN, X_SHARED):
            self.assertNotIn(gone, after)
        self.assertEqual(({CN2: SMALL}, PROJECT, USER),
                         after[S_EVACUATED])
        self.assertEqual(({CN2: SMALL}, PROJECT, USER), after[S_MISSING])
        self.assertEqual(({CN1: SMALL}, PROJECT, USER), after[S_OWNER])
        # What has no fix, and what the guards keep, is as it was.
        for kept in (M_RECENT, S_WRONG_HOST, S_FLAVOR, S_OK, S_SHARED,
                     X_CYBORG):
            self.assertEqual(before[kept], after[kept])
        self.assertNotIn(S_TASK, after)
        providers, _consumers = self.state()
        self.assertEqual([AGG_ADD], providers[CN1][1])
        self.assertEqual([AGG_PLACEMENT], providers[CN2][1])
        self.assertEqual([AGG_PLACEMENT], providers[SHARED][1])
        # A second audit finds nothing fixable.
        again, err, code = self.audit()
        self.assertEqual((3, ''), (code, err))
        self.assertEqual([], [r for r in again
                              if not r['fix'].startswith('none: ')])
        # The undo: first the aggregates' commands, each with the
        # generation its provider had after the fix, as they are...
        with open(undo + '.aggregates') as f:
            commands = [line.split() for line in f
                        if line.startswith('openstack ')]
        self.assertEqual(
            before_aggs,
            {words[-1]: sorted(words[i + 1] for i, word in enumerate(words)
                               if word == '--aggregate')
             for words in commands})
        for words in commands:
            version = words[words.index('--os-placement-api-version') + 1]
            out, err, code = self.openstack(
                *[w for w in words[1:] if w not in (
                    '--os-placement-api-version', version)],
                version=version)
            self.assertEqual((0, ''), (code, err), words)
        providers, _consumers = self.state()
        self.assertEqual(before_aggs, {rp: providers[rp][1]
                                       for rp in (CN1, CN2)})
        # ... then a plain restore of the allocations gives back exactly
        # the consumers before: the fix's own changes are no change
        # since the save.
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'restore',
            '--file', undo, version=VERSION)
        self.assertEqual((0, ''), (code, err))
        self.assertEqual(before, self.allocations())

    def test_conflict_writes_nothing_and_names_the_consumer_exit_1(self):
        undo = os.path.join(self.dir, 'undo.json')
        changed = []

        def meanwhile(method, url, kwargs):
            # Between the audit's read and its write, someone else
            # writes the orphan's allocations.
            if not changed:
                changed.append(url)
                generation = self.api('GET', '/allocations/' + X_ORPHAN,
                                      version='1.38')['consumer_generation']
                tests.allocate(self, X_ORPHAN, {CN2: {'VCPU': 3}},
                               project=PROJECT, user=USER,
                               generation=generation)

        self.before_request(meanwhile, method='POST', url='/allocations')
        before = self.state()
        out, err, code = self.openstack(*(AUDIT + (
            '--fix', '--undo-file', undo)), version=VERSION)
        self.assertEqual(1, code)
        self.assertEqual(['/allocations'], changed)
        self.assertEqual(1, len(err.strip().splitlines()), err)
        self.assertIn(X_ORPHAN, err)
        self.assertIn('Nothing was written', err)
        # Placement: as before, but for the other writer's change.
        providers, consumers = self.state()
        self.assertEqual({'VCPU': 3}, providers[CN2][2][X_ORPHAN])
        providers[CN2][2][X_ORPHAN] = {'VCPU': 2}
        expected_providers, expected_consumers = before
        self.assertEqual(
            {rp: (aggs, held) for rp, (_g, aggs, held) in
             expected_providers.items()},
            {rp: (aggs, held) for rp, (_g, aggs, held) in providers.items()})
        consumers.pop(X_ORPHAN)
        expected_consumers.pop(X_ORPHAN)
        self.assertEqual(expected_consumers, consumers)

    # -- usage errors -------------------------------------------------------

    def test_bad_values_exit_2_one_line(self):
        for argv, message in (
                (('--check', 'bogus'), "argument --check: invalid choice: "
                                       "'bogus' (choose from 'migration', "
                                       "'evacuated', 'wrong-host', 'orphan', "
                                       "'missing', 'owner', 'flavor', "
                                       "'aggregate', 'provider')"),
                (('--grace', '-1'), 'argument --grace: -1 is below 0'),
                (('--grace', '9' * 30), 'argument --grace: %s is above '
                                        '52560000 (a hundred years)'
                                        % ('9' * 30)),
                (('--grace', 'ten'), "argument --grace: invalid int value: "
                                     "'ten'")):
            out, err, code = self.openstack(*(AUDIT + argv),
                                            version=VERSION)
            self.assertEqual((2, ''), (code, out), err)
            # argparse's usage synopsis, then the one line of the error.
            self.assertTrue(err.startswith('usage: openstack resource '
                                           'provider audit '), err)
            self.assertEqual(
                ['openstack resource provider audit: error: ' + message],
                [line for line in err.splitlines() if 'error' in line])
            self.assertNotIn('Traceback', err)
        self.assertEqual([], [r for r in self.nova.request_history
                              if r.url.startswith(NOVA)])
