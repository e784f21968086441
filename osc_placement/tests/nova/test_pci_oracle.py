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

"""osc_placement.model.flavors.pci against nova 34.0.0's own PCI requests.

For a set of ``[pci] alias`` entries, ``[filter_scheduler]
pci_in_placement`` and a flavor, Nova's side is what it does from the
start of nova-api (``get_alias_from_config()``, which refuses to start
with an alias it refuses) to the query of its scheduler: the flavor's
extra-spec validators, ``get_pci_requests_from_flavor()`` with the
flavor's PCI NUMA policy, ``RequestSpec.
generate_request_groups_from_pci_requests()`` (as
``RequestSpec.from_components()`` runs it), the request filters
(``owner_nova_filter`` with every compute on 34 or not), then
``resources_from_request_spec()`` and ``to_querystring()``.

Nova names each PCI group after a random request ID, ours are named
``_pci_<alias>_<n>``: the queries are compared as the request-level
parameters, the unnamed group, and the multiset of the contents of the
suffixed groups, whatever their names. Nova refuses when any of those
steps raises; ours must refuse exactly then (``pci.aliases()`` or
``flavors.translate()``).
"""

import contextlib
import json
import os
from urllib import parse

import fixtures
import hypothesis
from hypothesis import strategies as st
from nova.api.validation.extra_specs import validators
from nova import conf as nova_conf
from nova import exception
from nova import objects
from nova.pci import request as pci_request
from nova.scheduler import request_filter
from nova.scheduler import utils
from nova.virt import hardware
import os_traits
from osc_lib import exceptions
from oslo_config import cfg
from oslotest import base
import testscenarios

from osc_placement.cli import flavor_requests
from osc_placement.model import flavors
from osc_placement.model.flavors import pci
from osc_placement.model.flavors import traits
from osc_placement.tests.nova import test_flavors_oracle as oracle

load_tests = testscenarios.load_tests_apply_scenarios

objects.register_all()

CONF = nova_conf.CONF
GROUP_KEYS = ('resources', 'required', 'member_of', 'in_tree')


@contextlib.contextmanager
def nova_configured(entries, in_placement):
    """Nova's CONF with these aliases, its cache of them emptied."""
    CONF.set_override('alias', list(entries), group='pci')
    CONF.set_override('pci_in_placement', in_placement,
                      group='filter_scheduler')
    pci_request.get_alias_from_config.cache_clear()
    try:
        yield
    finally:
        CONF.clear_override('alias', group='pci')
        CONF.clear_override('pci_in_placement', group='filter_scheduler')
        pci_request.get_alias_from_config.cache_clear()


def _validated(specs):
    """The error of Nova's flavor API for these extra specs, or None."""
    for key, value in specs.items():
        try:
            validators.validate(key, value)
        except exception.ValidationError as exc:
            if oracle.UNKNOWN_SPEC not in str(exc) or key.startswith(
                    'resources'):
                return exc
    return None


def nova_query(flavor, entries, in_placement=True, owner_nova=False,
               boot_from_volume=False):
    """Nova's query for the flavor with these aliases, or its refusal."""
    with nova_configured(entries, in_placement):
        try:
            # nova-api's start.
            pci_request.get_alias_from_config()
        except exception.PciInvalidAlias as exc:
            return None, exc
        refusal = _validated(flavor['extra_specs'])
        if refusal:
            return None, refusal
        nova_flavor = oracle._nova_flavor(flavor)
        image = oracle._image(flavor['extra_specs'])
        try:
            hardware.numa_get_constraints(nova_flavor, image)
            policy = hardware.get_pci_numa_policy_constraint(nova_flavor,
                                                             image)
            pci_requests = pci_request.get_pci_requests_from_flavor(
                nova_flavor, affinity_policy=policy)
        except (exception.NovaException, ValueError) as exc:
            return None, exc
        spec = objects.RequestSpec(flavor=nova_flavor, image=image,
                                   is_bfv=boot_from_volume,
                                   pci_requests=pci_requests,
                                   requested_resources=[])
        spec.generate_request_groups_from_pci_requests()
        computes = fixtures.MockPatch(
            'nova.objects.service.get_minimum_version_all_cells',
            return_value=(request_filter.MIN_COMPUTE_VERSION_OWNER_TRAIT
                          if owner_nova else 0))
        ctxt = oracle._ctxt()
        try:
            with computes:
                request_filter.compute_status_filter(ctxt, spec)
                for run in oracle.FLAVOR_FILTERS:
                    run(ctxt, spec)
                request_filter.owner_nova_filter(ctxt, spec)
            request = utils.resources_from_request_spec(ctxt, spec, None)
        except (exception.NovaException, ValueError) as exc:
            return None, exc
    return parse.parse_qsl(request.to_querystring(),
                           keep_blank_values=True), None


def grouped(params):
    """(request-level params, unnamed group, [suffixed groups' contents]).

    Each part normalized as ``oracle.normalized()`` does; the suffixed
    groups sorted, their names dropped.
    """
    level, groups = [], {}
    for key, value in params:
        for prefix in GROUP_KEYS:
            if key.startswith(prefix):
                groups.setdefault(key[len(prefix):], []).append(
                    (prefix, value))
                break
        else:
            level.append((key, value))

    def content(pairs):
        return sorted(oracle.normalized(pairs).items())

    return (oracle.normalized(level), content(groups.pop('', [])),
            sorted(content(pairs) for pairs in groups.values()))


def alias(**fields):
    return json.dumps(fields)


GPU = alias(name='gpu', vendor_id='10de', product_id='2330')
NIC = alias(name='nic', resource_class='sriov_net_vf',
            traits='CUSTOM_PHYSNET_A,HW_NIC_SRIOV')


class OracleMixin(object):

    def assertSameAsNova(self, flavor, entries, in_placement=True,
                         owner_nova=False, boot_from_volume=False):
        expected, refusal = nova_query(
            flavor, entries, in_placement=in_placement,
            owner_nova=owner_nova, boot_from_volume=boot_from_volume)
        try:
            known = pci.aliases(entries, in_placement=in_placement)
            ours = flavors.translate(flavor, owner_nova=owner_nova,
                                     boot_from_volume=boot_from_volume,
                                     pci_aliases=known)
        except exceptions.CommandError as exc:
            self.assertIsNotNone(
                refusal, 'we refuse %s with %s (%s), Nova takes it: %s'
                % (flavor['extra_specs'], entries, exc, expected))
            return
        self.assertIsNone(
            refusal, 'Nova refuses %s with %s (%s), we send %s'
            % (flavor['extra_specs'], entries, refusal, ours.params))
        self.assertEqual(grouped(expected), grouped(ours.params),
                         'for %s with %s' % (flavor, entries))
        # Translated where Nova asks Placement, a bound elsewhere.
        self.assertEqual(
            bool(flavor['extra_specs'].get(pci.SPEC)) and not in_placement,
            not ours.complete)


def pci_flavor(value, **specs):
    specs[pci.SPEC] = value
    return oracle.flavor(**specs)


class TestTable(OracleMixin, base.BaseTestCase):
    """Aliases and flavors that exercise one rule each."""

    scenarios = [
        ('vendor and product', dict(
            flavor=pci_flavor('gpu:1'), entries=[GPU], options={})),
        ('two devices are two groups', dict(
            flavor=pci_flavor('gpu:2'), entries=[GPU], options={})),
        ('two aliases', dict(
            flavor=pci_flavor('gpu:1, nic:2'), entries=[GPU, NIC],
            options={})),
        ('a count of zero', dict(
            flavor=pci_flavor('gpu:0'), entries=[GPU], options={})),
        ('a standard class in small letters', dict(
            flavor=pci_flavor('v:1'),
            entries=[alias(name='v', resource_class='vgpu')], options={})),
        ('a class of any name', dict(
            flavor=pci_flavor('v:1'),
            entries=[alias(name='v', resource_class='my-gpu.x')],
            options={})),
        ('a custom class kept as written', dict(
            flavor=pci_flavor('v:1'),
            entries=[alias(name='v', resource_class='custom_a b')],
            options={})),
        ('an empty class', dict(
            flavor=pci_flavor('v:1'),
            entries=[alias(name='v', resource_class='', vendor_id='8086',
                           product_id='1520')], options={})),
        ('an empty class and no IDs', dict(
            flavor=pci_flavor('v:1'),
            entries=[alias(name='v', resource_class='')], options={})),
        ('the class of the vCPUs', dict(
            flavor=pci_flavor('v:1'),
            entries=[alias(name='v', resource_class='VCPU')], options={})),
        ('traits normalized', dict(
            flavor=pci_flavor('v:1'),
            entries=[alias(name='v', resource_class='CUSTOM_V',
                           traits='HW_GPU_API_VULKAN,hw_gpu_api_vulkan,'
                                  'custom_x,foo-bar, spaced,')],
            options={})),
        ('device type, NUMA policy, live migration left out', dict(
            flavor=pci_flavor('gpu:1', **{
                'hw:pci_numa_affinity_policy': 'socket'}),
            entries=[alias(name='gpu', vendor_id='10de', product_id='2330',
                           device_type='type-PF', numa_policy='required',
                           live_migratable='yes', capability_type='pci')],
            options={})),
        ('a name with spaces', dict(
            flavor=pci_flavor(' my gpu :1'),
            entries=[alias(name='my gpu ', resource_class='CUSTOM_G')],
            options={})),
        ('a vendor ID with a newline', dict(
            flavor=pci_flavor('gpu:1'),
            entries=[alias(name='gpu', vendor_id='10de\n',
                           product_id='2330')], options={})),
        ('OWNER_NOVA on the devices too', dict(
            flavor=pci_flavor('gpu:2'), entries=[GPU],
            options={'owner_nova': True})),
        ("the flavor's isolate kept", dict(
            flavor=pci_flavor('gpu:2', group_policy='isolate'),
            entries=[GPU], options={})),
        ('one group of the flavor: none', dict(
            flavor=pci_flavor('gpu:1', **{'resources1:VGPU': '1'}),
            entries=[GPU], options={})),
        ('one group of the flavor, of nothing', dict(
            flavor=pci_flavor('gpu:1', **{'resources1:VGPU': '0'}),
            entries=[GPU], options={})),
        ('one group of a negative amount', dict(
            flavor=pci_flavor('gpu:2', **{'resources1:VGPU': '-1'}),
            entries=[GPU], options={})),
        ('two groups of the flavor: no policy', dict(
            flavor=pci_flavor('gpu:1', **{'resources1:VGPU': '1',
                                          'trait2:CUSTOM_X': 'required'}),
            entries=[GPU], options={})),
        ('two groups of negative amounts: no policy', dict(
            flavor=pci_flavor('gpu:2', **{'resources1:VGPU': '-1',
                                          'resources2:VGPU': '-1'}),
            entries=[GPU], options={})),
        ('a group of the flavor named like ours', dict(
            flavor=pci_flavor('gpu:1', **{'resources_pci_gpu_1:VGPU': '1',
                                          'group_policy': 'none'}),
            entries=[GPU], options={})),
        ('not in Placement: no group', dict(
            flavor=pci_flavor('gpu:2'), entries=[GPU],
            options={'in_placement': False})),
        ('not in Placement: several entries of a name', dict(
            flavor=pci_flavor('gpu:1'),
            entries=[alias(name='gpu', vendor_id='10de', product_id='2330',
                           device_type='type-PCI'),
                     alias(name='gpu', vendor_id='10de', product_id='2331',
                           device_type='type-PCI')],
            options={'in_placement': False})),
        ('no alias spec, aliases given', dict(
            flavor=oracle.flavor(), entries=[GPU], options={})),
        # Refused.
        ('two entries of one name', dict(
            flavor=pci_flavor('nic:1'),
            entries=[GPU, NIC, alias(name='gpu', vendor_id='10de',
                                     product_id='2331')],
            options={})),
        ('two entries of one device type', dict(
            flavor=pci_flavor('gpu:1'),
            entries=[alias(name='gpu', vendor_id='10de', product_id='2330',
                           device_type='type-PCI'),
                     alias(name='gpu', vendor_id='10de', product_id='2331',
                           device_type='type-PCI')],
            options={})),
        ('two NUMA policies', dict(
            flavor=pci_flavor('gpu:1'),
            entries=[GPU, alias(name='gpu', vendor_id='10de',
                                product_id='2331', numa_policy='required')],
            options={'in_placement': False})),
        ('neither class nor IDs', dict(
            flavor=oracle.flavor(),
            entries=[GPU, alias(name='x', vendor_id='10de')], options={})),
        ('a class without IDs, not in Placement', dict(
            flavor=oracle.flavor(), entries=[NIC],
            options={'in_placement': False})),
        ('an alias not defined', dict(
            flavor=pci_flavor('gpu:1,tpu:1'), entries=[GPU], options={})),
        ('an alias not defined, not in Placement', dict(
            flavor=pci_flavor('tpu:1'), entries=[GPU],
            options={'in_placement': False})),
        ('a count not a number', dict(
            flavor=pci_flavor('gpu:x'), entries=[GPU], options={})),
        ('a name and no count', dict(
            flavor=pci_flavor('nic,gpu:1'), entries=[GPU, NIC],
            options={})),
        ('an empty value', dict(
            flavor=pci_flavor(''), entries=[GPU], options={})),
        ('not JSON', dict(
            flavor=oracle.flavor(), entries=['{"name": gpu}'], options={})),
        ('not an object', dict(
            flavor=oracle.flavor(), entries=['["gpu"]'], options={})),
        ('no name', dict(
            flavor=oracle.flavor(),
            entries=[alias(vendor_id='10de', product_id='2330')],
            options={})),
        ('an unknown field', dict(
            flavor=oracle.flavor(),
            entries=[alias(name='gpu', vendor_id='10de', product_id='2330',
                           device_id='1')], options={})),
        ('a vendor ID of five digits', dict(
            flavor=oracle.flavor(),
            entries=[alias(name='gpu', vendor_id='10de0',
                           product_id='2330')], options={})),
        ('a device type of vDPA', dict(
            flavor=oracle.flavor(),
            entries=[alias(name='gpu', vendor_id='10de', product_id='2330',
                           device_type='vdpa')], options={})),
        ('live migration not a boolean', dict(
            flavor=oracle.flavor(),
            entries=[alias(name='gpu', vendor_id='10de', product_id='2330',
                           live_migratable='maybe')], options={})),
        ('a number for a string', dict(
            flavor=oracle.flavor(),
            entries=['{"name": "gpu", "resource_class": 1}'], options={})),
        ('a name too long', dict(
            flavor=oracle.flavor(),
            entries=[alias(name='g' * 257, resource_class='CUSTOM_G')],
            options={})),
    ]

    def test_same_as_nova(self):
        self.assertSameAsNova(self.flavor, self.entries, **self.options)


# Random aliases and flavors: mostly what Nova takes; the last value of
# each list, which it refuses, one time in twenty (oracle._mostly_valid).
NAMES = ['a', 'b', ' c ', 'd-e']
IDS = {'vendor_id': ['10de', '8086', '10DE', 'xyz1'],
       'product_id': ['2330', '0443', 'abcd', '12345']}
FIELD_VALUES = {
    'resource_class': ['CUSTOM_GPU', 'vgpu', 'PCI_DEVICE', 'my.gpu', '',
                       'custom_x-y'],
    'traits': ['', 'CUSTOM_A', 'HW_GPU_API_VULKAN,custom_b',
               'hw_gpu_api_vulkan', 'x y,,Z', 'OWNER_NOVA'],
    'device_type': ['type-PCI', 'type-PF', 'type-VF', 'vdpa'],
    'numa_policy': ['legacy', 'required', 'socket', 'never'],
    'live_migratable': ['yes', 'false', 'perhaps'],
}


def random_entries(draw, names):
    """[JSON]: an alias of each name, a name twice now and then."""
    entries = []
    if names and draw(st.integers(0, 9)) == 0:
        names.append(names[0])
    for name in names:
        fields = {'name': name}
        kind = oracle._mostly_valid(draw, ['ids', 'class', 'both', 'none'])
        if kind in ('ids', 'both'):
            for field, values in sorted(IDS.items()):
                fields[field] = oracle._mostly_valid(draw, values)
        if kind in ('class', 'both'):
            fields['resource_class'] = draw(st.sampled_from(
                FIELD_VALUES['resource_class']))
        for field in draw(st.lists(st.sampled_from(
                ['traits', 'device_type', 'numa_policy',
                 'live_migratable']), max_size=3, unique=True)):
            fields[field] = oracle._mostly_valid(draw, FIELD_VALUES[field])
        entries.append(json.dumps(fields))
    return entries


def random_pci_flavor(draw, names):
    """A flavor of devices of these aliases, with groups of its own.

    One alias not defined, or a value Nova refuses, one time in twenty.
    """
    specs = {}
    if names and draw(st.integers(0, 9)):
        parts = ['%s:%d' % (oracle._mostly_valid(draw, names + ['x, y']),
                            draw(st.integers(0, 3)))
                 for _ in range(draw(st.integers(1, 3)))]
        specs[pci.SPEC] = ','.join(parts)
    for _ in range(draw(st.integers(0, 2))):
        key = 'resources%s:VGPU' % draw(st.sampled_from(['', '1', '2']))
        specs[key] = draw(st.sampled_from(['0', '1', '-1']))
    policy = draw(st.sampled_from([None, None, 'none', 'isolate']))
    if policy:
        specs['group_policy'] = policy
    return oracle.flavor(**specs)


@st.composite
def random_cases(draw):
    """(flavor, alias entries)."""
    names = draw(st.lists(st.sampled_from(NAMES), max_size=3, unique=True))
    return (random_pci_flavor(draw, [name.strip() for name in names]),
            random_entries(draw, names))


class TestRandom(OracleMixin, base.BaseTestCase):
    """Ours and Nova's agree on random aliases and flavors."""

    @hypothesis.settings(max_examples=400)
    @hypothesis.given(random_cases(), st.sampled_from([True, True, False]),
                      st.booleans())
    def test_same_as_nova(self, case, in_placement, owner):
        flavor, entries = case
        self.assertSameAsNova(flavor, entries, in_placement=in_placement,
                              owner_nova=owner)


class TestNovaConfig(base.BaseTestCase):
    """--nova-config reads what Nova's own options read from the file."""

    scenarios = [
        ('none', dict(content='[DEFAULT]\ndebug = true\n')),
        ('several, quoted, on several lines', dict(content=(
            '[pci]\n'
            'alias = {"name": "a", "resource_class": "CUSTOM_A"}\n'
            "alias = '{\"name\": \"b\", \"vendor_id\": \"10de\"}'\n"
            'alias = {"name": "c",\n'
            '   "resource_class": "CUSTOM_C"}\n'
            "alias = '{\n"
            '  "name": "d", "resource_class": "CUSTOM_D"\n'
            "  }'\n"
            '[filter_scheduler]\npci_in_placement = yes\n'))),
        ('the old name beside the new', dict(content=(
            '[DEFAULT]\npci_alias = {"name": "old"}\n'
            '[pci]\nalias = {"name": "new"}\n'))),
        ('a dollar', dict(content=(
            '[pci]\nalias = {"name": "x", "resource_class": "A$$B"}\n'
            '[filter_scheduler]\npci_in_placement = 0\n'))),
        ('a value of an option not known', dict(content=(
            '[pci]\nalias = {"name": "x", "resource_class": "$nothing"}\n'
            ))),
        ('not a boolean', dict(content=(
            '[filter_scheduler]\npci_in_placement = maybe\n'))),
        ('the last boolean', dict(content=(
            '[filter_scheduler]\npci_in_placement = true\n'
            'pci_in_placement = False\n'))),
    ]

    def test_same_as_nova(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'nova.conf')
        with open(path, 'w') as f:
            f.write(self.content)
        conf = cfg.ConfigOpts()
        nova_conf.pci.register_opts(conf)
        nova_conf.scheduler.register_opts(conf)
        conf(args=[], default_config_files=[path], default_config_dirs=[])
        try:
            expected = (list(conf.pci.alias),
                        conf.filter_scheduler.pci_in_placement)
        except (cfg.Error, ValueError):
            self.assertRaises(exceptions.CommandError,
                              flavor_requests._read_nova_config,
                              '--nova-config', path)
            return
        self.assertEqual(
            expected,
            flavor_requests._read_nova_config('--nova-config', path))


class TestTables(base.BaseTestCase):
    """Our table of standard traits against os-traits as Nova has it."""

    def test_standard_traits(self):
        self.assertEqual(set(os_traits.get_traits()), set(traits.STANDARD))
