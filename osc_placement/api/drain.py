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

"""The reads of ``resource provider drain plan``: Placement's and Nova's.

Placement's go through the command's batch engine (a ``Runner``), many
at once, each batch read whole or the command stops: the provider list,
the providers with a few traits, the allocations of each provider of the
drained trees, each of their consumers once (``GET /allocations/{c}``:
all it holds, its generation and owner), and the inventories and usages
of each provider of the target trees once.

Nova's take the compute proxy: the hypervisors (a root's host), the
servers of each drained hypervisor, the migrations of each drained host,
the few consumers neither lists (by UUID), and the zones' hosts; several
at once (``nova_state.outcomes_of``).
"""

import dataclasses
import functools
import typing

from openstack import exceptions as sdk_exceptions

from osc_placement.api import allocations as consumer_api
from osc_placement.api import compute
from osc_placement.api import nova_state
from osc_placement.api import paths
from osc_placement.api import providers as provider_api
from osc_placement import microversions
from osc_placement.model.audit import state
from osc_placement.model import batch_names

# Servers at the version that gives their pinned availability zone, or,
# where the compute API is older, at the audit's.
PINNED_ZONE = microversions.COMPUTE_PINNED_ZONE
OLDER = microversions.COMPUTE_AUDIT


def provider_list(http):
    """Every provider record, in Placement's order: one GET."""
    return http.request('GET', provider_api.BASE_URL).field(
        'resource_providers', list)


def _whole(runner, read, things):
    runner.require_complete(batch_names.ROWS, things)
    return read


def looked_up(http, runner, values):
    """{value: provider record} of providers given by name or UUID."""
    return dict(_whole(runner, runner.each(
        http, lambda value: provider_api.lookup(http, value),
        list(dict.fromkeys(values)), batch_names.PROVIDERS,
        lone_failure_raises=True), batch_names.PROVIDERS))


def members(http, runner, aggregates):
    """{aggregate: [provider UUID]} of the aggregates given."""
    return dict(_whole(runner, runner.each(
        http, lambda agg: provider_api.members(http, agg),
        list(dict.fromkeys(aggregates)), batch_names.AGGREGATE_MEMBERS),
        batch_names.AGGREGATE_MEMBERS))


def _known(http, traits):
    """The traits of ``traits`` that Placement has: one GET."""
    return set(http.request('GET', paths.url('traits'), params={
        'name': 'in:' + ','.join(sorted(traits))}).field('traits', list))


def with_traits(http, runner, traits):
    """{trait: frozenset of the UUIDs of the providers that have it}.

    A trait Placement does not have (a flavor's custom one nobody
    created) is no provider's: it is not asked for, as Placement
    refuses it in a query.
    """
    traits = sorted(set(traits))
    if not traits:
        return {}
    known = _known(http, traits)
    found = {trait: frozenset() for trait in traits}
    found.update((trait, frozenset(uuids)) for trait, uuids in _whole(
        runner, runner.each(
            http, lambda trait: provider_api.with_trait(http, trait),
            [t for t in traits if t in known], batch_names.TRAITS),
        batch_names.TRAITS))
    return found


def allocations_on(http, runner, uuids):
    """{provider: {consumer: {class: amount}}} of the providers given."""
    found = {}
    for record, held in _whole(runner, runner.each_provider(
            http, lambda rp: provider_api.provider_allocations(http, rp),
            [{'uuid': uuid} for uuid in uuids]), batch_names.PROVIDERS):
        found[record['uuid']] = {
            consumer: dict(alloc.get('resources') or {})
            for consumer, alloc in held.items()}
    return found


def consumers(http, runner, uuids):
    """{consumer: record (``model.consumers.record``)}: one GET each."""
    return dict(_whole(runner, runner.each(
        http, lambda c: consumer_api.read_consumer(http, c), sorted(uuids),
        batch_names.ALLOCATIONS), batch_names.ALLOCATIONS))


def _state(http, rp_uuid):
    return (provider_api.read(http, rp_uuid, 'inventories', dict),
            provider_api.provider_usages(http, rp_uuid))


def states(http, runner, uuids):
    """{provider: (inventories, usages)}: two GETs each."""
    return {record['uuid']: found for record, found in _whole(
        runner, runner.each_provider(
            http, functools.partial(_state, http),
            [{'uuid': uuid} for uuid in uuids]), batch_names.PROVIDERS)}


def aggregates(http, runner, uuids):
    """{provider: [aggregate UUID]}: one GET each."""
    return {record['uuid']: found for record, (found, _generation) in _whole(
        runner, runner.each_provider(
            http, functools.partial(provider_api.aggregates_of, http),
            [{'uuid': uuid} for uuid in uuids]), batch_names.PROVIDERS)}


# Nova's.

@dataclasses.dataclass(frozen=True)
class Nova:
    """What the compute API says of the drained hosts and the targets.

    ``servers``: {UUID: ``state.Server``} of the consumers that are
    servers; ``migrations``: {UUID: ``state.Migration``} of the drained
    hosts'; ``nodes``: {compute node UUID: ``state.Hypervisor``};
    ``zones``: {nova-compute host: its availability zone};
    ``pinned_known``: whether the servers were read at ``PINNED_ZONE``;
    ``disabled``: the compute nodes of the hypervisors whose service is
    disabled (``status``), which Nova's scheduler sends nothing to.
    """

    servers: typing.Mapping[str, state.Server]
    migrations: typing.Mapping[str, state.Migration]
    nodes: typing.Mapping[str, state.Hypervisor]
    zones: typing.Mapping[str, str]
    pinned_known: bool
    disabled: typing.AbstractSet[str] = frozenset()


def _servers_at(proxy, host, at):
    # host= is an exact match; node= a regular expression.
    return compute.paged(proxy, '/servers/detail', 'servers', {
        'all_tenants': '1', 'host': host}, at)


def _pinned_known(proxy, host):
    """(servers of ``host``, whether read at ``PINNED_ZONE``).

    An API older than ``PINNED_ZONE`` refuses that version (406, or 400
    from some proxies): read again at ``OLDER``.
    """
    try:
        return _servers_at(proxy, host, PINNED_ZONE), True
    except sdk_exceptions.HttpException as exc:
        if exc.status_code not in (400, 406):
            raise
    return _servers_at(proxy, host, OLDER), False


def _server(proxy, uuid, at):
    """The server of UUID ``uuid``, a deleted one too; None if none.

    ``GET /servers/{id}`` answers 404 for a deleted server: the admin's
    list of deleted servers (``deleted=true``) is asked then.
    """
    return nova_state.server_now(proxy, uuid, microversion=at) or \
        _deleted_server(proxy, uuid, at)


def _deleted_server(proxy, uuid, at):
    for body in compute.paged(proxy, '/servers/detail', 'servers', {
            'all_tenants': '1', 'deleted': 'true', 'uuid': uuid}, at):
        if body.get('id') == uuid:
            return state.server(body)
    return None


def _zones(proxy):
    """{nova-compute host: its zone}."""
    return {host: zone for zone, hosts in compute.compute_hosts(
        proxy).items() for host in hosts}


def read_nova(proxy, drained, consumer_uuids, workers=1):
    """The :class:`Nova` of the drained roots and their consumers.

    ``drained``: the UUIDs of the drained roots (a compute node's is its
    hypervisor's ``id``); ``consumer_uuids``: the consumers on them. The
    servers and the migrations of each drained hypervisor's host are
    listed (``host=``), and each consumer that neither lists is read by
    UUID (a server elsewhere, or none).
    """
    bodies, zones = nova_state.results_of([
        lambda: compute.paged(proxy, compute.HYPERVISORS, 'hypervisors', {},
                              OLDER),
        lambda: _zones(proxy)], workers)
    nodes = {node.uuid: node for node in map(state.hypervisor, bodies)}
    disabled = frozenset(body['id'] for body in bodies
                         if body.get('status') == 'disabled')
    hosts = sorted({nodes[rp].host for rp in drained
                    if rp in nodes and nodes[rp].host})
    # The first host's servers tell which version the API takes.
    listed, pinned_known = _pinned_known(proxy, hosts[0]) if hosts \
        else ([], True)
    at = PINNED_ZONE if pinned_known else OLDER
    listed += [body for page in nova_state.results_of([
        functools.partial(_servers_at, proxy, host, at)
        for host in hosts[1:]], workers) for body in page]
    migrations = {m.uuid: m for page in nova_state.results_of([
        functools.partial(nova_state.migrations_on, proxy, host)
        for host in hosts], workers) for m in page}
    servers = {body['id']: state.server(body) for body in listed
               if body.get('id') in consumer_uuids}
    others = sorted(set(consumer_uuids) - set(servers) - set(migrations))
    for uuid, found in zip(others, nova_state.results_of([
            functools.partial(_server, proxy, uuid, at)
            for uuid in others], workers)):
        if found is not None:
            servers[uuid] = found
    return Nova(servers=servers, migrations=migrations, nodes=nodes,
                zones=zones, pinned_known=pinned_known, disabled=disabled)
