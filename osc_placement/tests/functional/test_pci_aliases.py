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

"""``--flavor`` with ``--pci-alias``, against a real Placement.

Nova does not run here (``tests/e2e_nova`` has a real one): the flavor is
read from a compute API on requests-mock, through the openstacksdk
connection OpenStackClient would hold; every other request goes to the
real Placement. The cloud: ``gpu-host`` has its A100s on a child provider
(a PF with ``CUSTOM_PCI_10DE_2330: 4`` and ``CUSTOM_NVLINK``),
``cpu-host`` none.
"""

import json


from osc_placement import tests
from osc_placement.tests import cli
from osc_placement.tests.functional import base

GPU_HOST = '33333333-3333-4333-8333-000000000001'
GPU_PF = '33333333-3333-4333-8333-000000000002'
CPU_HOST = '33333333-3333-4333-8333-000000000003'
NOVA = 'http://nova.test/v2.1'
PCI_CLASS = 'CUSTOM_PCI_10DE_2330'
FLAVOR = {'id': 'f-gpu', 'name': 'gpu.2', 'vcpus': 2, 'ram': 2048,
          'disk': 10, 'swap': 0, 'OS-FLV-EXT-DATA:ephemeral': 0,
          'os-flavor-access:is_public': True,
          'extra_specs': {'pci_passthrough:alias': 'a100:2'}}
# Nova's [pci] alias: device_type and numa_policy are for the compute.
A100 = json.dumps({'name': 'a100', 'vendor_id': '10de', 'product_id': '2330',
                   'traits': 'nvlink', 'device_type': 'type-PF',
                   'numa_policy': 'required'})
FIT = ('resource', 'provider', 'capacity', 'fit', '--flavor', 'gpu.2')
CANDIDATES = ('allocation', 'candidate', 'list', '--flavor', 'gpu.2')


class TestPciAliases(base.TestCase):

    def setUp(self):
        super().setUp()
        self.api('PUT', '/resource_classes/' + PCI_CLASS)
        tests.create_provider(self, GPU_HOST, 'gpu-host', inventories={
            'VCPU': 16, 'MEMORY_MB': 32768, 'DISK_GB': 200})
        tests.create_provider(self, GPU_PF, 'gpu-host_pf0', parent=GPU_HOST,
                              inventories={PCI_CLASS: 4},
                              traits=['CUSTOM_NVLINK'])
        tests.create_provider(self, CPU_HOST, 'cpu-host', inventories={
            'VCPU': 16, 'MEMORY_MB': 32768, 'DISK_GB': 200})
        cli.flavors_at(cli.mock_compute(self, NOVA), NOVA, FLAVOR)
        self.sent = []
        self.before_request(
            lambda method, url, kwargs: self.sent.append(
                list(kwargs.get('params') or ())),
            method='GET', url='/allocation_candidates')

    def test_candidate_list_sends_a_group_per_device(self):
        rows = self.ok(*CANDIDATES, '--pci-alias', A100, '-f', 'json',
                       version='1.39')
        self.assertEqual(
            [[('group_policy', 'none'),
              ('resources', 'DISK_GB:10,MEMORY_MB:2048,VCPU:2'),
              ('resources_pci_a100_1', PCI_CLASS + ':1'),
              ('required_pci_a100_1', 'CUSTOM_NVLINK'),
              ('resources_pci_a100_2', PCI_CLASS + ':1'),
              ('required_pci_a100_2', 'CUSTOM_NVLINK'),
              ('root_required', '!COMPUTE_STATUS_DISABLED')]],
            self.sent)
        # One candidate: the host's resources, two A100s of its PF.
        self.assertEqual(
            {(GPU_HOST, 'VCPU=2,MEMORY_MB=2048,DISK_GB=10'),
             (GPU_PF, PCI_CLASS + '=2')},
            {(row['resource provider'], row['allocation']) for row in rows})

    def test_capacity_fit_counts_the_tree_of_the_devices(self):
        rows = self.ok(*FIT, '--pci-alias', A100, '-f', 'json',
                       version='1.39')
        found = {row['resource_provider']: row for row in rows}
        self.assertEqual(
            (0, 'group _pci_a100_1: no provider in the tree has ' +
             PCI_CLASS),
            (found[CPU_HOST]['fits'], found[CPU_HOST]['limited_by']))
        gpu = found[GPU_HOST]
        # The PF's 4 devices, 2 to a server (VCPU would take 8): exactly 2.
        self.assertEqual((2, 2), (gpu['fits'], gpu['at_most']))
        self.assertEqual(
            [('group_policy', 'none'),
             ('resources', 'DISK_GB:10,MEMORY_MB:2048,VCPU:2'),
             ('resources_pci_a100_1', PCI_CLASS + ':1'),
             ('required_pci_a100_1', 'CUSTOM_NVLINK'),
             ('resources_pci_a100_2', PCI_CLASS + ':1'),
             ('required_pci_a100_2', 'CUSTOM_NVLINK'),
             ('root_required', '!COMPUTE_STATUS_DISABLED')],
            [pair for pair in self.sent[0] if pair[0] != 'limit'])

    def test_owner_nova_on_the_root_and_the_devices(self):
        self.ok(*CANDIDATES, '--pci-alias', A100, '--owner-nova',
                version='1.39')
        sent = dict(self.sent[0])
        self.assertEqual('CUSTOM_NVLINK,OWNER_NOVA',
                         sent['required_pci_a100_1'])
        self.assertEqual('CUSTOM_NVLINK,OWNER_NOVA',
                         sent['required_pci_a100_2'])
        self.assertEqual('OWNER_NOVA,!COMPUTE_STATUS_DISABLED',
                         sent['root_required'])

    def test_without_the_alias_one_line_and_bounds(self):
        out, err, code = self.openstack(*FIT, '-f', 'json', version='1.39')
        self.assertEqual(0, code, err)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertIn('pci_passthrough:alias=a100:2', err)
        rows = {row['resource_provider']: row for row in json.loads(out)}
        # The devices are left out: both trees are counted, as bounds.
        for root in (GPU_HOST, CPU_HOST):
            self.assertEqual(8, rows[root]['fits'])
            self.assertTrue(rows[root]['limited_by'].endswith(
                '(upper bound)'), rows[root])
        self.assertEqual([[('resources', 'DISK_GB:10,MEMORY_MB:2048,VCPU:2'),
                           ('root_required', '!COMPUTE_STATUS_DISABLED')]],
                         self.sent[:1])

    def test_an_alias_nova_refuses_sends_nothing(self):
        err, code = self.fails(*FIT, '--pci-alias', A100, '--pci-alias',
                               json.dumps({'name': 'x'}), version='1.39')
        self.assertEqual(
            ["--pci-alias: PCI alias 'x': neither a resource_class nor a "
             "vendor_id and a product_id, which Nova refuses with "
             "[filter_scheduler] pci_in_placement"], err.splitlines())
        self.assertEqual(1, code)
        self.assertEqual([], self.sent)
