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

"""What Nova says of a consumer of the drained trees, as the plan's terms.

Pure. The command reads the servers, migrations and zones of the compute
API (``api/drain.py``); here they become the fields of a
:class:`~cloud.Consumer`:

- :func:`stays`: why a consumer is left as it is (one rule a function,
  ``STAY_RULES`` the list, as the audit's kinds): no server, a migration,
  a deleted server, a cell down, building, a task state, a migration in
  progress, a status Nova migrates no server in (``SUSPENDED``,
  ``ERROR``...);
- :func:`needs`: the traits each part must find where it lands, from the
  server's embedded flavor as Nova's scheduler translates it
  (``model.flavors``): the unnamed group's and the root's on the root
  part, each granular group's on the part that holds its classes;
- :func:`zone`: the availability zone a server must stay in, as a
  ``member_of`` of one pseudo-aggregate per zone that the command gives
  the target roots of that zone's hosts (``zone_key``).
"""

from osc_lib import exceptions

from osc_placement.model.audit import flavor_request
from osc_placement.model.audit import state
from osc_placement.model.drain import cloud

# The pseudo-aggregate of a zone's hosts (never a UUID, so never one of
# Placement's aggregates).
ZONE_PREFIX = 'zone:'


def zone_key(name):
    """The pseudo-aggregate the target roots of zone ``name`` are in."""
    return ZONE_PREFIX + name


def zone_name(key):
    """The name reasons show for a zone's pseudo-aggregate."""
    return 'availability zone %s' % key[len(ZONE_PREFIX):]


# Why a consumer is left as it is: each rule (consumer UUID, its server
# or None, {uuid: Migration}) -> a sentence, or None.

def _no_server(uuid, server, migrations):
    if server is None and uuid not in migrations:
        return ('no server nor migration has this UUID: an orphan '
                '(see resource provider audit)')
    return None


def _migration(uuid, server, migrations):
    found = migrations.get(uuid)
    if found is None:
        return None
    if found.ended:
        return ('the allocations of migration of server %s, which is %s: '
                'an orphan (see resource provider audit)'
                % (found.server, found.status))
    return ('the allocations of a migration in progress of server %s (%s): '
            'left to it' % (found.server, found.status))


def _deleted(uuid, server, migrations):
    if server is not None and server.deleted:
        return ('its server is deleted: an orphan (see resource provider '
                'audit)')
    return None


def _cell_down(uuid, server, migrations):
    if server is not None and server.unknown:
        return 'its server\'s cell is down: its state is unknown'
    return None


def _building(uuid, server, migrations):
    if server is not None and server.status == state.BUILDING:
        return 'its server is building'
    return None


def _task(uuid, server, migrations):
    if server is not None and server.task_state:
        return 'its server has task state %s' % server.task_state
    return None


def _moving(uuid, server, migrations):
    if server is None:
        return None
    for found in sorted(migrations.values(), key=lambda m: m.uuid):
        if found.server == server.uuid and not found.ended:
            return ('its server is in a migration in progress (%s)'
                    % found.status)
    return None


def _no_flavor(uuid, server, migrations):
    if server is not None and server.flavor is None:
        return 'the compute API gave no flavor for its server'
    return None


# The statuses Nova migrates a server in: live (``check_instance_state``
# of its live migration: active, paused) or cold (of its resize and
# migration: active, stopped).
LIVE = frozenset(['ACTIVE', 'PAUSED'])
COLD = frozenset(['SHUTOFF'])


def _status(uuid, server, migrations):
    if server is not None and server.status not in LIVE | COLD:
        return ('its server is %s: Nova migrates ACTIVE and PAUSED servers '
                'live, SHUTOFF ones cold, no other' % server.status)
    return None


STAY_RULES = (_migration, _no_server, _deleted, _cell_down, _building,
              _task, _moving, _no_flavor, _status)


def stays(uuid, server, migrations):
    """Why the consumer is left as it is (the first rule's), or None.

    ``server``: Nova's :class:`~osc_placement.model.audit.state.Server`
    of that UUID, None when Nova has none; ``migrations``: {migration
    UUID: Migration} of the drained hosts.
    """
    for rule in STAY_RULES:
        why = rule(uuid, server, migrations)
        if why is not None:
            return why
    return None


def elsewhere(server, here):
    """Why a server's allocations on the drained trees stay, or None.

    ``here``: {(host, hypervisor name)} of the drained roots the
    consumer holds allocations on (a root no hypervisor has adds none).
    A server Nova has on another hypervisor (evacuated, or its
    allocations written on the wrong host) holds leftovers here: a
    migration would move it from where it runs, not from here. Asked
    after :func:`stays`.
    """
    if server is None or (server.host, server.node) in here:
        return None
    if not server.host:
        return ('its server is on no host: these allocations are left '
                'over (see resource provider audit)')
    return ('its server is on hypervisor %s (host %s): these allocations '
            'are left over (see resource provider audit)'
            % (server.node, server.host))


class Untranslatable(Exception):
    """The server's flavor is one Nova's scheduler refuses: why, a line."""


def request(server):
    """The translated request of the server's embedded flavor."""
    try:
        return flavor_request.request(server)
    except exceptions.CommandError as exc:  # Nova's refusal: one line.
        raise Untranslatable('its flavor cannot be translated (%s)'
                             % exc) from None


def _holds(allocation, resources):
    return all(allocation.get(rc, 0) >= amount
               for rc, amount in resources.items())


def _merge(found, rp, required, forbidden):
    need = found.get(rp, cloud.Need())
    found[rp] = cloud.Need(need.required | frozenset(required),
                           need.forbidden | frozenset(forbidden))


def needs(translated, held, providers, root):
    """{source provider: Need} of a server's parts on one drained tree.

    ``translated``: the flavor's request (:func:`request`); ``held``:
    {provider: {class: amount}} of the consumer on that tree; ``root``:
    its root. The unnamed group's traits and the root's go with the root
    part (where Nova's base amounts are); each granular group's with the
    child part that holds its classes and has its traits now (the first
    by name), or the root part if no child holds them.
    """
    found = {}
    unnamed = translated.groups.get('')
    # The disabled computes are no target already (``inputs.targets``).
    _merge(found, root,
           translated.root_required | (unnamed.required if unnamed else set()),
           (translated.root_forbidden - {cloud.DISABLED})
           | (unnamed.forbidden if unnamed else set()))
    for suffix in sorted(s for s in translated.groups if s):
        group = translated.groups[suffix]
        if not group.resources:
            continue
        children = sorted(
            (rp for rp in held if rp != root and rp in providers
             and _holds(held[rp], group.resources)),
            key=lambda rp: (providers[rp].name, rp))
        meets = [rp for rp in children if cloud.Need(
            frozenset(group.required),
            frozenset(group.forbidden)).met_by(providers[rp].traits)]
        where = (meets or children or [root])[0]
        _merge(found, where, group.required, group.forbidden)
    return {rp: need for rp, need in found.items()
            if need.required or need.forbidden}


def traits_of(requests):
    """Every trait the translated requests require or forbid.

    Those the plan looks at: ``needs()`` leaves ``COMPUTE_STATUS_DISABLED``
    out (no target has it).
    """
    found = set()
    for translated in requests:
        found |= translated.root_required | translated.root_forbidden
        for group in translated.groups.values():
            found |= group.required | group.forbidden
    return found - {cloud.DISABLED}


def zone(server, pinned_known):
    """The ``member_of`` keeping the server in its zone: () for none.

    ``pinned_known``: the compute API gave ``pinned_availability_zone``
    (2.96): the server keeps to the zone it is pinned to, if any. Below
    that, the zone it is in now (``OS-EXT-AZ:availability_zone``), the
    bound: a server that was not pinned is kept there too.
    """
    name = server.pinned_zone if pinned_known else server.zone
    if not name:
        return ()
    return (frozenset([zone_key(name)]),)
