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

"""An audit's findings (``model/audit/findings.py``): fixes and rows.

What the ``fix`` column says of each action, ``done:`` once written (and
only for a fix that writes), and the order of the rows: kind, then
provider order, then consumer.
"""

from oslotest import base

from osc_placement.model.audit import findings

NAMES = {'rp-a': 'alpha', 'rp-b': 'beta'}


class Server(object):

    def shown(self):
        return 'vm-1 (s-1)'


def finding(kind, provider, consumer, fix, server=None):
    return findings.Finding(kind, provider, consumer, server, 'why', fix)


class TestFixText(base.BaseTestCase):

    def test_each_action(self):
        fixes = [
            findings.none('Nova still runs it'),
            findings.fix(findings.Action.REMOVE),
            findings.fix(findings.Action.REMOVE_PROVIDERS,
                         providers=['rp-a', 'rp-b']),
            findings.fix(findings.Action.CREATE, allocations={
                'rp-b': {'VCPU': 2, 'MEMORY_MB': 512},
                'rp-a': {'DISK_GB': 1}}),
            findings.fix(findings.Action.SET_OWNER, owner=('p1', 'u1')),
            findings.fix(findings.Action.ADD_AGGREGATE, aggregate='agg-1'),
            findings.fix(findings.Action.REMOVE_AGGREGATE,
                         aggregate='agg-2'),
        ]
        self.assertEqual(
            ['none: Nova still runs it',
             'remove its allocations',
             'remove its allocations on alpha, beta',
             'allocate DISK_GB=1 on alpha; MEMORY_MB=512, VCPU=2 on beta',
             'set project p1 and user u1',
             'add aggregate agg-1',
             'remove aggregate agg-2'],
            [findings.fix_text(finding(findings.Kind.ORPHAN, 'rp-a', 'c',
                                       f), NAMES.get) for f in fixes])

    def test_writes_and_of_aggregates(self):
        self.assertEqual(
            [(False, False), (True, False), (True, True)],
            [(f.writes, f.of_aggregates) for f in (
                findings.none('no'), findings.fix(findings.Action.REMOVE),
                findings.fix(findings.Action.ADD_AGGREGATE,
                             aggregate='a'))])


class TestRows(base.BaseTestCase):

    def test_ordered_by_kind_provider_consumer(self):
        order = ['rp-b', 'rp-a'].index
        remove = findings.fix(findings.Action.REMOVE)
        found = [
            finding(findings.Kind.ORPHAN, 'rp-a', 'c2', remove),
            finding(findings.Kind.ORPHAN, 'rp-a', 'c1', remove),
            finding(findings.Kind.ORPHAN, 'rp-b', 'c3', remove),
            finding(findings.Kind.MIGRATION, 'rp-a', 'c9', remove),
        ]
        self.assertEqual(
            [('migration', 'c9'), ('orphan', 'c3'), ('orphan', 'c1'),
             ('orphan', 'c2')],
            [(f.kind.value, f.consumer)
             for f in findings.ordered(found, order)])

    def test_rows_say_done_only_of_a_write(self):
        found = [
            finding(findings.Kind.ORPHAN, 'rp-a', 'c1',
                    findings.fix(findings.Action.REMOVE), Server()),
            finding(findings.Kind.PROVIDER, None, None,
                    findings.none('not ours')),
        ]
        self.assertEqual(
            [('orphan', 'alpha', 'c1', 'vm-1 (s-1)', 'why',
              'done: remove its allocations'),
             ('provider', '', '', '', 'why', 'none: not ours')],
            findings.rows(found, NAMES.get, done=True))
