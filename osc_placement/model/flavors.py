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
the reason.

The rules are those of nova 34.0.0 for a flavor without an image, and the
tests in ``osc_placement/tests/nova`` hold this module against Nova's own
``ResourceRequest.from_request_spec(spec).to_querystring()`` and its
scheduler's request filters:

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
- The specs of ``SPECS`` below (CPU pinning, memory encryption, vPMEM,
  vTPM, PCI NUMA affinity, secure boot, physical address bits), and the
  request filters that read the flavor (root traits of ``ROOT_SPECS``).
- The scheduler's mandatory filter: ``root_required`` forbids
  ``COMPUTE_STATUS_DISABLED`` (left out with ``include_disabled``);
  an availability zone becomes ``member_of=in:<the UUIDs of its host
  aggregates>`` on the unnamed group.

Not translated, and said so in a warning (the answer is then incomplete):
Cyborg device profiles (``accel:device_profile``), PCI aliases
(``pci_passthrough:alias``, requested from Placement with Nova's
``[filter_scheduler]pci_in_placement``), and, not being part of a flavor,
the resource requests of Neutron ports (QoS minimum bandwidth or packet
rate) and what the image adds. Request filters that depend on Nova's
configuration or the project (tenant isolation, isolated aggregates,
routed networks, image types) are not applied; ``OWNER_NOVA`` on the root,
which Nova 34 requires once every nova-compute runs 34, is added only with
``owner_nova``.
"""

import math
import re

from osc_lib import exceptions

from osc_placement.model import query_values
from osc_placement.model import text

UNNAMED = ''

# The version Nova 34's scheduler asks for allocation candidates at.
NOVA_MICROVERSION = '1.36'

# Microversions at which a part of the request is first taken.
CANDIDATES = '1.10'
REQUIRED_TRAITS = '1.17'
MEMBER_OF = '1.21'
FORBIDDEN_TRAITS = '1.22'
REPEATED_MEMBER_OF = '1.24'
NUMBERED_GROUPS = '1.25'
IN_TREE = '1.31'
FORBIDDEN_AGGREGATES = '1.32'
NAMED_GROUPS = '1.33'
ROOT_REQUIRED = '1.35'
ANY_TRAITS = '1.39'

# The standard resource classes (os-resource-classes 1.1.0): Nova takes a
# resources spec only for one of these or a CUSTOM_ class.
STANDARD_CLASSES = frozenset((
    'VCPU', 'MEMORY_MB', 'DISK_GB', 'PCI_DEVICE', 'SRIOV_NET_VF',
    'NUMA_SOCKET', 'NUMA_CORE', 'NUMA_THREAD', 'NUMA_MEMORY_MB',
    'IPV4_ADDRESS', 'VGPU', 'VGPU_DISPLAY_HEAD',
    'NET_BW_EGR_KILOBIT_PER_SEC', 'NET_BW_IGR_KILOBIT_PER_SEC', 'PCPU',
    'MEM_ENCRYPTION_CONTEXT', 'FPGA', 'PGPU',
    'NET_PACKET_RATE_KILOPACKET_PER_SEC',
    'NET_PACKET_RATE_EGR_KILOPACKET_PER_SEC',
    'NET_PACKET_RATE_IGR_KILOPACKET_PER_SEC',
))

DISABLED = 'COMPUTE_STATUS_DISABLED'
OWNER_NOVA = 'OWNER_NOVA'
HYPERTHREADING = 'HW_CPU_HYPERTHREADING'

_GROUPED_KEY = re.compile(r'^(resources|trait)([a-zA-Z0-9_-]{1,64})?:(.*)$')
_CUSTOM = re.compile(r'^CUSTOM_[A-Z0-9_]+$')
_NUMBERED = re.compile(r'^[1-9][0-9]*$')
# Nova's checks of pinned CPUs count these keys only (numbered groups).
_CPU_KEY = re.compile(r'^resources([1-9][0-9]*)?:(VCPU|PCPU)')
_HT_TRAIT_KEY = re.compile(r'^trait([1-9][0-9]*)?:' + HYPERTHREADING)
_CPU_MASK = re.compile(r'\^?\d+((-\d+)?(,\^?\d+(-\d+)?)?)*')
_PMEM = re.compile(r'([a-zA-Z0-9_]+(,)?)+')

_TRUE = ('1', 't', 'true', 'on', 'y', 'yes')
_FALSE = ('0', 'f', 'false', 'off', 'n', 'no')

# Extra specs that take one of a few values, and the trait of the unnamed
# group each value requires (None: none).
SPECS = {
    'hw:cpu_policy': {'dedicated': None, 'shared': None, 'mixed': None},
    'hw:cpu_thread_policy': {'prefer': None, 'isolate': None,
                             'require': None},
    'hw:emulator_threads_policy': {'share': None, 'isolate': None},
    'hw:mem_encryption_model': {
        'amd-sev': 'HW_CPU_X86_AMD_SEV',
        'amd-sev-es': 'HW_CPU_X86_AMD_SEV_ES',
        'amd-sev-snp': 'HW_CPU_X86_AMD_SEV_SNP',
        'intel-tdx': 'HW_CPU_X86_INTEL_TDX'},
    'hw:tpm_version': {'1.2': 'COMPUTE_SECURITY_TPM_1_2',
                       '2.0': 'COMPUTE_SECURITY_TPM_2_0'},
    'hw:tpm_model': {'tpm-tis': 'COMPUTE_SECURITY_TPM_TIS',
                     'tpm-crb': 'COMPUTE_SECURITY_TPM_CRB'},
    'hw:pci_numa_affinity_policy': {
        'required': None, 'legacy': None, 'preferred': None,
        'socket': 'COMPUTE_SOCKET_PCI_NUMA_AFFINITY'},
    'os:secure_boot': {'required': 'COMPUTE_SECURITY_UEFI_SECURE_BOOT',
                       'disabled': None},
    'hw:maxphysaddr_mode': {
        'passthrough': 'COMPUTE_ADDRESS_SPACE_PASSTHROUGH',
        'emulate': 'COMPUTE_ADDRESS_SPACE_EMULATED'},
}

# Extra specs from which the request filters require a trait on the root
# provider: a value (None: any value) and its trait.
ROOT_SPECS = {
    'hw:sound_model': {
        'virtio': 'COMPUTE_SOUND_MODEL_VIRTIO', 'sb16': None,
        'es1370': None, 'pcspk': None, 'ac97': None, 'ich6': None,
        'ich9': None, 'usb': None},
    'hw:tpm_secret_security': {
        'user': 'COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER',
        'host': 'COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST',
        'deployment': 'COMPUTE_SECURITY_TPM_SECRET_SECURITY_DEPLOYMENT'},
    'hw:ephemeral_encryption_format': {
        'plain': 'COMPUTE_EPHEMERAL_ENCRYPTION_PLAIN',
        'luks': 'COMPUTE_EPHEMERAL_ENCRYPTION_LUKS',
        'luksv2': 'COMPUTE_EPHEMERAL_ENCRYPTION_LUKSV2'},
}
# Boolean extra specs: true requires the trait (None: see the code).
BOOLEAN_SPECS = {
    'hw:mem_encryption': None,
    'hw:cpu_realtime': None,
    'hw:virtio_packed_ring': 'COMPUTE_NET_VIRTIO_PACKED',
    'hw:ephemeral_encryption': 'COMPUTE_EPHEMERAL_ENCRYPTION',
}
MEM_ENCRYPTION_CONTEXT = 'MEM_ENCRYPTION_CONTEXT'
STATELESS_FIRMWARE = 'COMPUTE_SECURITY_STATELESS_FIRMWARE'
ACCELERATORS = 'COMPUTE_ACCELERATORS'

# Extra specs that make Nova ask for more than this request holds.
UNTRANSLATED = {
    'accel:device_profile': 'the resources of its Cyborg device profile',
    'pci_passthrough:alias': 'its PCI devices (requested from Placement '
                             'with [filter_scheduler]pci_in_placement, '
                             'else checked by the PCI filter)',
}


class Refused(exceptions.CommandError):
    """A flavor that cannot be asked for: ``Flavor <name>: <reason>``.

    ``flavor``: the flavor's printable name; ``reason``: the rest of the
    line, for a caller that names the flavor in its own way.
    """

    def __init__(self, flavor, reason):
        super().__init__('Flavor %s: %s' % (flavor, reason))
        self.flavor = flavor
        self.reason = reason


class Translation(object):
    """The request of one flavor.

    ``params``: the query, as ``(name, value)`` pairs; ``microversion``:
    the lowest that takes every part of it (``needs`` lists each part with
    its version); ``warnings``: lines to print; ``untranslated``: the extra
    specs of which the request lacks a part (the answer is incomplete).
    """

    def __init__(self, params, needs, warnings, untranslated):
        self.params = params
        self.needs = needs
        self.warnings = warnings
        self.untranslated = untranslated

    @property
    def microversion(self):
        return max((version for _part, version in self.needs),
                   key=_version_key)

    @property
    def complete(self):
        return not self.untranslated


def _version_key(version):
    major, minor = version.split('.')
    return int(major), int(minor)


class _Group(object):

    def __init__(self):
        self.resources = {}
        self.required = set()
        self.forbidden = set()

    def empty(self):
        return not (self.resources or self.required or self.forbidden)


class _Translator(object):

    def __init__(self, flavor):
        self.name = text.printable(flavor.get('name') or flavor.get('id')
                                   or '?')
        self.specs = dict(flavor.get('extra_specs') or {})
        self.vcpus = flavor['vcpus']
        self.groups = {}
        self.group_policy = None
        self.root_required = set()
        self.root_forbidden = set()
        self.warnings = []
        self.untranslated = []

    def refuse(self, key, why):
        raise Refused(self.name, 'extra spec %s=%s: %s; Nova refuses it.'
                      % (text.printable(key),
                         text.printable(self.specs[key]),
                         text.printable(why)))

    def group(self, suffix):
        return self.groups.setdefault(suffix, _Group())

    def add_resource(self, rclass, amount, suffix=UNNAMED):
        self.group(suffix).resources[rclass] = amount

    def add_trait(self, trait, suffix=UNNAMED, forbidden=False):
        group = self.group(suffix)
        (group.forbidden if forbidden else group.required).add(trait)

    def choice(self, key, table=SPECS):
        """The value of an enumerated spec (None if unset or empty)."""
        value = self.specs.get(key)
        if not value:
            return None
        if value not in table[key]:
            self.refuse(key, 'not one of %s' % ', '.join(table[key]))
        return value

    def boolean(self, key):
        """True, False, or None when the spec is not set."""
        value = self.specs.get(key)
        if value is None:
            return None
        lowered = value.strip().lower()
        if lowered not in _TRUE + _FALSE:
            self.refuse(key, 'not a boolean (true or false)')
        return lowered in _TRUE

    # The extra specs of groups.

    def grouped_specs(self):
        for key, value in self.specs.items():
            if key == 'group_policy':
                if value not in ('none', 'isolate'):
                    self.refuse(key, 'not one of none, isolate')
                self.group_policy = value
                continue
            match = _GROUPED_KEY.match(key)
            if not match:
                continue
            prefix, suffix, name = match.groups()
            suffix = suffix or UNNAMED
            if prefix == 'resources':
                self.resource_spec(key, value, suffix, name)
            elif value in ('required', 'forbidden'):
                self.add_trait(name, suffix, value == 'forbidden')
            else:
                self.refuse(key, 'a trait is "required" or "forbidden"')

    def resource_spec(self, key, value, suffix, rclass):
        if not (_CUSTOM.match(rclass) or rclass in STANDARD_CLASSES):
            self.refuse(key, '%r is neither a standard resource class nor '
                             'CUSTOM_ followed by A-Z, 0-9 or _' % rclass)
        try:
            amount = int(value)
        except ValueError:
            self.refuse(key, 'the amount is not an integer')
        if amount < 0:
            self.warnings.append(
                'Flavor %s: extra spec %s=%s: a negative amount, which Nova '
                'ignores.' % (self.name, text.printable(key), value))
            return
        self.add_resource(rclass, amount, suffix)

    # CPU pinning.

    def cpu_set(self, key):
        """The CPUs of a mask spec: '0-3,^2' -> {0, 1, 3}."""
        mask = self.specs[key]
        if mask.strip().startswith('^'):
            mask = '0-%d,%s' % (self.vcpus - 1, mask)
        chosen, excluded = set(), set()
        for rule in mask.split(','):
            rule = rule.strip()
            into = chosen
            if rule.startswith('^'):
                into, rule = excluded, rule[1:]
            first, _sep, last = rule.partition('-')
            if int(first) > int(last or first):
                self.refuse(key, 'the range %s is reversed' % rule)
            into.update(range(int(first), int(last or first) + 1))
        return chosen - excluded

    def cpus(self):
        """(VCPU, PCPU) of the pinning specs, None where they say none."""
        policy = self.choice('hw:cpu_policy')
        thread_policy = self.choice('hw:cpu_thread_policy')
        emulator = self.choice('hw:emulator_threads_policy')
        for key in ('hw:cpu_dedicated_mask', 'hw:cpu_realtime_mask'):
            if self.specs.get(key) and not re.fullmatch(_CPU_MASK,
                                                        self.specs[key]):
                self.refuse(key, 'not a CPU mask such as 0-3,^2')
        every = set(range(self.vcpus))
        realtime = self.realtime_cpus(every, emulator)
        dedicated = None
        if self.specs.get('hw:cpu_dedicated_mask'):
            dedicated = self.cpu_set('hw:cpu_dedicated_mask')
            if not dedicated or not every - dedicated:
                self.refuse('hw:cpu_dedicated_mask',
                            'a mixed server needs both dedicated and '
                            'shared CPUs')
            if not dedicated <= every:
                self.refuse('hw:cpu_dedicated_mask',
                            'CPUs beyond the flavor\'s %d vCPUs'
                            % self.vcpus)
        vcpu_total = pcpu_total = 0
        vcpu_key = pcpu_key = None
        for key, value in self.specs.items():
            match = _CPU_KEY.match(key)
            if not match:
                continue
            try:
                amount = int(value)
            except ValueError:
                continue
            if match.group(2) == 'VCPU':
                vcpu_total += amount
                vcpu_key = vcpu_key or key
            else:
                pcpu_total += amount
                pcpu_key = pcpu_key or key
        if policy and (vcpu_total or pcpu_total):
            self.refuse('hw:cpu_policy', 'it cannot be combined with a '
                        'resources:VCPU or resources:PCPU extra spec')
        if vcpu_total and pcpu_total:
            self.refuse(pcpu_key, 'resources:VCPU and resources:PCPU '
                        'cannot be given together')
        pinned = policy
        if pcpu_total:
            wanted = self.vcpus + (1 if emulator == 'isolate' else 0)
            if pcpu_total != wanted:
                self.refuse(pcpu_key, 'it must be the flavor\'s vCPUs%s '
                            '(%d)' % (' + 1 with hw:emulator_threads_policy'
                                      '=isolate' if emulator == 'isolate'
                                      else '', wanted))
            pinned = 'dedicated'
        if vcpu_total:
            pinned = 'shared'
        ht_key = next((key for key in self.specs
                       if _HT_TRAIT_KEY.match(key)), None)
        if thread_policy and ht_key:
            self.refuse('hw:cpu_thread_policy', 'it cannot be combined '
                        'with %s' % ht_key)
        # The trait (required or forbidden: grouped_specs() checked it)
        # stands for a thread policy.
        threads = 'hw:cpu_thread_policy' if thread_policy else ht_key
        if pinned in ('shared', None):
            if threads:
                self.refuse(threads, 'a CPU thread policy needs '
                            'hw:cpu_policy=dedicated or mixed')
            if emulator == 'isolate':
                self.refuse('hw:emulator_threads_policy',
                            'isolate needs hw:cpu_policy=dedicated or mixed')
            if dedicated:
                self.refuse('hw:cpu_dedicated_mask',
                            'it needs hw:cpu_policy=mixed')
            if realtime:
                self.refuse('hw:cpu_realtime',
                            'it needs hw:cpu_policy=dedicated or mixed')
        elif pinned == 'dedicated':
            if dedicated:
                self.refuse('hw:cpu_dedicated_mask',
                            'it needs hw:cpu_policy=mixed')
        else:
            if realtime and dedicated:
                self.refuse('hw:cpu_dedicated_mask',
                            'a mixed server takes its dedicated CPUs from '
                            'it or from hw:cpu_realtime_mask, not both')
            if not (realtime or dedicated):
                self.refuse('hw:cpu_policy',
                            'mixed needs hw:cpu_dedicated_mask or '
                            'hw:cpu_realtime_mask')
        extra = 1 if emulator == 'isolate' else 0
        if policy == 'dedicated':
            return None, self.vcpus + extra
        if policy == 'mixed':
            pcpus = len(dedicated or realtime)
            return self.vcpus - pcpus, pcpus + extra
        return None, None

    def realtime_cpus(self, every, emulator):
        if not self.boolean('hw:cpu_realtime'):
            return None
        if self.specs.get('hw:cpu_realtime_mask'):
            chosen = self.cpu_set('hw:cpu_realtime_mask')
        else:
            chosen = set(every)
        if not chosen:
            self.refuse('hw:cpu_realtime', 'no real-time CPU is left by '
                        'hw:cpu_realtime_mask')
        if chosen == every and not emulator:
            self.refuse('hw:cpu_realtime', 'hw:cpu_realtime_mask must '
                        'leave a CPU out (or set '
                        'hw:emulator_threads_policy)')
        if not chosen <= every:
            self.refuse('hw:cpu_realtime_mask', 'CPUs beyond the flavor\'s '
                        '%d vCPUs' % self.vcpus)
        return chosen

    def thread_trait(self):
        policy = self.specs.get('hw:cpu_thread_policy')
        if policy == 'isolate':
            self.add_trait(HYPERTHREADING, forbidden=True)
        elif policy == 'require':
            self.add_trait(HYPERTHREADING)

    # The other specs.

    def merged(self):
        return set(rclass for group in self.groups.values()
                   for rclass in group.resources)

    def base(self, flavor, boot_from_volume):
        merged = self.merged()
        if 'VCPU' not in merged and 'PCPU' not in merged:
            self.add_resource('VCPU', self.vcpus)
        if 'MEMORY_MB' not in merged:
            self.add_resource('MEMORY_MB', flavor['ram'])
        if 'DISK_GB' not in merged:
            disk = (flavor.get('ephemeral') or 0) + int(
                math.ceil((flavor.get('swap') or 0) / 1024.0))
            if not boot_from_volume:
                disk += flavor.get('disk') or 0
            if disk:
                self.add_resource('DISK_GB', disk)

    def mem_encryption(self):
        model = self.choice('hw:mem_encryption_model')
        if not self.boolean('hw:mem_encryption'):
            return
        model = model or 'amd-sev'
        self.add_resource(MEM_ENCRYPTION_CONTEXT, 1)
        self.add_trait(SPECS['hw:mem_encryption_model'][model])
        image = "hw_firmware_type=uefi"
        if model in ('amd-sev-snp', 'intel-tdx'):
            # Nova refuses these models without a stateless firmware,
            # which the image's hw_firmware_stateless asks for.
            self.add_trait(STATELESS_FIRMWARE)
            image += ' and hw_firmware_stateless=true'
        if model == 'intel-tdx':
            image += ' and hw_video_model=none'
        self.warnings.append(
            'Flavor %s: hw:mem_encryption: Nova boots it only from an image '
            'with %s; the request assumes one.' % (self.name, image))

    def pmem(self):
        value = self.specs.get('hw:pmem')
        if not value:
            return
        if not re.fullmatch(_PMEM, value):
            self.refuse('hw:pmem', 'not a comma-separated list of '
                        'namespace labels')
        counts = {}
        for label in value.split(','):
            if label.strip():
                rclass = 'CUSTOM_' + re.sub(
                    '[^0-9A-Za-z]+', '_',
                    'PMEM_NAMESPACE_' + label.strip()).upper()
                counts[rclass] = counts.get(rclass, 0) + 1
        for rclass, count in counts.items():
            self.add_resource(rclass, count)

    def tpm(self):
        version = self.choice('hw:tpm_version')
        model = self.choice('hw:tpm_model')
        if not version:
            return False
        model = model or 'tpm-tis'
        if model == 'tpm-crb' and version != '2.0':
            self.refuse('hw:tpm_model', 'tpm-crb needs hw:tpm_version=2.0')
        self.add_trait(SPECS['hw:tpm_model'][model])
        self.add_trait(SPECS['hw:tpm_version'][version])
        return True

    def enumerated_traits(self):
        for key in ('hw:pci_numa_affinity_policy', 'os:secure_boot',
                    'hw:maxphysaddr_mode'):
            trait = SPECS[key].get(self.choice(key))
            if trait:
                self.add_trait(trait)

    def root_specs(self, with_tpm):
        if self.specs.get('accel:device_profile'):
            self.root_required.add(ACCELERATORS)
        if self.boolean('hw:virtio_packed_ring'):
            self.root_required.add(BOOLEAN_SPECS['hw:virtio_packed_ring'])
        eph_format = self.choice('hw:ephemeral_encryption_format', ROOT_SPECS)
        if self.boolean('hw:ephemeral_encryption'):
            self.root_required.add(BOOLEAN_SPECS['hw:ephemeral_encryption'])
            if eph_format:
                self.root_required.add(
                    ROOT_SPECS['hw:ephemeral_encryption_format'][eph_format])
        sound = ROOT_SPECS['hw:sound_model'].get(
            self.choice('hw:sound_model', ROOT_SPECS))
        if sound:
            self.root_required.add(sound)
        security = self.choice('hw:tpm_secret_security', ROOT_SPECS)
        if with_tpm:
            security = security or 'user'
            self.root_required.add(
                ROOT_SPECS['hw:tpm_secret_security'][security])

    def strip_zeros(self):
        for suffix, group in list(self.groups.items()):
            for rclass, amount in list(group.resources.items()):
                if amount == 0:
                    del group.resources[rclass]
            if group.empty():
                del self.groups[suffix]

    def notes(self):
        for key, what in UNTRANSLATED.items():
            if self.specs.get(key):
                self.untranslated.append(key)
                self.warnings.append(
                    'Flavor %s: extra spec %s=%s: Nova also asks for %s, '
                    'which this request leaves out: the answer is '
                    'incomplete.' % (self.name, key,
                                     text.printable(self.specs[key]), what))
        suffixed = [suffix for suffix in self.groups if suffix]
        if len(suffixed) > 1 and not self.group_policy:
            self.warnings.append(
                'Flavor %s has %d request groups and no group_policy: '
                'Placement refuses the request, as it refuses Nova\'s.'
                % (self.name, len(suffixed)))
        for suffix in suffixed:
            if not self.groups[suffix].resources:
                self.warnings.append(
                    'Flavor %s: request group %s has traits but no '
                    'resources: Placement refuses the request, as it '
                    'refuses Nova\'s.' % (self.name, suffix))


def translate(flavor, boot_from_volume=False, include_disabled=False,
              aggregates=None, required=(), forbidden=(), member_of=(),
              in_tree=None, root_required=(), owner_nova=False):
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
        nova-compute runs 34).
    """
    work = _Translator(flavor)
    work.grouped_specs()
    vcpus, pcpus = work.cpus()
    if vcpus is not None:
        work.add_resource('VCPU', vcpus)
    if pcpus is not None:
        work.add_resource('PCPU', pcpus)
    work.thread_trait()
    work.base(flavor, boot_from_volume)
    work.mem_encryption()
    work.pmem()
    with_tpm = work.tpm()
    work.enumerated_traits()
    work.strip_zeros()
    work.root_specs(with_tpm)
    if not include_disabled:
        work.root_forbidden.add(DISABLED)
    if owner_nova:
        work.root_required.add(OWNER_NOVA)
    for trait in root_required:
        if trait.startswith('!'):
            work.root_forbidden.add(trait[1:])
        else:
            work.root_required.add(trait)
    work.notes()
    params, needs = _query(work, aggregates, required, forbidden, member_of,
                           in_tree)
    return Translation(params, needs, work.warnings, work.untranslated)


def _query(work, aggregates, required, forbidden, member_of, in_tree):
    """The query of the translated request, and what each part needs."""
    needs = [('allocation candidates', CANDIDATES)]
    params = []
    if work.group_policy:
        params.append(('group_policy', work.group_policy))
        needs.append(('group_policy', NUMBERED_GROUPS))
    suffixes = [UNNAMED] + sorted(s for s in work.groups if s)
    for suffix in suffixes:
        group = work.groups.get(suffix)
        if group is None:
            if not (aggregates or required or forbidden or member_of
                    or in_tree):
                continue
            group = _Group()
        extra = suffix == UNNAMED
        if suffix:
            needs.append(('request group %s' % suffix,
                          NUMBERED_GROUPS if _NUMBERED.match(suffix)
                          else NAMED_GROUPS))
        params.append(('resources' + suffix, ','.join(
            '%s:%d' % (rclass, group.resources[rclass])
            for rclass in sorted(group.resources))))
        all_required = sorted(group.required) + (
            [t for t in required if t not in group.required] if extra
            else [])
        all_forbidden = sorted(group.forbidden) + (
            [t for t in forbidden if t not in group.forbidden] if extra
            else [])
        values = query_values.required_traits_params(all_required,
                                                     all_forbidden)
        for value in values:
            params.append(('required' + suffix, value))
        if all_required:
            needs.append(('required traits', REQUIRED_TRAITS))
        if all_forbidden:
            needs.append(('forbidden traits (%s)' % ','.join(all_forbidden),
                          FORBIDDEN_TRAITS))
        if any(value.startswith('in:') for value in values):
            needs.append(('any of several traits', ANY_TRAITS))
        if not extra:
            continue
        memberships = []
        if aggregates:
            memberships.append('in:' + ','.join(sorted(aggregates)))
        memberships.extend(query_values.member_of_param(value)
                           for value in member_of)
        for value in memberships:
            params.append(('member_of', value))
        if memberships:
            needs.append(('aggregates', MEMBER_OF))
        if len(memberships) > 1:
            needs.append(('several member_of', REPEATED_MEMBER_OF))
        if any(value.startswith('!') for value in memberships):
            needs.append(('forbidden aggregates', FORBIDDEN_AGGREGATES))
        if in_tree:
            params.append(('in_tree', in_tree))
            needs.append(('in_tree', IN_TREE))
    roots = sorted(work.root_required) + [
        '!' + trait for trait in sorted(work.root_forbidden)]
    if roots:
        params.append(('root_required', ','.join(roots)))
        needs.append(('root_required (%s)' % ','.join(roots), ROOT_REQUIRED))
    return params, needs
