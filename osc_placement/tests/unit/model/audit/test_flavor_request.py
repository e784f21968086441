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

"""osc_placement.model.audit.flavor_request: a server's flavor, merged."""

from oslotest import base

from osc_placement.model.audit import flavor_request
from osc_placement.tests.unit.model.audit import test_rules as t


def requested(specs, **more):
    return flavor_request.requested(t.server(flavor=dict(
        t.FLAVOR, extra_specs=specs)), **more)


class TestRequested(base.BaseTestCase):

    def test_base_amounts(self):
        self.assertEqual((t.SMALL, None), requested({}))

    def test_pinned_cpus(self):
        self.assertEqual(({'PCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 10},
                          None), requested({'hw:cpu_policy': 'dedicated'}))

    def test_resource_override(self):
        self.assertEqual(dict(t.SMALL, VCPU=4),
                         requested({'resources:VCPU': '4'})[0])

    def test_vgpu_needs_nested(self):
        amounts, why = requested({'resources:VGPU': '1'})
        self.assertEqual(1, amounts['VGPU'])
        self.assertIn('VGPU', why)

    def test_granular_group_needs_nested(self):
        _amounts, why = requested({'resources1:CUSTOM_X': '1'})
        self.assertIn('granular', why)

    def test_pci_alias_needs_nested(self):
        self.assertIn('pci_passthrough:alias',
                      requested({'pci_passthrough:alias': 'a:1'})[1])

    def test_nested_allowed_for_a_comparison(self):
        self.assertIsNone(requested({'resources:VGPU': '1'},
                                    nested=True)[1])

    def test_a_flavor_nova_refuses(self):
        amounts, why = requested({'hw:cpu_policy': 'bogus'})
        self.assertIsNone(amounts)
        self.assertIn('cannot be translated', why)

    def test_no_flavor(self):
        self.assertEqual((None, 'the compute API gave no flavor for it'),
                         flavor_request.requested(t.server(flavor=None)))
