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

"""The standard traits of Nova 34: ``model/flavors/traits.py``.

``tests/nova/test_pci_oracle.py`` holds the table against os-traits as
Nova has it; these tests run without it.
"""

from oslotest import base

from osc_placement.model.flavors import traits


class TestStandard(base.BaseTestCase):

    def test_names_as_written(self):
        for name in ('HW_GPU_API_VULKAN', 'OWNER_NOVA',
                     'COMPUTE_STATUS_DISABLED', 'HW_NIC_SRIOV'):
            self.assertIn(name, traits.STANDARD)
        self.assertNotIn('hw_gpu_api_vulkan', traits.STANDARD)
        self.assertNotIn('CUSTOM_X', traits.STANDARD)

    def test_every_name_is_a_trait_name(self):
        for name in traits.STANDARD:
            self.assertRegex(name, '^[A-Z][A-Z0-9_]*$')
