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

"""osc_placement.model.flavors against nova 34.0.0's own translation.

For each flavor, Nova's side is what its scheduler does before it asks
Placement: the request filters that run without a server
(``compute_status_filter``, ``map_az_to_placement_aggregate`` with the
aggregates of the zone given, and those that read the flavor), then
``resources_from_request_spec()`` (``ResourceRequest.from_request_spec()``
plus the zone's aggregates) and ``to_querystring()``. The two queries are
compared key by key, the order of the values of a key and of the names
within a value aside, ``limit`` aside.

A flavor is refused by Nova when its extra-spec validator (the flavor API
from compute 2.86) or its checks at boot (``numa_get_constraints()``, the
translation itself) raise; ours must refuse exactly those. A spec that
Nova's validator does not know (``hw:maxphysaddr_mode`` has no validator in
34.0.0, nor has a trait outside os-traits) does not count as refused.

Except the specs that the scheduler reads itself, log and skip when they
are invalid (``group_policy``, ``resources[S]:`` and ``trait[S]:``, read by
``ResourceRequest._process_extra_specs()``): a flavor made before 2.86
carries them, the validator refuses them, and the scheduler still sends
its request (without them). There ours must send Nova's query and warn,
one line naming the flavor and each such spec.
"""

import logging
from urllib import parse
import uuid

import fixtures
import hypothesis
from hypothesis import strategies as st
from nova.api.validation.extra_specs import validators
from nova import context
from nova import exception
from nova import objects
from nova.scheduler import request_filter
from nova.scheduler import utils
from nova.virt import hardware
import os_resource_classes
import os_traits
from osc_lib import exceptions
from oslotest import base
import testscenarios

from osc_placement.model import flavors
from osc_placement.model.flavors import specs as tables

load_tests = testscenarios.load_tests_apply_scenarios

objects.register_all()

ZONE = [str(uuid.UUID(int=n)) for n in (7, 3)]
USER_AGGREGATES = [str(uuid.UUID(int=n)) for n in (5, 1)]

# The request filters that need no database nor configuration.
FLAVOR_FILTERS = (
    request_filter.accelerators_filter,
    request_filter.packed_virtqueue_filter,
    request_filter.ephemeral_encryption_filter,
    request_filter.virtio_sound_filter,
    request_filter.tpm_secret_security_filter,
)
UNKNOWN_SPEC = 'does not appear to be a valid extra spec'
# The loggers of what the scheduler skips with a warning.
SKIPPING_LOGGERS = ('nova.scheduler.utils', 'nova.objects.request_spec')


def scheduler_reads(key):
    """Whether the scheduler reads the spec itself (and skips it if bad)."""
    return (key == 'group_policy'
            or utils.ResourceRequest.XS_KEYPAT.match(key) is not None)


def _ctxt():
    return context.RequestContext('user', 'project', is_admin=True)


def _image(specs, required=()):
    """The image: the user's traits, and what memory encryption needs.

    Nova puts the traits an image requires in the unnamed group, as
    ``--required`` does.
    """
    props = {'traits_required': list(required)} if required else {}
    wanted = specs.get('hw:mem_encryption', '')
    if wanted.strip().lower() in ('1', 't', 'true', 'on', 'y', 'yes'):
        model = specs.get('hw:mem_encryption_model') or 'amd-sev'
        props['hw_firmware_type'] = 'uefi'
        if model in ('amd-sev-snp', 'intel-tdx'):
            props['hw_firmware_stateless'] = True
        if model == 'intel-tdx':
            props['hw_video_model'] = 'none'
    return objects.ImageMeta(properties=objects.ImageMetaProps(**props))


def _nova_flavor(flavor):
    return objects.Flavor(
        name=flavor['name'], flavorid=flavor['name'],
        vcpus=flavor['vcpus'], memory_mb=flavor['ram'],
        root_gb=flavor['disk'], ephemeral_gb=flavor['ephemeral'],
        swap=flavor['swap'], extra_specs=dict(flavor['extra_specs']))


class NovaAnswer(object):
    """What Nova does with a flavor.

    ``params``: the query (None if refused); ``refusal``: the error that
    refuses it; ``api_refused``: the specs its flavor API refuses (from
    2.86) and its scheduler reads anyway; ``skipped``: the warnings the
    scheduler logged as it skipped specs.
    """

    def __init__(self, params=None, refusal=None, api_refused=(),
                 skipped=()):
        self.params = params
        self.refusal = refusal
        self.api_refused = list(api_refused)
        self.skipped = list(skipped)


def nova_query(flavor, **options):
    """Nova's query for the flavor, or the error that refuses it.

    As ``nova_answer()``, the query and the refusal only.
    """
    answer = nova_answer(flavor, **options)
    return answer.params, answer.refusal


def nova_answer(flavor, boot_from_volume=False, include_disabled=False,
                aggregates=None, owner_nova=False, required=(),
                member_of=(), root_required=()):
    """The ``NovaAnswer`` of the flavor.

    required, member_of, root_required: the user's options, given to Nova
    as what it turns into the same parameters (an image's required
    traits, the aggregates of a requested destination, the request's root
    traits).
    """
    specs = flavor['extra_specs']
    api_refused = []
    for key, value in specs.items():
        try:
            validators.validate(key, value)
        except exception.ValidationError as exc:
            if scheduler_reads(key):
                if UNKNOWN_SPEC not in str(exc) or key.startswith(
                        'resources'):
                    api_refused.append(key)
            elif UNKNOWN_SPEC not in str(exc):
                return NovaAnswer(refusal=exc)
    nova_flavor = _nova_flavor(flavor)
    image = _image(specs, required)
    try:
        hardware.numa_get_constraints(nova_flavor, image)
    except (exception.NovaException, ValueError) as exc:
        return NovaAnswer(refusal=exc)
    spec = objects.RequestSpec(flavor=nova_flavor, image=image,
                               is_bfv=boot_from_volume,
                               availability_zone='az1' if aggregates
                               else None)
    # Nova's lookups in its database: the zone's aggregates, the version
    # of the oldest nova-compute.
    zone = fixtures.MockPatch(
        'nova.objects.AggregateList.get_by_metadata',
        return_value=[objects.Aggregate(uuid=agg)
                      for agg in aggregates or ()])
    computes = fixtures.MockPatch(
        'nova.objects.service.get_minimum_version_all_cells',
        return_value=(request_filter.MIN_COMPUTE_VERSION_OWNER_TRAIT
                      if owner_nova else 0))
    ctxt = _ctxt()
    logs = [fixtures.FakeLogger(name=name, level=logging.WARNING)
            for name in SKIPPING_LOGGERS]
    for log in logs:
        log.setUp()
    try:
        with zone, computes:
            request_filter.map_az_to_placement_aggregate(ctxt, spec)
            if not include_disabled:
                request_filter.compute_status_filter(ctxt, spec)
            for run in FLAVOR_FILTERS:
                run(ctxt, spec)
            request_filter.owner_nova_filter(ctxt, spec)
        for value in member_of:
            if not (spec.obj_attr_is_set('requested_destination')
                    and spec.requested_destination is not None):
                spec.requested_destination = objects.Destination()
            spec.requested_destination.require_aggregates(value.split(','))
        for trait in root_required:
            if trait.startswith('!'):
                spec.root_forbidden.add(trait[1:])
            else:
                spec.root_required.add(trait)
        request = utils.resources_from_request_spec(ctxt, spec, None)
    except (exception.NovaException, ValueError) as exc:
        return NovaAnswer(refusal=exc)
    finally:
        skipped = [line for log in logs
                   for line in log.output.splitlines()]
        for log in logs:
            log.cleanUp()
    return NovaAnswer(parse.parse_qsl(request.to_querystring(),
                                      keep_blank_values=True),
                      api_refused=api_refused, skipped=skipped)


def normalized(params):
    """{key: sorted values}, each value with its names sorted."""
    found = {}
    for key, value in params:
        if key == 'limit':
            continue
        prefix = ''
        for operator in ('!in:', 'in:'):
            if value.startswith(operator):
                prefix, value = operator, value[len(operator):]
                break
        names = ','.join(sorted(value.split(','))) if value else ''
        found.setdefault(key, []).append(prefix + names)
    return {key: sorted(values) for key, values in found.items()}


def flavor(name='f', vcpus=2, ram=2048, disk=20, ephemeral=0, swap=0,
           **specs):
    return {'name': name, 'vcpus': vcpus, 'ram': ram, 'disk': disk,
            'ephemeral': ephemeral, 'swap': swap, 'extra_specs': specs}


class OracleMixin(object):

    def assertSameAsNova(self, flavor, **options):
        """The same query or the same refusal; Nova's skipped specs warned.

        Returns Nova's answer.
        """
        nova = nova_answer(flavor, **options)
        try:
            ours = flavors.translate(flavor, **options)
        except exceptions.CommandError as exc:
            self.assertIsNotNone(
                nova.refusal, 'we refuse %s (%s), Nova takes it: %s'
                % (flavor['extra_specs'], exc, nova.params))
            return nova
        self.assertIsNone(
            nova.refusal, 'Nova refuses %s (%s), we send %s'
            % (flavor['extra_specs'], nova.refusal, ours.params))
        self.assertEqual(normalized(nova.params), normalized(ours.params),
                         'for %s' % flavor)
        for key in nova.api_refused:
            named = 'Flavor %s: extra spec %s=%s: ' % (
                flavor['name'], key, flavor['extra_specs'][key])
            self.assertTrue(
                [line for line in ours.warnings if line.startswith(named)],
                'no warning of %s in %s' % (named, ours.warnings))
        return nova


class TestTable(OracleMixin, base.BaseTestCase):
    """Flavors that exercise one rule each, as Nova translates them."""

    scenarios = [
        ('plain', dict(flavor=flavor(), options={})),
        ('swap rounded up', dict(flavor=flavor(swap=1025, ephemeral=3),
                                 options={})),
        ('boot from volume', dict(flavor=flavor(swap=512),
                                  options={'boot_from_volume': True})),
        ('boot from volume, no disk left', dict(
            flavor=flavor(), options={'boot_from_volume': True})),
        ('zero disk', dict(flavor=flavor(disk=0), options={})),
        ('resources replace a base class', dict(
            flavor=flavor(**{'resources:VCPU': '6'}), options={})),
        ('resources add a class', dict(
            flavor=flavor(**{'resources:VGPU': '1'}), options={})),
        ('zero drops a class', dict(
            flavor=flavor(**{'resources:DISK_GB': '0'}), options={})),
        ('a class in a group takes the base', dict(
            flavor=flavor(**{'resources1:MEMORY_MB': '512',
                             'resources2:VCPU': '1',
                             'group_policy': 'isolate'}), options={})),
        ('named groups', dict(
            flavor=flavor(**{'resources_gpu:VGPU': '2',
                             'trait_gpu:CUSTOM_NVIDIA': 'required',
                             'trait_gpu:CUSTOM_OLD': 'forbidden'}),
            options={})),
        ('two groups without a policy', dict(
            flavor=flavor(**{'resources1:VGPU': '1',
                             'resources2:VGPU': '1'}), options={})),
        ('a group of traits only', dict(
            flavor=flavor(**{'trait1:CUSTOM_X': 'required'}), options={})),
        ('negative amount ignored', dict(
            flavor=flavor(**{'resources:VGPU': '-1'}), options={})),
        ('dedicated', dict(
            flavor=flavor(**{'hw:cpu_policy': 'dedicated'}), options={})),
        ('dedicated, emulator isolated, no hyperthreads', dict(
            flavor=flavor(**{'hw:cpu_policy': 'dedicated',
                             'hw:emulator_threads_policy': 'isolate',
                             'hw:cpu_thread_policy': 'isolate'}),
            options={})),
        ('dedicated, hyperthreads required', dict(
            flavor=flavor(**{'hw:cpu_policy': 'dedicated',
                             'hw:cpu_thread_policy': 'require'}),
            options={})),
        ('mixed with a mask', dict(
            flavor=flavor(vcpus=4, **{'hw:cpu_policy': 'mixed',
                                      'hw:cpu_dedicated_mask': '^0'}),
            options={})),
        ('mixed with real-time CPUs', dict(
            flavor=flavor(vcpus=4, **{'hw:cpu_policy': 'mixed',
                                      'hw:cpu_realtime': 'yes',
                                      'hw:cpu_realtime_mask': '^0-1'}),
            options={})),
        ('mixed without a mask', dict(
            flavor=flavor(**{'hw:cpu_policy': 'mixed'}), options={})),
        ('policy sometimes', dict(
            flavor=flavor(**{'hw:cpu_policy': 'sometimes'}), options={})),
        ('policy with resources:VCPU', dict(
            flavor=flavor(**{'hw:cpu_policy': 'dedicated',
                             'resources:VCPU': '2'}), options={})),
        ('resources:PCPU', dict(
            flavor=flavor(**{'resources:PCPU': '2'}), options={})),
        ('resources:PCPU not the vCPUs', dict(
            flavor=flavor(**{'resources:PCPU': '3'}), options={})),
        ('thread policy without pinning', dict(
            flavor=flavor(**{'hw:cpu_thread_policy': 'prefer'}),
            options={})),
        ('hyperthreading trait without pinning', dict(
            flavor=flavor(**{'trait:HW_CPU_HYPERTHREADING': 'forbidden'}),
            options={})),
        ('memory encryption', dict(
            flavor=flavor(**{'hw:mem_encryption': 'true'}), options={})),
        ('memory encryption, SEV-SNP', dict(
            flavor=flavor(**{'hw:mem_encryption': 'true',
                             'hw:mem_encryption_model': 'amd-sev-snp'}),
            options={})),
        ('memory encryption, TDX', dict(
            flavor=flavor(**{'hw:mem_encryption': 'true',
                             'hw:mem_encryption_model': 'intel-tdx'}),
            options={})),
        ('pmem', dict(
            flavor=flavor(**{'hw:pmem': '4GB,4GB,SMALL'}), options={})),
        ('vTPM', dict(flavor=flavor(**{'hw:tpm_version': '2.0',
                                       'hw:tpm_model': 'tpm-crb'}),
                      options={})),
        ('vTPM 1.2 and CRB', dict(flavor=flavor(**{'hw:tpm_version': '1.2',
                                                   'hw:tpm_model':
                                                   'tpm-crb'}),
                                  options={})),
        ('vTPM with host secret', dict(
            flavor=flavor(**{'hw:tpm_version': '1.2',
                             'hw:tpm_secret_security': 'host'}),
            options={})),
        ('PCI NUMA socket', dict(
            flavor=flavor(**{'hw:pci_numa_affinity_policy': 'socket'}),
            options={})),
        ('secure boot', dict(flavor=flavor(**{'os:secure_boot': 'required'}),
                             options={})),
        ('maxphysaddr', dict(
            flavor=flavor(**{'hw:maxphysaddr_mode': 'emulate'}),
            options={})),
        ('packed ring, sound, ephemeral encryption', dict(
            flavor=flavor(**{'hw:virtio_packed_ring': 'true',
                             'hw:sound_model': 'virtio',
                             'hw:ephemeral_encryption': 'true',
                             'hw:ephemeral_encryption_format': 'luks'}),
            options={})),
        ('device profile', dict(
            flavor=flavor(**{'accel:device_profile': 'dp1'}), options={})),
        ('availability zone', dict(flavor=flavor(),
                                   options={'aggregates': ZONE})),
        ('zone and no unnamed group', dict(
            flavor=flavor(**{'resources:VCPU': '0',
                             'resources:MEMORY_MB': '0',
                             'resources:DISK_GB': '0',
                             'resources1:VCPU': '1'}),
            options={'aggregates': ZONE})),
        ('disabled computes included', dict(
            flavor=flavor(), options={'include_disabled': True})),
        ('OWNER_NOVA', dict(flavor=flavor(), options={'owner_nova': True})),
        ("the user's options", dict(
            flavor=flavor(**{'trait:CUSTOM_A': 'required',
                             'trait:CUSTOM_B': 'forbidden'}),
            options={'aggregates': ZONE, 'required': ['CUSTOM_U'],
                     'member_of': [ZONE[0], ','.join(USER_AGGREGATES)],
                     'root_required': ['CUSTOM_R', '!CUSTOM_S']})),
        ("the user's options and no unnamed group", dict(
            flavor=flavor(**{'resources:VCPU': '0',
                             'resources:MEMORY_MB': '0',
                             'resources:DISK_GB': '0',
                             'resources1:VCPU': '1'}),
            options={'required': ['CUSTOM_U']})),
    ]

    def test_same_as_nova(self):
        self.assertSameAsNova(self.flavor, **self.options)


class TestSkippedByTheScheduler(OracleMixin, base.BaseTestCase):
    """Specs the flavor API refuses and the scheduler reads anyway.

    Nova's validator refuses each (a flavor made before compute 2.86
    still has it); Nova's scheduler logs a warning and skips it
    (``skipped``), or asks for it as written, and boots the server. Ours
    sends the same query and warns, naming the flavor and the spec.
    """

    scenarios = [
        ('unknown group policy', dict(
            specs={'group_policy': 'any', 'resources1:VGPU': '1',
                   'resources2:VGPU': '1'}, skipped=True)),
        ('unknown class', dict(
            specs={'resources:FOO': '1'}, skipped=True)),
        ('unknown class in a group', dict(
            specs={'resources1:FOO': '1', 'resources2:VGPU': '1',
                   'group_policy': 'none'}, skipped=True)),
        ('amount not an integer', dict(
            specs={'resources:VCPU': 'x'}, skipped=True)),
        ('amount not an integer in a named group', dict(
            specs={'resources_gpu:VGPU': 'two',
                   'trait_gpu:CUSTOM_X': 'required'}, skipped=True)),
        ('empty amount', dict(
            specs={'resources:MEMORY_MB': ''}, skipped=True)),
        ('trait value', dict(
            specs={'trait:CUSTOM_X': 'maybe'}, skipped=True)),
        ('trait value of a standard trait in a group', dict(
            specs={'trait1:HW_CPU_X86_AVX': 'yes', 'resources1:VGPU': '1'},
            skipped=True)),
        # The scheduler takes any class that starts with CUSTOM_, as
        # written; Placement then refuses a class it does not know.
        ('custom class in lower case', dict(
            specs={'resources:CUSTOM_magic': '1'}, skipped=False)),
    ]

    def test_same_as_nova_with_a_warning(self):
        nova = self.assertSameAsNova(flavor(**self.specs))
        self.assertIsNone(nova.refusal)
        self.assertEqual(1, len(nova.api_refused), nova.api_refused)
        self.assertEqual(self.skipped, bool(nova.skipped), nova.skipped)


# Random flavors over the specs osc_placement.model.flavors knows: mostly
# values Nova takes, some it refuses (the last of each list), one time in
# twenty.
GROUPS = st.sampled_from(['', '', '1', '2', '_gpu'])
CLASSES = ['VCPU', 'PCPU', 'MEMORY_MB', 'DISK_GB', 'VGPU',
           'MEM_ENCRYPTION_CONTEXT', 'CUSTOM_MAGIC', 'CUSTOM_magic',
           'MAGIC']
AMOUNTS = ['0', '1', '2', '4', '-1', 'x']
TRAITS = st.sampled_from(['HW_CPU_HYPERTHREADING', 'CUSTOM_GOLD',
                          'COMPUTE_VOLUME_MULTI_ATTACH'])
TRAIT_VALUES = ['required', 'forbidden', 'maybe']
CHOICES = {
    'group_policy': ['none', 'isolate', 'any'],
    'hw:cpu_policy': ['dedicated', 'shared', 'mixed', 'sometimes'],
    'hw:cpu_thread_policy': ['prefer', 'isolate', 'require', 'never'],
    'hw:emulator_threads_policy': ['share', 'isolate', 'both'],
    'hw:cpu_dedicated_mask': ['^0', '0', '0-1', '1-2,^2', '7', '2-1'],
    'hw:cpu_realtime': ['yes', 'no', 'maybe'],
    'hw:cpu_realtime_mask': ['^0', '0-1', '^0-7', 'x'],
    'hw:mem_encryption': ['true', 'false', 'perhaps'],
    'hw:mem_encryption_model': ['amd-sev', 'amd-sev-es', 'amd-sev-snp',
                                'intel-tdx', 'other'],
    'hw:pmem': ['ns1', 'ns1,ns1,BIG', 'a-b'],
    'hw:tpm_version': ['1.2', '2.0', '3.0'],
    'hw:tpm_model': ['tpm-tis', 'tpm-crb', 'tpm-x'],
    'hw:tpm_secret_security': ['user', 'host', 'deployment', 'nobody'],
    'hw:pci_numa_affinity_policy': ['required', 'legacy', 'preferred',
                                    'socket', 'loose'],
    'os:secure_boot': ['required', 'disabled', 'optional'],
    'hw:maxphysaddr_mode': ['passthrough', 'emulate', 'bogus'],
    'hw:virtio_packed_ring': ['true', 'false', 'sometimes'],
    'hw:ephemeral_encryption': ['true', 'false', 'sometimes'],
    'hw:ephemeral_encryption_format': ['plain', 'luks', 'luksv2', 'zip'],
    'hw:sound_model': ['virtio', 'ac97', 'horn'],
    'accel:device_profile': ['dp1'],
    'pci_passthrough:alias': ['a1:1'],
}


def _mostly_valid(draw, values):
    """One of values; the last (refused) one time in twenty."""
    if len(values) > 1 and draw(st.integers(0, 19)) == 0:
        return values[-1]
    return draw(st.sampled_from(values[:-1] if len(values) > 1
                                else values))


@st.composite
def random_flavors(draw):
    specs = {}
    for _ in range(draw(st.integers(0, 4))):
        key = 'resources%s:%s' % (draw(GROUPS),
                                  _mostly_valid(draw, CLASSES))
        specs[key] = _mostly_valid(draw, AMOUNTS)
    for _ in range(draw(st.integers(0, 2))):
        key = 'trait%s:%s' % (draw(GROUPS), draw(TRAITS))
        specs[key] = _mostly_valid(draw, TRAIT_VALUES)
    for key in draw(st.lists(st.sampled_from(sorted(CHOICES)),
                             max_size=5, unique=True)):
        specs[key] = _mostly_valid(draw, CHOICES[key])
    return flavor(vcpus=draw(st.integers(1, 8)),
                  ram=draw(st.integers(1, 8192)),
                  disk=draw(st.integers(0, 40)),
                  ephemeral=draw(st.integers(0, 10)),
                  swap=draw(st.integers(0, 3000)), **specs)


# The user's --required, --member-of and --root-required.
USER_OPTIONS = st.fixed_dictionaries({
    'required': st.lists(st.sampled_from(['CUSTOM_GOLD', 'CUSTOM_U']),
                         max_size=2, unique=True),
    'member_of': st.lists(st.sampled_from(
        [ZONE[0], USER_AGGREGATES[0], ','.join(USER_AGGREGATES)]),
        max_size=2, unique=True),
    'root_required': st.lists(st.sampled_from(['CUSTOM_R', '!CUSTOM_S']),
                              max_size=2, unique=True),
})


class TestRandomFlavors(OracleMixin, base.BaseTestCase):
    """Ours and Nova's agree on random flavors: same query, same refusals."""

    @hypothesis.settings(max_examples=300)
    @hypothesis.given(random_flavors(), st.booleans(), st.booleans(),
                      st.booleans(), st.booleans(), USER_OPTIONS)
    def test_same_as_nova(self, flavor, bfv, include_disabled, zone, owner,
                          user):
        self.assertSameAsNova(flavor, boot_from_volume=bfv,
                              include_disabled=include_disabled,
                              aggregates=ZONE if zone else None,
                              owner_nova=owner, **user)


class TestTables(base.BaseTestCase):
    """Our tables of names against the packages Nova reads them from."""

    def test_standard_classes(self):
        self.assertEqual(set(os_resource_classes.STANDARDS),
                         set(tables.STANDARD_CLASSES))

    def test_traits_exist(self):
        known = set(os_traits.get_traits())
        ours = set()
        for table in (tables.SPECS, tables.ROOT_SPECS):
            for values in table.values():
                ours.update(trait for trait in values.values() if trait)
        ours.update(trait for trait in tables.BOOLEAN_SPECS.values()
                    if trait)
        ours.update((tables.DISABLED, tables.OWNER_NOVA,
                     tables.HYPERTHREADING, tables.STATELESS_FIRMWARE,
                     tables.ACCELERATORS))
        self.assertEqual(set(), ours - known)
