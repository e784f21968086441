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


"""The scenarios of providers: microversions, reads, inventories."""

import osc_placement.microversions
from osc_placement.tests.support import cloud

from doc_examples import recorder

COMPUTE3 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000003'


def microversions(ex):
    ex.file('microversion-unsupported')
    # A version past those Placement serves: what the reader typed.
    ex.run('--os-placement-api-version', '1.40', 'resource', 'provider',
           'list', expect=1)

    ex.file('microversion-columns')
    ex.run('--os-placement-api-version', osc_placement.microversions.BASE,
           'resource', 'provider', 'list', '--name', 'compute-2')
    ex.run('resource', 'provider', 'list', '--name', 'compute-2')

    ex.file('microversion-gate')
    ex.run('--os-placement-api-version',
           osc_placement.microversions.RESHAPER, 'allocation', 'candidate',
           'list', '--resource', 'VCPU=2', '--in-tree', 'compute-1',
           expect=1)
    # Not pinned: --in-tree, which the upstream plugin never had, gets
    # the microversion it needs.
    ex.run('allocation', 'candidate', 'list', '--resource', 'VCPU=2',
           '--in-tree', 'compute-1')


def providers(ex):
    ex.file('providers-list')
    ex.run('resource', 'provider', 'list')

    ex.file('providers-filter')
    ex.run('resource', 'provider', 'list', '--resource', 'VCPU=4',
           '--resource', 'MEMORY_MB=4096')
    ex.run('resource', 'provider', 'list', '--in-tree', 'compute-1',
           '--required', 'HW_NIC_SRIOV')
    ex.run('resource', 'provider', 'list', '--member-of', cloud.AGGREGATE)

    ex.file('providers-show')
    ex.run('resource', 'provider', 'show', 'compute-2')
    ex.run('resource', 'provider', 'list', '--name', 'compute-2',
           '-f', 'value', '-c', 'uuid')

    ex.file('providers-tree')
    ex.run('resource', 'provider', 'tree', 'show', 'compute-1')
    tree = recorder.table_rows(ex.run('resource', 'provider', 'tree',
                                      'show', 'compute-1', '--long'))
    recorder.claim(len(tree) == 5 and all(row[4] for row in tree),
                   'tree show --long gives the used/capacity of every '
                   'provider')

    ex.file('providers-tree-list')
    names = ex.run('resource', 'provider', 'tree', 'list', '-f', 'value',
                   '-c', 'name').splitlines()
    recorder.claim(names[0] == 'compute-1' and names[-1] == 'compute-2',
                   'tree list shows the tree of compute-1, then that of '
                   'compute-2')
    ex.run('resource', 'provider', 'tree', 'show', 'compute-2', '--dot')

    ex.file('providers-inventory')
    ex.run('resource', 'provider', 'inventory', 'list', 'compute-2')
    ex.run('resource', 'provider', 'inventory', 'list', 'compute-2',
           '--long')
    ex.run('resource', 'provider', 'usage', 'show', 'compute-2')

    ex.file('providers-traits')
    ex.run('resource', 'provider', 'trait', 'list', 'compute-2')
    ex.run('trait', 'create', 'CUSTOM_GPU_PASSTHROUGH')
    ex.run('resource', 'provider', 'trait', 'add', 'compute-2',
           '--trait', 'CUSTOM_GPU_PASSTHROUGH')
    ex.run('resource', 'provider', 'trait', 'remove', 'compute-2',
           '--trait', 'CUSTOM_LICENSED_WINDOWS')


def inventory(ex):
    ex.file('inventory-aggregate-members')
    ex.run('resource', 'provider', 'create', 'compute-3', '--uuid', COMPUTE3)
    ex.run('resource', 'provider', 'aggregate', 'set', 'compute-3',
           '--aggregate', cloud.AGGREGATE, '--generation', '0')
    ex.run('resource', 'provider', 'list', '--member-of', cloud.AGGREGATE)

    # The local disk is on the root provider of every host, nested or
    # flat: the one class the three roots have in common. Replacing a
    # root's whole inventory with it must fail on compute-2 (classes in
    # use) and reset compute-1's reserved disk.
    values = ['--resource', 'DISK_GB=2000']

    ex.file('inventory-aggregate-dry-run')
    before = recorder.table_rows(ex.run('resource', 'provider', 'inventory',
                                        'list', 'compute-1'))
    recorder.claim([row[0] for row in before] == ['DISK_GB']
                   and before[0][4] == '50',
                   'the root of compute-1 holds only DISK_GB, with 50 '
                   'reserved')
    ex.run('resource', 'provider', 'inventory', 'set', cloud.AGGREGATE,
           '--aggregate', *values, '--dry-run')

    ex.file('inventory-aggregate-partial')
    rows = recorder.table_rows(ex.run(
        'resource', 'provider', 'inventory', 'set', cloud.AGGREGATE,
        '--aggregate', *values, expect=1))
    recorder.claim({row[0] for row in rows} == {cloud.COMPUTE1, COMPUTE3},
                   'compute-1 and compute-3 are updated, compute-2 is not')
    recorder.claim(all(row[5] == '0' for row in rows),
                   'the replaced inventories have a reserved of 0')

    ex.file('inventory-aggregate-after')
    ex.run('resource', 'provider', 'inventory', 'set', 'compute-1',
           '--amend', '--resource', 'DISK_GB:reserved=50')
    rows = recorder.table_rows(ex.run(
        'resource', 'provider', 'inventory', 'set', cloud.AGGREGATE,
        '--aggregate', '--amend',
        '--resource', 'DISK_GB:allocation_ratio=1.5'))
    recorder.claim([row[1] for row in rows if row[0] == cloud.COMPUTE2]
                   == ['VCPU', 'MEMORY_MB', 'DISK_GB', 'CUSTOM_FPGA'],
                   'with --amend compute-2 keeps its other classes')
