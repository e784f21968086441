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

"""What an audit reads, as typed values: Nova's side and Placement's.

Pure: the compute API's bodies (at ``COMPUTE_VERSION``) and Placement's
are turned into :class:`Server`, :class:`Migration`, :class:`Hypervisor`,
:class:`Aggregate` and :class:`Provider`; :class:`Cloud` holds them all,
indexed the ways the rules look them up.
"""

import collections
import datetime

from osc_placement import microversions

# The compute microversion of every read (see the table).
COMPUTE_VERSION = microversions.COMPUTE_AUDIT

# Traits that decide what a provider is.
COMPUTE_NODE = 'COMPUTE_NODE'
SHARING = 'MISC_SHARES_VIA_AGGREGATE'
OWNER_PREFIX = 'OWNER_'
OWNER_NOVA = 'OWNER_NOVA'

# Server states.
BUILDING = 'BUILD'
DELETED = 'DELETED'
SOFT_DELETED = 'SOFT_DELETED'
SHELVED_OFFLOADED = 'SHELVED_OFFLOADED'
UNKNOWN = 'UNKNOWN'

# The migration statuses of a migration that has ended (nova's
# MigrationList.get_in_progress_* leave these out).
ENDED = frozenset(('confirmed', 'reverted', 'error', 'failed', 'completed',
                   'cancelled', 'done'))


class Server(collections.namedtuple('Server', (
        'uuid name status task_state project_id user_id node flavor '
        'boot_from_volume host zone pinned_zone'),
        defaults=(None, None, None))):
    """A server as the compute API lists it.

    ``node``: its hypervisor's name (None when on no host), ``host``: its
    compute service's host (two hosts' hypervisors may share a name:
    a server's is the one of that host and name); ``flavor``:
    the embedded flavor as ``model.flavors.translate()`` takes it, None
    when the API gave none (a down cell); ``zone``: the availability
    zone it is in, ``pinned_zone`` the one it must stay in (compute
    2.96 and later; None: none, or not given).
    """

    __slots__ = ()

    @property
    def deleted(self):
        return self.status == DELETED

    @property
    def unknown(self):
        """In a cell that is down: only its UUID is known."""
        return self.status == UNKNOWN

    def shown(self):
        """'name (STATUS)', the ``server`` column."""
        return '%s (%s)' % (self.name or self.uuid, self.status)


def _flavor(body):
    flavor = body.get('flavor')
    if not isinstance(flavor, dict) or 'vcpus' not in flavor:
        return None
    return {'name': flavor.get('original_name'),
            'vcpus': flavor.get('vcpus') or 0, 'ram': flavor.get('ram') or 0,
            'disk': flavor.get('disk') or 0,
            'ephemeral': flavor.get('ephemeral') or 0,
            'swap': flavor.get('swap') or 0,
            'extra_specs': dict(flavor.get('extra_specs') or {})}


def server(body):
    """The :class:`Server` of one entry of ``GET /servers/detail``."""
    return Server(
        uuid=body['id'], name=body.get('name'),
        status=body.get('status') or UNKNOWN,
        task_state=body.get('OS-EXT-STS:task_state'),
        project_id=body.get('tenant_id'), user_id=body.get('user_id'),
        node=body.get('OS-EXT-SRV-ATTR:hypervisor_hostname'),
        flavor=_flavor(body),
        # A server booted from a volume has no image: "".
        boot_from_volume=body.get('image') == '',
        host=body.get('OS-EXT-SRV-ATTR:host'),
        zone=body.get('OS-EXT-AZ:availability_zone') or None,
        pinned_zone=body.get('pinned_availability_zone') or None)


def parse_time(value):
    """A compute API time (ISO 8601) as an aware datetime in UTC.

    Nova writes its times naive, in UTC; a time with an offset (``Z``,
    ``+02:00``, ``-05:00``) is that moment, converted to UTC.
    """
    if not value:
        return None
    found = datetime.datetime.fromisoformat(value.replace('Z', '+00:00'))
    if found.tzinfo is None:
        return found.replace(tzinfo=datetime.timezone.utc)
    return found.astimezone(datetime.timezone.utc)


class Migration(collections.namedtuple('Migration', (
        'uuid server status source_node dest_node updated_at'))):
    """A migration: its consumer UUID, its server and its status."""

    __slots__ = ()

    @property
    def ended(self):
        return self.status in ENDED


def migration(body):
    """The :class:`Migration` of one entry of ``GET /os-migrations``."""
    return Migration(
        uuid=body['uuid'], server=body.get('instance_uuid'),
        status=(body.get('status') or '').lower(),
        source_node=body.get('source_node'), dest_node=body.get('dest_node'),
        updated_at=parse_time(body.get('updated_at')
                              or body.get('created_at')))


Hypervisor = collections.namedtuple('Hypervisor', 'uuid name host')


def hypervisor(body):
    """The :class:`Hypervisor` of ``GET /os-hypervisors/detail``.

    ``uuid``: its compute node's, which is its provider's.
    """
    return Hypervisor(uuid=body['id'], name=body.get('hypervisor_hostname'),
                      host=(body.get('service') or {}).get('host'))


Aggregate = collections.namedtuple('Aggregate', 'uuid name hosts')


def aggregate(body):
    """The :class:`Aggregate` of ``GET /os-aggregates``."""
    return Aggregate(uuid=body.get('uuid'), name=body.get('name'),
                     hosts=tuple(body.get('hosts') or ()))


class Provider(collections.namedtuple('Provider', (
        'uuid name root parent traits aggregates'))):
    """A resource provider: its tree, the traits that decide what it is.

    ``traits``: those of it the audit asked about (``COMPUTE_NODE``,
    sharing, owners); ``aggregates``: the Nova aggregates it is in.
    """

    __slots__ = ()

    @property
    def compute_root(self):
        return self.uuid == self.root and COMPUTE_NODE in self.traits

    @property
    def sharing(self):
        return SHARING in self.traits

    @property
    def foreign(self):
        """Another service's (``OWNER_CYBORG``...), not Nova's too."""
        return OWNER_NOVA not in self.traits and any(
            trait.startswith(OWNER_PREFIX) for trait in self.traits)


def provider(body, traits=(), aggregates=()):
    """The :class:`Provider` of a ``GET /resource_providers`` record."""
    return Provider(
        uuid=body['uuid'], name=body.get('name'),
        root=body.get('root_provider_uuid') or body['uuid'],
        parent=body.get('parent_provider_uuid'),
        traits=frozenset(traits), aggregates=frozenset(aggregates))


class Cloud(object):
    """Everything read, indexed for the rules.

    ``providers``: {uuid: Provider} of the providers audited (their
    allocations read), in list order; ``allocations``: {consumer: {rp:
    {class: amount}}} on them; ``owners``: {consumer: (project, user)}
    of the consumers whose owner was read; ``hypervisors``: None when
    the compute API could not list them (a cell down); ``now``: the time
    the grace is measured from. When only some providers are audited
    (``selected``): ``known``, {uuid: Provider} of every provider
    listed, those audited among them (the names and trees of those not
    audited), and ``whole``,
    {consumer: {rp: {class: amount}}} of the consumers read whole (all
    they hold, on any provider).
    """

    def __init__(self, servers, migrations, hypervisors, aggregates,
                 providers, allocations, owners=None, grace_minutes=10,
                 now=None, selected=False, down_cell=False, known=None,
                 whole=None):
        self.servers = {s.uuid: s for s in servers}
        self.migrations = {m.uuid: m for m in migrations}
        self.by_server = collections.defaultdict(list)
        for found in migrations:
            self.by_server[found.server].append(found)
        self.hypervisors = None if hypervisors is None else list(hypervisors)
        self.hv_by_uuid = {h.uuid: h for h in self.hypervisors or ()}
        self.hv_by_name = {h.name: h for h in self.hypervisors or ()}
        self.hv_by_node = {(h.host, h.name): h
                           for h in self.hypervisors or ()}
        self.aggregates = [a for a in aggregates if a.uuid]
        self.providers = providers
        self.allocations = allocations
        self.owners = owners or {}
        self.grace = datetime.timedelta(minutes=grace_minutes)
        self.now = now or datetime.datetime.now(datetime.timezone.utc)
        self.selected = selected
        self.known = known or providers
        self.whole = whole or {}
        # {Kind: why} of the kinds whose reads failed: not judged.
        self.unreadable = {}
        self.down_cell = down_cell or hypervisors is None or any(
            s.unknown for s in servers)

    def with_nova(self, servers, migrations):
        """This cloud, with Nova's state read again for some servers.

        ``servers``: {uuid: :class:`Server`, or None when Nova has it no
        more}; ``migrations``: the migrations read again, which replace
        those of the same UUID and every migration of the servers read
        again. Placement's side is this cloud's.
        """
        again = set(servers)
        kept = [found for uuid, found in self.servers.items()
                if uuid not in again]
        moves = {m.uuid: m for m in self.migrations.values()
                 if m.server not in again}
        moves.update((m.uuid, m) for m in migrations)
        now = Cloud(kept + [found for found in servers.values() if found],
                    list(moves.values()), self.hypervisors, self.aggregates,
                    self.providers, self.allocations, owners=self.owners,
                    now=self.now, selected=self.selected,
                    down_cell=self.down_cell, known=self.known,
                    whole=self.whole)
        now.grace = self.grace
        return now

    def order(self, rp):
        """The provider's place in the list (unknown ones last)."""
        if not hasattr(self, '_order'):
            self._order = {uuid: i for i, uuid in enumerate(self.known)}
        return self._order.get(rp, len(self._order))

    def name(self, rp):
        found = self.known.get(rp)
        return found.name if found else rp

    def held(self, consumer):
        """{rp: {class: amount}} of a consumer's allocations.

        All it holds if it was read whole, else what it holds on the
        providers audited.
        """
        found = self.whole.get(consumer)
        return found if found is not None else self.allocations.get(
            consumer, {})

    def roots(self, consumer, audited_only=False):
        """{root: [rp]} of a consumer's allocations, sharing ones apart.

        Of all it holds (:meth:`held`), or of its allocations on the
        providers audited only.
        """
        found = collections.defaultdict(list)
        held = self.allocations.get(consumer, {}) if audited_only else \
            self.held(consumer)
        for rp in held:
            record = self.known.get(rp)
            if record is None or record.sharing:
                continue
            found[record.root].append(rp)
        return dict(found)

    def server_provider(self, server):
        """The provider UUID of a server's hypervisor, None if unknown.

        The hypervisor of the server's host and hypervisor name: never
        by the name alone, which two hosts' hypervisors may share.
        """
        found = self.hv_by_node.get((server.host, server.node)) \
            if server.node else None
        return found.uuid if found else None

    def in_progress(self, server_uuid):
        """The migrations of a server that have not ended."""
        return [m for m in self.by_server.get(server_uuid, ())
                if not m.ended]

    def recent(self, moment):
        """Whether ``moment`` is within the grace."""
        return moment is not None and self.now - moment < self.grace
