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

"""What Nova 34 knows of extra specs, resource classes and traits.

The tables the rules of ``osc_placement.model.flavors.rules`` read: the
standard resource classes, the extra specs of a few values and the trait
each value requires (on the unnamed group, or on the root provider), the
boolean specs, the traits the scheduler adds of its own, and the specs
whose part of Nova's request is not translated. The tests in
``osc_placement/tests/nova`` hold the names against os-resource-classes
and os-traits, where Nova reads them.
"""

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

# Nova's scheduler takes a resource class that starts with this (as
# written) or a standard one.
CUSTOM_PREFIX = 'CUSTOM_'

# The traits the scheduler asks for of its own.
DISABLED = 'COMPUTE_STATUS_DISABLED'
OWNER_NOVA = 'OWNER_NOVA'
HYPERTHREADING = 'HW_CPU_HYPERTHREADING'
MEM_ENCRYPTION_CONTEXT = 'MEM_ENCRYPTION_CONTEXT'
STATELESS_FIRMWARE = 'COMPUTE_SECURITY_STATELESS_FIRMWARE'
ACCELERATORS = 'COMPUTE_ACCELERATORS'

# The versions of the TPM standard that hw:tpm_version takes (the look of
# a microversion, not one: the layout test allows these two names alone).
TPM_1_2 = '1.2'
TPM_2_0 = '2.0'

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
    'hw:tpm_version': {TPM_1_2: 'COMPUTE_SECURITY_TPM_1_2',
                       TPM_2_0: 'COMPUTE_SECURITY_TPM_2_0'},
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
# Boolean extra specs: true requires the trait (None: see the rules).
BOOLEAN_SPECS = {
    'hw:mem_encryption': None,
    'hw:cpu_realtime': None,
    'hw:virtio_packed_ring': 'COMPUTE_NET_VIRTIO_PACKED',
    'hw:ephemeral_encryption': 'COMPUTE_EPHEMERAL_ENCRYPTION',
}

# Extra specs that make Nova ask for more than this request holds.
UNTRANSLATED = {
    'accel:device_profile': 'the resources of its Cyborg device profile',
    'pci_passthrough:alias': 'its PCI devices (requested from Placement '
                             'with [filter_scheduler]pci_in_placement, '
                             'else checked by the PCI filter)',
}
