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

"""A flavor as the request Nova's scheduler sends: ``model/flavors/rules.py``.

The rules, run by ``translate()``. The figures here are Nova's (the
nova-oracle environment holds the package against nova's own code on
many more flavors); these tests run without nova.
"""

from osc_lib import exceptions
from oslotest import base
import testscenarios

from osc_placement.model import flavors
from osc_placement.model.flavors import rules

load_tests = testscenarios.load_tests_apply_scenarios

AGG1 = '00000000-0000-0000-0000-000000000001'
AGG2 = '00000000-0000-0000-0000-000000000002'


def flavor(vcpus=2, ram=2048, disk=20, ephemeral=0, swap=0, **specs):
    return {'name': 'm1', 'vcpus': vcpus, 'ram': ram, 'disk': disk,
            'ephemeral': ephemeral, 'swap': swap, 'extra_specs': specs}


class TestTranslate(base.BaseTestCase):

    def params(self, flavor, **options):
        return flavors.translate(flavor, **options).params

    def test_base_classes_and_disabled_computes(self):
        found = flavors.translate(flavor())
        self.assertEqual(
            [('resources', 'DISK_GB:20,MEMORY_MB:2048,VCPU:2'),
             ('root_required', '!COMPUTE_STATUS_DISABLED')], found.params)
        self.assertEqual('1.35', found.microversion)
        self.assertEqual([], found.warnings)
        self.assertTrue(found.complete)

    def test_include_disabled_needs_no_root_required(self):
        found = flavors.translate(flavor(), include_disabled=True)
        self.assertEqual(
            [('resources', 'DISK_GB:20,MEMORY_MB:2048,VCPU:2')],
            found.params)
        self.assertEqual('1.10', found.microversion)

    def test_swap_rounded_up_and_ephemeral_added(self):
        self.assertEqual(
            'DISK_GB:25,MEMORY_MB:2048,VCPU:2',
            self.params(flavor(ephemeral=3, swap=1025))[0][1])

    def test_boot_from_volume_leaves_the_root_disk_out(self):
        self.assertEqual(
            'DISK_GB:1,MEMORY_MB:2048,VCPU:2',
            self.params(flavor(swap=512), boot_from_volume=True)[0][1])
        self.assertEqual(
            'MEMORY_MB:2048,VCPU:2',
            self.params(flavor(), boot_from_volume=True)[0][1])

    def test_resources_replace_add_and_zero_drops(self):
        self.assertEqual(
            'MEMORY_MB:2048,VCPU:8,VGPU:1',
            self.params(flavor(**{'resources:VCPU': '8',
                                  'resources:VGPU': '1',
                                  'resources:DISK_GB': '0'}))[0][1])

    def test_a_class_of_a_group_replaces_the_base_one(self):
        found = flavors.translate(flavor(**{
            'resources1:VCPU': '1', 'resources2:VCPU': '1',
            'group_policy': 'isolate'}))
        self.assertEqual(
            [('group_policy', 'isolate'),
             ('resources', 'DISK_GB:20,MEMORY_MB:2048'),
             ('resources1', 'VCPU:1'), ('resources2', 'VCPU:1'),
             ('root_required', '!COMPUTE_STATUS_DISABLED')], found.params)
        self.assertIn(('request group 1', '1.25'), found.needs)

    def test_group_policy_needs_1_25_even_alone(self):
        found = flavors.translate(flavor(group_policy='none'),
                                  include_disabled=True)
        self.assertEqual(('group_policy', 'none'), found.params[0])
        self.assertEqual('1.25', found.microversion)

    def test_named_group_needs_1_33(self):
        found = flavors.translate(flavor(**{
            'resources_gpu:VGPU': '1', 'trait_gpu:CUSTOM_A': 'required',
            'trait_gpu:CUSTOM_B': 'forbidden'}), include_disabled=True)
        self.assertIn(('resources_gpu', 'VGPU:1'), found.params)
        self.assertIn(('required_gpu', 'CUSTOM_A,!CUSTOM_B'), found.params)
        self.assertEqual('1.33', found.microversion)

    def test_traits_of_the_hardware_specs(self):
        found = flavors.translate(flavor(**{
            'hw:mem_encryption': 'true', 'hw:tpm_version': '2.0',
            'hw:tpm_model': 'tpm-crb', 'os:secure_boot': 'required',
            'hw:pci_numa_affinity_policy': 'socket',
            'hw:maxphysaddr_mode': 'passthrough', 'hw:pmem': '4GB,4GB',
            'hw:sound_model': 'virtio'}))
        self.assertEqual(
            [('resources', 'CUSTOM_PMEM_NAMESPACE_4GB:2,DISK_GB:20,'
                           'MEMORY_MB:2048,MEM_ENCRYPTION_CONTEXT:1,VCPU:2'),
             ('required', 'COMPUTE_ADDRESS_SPACE_PASSTHROUGH,'
                          'COMPUTE_SECURITY_TPM_2_0,'
                          'COMPUTE_SECURITY_TPM_CRB,'
                          'COMPUTE_SECURITY_UEFI_SECURE_BOOT,'
                          'COMPUTE_SOCKET_PCI_NUMA_AFFINITY,'
                          'HW_CPU_X86_AMD_SEV'),
             ('root_required', 'COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER,'
                               'COMPUTE_SOUND_MODEL_VIRTIO,'
                               '!COMPUTE_STATUS_DISABLED')],
            found.params)
        self.assertEqual(1, len(found.warnings))
        self.assertIn('hw_firmware_type=uefi', found.warnings[0])

    def test_zone_and_the_users_options_join_the_unnamed_group(self):
        found = flavors.translate(
            flavor(**{'trait:CUSTOM_A': 'required'}),
            aggregates=[AGG2, AGG1], required=['CUSTOM_B', 'X,Y'],
            forbidden=['CUSTOM_C'], member_of=['!' + AGG1],
            in_tree=AGG2, root_required=['CUSTOM_R', '!CUSTOM_S'])
        self.assertEqual(
            [('resources', 'DISK_GB:20,MEMORY_MB:2048,VCPU:2'),
             ('required', 'in:X,Y'),
             ('required', 'CUSTOM_A,CUSTOM_B,!CUSTOM_C'),
             ('member_of', 'in:%s,%s' % (AGG1, AGG2)),
             ('member_of', '!' + AGG1),
             ('in_tree', AGG2),
             ('root_required',
              'CUSTOM_R,!COMPUTE_STATUS_DISABLED,!CUSTOM_S')],
            found.params)
        self.assertEqual('1.39', found.microversion)

    def test_untranslated_specs_are_named(self):
        found = flavors.translate(flavor(**{
            'accel:device_profile': 'dp1', 'pci_passthrough:alias': 'a:1'}))
        self.assertFalse(found.complete)
        self.assertEqual(['accel:device_profile', 'pci_passthrough:alias'],
                         sorted(found.untranslated))
        self.assertIn(('root_required',
                       'COMPUTE_ACCELERATORS,!COMPUTE_STATUS_DISABLED'),
                      found.params)
        for line in found.warnings:
            self.assertIn('incomplete', line)

    def test_requests_placement_refuses_are_warned_of(self):
        found = flavors.translate(flavor(**{
            'resources1:VGPU': '1', 'trait2:CUSTOM_X': 'required'}))
        self.assertIn(('resources2', ''), found.params)
        self.assertEqual(2, len(found.warnings))
        self.assertIn('no group_policy', found.warnings[0])
        self.assertIn('group 2 has traits but no resources',
                      found.warnings[1])

    def test_negative_amount_ignored_with_a_warning(self):
        found = flavors.translate(flavor(**{'resources:VCPU': '-1'}))
        self.assertIn('VCPU:2', found.params[0][1])
        self.assertIn('negative', found.warnings[0])


class TestModule(base.BaseTestCase):

    def test_control_characters_shown_escaped(self):
        exc = self.assertRaises(
            exceptions.CommandError, flavors.translate,
            dict(flavor(**{'hw:cpu_policy': 'x\x1b[31m'}), name='m\n1'))
        self.assertTrue(str(exc).startswith(
            'Flavor m\\n1: extra spec hw:cpu_policy=x\\x1b[31m: '),
            str(exc))

    def test_every_rule_says_what_it_adds_and_why(self):
        self.assertEqual(len(rules.RULES), len(set(rules.RULES)))
        for rule in rules.RULES:
            doc = rule.__doc__ or ''
            # A summary line, then a paragraph at least.
            self.assertGreaterEqual(len(doc.strip().splitlines()), 3,
                                    rule.__name__)


class TestSkipped(base.BaseTestCase):
    """Specs Nova's flavor API refuses and its scheduler reads anyway.

    The request is the scheduler's (the spec skipped, or a CUSTOM_ class
    asked for as written), and one warning names the flavor and the spec.
    """

    scenarios = [
        ('amount not an integer', dict(
            specs={'resources:VCPU': 'x'},
            message='resources:VCPU=x: the amount is not an integer',
            resources='DISK_GB:20,MEMORY_MB:2048,VCPU:2')),
        ('unknown class', dict(
            specs={'resources:FOO': '1'},
            message='resources:FOO=1: FOO is neither a standard',
            resources='DISK_GB:20,MEMORY_MB:2048,VCPU:2')),
        ('trait value', dict(
            specs={'trait:CUSTOM_X': 'maybe'},
            message='a trait is "required" or "forbidden"',
            resources='DISK_GB:20,MEMORY_MB:2048,VCPU:2')),
        ('group policy', dict(
            specs={'group_policy': 'any'},
            message='group_policy=any: not one of none, isolate',
            resources='DISK_GB:20,MEMORY_MB:2048,VCPU:2')),
        ('custom class in lower case', dict(
            specs={'resources:CUSTOM_gold': '1'},
            message='resources:CUSTOM_gold=1: CUSTOM_gold is not CUSTOM_ '
                    'followed by A-Z, 0-9 or _; Nova\'s flavor API refuses '
                    'it (compute 2.86 and later), its scheduler asks for it '
                    'as written',
            resources='CUSTOM_gold:1,DISK_GB:20,MEMORY_MB:2048,VCPU:2')),
    ]

    def test_asked_as_the_scheduler_asks_with_a_warning(self):
        found = flavors.translate(flavor(**self.specs))
        self.assertEqual(('resources', self.resources), found.params[0])
        self.assertEqual(1, len(found.warnings), found.warnings)
        self.assertIn(self.message, found.warnings[0])
        self.assertTrue(found.warnings[0].startswith('Flavor m1: extra spec '))
        self.assertIn("Nova's flavor API refuses it", found.warnings[0])
        self.assertNotIn('\n', found.warnings[0])

    def test_a_hyperthreading_trait_skipped_asks_for_no_thread_policy(self):
        found = flavors.translate(flavor(**{
            'trait:HW_CPU_HYPERTHREADING': 'maybe'}))
        self.assertNotIn('HW_CPU_HYPERTHREADING', str(found.params))
        self.assertIn('its scheduler skips it', found.warnings[0])

    def test_with_a_thread_policy_it_is_still_refused(self):
        exc = self.assertRaises(exceptions.CommandError, flavors.translate,
                                flavor(**{
                                    'trait:HW_CPU_HYPERTHREADING': 'maybe',
                                    'hw:cpu_policy': 'dedicated',
                                    'hw:cpu_thread_policy': 'prefer'}))
        self.assertIn('cannot be combined with trait:HW_CPU_HYPERTHREADING',
                      str(exc))


class TestRefused(base.BaseTestCase):
    """Specs Nova refuses: one line naming the spec and why."""

    scenarios = [
        ('policy sometimes', dict(
            specs={'hw:cpu_policy': 'sometimes'},
            message='hw:cpu_policy=sometimes: not one of dedicated, shared, '
                    'mixed')),
        ('CRB with TPM 1.2', dict(
            specs={'hw:tpm_version': '1.2', 'hw:tpm_model': 'tpm-crb'},
            message='tpm-crb needs hw:tpm_version=2.0')),
        ('not a boolean', dict(
            specs={'hw:mem_encryption': 'perhaps'},
            message='not a boolean')),
    ]

    def test_one_line_naming_the_spec(self):
        exc = self.assertRaises(exceptions.CommandError,
                                flavors.translate, flavor(**self.specs))
        self.assertIn(self.message, str(exc))
        self.assertTrue(str(exc).startswith('Flavor m1: extra spec '))
        self.assertTrue(str(exc).endswith('; Nova refuses it.'))
        self.assertNotIn('\n', str(exc))
