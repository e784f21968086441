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

"""``audit --fix`` on a cloud that moves while it runs.

The cloud of ``test_audit``; Nova changes just after the audit has read
its lists of servers (the compute API's answers are requests-mock's,
Placement is real): a server booted with the UUID of a consumer the
lists called an orphan, a missing server deleted or shelved offloaded,
an evacuation started of a server whose source part was to be removed.
Each fix is dropped with one line, its row says why, and Placement keeps
what it held; the other fixes are written. ``--dry-run`` says the same.
"""

import os
import threading
import urllib.parse

import requests_mock

from osc_placement.tests.functional import test_audit

A = test_audit


class TestMovingCloud(A.AuditTestCase):

    def setUp(self):
        super().setUp()
        self.changes = []
        self.down = False
        lock = threading.Lock()

        def change_before_reading_again(request):
            # Nova changes once its lists have been read: before the
            # first request that reads a server or its migrations again.
            query = urllib.parse.parse_qs(request.query)
            if request.path.endswith('/servers/detail') or not (
                    '/servers/' in request.path
                    or 'instance_uuid' in query or 'changes-since' in query):
                return None
            with lock:
                for change in self.changes:
                    change()
                self.changes = []
            if self.down and '/servers/' not in request.path:
                return requests_mock.create_response(
                    request, status_code=503, json={'error': 'down'})
            return None

        self.nova.add_matcher(change_before_reading_again)

    def _boot(self):
        self.servers.append(A._server(A.X_ORPHAN, 'srv-new', 'cn2'))

    def _delete(self):
        self.servers[:] = [s for s in self.servers
                           if s['id'] != A.S_MISSING]

    def _evacuate(self):
        self.migrations.append(dict(
            A._migration(A._uuid('a161', 9), A.S_EVACUATED, 'accepted', 0),
            migration_type='evacuation'))

    def _fix(self, *more):
        undo = os.path.join(self.dir, 'undo.json')
        return self.audit('--fix', '--undo-file', undo, *more)

    def test_a_server_booted_meanwhile_is_no_orphan(self):
        self.changes = [self._boot]
        before = self.allocations()
        rows, err, code = self._fix('--check', 'orphan')
        self.assertEqual(4, code)
        self.assertEqual(
            ['Not fixed: consumer %s: Nova has a server srv-new (ACTIVE) '
             'now (Nova read again just before the write).' % A.X_ORPHAN],
            err.splitlines())
        self.assertEqual(
            'none: Nova has a server srv-new (ACTIVE) now (read again)',
            self.row(rows, A.X_ORPHAN)['fix'])
        after = self.allocations()
        self.assertEqual(before[A.X_ORPHAN], after[A.X_ORPHAN])
        # The other orphans are fixed.
        self.assertNotIn(A.S_DELETED, after)
        self.assertNotIn(A.X_SHARED, after)

    def test_a_server_deleted_meanwhile_gets_no_allocations(self):
        self.changes = [self._delete]
        rows, err, code = self._fix('--check', 'missing')
        self.assertEqual(3, code)
        self.assertEqual(
            ['Not fixed: consumer %s: its server srv-missing (ACTIVE) is '
             'deleted now (Nova read again just before the write).'
             % A.S_MISSING], err.splitlines())
        self.assertEqual(
            'none: its server srv-missing (ACTIVE) is deleted now (read '
            'again)', self.row(rows, A.S_MISSING)['fix'])
        self.assertNotIn(A.S_MISSING, self.allocations())
        self.assertFalse(os.path.exists(os.path.join(self.dir,
                                                     'undo.json.aggregates')))

    def test_a_server_shelved_offloaded_meanwhile_gets_no_allocations(self):
        def shelve():
            for body in self.servers:
                if body['id'] == A.S_MISSING:
                    body.update({'status': 'SHELVED_OFFLOADED',
                                 'OS-EXT-SRV-ATTR:host': None,
                                 'OS-EXT-SRV-ATTR:hypervisor_hostname': None})
        self.changes = [shelve]
        before = self.state()
        rows, err, code = self._fix('--check', 'missing')
        self.assertEqual(3, code)
        self.assertEqual(
            ['Not fixed: consumer %s: the status of its server is '
             'SHELVED_OFFLOADED now (ACTIVE when read) (Nova read again just '
             'before the write).' % A.S_MISSING], err.splitlines())
        self.assertEqual(
            'none: the status of its server is SHELVED_OFFLOADED now '
            '(ACTIVE when read) (read again)',
            self.row(rows, A.S_MISSING)['fix'])
        # S_TASK's row is a guard (no fix): nothing written at all.
        self.assertEqual(before, self.state())

    def test_an_evacuation_started_meanwhile_keeps_both_parts(self):
        self.changes = [self._evacuate]
        before = self.allocations()
        rows, err, code = self._fix('--check', 'evacuated')
        self.assertEqual(3, code)
        self.assertEqual(
            ['Not fixed: consumer %s: a migration of its server is in '
             'progress now (%s) (Nova read again just before the write).'
             % (A.S_EVACUATED, A._uuid('a161', 9))], err.splitlines())
        self.assertTrue(self.row(rows, A.S_EVACUATED)['fix'].startswith(
            'none: a migration of its server is in progress now'))
        self.assertEqual(before, self.allocations())

    def test_a_dry_run_says_the_same(self):
        self.changes = [self._boot]
        before = self.state()
        rows, err, code = self._fix('--check', 'orphan', '--dry-run')
        self.assertEqual(3, code)
        self.assertEqual(
            ['Not fixed: consumer %s: Nova has a server srv-new (ACTIVE) '
             'now (Nova read again just before the write).' % A.X_ORPHAN,
             'Dry run: 2 consumers would be written in one request, and '
             'the aggregates of 0 providers; nothing was sent.'],
            err.splitlines())
        self.assertEqual(
            'none: Nova has a server srv-new (ACTIVE) now (read again)',
            self.row(rows, A.X_ORPHAN)['fix'])
        self.assertEqual(before, self.state())

    def test_nova_unreadable_before_the_write_writes_nothing(self):
        before = self.state()
        self.changes = [lambda: setattr(self, 'down', True)]
        _rows, err, code = self._fix('--check', 'orphan')
        self.assertEqual(1, code)
        self.assertEqual(
            ['Cannot read the servers and migrations to fix, again: the '
             'compute API answered HTTP 503: Service Unavailable'],
            err.splitlines()[-1:])
        self.assertEqual(before, self.state())
        self.assertFalse(os.path.exists(os.path.join(self.dir,
                                                     'undo.json')))
