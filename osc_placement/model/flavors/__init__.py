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

"""A Nova flavor as the allocation-candidates request Nova's scheduler sends.

Pure: no request. ``translate(flavor, ...)`` returns a ``Translation``:
the query parameters of ``GET /allocation_candidates`` (the ``(name,
value)`` pairs that ``allocation candidate list`` builds), the lowest
Placement microversion that takes them, and the warnings to print. A
flavor Nova would refuse raises ``Refused`` (an
``osc_lib.exceptions.CommandError``), one line naming the extra spec and
the reason. ``pci_aliases(entries, in_placement)`` reads the PCI aliases
of Nova's ``[pci] alias`` that ``translate()`` takes, or raises
``InvalidAlias`` (one line naming the alias) where Nova refuses them.

The rules are those of nova 34.0.0 for a flavor without an image, and the
tests in ``osc_placement/tests/nova`` hold this package against Nova's own
``ResourceRequest.from_request_spec(spec).to_querystring()`` and its
scheduler's request filters. The package is laid out as Nova's scheduler
is:

- ``rules``: one function per rule, each saying what it adds to the
  request and why, and ``RULES``, the pipeline (Nova's
  ``request_filter.py`` and its ``ALL_REQUEST_FILTERS``, with the steps of
  ``ResourceRequest.from_request_spec()``); ``translate()`` runs it.
- ``cpus``: the rules of CPU pinning and their checks.
- ``pci``: the PCI devices of ``pci_passthrough:alias``, one request
  group each, with the aliases of Nova's ``[pci] alias`` (``pci_aliases``),
  and Nova's checks of those aliases; ``traits``: the standard traits.
- ``resource_request``: the request the rules build and its query (Nova's
  ``ResourceRequest``), ``Translation`` and ``Refused``.
- ``specs``: the tables of what Nova knows (the extra specs of a few
  values and their traits, the standard resource classes).

In short, the request is:

- The base amounts: ``VCPU`` (the flavor's vCPUs), ``MEMORY_MB`` (its RAM)
  and ``DISK_GB`` (ephemeral + swap in GiB rounded up + root disk, the
  root disk left out for a server booted from a volume), each only when no
  group of the request already names the class (``VCPU`` nor ``PCPU`` for
  the vCPUs); amounts of zero are dropped at the end, and a group left
  with nothing is dropped too.
- ``resources[S]:<class>=<amount>`` and ``trait[S]:<trait>=required|
  forbidden``: the unnamed group, or the group of suffix ``S`` (a positive
  integer from Placement 1.25, any 1 to 64 of ``A-Z a-z 0-9 _ -`` from
  1.33); ``group_policy``.
- The specs of ``specs.SPECS`` (CPU pinning, memory encryption, vPMEM,
  vTPM, PCI NUMA affinity, secure boot, physical address bits), and the
  request filters that read the flavor (root traits of
  ``specs.ROOT_SPECS``).
- The scheduler's mandatory filter: ``root_required`` forbids
  ``COMPUTE_STATUS_DISABLED`` (left out with ``include_disabled``);
  an availability zone becomes ``member_of=in:<the UUIDs of its host
  aggregates>`` on the unnamed group.

Not translated, and said so in a warning (the answer is then incomplete):
Cyborg device profiles (``accel:device_profile``), PCI aliases
(``pci_passthrough:alias``) without Nova's aliases or with a Nova that
does not ask Placement for PCI devices (``[filter_scheduler]
pci_in_placement``), and, not being part of a flavor,
the resource requests of Neutron ports (QoS minimum bandwidth or packet
rate) and what the image adds. Request filters that depend on Nova's
configuration or the project (tenant isolation, isolated aggregates,
routed networks, image types) are not applied; ``OWNER_NOVA`` on the root
and on the PCI devices, which Nova 34 requires once every nova-compute
runs 34, is added only with ``owner_nova``.
"""

from osc_placement.model.flavors.pci import aliases as pci_aliases
from osc_placement.model.flavors.pci import InvalidAlias
from osc_placement.model.flavors.resource_request import Refused
from osc_placement.model.flavors.resource_request import Translation
from osc_placement.model.flavors.rules import translate

__all__ = ['InvalidAlias', 'Refused', 'Translation', 'pci_aliases',
           'translate']
