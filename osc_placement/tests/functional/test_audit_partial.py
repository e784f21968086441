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

"""An audit's read that fails for one kind never voids the others.

The cloud of ``test_audit``, a Placement read failing (an error 500
raised before the request is sent): the members of an aggregate, which
only the ``aggregate`` kind needs, and the allocations of a server read
whole, which only the kinds that judge a server by all it holds need
(with providers given), and the consumers of the owner check. The rows
of the other kinds are printed, one ``Not checked:`` line names each kind
not checked, the failures are the batch report's, exit 1; the fixes of
the kinds checked are written. A consumer a fix cannot read again just
before its write is another matter: nothing is written, no rows.
"""

from osc_lib import exceptions

from osc_placement.tests.functional import test_audit

A = test_audit


def _fail(method, url, kwargs):
    raise exceptions.ClientException(500, 'Internal Server Error')


def _once(fail):
    """``fail`` the first time alone: a server error of a moment."""
    done = []

    def action(method, url, kwargs):
        if not done:
            done.append(url)
            fail(method, url, kwargs)
    return action


class TestPartialReads(A.AuditTestCase):

    def test_the_aggregates_members_unread_the_other_kinds_checked(self):
        def fail_members(method, url, kwargs):
            if (kwargs.get('params') or {}).get('member_of') == A.AGG_REMOVE:
                _fail(method, url, kwargs)

        self.before_request(fail_members, method='GET',
                            url='/resource_providers')
        before = self.state()
        rows, err, code = self.audit()
        self.assertEqual(1, code)
        expected = dict(A.EXPECTED)
        del expected['aggregate']
        self.assertEqual(expected, self.by_kind(rows))
        self.assertEqual(
            ['Not checked: aggregate: Placement could not give the members '
             'of the aggregates.',
             'Failed to read members of aggregate %s: Internal Server Error '
             '(HTTP 500)' % A.AGG_REMOVE,
             'Failed to read 1 of 2 members of aggregates.'],
            err.splitlines())
        self.assertEqual(before, self.state())

    def test_a_server_read_whole_unread_its_kinds_unchecked(self):
        # The owner check reads it again later, and gets it.
        self.before_request(_once(_fail), method='GET',
                            url='/allocations/' + A.S_EVACUATED)
        rows, err, code = self.audit('cn1')
        self.assertEqual(1, code)
        # cn1's orphan, migrations, owner and aggregates are judged; the
        # kinds that judge a server by all it holds are not.
        self.assertEqual(
            {'aggregate': [('cn1', 'add aggregate ' + A.AGG_ADD)],
             'migration': [A.M_CONFIRMED, A.M_RECENT],
             'orphan': [A.S_DELETED], 'owner': [A.S_OWNER]},
            self.by_kind(rows))
        why = ('Placement could not give all that the servers on the '
               'providers given hold.')
        self.assertEqual(
            ['Not checked: %s: %s' % (kind, why) for kind in (
                'evacuated', 'wrong-host', 'missing', 'flavor')] +
            ['Failed to read allocations of consumer %s: Internal Server '
             'Error (HTTP 500)' % A.S_EVACUATED,
             'Failed to read 1 of 3 allocations.'],
            err.splitlines())

    def test_a_fix_of_the_other_kinds_is_written(self):
        self.before_request(_fail, method='GET',
                            url='/allocations/' + A.S_EVACUATED)
        undo = self.dir + '/undo.json'
        rows, err, code = self.audit('cn1', '--check', 'orphan',
                                     '--check', 'evacuated', '--fix',
                                     '--undo-file', undo)
        self.assertEqual(1, code)
        self.assertEqual({'orphan': [A.S_DELETED]}, self.by_kind(rows))
        self.assertEqual('done: remove its allocations on cn1',
                         self.row(rows, A.S_DELETED)['fix'])
        after = self.allocations()
        self.assertNotIn(A.S_DELETED, after)
        self.assertIn(A.S_EVACUATED, after)
        self.assertIn('Not checked: evacuated:', err)

    def test_the_owners_unread_the_fix_of_the_others_is_written(self):
        # The owner check's read of an orphan fails once; the fix reads it
        # again just before the write, and gets it.
        self.before_request(_once(_fail), method='GET',
                            url='/allocations/' + A.X_ORPHAN)
        undo = self.dir + '/undo.json'
        rows, err, code = self.audit('--check', 'orphan', '--check',
                                     'owner', '--fix', '--undo-file', undo)
        self.assertEqual(1, code)
        self.assertEqual(
            ['Not checked: owner: Placement could not give the owners of '
             'the allocations.',
             'Failed to read consumer %s: Internal Server Error (HTTP 500)'
             % A.X_ORPHAN,
             'Failed to read 1 of 5 consumers.'], err.splitlines())
        self.assertEqual({'orphan': A.EXPECTED['orphan']},
                         self.by_kind(rows))
        self.assertEqual(['done: remove its allocations'] * 3,
                         [r['fix'] for r in rows])
        after = self.allocations()
        self.assertEqual([], [c for c in A.EXPECTED['orphan'] if c in after])

    def test_a_consumer_to_fix_unread_writes_nothing(self):
        self.before_request(_fail, method='GET',
                            url='/allocations/' + A.X_ORPHAN)
        before = self.state()
        undo = self.dir + '/undo.json'
        rows, err, code = self.audit('--check', 'orphan', '--fix',
                                     '--undo-file', undo)
        self.assertEqual((None, 1), (rows, code))
        self.assertEqual(
            ['Failed to read consumer %s: Internal Server Error (HTTP 500)'
             % A.X_ORPHAN,
             'Failed to read 1 of 3 consumers; no rows printed.'],
            err.splitlines())
        self.assertEqual(before, self.state())


class TestHypervisorsUnread(A.AuditTestCase):

    def test_the_kinds_that_need_them_unchecked_exit_1(self):
        # The compute API answers an error: the kinds judged on the
        # hypervisors are not checked, which is no "all clear".
        self.nova.get(A.NOVA + '/os-hypervisors/detail', status_code=500,
                      json={})
        before = self.state()
        rows, err, code = self.audit()
        self.assertEqual(1, code)
        # The other kinds' rows are printed (orphans but those a down
        # cell may hold), nothing is written.
        self.assertEqual(
            {'migration': A.EXPECTED['migration'],
             'orphan': [A.S_DELETED], 'owner': A.EXPECTED['owner'],
             'flavor': A.EXPECTED['flavor']}, self.by_kind(rows))
        why = ('the compute API cannot list the hypervisors (a cell '
               'down?) (HTTP 500).')
        self.assertEqual(
            ['Not checked: %s: %s' % (kind, why) for kind in (
                'evacuated', 'wrong-host', 'missing', 'aggregate',
                'provider')] +
            ['Not checked: orphan, for 2 consumers: a cell is down: it '
             'may be one of its servers.'], err.splitlines())
        self.assertEqual(before, self.state())
