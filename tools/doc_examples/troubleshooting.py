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


"""The scenarios of troubleshooting: no valid host, orphaned allocations."""

from osc_placement import microversions
from osc_placement.tests.support import cloud

from doc_examples import recorder


def no_valid_host(ex):
    flavor = ('--resource', 'VCPU=4', '--resource', 'MEMORY_MB=8192',
              '--resource', 'DISK_GB=40')
    ex.file('no-valid-host-list')
    recorder.claim(not recorder.table_rows(ex.run(
        'allocation', 'candidate', 'list', *flavor,
        '--required', 'HW_CPU_X86_AVX2',
        '--forbidden', 'CUSTOM_LICENSED_WINDOWS')),
        'no host takes the request')

    ex.file('no-valid-host-explain')
    rows = recorder.table_rows(ex.run(
        'allocation', 'candidate', 'explain', *flavor,
        '--required', 'HW_CPU_X86_AVX2',
        '--forbidden', 'CUSTOM_LICENSED_WINDOWS'))
    recorder.claim(rows and all(row[2] == 'False' for row in rows),
                   'no tree is a candidate')
    ex.run('allocation', 'candidate', 'explain', *flavor, '--required',
           'HW_CPU_X86_AVX2', '--forbidden', 'CUSTOM_LICENSED_WINDOWS',
           '--long', '-f', 'yaml')

    ex.file('no-valid-host-summary')
    ex.run('allocation', 'candidate', 'explain', *flavor, '--required',
           'HW_CPU_X86_AVX2', '--forbidden', 'CUSTOM_LICENSED_WINDOWS',
           '--summary')


def troubleshooting(ex):
    # The story: compute-1 failed and its server VM2 was evacuated to
    # compute-2. Nova holds the allocations on both hosts until the source
    # comes back, which it never will: the operator removes it.
    ex.api('PUT', '/allocations/%s' % cloud.VM2, body={
        'allocations': {
            cloud.COMPUTE1: {'resources': {'DISK_GB': 20}},
            cloud.COMPUTE1_NUMA0: {'resources': {'VCPU': 4,
                                                 'MEMORY_MB': 8192}},
            cloud.COMPUTE1_PF0: {'resources': {'SRIOV_NET_VF': 1}},
            cloud.COMPUTE2: {'resources': {'VCPU': 4, 'MEMORY_MB': 8192,
                                           'DISK_GB': 20}}},
        'project_id': cloud.PROJECT, 'user_id': 'user-2',
        'consumer_generation': 1}, version=microversions.CONSUMER_GENERATION)

    ex.file('orphan-hunt')
    known = '# servers known to nova\n%s\n%s\n' % (cloud.VM1, cloud.VM2)
    ex.show_file('known', known)
    rows = recorder.table_rows(ex.run(
        'resource', 'provider', 'allocation', 'list',
        '--exclude-consumers-from', '-', stdin=('known', known)))
    recorder.claim(rows and {row[1] for row in rows} == {cloud.VM3},
                   'only the consumer that nova does not know is left')
    ex.run('resource', 'provider', 'allocation', 'list',
           '--exclude-consumers-from', '-', '-f', 'value', '-c',
           'consumer_uuid', stdin=('known', known))

    ex.file('orphan-delete-refused')
    ex.run('resource', 'provider', 'delete', 'compute-1', expect=1)

    ex.file('orphan-find')
    ex.run('resource', 'provider', 'list', '--name', 'compute-1')
    ex.run('resource', 'provider', 'show', 'compute-1', '--allocations')
    ex.run('resource', 'provider', 'tree', 'show', 'compute-1', '--long')
    ex.run('resource', 'provider', 'allocation', 'list', 'compute-1_NUMA0',
           '--long')

    ex.file('orphan-find-all')
    names = ex.run('resource', 'provider', 'tree', 'show', 'compute-1',
                   '-f', 'value', '-c', 'name').split()
    recorder.claim(len(names) == 5,
                   'the tree of compute-1 has five providers')
    holders = set()
    for name in names:
        rows = recorder.table_rows(ex.run('resource', 'provider',
                                          'allocation', 'list', name))
        holders.update(row[0] for row in rows)
    recorder.claim(holders == {cloud.VM2},
                   'one consumer holds allocations on the tree')

    ex.file('orphan-consumer')
    ex.run('resource', 'provider', 'allocation', 'show', cloud.VM2)

    ex.file('orphan-consumer-type')
    ex.run('--os-placement-api-version', microversions.CONSUMER_TYPES,
           'resource', 'provider', 'allocation', 'show', cloud.VM2)

    ex.file('orphan-unset')
    ex.run('resource', 'provider', 'allocation', 'unset', cloud.VM2,
           '--provider', 'compute-1', '--provider', 'compute-1_NUMA0',
           '--provider', 'compute-1_ens1f0')

    ex.file('orphan-delete')
    ex.run('resource', 'provider', 'delete', 'compute-1_ens1f0',
           'compute-1_ens1f1', 'compute-1_NUMA0', 'compute-1_NUMA1',
           'compute-1')
    ex.run('resource', 'provider', 'list')

    ex.file('orphan-consumer-delete')
    ex.run('resource', 'provider', 'allocation', 'delete', cloud.VM3)
    ex.run('resource', 'provider', 'allocation', 'list', 'compute-2')
