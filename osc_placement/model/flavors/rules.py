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

"""The rules that make a flavor's request, one function each, in order.

Each rule takes the ``resource_request.Request`` of one flavor, adds its
part (its docstring says what and why, in the words of the Nova code it
follows) or refuses the flavor (``Refused``, one line naming the extra
spec), and returns nothing. ``RULES`` is the pipeline, as Nova's
``ALL_REQUEST_FILTERS`` is; ``translate()`` runs it and writes the query.
"""

import math
import re

from osc_placement.model.flavors import cpus
from osc_placement.model.flavors import pci
from osc_placement.model.flavors import resource_request
from osc_placement.model.flavors import specs as tables
from osc_placement.model import text

_GROUPED_KEY = re.compile(r'^(resources|trait)([a-zA-Z0-9_-]{1,64})?:(.*)$')
_CUSTOM = re.compile(r'^CUSTOM_[A-Z0-9_]+$')
_PMEM = re.compile(r'([a-zA-Z0-9_]+(,)?)+')


# The flavor's own specs (Nova's ResourceRequest.from_request_spec()).

def group_specs(request):
    """The request groups of ``resources[S]:`` and ``trait[S]:``.

    ``resources[S]:<class>=<amount>`` asks for the amount of a class, and
    ``trait[S]:<trait>=required|forbidden`` requires or forbids a trait,
    in the unnamed group or in the group of suffix ``S`` (the suffix is
    Placement's: a positive integer from 1.25, 1 to 64 of ``A-Z a-z 0-9 _
    -`` from 1.33); ``group_policy`` (``none`` or ``isolate``) says whether
    the suffixed groups may share a provider. This is how a flavor asks
    Placement for anything beyond its vCPUs, RAM and disks (Nova's
    ``_process_extra_specs()``). Nova's flavor API refuses a bad value
    of these from compute 2.86, but a flavor made before keeps it, and
    the scheduler reads them itself: it logs and skips a group policy
    other than those two, a class neither standard nor ``CUSTOM_...``, an
    amount not a non-negative integer and a trait value other than those
    two, and takes any class that starts with ``CUSTOM_`` as written. So
    does this rule, with a warning naming the spec.
    """
    for key, value in request.specs.items():
        if key == 'group_policy':
            if value in ('none', 'isolate'):
                request.group_policy = value
            else:
                _skipped(request, key, 'not one of none, isolate')
            continue
        match = _GROUPED_KEY.match(key)
        if not match:
            continue
        prefix, suffix, name = match.groups()
        suffix = suffix or resource_request.UNNAMED
        if prefix == 'resources':
            _resource_spec(request, key, value, suffix, name)
        elif value in ('required', 'forbidden'):
            request.add_trait(name, suffix, value == 'forbidden')
        else:
            _skipped(request, key, 'a trait is "required" or "forbidden"')


def _skipped(request, key, why, what='its scheduler skips it'):
    """Warn of a spec Nova's flavor API refuses and its scheduler reads."""
    request.warn('Flavor %s: extra spec %s=%s: %s; Nova\'s flavor API '
                 'refuses it (compute 2.86 and later), %s.'
                 % (request.name, text.printable(key),
                    text.printable(request.specs[key]), why, what))


def _resource_spec(request, key, value, suffix, rclass):
    if not (rclass.startswith(tables.CUSTOM_PREFIX)
            or rclass in tables.STANDARD_CLASSES):
        _skipped(request, key, '%s is neither a standard resource class '
                               'nor a CUSTOM_ one' % text.printable(rclass))
        return
    try:
        amount = int(value)
    except ValueError:
        _skipped(request, key, 'the amount is not an integer')
        return
    if amount < 0:
        request.warn('Flavor %s: extra spec %s=%s: a negative amount, which '
                     'Nova ignores.' % (request.name, text.printable(key),
                                        text.printable(value)))
        return
    if rclass not in tables.STANDARD_CLASSES and not _CUSTOM.match(rclass):
        _skipped(request, key, '%s is not CUSTOM_ followed by A-Z, 0-9 or _'
                 % text.printable(rclass),
                 'its scheduler asks for it as written (Placement refuses a '
                 'class it does not know)')
    request.add_resource(rclass, amount, suffix)


def base_amounts(request):
    """``VCPU``, ``MEMORY_MB`` and ``DISK_GB``: what every server takes.

    The flavor's vCPUs as ``VCPU``, its RAM as ``MEMORY_MB``, and as
    ``DISK_GB`` its ephemeral disk, its swap in GiB rounded up and its
    root disk, unless the server boots from a volume (its root disk is
    then Cinder's, not the compute's); ``DISK_GB`` is left out when that
    sums to nothing. Each only where no group asks for the class already
    (neither ``VCPU`` nor ``PCPU`` for the vCPUs: pinned CPUs are counted
    by ``cpus.pinned_cpus()``), which is how a ``resources:`` spec
    replaces a base amount (Nova's ``from_request_spec()``).
    """
    flavor = request.flavor
    merged = request.merged_classes()
    if 'VCPU' not in merged and 'PCPU' not in merged:
        request.add_resource('VCPU', request.vcpus)
    if 'MEMORY_MB' not in merged:
        request.add_resource('MEMORY_MB', flavor['ram'])
    if 'DISK_GB' not in merged:
        disk = (flavor.get('ephemeral') or 0) + int(
            math.ceil((flavor.get('swap') or 0) / 1024.0))
        if not request.boot_from_volume:
            disk += flavor.get('disk') or 0
        if disk:
            request.add_resource('DISK_GB', disk)


def mem_encryption(request):
    """``MEM_ENCRYPTION_CONTEXT:1`` and the CPU's trait, for encrypted RAM.

    ``hw:mem_encryption=true``: the guest takes one of the few memory
    encryption contexts of its host (the ASIDs of AMD SEV), and the host's
    CPU must have the model of ``hw:mem_encryption_model`` (``amd-sev`` by
    default), a trait of the unnamed group (Nova's
    ``_translate_mem_encryption_request()``). SEV-SNP and TDX also need
    ``COMPUTE_SECURITY_STATELESS_FIRMWARE``, which Nova requires for the
    stateless firmware that its checks make the image ask for. Nova boots
    such a server only from an image with UEFI firmware (and more for
    these models): the request assumes one, and a warning says so.
    """
    model = request.choice('hw:mem_encryption_model')
    if not request.boolean('hw:mem_encryption'):
        return
    model = model or 'amd-sev'
    request.add_resource(tables.MEM_ENCRYPTION_CONTEXT, 1)
    request.add_trait(tables.SPECS['hw:mem_encryption_model'][model])
    image = "hw_firmware_type=uefi"
    if model in ('amd-sev-snp', 'intel-tdx'):
        request.add_trait(tables.STATELESS_FIRMWARE)
        image += ' and hw_firmware_stateless=true'
    if model == 'intel-tdx':
        image += ' and hw_video_model=none'
    request.warn('Flavor %s: hw:mem_encryption: Nova boots it only from an '
                 'image with %s; the request assumes one.'
                 % (request.name, image))


def vpmems(request):
    """``CUSTOM_PMEM_NAMESPACE_<LABEL>``, one per label of ``hw:pmem``.

    Each virtual persistent memory device takes a whole namespace of the
    host, which reports its namespaces as custom classes named after
    their labels (normalized as os-resource-classes' ``normalize_name()``
    does); a label given twice asks for two (Nova's
    ``_translate_vpmems_request()``). A value that is not a list of labels
    is refused.
    """
    value = request.specs.get('hw:pmem')
    if not value:
        return
    if not _PMEM.fullmatch(value):
        request.refuse('hw:pmem', 'not a comma-separated list of '
                       'namespace labels')
    counts = {}
    for label in value.split(','):
        if label.strip():
            rclass = 'CUSTOM_' + re.sub(
                '[^0-9A-Za-z]+', '_',
                'PMEM_NAMESPACE_' + label.strip()).upper()
            counts[rclass] = counts.get(rclass, 0) + 1
    for rclass, count in counts.items():
        request.add_resource(rclass, count)


def vtpm(request):
    """The traits of the TPM's version and model, for an emulated TPM.

    ``hw:tpm_version`` (``1.2`` or ``2.0``) and ``hw:tpm_model``
    (``tpm-tis`` by default, or ``tpm-crb``): the host's swtpm must offer
    both, as its ``COMPUTE_SECURITY_TPM_*`` traits say (Nova's
    ``_translate_vtpm_request()``). ``tpm-crb`` exists for TPM 2.0 only.
    """
    version = request.choice('hw:tpm_version')
    model = request.choice('hw:tpm_model')
    if not version:
        return
    model = model or 'tpm-tis'
    if model == 'tpm-crb' and version != tables.TPM_2_0:
        request.refuse('hw:tpm_model', 'tpm-crb needs hw:tpm_version=%s'
                       % tables.TPM_2_0)
    request.add_trait(tables.SPECS['hw:tpm_model'][model])
    request.add_trait(tables.SPECS['hw:tpm_version'][version])


def _enumerated_trait(request, key):
    """The unnamed group's trait of an enumerated spec's value, if any."""
    trait = tables.SPECS[key].get(request.choice(key))
    if trait:
        request.add_trait(trait)


def pci_numa_affinity(request):
    """``COMPUTE_SOCKET_PCI_NUMA_AFFINITY`` for the ``socket`` policy.

    ``hw:pci_numa_affinity_policy=socket`` keeps the PCI devices on the
    guest's socket, which only a host that reports its sockets can do
    (Nova's ``_translate_pci_numa_affinity_policy()``); the other policies
    need no trait.
    """
    _enumerated_trait(request, 'hw:pci_numa_affinity_policy')


def secure_boot(request):
    """``COMPUTE_SECURITY_UEFI_SECURE_BOOT`` for ``os:secure_boot=required``.

    The host must offer UEFI secure boot (Nova's
    ``_translate_secure_boot_request()``).
    """
    _enumerated_trait(request, 'os:secure_boot')


def maxphysaddr(request):
    """``COMPUTE_ADDRESS_SPACE_*`` for ``hw:maxphysaddr_mode``.

    ``passthrough`` or ``emulate``: the host's hypervisor must set the
    guest's physical address bits that way (Nova's
    ``_translate_maxphysaddr_request()``).
    """
    _enumerated_trait(request, 'hw:maxphysaddr_mode')


def strip_zeros(request):
    """Drop the amounts of zero, then the groups left with nothing.

    ``resources:<class>=0`` is how a flavor takes a base amount out (no
    ``DISK_GB`` for a diskless flavor), and Placement refuses an amount of
    zero (Nova's ``strip_zeros()``).
    """
    for suffix, group in list(request.groups.items()):
        for rclass, amount in list(group.resources.items()):
            if amount == 0:
                del group.resources[rclass]
        if group.empty():
            del request.groups[suffix]


# The request filters of Nova's scheduler that read the flavor or the
# request (nova/scheduler/request_filter.py), as a server without an image
# meets them.

def accelerators(request):
    """``COMPUTE_ACCELERATORS`` on the root, for ``accel:device_profile``.

    Only a nova-compute that can attach Cyborg's accelerators reports the
    trait (Nova's ``accelerators_filter``). The resources of the device
    profile are not translated: see ``untranslated_specs()``.
    """
    if request.specs.get('accel:device_profile'):
        request.root_required.add(tables.ACCELERATORS)


def packed_virtqueue(request):
    """``COMPUTE_NET_VIRTIO_PACKED`` on the root, for packed virtqueues.

    ``hw:virtio_packed_ring=true``: the host's hypervisor must offer
    packed virtqueues (Nova's ``packed_virtqueue_filter``).
    """
    if request.boolean('hw:virtio_packed_ring'):
        request.root_required.add(
            tables.BOOLEAN_SPECS['hw:virtio_packed_ring'])


def ephemeral_encryption(request):
    """``COMPUTE_EPHEMERAL_ENCRYPTION[_<FORMAT>]`` on the root.

    ``hw:ephemeral_encryption=true``: the host must encrypt ephemeral
    disks, in the format of ``hw:ephemeral_encryption_format`` when one
    is given (Nova's ``ephemeral_encryption_filter``).
    """
    eph_format = request.choice('hw:ephemeral_encryption_format',
                                tables.ROOT_SPECS)
    if request.boolean('hw:ephemeral_encryption'):
        request.root_required.add(
            tables.BOOLEAN_SPECS['hw:ephemeral_encryption'])
        if eph_format:
            request.root_required.add(
                tables.ROOT_SPECS['hw:ephemeral_encryption_format'][
                    eph_format])


def virtio_sound(request):
    """``COMPUTE_SOUND_MODEL_VIRTIO`` on the root, for a virtio sound card.

    ``hw:sound_model=virtio``: the host's hypervisor must offer the device
    (Nova's ``virtio_sound_filter``); the other models need no trait.
    """
    sound = tables.ROOT_SPECS['hw:sound_model'].get(
        request.choice('hw:sound_model', tables.ROOT_SPECS))
    if sound:
        request.root_required.add(sound)


def tpm_secret_security(request):
    """The trait of ``hw:tpm_secret_security`` on the root, with a vTPM.

    The host must keep the secret of the emulated TPM as asked (``user``
    by default, ``host`` or ``deployment``) (Nova's
    ``tpm_secret_security_filter``). The value is checked with a vTPM or
    without.
    """
    security = request.choice('hw:tpm_secret_security', tables.ROOT_SPECS)
    if request.specs.get('hw:tpm_version'):
        security = security or 'user'
        request.root_required.add(
            tables.ROOT_SPECS['hw:tpm_secret_security'][security])


def compute_status(request):
    """``!COMPUTE_STATUS_DISABLED`` on the root, unless ``include_disabled``.

    A disabled nova-compute reports the trait, and the scheduler's
    mandatory ``compute_status_filter`` leaves its providers out.
    """
    if not request.include_disabled:
        request.root_forbidden.add(tables.DISABLED)


def owner_nova(request):
    """``OWNER_NOVA`` on the root, with ``owner_nova``.

    Nova 34's ``owner_nova_filter`` requires it once every nova-compute
    runs 34 (they report it), so that the providers of other services
    under a compute's root are not taken for Nova's. Which version the
    computes run is not known here: the caller says.
    """
    if request.owner_nova:
        request.root_required.add(tables.OWNER_NOVA)


def availability_zone(request):
    """``member_of=in:<the zone's aggregates>`` on the unnamed group.

    Placement knows no zones: Nova's ``map_az_to_placement_aggregate``
    asks for the host aggregates of the requested availability zone,
    which Placement knows by UUID (sorted here).
    """
    if request.aggregates:
        request.member_of.append('in:' + ','.join(sorted(request.aggregates)))


# What the answer lacks, or what Placement refuses.

def untranslated_specs(request):
    """A warning for each spec of which Nova asks for more than this.

    Cyborg's device profiles and PCI aliases (``specs.UNTRANSLATED``): the
    answer is incomplete, and ``Translation.untranslated`` names them.
    """
    for key, what in tables.UNTRANSLATED.items():
        if request.specs.get(key) and key not in request.translated:
            request.untranslated.append(key)
            request.warn(
                'Flavor %s: extra spec %s=%s: Nova also asks for %s, which '
                'this request leaves out: the answer is incomplete.'
                % (request.name, key, text.printable(request.specs[key]),
                   what))


def refused_groups(request):
    """A warning for groups that Placement refuses, as it refuses Nova's.

    Several suffixed groups without ``group_policy``, and a suffixed
    group of traits without resources.
    """
    suffixed = [suffix for suffix in request.groups if suffix]
    if len(suffixed) > 1 and not request.group_policy:
        request.warn(
            'Flavor %s has %d request groups and no group_policy: '
            'Placement refuses the request, as it refuses Nova\'s.'
            % (request.name, len(suffixed)))
    for suffix in suffixed:
        if not request.groups[suffix].resources:
            request.warn(
                'Flavor %s: request group %s has traits but no resources: '
                'Placement refuses the request, as it refuses Nova\'s.'
                % (request.name, suffix))


# The pipeline. Nova runs its request filters before it reads the flavor's
# specs; they only add to the root and to member_of, so their place changes
# no query, but the order decides which of several faults a refusal names:
# the flavor's own specs first.
RULES = (
    group_specs,
    cpus.pinned_cpus,
    cpus.thread_policy,
    pci.devices,
    base_amounts,
    mem_encryption,
    vpmems,
    vtpm,
    pci_numa_affinity,
    secure_boot,
    maxphysaddr,
    strip_zeros,
    pci.group_policy,
    accelerators,
    packed_virtqueue,
    ephemeral_encryption,
    virtio_sound,
    tpm_secret_security,
    compute_status,
    owner_nova,
    availability_zone,
    untranslated_specs,
    refused_groups,
)


def translate(flavor, boot_from_volume=False, include_disabled=False,
              aggregates=None, required=(), forbidden=(), member_of=(),
              in_tree=None, root_required=(), owner_nova=False,
              pci_aliases=None):
    """The ``Translation`` of a flavor: the request Nova would send.

    flavor: a dict with ``name``, ``vcpus``, ``ram``, ``disk``,
        ``ephemeral``, ``swap`` (MiB) and ``extra_specs``.
    boot_from_volume: the root disk is not asked for.
    include_disabled: disabled computes are not left out.
    aggregates: the UUIDs of the host aggregates of the availability zone
        (None or empty: no zone).
    required, forbidden, member_of, in_tree: added to the unnamed group,
        as ``--required`` (``A,B``: any of them), ``--forbidden``,
        ``--member-of`` (``!`` forbids) and ``--in-tree`` (a provider UUID)
        add them to ``allocation candidate list``.
    root_required: traits of the root, ``!`` for a forbidden one.
    owner_nova: the root must have OWNER_NOVA (Nova 34 once every
        nova-compute runs 34), and so must the providers of the PCI
        devices.
    pci_aliases: the ``pci.Aliases`` of Nova's ``[pci] alias`` (None:
        not known, and ``pci_passthrough:alias`` is not translated).

    Raises ``Refused`` for a flavor Nova refuses.
    """
    request = resource_request.Request(
        flavor, boot_from_volume=boot_from_volume,
        include_disabled=include_disabled, aggregates=aggregates,
        required=required, forbidden=forbidden, member_of=member_of,
        in_tree=in_tree, root_required=root_required, owner_nova=owner_nova,
        pci_aliases=pci_aliases)
    for rule in RULES:
        rule(request)
    params, needs = request.query()
    return resource_request.Translation(params, needs, request.warnings,
                                        request.untranslated)
