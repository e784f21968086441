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


"""The capacity page's "How many more GPU servers fit" (a Nova scenario).

``--flavor`` reads the flavor from the compute API through Keystone's
catalog: this scenario runs behind a real Keystone, Placement and Nova
API (``stack.NovaCloud``), on a cloud of its own instead of the sample
cloud: GPU_TREES, a compute root each with pGPU children that have VGPU
inventory, some of it used, and GPU_FLAVOR, two vGPUs on two different
pGPUs.
"""

from osc_placement.tests.support import cloud

from doc_examples import recorder

# (root name, [(VGPU total, VGPU used) of each pGPU child]).
GPU_TREES = (
    ('gpu-1', [(4, 0), (4, 0)]),
    ('gpu-2', [(4, 3), (4, 0)]),
    ('gpu-3', [(8, 2)]),
    ('cpu-1', []),
)
GPU_FLAVOR = {
    'id': 'gpu-flavor-1', 'name': 'g1.2vgpu', 'vcpus': 4, 'ram': 8192,
    'disk': 40}
GPU_SPECS = {'resources1:VGPU': '1', 'resources2:VGPU': '1',
             'group_policy': 'isolate'}


def _uuid(tree, child):
    return '99999999-9999-4999-8999-%06d%06d' % (tree, child)


def _inventory(total):
    return {'total': total, 'reserved': 0, 'min_unit': 1, 'max_unit': total,
            'step_size': 1, 'allocation_ratio': 1.0}


def seed(box):
    """The GPU trees, their usage, and the flavor in Nova."""
    endpoint, token = box.placement.endpoint, box.token
    for tree, (name, pgpus) in enumerate(GPU_TREES):
        root = _uuid(tree, 0)
        cloud.create_provider(
            endpoint, name, root, None,
            {'VCPU': _inventory(32), 'MEMORY_MB': _inventory(131072),
             'DISK_GB': _inventory(1000)}, [], [], token=token)
        for child, (total, used) in enumerate(pgpus, start=1):
            uuid = _uuid(tree, child)
            cloud.create_provider(endpoint, '%s-pgpu%d' % (name, child - 1),
                                  uuid, root, {'VGPU': _inventory(total)},
                                  [], [], token=token)
            if used:
                cloud.api(endpoint, 'PUT', '/allocations/%s' % _uuid(
                    90 + tree, child), {
                        'allocations': {uuid: {'resources': {'VGPU': used}}},
                        'project_id': cloud.PROJECT,
                        'user_id': cloud.USER,
                        'consumer_generation': None,
                        'consumer_type': 'INSTANCE'}, token=token)
    box.compute('POST', '/flavors', {'flavor': dict(GPU_FLAVOR)})
    box.compute('POST', '/flavors/%s/os-extra_specs' % GPU_FLAVOR['id'],
                {'extra_specs': dict(GPU_SPECS)})


def gpu_fit(ex):
    seed(ex.box)
    ex.file('capacity-gpu')
    ex.run('flavor', 'show', GPU_FLAVOR['name'], '-c', 'name', '-c',
           'vcpus', '-c', 'ram', '-c', 'disk', '-c', 'properties')
    rows = {row[1]: row for row in recorder.table_rows(ex.run(
        'resource', 'provider', 'capacity', 'fit', '--flavor',
        GPU_FLAVOR['name']))}
    recorder.claim(rows.get('gpu-1', [''] * 3)[2] == '4',
                   'gpu-1 takes 4 more (two pGPUs of 4 free vGPUs each)')
    recorder.claim(rows.get('gpu-2', [''] * 3)[2] == '1',
                   'gpu-2 takes 1 more (one pGPU has 1 vGPU free)')
    recorder.claim(rows.get('gpu-3', [''] * 3)[2] == '0',
                   'gpu-3 takes none (one pGPU: isolate needs two)')
    ex.run('resource', 'provider', 'capacity', 'fit', '--flavor',
           GPU_FLAVOR['name'], '--summary')
