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

"""osc_placement.model.audit.plan: the write of the fixes, and the undo."""

from oslotest import base

from osc_placement.model.audit import findings
from osc_placement.model.audit import plan
from osc_placement.tests.unit.model.audit import test_rules as t

Action = findings.Action


def finding(consumer, fix, provider=t.CN1):
    return findings.Finding(findings.Kind.ORPHAN, provider, consumer, None,
                            '', fix)


def record(held, generation=4, project='p', user='u'):
    return {'allocations': {rp: {'resources': r} for rp, r in held.items()},
            'project_id': project, 'user_id': user,
            'consumer_generation': generation if held else None}


class TestConsumerWrites(base.BaseTestCase):

    def test_remove(self):
        writes, before, stale = plan.consumer_writes(
            [finding(t.X1, findings.fix(Action.REMOVE))],
            {t.X1: record({t.CN1: {'VCPU': 1}})})
        self.assertEqual({t.X1: dict(record({}), consumer_generation=4)},
                         writes)
        self.assertEqual({t.X1: record({t.CN1: {'VCPU': 1}})}, before)
        self.assertEqual([], stale)

    def test_remove_providers_keeps_the_rest(self):
        writes, _before, _stale = plan.consumer_writes(
            [finding(t.S1, findings.fix(Action.REMOVE_PROVIDERS,
                                        providers=[t.CN1]))],
            {t.S1: record({t.CN1: t.SMALL, t.CN2: t.SMALL})})
        self.assertEqual({t.CN2: {'resources': t.SMALL}},
                         writes[t.S1]['allocations'])
        self.assertEqual(4, writes[t.S1]['consumer_generation'])

    def test_create_a_new_consumer(self):
        writes, before, _stale = plan.consumer_writes(
            [finding(t.S1, findings.fix(
                Action.CREATE, allocations={t.CN1: t.SMALL},
                owner=('p', 'u')))], {t.S1: {'allocations': {}}})
        self.assertEqual({'allocations': {t.CN1: {'resources': t.SMALL}},
                          'project_id': 'p', 'user_id': 'u',
                          'consumer_generation': None,
                          'consumer_type': 'INSTANCE'}, writes[t.S1])
        self.assertEqual({t.S1: {'allocations': {}}}, before)

    def test_set_owner(self):
        writes, _before, _stale = plan.consumer_writes(
            [finding(t.S1, findings.fix(Action.SET_OWNER,
                                        owner=('p', 'u')))],
            {t.S1: record({t.CN1: t.SMALL}, project='q', user='v')})
        self.assertEqual(('p', 'u', 4), (
            writes[t.S1]['project_id'], writes[t.S1]['user_id'],
            writes[t.S1]['consumer_generation']))

    def test_stale_fixes_are_left_out(self):
        found = [
            finding(t.X1, findings.fix(Action.REMOVE)),
            finding(t.S1, findings.fix(Action.CREATE,
                                       allocations={t.CN1: t.SMALL},
                                       owner=('p', 'u'))),
            finding(t.S2, findings.fix(Action.REMOVE_PROVIDERS,
                                       providers=[t.CN1]))]
        writes, before, stale = plan.consumer_writes(found, {
            t.X1: {'allocations': {}},
            t.S1: record({t.CN1: t.SMALL}),
            t.S2: record({t.CN2: t.SMALL})})
        self.assertEqual(({}, {}), (writes, before))
        self.assertEqual(['it holds nothing now',
                          'it holds allocations now',
                          'it holds nothing there now'],
                         [why for _f, why in stale])

    def test_no_fix_and_aggregates_are_not_consumer_writes(self):
        writes, _before, _stale = plan.consumer_writes(
            [finding(t.X1, findings.none('why')),
             finding(None, findings.fix(Action.ADD_AGGREGATE,
                                        aggregate=t.AGG))], {})
        self.assertEqual({}, writes)


class TestAggregates(base.BaseTestCase):

    def test_add_and_remove_keep_the_others(self):
        other = 'bbbbbbbb-0000-0000-0000-000000000000'
        writes = plan.aggregate_writes([
            finding(None, findings.fix(Action.ADD_AGGREGATE,
                                       aggregate=t.AGG)),
            finding(None, findings.fix(Action.REMOVE_AGGREGATE,
                                       aggregate=other), provider=t.CN2)],
            {t.CN1: [other], t.CN2: [other, t.AGG]})
        self.assertEqual({t.CN1: ([other], [other, t.AGG]),
                          t.CN2: ([other, t.AGG], [t.AGG])}, writes)

    def test_already_there_is_no_write(self):
        self.assertEqual({}, plan.aggregate_writes([finding(
            None, findings.fix(Action.ADD_AGGREGATE, aggregate=t.AGG))],
            {t.CN1: [t.AGG]}))

    def test_undo_lists_the_commands(self):
        text = plan.aggregate_undo({t.CN1: ([], [t.AGG])}, {t.CN1: 'cn1'})
        self.assertIn('# cn1\nopenstack --os-placement-api-version 1.19 '
                      'resource provider aggregate set --generation '
                      '<generation> %s\n' % t.CN1, text)


class TestOwnerSuspects(base.BaseTestCase):

    def test_usages_equal_nothing_to_read(self):
        c = t.cloud([t.server()], allocations={t.S1: {t.CN1: t.SMALL}})
        self.assertEqual([], plan.owner_suspects(c, {('p', 'u'): dict(
            t.SMALL, PCPU=0)}))

    def test_usages_differ_read_the_pair_s_servers(self):
        c = t.cloud([t.server(), t.server(t.S2, project='q')],
                    allocations={t.S1: {t.CN1: t.SMALL},
                                 t.S2: {t.CN1: t.SMALL}})
        self.assertEqual([t.S1], plan.owner_suspects(c, {
            ('p', 'u'): {}, ('q', 'u'): t.SMALL}))
