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

"""The owner check's sums of usages, read at a microversion that works.

From 1.38 ``GET /usages?project_id=&user_id=`` sums by consumer type as
well, in another shape; Placement 16.0.0 runs that query as invalid SQL
on PostgreSQL (an error 500; ``tests/e2e_nova`` runs the audit there).
The audit asks for the sums at 1.37 whatever the session's microversion:
at 1.38 and later, the sums by class it compares were never there, and
every server of every pair was read one by one.
"""

from osc_lib import exceptions

from osc_placement.tests.functional import test_audit


class TestUsagesRead(test_audit.AuditTestCase):

    def _sent(self):
        sent = []
        self.before_request(
            lambda method, url, kwargs: sent.append(
                (method, url, kwargs.get('version'),
                 dict(kwargs.get('params') or {}))))
        return sent

    def test_usages_are_asked_at_1_37_from_a_later_session(self):
        sent = self._sent()
        rows, _err, code = self.audit('--check', 'owner')
        self.assertEqual(3, code)
        self.assertEqual(
            [test_audit.S_OWNER], [row['consumer'] for row in rows])
        usages = [(version, params) for method, url, version, params in sent
                  if url.endswith('/usages')]
        self.assertEqual(
            [('1.37', {'project_id': test_audit.PROJECT,
                       'user_id': test_audit.USER})], usages)


class TestUsagesFail(test_audit.AuditTestCase):
    """A read that fails for one kind never voids the others."""

    def test_the_owners_unread_the_other_kinds_checked(self):
        def fail(method, url, kwargs):
            raise exceptions.ClientException(
                500, 'GET /usages: Internal Server Error')

        self.before_request(fail, method='GET', url='/usages')
        rows, err, code = self.audit()
        self.assertEqual(1, code)
        expected = dict(test_audit.EXPECTED)
        del expected['owner']
        self.assertEqual(expected, self.by_kind(rows))
        # The rows' kinds unchecked first, then the batch report.
        self.assertEqual(
            ['Not checked: owner: Placement could not give the owners of '
             'the allocations.',
             'Failed to read usages of project/user %s/%s: GET /usages: '
             'Internal Server Error (HTTP 500)' % (test_audit.PROJECT,
                                                   test_audit.USER),
             'Failed to read 1 of 1 usages of projects and users.'],
            err.splitlines())
