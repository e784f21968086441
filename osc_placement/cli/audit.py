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

"""The steps of ``resource provider audit``: read, judge, fix.

:func:`read_cloud` reads Nova (``api.nova_state``, in a thread) and,
meanwhile, Placement (the provider list, the trait lists, each audited
provider's allocations through the command's batch engine), then the
aggregates' members, the few servers a selection must judge on all
they hold (``model.audit.plan.whole_wanted()``) and the owners (the
usages of the servers' owners, the consumers that are no server, the
servers the usages cannot vouch for) into a
``model.audit.state.Cloud``; :func:`fix` writes the undo file, then
every consumer in one ``POST /allocations``, then the aggregates, each
with its generation.
"""

import datetime
import functools

from osc_lib import exceptions

from osc_placement.api import allocations as consumer_api
from osc_placement.api import compute
from osc_placement.api import nova_state
from osc_placement.api import providers as provider_api
from osc_placement.cli import batch
from osc_placement import errors
from osc_placement.http import inflight
from osc_placement.model.audit import findings
from osc_placement.model.audit import plan
from osc_placement.model.audit import rules
from osc_placement.model.audit import state
from osc_placement.model import batch_names
from osc_placement.model import consumers
from osc_placement.model import savefile
from osc_placement import version

Kind = findings.Kind


def judge(cloud, kinds):
    """``model.audit.rules.audit()``: the findings and what was unchecked.

    The kinds whose reads failed (``cloud.unreadable``) are not judged:
    each is unchecked, with why. A selection of which the kinds asked
    judge nothing (``--check provider`` of a sharing provider) is an
    error, never an empty "all clear".
    """
    result = rules.audit(cloud, [k for k in kinds
                                 if k not in cloud.unreadable])
    unchecked = dict(result.unchecked)
    unchecked.update((kind, (None, why)) for kind, why in
                     cloud.unreadable.items() if kind in kinds)
    if rules.no_compute_root(cloud) and set(kinds) <= rules.CLOUD_KINDS:
        raise exceptions.CommandError('Nothing was audited: %s: %s.' % (
            ', '.join(kind.value for kind in sorted(
                kinds, key=list(Kind).index)), rules.NO_COMPUTE_ROOT))
    return result._replace(unchecked=unchecked)


def _read_all(cmd, things):
    """Whether every item of a batch was read; raises after a signal."""
    if cmd.batch_report.interrupted() is not None:
        cmd.require_complete(batch_names.ROWS, things)
    return cmd.batch_report.complete((things,))


def _selection(cmd, http, parsed_args):
    """The UUIDs the positionals and --aggregate select, or None."""
    if not parsed_args.providers and not parsed_args.aggregate:
        return None
    chosen = set()
    if parsed_args.providers:
        chosen.update(found['uuid'] for _value, found in cmd.each(
            http, lambda value: provider_api.lookup(http, value),
            list(dict.fromkeys(parsed_args.providers)),
            batch_names.PROVIDERS, lone_failure_raises=True))
        cmd.require_complete(batch_names.ROWS, batch_names.PROVIDERS)
    if parsed_args.aggregate:
        chosen.update(provider_api.members(http, parsed_args.aggregate))
    return chosen


def _parallel(cmd, http):
    """How many reads at once: ``--os-placement-parallel`` or the default."""
    return http.parallel or cmd.default_parallel


def _all(cmd, http, calls):
    """[result] of each of a few reads, several at once.

    Every one or none: the first failure in call order is raised, as a
    loop of them would.
    """
    workers = min(_parallel(cmd, http), len(calls))
    if workers > 1:
        http.allow_parallel(workers)
    return nova_state.results_of(calls, workers)


def _traits(cmd, http):
    """{provider: the traits of it that decide what it is}."""
    traits = {}
    names = [state.COMPUTE_NODE, state.SHARING] + sorted(
        provider_api.traits_named(http, state.OWNER_PREFIX))
    for trait, rps in zip(names, _all(cmd, http, [
            functools.partial(provider_api.with_trait, http, trait)
            for trait in names])):
        for rp in rps:
            traits.setdefault(rp, set()).add(trait)
    return traits


def _providers(cmd, http):
    """{uuid: Provider} of every provider, in list order (no aggregates)."""
    listed = http.request('GET', provider_api.BASE_URL).field(
        'resource_providers', list)
    traits = _traits(cmd, http)
    return {body['uuid']: state.provider(body, traits.get(body['uuid'], ()))
            for body in listed}


def _with_aggregates(cmd, http, every, nova, kinds):
    """(``every`` with the Nova aggregates each provider is in, why not).

    ``why not``: None, or why the aggregates' members could not all be
    read (each failure is the batch report's): the aggregate kind is
    then unchecked, the others are not voided.
    """
    if Kind.AGGREGATE not in kinds:
        return every, None
    uuids = [agg.uuid for agg in nova.aggregates if agg.uuid]
    read = cmd.each(http, lambda agg: provider_api.members(http, agg),
                    uuids, batch_names.AGGREGATE_MEMBERS)
    if not _read_all(cmd, batch_names.AGGREGATE_MEMBERS):
        return every, 'Placement could not give the members of the aggregates'
    member = {}
    for agg, rps in read:
        for rp in rps:
            member.setdefault(rp, set()).add(agg)
    return {uuid: rp._replace(aggregates=frozenset(member.get(uuid, ())))
            for uuid, rp in every.items()}, None


def audited(every, chosen):
    """{uuid: Provider} of the providers audited, in list order.

    In the tree of a compute root, or sharing; never another service's
    (an owner trait and not ``OWNER_NOVA``); among ``chosen`` if given.
    """
    return {uuid: rp for uuid, rp in every.items()
            if (rp.sharing or (rp.root in every
                               and every[rp.root].compute_root))
            and not rp.foreign and (chosen is None or uuid in chosen)}


def _say_unaudited(cmd, every, chosen, audit, aggregate):
    """One line for the providers selected that are not audited.

    A provider given outside a compute node's tree and not sharing
    (another service's, or no compute's) is not audited: said, and an
    error when none of those selected is audited.
    """
    if chosen is None:
        return
    if not chosen:
        raise exceptions.CommandError(
            'Nothing was audited: aggregate %s has no resource provider.'
            % aggregate)
    left = [rp for rp in every if rp in chosen and rp not in audit]
    if not left:
        return
    names = ', '.join(every[rp].name or rp for rp in left)
    why = ('%s: neither in a compute node\'s tree nor sharing, or another '
           'service\'s' % names)
    if not audit:
        raise exceptions.CommandError('Nothing was audited: %s.' % why)
    cmd.log.warning('Not audited: %s.', why)


def _owners(cmd, http, cloud, read):
    """{consumer: (project, user)} of the consumers worth reading.

    The usages of each pair of the live servers' owners, then the
    consumers that are no live server, then, until no pair's usages
    differ from what is known (``model.audit.plan.owner_suspects()``),
    the servers of the pairs that differ: a cloud whose servers are all
    held in their owners' names sends no request per server. ``read``:
    {consumer: record} of those read already, not read again. None when
    a read failed: the owners are not checked, the other kinds are (the
    failures are the batch report's).
    """
    pairs = list(plan.owner_pairs(cloud))
    usages = dict(cmd.each(
        http, lambda pair: provider_api.owner_usages(http, *pair), pairs,
        batch_names.OWNERS, key=lambda pair: '%s/%s' % pair))
    if not _read_all(cmd, batch_names.OWNERS):
        return None
    read = dict(read)
    todo = [c for c in plan.owner_others(cloud) if c not in read]
    while True:
        if todo:
            read.update(cmd.each(
                http, lambda c: consumer_api.read_consumer(http, c), todo,
                batch_names.CONSUMERS))
            if not _read_all(cmd, batch_names.CONSUMERS):
                return None
        todo = plan.owner_suspects(cloud, usages, read)
        if not todo:
            break
    return {c: (rec.get('project_id'), rec.get('user_id'))
            for c, rec in read.items() if rec['allocations']}


NOVA_READS = ('the servers, migrations, hypervisors and aggregates of the '
              'compute API')


def read_cloud(cmd, http, parsed_args, kinds):
    """(the Cloud, Nova's state) as read now.

    Nova's lists are read in a thread while Placement's provider list,
    traits and allocations are; the aggregates' members, which need
    Nova's aggregates, and the owners after. The errors do not depend
    on which ends first: the command waits for Nova's reads even after
    Placement failed, and a failure of Nova's is the error whenever
    there is one (but after a signal, which ends the command at once).
    """
    chosen = _selection(cmd, http, parsed_args)
    # In a thread of their own: a command that ends before them (a
    # signal, an error of Placement's after one) does not wait for them.
    workers = _parallel(cmd, http)
    nova_reads = compute.read_beside(
        cmd.app.client_manager, NOVA_READS,
        lambda proxy: nova_state.read(proxy, workers))
    try:
        every = _providers(cmd, http)
        audit = audited(every, chosen)
        _say_unaudited(cmd, every, chosen, audit, parsed_args.aggregate)
        read = cmd.each_provider(
            http, lambda rp: provider_api.provider_allocations(http, rp),
            [{'uuid': rp} for rp in audit])
        cmd.require_complete(batch_names.ROWS, batch_names.PROVIDERS)
    except Exception:
        cmd.wait_beside(nova_reads)
        raise
    nova = nova_reads.result()
    every, members_unread = _with_aggregates(cmd, http, every, nova, kinds)
    audit = {uuid: every[uuid] for uuid in audit}
    allocations = {}
    for record, held in read:
        for consumer, alloc in held.items():
            allocations.setdefault(consumer, {})[record['uuid']] = dict(
                alloc.get('resources') or {})
    cloud = state.Cloud(
        nova.servers, nova.migrations, nova.hypervisors, nova.aggregates,
        audit, allocations, grace_minutes=parsed_args.grace,
        selected=chosen is not None, known=every)
    if members_unread:
        cloud.unreadable[Kind.AGGREGATE] = members_unread
    whole = _whole(cmd, http, cloud, kinds)
    if whole is None:
        whole = {}
        for kind in kinds:
            if kind in plan.WHOLE_KINDS:
                cloud.unreadable[kind] = (
                    'Placement could not give all that the servers on the '
                    'providers given hold')
    cloud.whole = {c: consumers.held(rec) for c, rec in whole.items()}
    if Kind.OWNER in kinds:
        owners = _owners(cmd, http, cloud, whole)
        if owners is None:
            cloud.unreadable[Kind.OWNER] = (
                'Placement could not give the owners of the allocations')
        else:
            cloud.owners = owners
    return cloud, nova


def _whole(cmd, http, cloud, kinds):
    """{consumer: record} of the servers to judge on all they hold.

    ``model.audit.plan.whole_wanted()``: with providers selected, the
    few servers whose allocations elsewhere decide their kind. None
    when some could not be read (each failure is the batch report's):
    the kinds that judge them are then unchecked, not the others.
    """
    wanted = plan.whole_wanted(cloud, kinds)
    if not wanted:
        return {}
    read = dict(cmd.each(
        http, lambda c: consumer_api.read_consumer(http, c), wanted,
        batch_names.ALLOCATIONS))
    if not _read_all(cmd, batch_names.ALLOCATIONS):
        return None
    return read


def _undo(cmd, path, before, written, aggregate_writes, names):
    """Write the undo file(s): consumers, then the aggregates' commands.

    ``written``: what the fix leaves of the consumers
    (``plan.written_after()``), so that a plain ``allocation restore``
    tells the fix's changes from later ones.
    """
    try:
        savefile.write(path, savefile.dumps(
            before, version.get_version(cmd), savefile.now_text(), written),
            replace=False)
        if aggregate_writes:
            try:
                savefile.write(path + '.aggregates', plan.aggregate_undo(
                    aggregate_writes, names), replace=False)
            except savefile.FileError:
                # Half an undo is none: the file written goes too, so
                # that the fix can be run again with the same path.
                savefile.remove(path)
                raise
    except savefile.FileError as exc:
        raise exceptions.CommandError('--undo-file %s; nothing was written.'
                                      % str(exc).rstrip('.')) from None


# How far before the audit's first read of Nova the migrations changed
# since are read again: Nova's clock may be behind the client's.
CLOCK_MARGIN = datetime.timedelta(hours=1)


def _nova_changed(cmd, http, found, cloud, kinds, nova):
    """[(finding, why)] of the fixes Nova's state now no longer gives.

    Each server a fix is about is read again (``GET /servers/{uuid}``,
    its migrations), and the migrations changed since the audit began;
    the same rules judge those consumers again
    (``model.audit.plan.nova_changed()``).
    """
    subjects = plan.nova_subjects(cloud, found)
    if not subjects:
        return []
    servers, migrations = compute.read(
        cmd.app.client_manager, 'the servers and migrations to fix, again',
        lambda proxy: nova_state.read_again(
            proxy, subjects.values(), nova.started - CLOCK_MARGIN,
            _parallel(cmd, http)))
    return plan.nova_changed(cloud, cloud.with_nova(servers, migrations),
                             found, kinds)


def prepare_fix(cmd, http, found, cloud, kinds, nova):
    """(consumer writes, before, stale, aggregate writes).

    Reads again every consumer and provider a fix changes in Placement,
    then, in Nova, every server they are about: ``stale`` [(finding,
    why)] are the fixes left out, no longer needed in Placement or no
    longer given by Nova's state now (those a warning line each).
    """
    targets = sorted(set(f.consumer for f in found
                         if f.fix.writes and not f.fix.of_aggregates))
    now = dict(cmd.each(
        http, lambda c: consumer_api.read_consumer(http, c), targets,
        batch_names.CONSUMERS))
    rps = sorted(set(f.provider for f in found if f.fix.of_aggregates))
    aggregates = dict(cmd.each(
        http, lambda rp: provider_api.aggregates_of(http, rp), rps,
        batch_names.PROVIDERS))
    # These reads whole, whatever other reads of consumers failed before
    # (the owners', whose kind is then unchecked).
    if cmd.batch_report.interrupted() is not None or \
            set(targets) - set(now) or set(rps) - set(aggregates):
        raise batch.Incomplete(batch_names.ROWS)
    changed = _nova_changed(cmd, http, found, cloud, kinds, nova)
    for f, why in changed:
        cmd.log.warning('Not fixed: consumer %s: %s (Nova read again just '
                        'before the write).', f.consumer, why)
    dropped = set(id(f) for f, _why in changed)
    writes, before, stale = plan.consumer_writes(
        [f for f in found if id(f) not in dropped], now)
    stale = changed + stale
    agg_writes = plan.aggregate_writes(
        found, {rp: aggs for rp, (aggs, _gen) in aggregates.items()})
    return writes, before, stale, agg_writes


def _after_signal(said, undo_path, agg_writes, done):
    """The one line of a signal during the fix: what was written, what not.

    ``said``: what became of the allocations (or of the write in
    flight); ``done``: {rp: generation} of the aggregates written.
    """
    left = len(agg_writes) - len(done)
    parts = ['Interrupted: ' + said]
    if agg_writes:
        parts.append('the aggregates of %d of %d resource providers were '
                     'changed%s' % (len(done), len(agg_writes),
                                    ', the other %d not' % left if left
                                    else ''))
    parts.append('the undo file is %s' % undo_path)
    return '; '.join(parts) + '.'


class _Steps(object):
    """The fix's writes, a signal noted and acted on between them.

    Inside the block SIGINT and SIGTERM are noted, not raised
    (``http.inflight.Signals``; a write in flight says what became of
    it, ``errors.Interrupted``): the fix stops between two writes, and
    its one line says exactly what was written.
    """

    def __init__(self, undo_path, writes, agg_writes):
        self.undo_path = undo_path
        self.writes = writes
        self.agg_writes = agg_writes
        self.written = False
        self.done = {}
        self.signals = inflight.Signals()

    def allocations(self):
        if not self.writes:
            return 'nothing to write of the allocations'
        return 'the allocations were %s' % (
            'written' if self.written else 'not written')

    def check(self):
        """Stop here if a signal came."""
        if self.signals.caught is not None:
            raise errors.Interrupted(_after_signal(
                self.allocations(), self.undo_path, self.agg_writes,
                self.done), self.signals.caught)

    def interrupted(self, exc, what):
        """The Interrupted of a write in flight, about ``what``."""
        said = 'the write of %s was %s' % (what, exc.write)
        if what != 'the allocations':
            said = '%s; %s' % (self.allocations(), said)
        return errors.Interrupted(_after_signal(
            said, self.undo_path, self.agg_writes, self.done), exc.signum)


def fix(cmd, http, prepared, undo_path, names):
    """Write the undo file, the consumers (one POST), the aggregates.

    A refusal of the consumers' write is one line naming what changed
    (``api.allocations.WriteConflict``), nothing written. A write of
    allocations changes the generation of each provider it touches, so
    each provider's aggregates are read again just before they are
    written; a provider whose aggregates changed since the audit read
    them, or that changes in between, is named and left as it is. The
    aggregates' undo, written before, is written again with each
    provider's generation after its write, so that its commands need
    nothing filled in (and those not written, none). A signal during the
    fix ends it between two writes, with one line saying what was
    written, what was not, and where the undo file is
    (:class:`_Steps`).
    """
    writes, before, _stale, agg_writes = prepared
    steps = _Steps(undo_path, writes, agg_writes)
    with steps.signals:
        # A signal while the undo file is written is acted on after it,
        # before the first write.
        _undo(cmd, undo_path, before, plan.written_after(writes),
              agg_writes, names)
        try:
            _write(cmd, http, steps, names)
        finally:
            if agg_writes:
                # The commands of the providers written, with their
                # generations; the others have nothing to undo.
                savefile.write(undo_path + '.aggregates',
                               plan.aggregate_undo(agg_writes, names,
                                                   steps.done))


def _write(cmd, http, steps, names):
    """The writes of :func:`fix`, each step checked for a signal."""
    steps.check()
    if steps.writes:
        try:
            consumer_api.write_consumers(
                http, steps.writes, version.get_version(cmd), cmd.log,
                each=cmd.each_whole(http))
        except errors.Interrupted as exc:
            raise steps.interrupted(exc, 'the allocations') from None
        steps.written = True
    for rp, (current, new) in sorted(steps.agg_writes.items()):
        steps.check()
        now, generation = provider_api.aggregates_of(http, rp)
        steps.check()
        try:
            changed = sorted(now) != sorted(current)
            if not changed:
                steps.done[rp] = provider_api.set_aggregates(
                    http, rp, new, generation)[1]
        except exceptions.Conflict:
            changed = True
        except errors.Interrupted as exc:
            raise steps.interrupted(exc, 'the aggregates of %s' % (
                names.get(rp, rp))) from None
        if changed:
            raise exceptions.CommandError(
                'Resource provider %s changed since it was read: its '
                'aggregates were not changed%s; run the audit again.' % (
                    names.get(rp, rp), ' (the allocations were written)'
                    if steps.writes else ''))
