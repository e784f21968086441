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

"""What the ``--flavor`` commands read from Nova.

Through the compute client OpenStackClient already holds (each function
takes ``clients``, the command's client manager, and uses its
``compute``, the compute proxy of its openstacksdk connection), as
``openstack flavor show`` does: the endpoint comes from the
service catalog, the token and the compute microversion from the
connection. From compute 2.61 a flavor carries its extra specs; below it
the proxy reads them with a second request (``get_extra_specs``).

Every failure is one ``CommandError`` line: no compute endpoint in the
catalog, Nova unreachable, a flavor not found or ambiguous, an answer
refused. Only the commands that take ``--flavor``, ``--all-flavors`` or
``--availability-zone``, and the audit, import this module.

:func:`paged` reads a paged list of the compute API at a given
microversion, :func:`get_body` one JSON object: the audit's reads
(``api/nova_state.py``) and the zone's hypervisors here.
"""

import collections

from keystoneauth1 import exceptions as ks_exceptions
from openstack import exceptions as sdk_exceptions
from osc_lib import exceptions

from osc_placement.api import background
from osc_placement import errors
from osc_placement.http import client as http
from osc_placement import microversions
from osc_placement.model.audit import state
from osc_placement.model import scalars
from osc_placement.model import text

AGGREGATE_UUID = microversions.COMPUTE_AGGREGATE_UUID
HYPERVISOR_UUID = microversions.COMPUTE_HYPERVISOR_UUID


# What a command that reads Nova needs and a session without a catalog
# lacks: (who reads the compute API, the way round it).
NO_CATALOG = (
    '%s, which this session cannot reach: --os-auth-type %s gives no '
    'service catalog. Log in through Keystone (e.g. --os-auth-type '
    'password) so that the catalog names the compute endpoint%s.')
# The --flavor options', and a command's own (the audit's).
FLAVOR_OPTIONS = ('--flavor, --all-flavors and --availability-zone read the '
                  'compute API', ', or ask with --resource instead')
THIS_COMMAND = ('This command reads %s', '')


def _compute(clients, asker=FLAVOR_OPTIONS):
    """The compute proxy, or one line if the session cannot reach Nova.

    With an auth of one fixed endpoint and no catalog (``admin_token``,
    ``none``), openstacksdk's proxy has none of the compute calls, or
    sends them to that endpoint, Placement's; only a compute endpoint of
    its own (``compute_endpoint_override`` in clouds.yaml) is Nova's.
    The configuration says which before the proxy is made: making it
    reads the version document of its endpoint.
    """
    clients.setup_auth()
    if http.without_catalog(clients.session) and not _own_endpoint(clients):
        raise _no_catalog(clients, asker)
    proxy = clients.compute
    if not hasattr(proxy, 'find_flavor'):
        raise _no_catalog(clients, asker)
    return proxy


def _no_catalog(clients, asker):
    reads, instead = asker
    return exceptions.CommandError(NO_CATALOG % (reads, text.printable(
        str(getattr(clients, 'auth_plugin_name', None))), instead))


def _own_endpoint(clients):
    """Whether compute has an endpoint other than the auth's fixed one."""
    configured = clients.sdk_connection.config.get_endpoint('compute')
    fixed = getattr(clients.session.auth, 'endpoint', None)
    return bool(configured) and (configured.rstrip('/')
                                 != (fixed or '').rstrip('/'))


def _call(what, read):
    """read(), its failures as one line about ``what``.

    ``read`` reaches the compute proxy itself: OpenStackClient makes it,
    and looks the endpoint up, at the first use.
    """
    try:
        return read()
    except (ks_exceptions.EndpointNotFound, ks_exceptions.CatalogException,
            sdk_exceptions.EndpointNotFound,
            sdk_exceptions.ServiceDisabledException,
            sdk_exceptions.ServiceDiscoveryException) as exc:
        raise exceptions.CommandError(
            'Cannot read %s: no compute endpoint in the service catalog '
            '(%s).' % (what, text.printable(str(exc))))
    except ks_exceptions.ConnectionError as exc:
        raise exceptions.CommandError(
            'Cannot read %s: the compute API %s (%s).'
            % (what, 'was reached' if errors.answer_incomplete(exc)
               else 'is unreachable', errors.describe_transport_error(exc)))
    except sdk_exceptions.HttpException as exc:
        if exc.status_code is None:
            # Raised by the proxy's find, not by an answer: nothing found.
            raise
        raise exceptions.CommandError(
            'Cannot read %s: the compute API answered HTTP %s: %s'
            % (what, exc.status_code,
               text.printable(exc.details or exc.message or '')))


def read(clients, what, reader):
    """reader(the compute proxy), its failures as one line about ``what``.

    For the reads of other modules (the audit's): the same proxy and the
    same one-line errors as the flavor and zone reads here.
    """
    asker = (THIS_COMMAND[0] % what, THIS_COMMAND[1])
    return _call(what, lambda: reader(_compute(clients, asker)))


def read_beside(clients, what, reader):
    """reader(the compute proxy) in a thread of its own; its future.

    For reads of the compute API beside the command's own
    (``api.background.start``). The proxy is made here, in the caller's
    thread, and its failure raises here; the failures of ``reader`` come
    through the future, each as one line about ``what``, as
    :func:`read`'s.
    """
    proxy = read(clients, what, lambda proxy: proxy)
    return background.start(_call, what, lambda: reader(proxy))


def _flavor(found):
    """The flavor as osc_placement.model.flavors.translate() takes it."""
    return {
        'id': found.id,
        'name': found.name,
        'vcpus': found.vcpus or 0,
        'ram': found.ram or 0,
        'disk': found.disk or 0,
        'ephemeral': found.ephemeral or 0,
        'swap': found.swap or 0,
        'is_public': found.is_public,
        'extra_specs': dict(found.extra_specs or {}),
    }


def find_flavor(clients, name_or_id):
    """A flavor by name or ID, with its extra specs, as a dict.

    As ``openstack flavor show``: the ID first, then the names of all
    flavors, public and private.
    """
    shown = text.printable(repr(name_or_id))
    if not name_or_id.strip():
        raise exceptions.CommandError(
            'No flavor with a name or ID of %s: give one.' % shown)
    try:
        found = _call('flavor %s' % shown, lambda: _compute(
            clients).find_flavor(name_or_id, ignore_missing=False,
                                 get_extra_specs=True))
    except sdk_exceptions.NotFoundException:
        raise exceptions.CommandError(
            'No flavor with a name or ID of %s in the compute API.' % shown)
    except sdk_exceptions.DuplicateResource:
        raise exceptions.CommandError(
            'More than one flavor is named %s: give its ID.' % shown)
    return _flavor(found)


def all_flavors(clients):
    """Every flavor, public and private (as an admin sees them)."""
    return _call('the flavors', lambda: [
        _flavor(found) for found in _compute(clients).flavors(
            details=True, get_extra_specs=True, is_public=None)])


_NO_AGGREGATE = ('No host aggregate of the compute API is in availability '
                 'zone %s.')


def _aggregates_of(clients, zone):
    """The UUIDs of the host aggregates of an availability zone, sorted.

    Those of the aggregates whose ``availability_zone`` metadata is the
    zone (maybe none): Nova mirrors them into Placement under the same
    UUIDs, and its scheduler asks for ``member_of=in:<them>``.
    """
    what = 'the host aggregates of availability zone %s' % (
        text.printable(repr(zone)))
    found = _call(what, lambda: list(_compute(clients).aggregates()))
    uuids = []
    for aggregate in found:
        if (aggregate.metadata or {}).get('availability_zone') != zone:
            continue
        if not aggregate.uuid:
            raise exceptions.CommandError(
                'Cannot read %s: the compute API gives no aggregate UUID '
                '(compute microversion %s or later needed).'
                % (what, AGGREGATE_UUID))
        uuids.append(aggregate.uuid)
    return sorted(uuids)


class Zone(object):
    """An availability zone, as Nova's scheduler keeps its hosts.

    ``aggregates``: the UUIDs of its host aggregates (the request asks
    for ``member_of=in:<them>``), or, for a zone that no aggregate
    carries (Nova's default zone), None and ``hosts``: the names of its
    nova-compute hosts. ``nodes``: their compute nodes, ``{host:
    [Node]}`` (``with_nodes()``; None until read), whose trees alone
    count.
    """

    def __init__(self, name, aggregates=None, hosts=None, nodes=None):
        self.name = name
        self.aggregates = aggregates
        self.hosts = hosts
        self.nodes = nodes

    @property
    def roots(self):
        """{root provider UUID: Node} of the hosts' nodes (None: any)."""
        if self.nodes is None:
            return None
        return {node.uuid: node for host in sorted(self.nodes)
                for node in self.nodes[host]}


# A compute node of a host: a hypervisor of the compute API. uuid: its
# id (from compute 2.53), the UUID of the compute node and of its root
# provider; name: its hypervisor_hostname, which Nova names the provider
# after (an FQDN where the service's host is a short name, each node's
# own for an Ironic host of many nodes); host: its service's host.
Node = collections.namedtuple('Node', 'uuid name host')


def availability_zone(clients, name):
    """The ``Zone`` of ``--availability-zone``: its aggregates or hosts.

    As Nova's scheduler: where aggregates carry the zone, the request
    lands in one of them (``map_az_to_placement_aggregate``); where none
    does, that filter adds nothing and the ``AvailabilityZoneFilter``
    keeps the hosts of the zone, those the compute API lists in it
    (``GET /os-availability-zone/detail``): Nova's default zone
    (``[DEFAULT] default_availability_zone``), of the computes in no
    aggregate with a zone; ``with_nodes()`` then reads their compute
    nodes. One line for a zone of neither.
    """
    uuids = _aggregates_of(clients, name)
    if uuids:
        return Zone(name, aggregates=uuids)
    hosts = zone_hosts(clients, name)
    if hosts is None:
        raise exceptions.CommandError(_NO_AGGREGATE % text.printable(
            repr(name)))
    if not hosts:
        raise exceptions.CommandError(
            'Availability zone %s has no host aggregate and no enabled '
            'nova-compute host in the compute API.'
            % text.printable(repr(name)))
    return Zone(name, hosts=hosts)


# The service of a compute host in the zones' detail.
COMPUTE_BINARY = 'nova-compute'


ZONES = '/os-availability-zone/detail'


def compute_hosts(proxy, what='the availability zones'):
    """{zone: [its nova-compute hosts]} of every zone the compute API lists.

    ``GET /os-availability-zone/detail`` (``openstack availability zone
    list --compute --long``) lists each zone with the enabled services
    of its hosts: a compute's zone is that of its aggregates, else the
    default one, and the other services are in the internal zone. Only
    the hosts with a ``nova-compute`` count; a zone listed without one
    has none. Hosts that are not an object are one line about ``what``.
    """
    zones = {}
    for zone in list_of(get_body(proxy, ZONES, {}, None), ZONES,
                        'availabilityZoneInfo'):
        name = zone.get('zoneName')
        listed = zone.get('hosts') or {}
        if not isinstance(listed, dict):
            raise exceptions.CommandError(
                'Cannot read %s: the compute API gives the hosts of zone '
                '%s as %s, not an object.'
                % (what, text.printable(repr(name)), type(listed).__name__))
        zones.setdefault(name, []).extend(
            host for host, services in listed.items()
            if COMPUTE_BINARY in (services or {}))
    return zones


def zone_hosts(clients, name):
    """The sorted nova-compute hosts of a zone, or None if not listed."""
    what = 'the availability zones'
    hosts = _call(what, lambda: compute_hosts(_compute(clients), what)).get(
        name)
    return None if hosts is None else sorted(set(hosts))


HYPERVISORS = '/os-hypervisors/detail'


def with_nodes(clients, zone):
    """``zone`` with the ``nodes`` of its hosts, from the hypervisors.

    ``GET /os-hypervisors/detail`` at compute ``HYPERVISOR_UUID``: each
    hypervisor whose service's host is one of the zone's is a ``Node``
    of it (none, one, or several for an Ironic host), sorted by name.
    A hypervisor ``id`` that is not a UUID is one line.
    """
    what = 'the hypervisors of availability zone %s' % (
        text.printable(repr(zone.name)))
    # Not openstacksdk's hypervisors(), which asks at the highest version
    # it knows (2.88: an uptime call to every compute service).
    found = _call(what, lambda: paged(
        _compute(clients), HYPERVISORS, 'hypervisors', {},
        microversion=HYPERVISOR_UUID))
    nodes = dict((host, []) for host in zone.hosts)
    for body in found:
        service = body.get('service')
        host = service.get('host') if isinstance(service, dict) else None
        if not isinstance(host, str) or host not in nodes:
            continue
        uuid = body.get('id')
        if not isinstance(uuid, str) or not scalars.is_uuid_like(uuid):
            raise exceptions.CommandError(
                'Cannot read %s: the compute API gives hypervisor %s of '
                'host %s the ID %s, not its compute node\'s UUID (compute '
                'microversion %s or later needed).'
                % (what, text.printable(repr(body.get(
                    'hypervisor_hostname'))), text.printable(host),
                   text.printable(repr(uuid)), HYPERVISOR_UUID))
        nodes[host].append(Node(uuid, body.get('hypervisor_hostname'), host))
    for host in nodes:
        nodes[host].sort(key=lambda node: (str(node.name), node.uuid))
    return Zone(zone.name, aggregates=zone.aggregates, hosts=zone.hosts,
                nodes=nodes)


def get_body(proxy, path, params, microversion):
    """The JSON object of one compute GET at ``microversion``.

    An answer of an error is openstacksdk's exception; a body that is
    no JSON object is one line.
    """
    response = proxy.get(path, params=params, microversion=microversion)
    sdk_exceptions.raise_from_response(response)
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise exceptions.CommandError(
            'Invalid response from the compute API to GET %s: not a JSON '
            'object.' % path)
    return body


def list_of(body, path, key):
    """The list of objects at ``key`` of a compute answer, or one line."""
    found = body.get(key)
    if not isinstance(found, list) or not all(
            isinstance(item, dict) for item in found):
        raise exceptions.CommandError(
            'Invalid response from the compute API to GET %s: no list of '
            'objects at "%s".' % (path, key))
    return found


def _has_next(body, key):
    return any(isinstance(link, dict) and link.get('rel') == 'next'
               for link in body.get(key + '_links') or ())


def paged(proxy, path, key, params, microversion, marker_key='id'):
    """Every item of a paged compute list, each page at ``microversion``.

    ``params``: those of every page. The next page's marker is the last
    item's ``marker_key`` (a down cell's server, ``UNKNOWN``, cannot be
    a marker and is passed over); a page whose marker is that of the
    page before is one line, not a loop.
    """
    items = []
    query = dict(params)
    while True:
        body = get_body(proxy, path, query, microversion)
        page = list_of(body, path, key)
        items.extend(page)
        markers = [item.get(marker_key) for item in page
                   if item.get('status') != state.UNKNOWN
                   and item.get(marker_key)]
        if not page or not markers or not _has_next(body, key):
            return items
        if markers[-1] == query.get('marker'):
            raise exceptions.CommandError(
                'Invalid response from the compute API to GET %s: the page '
                'after marker %s is that page again.'
                % (path, text.printable(str(markers[-1]))))
        query = dict(params, marker=markers[-1])
