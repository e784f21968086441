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


"""The scenarios of candidates and capacity: what fits, and how much."""

from osc_placement import microversions
from osc_placement.tests.support import cloud

from doc_examples import recorder


def candidates(ex):
    ex.file('candidates-simple')
    found = recorder.candidate_rows(ex.run(
        'allocation', 'candidate', 'list', '--resource', 'VCPU=2',
        '--resource', 'MEMORY_MB=2048'))
    split = [n for n, rows in found.items() if len(rows) == 2]
    recorder.claim(len(found) == 5 and len(split) == 2,
                   'two of the five candidates take CPU and memory from two '
                   'NUMA nodes')

    ex.file('candidates-granular')
    found = recorder.candidate_rows(ex.run(
        'allocation', 'candidate', 'list',
        '--group', '1', '--resource', 'VCPU=2',
        '--resource', 'MEMORY_MB=2048',
        '--group', '2', '--resource', 'SRIOV_NET_VF=1',
        '--required', 'CUSTOM_PHYSNET1',
        '--group-policy', 'isolate'))
    numa_of_card = {cloud.COMPUTE1_PF0: cloud.COMPUTE1_NUMA0,
                    cloud.COMPUTE1_PF1: cloud.COMPUTE1_NUMA1}
    crossed = [n for n, rows in found.items()
               if numa_of_card[rows[1][1]] != rows[0][1]]
    recorder.claim(len(found) == 4 and len(crossed) == 2,
                   'in two of the four candidates the card is under the '
                   'other NUMA node')

    ex.file('candidates-subtree')
    ex.run('--os-placement-api-version', microversions.SAME_SUBTREE,
           'allocation', 'candidate', 'list',
           '--group', 'compute', '--resource', 'VCPU=2',
           '--resource', 'MEMORY_MB=2048',
           '--group', 'net', '--resource', 'SRIOV_NET_VF=1',
           '--required', 'CUSTOM_PHYSNET1',
           '--group-policy', 'isolate',
           '--same-subtree', 'compute,net', '--long')


def capacity(ex):
    ex.file('capacity-free')
    rows = recorder.table_rows(ex.run('resource', 'provider', 'inventory',
                                      'list', 'compute-2', '--long'))
    recorder.claim(rows and rows[0][0] == 'VCPU', 'VCPU is the first row')
    ex.run('resource', 'provider', 'usage', 'show', 'compute-2')

    ex.file('capacity-list')
    ex.run('resource', 'provider', 'capacity', 'list', '--resource-class',
           'VCPU', '--resource-class', 'MEMORY_MB')
    ex.run('resource', 'provider', 'capacity', 'list', '--summary')
    ex.run('resource', 'provider', 'capacity', 'list', '--summary',
           '--in-tree', 'compute-1')

    ex.file('capacity-flavor')
    found = recorder.candidate_rows(ex.run(
        'allocation', 'candidate', 'list', '--resource', 'VCPU=4',
        '--resource', 'MEMORY_MB=8192', '--resource', 'DISK_GB=40',
        '--limit', '10'))
    recorder.claim(found, 'some host can take the flavor')
    ex.run('allocation', 'candidate', 'list', '--resource', 'VCPU=4',
           '--resource', 'MEMORY_MB=8192', '--resource', 'DISK_GB=40',
           '--resource', 'CUSTOM_FPGA=1', '--limit', '10')


def capacity_fit(ex):
    ex.file('capacity-fit')
    rows = recorder.table_rows(ex.run(
        'resource', 'provider', 'capacity', 'fit', '--resource', 'VCPU=4',
        '--resource', 'MEMORY_MB=8192', '--resource', 'DISK_GB=40'))
    recorder.claim(rows and any(row[2] not in ('0', '') for row in rows),
                   'some tree takes more of the flavor')
    ex.run('resource', 'provider', 'capacity', 'fit', '--resource', 'VCPU=4',
           '--resource', 'MEMORY_MB=8192', '--resource', 'DISK_GB=40',
           '--summary')

    ex.file('capacity-openmetrics')
    ex.run('resource', 'provider', 'capacity', 'fit', '--resource', 'VCPU=4',
           '--resource', 'MEMORY_MB=8192', '-f', 'openmetrics')
    ex.run('resource', 'provider', 'capacity', 'list', '--summary',
           '--resource-class', 'VCPU', '-f', 'openmetrics')
