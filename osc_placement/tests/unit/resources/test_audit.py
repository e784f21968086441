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

"""resource provider audit: the shell against Placement and Nova mocked.

What the command sends (no request per server; one write), prints and
exits with; the real Nova's cases are the e2e-nova tests'.
"""

import json
import os
import re
import stat
import threading

import fixtures

from osc_placement.api import nova_state
from osc_placement.api import providers
from osc_placement.tests import cli
from osc_placement.tests.unit import base
from osc_placement.tests.unit import clouds

URL = clouds.URL
NOVA = clouds.NOVA
CN1 = '10000000-0000-0000-0000-000000000001'
S1 = '20000000-0000-0000-0000-000000000001'
X1 = '30000000-0000-0000-0000-000000000001'
AGG = '40000000-0000-0000-0000-000000000001'
SMALL = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 10}


def _server(uuid):
    return {'id': uuid, 'name': 'vm1', 'status': 'ACTIVE',
            'tenant_id': 'p', 'user_id': 'u',
            'OS-EXT-STS:task_state': None,
            'OS-EXT-SRV-ATTR:hypervisor_hostname': 'cn1',
            'OS-EXT-SRV-ATTR:host': 'host1', 'image': {},
            'flavor': {'original_name': 'small', 'vcpus': 1, 'ram': 512,
                       'disk': 10, 'ephemeral': 0, 'swap': 0,
                       'extra_specs': {}}}


class AuditCase(base.FileTestCase):
    """One compute node cn1 of host1, server S1 on it, orphan X1."""

    api_version = '1.39'
    command = ('resource', 'provider', 'audit')

    def setUp(self):
        super().setUp()
        self.cloud({S1: SMALL, X1: {'VCPU': 1}})
        self.useFixture(cli.compute_at(NOVA))

    def cloud(self, held):
        mock = self.requests_mock
        mock.get(URL + '/resource_providers', complete_qs=True, json={
            'resource_providers': [base.provider(CN1, 'cn1')]})
        for trait, rps in (('COMPUTE_NODE', [CN1]),
                           ('MISC_SHARES_VIA_AGGREGATE', []),
                           ('OWNER_NOVA', [CN1])):
            mock.get(URL + '/resource_providers?required=' + trait,
                     complete_qs=True, json={'resource_providers': [
                         base.provider(rp, 'cn1') for rp in rps]})
        mock.get(URL + '/traits?name=startswith:OWNER_', complete_qs=True,
                 json={'traits': ['OWNER_NOVA']})
        mock.get(URL + '/resource_providers/%s/allocations' % CN1, json={
            'resource_provider_generation': 3, 'allocations': {
                c: {'resources': r} for c, r in held.items()}})
        mock.get(URL + '/usages?project_id=p&user_id=u', complete_qs=True,
                 json={'usages': held.get(S1, {})})
        mock.get(URL + '/allocations/' + X1, json=base.consumer(
            {CN1: {'VCPU': 1}}, generation=7))
        self.post = mock.post(URL + '/allocations', status_code=204)
        for url in (NOVA, NOVA + '/'):
            mock.get(url, json=clouds.FlavorTestCase.nova_version())
        mock.get(NOVA + '/servers/detail', json={'servers': [_server(S1)]})
        mock.get(NOVA + '/servers/detail?all_tenants=1&deleted=true',
                 json={'servers': []})
        # Read again before a fix: S1 as listed, no other server.
        mock.get(re.compile(re.escape(NOVA + '/servers/') + '[0-9a-f-]{36}$'),
                 status_code=404, json={'itemNotFound': {'code': 404}})
        mock.get(NOVA + '/servers/' + S1, json={'server': _server(S1)})
        mock.get(NOVA + '/os-migrations', json={'migrations': []})
        mock.get(NOVA + '/os-hypervisors/detail', json={'hypervisors': [
            {'id': CN1, 'hypervisor_hostname': 'cn1',
             'service': {'host': 'host1'}}]})
        mock.get(NOVA + '/os-aggregates', json={'aggregates': []})

    def placement_sent(self):
        return [(r.method, r.url[len(URL):])
                for r in self.requests_mock.request_history
                if r.url.startswith(URL)]


class TestAudit(AuditCase):

    def test_finds_the_orphan_exit_3(self):
        out, err, code = self.openstack('-f', 'json')
        self.assertEqual(('', 3), (err, code))
        self.assertEqual([{
            'problem': 'orphan', 'resource_provider': 'cn1', 'consumer': X1,
            'server': '', 'detail': 'No server or migration has this UUID; '
                                    'it holds VCPU=1 on cn1.',
            'fix': 'remove its allocations'}], json.loads(out))
        sent = self.placement_sent()
        self.assertEqual(
            [('GET', '/resource_providers'),
             ('GET', '/traits?name=startswith%3AOWNER_')], sent[:2])
        # The trait lists at once, in any order.
        self.assertEqual(
            sorted([('GET', '/resource_providers?required=COMPUTE_NODE'),
                    ('GET', '/resource_providers?required='
                            'MISC_SHARES_VIA_AGGREGATE'),
                    ('GET', '/resource_providers?required=OWNER_NOVA')]),
            sorted(sent[2:5]))
        # The orphan is read for the owner check: what it holds is in
        # the name of p1/u1, not p/u.
        self.assertEqual(
            [('GET', '/resource_providers/%s/allocations' % CN1),
             ('GET', '/usages?project_id=p&user_id=u'),
             ('GET', '/allocations/' + X1)], sent[5:])

    def test_nothing_found_exit_0(self):
        self.cloud({S1: SMALL})
        out, err, code = self.openstack('-f', 'json')
        self.assertEqual(('[]', '', 0), (out.strip(), err, code))

    def test_check_picks_a_kind(self):
        out, err, code = self.openstack('--check', 'missing', '-f', 'json')
        self.assertEqual(('[]', '', 0), (out.strip(), err, code))

    def test_the_undo_options_taken_together_are_usage_errors(self):
        for argv, message in (
                (('--fix',), '--fix needs --undo-file <path>: nothing is '
                             'written before what it changes is saved'),
                (('--fix', '--dry-run'), '--fix needs --undo-file <path>: '
                 'nothing is written before what it changes is saved'),
                (('--dry-run',), '--dry-run goes with --fix'),
                (('--undo-file', 'x'), '--undo-file goes with --fix'),
                (('--fix', '--undo-file', '-'), '--undo-file needs a path: '
                 'standard output carries the rows')):
            out, err, code = self.openstack(*argv)
            self.assertEqual((2, ''), (code, out), argv)
            self.assertTrue(err.startswith('usage: '), err)
            self.assertEqual(
                ['openstack resource provider audit: error: ' + message],
                [line for line in err.splitlines() if 'error' in line])
        self.assertEqual([], self.placement_sent())
        self.assertEqual([], [r for r in self.requests_mock.request_history
                              if r.url.startswith(NOVA)])

    def test_an_undo_file_is_never_replaced(self):
        for name in ('undo.json', 'undo.json.aggregates'):
            path = os.path.join(self.dir, name)
            with open(path, 'w') as f:
                f.write('earlier\n')
            for more in (('--dry-run',), ()):
                out, err, code = self.openstack(
                    '--fix', '--undo-file', os.path.join(self.dir,
                                                         'undo.json'), *more)
                self.assertEqual(1, code)
                self.assertEqual(
                    '%s exists: an undo file is never replaced; give '
                    '--undo-file a new path (or move the earlier undo '
                    'away).' % path, err.strip())
                self.assertEqual([], self.placement_sent())
            with open(path) as f:
                self.assertEqual('earlier\n', f.read())
            os.unlink(path)

    def test_an_undo_file_it_cannot_write_is_refused_before_any_read(self):
        undo = os.path.join(self.dir, 'no-such-dir', 'undo.json')
        for more in (('--dry-run',), ()):
            out, err, code = self.openstack('--fix', '--undo-file', undo,
                                            *more)
            self.assertEqual((1, '--undo-file %s: cannot write it: No such '
                                 'file or directory.\n' % undo),
                             (code, err), more)
        self.assertEqual([], self.placement_sent())
        self.assertEqual([], [r for r in self.requests_mock.request_history
                              if r.url.startswith(NOVA)])

    def test_dry_run_writes_nothing_exit_3(self):
        undo = os.path.join(self.dir, 'undo.json')
        out, err, code = self.openstack('--fix', '--dry-run', '--undo-file',
                                        undo, '-f', 'value')
        self.assertEqual(3, code)
        self.assertIn('Dry run: 1 consumer would be written in one request',
                      err)
        self.assertFalse(self.post.called)
        self.assertEqual([], os.listdir(self.dir))

    def test_fix_saves_then_writes_once_exit_4(self):
        undo = os.path.join(self.dir, 'undo.json')
        out, err, code = self.openstack('--fix', '--undo-file', undo, '-f',
                                        'json')
        self.assertEqual(('', 4), (err, code))
        self.assertEqual('done: remove its allocations',
                         json.loads(out)[0]['fix'])
        self.assertEqual(1, self.post.call_count)
        self.assertEqual({X1: {'allocations': {}, 'project_id': 'p1',
                               'user_id': 'u1', 'consumer_generation': 7,
                               'consumer_type': 'INSTANCE'}},
                         self.post.last_request.json())
        with open(undo) as f:
            saved = json.load(f)
        self.assertEqual({CN1: {'resources': {'VCPU': 1}}},
                         saved['consumers'][X1]['allocations'])
        self.assertEqual(0o600, stat.S_IMODE(os.stat(undo).st_mode))

    def test_a_conflict_names_the_consumer_exit_1(self):
        self.requests_mock.post(URL + '/allocations', status_code=409, json=(
            base.placement_error(409, 'consumer generation conflict',
                                 code='placement.concurrent_update')))
        # Read by the owner check, by the fix, then after the refusal.
        self.requests_mock.get(URL + '/allocations/' + X1, [
            {'json': base.consumer({CN1: {'VCPU': 1}}, generation=7)},
            {'json': base.consumer({CN1: {'VCPU': 1}}, generation=7)},
            {'json': base.consumer({CN1: {'VCPU': 2}}, generation=8)}])
        undo = os.path.join(self.dir, 'undo.json')
        out, err, code = self.openstack('--fix', '--undo-file', undo)
        self.assertEqual(1, code)
        self.assertIn('consumer %s (generation 7 when read, 8 now)' % X1,
                      err)
        self.assertIn('Nothing was written', err)

    def test_hypervisors_down_their_kinds_unchecked_orphans_never_guessed(
            self):
        # The rows of the kinds checked are printed; those not checked
        # make it an error, never an "all clear" (exit 0).
        self.requests_mock.get(NOVA + '/os-hypervisors/detail',
                               status_code=500, json={})
        out, err, code = self.openstack('-f', 'json')
        self.assertEqual(('[]', 1), (out.strip(), code))
        self.assertIn('Not checked: evacuated: the compute API cannot list '
                      'the hypervisors (a cell down?) (HTTP 500).', err)
        self.assertIn('Not checked: orphan, for 1 consumer: a cell is down',
                      err)

    def test_nothing_checked_exit_1(self):
        self.requests_mock.get(NOVA + '/os-hypervisors/detail',
                               status_code=500, json={})
        out, err, code = self.openstack('--check', 'provider')
        self.assertEqual(1, code)
        self.assertIn('Nothing could be checked', err)

    def test_compute_error_is_one_line(self):
        self.requests_mock.get(NOVA + '/os-migrations', status_code=403,
                               json={'forbidden': {'message': 'Policy'}})
        out, err, code = self.openstack()
        self.assertEqual(1, code)
        self.assertEqual(1, len(err.strip().splitlines()), err)
        self.assertIn('the compute API answered HTTP 403', err)

    def nova_aggregate(self):
        """Nova's aggregate of host1, which cn1 lacks in Placement."""
        mock = self.requests_mock
        mock.get(NOVA + '/os-aggregates', json={'aggregates': [
            {'uuid': AGG, 'name': 'agg1', 'hosts': ['host1']}]})
        mock.get(URL + '/resource_providers?member_of=' + AGG,
                 complete_qs=True, json={'resource_providers': []})
        path = URL + '/resource_providers/%s/aggregates' % CN1
        # The write of allocations on cn1 changes its generation.
        mock.get(path, [{'json': {'aggregates': [],
                                  'resource_provider_generation': 3}},
                        {'json': {'aggregates': [],
                                  'resource_provider_generation': 4}}])
        return mock.put(path, json={'aggregates': [AGG],
                                    'resource_provider_generation': 5})

    def test_aggregates_written_with_the_generation_after_the_allocations(
            self):
        put = self.nova_aggregate()
        undo = os.path.join(self.dir, 'undo.json')
        out, err, code = self.openstack('--fix', '--undo-file', undo, '-f',
                                        'json')
        self.assertEqual(('', 4), (err, code))
        self.assertEqual(['done: remove its allocations',
                          'done: add aggregate %s' % AGG],
                         [r['fix'] for r in json.loads(out)])
        self.assertEqual({'aggregates': [AGG],
                          'resource_provider_generation': 4},
                         put.last_request.json())
        self.assertLess(
            [r.method for r in self.requests_mock.request_history].index(
                'POST'),
            [r.method for r in self.requests_mock.request_history].index(
                'PUT'))
        with open(undo + '.aggregates') as f:
            self.assertIn('aggregate set --generation 5 %s'
                          % CN1, f.read())

    def test_aggregates_changed_meanwhile_are_left_alone(self):
        put = self.nova_aggregate()
        self.requests_mock.get(
            URL + '/resource_providers/%s/aggregates' % CN1, [
                {'json': {'aggregates': [],
                          'resource_provider_generation': 3}},
                {'json': {'aggregates': [X1],
                          'resource_provider_generation': 9}}])
        undo = os.path.join(self.dir, 'undo.json')
        out, err, code = self.openstack('--fix', '--undo-file', undo)
        self.assertEqual(1, code)
        self.assertEqual('Resource provider cn1 changed since it was read: '
                         'its aggregates were not changed (the allocations '
                         'were written); run the audit again.', err.strip())
        self.assertFalse(put.called)


S2 = '20000000-0000-0000-0000-000000000002'
S3 = '20000000-0000-0000-0000-000000000003'


class TestOwnerReads(AuditCase):
    """The owner check: the requests it sends, what it finds."""

    def servers(self, owners):
        """Nova's S1, S2, S3 of p/u on cn1; Placement's records of them.

        ``owners``: {server: project Placement records it under}; X1,
        an orphan, is recorded under p/u.
        """
        mock = self.requests_mock
        held = {S1: SMALL, S2: SMALL, S3: SMALL, X1: {'VCPU': 1}}
        mock.get(URL + '/resource_providers/%s/allocations' % CN1, json={
            'resource_provider_generation': 3, 'allocations': {
                c: {'resources': r} for c, r in held.items()}})
        mock.get(NOVA + '/servers/detail', json={'servers': [
            dict(_server(s), name='vm%d' % n)
            for n, s in enumerate((S1, S2, S3), 1)]})
        usages = {}
        for consumer, project in dict(owners, **{X1: 'p'}).items():
            mock.get(URL + '/allocations/' + consumer, json=base.consumer(
                {CN1: held[consumer]}, project=project, user='u'))
            if project == 'p':
                for rc, amount in held[consumer].items():
                    usages[rc] = usages.get(rc, 0) + amount
        mock.get(URL + '/usages?project_id=p&user_id=u', complete_qs=True,
                 json={'usages': usages})

    def consumers_read(self):
        return sorted(path[len('/allocations/'):]
                      for method, path in self.placement_sent()
                      if path.startswith('/allocations/'))

    def test_a_healthy_cloud_with_an_orphan_reads_no_server(self):
        self.servers({S1: 'p', S2: 'p', S3: 'p'})
        out, err, code = self.openstack('-f', 'json')
        self.assertEqual(('', 3), (err, code))
        self.assertEqual([('orphan', X1)], [
            (row['problem'], row['consumer']) for row in json.loads(out)])
        self.assertEqual([X1], self.consumers_read())

    def test_a_server_held_in_another_name_beside_an_orphan(self):
        # p's usages (S1, S3, X1) equal what S1, S2, S3 hold: only with
        # X1 counted does p differ.
        self.servers({S1: 'p', S2: 'admin', S3: 'p'})
        out, err, code = self.openstack('-f', 'json')
        self.assertEqual(('', 3), (err, code))
        self.assertEqual(
            [('orphan', X1), ('owner', S2)],
            sorted((row['problem'], row['consumer'])
                   for row in json.loads(out)))
        self.assertEqual(sorted([S1, S2, S3, X1]), self.consumers_read())


class TestNovaBeside(AuditCase):
    """Nova's reads in a thread while Placement's are sent."""

    def wrap(self, target, before=None, after=None, module=nova_state):
        real = getattr(module, target)

        def call(*args, **kwargs):
            if before:
                self.assertTrue(before.wait(10))
            try:
                return real(*args, **kwargs)
            finally:
                if after:
                    after.set()

        self.useFixture(fixtures.MockPatchObject(
            module, target, autospec=True, side_effect=call))

    def test_nova_is_read_while_placement_is(self):
        # Nova's reads wait until the allocations are asked: read before
        # Placement, as they were, they would wait in vain.
        asked = threading.Event()

        def allocations(request, context):
            asked.set()
            return {'resource_provider_generation': 3, 'allocations': {
                S1: {'resources': SMALL}}}

        self.requests_mock.get(
            URL + '/resource_providers/%s/allocations' % CN1,
            json=allocations)
        self.wrap('read', before=asked)
        out, err, code = self.openstack('-f', 'json')
        self.assertEqual(('[]', '', 0), (out.strip(), err, code))

    def both_fail(self, nova_first):
        self.requests_mock.get(NOVA + '/os-migrations', status_code=403,
                               json={'forbidden': {'message': 'Policy'}})
        self.requests_mock.get(
            URL + '/traits?name=startswith:OWNER_', complete_qs=True,
            status_code=503, json=base.placement_error(503, 'Down.'))
        nova_failed, placement_failed = threading.Event(), threading.Event()
        if nova_first:
            self.wrap('read', after=nova_failed)
            self.wrap('traits_named', before=nova_failed,
                      after=placement_failed, module=providers)
        else:
            self.wrap('traits_named', after=placement_failed,
                      module=providers)
            self.wrap('read', before=placement_failed, after=nova_failed)
        out, err, code = self.openstack()
        self.assertTrue(nova_failed.is_set() and placement_failed.is_set())
        return err, code

    # Nova's error, whichever fails first.
    NOVA_ERROR = (
        'Cannot read the servers, migrations, hypervisors and aggregates of '
        'the compute API: the compute API answered HTTP 403: {"forbidden": '
        '{"message": "Policy"}}\n')

    def test_both_fail_nova_first(self):
        self.assertEqual((self.NOVA_ERROR, 1),
                         self.both_fail(nova_first=True))

    def test_both_fail_placement_first(self):
        self.assertEqual((self.NOVA_ERROR, 1),
                         self.both_fail(nova_first=False))

    def test_placement_fails_alone_its_error(self):
        self.requests_mock.get(
            URL + '/traits?name=startswith:OWNER_', complete_qs=True,
            status_code=503, json=base.placement_error(503, 'Down.'))
        out, err, code = self.openstack()
        self.assertEqual(1, code)
        self.assertEqual(1, len(err.strip().splitlines()), err)
        self.assertIn('Down.', err)


CN2 = '10000000-0000-0000-0000-000000000002'


class TestSelection(AuditCase):
    """cn1 given (by name or aggregate); S1 on cn2 holds on both.

    The source of an evacuation whose compute never cleaned up: only
    cn1's allocations are read, then S1 whole, its kind decided by its
    part on cn2.
    """

    def setUp(self):
        super().setUp()
        mock = self.requests_mock
        both = [base.provider(CN1, 'cn1'), base.provider(CN2, 'cn2')]
        mock.get(URL + '/resource_providers', complete_qs=True,
                 json={'resource_providers': both})
        mock.get(URL + '/resource_providers?required=COMPUTE_NODE',
                 complete_qs=True, json={'resource_providers': both})
        mock.get(URL + '/resource_providers?required=OWNER_NOVA',
                 complete_qs=True, json={'resource_providers': both})
        mock.get(URL + '/resource_providers?name=cn1', complete_qs=True,
                 json={'resource_providers': both[:1]})
        mock.get(URL + '/resource_providers?member_of=' + AGG,
                 complete_qs=True, json={'resource_providers': both[:1]})
        mock.get(URL + '/resource_providers/%s/allocations' % CN1, json={
            'resource_provider_generation': 3, 'allocations': {
                S1: {'resources': SMALL}}})
        mock.get(URL + '/allocations/' + S1, json=base.consumer(
            {CN1: SMALL, CN2: SMALL}, generation=5, project='p', user='u'))
        mock.get(URL + '/usages?project_id=p&user_id=u', complete_qs=True,
                 json={'usages': {rc: 2 * n for rc, n in SMALL.items()}})
        on_cn2 = dict(_server(S1), **{
            'OS-EXT-SRV-ATTR:hypervisor_hostname': 'cn2',
            'OS-EXT-SRV-ATTR:host': 'host2'})
        mock.get(NOVA + '/servers/detail', json={'servers': [on_cn2]})
        mock.get(NOVA + '/servers/' + S1, json={'server': on_cn2})
        mock.get(NOVA + '/os-hypervisors/detail', json={'hypervisors': [
            {'id': uuid, 'hypervisor_hostname': name,
             'service': {'host': host}} for uuid, name, host in (
                (CN1, 'cn1', 'host1'), (CN2, 'cn2', 'host2'))]})

    EVACUATED = {
        'problem': 'evacuated', 'resource_provider': 'cn1',
        'consumer': S1, 'server': 'vm1 (ACTIVE)',
        'detail': 'Server on cn2 (its hypervisor) also holds DISK_GB=10, '
                  'MEMORY_MB=512, VCPU=1 on cn1, with no migration in '
                  'progress.',
        'fix': 'remove its allocations on cn1'}

    def allocation_reads(self):
        return [path for method, path in self.placement_sent()
                if 'allocations' in path]

    def test_named_source_is_evacuated_reading_the_server_whole(self):
        out, err, code = self.openstack('cn1', '-f', 'json')
        self.assertEqual(('', 3), (err, code))
        self.assertEqual([self.EVACUATED], json.loads(out))
        # cn2's allocations are never read: S1 alone, once (the owner
        # check does not read it again).
        self.assertEqual(['/resource_providers/%s/allocations' % CN1,
                          '/allocations/' + S1], self.allocation_reads())

    def test_aggregate_selects_the_same(self):
        out, err, code = self.openstack('--aggregate', AGG, '-f', 'json')
        self.assertEqual(('', 3), (err, code))
        self.assertEqual([self.EVACUATED], json.loads(out))
        self.assertEqual(['/resource_providers/%s/allocations' % CN1,
                          '/allocations/' + S1], self.allocation_reads())

    def test_fix_removes_only_cn1_s_part(self):
        undo = os.path.join(self.dir, 'undo.json')
        out, err, code = self.openstack('cn1', '--fix', '--undo-file', undo,
                                        '-f', 'json')
        self.assertEqual(('', 4), (err, code))
        self.assertEqual({S1: {'allocations': {CN2: {'resources': SMALL}},
                               'project_id': 'p', 'user_id': 'u',
                               'consumer_generation': 5,
                               'consumer_type': 'INSTANCE'}},
                         self.post.last_request.json())

    def test_a_healthy_selection_reads_no_server(self):
        self.requests_mock.get(NOVA + '/servers/detail', json={
            'servers': [_server(S1)]})
        self.requests_mock.get(URL + '/usages?project_id=p&user_id=u',
                               complete_qs=True, json={'usages': SMALL})
        out, err, code = self.openstack('cn1', '-f', 'json')
        self.assertEqual(('[]', '', 0), (out.strip(), err, code))
        self.assertEqual(['/resource_providers/%s/allocations' % CN1],
                         self.allocation_reads())
