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

"""osc_placement.cli.audit: which providers an audit reads, what it judges.

The reads and the fix are tested through the command
(``tests/unit/resources/test_audit.py``).
"""

import datetime

from osc_lib import exceptions
from oslotest import base

from osc_placement.cli import audit
from osc_placement.model.audit import findings
from osc_placement.model.audit import state

Kind = findings.Kind


def rp(uuid, root=None, traits=()):
    return state.provider({'uuid': uuid, 'root_provider_uuid': root or uuid},
                          traits)


class TestAudited(base.BaseTestCase):

    EVERY = {'cn': rp('cn', traits=['COMPUTE_NODE']),
             'gpu': rp('gpu', root='cn'),
             'nfs': rp('nfs', traits=['MISC_SHARES_VIA_AGGREGATE']),
             'dev': rp('dev', root='cn', traits=['OWNER_CYBORG']),
             'both': rp('both', root='cn', traits=['OWNER_CYBORG',
                                                   'OWNER_NOVA']),
             'bw': rp('bw', traits=['OWNER_NEUTRON']),
             'misc': rp('misc')}

    def test_compute_trees_and_sharing_never_another_service_s(self):
        self.assertEqual(['cn', 'gpu', 'nfs', 'both'],
                         list(audit.audited(self.EVERY, None)))

    def test_a_selection(self):
        self.assertEqual(['gpu'], list(audit.audited(self.EVERY,
                                                     {'gpu', 'misc'})))


class TestJudge(base.BaseTestCase):
    """judge(): the kinds asked, those left unchecked, and nothing judged."""

    NOW = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)

    def cloud(self, audited):
        every = TestAudited.EVERY
        return state.Cloud([], [], [state.Hypervisor('cn', 'cn', 'h')], [],
                           {uuid: every[uuid] for uuid in audited}, {},
                           now=self.NOW, selected=True, known=every)

    def test_only_cloud_kinds_of_no_compute_root_is_an_error(self):
        exc = self.assertRaises(
            exceptions.CommandError, audit.judge, self.cloud(['nfs', 'gpu']),
            [Kind.PROVIDER, Kind.AGGREGATE])
        self.assertEqual(
            "Nothing was audited: aggregate, provider: no compute node's "
            "root provider is among those audited.", str(exc))

    def test_with_consumer_kinds_the_cloud_kinds_are_unchecked(self):
        result = audit.judge(self.cloud(['nfs']), [Kind.ORPHAN,
                                                   Kind.PROVIDER])
        self.assertEqual([], result.findings)
        self.assertEqual([Kind.PROVIDER], list(result.unchecked))

    def test_a_compute_root_audited_is_judged(self):
        result = audit.judge(self.cloud(['cn']), [Kind.PROVIDER])
        self.assertEqual(({}, []), (result.unchecked, result.findings))

    def test_an_unreadable_kind_is_unchecked_with_why(self):
        c = self.cloud(['cn'])
        c.unreadable[Kind.OWNER] = 'the owners could not be read'
        result = audit.judge(c, [Kind.OWNER, Kind.PROVIDER])
        self.assertEqual({Kind.OWNER: (None, 'the owners could not be read')},
                         result.unchecked)
