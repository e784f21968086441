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

"""A flavor's PCI devices as Nova asks for them: ``model/flavors/pci.py``.

The figures are Nova 34's (``tests/nova/test_pci_oracle.py`` holds the
module against Nova's own code on many more aliases and flavors); these
tests run without nova.
"""

import json

from oslotest import base
import testscenarios

from osc_placement.model import flavors
from osc_placement.model.flavors import pci

load_tests = testscenarios.load_tests_apply_scenarios

GPU = json.dumps({'name': 'gpu', 'vendor_id': '10de', 'product_id': '2330',
                  'device_type': 'type-PF', 'numa_policy': 'required'})
NIC = json.dumps({'name': 'nic', 'resource_class': 'sriov_net_vf',
                  'traits': 'CUSTOM_PHYSNET_A,hw_nic_sriov'})


def flavor(value=None, **specs):
    if value is not None:
        specs[pci.SPEC] = value
    return {'name': 'm1', 'vcpus': 2, 'ram': 2048, 'disk': 20,
            'ephemeral': 0, 'swap': 0, 'extra_specs': specs}


class TestAliases(base.BaseTestCase):
    """What Nova's [pci] alias entries become, or why Nova refuses them."""

    def test_entries_by_name(self):
        found = pci.aliases([GPU, NIC])
        self.assertEqual(['gpu', 'nic'], list(found.by_name))
        self.assertTrue(found.in_placement)
        gpu = found.by_name['gpu']
        self.assertEqual('required', gpu.numa_policy)
        self.assertEqual([{'vendor_id': '10de', 'product_id': '2330',
                           'dev_type': 'type-PF'}], gpu.specs)
        self.assertEqual('CUSTOM_PCI_10DE_2330', gpu.resource_class)
        self.assertEqual(set(), gpu.traits)
        nic = found.by_name['nic']
        self.assertEqual('legacy', nic.numa_policy)
        self.assertEqual('SRIOV_NET_VF', nic.resource_class)
        self.assertEqual({'CUSTOM_PHYSNET_A', 'CUSTOM_HW_NIC_SRIOV'},
                         nic.traits)

    def test_names_are_stripped(self):
        found = pci.aliases([json.dumps({'name': ' gpu ',
                                         'resource_class': 'CUSTOM_G'})])
        self.assertEqual(['gpu'], list(found.by_name))

    def test_live_migratable_is_a_boolean(self):
        found = pci.aliases([json.dumps({'name': 'g', 'vendor_id': '10de',
                                         'product_id': '2330',
                                         'live_migratable': ' Yes'})])
        self.assertEqual('true',
                         found.by_name['g'].specs[0]['live_migratable'])

    def test_several_entries_of_a_name_without_placement(self):
        entry = {'name': 'g', 'vendor_id': '10de', 'product_id': '2330',
                 'device_type': 'type-VF'}
        other = dict(entry, product_id='2331')
        found = pci.aliases([json.dumps(entry), json.dumps(other)],
                            in_placement=False)
        self.assertEqual(2, len(found.by_name['g'].specs))
        self.assertFalse(found.in_placement)


def _entry(**fields):
    return json.dumps(fields)


class TestRefusedAliases(base.BaseTestCase):
    """One line naming the alias, as Nova refuses to start with it."""

    scenarios = [
        ('not JSON', dict(
            entries=[GPU, '{"name": gpu}'], in_placement=True,
            line='PCI alias #2: not JSON (')),
        ('not an object', dict(
            entries=['["gpu"]'], in_placement=True,
            line='PCI alias #1: not a JSON object')),
        ('no name', dict(
            entries=[_entry(resource_class='CUSTOM_G')], in_placement=True,
            line='PCI alias #1: no name')),
        ('a name too long', dict(
            entries=[_entry(name='g' * 257, resource_class='CUSTOM_G')],
            in_placement=True, line='a name has 1 to 256 characters')),
        ('an unknown field', dict(
            entries=[_entry(name='gpu', device_id='1')], in_placement=True,
            line="PCI alias 'gpu': unknown field 'device_id' (an alias "
                 "has name, ")),
        ('a number', dict(
            entries=['{"name": "gpu", "traits": 1}'], in_placement=True,
            line="PCI alias 'gpu': traits is not a string")),
        ('a vendor ID', dict(
            entries=[_entry(name='gpu', vendor_id='10de0',
                            product_id='2330')], in_placement=True,
            line="PCI alias 'gpu': vendor_id '10de0' is not 4 hexadecimal "
                 "digits")),
        ('a device type', dict(
            entries=[_entry(name='gpu', resource_class='CUSTOM_G',
                            device_type='vdpa')], in_placement=True,
            line="PCI alias 'gpu': device_type 'vdpa' is not one of "
                 "type-PCI, type-PF, type-VF")),
        ('live_migratable', dict(
            entries=[_entry(name='gpu', resource_class='CUSTOM_G',
                            live_migratable='maybe')], in_placement=True,
            line="PCI alias 'gpu': live_migratable 'maybe' is not a "
                 "boolean")),
        ('two NUMA policies', dict(
            entries=[GPU, _entry(name='gpu', vendor_id='10de',
                                 product_id='2331', device_type='type-PF')],
            in_placement=False,
            line="PCI alias 'gpu': two entries of this name with different "
                 "NUMA policies")),
        ('two entries, no device type', dict(
            entries=[NIC, _entry(name='nic', resource_class='CUSTOM_N')],
            in_placement=True,
            line="PCI alias 'nic': two entries of this name without the "
                 "same device_type")),
        ('two entries of a name, in Placement', dict(
            entries=[GPU, NIC, _entry(name='gpu', vendor_id='10de',
                                      product_id='2331',
                                      device_type='type-PF',
                                      numa_policy='required')],
            in_placement=True,
            line="PCI alias 'gpu': several entries of one name")),
        ('neither class nor IDs', dict(
            entries=[_entry(name='b', vendor_id='10de'),
                     _entry(name='a', traits='CUSTOM_X'), GPU],
            in_placement=True,
            line="PCI alias 'a', 'b': neither a resource_class nor a "
                 "vendor_id and a product_id")),
        ('no IDs, not in Placement', dict(
            entries=[NIC], in_placement=False,
            line="PCI alias 'nic': no vendor_id and product_id")),
    ]

    def test_refused(self):
        exc = self.assertRaises(pci.InvalidAlias, pci.aliases, self.entries,
                                in_placement=self.in_placement)
        self.assertIn(self.line, str(exc))
        self.assertNotIn('\n', str(exc))


class TestNames(base.BaseTestCase):
    """The class and traits of an alias's devices, as Nova names them."""

    scenarios = [
        ('ids', dict(spec={'vendor_id': '10de', 'product_id': '23a0'},
                     rclass='CUSTOM_PCI_10DE_23A0')),
        ('standard, small letters', dict(spec={'resource_class': 'vgpu'},
                                         rclass='VGPU')),
        ('custom kept', dict(spec={'resource_class': 'custom_a b'},
                             rclass='CUSTOM_A B')),
        ('any name', dict(spec={'resource_class': 'my-gpu.x'},
                          rclass='CUSTOM_MY_GPU_X')),
        ('empty: the IDs', dict(spec={'resource_class': '',
                                      'vendor_id': '8086',
                                      'product_id': '1520'},
                                rclass='CUSTOM_PCI_8086_1520')),
        ('empty, no IDs', dict(spec={'resource_class': ''},
                               rclass='CUSTOM_PCI_NONE_NONE')),
    ]

    def test_resource_class(self):
        self.assertEqual(self.rclass, pci.resource_class(self.spec))


class TestTraits(base.BaseTestCase):

    def test_standard_only_when_spelled_exactly(self):
        self.assertEqual(
            {'HW_GPU_API_VULKAN', 'CUSTOM_HW_GPU_API_VULKAN', 'CUSTOM_X',
             'CUSTOM_FOO_BAR', 'CUSTOM__SPACED', 'CUSTOM_'},
            pci.traits({'traits': 'HW_GPU_API_VULKAN,hw_gpu_api_vulkan,'
                                  'custom_x,foo-bar, spaced,'}))

    def test_none(self):
        self.assertEqual(set(), pci.traits({}))
        self.assertEqual(set(), pci.traits({'traits': ''}))


class TestWanted(base.BaseTestCase):

    def test_names_and_counts(self):
        self.assertEqual([('gpu', 2), ('nic', 1), ('gpu', 0)],
                         pci.wanted('gpu:2, nic :1 ,gpu:0'))

    def test_refused(self):
        for value in ('', 'gpu', 'gpu:x', 'gpu: 1', 'gpu:1:2', 'nic,gpu:1',
                      'gpu:1,'):
            self.assertRaises(ValueError, pci.wanted, value)


class TestDevices(base.BaseTestCase):
    """The rules' part: a flavor's devices in its request."""

    def translate(self, value, entries=(GPU, NIC), in_placement=True,
                  **specs):
        return flavors.translate(
            flavor(value, **specs), pci_aliases=pci.aliases(
                list(entries), in_placement=in_placement))

    def test_one_group_of_one_per_device_and_group_policy_none(self):
        found = self.translate('gpu:2,nic:1')
        self.assertEqual(
            [('group_policy', 'none'),
             ('resources', 'DISK_GB:20,MEMORY_MB:2048,VCPU:2'),
             ('resources_pci_gpu_1', 'CUSTOM_PCI_10DE_2330:1'),
             ('resources_pci_gpu_2', 'CUSTOM_PCI_10DE_2330:1'),
             ('resources_pci_nic_3', 'SRIOV_NET_VF:1'),
             ('required_pci_nic_3', 'CUSTOM_HW_NIC_SRIOV,CUSTOM_PHYSNET_A'),
             ('root_required', '!COMPUTE_STATUS_DISABLED')],
            found.params)
        self.assertTrue(found.complete)
        self.assertEqual([], found.warnings)
        # Named groups.
        self.assertEqual('1.35', found.microversion)

    def test_owner_nova_on_the_root_and_the_devices(self):
        found = flavors.translate(flavor('gpu:1'), owner_nova=True,
                                  pci_aliases=pci.aliases([GPU]))
        self.assertIn(('required_pci_gpu_1', 'OWNER_NOVA'), found.params)
        self.assertIn(('root_required', 'OWNER_NOVA,!COMPUTE_STATUS_DISABLED'),
                      found.params)

    def test_one_device_needs_no_policy(self):
        found = self.translate('gpu:1')
        self.assertNotIn('group_policy', dict(found.params))

    def test_the_flavors_policy_is_kept(self):
        found = self.translate('gpu:2', group_policy='isolate')
        self.assertEqual(('group_policy', 'isolate'), found.params[0])

    def test_two_groups_of_the_flavor_get_no_policy(self):
        # Nova leaves such a flavor as it is: Placement refuses it.
        found = self.translate('gpu:1', **{'resources1:VGPU': '1',
                                           'resources2:VGPU': '-1'})
        self.assertNotIn('group_policy', dict(found.params))

    def test_one_group_of_the_flavor_gets_none(self):
        found = self.translate('gpu:1', **{'resources1:VGPU': '1'})
        self.assertEqual(('group_policy', 'none'), found.params[0])

    def test_a_suffix_of_the_flavor_is_not_taken(self):
        found = self.translate('gpu:1', group_policy='none',
                               **{'resources_pci_gpu_1:VGPU': '1',
                                  'resources_pci1_gpu_1:VGPU': '1'})
        self.assertIn(('resources_pci2_gpu_1', 'CUSTOM_PCI_10DE_2330:1'),
                      found.params)
        self.assertIn(('resources_pci_gpu_1', 'VGPU:1'), found.params)
        self.assertIn(('resources_pci1_gpu_1', 'VGPU:1'), found.params)

    def test_a_suffix_of_any_alias_name(self):
        entry = json.dumps({'name': 'a b/' + 'c' * 80,
                            'resource_class': 'CUSTOM_C'})
        found = self.translate('a b/%s:1' % ('c' * 80), entries=[entry])
        suffixes = [key[len('resources'):] for key, _ in found.params
                    if key.startswith('resources_')]
        self.assertEqual(1, len(suffixes))
        self.assertEqual(64, len(suffixes[0]))
        self.assertTrue(suffixes[0].startswith('_pci_a_b_ccc'))
        self.assertTrue(suffixes[0].endswith('_1'))

    def test_an_alias_class_takes_the_base_amount(self):
        found = self.translate('v:1', entries=[json.dumps(
            {'name': 'v', 'resource_class': 'VCPU'})])
        self.assertIn(('resources', 'DISK_GB:20,MEMORY_MB:2048'),
                      found.params)

    def test_not_in_placement_is_a_bound(self):
        entries = [json.dumps({'name': 'gpu', 'vendor_id': '10de',
                               'product_id': '2330'})]
        found = self.translate('gpu:1', entries=entries, in_placement=False)
        self.assertFalse(found.complete)
        self.assertEqual(['pci_passthrough:alias'], found.untranslated)
        self.assertEqual(1, len(found.warnings))
        self.assertNotIn('resources_pci_gpu_1', dict(found.params))

    def test_without_aliases_a_bound_in_one_line(self):
        found = flavors.translate(flavor('gpu:1'))
        self.assertFalse(found.complete)
        self.assertEqual(1, len(found.warnings))
        self.assertIn('pci_passthrough:alias=gpu:1', found.warnings[0])
        self.assertIn('incomplete', found.warnings[0])

    def test_an_alias_not_defined(self):
        exc = self.assertRaises(flavors.Refused, self.translate,
                                'gpu:1,tpu:2')
        self.assertEqual(
            "Flavor m1: extra spec pci_passthrough:alias=gpu:1,tpu:2: no "
            "PCI alias is named 'tpu'; Nova refuses it.", str(exc))

    def test_a_value_nova_refuses(self):
        exc = self.assertRaises(flavors.Refused, flavors.translate,
                                flavor('gpu:x'))
        self.assertIn('not <alias>:<count>', str(exc))

    def test_count_zero_is_no_device(self):
        found = self.translate('gpu:0')
        self.assertEqual(
            [('resources', 'DISK_GB:20,MEMORY_MB:2048,VCPU:2'),
             ('root_required', '!COMPUTE_STATUS_DISABLED')], found.params)
