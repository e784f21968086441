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

    def test_undo_carries_the_generation_after_the_write(self):
        text = plan.aggregate_undo(
            {t.CN1: ([t.AGG], []), t.CN2: ([], [t.AGG])},
            {t.CN1: 'cn1', t.CN2: 'cn2'}, {t.CN1: 7})
        self.assertIn('aggregate set --aggregate %s --generation 7 %s\n'
                      % (t.AGG, t.CN1), text)
        # Not written by the fix: nothing to undo.
        self.assertIn('# cn2\n# (its aggregates were not changed by the '
                      'fix: nothing to undo)\n', text)
        self.assertNotIn('<generation>', text)


S3 = '%08d-1111-1111-1111-111111111111' % 9
# A provider the audit does not read.
ELSEWHERE = 'eeeeeeee-0000-0000-0000-000000000000'
BIG = {'VCPU': 4, 'MEMORY_MB': 4096, 'DISK_GB': 40}


def owned(project, held, user='u'):
    """A consumer as Placement records it: (project, user, {rp: amounts})."""
    return project, user, held


def screen(c, placement):
    """The consumers the owner check reads, as cli/audit._owners does.

    ``placement``: {consumer: owned(...)}, every consumer Placement has
    (on the audited providers or not). Returns the consumers read, in
    the order read, and the owners found.
    """
    usages = {}
    for project, user, held in placement.values():
        total = usages.setdefault((project, user), {})
        for amounts in held.values():
            for rc, amount in amounts.items():
                total[rc] = total.get(rc, 0) + amount
    read, order = {}, []
    todo = plan.owner_others(c)
    while True:
        for consumer in todo:
            project, user, held = placement.get(consumer, (None, None, {}))
            read[consumer] = record(held, project=project, user=user)
            order.append(consumer)
        todo = plan.owner_suspects(
            c, {pair: usages.get(pair, {}) for pair in plan.owner_pairs(c)},
            read)
        if not todo:
            break
    return order, {consumer: (rec['project_id'], rec['user_id'])
                   for consumer, rec in read.items() if rec['allocations']}


class TestWholeWanted(base.BaseTestCase):

    KINDS = tuple(findings.Kind)

    def test_the_servers_whose_kind_depends_on_what_is_not_read(self):
        servers = [t.server(t.S1, node='cn2'),  # cn1's part read
                   t.server(t.S2),  # on cn1, nothing on cn1
                   t.server(t.M1),  # healthy on cn1
                   t.server(t.X1, status=t.state.SHELVED_OFFLOADED)]
        c = t.selection([t.CN1], {t.S1: {t.CN1: t.SMALL, t.CN2: t.SMALL},
                                  t.M1: {t.CN1: t.SMALL}}, servers)
        self.assertEqual([t.S1, t.S2], plan.whole_wanted(c, self.KINDS))

    def test_none_without_a_selection_or_kind_that_needs_them(self):
        servers = [t.server(t.S1, node='cn2'), t.server(t.S2)]
        held = {t.S1: {t.CN1: t.SMALL, t.CN2: t.SMALL}}
        self.assertEqual([], plan.whole_wanted(t.cloud(
            servers, allocations=held), self.KINDS))
        self.assertEqual([], plan.whole_wanted(t.selection(
            [t.CN1], held, servers), [findings.Kind.ORPHAN,
                                      findings.Kind.OWNER]))

    def test_not_its_sharing_disk_nor_during_a_migration(self):
        # Its disk on the sharing provider given says nothing of its host.
        servers = [t.server(t.S1, node='cn2'),
                   t.server(t.S2, node='cn2', task_state='resize_finish')]
        c = t.selection([t.SHARED, t.CN1], {
            t.S1: {t.CN2: t.SMALL, t.SHARED: {'DISK_GB': 10}},
            t.S2: {t.CN1: t.SMALL, t.CN2: t.SMALL}}, servers,
            migrations=[t.migration(srv=t.S2, status='finished')])
        self.assertEqual([], plan.whole_wanted(c, self.KINDS))


class TestOwnerSuspects(base.BaseTestCase):

    def test_usages_equal_nothing_to_read(self):
        c = t.cloud([t.server()], allocations={t.S1: {t.CN1: t.SMALL}})
        self.assertEqual([], plan.owner_suspects(c, {('p', 'u'): dict(
            t.SMALL, PCPU=0)}, {}))

    def test_usages_differ_read_the_pair_s_servers(self):
        c = t.cloud([t.server(), t.server(t.S2, project='q')],
                    allocations={t.S1: {t.CN1: t.SMALL},
                                 t.S2: {t.CN1: t.SMALL}})
        self.assertEqual([t.S1], plan.owner_suspects(c, {
            ('p', 'u'): {}, ('q', 'u'): t.SMALL}, {}))

    def test_the_others_are_every_consumer_but_the_live_servers(self):
        c = t.cloud(
            [t.server(), t.server(t.S2, status='DELETED'),
             t.server(S3, status='UNKNOWN', project=None, user=None)],
            [t.migration()],
            allocations={t.S1: {t.CN1: t.SMALL}, t.S2: {t.CN1: t.SMALL},
                         S3: {t.CN1: t.SMALL}, t.M1: {t.CN2: t.SMALL},
                         t.X1: {t.CN1: t.SMALL}})
        self.assertEqual(sorted([t.S2, S3, t.M1, t.X1]),
                         plan.owner_others(c))
        self.assertEqual({('p', 'u'): [t.S1]}, plan.owner_pairs(c))

    def test_orphans_in_the_servers_name_read_no_server(self):
        # The bench's cloud: one project, its orphans, its migrations'
        # and deleted servers' consumers in the servers' name.
        c = t.cloud([t.server(), t.server(t.S2),
                     t.server(S3, status='DELETED')], [t.migration()],
                    allocations={t.S1: {t.CN1: t.SMALL},
                                 t.S2: {t.CN2: t.SMALL},
                                 S3: {t.CN1: t.SMALL},
                                 t.M1: {t.CN2: t.SMALL},
                                 t.X1: {t.CN1: {'VCPU': 1}}})
        order, owners = screen(c, {
            t.S1: owned('p', {t.CN1: t.SMALL}),
            t.S2: owned('p', {t.CN2: t.SMALL}),
            S3: owned('p', {t.CN1: t.SMALL}),
            t.M1: owned('p', {t.CN2: t.SMALL}),
            t.X1: owned('p', {t.CN1: {'VCPU': 1}})})
        self.assertEqual(sorted([S3, t.M1, t.X1]), order)
        self.assertNotIn(t.S1, owners)

    def test_a_server_in_another_name_is_found_beside_an_orphan(self):
        c = t.cloud([t.server(), t.server(t.S2)],
                    allocations={t.S1: {t.CN1: t.SMALL},
                                 t.S2: {t.CN1: t.SMALL},
                                 t.X1: {t.CN1: t.SMALL}})
        order, owners = screen(c, {
            t.S1: owned('p', {t.CN1: t.SMALL}),
            t.S2: owned('admin', {t.CN1: t.SMALL}),
            t.X1: owned('p', {t.CN1: t.SMALL})})
        # Without X1 read, p's usages (S1 + X1) would equal S1 + S2.
        self.assertEqual([t.X1, t.S1, t.S2], order)
        self.assertEqual(('admin', 'u'), owners[t.S2])

    def test_a_swap_is_found_both_ways(self):
        c = t.cloud([t.server(), t.server(t.S2, project='q')],
                    allocations={t.S1: {t.CN1: t.SMALL},
                                 t.S2: {t.CN2: BIG}})
        order, owners = screen(c, {
            t.S1: owned('q', {t.CN1: t.SMALL}),
            t.S2: owned('p', {t.CN2: BIG})})
        self.assertEqual([t.S1, t.S2], order)
        self.assertEqual({t.S1: ('q', 'u'), t.S2: ('p', 'u')}, owners)

    def test_an_even_swap_is_found_once_one_side_differs(self):
        # S1 and S2, of one flavor, in each other's name: the sums of p
        # and q are as without the swap, but X1, in p's name, holds on
        # a provider not audited; so p's servers are read, S1 is then
        # counted under q, and q differs.
        c = t.cloud([t.server(), t.server(t.S2, project='q'),
                     t.server(S3)],
                    allocations={t.S1: {t.CN1: t.SMALL},
                                 t.S2: {t.CN1: t.SMALL},
                                 S3: {t.CN2: t.SMALL}})
        order, owners = screen(c, {
            t.S1: owned('q', {t.CN1: t.SMALL}),
            t.S2: owned('p', {t.CN1: t.SMALL}),
            S3: owned('p', {t.CN2: t.SMALL}),
            t.X1: owned('p', {ELSEWHERE: {'VCPU': 1}})})
        self.assertEqual([t.S1, S3, t.S2], order)
        self.assertEqual(('q', 'u'), owners[t.S1])
        self.assertEqual(('p', 'u'), owners[t.S2])

    def test_an_even_swap_alone_leaves_every_sum_unchanged(self):
        # The limit the docstring argues: no sum of Placement tells this
        # cloud from the one without the swap, so nothing is read.
        c = t.cloud([t.server(), t.server(t.S2, project='q')],
                    allocations={t.S1: {t.CN1: t.SMALL},
                                 t.S2: {t.CN1: t.SMALL}})
        order, _owners = screen(c, {
            t.S1: owned('q', {t.CN1: t.SMALL}),
            t.S2: owned('p', {t.CN1: t.SMALL})})
        self.assertEqual([], order)

    def test_a_selection_whose_servers_hold_on_providers_not_audited(self):
        # Only cn1 audited; S1 holds its disk elsewhere, and S2 is held
        # in admin's name: p's usages (all of S1) differ from what is
        # expected (S1's part on cn1 and S2), so both are read.
        c = t.cloud([t.server(), t.server(t.S2)],
                    providers={t.CN1: t.PROVIDERS[t.CN1]},
                    allocations={t.S1: {t.CN1: {'VCPU': 1,
                                                'MEMORY_MB': 512}},
                                 t.S2: {t.CN1: t.SMALL}}, selected=True)
        order, owners = screen(c, {
            t.S1: owned('p', {t.CN1: {'VCPU': 1, 'MEMORY_MB': 512},
                              ELSEWHERE: {'DISK_GB': 10}}),
            t.S2: owned('admin', {t.CN1: t.SMALL})})
        self.assertEqual([t.S1, t.S2], order)
        self.assertEqual({t.S1: ('p', 'u'), t.S2: ('admin', 'u')}, owners)

    def test_held_elsewhere_alone_reads_the_pair_once(self):
        # S1 holds on a provider not audited: p differs, its servers are
        # read once, and then nothing is left to read.
        c = t.cloud([t.server(), t.server(t.S2)],
                    providers={t.CN1: t.PROVIDERS[t.CN1]},
                    allocations={t.S1: {t.CN1: t.SMALL},
                                 t.S2: {t.CN1: t.SMALL}}, selected=True)
        order, owners = screen(c, {
            t.S1: owned('p', {t.CN1: t.SMALL, ELSEWHERE: {'DISK_GB': 5}}),
            t.S2: owned('p', {t.CN1: t.SMALL})})
        self.assertEqual([t.S1, t.S2], order)
        self.assertEqual({t.S1: ('p', 'u'), t.S2: ('p', 'u')}, owners)

    def test_a_device_class_held_elsewhere_reads_no_server(self):
        # S1's device is on another service's provider, not audited:
        # p differs only in a class no server holds on the providers
        # read.
        c = t.cloud([t.server(), t.server(t.S2)],
                    allocations={t.S1: {t.CN1: t.SMALL},
                                 t.S2: {t.CN1: t.SMALL}})
        order, _owners = screen(c, {
            t.S1: owned('p', {t.CN1: t.SMALL,
                              ELSEWHERE: {'CUSTOM_FPGA': 1}}),
            t.S2: owned('p', {t.CN1: t.SMALL})})
        self.assertEqual([], order)

    def test_a_device_class_and_a_server_in_another_name(self):
        c = t.cloud([t.server(), t.server(t.S2)],
                    allocations={t.S1: {t.CN1: t.SMALL},
                                 t.S2: {t.CN1: t.SMALL}})
        order, owners = screen(c, {
            t.S1: owned('p', {t.CN1: t.SMALL,
                              ELSEWHERE: {'CUSTOM_FPGA': 1}}),
            t.S2: owned('admin', {t.CN1: t.SMALL})})
        self.assertEqual([t.S1, t.S2], order)
        self.assertEqual(('admin', 'u'), owners[t.S2])

    def test_only_the_servers_holding_a_class_that_differs(self):
        # S2 holds a VGPU on cn1 too and is in admin's name: p's usages
        # (S1, and X1's held elsewhere) differ from S1 and S2 in VGPU
        # alone, so S2 is read first, and S1 is not.
        c = t.cloud([t.server(), t.server(t.S2)],
                    allocations={t.S1: {t.CN1: t.SMALL},
                                 t.S2: {t.CN1: dict(t.SMALL, VGPU=1)}})
        usages = {('p', 'u'): {rc: 2 * amount
                               for rc, amount in t.SMALL.items()}}
        self.assertEqual([t.S2], plan.owner_suspects(c, usages, {}))


class TestNovaChanged(base.BaseTestCase):
    """nova_changed(): the fixes Nova's state read again no longer gives."""

    KINDS = tuple(findings.Kind)

    def changed(self, c, servers, migrations=()):
        """[(consumer, why)] of the fixes of ``c`` dropped."""
        fixes = [f for f in t.found(c) if f.fix.writes]
        now = c.with_nova(servers, list(migrations))
        return [(f.consumer, why)
                for f, why in plan.nova_changed(c, now, fixes, self.KINDS)]

    def test_what_is_read_again(self):
        c = t.cloud([t.server(t.S1, node='cn2')], [t.migration()],
                    allocations={t.X1: {t.CN1: {'VCPU': 1}},
                                 t.S1: {t.CN2: t.SMALL},
                                 t.M1: {t.CN1: t.SMALL}})
        fixes = [f for f in t.found(c) if f.fix.writes]
        # An orphan as a server; a migration by its server.
        self.assertEqual({t.X1: t.X1, t.M1: t.S1},
                         plan.nova_subjects(c, fixes))

    def test_an_orphan_still_gone_keeps_its_fix(self):
        c = t.cloud(allocations={t.X1: {t.CN1: {'VCPU': 1}}})
        self.assertEqual([], self.changed(c, {t.X1: None}))

    def test_an_orphan_that_is_a_live_server_now(self):
        c = t.cloud(allocations={t.X1: {t.CN1: {'VCPU': 1}}})
        self.assertEqual(
            [(t.X1, 'Nova has a server vm-00000004 (ACTIVE) now')],
            self.changed(c, {t.X1: t.server(t.X1)}))

    def test_an_orphan_that_is_a_migration_now(self):
        c = t.cloud([t.server(t.S1)], allocations={
            t.S1: {t.CN1: t.SMALL}, t.X1: {t.CN2: t.SMALL}})
        moving = t.migration(t.X1, t.S1, 'running')
        self.assertEqual(
            [(t.X1, 'it is a migration of server %s now' % t.S1)],
            self.changed(c, {t.X1: None}, [moving]))

    def test_a_missing_server_deleted_or_shelved_offloaded_now(self):
        c = t.cloud([t.server(t.S1)])
        self.assertEqual(
            [(t.S1, 'its server vm-00000001 (ACTIVE) is deleted now')],
            self.changed(c, {t.S1: None}))
        self.assertEqual(
            [(t.S1, 'the status of its server is SHELVED_OFFLOADED now '
                    '(ACTIVE when read)')],
            self.changed(c, {t.S1: t.server(
                t.S1, status=t.state.SHELVED_OFFLOADED)}))

    def test_a_missing_server_on_another_host_now(self):
        c = t.cloud([t.server(t.S1)])
        self.assertEqual(
            [(t.S1, 'the hypervisor of its server is cn2 now (cn1 when '
                    'read)')],
            self.changed(c, {t.S1: t.server(t.S1, node='cn2')}))

    def test_an_evacuation_started_now(self):
        c = t.cloud([t.server(t.S1, node='cn2')], allocations={
            t.S1: {t.CN1: t.SMALL, t.CN2: t.SMALL}})
        moving = t.migration(t.M1, t.S1, 'accepted')
        self.assertEqual(
            [(t.S1, 'a migration of its server is in progress now (%s)'
              % t.M1)],
            self.changed(c, {t.S1: t.server(t.S1, node='cn2')}, [moving]))

    def test_a_migration_updated_within_the_grace_now(self):
        c = t.cloud([t.server(t.S1, node='cn2')], [t.migration()],
                    allocations={t.S1: {t.CN2: t.SMALL},
                                 t.M1: {t.CN1: t.SMALL}})
        self.assertEqual(
            [(t.M1, 'the migration was updated at 2026-01-01 11:59:00 UTC, '
                    'after it was read')],
            self.changed(c, {t.S1: t.server(t.S1, node='cn2')},
                         [t.migration(minutes_ago=1)]))

    def test_a_migration_gone_from_nova_now(self):
        c = t.cloud([t.server(t.S1, node='cn2')], [t.migration()],
                    allocations={t.S1: {t.CN2: t.SMALL},
                                 t.M1: {t.CN1: t.SMALL}})
        self.assertEqual(
            [(t.M1, 'Nova has no migration %s now' % t.M1)],
            self.changed(c, {t.S1: t.server(t.S1, node='cn2')}))

    def test_a_migration_unchanged_keeps_its_fix(self):
        c = t.cloud([t.server(t.S1, node='cn2')], [t.migration()],
                    allocations={t.S1: {t.CN2: t.SMALL},
                                 t.M1: {t.CN1: t.SMALL}})
        self.assertEqual([], self.changed(
            c, {t.S1: t.server(t.S1, node='cn2')}, [t.migration()]))
