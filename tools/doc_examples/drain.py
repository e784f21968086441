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

"""The scenario of the drain page: compute-2 goes into maintenance."""

from osc_placement.tests.support import cloud

from doc_examples import recorder

COMPUTE3 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000003'


def _traits(ex, uuid, traits):
    path = '/resource_providers/%s' % uuid
    ex.api('PUT', path + '/traits', body={
        'resource_provider_generation': ex.api('GET', path)['generation'],
        'traits': traits})


def drain(ex):
    # The sample cloud's two hosts are compute nodes (Nova reports the
    # trait), and a third, empty one joins them.
    for uuid in (cloud.COMPUTE1, cloud.COMPUTE2):
        path = '/resource_providers/%s/traits' % uuid
        _traits(ex, uuid, ex.api('GET', path)['traits'] + ['COMPUTE_NODE'])
    ex.api('POST', '/resource_providers', body={
        'name': 'compute-3', 'uuid': COMPUTE3})
    ex.api('PUT', '/resource_providers/%s/inventories' % COMPUTE3, body={
        'resource_provider_generation': 0,
        'inventories': {'VCPU': {'total': 8, 'allocation_ratio': 4.0},
                        'MEMORY_MB': {'total': 16384, 'reserved': 512},
                        'DISK_GB': {'total': 500}}})
    _traits(ex, COMPUTE3, ['COMPUTE_NODE', 'HW_CPU_X86_AVX2'])

    ex.file('drain-plan')
    rows = recorder.table_rows(ex.run(
        'resource', 'provider', 'drain', 'plan', 'compute-2', expect=3))
    found = {row[0]: row for row in rows}
    recorder.claim(found[cloud.VM1][3] == 'compute-3'
                   and found[cloud.VM3][3] == ''
                   and 'CUSTOM_FPGA' in found[cloud.VM3][5],
                   'VM1 would go to compute-3, and VM3, which needs an '
                   'FPGA, cannot move')

    ex.file('drain-plan-long')
    ex.run('resource', 'provider', 'drain', 'plan', 'compute-2', '--long',
           '-f', 'yaml', expect=3)

    ex.file('drain-plan-target')
    ex.run('resource', 'provider', 'drain', 'plan', 'compute-2',
           '--target', 'compute-1', '-c', 'consumer', '-c', 'to', '-c',
           'reason', expect=3)
