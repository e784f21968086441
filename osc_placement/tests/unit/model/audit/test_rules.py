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

"""osc_placement.model.audit.rules: one small cloud per case."""

import datetime

from oslotest import base

from osc_placement.model.audit import findings
from osc_placement.model.audit import rules
from osc_placement.model.audit import state

Kind = findings.Kind
Action = findings.Action

NOW = datetime.datetime(2026, 1, 1, 12, 0, tzinfo=datetime.timezone.utc)
CN1, CN2, SHARED, CHILD, OTHER = (
    '%08d-0000-0000-0000-000000000000' % i for i in range(1, 6))
S1, S2, M1, X1 = ('%08d-1111-1111-1111-111111111111' % i
                  for i in range(1, 5))
AGG = 'aaaaaaaa-0000-0000-0000-000000000000'
FLAVOR = {'name': 'small', 'vcpus': 1, 'ram': 512, 'disk': 10,
          'ephemeral': 0, 'swap': 0, 'extra_specs': {}}
SMALL = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 10}


def server(uuid=S1, node='cn1', status='ACTIVE', task_state=None,
           flavor=FLAVOR, project='p', user='u', bfv=False):
    return state.Server(uuid, 'vm-' + uuid[:8], status, task_state, project,
                        user, node, flavor, bfv,
                        host=node and 'host' + node[-1])


def migration(uuid=M1, srv=S1, status='confirmed', minutes_ago=60):
    return state.Migration(uuid, srv, status, 'cn1', 'cn2',
                           NOW - datetime.timedelta(minutes=minutes_ago))


def provider(uuid, name, root=None, traits=(state.COMPUTE_NODE,),
             aggregates=()):
    return state.Provider(uuid, name, root or uuid, None if root is None
                          else root, frozenset(traits),
                          frozenset(aggregates))


PROVIDERS = {CN1: provider(CN1, 'cn1'), CN2: provider(CN2, 'cn2'),
             CHILD: provider(CHILD, 'cn1-gpu', root=CN1, traits=()),
             SHARED: provider(SHARED, 'nfs', traits=(state.SHARING,))}
HYPERVISORS = [state.Hypervisor(CN1, 'cn1', 'host1'),
               state.Hypervisor(CN2, 'cn2', 'host2')]


def cloud(servers=(), migrations=(), allocations=None, hypervisors=(
        HYPERVISORS), aggregates=(), providers=None, owners=None, grace=10,
        selected=False, whole=None):
    return state.Cloud(servers, migrations, hypervisors, aggregates,
                       dict(PROVIDERS if providers is None else providers),
                       allocations or {}, owners=owners, grace_minutes=grace,
                       now=NOW, selected=selected, known=dict(PROVIDERS),
                       whole=whole)


def selection(rps, held, servers=(), whole=None, **kwargs):
    """A cloud of which only ``rps`` are audited.

    ``held``: {consumer: {rp: amounts}}, all they hold; what is on
    ``rps`` is what was read of them, and those of ``whole`` were read
    whole.
    """
    read = {}
    for consumer, amounts in held.items():
        on = {rp: a for rp, a in amounts.items() if rp in rps}
        if on:
            read[consumer] = on
    return cloud(servers, allocations=read, providers={
        rp: PROVIDERS[rp] for rp in PROVIDERS if rp in rps},
        selected=True, whole={c: held.get(c, {}) for c in whole or ()},
        **kwargs)


def found(c, kinds=tuple(Kind)):
    return rules.audit(c, kinds).findings


class TestConsumerRules(base.BaseTestCase):

    def test_a_healthy_server_is_no_finding(self):
        self.assertEqual([], found(cloud([server()], allocations={
            S1: {CN1: SMALL}})))

    def test_orphan_never_a_server(self):
        [f] = found(cloud(allocations={X1: {CN1: {'VCPU': 1}}}))
        self.assertEqual((Kind.ORPHAN, CN1, X1, None, Action.REMOVE),
                         (f.kind, f.provider, f.consumer, f.server,
                          f.fix.action))
        self.assertIn('No server or migration', f.detail)

    def test_orphan_of_any_class(self):
        [f] = found(cloud(allocations={X1: {CHILD: {'CUSTOM_PCI_X': 1}}}))
        self.assertEqual(Kind.ORPHAN, f.kind)

    def test_orphan_deleted_server(self):
        [f] = found(cloud([server(status=state.DELETED)],
                          allocations={S1: {CN1: SMALL}}))
        self.assertEqual((Kind.ORPHAN, Action.REMOVE),
                         (f.kind, f.fix.action))
        self.assertIn('deleted', f.detail)

    def test_soft_deleted_server_is_no_orphan(self):
        self.assertEqual([], found(cloud(
            [server(status=state.SOFT_DELETED)],
            allocations={S1: {CN1: SMALL}})))

    def test_unknown_server_of_a_down_cell_is_settled(self):
        self.assertEqual([], found(cloud(
            [server(status=state.UNKNOWN, flavor=None, node=None)],
            allocations={S1: {CN1: SMALL}})))

    def test_down_cell_makes_unlisted_consumers_unchecked(self):
        c = cloud([server(S2, status=state.UNKNOWN, node=None)],
                  allocations={X1: {CN1: {'VCPU': 1}}})
        result = rules.audit(c)
        self.assertEqual([], result.findings)
        self.assertEqual(1, result.unchecked[Kind.ORPHAN][0])

    def test_migration_ended(self):
        [f] = found(cloud([server(node='cn2')], [migration()], allocations={
            S1: {CN2: SMALL}, M1: {CN1: SMALL}}))
        self.assertEqual((Kind.MIGRATION, M1, Action.REMOVE),
                         (f.kind, f.consumer, f.fix.action))
        self.assertEqual(S1, f.server.uuid)
        self.assertIn('confirmed', f.detail)

    def test_migration_in_progress_is_no_finding(self):
        self.assertEqual([], found(cloud(
            [server(task_state='resize_migrated')],
            [migration(status='post-migrating')],
            allocations={S1: {CN2: SMALL}, M1: {CN1: SMALL}})))

    def test_migration_within_grace_has_no_fix(self):
        [f] = found(cloud([server(node='cn2')], [migration(minutes_ago=3)],
                          allocations={S1: {CN2: SMALL},
                                       M1: {CN1: SMALL}}))
        self.assertEqual((Kind.MIGRATION, Action.NONE),
                         (f.kind, f.fix.action))
        self.assertIn('--grace', f.fix.reason)

    def test_grace_zero_fixes_a_fresh_one(self):
        [f] = found(cloud([server(node='cn2')], [migration(minutes_ago=3)],
                          allocations={S1: {CN2: SMALL},
                                       M1: {CN1: SMALL}}, grace=0))
        self.assertEqual(Action.REMOVE, f.fix.action)

    def test_evacuated(self):
        [f] = found(cloud([server(node='cn2')], allocations={
            S1: {CN1: SMALL, CN2: SMALL}}))
        self.assertEqual((Kind.EVACUATED, CN1, Action.REMOVE_PROVIDERS,
                          (CN1,)), (f.kind, f.provider, f.fix.action,
                                    f.fix.providers))

    def test_evacuated_removes_the_children_of_the_other_root(self):
        [f] = found(cloud([server(node='cn2')], allocations={
            S1: {CN1: SMALL, CHILD: {'VGPU': 1}, CN2: SMALL}}))
        self.assertEqual((CN1, CHILD), f.fix.providers)

    def test_evacuated_is_not_also_a_flavor_drift(self):
        self.assertEqual([Kind.EVACUATED], [f.kind for f in found(cloud(
            [server(node='cn2')], allocations={
                S1: {CN1: SMALL, CN2: SMALL}}))])

    def test_two_roots_during_a_migration_is_settled(self):
        self.assertEqual([], found(cloud(
            [server(node='cn2', task_state='resize_finish')],
            [migration(M1, status='finished')],
            allocations={S1: {CN1: SMALL, CN2: SMALL}})))

    def test_evacuated_with_a_task_state_is_a_guard_row(self):
        [f] = found(cloud([server(node='cn2', task_state='rebuilding')],
                          allocations={S1: {CN1: SMALL, CN2: SMALL}}))
        self.assertEqual((Kind.EVACUATED, Action.NONE),
                         (f.kind, f.fix.action))
        self.assertIn('rebuilding', f.fix.reason)

    def test_sharing_provider_is_judged_by_its_server(self):
        # nova-manage would strip the disk of this live server.
        self.assertEqual([], found(cloud([server()], allocations={
            S1: {CN1: {'VCPU': 1, 'MEMORY_MB': 512}, SHARED: {
                'DISK_GB': 10}}})))

    def test_sharing_orphan_is_still_an_orphan(self):
        [f] = found(cloud(allocations={X1: {SHARED: {'DISK_GB': 10}}}))
        self.assertEqual((Kind.ORPHAN, SHARED), (f.kind, f.provider))

    def test_wrong_host(self):
        [f] = found(cloud([server(node='cn2')], allocations={
            S1: {CN1: SMALL}}))
        self.assertEqual((Kind.WRONG_HOST, Action.NONE),
                         (f.kind, f.fix.action))
        self.assertIn('cn2', f.detail)

    def test_missing(self):
        [f] = found(cloud([server()]))
        self.assertEqual((Kind.MISSING, CN1, Action.CREATE),
                         (f.kind, f.provider, f.fix.action))
        self.assertEqual({CN1: SMALL}, f.fix.allocations)
        self.assertEqual(('p', 'u'), f.fix.owner)

    def test_missing_boot_from_volume_asks_no_disk(self):
        [f] = found(cloud([server(bfv=True)]))
        self.assertEqual({CN1: {'VCPU': 1, 'MEMORY_MB': 512}},
                         f.fix.allocations)

    def test_missing_building_is_a_guard_row(self):
        [f] = found(cloud([server(status=state.BUILDING)]))
        self.assertEqual((Kind.MISSING, Action.NONE), (f.kind, f.fix.action))

    def test_missing_vgpu_flavor_has_no_fix(self):
        vgpu = dict(FLAVOR, extra_specs={'resources:VGPU': '1'})
        [f] = found(cloud([server(flavor=vgpu)]))
        self.assertEqual(Action.NONE, f.fix.action)
        self.assertIn('VGPU', f.fix.reason)

    def test_missing_accelerator_flavor_has_no_fix(self):
        accel = dict(FLAVOR, extra_specs={'accel:device_profile': 'x'})
        [f] = found(cloud([server(flavor=accel)]))
        self.assertIn('accel:device_profile', f.fix.reason)

    def test_missing_without_flavor_has_no_fix(self):
        [f] = found(cloud([server(flavor=None)]))
        self.assertEqual(Action.NONE, f.fix.action)

    def test_shelved_offloaded_is_not_missing(self):
        self.assertEqual([], found(cloud([server(
            status=state.SHELVED_OFFLOADED, node=None)])))

    def test_missing_on_a_provider_not_audited(self):
        self.assertEqual([], found(cloud([server()], providers={
            CN2: PROVIDERS[CN2]}, selected=True), [Kind.MISSING]))

    def test_owner(self):
        [f] = found(cloud([server()], allocations={S1: {CN1: SMALL}},
                          owners={S1: ('q', 'v')}))
        self.assertEqual((Kind.OWNER, Action.SET_OWNER, ('p', 'u')),
                         (f.kind, f.fix.action, f.fix.owner))

    def test_owner_right(self):
        self.assertEqual([], found(cloud([server()], allocations={
            S1: {CN1: SMALL}}, owners={S1: ('p', 'u')})))

    def test_flavor(self):
        [f] = found(cloud([server()], allocations={
            S1: {CN1: dict(SMALL, VCPU=2)}}))
        self.assertEqual((Kind.FLAVOR, Action.NONE), (f.kind, f.fix.action))
        self.assertEqual('Holds VCPU=2; its flavor small asks VCPU=1.',
                         f.detail)

    def test_flavor_of_selected_providers_compares_what_was_read(self):
        # Only the sharing provider was read: the server's CPUs and
        # memory on its compute node are not missing, only unseen.
        providers = {SHARED: PROVIDERS[SHARED]}
        self.assertEqual([], found(cloud([server()], allocations={
            S1: {SHARED: {'DISK_GB': 10}}}, providers=providers,
            selected=True)))
        [f] = found(cloud([server()], allocations={
            S1: {SHARED: {'DISK_GB': 20}}}, providers=providers,
            selected=True))
        self.assertEqual('Holds DISK_GB=20; its flavor small asks '
                         'DISK_GB=10.', f.detail)

    def test_flavor_of_a_consumer_read_whole_compares_every_class(self):
        # Read whole, its disk on the sharing provider not audited counts.
        [f] = found(selection([CN1], {S1: {
            CN1: {'VCPU': 1, 'MEMORY_MB': 512},
            SHARED: {'DISK_GB': 20}}}, [server()], whole=[S1]))
        self.assertEqual((Kind.FLAVOR, CN1), (f.kind, f.provider))
        self.assertEqual('Holds DISK_GB=20; its flavor small asks '
                         'DISK_GB=10.', f.detail)

    def test_flavor_ignores_port_classes(self):
        self.assertEqual([], found(cloud([server()], allocations={
            S1: {CN1: dict(SMALL, NET_BW_EGR_KILOBIT_PER_SEC=1000)}})))

    def test_check_picks_kinds(self):
        c = cloud([server()], allocations={X1: {CN1: {'VCPU': 1}}})
        self.assertEqual([Kind.MISSING], [f.kind for f in found(
            c, [Kind.MISSING])])
        self.assertEqual([Kind.ORPHAN], [f.kind for f in found(
            c, [Kind.ORPHAN])])


class TestSelection(base.BaseTestCase):
    """Only some providers audited: servers read whole where it decides."""

    EVACUATED = {S1: {CN1: SMALL, CN2: SMALL}}

    def test_evacuated_source_given_read_whole(self):
        [f] = found(selection([CN1], self.EVACUATED, [server(node='cn2')],
                              whole=[S1]))
        self.assertEqual((Kind.EVACUATED, CN1, Action.REMOVE_PROVIDERS,
                          (CN1,)), (f.kind, f.provider, f.fix.action,
                                    f.fix.providers))
        self.assertEqual('Server on cn2 (its hypervisor) also holds '
                         'DISK_GB=10, MEMORY_MB=512, VCPU=1 on cn1, with '
                         'no migration in progress.', f.detail)

    def test_evacuated_source_given_not_read_whole_looks_wrong_host(self):
        # What the audit said before it read such servers whole.
        [f] = found(selection([CN1], self.EVACUATED, [server(node='cn2')]))
        self.assertEqual(Kind.WRONG_HOST, f.kind)

    def test_evacuated_host_given_never_touches_the_source(self):
        # cn2, the server's own host, given; the leftover on cn1 is not
        # audited: no row on cn2, nothing removed from cn1.
        for whole in ([], [S1]):
            self.assertEqual([], found(selection(
                [CN2], self.EVACUATED, [server(node='cn2')], whole=whole)))

    def test_evacuated_removes_only_the_audited_part_of_the_source(self):
        [f] = found(selection([CN1], {S1: {
            CN1: SMALL, CHILD: {'VGPU': 1}, CN2: SMALL}},
            [server(node='cn2')], whole=[S1]))
        self.assertEqual((CN1,), f.fix.providers)
        self.assertIn('VGPU=1 on cn1-gpu', f.detail)

    def test_orphan_and_migration_remove_only_the_audited_part(self):
        rows = found(selection([CN1], {
            X1: {CN1: {'VCPU': 1}, CN2: {'VCPU': 1}},
            M1: {CN1: SMALL, CHILD: {'VGPU': 1}}, S1: {CN2: SMALL}},
            [server(node='cn2')], migrations=[migration()]))
        self.assertEqual(
            [(Kind.MIGRATION, M1, Action.REMOVE_PROVIDERS, (CN1,)),
             (Kind.ORPHAN, X1, Action.REMOVE_PROVIDERS, (CN1,))],
            [(f.kind, f.consumer, f.fix.action, f.fix.providers)
             for f in rows])

    def test_wrong_host_read_whole(self):
        [f] = found(selection([CN1], {S1: {CN1: SMALL}},
                              [server(node='cn2')], whole=[S1]))
        self.assertEqual((Kind.WRONG_HOST, CN1), (f.kind, f.provider))

    def test_missing_read_whole_holds_nothing(self):
        [f] = found(selection([CN1], {}, [server()], whole=[S1]))
        self.assertEqual((Kind.MISSING, CN1, Action.CREATE),
                         (f.kind, f.provider, f.fix.action))

    def test_not_missing_when_it_holds_elsewhere(self):
        # On cn1, holding everything on cn2 (not audited): its wrong-host
        # row is cn2's; none of cn1's, and never missing.
        self.assertEqual([], found(selection(
            [CN1], {S1: {CN2: SMALL}}, [server()], whole=[S1],
            owners={S1: ('q', 'v')})))


class TestCloudRules(base.BaseTestCase):

    def test_aggregate_missing_in_placement(self):
        [f] = found(cloud(aggregates=[state.Aggregate(AGG, 'az1', (
            'host1',))]), [Kind.AGGREGATE])
        self.assertEqual((CN1, Action.ADD_AGGREGATE, AGG),
                         (f.provider, f.fix.action, f.fix.aggregate))

    def test_aggregate_extra_in_placement(self):
        providers = dict(PROVIDERS)
        providers[CN2] = provider(CN2, 'cn2', aggregates=(AGG,))
        providers[CN1] = provider(CN1, 'cn1', aggregates=(AGG,))
        [f] = found(cloud(providers=providers, aggregates=[
            state.Aggregate(AGG, 'az1', ('host1',))]), [Kind.AGGREGATE])
        self.assertEqual((CN2, Action.REMOVE_AGGREGATE),
                         (f.provider, f.fix.action))

    def test_aggregate_in_sync(self):
        providers = dict(PROVIDERS)
        providers[CN1] = provider(CN1, 'cn1', aggregates=(AGG,))
        self.assertEqual([], found(cloud(providers=providers, aggregates=[
            state.Aggregate(AGG, 'az1', ('host1',))]), [Kind.AGGREGATE]))

    def test_stale_provider_of_a_reinstalled_compute(self):
        hvs = [state.Hypervisor(OTHER, 'cn1', 'host1'), HYPERVISORS[1]]
        rows = found(cloud(hypervisors=hvs), [Kind.PROVIDER])
        self.assertEqual([(Kind.PROVIDER, CN1), (Kind.PROVIDER, None)],
                         [(f.kind, f.provider) for f in rows])
        self.assertIn(OTHER, rows[0].detail)
        self.assertIn('has no resource provider', rows[1].detail)

    def test_hypervisor_without_provider_not_said_for_a_selection(self):
        hvs = HYPERVISORS + [state.Hypervisor(OTHER, 'cn3', 'host3')]
        self.assertEqual([], found(cloud(hypervisors=hvs, selected=True),
                                   [Kind.PROVIDER]))

    def test_a_selection_without_compute_root_leaves_them_unchecked(self):
        # The sharing provider and a child: no compute node's root to
        # judge, and no finding of a healthy cloud ever means "all clear".
        result = rules.audit(selection([SHARED, CHILD], {}))
        self.assertEqual([], result.findings)
        self.assertEqual(
            {Kind.AGGREGATE: (None, rules.NO_COMPUTE_ROOT),
             Kind.PROVIDER: (None, rules.NO_COMPUTE_ROOT)},
            {kind: why for kind, why in result.unchecked.items()
             if kind in rules.CLOUD_KINDS})

    def test_a_selection_with_a_compute_root_judges_them(self):
        hvs = [state.Hypervisor(OTHER, 'cn1', 'host1'), HYPERVISORS[1]]
        result = rules.audit(selection([CN1, SHARED], {}, hypervisors=hvs),
                             [Kind.AGGREGATE, Kind.PROVIDER])
        self.assertEqual({}, result.unchecked)
        self.assertEqual([(Kind.PROVIDER, CN1)],
                         [(f.kind, f.provider) for f in result.findings])

    def test_without_hypervisors_their_kinds_are_unchecked(self):
        result = rules.audit(cloud(hypervisors=None, allocations={
            X1: {CN1: {'VCPU': 1}}}))
        self.assertEqual([], result.findings)
        self.assertEqual({Kind.EVACUATED, Kind.WRONG_HOST, Kind.MISSING,
                          Kind.AGGREGATE, Kind.PROVIDER, Kind.ORPHAN},
                         set(result.unchecked))


class TestOrder(base.BaseTestCase):

    def test_kind_then_provider_order_then_consumer(self):
        rows = found(cloud([server(S2, node='cn2')], allocations={
            'b' * 8 + X1[8:]: {CN2: {'VCPU': 1}},
            'a' * 8 + X1[8:]: {CN2: {'VCPU': 1}},
            X1: {CN1: {'VCPU': 1}}}))
        self.assertEqual(
            [(Kind.ORPHAN, CN1), (Kind.ORPHAN, CN2), (Kind.ORPHAN, CN2),
             (Kind.MISSING, CN2)], [(f.kind, f.provider) for f in rows])
        self.assertLess(rows[1].consumer, rows[2].consumer)

    def test_rows(self):
        [f] = found(cloud(allocations={X1: {CN1: {'VCPU': 1}}}))
        self.assertEqual([('orphan', 'cn1', X1, '',
                           'No server or migration has this UUID; it holds '
                           'VCPU=1 on cn1.', 'remove its allocations')],
                         findings.rows([f], c_name))
        self.assertEqual('done: remove its allocations',
                         findings.rows([f], c_name, done=True)[0][5])


def c_name(rp):
    return PROVIDERS[rp].name
