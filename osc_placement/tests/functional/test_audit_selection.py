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

"""An audit of some providers never says "all clear" for what it skipped.

The cloud of ``test_audit``: a provider given that is not audited (a
device of Cyborg's, no compute node's tree, not sharing) is said in one
line, and when nothing given is audited the command fails (exit 1); so
does an aggregate without providers; providers that hold nothing say so.
The providers and aggregates are judged on compute nodes' roots: a
selection without one says those kinds were not checked, and fails when
they are all it was asked.
"""

from osc_placement.tests.functional import test_audit

A = test_audit
UNKNOWN_AGG = A._uuid('a99e', 9)


class TestSelection(A.AuditTestCase):

    def test_nothing_audited_is_an_error(self):
        rows, err, code = self.audit('cn1_fpga0')
        self.assertEqual((None, 1), (rows, code))
        self.assertEqual(
            ["Nothing was audited: cn1_fpga0: neither in a compute node's "
             "tree nor sharing, or another service's."], err.splitlines())

    def test_some_not_audited_are_said(self):
        rows, err, code = self.audit('cn1_fpga0', 'cn1', '--check', 'owner')
        self.assertEqual(3, code)
        self.assertEqual(
            ["Not audited: cn1_fpga0: neither in a compute node's tree nor "
             "sharing, or another service's."], err.splitlines())
        self.assertEqual([A.S_OWNER], [r['consumer'] for r in rows])

    def test_an_aggregate_without_providers_is_an_error(self):
        rows, err, code = self.audit('--aggregate', UNKNOWN_AGG)
        self.assertEqual((None, 1), (rows, code))
        self.assertEqual(
            ['Nothing was audited: aggregate %s has no resource provider.'
             % UNKNOWN_AGG], err.splitlines())

    def test_providers_holding_nothing_say_so(self):
        rows, err, code = self.audit('cn-stale', '--check', 'orphan')
        self.assertEqual(([], 0), (rows, code))
        self.assertEqual(
            ['The providers audited hold no allocations: no consumer on '
             'them was checked.'], err.splitlines())

    def test_cloud_kinds_of_no_compute_root_are_an_error(self):
        before = self.state()
        rows, err, code = self.audit('shared-disk', '--check', 'provider',
                                     '--check', 'aggregate')
        self.assertEqual((None, 1), (rows, code))
        self.assertEqual(
            ["Nothing was audited: aggregate, provider: no compute node's "
             "root provider is among those audited."], err.splitlines())
        self.assertEqual(before, self.state())
