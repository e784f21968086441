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

"""The write of an audit's fixes, checked against what is read just before.

:func:`consumer_writes`: the records of the one ``POST /allocations``
and those of the undo file, from the findings and the consumers read
again; a consumer that no longer needs its fix is left out and said.
:func:`aggregate_writes`: the new aggregates of each provider.
:func:`owner_suspects`: which servers' owners are worth reading, from
the usages of their project and user and the consumers read so far.
"""

import collections

from osc_placement import microversions
from osc_placement.model.audit import findings
from osc_placement.model.audit import rules
from osc_placement.model.audit import state
from osc_placement.model import consumers

Action = findings.Action

# The consumer type of a server's allocations (Placement 1.38).
INSTANCE = 'INSTANCE'


def _nothing(rec):
    return {'allocations': {}} if not consumers.exists(rec) else rec


def _fixed(found, rec):
    """(the record to write for a finding, or None and why not)."""
    f = found.fix
    held = consumers.held(rec)
    if f.action is Action.CREATE:
        if held:
            return None, 'it holds allocations now'
        new = {'allocations': consumers.as_allocations(f.allocations),
               'project_id': f.owner[0], 'user_id': f.owner[1],
               consumers.GENERATION: None, consumers.TYPE: INSTANCE}
        return new, None
    if not held:
        return None, 'it holds nothing now'
    new = dict(rec)
    if f.action is Action.REMOVE:
        new['allocations'] = {}
    elif f.action is Action.REMOVE_PROVIDERS:
        if not set(f.providers) & set(held):
            return None, 'it holds nothing there now'
        new['allocations'] = consumers.as_allocations(
            {rp: amounts for rp, amounts in held.items()
             if rp not in f.providers})
    elif f.action is Action.SET_OWNER:
        new['project_id'], new['user_id'] = f.owner
    return new, None


def consumer_writes(found, now):
    """(writes, before, stale) of the consumer fixes among ``found``.

    ``now``: {consumer: record} read just before the write. ``writes``:
    {consumer: record to write, with the generation read};
    ``before``: {consumer: record now} (``{"allocations": {}}`` for one
    that holds nothing), what the undo file keeps; ``stale``:
    [(finding, why)] of fixes no longer needed.
    """
    writes, before, stale = {}, {}, []
    for f in found:
        if not f.fix.writes or f.fix.of_aggregates:
            continue
        rec = now[f.consumer]
        new, why = _fixed(f, rec)
        if new is None:
            stale.append((f, why))
            continue
        writes[f.consumer] = new
        before[f.consumer] = _nothing(rec)
    return writes, before, stale


def written_after(writes):
    """{consumer: record} of the undo file's ``written``: what a fix leaves.

    ``writes``: as :func:`consumer_writes` gives them, each with the
    generation read; a consumer left holding something has the next
    generation after the write (1 for one the write creates). One left
    holding nothing is no consumer after it: ``{"allocations": {}}``, no
    generation, so that one holding something again by the restore has
    changed after the fix.
    """
    after = {}
    for consumer, rec in writes.items():
        if not consumers.held(rec):
            after[consumer] = {'allocations': {}}
            continue
        generation = rec.get(consumers.GENERATION)
        after[consumer] = dict(rec, **{consumers.GENERATION: (
            1 if generation is None else generation + 1)})
    return after


def nova_subjects(cloud, found):
    """{consumer: the server to read again} of the fixes that write.

    A server's consumer is its server; a migration's, the server it
    moves; any other consumer (an orphan) is read as a server too: Nova
    may have one of that UUID now. The aggregates' fixes are Nova's
    aggregates, not a server's: none.
    """
    subjects = {}
    for f in found:
        if not f.fix.writes or f.fix.of_aggregates:
            continue
        moved = cloud.migrations.get(f.consumer)
        subjects[f.consumer] = moved.server if moved else f.consumer
    return subjects


def _server_change(before, after):
    """What changed of a server in Nova, or None."""
    if before is None or before.deleted:
        if after is not None and not after.deleted:
            return 'Nova has a server %s now' % after.shown()
        return None
    if after is None or after.deleted:
        return 'its server %s is deleted now' % before.shown()
    for what, was, now in (
            ('status', before.status, after.status),
            ('task state', before.task_state, after.task_state),
            ('hypervisor', before.node, after.node),
            ('host', before.host, after.host),
            ('project', before.project_id, after.project_id),
            ('user', before.user_id, after.user_id)):
        if was != now:
            return 'the %s of its server is %s now (%s when read)' % (
                what, now or 'none', was or 'none')
    return None


def _moment(when):
    """'2026-01-01 10:00:00 UTC' of an aware time, 'an unknown time'."""
    if when is None:
        return 'an unknown time'
    return when.strftime('%Y-%m-%d %H:%M:%S UTC')


def _migrations_change(cloud, now, consumer, server):
    """What changed of the migrations of a consumer's server, or None."""
    moved = now.migrations.get(consumer)
    if moved is not None and consumer not in cloud.migrations:
        return 'it is a migration of server %s now' % moved.server
    before = cloud.migrations.get(consumer)
    if before is not None and moved is None:
        return 'Nova has no migration %s now' % consumer
    if before is not None and before.status != moved.status:
        return 'the migration is %s now (%s when read)' % (
            moved.status, before.status)
    if before is not None and before.updated_at != moved.updated_at:
        return 'the migration was updated at %s, after it was read' % (
            _moment(moved.updated_at))
    was = sorted(m.uuid for m in cloud.in_progress(server))
    ongoing = sorted(m.uuid for m in now.in_progress(server))
    if ongoing != was:
        return 'a migration of its server is in progress now (%s)' % (
            ', '.join(m for m in ongoing if m not in was) or 'ended')
    return None


def nova_changed(cloud, now, found, kinds):
    """[(finding, why)] of the fixes Nova's state now no longer gives.

    ``now``: ``cloud`` with Nova read again just before the write
    (``state.Cloud.with_nova()``). Each consumer whose fix writes is
    judged again by the same rules (``rules.judge()``); a fix that the
    verdict on Nova's state now does not give is dropped, and ``why``
    says what changed in Nova.
    """
    subjects = nova_subjects(cloud, found)
    changed = []
    for f in found:
        if f.consumer not in subjects:
            continue
        verdict = rules.judge(now, f.consumer, set(kinds))
        if isinstance(verdict, findings.Finding) and \
                verdict.kind is f.kind and verdict.fix == f.fix:
            continue
        server = subjects[f.consumer]
        why = _migrations_change(cloud, now, f.consumer, server) or \
            _server_change(cloud.servers.get(server),
                           now.servers.get(server)) or \
            'Nova changed since it was read'
        changed.append((f, why))
    return changed


def aggregate_writes(found, now):
    """{provider: (aggregates now, aggregates to write)}.

    ``now``: {provider: [aggregate]} read just before the write; only
    the providers whose aggregates change.
    """
    changes = collections.defaultdict(lambda: (set(), set()))
    for f in found:
        if f.fix.action is Action.ADD_AGGREGATE:
            changes[f.provider][0].add(f.fix.aggregate)
        elif f.fix.action is Action.REMOVE_AGGREGATE:
            changes[f.provider][1].add(f.fix.aggregate)
    result = {}
    for rp, (add, remove) in changes.items():
        current = list(now[rp])
        new = [agg for agg in current if agg not in remove] + sorted(
            add - set(current))
        if new != current:
            result[rp] = (current, new)
    return result


def aggregate_undo(writes, names, generations=None):
    """The lines of the aggregates' undo: the commands that put them back.

    ``writes``: as :func:`aggregate_writes`; ``names``: {rp: name}.
    ``generations``: None before the audit's writes: each command then
    needs the generation that ``resource provider aggregate list`` shows
    when it is run (``<generation>``). After them, {rp: its generation
    after the audit's write} of the providers written: each command
    carries it, and Placement refuses it should the provider have
    changed since; a provider not written (the fix stopped or refused
    before it) has nothing to undo, and is said so in a comment.
    """
    lines = ['# The aggregates of these resource providers before '
             '"resource provider audit --fix"; each command puts them back.']
    if generations is None:
        lines.append('# Written before the fix\'s writes: give each '
                     '<generation> the one "resource provider aggregate '
                     'list <uuid>" shows.')
    else:
        lines.append('# Each carries the generation its provider had after '
                     'the fix: refused if it changed since.')
    lines.append('# Run them before the restore of the allocations: that '
                 'changes the providers\' generations.')
    for rp, (current, _new) in sorted(writes.items()):
        lines.append('# %s' % names.get(rp, rp))
        if generations is not None and rp not in generations:
            lines.append('# (its aggregates were not changed by the fix: '
                         'nothing to undo)')
            continue
        lines.append(
            'openstack --os-placement-api-version %s resource provider '
            'aggregate set %s--generation %s %s' % (
                microversions.AGGREGATES_GENERATION, ''.join(
                    '--aggregate %s ' % agg for agg in current),
                '<generation>' if generations is None else generations[rp],
                rp))
    return '\n'.join(lines) + '\n'


# The kinds whose rules judge a server by all it holds.
WHOLE_KINDS = frozenset((findings.Kind.EVACUATED, findings.Kind.WRONG_HOST,
                         findings.Kind.MISSING, findings.Kind.FLAVOR))


def whole_wanted(cloud, kinds):
    """The servers to read whole (``GET /allocations/<consumer>``): [uuid].

    Only when some providers are audited (``cloud.selected``): what a
    server holds on the others was not read, and two cases cannot be
    judged without it. A live server, no migration in progress, that
    holds something on a compute tree audited other than its
    hypervisor's provider: a wrong host, or the source of an evacuation
    whose part on its own hypervisor was not read. And a live server on
    a hypervisor whose provider is audited that holds nothing on the
    providers audited: missing, or holding elsewhere. A healthy server
    on a provider audited is neither: a cloud in order reads none.
    """
    if not cloud.selected or not WHOLE_KINDS & set(kinds):
        return []
    wanted = []
    for uuid, found in cloud.servers.items():
        if found.deleted or found.unknown or cloud.in_progress(uuid):
            continue
        here = cloud.server_provider(found)
        if here is None:
            continue
        if uuid in cloud.allocations:
            roots = cloud.roots(uuid, audited_only=True)
            if roots and here not in roots:
                wanted.append(uuid)
        elif here in cloud.providers and found.status not in (
                state.SHELVED_OFFLOADED, state.SOFT_DELETED):
            wanted.append(uuid)
    return sorted(wanted)


def owner_pairs(cloud):
    """{(project, user): [server]}: the live servers on the audited providers.

    By the owner Nova gives them; only those holding allocations on the
    providers read.
    """
    pairs = {}
    for uuid, found in cloud.servers.items():
        if found.deleted or found.unknown or uuid not in cloud.allocations:
            continue
        pairs.setdefault((found.project_id, found.user_id), []).append(uuid)
    return pairs


def owner_others(cloud):
    """The consumers on the audited providers that are no live server: [uuid].

    Orphans, migrations', deleted servers', a down cell's servers': the
    owner check reads them first, one by one (they are few, and findings
    or skipped anyway), so that what they hold is counted in the name
    Placement records it under.
    """
    pairs = owner_pairs(cloud)
    live = set(uuid for servers in pairs.values() for uuid in servers)
    return sorted(c for c in cloud.allocations if c not in live)


def _sums(held):
    total = collections.Counter()
    for amounts in held.values():
        total.update(amounts)
    return {rc: amount for rc, amount in total.items() if amount}


def owner_suspects(cloud, usages, read):
    """The servers whose owner is still worth reading: [uuid].

    ``usages``: {(project, user): {class: amount}} as Placement sums
    them (``GET /usages``), for each pair of :func:`owner_pairs`;
    ``read``: {consumer: record} of the consumers read so far (``GET
    /allocations/<consumer>``: all they hold, and the owner Placement
    records). What Placement should hold in a pair's name: all that
    the consumers read hold, in the name they are recorded under, and
    what each server not read holds on the audited providers, in its
    server's name. The suspects are the servers not read of a pair
    whose usages differ from that in a class they hold on the audited
    providers (a class only another service's providers have, such as
    a device's, differs when its consumers are in a server's name, and
    reads no server); once read, they count in the name they are
    recorded under, so the caller asks again until no pair differs in
    a class one of its servers not read holds.

    Why a server held in another name is found: take a pair P with a
    server S not read that Placement records under Q. ``usages(P)``
    minus what is expected of P is, class by class, what the
    consumers not read recorded under P hold that is not counted
    (their allocations on providers not audited, those of a consumer
    holding nothing on them, a server of another pair recorded under
    P), less what the servers of P recorded elsewhere (S among them)
    hold on the audited providers. Every consumer on the audited
    providers that is no live server is read (:func:`owner_others`),
    so nothing else is left out. S holds something on the audited
    providers (it is in their allocations), so in each class it holds
    there the difference is short of it, P differs in that class and S
    is read, unless what is not counted under P makes up exactly, in
    every class S holds, for what P's servers recorded elsewhere hold.
    That is the one case no sum can tell apart: two
    servers of the same flavor held in each other's names, and
    nothing else amiss in either pair, leave every sum Placement gives
    (by project, user or consumer type) as it would be without the
    swap; only a read per server would see it. Once one side of a
    swap differs for any reason, its server is read and counted under
    the other pair, which then differs too.
    """
    expected = collections.defaultdict(collections.Counter)
    for rec in read.values():
        expected[(rec.get('project_id'), rec.get('user_id'))].update(
            _sums(consumers.held(rec)))
    pairs = owner_pairs(cloud)
    for pair, servers in pairs.items():
        for uuid in servers:
            if uuid not in read:
                expected[pair].update(_sums(cloud.allocations[uuid]))
    suspects = []
    for pair, servers in sorted(pairs.items(), key=lambda kv: str(kv[0])):
        used = usages.get(pair, {})
        differ = set(rc for rc in set(used) | set(expected[pair])
                     if (used.get(rc) or 0) != expected[pair][rc])
        suspects.extend(
            uuid for uuid in servers if uuid not in read
            and differ & set(_sums(cloud.allocations[uuid])))
    return suspects
