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

"""The steps of ``resource provider drain plan``: read, then plan.

:func:`read` reads Placement (``api/drain.py``: the trees, the drained
trees' consumers, the targets' state) and, when the session reaches the
compute API, Nova (the servers, migrations and zones of the drained
hosts, in a thread while Placement's targets are read), and builds the
plan's ``model.drain.cloud.Cloud``: each consumer with what Nova says of
it (``model.drain.nova``). The command then calls
``model.drain.search.plan()``.
"""

import dataclasses
import time
import typing

from osc_lib import exceptions

from osc_placement.api import compute
from osc_placement.api import drain as drain_api
from osc_placement.cli import common
from osc_placement.model.drain import cloud as clouds
from osc_placement.model.drain import inputs
from osc_placement.model.drain import nova as nova_terms
from osc_placement.model.text import printable

MARKS = (clouds.COMPUTE_NODE, clouds.DISABLED, clouds.SHARING)

NOVA_READS = ('the servers, migrations, hypervisors and availability zones '
              'of the compute API')


@dataclasses.dataclass(frozen=True)
class Read:
    """What the command prints besides the plan.

    ``cloud``: the plan's input; ``nova``: the compute API's state
    (``api.drain.Nova``), None without one.
    """

    cloud: clouds.Cloud
    nova: typing.Optional[drain_api.Nova]

    def host(self, root):
        """The nova-compute host of a target root, None if unknown."""
        node = self.nova.nodes.get(root) if self.nova else None
        return node.host if node else None


def _drained(cmd, http, run, parsed_args, records):
    """The sorted roots of the providers and aggregate given."""
    given = []
    if parsed_args.providers:
        given.extend(found['uuid'] for found in drain_api.looked_up(
            http, run, parsed_args.providers).values())
    if parsed_args.aggregate:
        held = drain_api.members(http, run, [parsed_args.aggregate])
        if not held.get(parsed_args.aggregate):
            raise exceptions.CommandError(
                'Nothing to drain: aggregate %s has no resource provider.'
                % parsed_args.aggregate)
        given.extend(held[parsed_args.aggregate])
    return inputs.roots(records, given)


def _narrowed(http, run, parsed_args, records):
    """The roots ``--target`` and ``--target-aggregate`` keep, or None."""
    if not parsed_args.target and not parsed_args.target_aggregate:
        return None
    kept = set()
    if parsed_args.target:
        kept.update(inputs.roots(records, [
            found['uuid'] for found in drain_api.looked_up(
                http, run, parsed_args.target).values()]))
    if parsed_args.target_aggregate:
        held = drain_api.members(http, run, [parsed_args.target_aggregate])
        in_aggregate = set(inputs.roots(
            records, held.get(parsed_args.target_aggregate, ())))
        kept = in_aggregate if not parsed_args.target else (
            kept & in_aggregate)
    return kept


def _with_hypervisor(cmd, parsed_args, targets, nova, by_uuid):
    """The targets Nova can send a server to: enabled hypervisors' nodes.

    With the compute API read, a compute root that no hypervisor has (a
    provider a deleted or reinstalled compute service left) is no
    target, nor one whose compute service is disabled (Nova's scheduler
    skips it, also before its compute sets ``COMPUTE_STATUS_DISABLED``);
    one ``--target`` named is said in one line.
    """
    if nova is None:
        return targets
    kept = []
    for root in targets:
        why = ('no hypervisor of the compute API has it'
               if root not in nova.nodes else
               'its compute service is disabled in the compute API'
               if root in nova.disabled else None)
        if why is None:
            kept.append(root)
        elif parsed_args.target:
            cmd.log.warning('Not a target: %s: %s.', printable(
                by_uuid[root].get('name') or root), why)
    return kept


def _say_left_out(cmd, parsed_args, narrowed, targets, marks, drained,
                  by_uuid):
    """One line for each tree ``--target`` named that cannot receive."""
    if not parsed_args.target:
        return
    for root in sorted(set(narrowed) - set(targets),
                       key=lambda r: (by_uuid[r].get('name') or '', r)):
        why = ('it is drained' if root in drained else
               'it is disabled (COMPUTE_STATUS_DISABLED)'
               if root in marks[clouds.DISABLED] else
               'its root is no compute node (COMPUTE_NODE)'
               if root not in marks[clouds.COMPUTE_NODE] else
               'it is not in --target-aggregate')
        cmd.log.warning('Not a target: %s: %s.', printable(
            by_uuid[root].get('name') or root), why)


def _reaches_compute(cmd):
    """Whether the session reaches a compute API.

    A session without a catalog (``admin_token``, ``none``) reaches one
    only through an endpoint of its own; one with a catalog, when the
    catalog lists it.
    """
    clients = cmd.app.client_manager
    try:
        compute.read(clients, NOVA_READS, lambda proxy: proxy)
    except exceptions.CommandError:
        return False
    return clients.is_service_available('compute') is not False


def _start_nova(cmd, http, drained, consumers):
    """Nova's reads of the drained hosts, started in a thread.

    Their future (``api.compute.read_beside``): the state
    (``api.drain.Nova``) and the seconds the reads took. None when the
    session reaches no compute API, said on stderr.
    """
    if not _reaches_compute(cmd):
        cmd.log.warning(
            'No compute API in this session: the servers\' flavors, zones '
            'and states were not read; the plan follows Placement alone.')
        return None
    workers = http.parallel or cmd.default_parallel

    def reads(proxy):
        started = time.monotonic()
        found = drain_api.read_nova(proxy, drained, consumers, workers)
        return found, time.monotonic() - started
    return compute.read_beside(cmd.app.client_manager, NOVA_READS, reads)


def _nova(cmd, reads):
    """Nova's state once its reads end, or None without them.

    Said on stderr here, in the command's thread, whatever Placement's
    reads did meanwhile.
    """
    if reads is None:
        return None
    found, took = reads.result()
    cmd.log.debug('The compute API\'s reads took %.2f s.', took)
    if not found.pinned_known:
        cmd.log.warning(
            'The compute API is older than %s: it does not say which zone '
            'a server is pinned to; each server is kept in the zone it is '
            'in now.' % drain_api.PINNED_ZONE)
    return found


@dataclasses.dataclass(frozen=True)
class Asked:
    """What Nova says of one consumer: its server, why it stays, its request.

    ``shown``: the ``server`` column; ``stays``: why it is left as it is,
    None when it may move; ``request``: then, its flavor's translated
    request (``model.drain.nova.request()``).
    """

    shown: str
    stays: typing.Optional[str]
    request: typing.Any = None


def _asked(uuid, nova, here=None):
    """The :class:`Asked` of a consumer.

    ``here``: as ``model.drain.nova.elsewhere()`` takes it (None: not
    checked).
    """
    server = nova.servers.get(uuid)
    shown = server.shown() if server else ''
    why = nova_terms.stays(uuid, server, nova.migrations)
    if why is None and here is not None:
        why = nova_terms.elsewhere(server, here)
    if why is not None:
        return Asked(shown, why)
    try:
        return Asked(shown, None, nova_terms.request(server))
    except nova_terms.Untranslatable as exc:
        return Asked(shown, str(exc))


def _constraints(uuid, record, nova, asked, providers, drained):
    """The Consumer fields Nova's state gives one consumer."""
    if nova is None:
        return {}
    if asked.stays is not None:
        return {'server': asked.shown, 'stays': asked.stays}
    held = {rp: dict(alloc['resources'])
            for rp, alloc in record['allocations'].items()}
    needs = {}
    for root in drained:
        on_tree = {rp: amounts for rp, amounts in held.items()
                   if rp in providers and providers[rp].root == root}
        if on_tree:
            needs.update(nova_terms.needs(asked.request, on_tree, providers,
                                          root))
    return {'server': asked.shown, 'needs': needs,
            'member_of': nova_terms.zone(nova.servers[uuid],
                                         nova.pinned_known)}


def read(cmd, http, parsed_args):
    """The :class:`Read` of the drain of the providers given."""
    run = common.runner(cmd)
    records = drain_api.provider_list(http)
    by_uuid = {record['uuid']: record for record in records}
    drained = _drained(cmd, http, run, parsed_args, records)
    marks = drain_api.with_traits(http, run, MARKS)
    narrowed = _narrowed(http, run, parsed_args, records)
    targets = inputs.targets(records, marks[clouds.COMPUTE_NODE],
                             marks[clouds.DISABLED], set(drained), narrowed)
    _say_left_out(cmd, parsed_args, narrowed, targets, marks, drained,
                  by_uuid)
    trees = inputs.trees(records)
    drained_rps = [rp for root in drained for rp in trees.get(root, ())]
    held = drain_api.allocations_on(http, run, drained_rps)
    uuids = sorted({c for on_rp in held.values() for c in on_rp})
    records_of = drain_api.consumers(http, run, uuids)
    nova_reads = _start_nova(cmd, http, drained, uuids)
    sharing = sorted({rp for rec in records_of.values()
                      for rp in rec['allocations']
                      if rp in marks[clouds.SHARING]})
    try:
        shared_by = drain_api.aggregates(http, run, sharing)
        member_of = drain_api.members(
            http, run, sorted({agg for aggs in shared_by.values()
                               for agg in aggs}))
        # Read while Nova's are: the state of each target Placement
        # allows, those Nova then leaves out too (a few, read for
        # nothing).
        states = drain_api.states(http, run, [
            rp for root in targets for rp in trees.get(root, ())])
    except Exception:
        cmd.wait_beside(nova_reads)
        raise
    nova = _nova(cmd, nova_reads)
    targets = _with_hypervisor(cmd, parsed_args, targets, nova, by_uuid)
    asked = {c: _asked(c, nova, _here(records_of.get(c), trees, drained,
                                      nova))
             for c in uuids} if nova else {}
    traits = dict(marks)
    traits.update(drain_api.with_traits(http, run, nova_terms.traits_of(
        [a.request for a in asked.values() if a.request]) - set(marks)))

    def traits_of(uuid):
        return {t for t, rps in traits.items() if uuid in rps}
    sources = {uuid: inputs.provider(by_uuid[uuid], traits=traits_of(uuid))
               for uuid in drained_rps}
    constraints = {c: _constraints(c, records_of[c], nova, asked.get(c),
                                   sources, drained) for c in uuids}
    target_rps = [rp for root in targets for rp in trees.get(root, ())]
    providers = {}
    for uuid in drained_rps + target_rps + sharing:
        record = by_uuid.get(uuid)
        if record is None:
            continue
        providers[uuid] = inputs.provider(
            record, traits=traits_of(uuid),
            aggregates=_aggregates(uuid, record, shared_by, member_of, nova),
            state=states.get(uuid))
    consumers = [inputs.consumer(c, records_of[c], **constraints[c])
                 for c in uuids if c in records_of]
    names = {key: nova_terms.zone_name(key) for fields in constraints.values()
             for group in fields.get('member_of', ()) for key in group}
    return Read(clouds.Cloud(providers=providers, drained=drained,
                             targets=targets, consumers=consumers,
                             aggregate_names=names), nova)


def _here(record, trees, drained, nova):
    """{(host, hypervisor name)} of the drained roots a consumer is on."""
    held = set((record or {}).get('allocations') or ())
    return {(nova.nodes[root].host, nova.nodes[root].name)
            for root in drained if root in nova.nodes
            and held & set(trees.get(root, ()))}


def _aggregates(uuid, record, shared_by, member_of, nova):
    """The aggregates of a provider that the plan looks at.

    A sharing provider's own; a root's among those (the pools it may
    use); a target root's zone as a pseudo-aggregate.
    """
    if uuid in shared_by:
        return frozenset(shared_by[uuid])
    found = {agg for agg, rps in member_of.items() if uuid in rps}
    if nova is not None and record.get('parent_provider_uuid') is None:
        node = nova.nodes.get(uuid)
        zone = nova.zones.get(node.host) if node else None
        if zone:
            found.add(nova_terms.zone_key(zone))
    return frozenset(found)


def command(read_, row):
    """The ``openstack server migrate`` line of a moved server, or ''.

    A live migration; a cold one for a stopped server (``SHUTOFF``),
    which Nova does not migrate live.
    """
    if read_.nova is None or row.target_root is None:
        return ''
    host = read_.host(row.target_root)
    server = read_.nova.servers.get(row.consumer)
    if host is None or server is None:
        return ''
    how = '' if server.status in nova_terms.COLD else '--live-migration '
    return 'openstack server migrate %s--host %s %s' % (
        how, printable(host), row.consumer)
