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

"""osc_placement.cli.audit: which providers an audit reads.

The reads and the fix are tested through the command
(``tests/unit/resources/test_audit.py``).
"""

from oslotest import base

from osc_placement.cli import audit
from osc_placement.model.audit import state


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
