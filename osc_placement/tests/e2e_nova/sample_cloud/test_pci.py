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

"""A flavor of PCI devices, made in a real Nova, asked of a real Placement.

The sample cloud's compute-1 has two SR-IOV PFs (``SRIOV_NET_VF``, traits
``CUSTOM_PHYSNET1`` and ``HW_NIC_SRIOV``), compute-2 none. The flavor
``m1.vf`` asks for two VFs through Nova's ``pci_passthrough:alias``
(which Nova's flavor API checks), the alias given with ``--pci-alias``.
"""

import json

from osc_placement.tests.e2e_nova import base
from osc_placement.tests.support import cloud

VF = json.dumps({'name': 'vf', 'resource_class': 'sriov_net_vf',
                 'traits': 'physnet1,HW_NIC_SRIOV', 'device_type': 'type-VF'})
PFS = (cloud.COMPUTE1_PF0, cloud.COMPUTE1_PF1)
VERSION = ('--os-placement-api-version', '1.39')


class TestPciAlias(base.NovaCloudTestCase):

    def flavor(self):
        cls = type(self)
        if not getattr(cls, '_flavor', None):
            cls._flavor = self.ok(
                'flavor', 'create', '--vcpus', '1', '--ram', '512', '--disk',
                '1', '--property', 'pci_passthrough:alias=vf:2', 'm1.vf',
                '-f', 'json')
        return cls._flavor['name']

    def test_candidates_two_vfs_of_one_pf_or_two(self):
        rows = self.ok(*VERSION, 'allocation', 'candidate', 'list',
                       '--flavor', self.flavor(), '--pci-alias', VF, '-f',
                       'json')
        vfs = {}
        for row in rows:
            if row['resource provider'] in PFS:
                vfs.setdefault(row['#'], []).append(
                    (row['resource provider'], row['allocation']))
        self.assertEqual(
            {((PFS[0], 'SRIOV_NET_VF=2'),), ((PFS[1], 'SRIOV_NET_VF=2'),),
             ((PFS[0], 'SRIOV_NET_VF=1'), (PFS[1], 'SRIOV_NET_VF=1'))},
            {tuple(sorted(held)) for held in vfs.values()})
        # Every candidate is in compute-1's tree.
        self.assertEqual(set(vfs), {row['#'] for row in rows})

    def test_fit_leaves_out_the_tree_without_vfs(self):
        rows = self.ok(*VERSION, 'resource', 'provider', 'capacity', 'fit',
                       '--flavor', self.flavor(), '--pci-alias', VF, '-f',
                       'json')
        found = {row['name']: row for row in rows}
        self.assertEqual(
            (0, 'group _pci_vf_1: no provider in the tree has SRIOV_NET_VF'),
            (found['compute-2']['fits'], found['compute-2']['limited_by']))
        self.assertNotEqual(0, found['compute-1']['fits'])

    def test_without_the_alias_one_line(self):
        res = self.openstack(*VERSION, 'resource', 'provider', 'capacity',
                             'fit', '--flavor', self.flavor(), '-f', 'json')
        self.assertEqual(0, res.returncode, res.stderr)
        self.assertEqual(1, len(res.stderr.splitlines()), res.stderr)
        self.assertIn('pci_passthrough:alias=vf:2', res.stderr)
        rows = {row['name']: row for row in json.loads(res.stdout)}
        self.assertTrue(rows['compute-2']['limited_by'].endswith(
            '(upper bound)'), rows['compute-2'])
