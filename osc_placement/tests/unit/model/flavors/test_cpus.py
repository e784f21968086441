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

"""CPU pinning (``model/flavors/cpus.py``): PCPU, VCPU and the thread trait.

Through ``translate()``, which runs the rules: a pinned flavor's vCPUs
become ``PCPU`` (those of the mask for ``mixed``, one more for isolated
emulator threads), a thread policy asks for or forbids the
hyperthreading trait, and the specs Nova's checks refuse are one line.
"""

from osc_lib import exceptions
from oslotest import base
import testscenarios

from osc_placement.model import flavors

load_tests = testscenarios.load_tests_apply_scenarios


def flavor(vcpus=2, **specs):
    return {'name': 'm1', 'vcpus': vcpus, 'ram': 2048, 'disk': 20,
            'ephemeral': 0, 'swap': 0, 'extra_specs': specs}


def params(found):
    return flavors.translate(found).params


class TestPinned(base.BaseTestCase):

    def test_dedicated_cpus_become_pcpu(self):
        self.assertEqual(
            'DISK_GB:20,MEMORY_MB:2048,PCPU:3',
            params(flavor(**{
                'hw:cpu_policy': 'dedicated',
                'hw:emulator_threads_policy': 'isolate'}))[0][1])

    def test_mixed_cpus_split_by_the_mask(self):
        found = params(flavor(vcpus=4, **{
            'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '^0',
            'hw:cpu_thread_policy': 'isolate'}))
        self.assertEqual('DISK_GB:20,MEMORY_MB:2048,PCPU:3,VCPU:1',
                         found[0][1])
        self.assertEqual(('required', '!HW_CPU_HYPERTHREADING'), found[1])

    def test_mixed_cpus_split_by_the_realtime_mask(self):
        self.assertEqual(
            'DISK_GB:20,MEMORY_MB:2048,PCPU:2,VCPU:2',
            params(flavor(vcpus=4, **{
                'hw:cpu_policy': 'mixed', 'hw:cpu_realtime': 'yes',
                'hw:cpu_realtime_mask': '^0-1'}))[0][1])

    def test_require_asks_for_hyperthreading(self):
        self.assertEqual(
            [('resources', 'DISK_GB:20,MEMORY_MB:2048,PCPU:2'),
             ('required', 'HW_CPU_HYPERTHREADING'),
             ('root_required', '!COMPUTE_STATUS_DISABLED')],
            params(flavor(**{'hw:cpu_policy': 'dedicated',
                             'hw:cpu_thread_policy': 'require'})))


class TestRefused(base.BaseTestCase):
    """CPU specs Nova refuses: one line naming the spec and why."""

    scenarios = [
        ('policy with resources:VCPU', dict(
            specs={'hw:cpu_policy': 'dedicated', 'resources:VCPU': '2'},
            message='cannot be combined with a resources:VCPU')),
        ('mixed without a mask', dict(
            specs={'hw:cpu_policy': 'mixed'},
            message='mixed needs hw:cpu_dedicated_mask')),
        ('mixed with every CPU dedicated', dict(
            vcpus=4,
            specs={'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '0-3'},
            message='hw:cpu_dedicated_mask=0-3: a mixed server needs both '
                    'dedicated and shared CPUs')),
        ('not a mask', dict(
            specs={'hw:cpu_policy': 'dedicated',
                   'hw:cpu_dedicated_mask': 'x'},
            message='hw:cpu_dedicated_mask=x: not a CPU mask')),
        ('thread policy without pinning', dict(
            specs={'hw:cpu_thread_policy': 'require'},
            message='a CPU thread policy needs hw:cpu_policy=dedicated')),
        ('PCPU not the vCPUs', dict(
            specs={'resources:PCPU': '3'},
            message="it must be the flavor's vCPUs (2)")),
    ]

    def test_one_line_naming_the_spec(self):
        exc = self.assertRaises(
            exceptions.CommandError, flavors.translate,
            flavor(getattr(self, 'vcpus', 2), **self.specs))
        self.assertIn(self.message, str(exc))
        self.assertTrue(str(exc).startswith('Flavor m1: extra spec '))
        self.assertTrue(str(exc).endswith('; Nova refuses it.'))
        self.assertNotIn('\n', str(exc))
