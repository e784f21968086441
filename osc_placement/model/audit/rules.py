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

"""The rules of an audit: one function per kind of finding, a pipeline.

As Nova's scheduler lays out its request filters (one function per rule,
each saying what it checks and why, and the list that is the pipeline):
:data:`CONSUMER_RULES` run in order for each consumer (and each server
that holds nothing), and the first that decides about it wins, so that
one consumer is one finding (an evacuated server is not also a flavor
drift); :data:`CLOUD_RULES` look at the providers and aggregates. A rule
returns None (not its kind), :data:`SETTLED` (nothing wrong: no other
rule looks at it), an :class:`Unchecked` (it cannot be judged) or a
``findings.Finding``.

The guards that keep a live cloud safe are here too: a server with a
task state or building, and a migration that ended within the grace,
give a row whose fix is ``none``; a consumer that may be a server of a
cell that is down is never an orphan.
"""

import collections

from osc_placement.model import amounts as amounts_lib
from osc_placement.model.audit import findings
from osc_placement.model.audit import flavor_request
from osc_placement.model.audit import state

Kind = findings.Kind
SETTLED = object()


class Unchecked(collections.namedtuple('Unchecked', 'kind reason')):
    """A consumer a rule could not judge, and why."""

    __slots__ = ()


def _held(cloud, consumer, rps=None):
    """'VCPU=2, MEMORY_MB=512 on compute-1' of a consumer's allocations."""
    held = cloud.held(consumer)
    rps = sorted(rps if rps is not None else held, key=cloud.order)
    return '; '.join('%s on %s' % (amounts_lib.text(held[rp]),
                                   cloud.name(rp)) for rp in rps)


def _first(cloud, consumer):
    """The first provider audited (in list order) a consumer holds on."""
    return min(cloud.allocations.get(consumer, {}), key=cloud.order,
               default=None)


def _live(cloud, consumer):
    """The consumer's server if it is a server known and not deleted."""
    found = cloud.servers.get(consumer)
    if found is None or found.deleted or found.unknown:
        return None
    return found


def _remove(cloud, consumer):
    """The fix that removes a consumer's allocations.

    All of them; when only some providers are audited, its part on them
    (all it holds if it holds nothing elsewhere): a fix never touches a
    provider not audited.
    """
    if not cloud.selected:
        return findings.fix(findings.Action.REMOVE)
    return findings.fix(findings.Action.REMOVE_PROVIDERS, providers=sorted(
        cloud.allocations.get(consumer, {}), key=cloud.order))


def guard(server):
    """Why a server must not be touched now, or None."""
    if server.task_state:
        return 'task state %s: Nova is working on it' % server.task_state
    if server.status == state.BUILDING:
        return 'building: Nova is working on it'
    return None


def migration(cloud, consumer):
    """A finished migration's consumer that still holds allocations.

    A migration holds the source's allocations while it runs; once it
    has ended (confirmed, reverted, error, ...) Nova should have removed
    them. One that ended within the grace may still be cleaned up by its
    compute: a row, no fix. A migration in progress settles the consumer.
    """
    found = cloud.migrations.get(consumer)
    if found is None:
        return None
    if not found.ended:
        return SETTLED
    detail = 'Migration of server %s is %s and still holds %s.' % (
        found.server, found.status, _held(cloud, consumer))
    if cloud.recent(found.updated_at):
        fix = findings.none('updated within --grace; its compute may still '
                            'clean it up')
    else:
        fix = _remove(cloud, consumer)
    return findings.Finding(Kind.MIGRATION, _first(cloud, consumer),
                            consumer, cloud.servers.get(found.server),
                            detail, fix)


def evacuated(cloud, consumer):
    """A server's consumer on two compute roots, the server on one.

    What an evacuation leaves on the source when the source compute was
    down and never came back to clean up. With a migration of the server
    in progress, the two roots are the migration's doing: settled. The
    fix removes the part on the roots the server is not on; sharing
    providers are judged by the server, never by their root. When only
    some providers are audited, the row and its fix are about the part
    on them: a part on a provider not audited is named in the detail but
    never removed, and a consumer whose leftover is only on providers
    not audited (its server's own provider given) is settled: auditing
    them finds it.
    """
    server = _live(cloud, consumer)
    roots = cloud.roots(consumer)
    if server is None or len(roots) < 2:
        return None
    if cloud.in_progress(consumer):
        return SETTLED
    here = cloud.server_provider(server)
    if here not in roots:
        return None
    others = sorted((rp for root, rps in roots.items() if root != here
                     for rp in rps), key=cloud.order)
    audited = [rp for rp in others if rp in cloud.providers]
    if not audited:
        return SETTLED
    detail = ('Server on %s (its hypervisor) also holds %s, with no '
              'migration in progress.' % (cloud.name(here),
                                          _held(cloud, consumer, others)))
    why = guard(server)
    fix = findings.none(why) if why else findings.fix(
        findings.Action.REMOVE_PROVIDERS, providers=audited)
    return findings.Finding(Kind.EVACUATED, audited[0], consumer, server,
                            detail, fix)


def wrong_host(cloud, consumer):
    """A server's allocations on a root other than its hypervisor's.

    Which side is right (Nova's record or Placement's) needs an
    operator: no fix. A migration in progress settles it. A server that
    holds nothing on the providers audited (read whole because it looked
    missing) is settled: its row is on the providers it holds on.
    """
    server = _live(cloud, consumer)
    roots = cloud.roots(consumer)
    if server is None or not roots:
        return None
    if cloud.in_progress(consumer):
        return SETTLED
    here = cloud.server_provider(server)
    if server.node is None or here is None or here in roots:
        return None
    if _first(cloud, consumer) is None:
        return SETTLED
    detail = 'Nova says the server is on %s; it holds %s.' % (
        server.node, _held(cloud, consumer))
    return findings.Finding(
        Kind.WRONG_HOST, _first(cloud, consumer), consumer, server, detail,
        findings.none('which of Nova and Placement is right needs an '
                      'operator'))


def orphan(cloud, consumer):
    """A consumer that is no server (never was, or deleted) nor migration.

    Whatever its classes. A server of a cell that is down is listed as
    UNKNOWN: settled; and while a cell is down, a consumer no server
    lists may be one of its servers: unchecked, never an orphan.
    """
    if consumer not in cloud.allocations or consumer in cloud.migrations:
        return None
    server = cloud.servers.get(consumer)
    if server is not None and server.unknown:
        return SETTLED
    if server is not None and not server.deleted:
        return None
    if server is None and cloud.down_cell:
        return Unchecked(Kind.ORPHAN, 'a cell is down: it may be one of its '
                                      'servers')
    detail = '%s; it holds %s.' % (
        'Its server is deleted' if server else
        'No server or migration has this UUID', _held(cloud, consumer))
    return findings.Finding(Kind.ORPHAN, _first(cloud, consumer), consumer,
                            server, detail, _remove(cloud, consumer))


def missing(cloud, consumer):
    """An active server with no allocations: what heal_allocations heals.

    Active: not building, no task state (a guard row then), not shelved
    offloaded, on a hypervisor whose provider is audited. The fix writes
    what its embedded flavor asks for on that provider, with the server's
    project and user; a flavor whose request needs nested providers gets
    none, as heal refuses it. When only some providers are audited, a
    server holding nothing on them was read whole: one that holds
    something elsewhere is not missing.
    """
    server = _live(cloud, consumer)
    if server is None or cloud.held(consumer):
        return None
    here = cloud.server_provider(server)
    if here is None or here not in cloud.providers or server.status in (
            state.SHELVED_OFFLOADED, state.SOFT_DELETED):
        return None
    asked, refused = flavor_request.requested(server)
    detail = 'Server on %s holds no allocations; its flavor asks %s.' % (
        server.node, amounts_lib.text(asked) if asked else 'nothing')
    why = guard(server) or refused
    if not why and not asked:
        return None
    fix = findings.none(why) if why else findings.fix(
        findings.Action.CREATE, allocations={here: asked},
        owner=(server.project_id, server.user_id))
    return findings.Finding(Kind.MISSING, here, consumer, server, detail,
                            fix)


def owner(cloud, consumer):
    """A server's allocations held in another project or user's name.

    Fixed by writing them again with the server's (heal_allocations
    updates them too).
    """
    server = _live(cloud, consumer)
    held_by = cloud.owners.get(consumer)
    wanted = (server.project_id, server.user_id) if server else None
    if server is None or held_by is None or tuple(held_by) == wanted or \
            consumer not in cloud.allocations:
        return None
    detail = ('Held by project %s and user %s; the server is of project %s '
              'and user %s.' % (held_by + wanted))
    why = guard(server)
    fix = findings.none(why) if why else findings.fix(
        findings.Action.SET_OWNER, owner=wanted)
    return findings.Finding(Kind.OWNER, _first(cloud, consumer), consumer,
                            server, detail, fix)


def flavor(cloud, consumer):
    """Allocations that differ from what the server's flavor asks for.

    Compared class by class over the classes the flavor asks for and
    those a flavor gives (``flavor_request.FLAVOR_CLASSES``): classes of
    ports or devices are not the flavor's. Not during a migration nor on
    two roots (another kind's), and never fixed: a resize or a change by
    hand needs an operator. When only some providers are audited (given
    by name or aggregate), what the consumer holds elsewhere (its disk on
    a sharing provider, its CPUs on a compute node not given) was not
    read unless the consumer was read whole: for the others, only the
    classes it holds on the providers read are compared.
    """
    server = _live(cloud, consumer)
    if server is None or consumer not in cloud.allocations or \
            cloud.in_progress(consumer) or len(cloud.roots(consumer)) > 1:
        return None
    asked, refused = flavor_request.requested(server, nested=True)
    if asked is None:
        return None
    held = collections.Counter()
    for amounts in cloud.held(consumer).values():
        held.update(amounts)
    classes = set(asked) | (set(held) & flavor_request.FLAVOR_CLASSES)
    if cloud.selected and consumer not in cloud.whole:
        classes &= set(held)
    differ = sorted(rc for rc in classes
                    if held.get(rc, 0) != asked.get(rc, 0))
    if not differ:
        return None
    detail = 'Holds %s; its flavor %s asks %s.' % (
        ', '.join('%s=%s' % (rc, held.get(rc, 0)) for rc in differ),
        server.flavor.get('name'),
        ', '.join('%s=%s' % (rc, asked.get(rc, 0)) for rc in differ))
    return findings.Finding(Kind.FLAVOR, _first(cloud, consumer), consumer,
                            server, detail,
                            findings.none('a resize or an edit by hand '
                                          'needs an operator'))


# The pipeline of a consumer: the first rule that decides wins.
CONSUMER_RULES = (
    (Kind.MIGRATION, migration),
    (Kind.EVACUATED, evacuated),
    (Kind.WRONG_HOST, wrong_host),
    (Kind.ORPHAN, orphan),
    (Kind.MISSING, missing),
    (Kind.OWNER, owner),
    (Kind.FLAVOR, flavor),
)


def aggregates(cloud):
    """Nova's host aggregates as Placement should mirror them.

    A host of a Nova aggregate whose compute provider is not in it (fix:
    add it, as ``nova-manage placement sync_aggregates``), and a compute
    provider in a Nova aggregate without its host (fix: remove it, which
    sync_aggregates never does). Aggregates Nova does not have are never
    touched.
    """
    found = []
    for agg in cloud.aggregates:
        named = '%s (%s)' % (agg.name, agg.uuid)
        for hv in cloud.hypervisors:
            rp = cloud.providers.get(hv.uuid)
            if hv.host not in agg.hosts or rp is None or \
                    agg.uuid in rp.aggregates:
                continue
            found.append(findings.Finding(
                Kind.AGGREGATE, rp.uuid, None, None,
                'Host %s is in Nova aggregate %s; its provider is not in it '
                'in Placement.' % (hv.host, named),
                findings.fix(findings.Action.ADD_AGGREGATE,
                             aggregate=agg.uuid)))
        for rp in cloud.providers.values():
            hv = cloud.hv_by_uuid.get(rp.uuid)
            if not rp.compute_root or agg.uuid not in rp.aggregates or \
                    hv is None or hv.host in agg.hosts:
                continue
            found.append(findings.Finding(
                Kind.AGGREGATE, rp.uuid, None, None,
                'In aggregate %s in Placement; Nova\'s aggregate %s has no '
                'host %s.' % (agg.uuid, agg.name, hv.host),
                findings.fix(findings.Action.REMOVE_AGGREGATE,
                             aggregate=agg.uuid)))
    return found


def providers(cloud):
    """Compute providers and hypervisors that do not match.

    A compute root (``COMPUTE_NODE``) that no hypervisor has (a stale one
    of a reinstalled compute holds the name its new provider needs), and
    a hypervisor without a provider. No fix: an operator decides.
    """
    found = []
    for rp in cloud.providers.values():
        if not rp.compute_root or rp.uuid in cloud.hv_by_uuid:
            continue
        hv = cloud.hv_by_name.get(rp.name)
        detail = 'A compute provider that no hypervisor has%s.' % (
            '; hypervisor %s is %s (a reinstalled compute?)' % (
                hv.name, hv.uuid) if hv else '')
        found.append(findings.Finding(
            Kind.PROVIDER, rp.uuid, None, None, detail,
            findings.none('deleting a provider needs an operator')))
    if not cloud.selected:
        for hv in cloud.hypervisors:
            if hv.uuid in cloud.providers:
                continue
            found.append(findings.Finding(
                Kind.PROVIDER, None, None, None,
                'Hypervisor %s (%s, host %s) has no resource provider.' % (
                    hv.name, hv.uuid, hv.host),
                findings.none('its compute service creates it')))
    return found


CLOUD_RULES = (
    (Kind.AGGREGATE, aggregates),
    (Kind.PROVIDER, providers),
)

CLOUD_KINDS = frozenset(kind for kind, _rule in CLOUD_RULES)
# Why the cloud rules, which judge compute nodes' root providers, judge
# nothing of a selection without one (a sharing provider, a child).
NO_COMPUTE_ROOT = 'no compute node\'s root provider is among those audited'


def no_compute_root(cloud):
    """Whether only some providers are audited, no compute root among them.

    The cloud rules then have nothing to judge: their kinds are
    unchecked, not "all clear".
    """
    return cloud.selected and not any(
        rp.compute_root for rp in cloud.providers.values())


def judge(cloud, consumer, kinds):
    """The verdict on one consumer: that of the first rule that decides.

    None when no rule of ``kinds`` decides about it, else what that rule
    returned (``SETTLED``, an :class:`Unchecked` or a finding).
    """
    for kind, rule in CONSUMER_RULES:
        if kind not in kinds:
            continue
        verdict = rule(cloud, consumer)
        if verdict is not None:
            return verdict
    return None


class Result(collections.namedtuple('Result', 'findings unchecked')):
    """The findings, ordered; ``unchecked``: {Kind: (count, reason)}."""

    __slots__ = ()


def audit(cloud, kinds=tuple(Kind)):
    """The :class:`Result` of the rules of ``kinds`` on ``cloud``.

    Without the hypervisors' list (a cell down), the kinds that need it
    are not run: each is in ``unchecked`` with the reason; so are the
    cloud rules' kinds for a selection without a compute root
    (:func:`no_compute_root`).
    """
    kinds = set(kinds)
    unchecked = {}
    if cloud.hypervisors is None:
        for kind in sorted(kinds & findings.NEED_HYPERVISORS,
                           key=list(Kind).index):
            unchecked[kind] = (None, 'the compute API cannot list the '
                                     'hypervisors (a cell down?)')
        kinds -= findings.NEED_HYPERVISORS
    if no_compute_root(cloud):
        for kind in sorted(kinds & CLOUD_KINDS, key=list(Kind).index):
            unchecked[kind] = (None, NO_COMPUTE_ROOT)
        kinds -= CLOUD_KINDS
    found = []
    subjects = list(cloud.allocations) + [
        uuid for uuid in cloud.servers if uuid not in cloud.allocations]
    for consumer in subjects:
        verdict = judge(cloud, consumer, kinds)
        if isinstance(verdict, Unchecked):
            count, reason = unchecked.get(verdict.kind, (0, None))
            unchecked[verdict.kind] = ((count or 0) + 1, verdict.reason)
        elif verdict is not None and verdict is not SETTLED:
            found.append(verdict)
    for kind, rule in CLOUD_RULES:
        if kind in kinds:
            found.extend(rule(cloud))
    return Result(findings.ordered(found, cloud.order), unchecked)
