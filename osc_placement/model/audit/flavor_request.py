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

"""What a server's embedded flavor asks Placement for, as heal writes it.

The project's flavor translation (``model.flavors``: Nova 34's rules,
one function each, run as its pipeline) gives the request groups; the
amounts are merged over the groups, as nova-manage's
``heal_allocations`` merges them (``resources_from_flavor()``) before it
writes them on the server's compute node.
"""

from osc_lib import exceptions

from osc_placement.model.flavors import resource_request
from osc_placement.model.flavors import rules
from osc_placement.model.flavors import specs

# The classes a flavor gives: a server that holds one its flavor does not
# ask for has drifted; others (ports' bandwidth, devices) are not the
# flavor's.
FLAVOR_CLASSES = frozenset(('VCPU', 'PCPU', 'MEMORY_MB', 'DISK_GB', 'VGPU',
                            'MEM_ENCRYPTION_CONTEXT'))


def request(server):
    """The request of the server's flavor, after every rule.

    Raises ``model.flavors.resource_request.Refused`` (a CommandError)
    for a flavor Nova's scheduler refuses.
    """
    found = resource_request.Request(
        server.flavor, boot_from_volume=server.boot_from_volume)
    for rule in rules.RULES:
        rule(found)
    return found


def nested_need(request):
    """Why the request needs nested providers, or None.

    A vGPU, a Cyborg device profile or PCI alias, or a granular group of
    resources: heal_allocations refuses the first two, and none of them
    can be written on the compute node alone.
    """
    if any('VGPU' in group.resources for group in request.groups.values()):
        return 'its flavor asks for VGPU, on a nested provider'
    for key in sorted(specs.UNTRANSLATED):
        if request.specs.get(key):
            return 'its flavor has %s, for nested providers' % key
    if any(suffix and group.resources
           for suffix, group in request.groups.items()):
        return 'its flavor asks for granular resource groups'
    return None


def requested(server, nested=False):
    """({class: amount}, why not) of what the server's flavor asks.

    ``why not``: None, or why these amounts cannot be written as they
    are (no flavor embedded, a flavor Nova refuses, a request that needs
    nested providers unless ``nested``); the amounts are None when the
    flavor gives none.
    """
    if server.flavor is None:
        return None, 'the compute API gave no flavor for it'
    try:
        translated = request(server)
    except exceptions.CommandError as exc:
        return None, 'its flavor cannot be translated (%s)' % exc
    merged = {}
    for group in translated.groups.values():
        for rclass, amount in group.resources.items():
            merged[rclass] = merged.get(rclass, 0) + amount
    return merged, None if nested else nested_need(translated)
