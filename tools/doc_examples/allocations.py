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


"""The scenarios of allocations: writes, conflicts, migrations, saves."""

import os
import tempfile

from osc_placement import microversions
from osc_placement.tests.support import cloud
from osc_placement.tests.support import relay

from doc_examples import recorder

VM4 = 'cccccccc-cccc-4ccc-8ccc-000000000004'
VM5 = 'cccccccc-cccc-4ccc-8ccc-000000000005'
MIGRATION = 'cccccccc-cccc-4ccc-8ccc-0000000000a1'


def _bump_consumer(box, consumer, resources):
    """Another writer changes the consumer's allocations."""
    version = microversions.CONSUMER_GENERATION

    def write():
        current = box.api('GET', '/allocations/%s' % consumer,
                          version=version)
        box.api('PUT', '/allocations/%s' % consumer, version=version, body={
            'allocations': {cloud.COMPUTE2: {'resources': resources}},
            'project_id': current['project_id'],
            'user_id': current['user_id'],
            'consumer_generation': current['consumer_generation']})
    return write


def allocations(ex):
    ex.file('allocation-set')
    ex.run('resource', 'provider', 'allocation', 'set', VM4,
           '--allocation', 'rp=compute-2,VCPU=2,MEMORY_MB=2048',
           '--project-id', 'project-1', '--user-id', 'user-1')
    ex.run('resource', 'provider', 'allocation', 'show', VM4)

    ex.file('allocation-conflict')
    other = _bump_consumer(ex.box, VM4, {'VCPU': 2, 'MEMORY_MB': 2048,
                                         'DISK_GB': 20})
    # The command reads the consumer, then, just before its write reaches
    # Placement, the other writer changes the consumer: the 409 the command
    # gets is the server's own answer.
    with relay.Relay(ex.box.endpoint) as between:
        fired = between.intercept('PUT', '/allocations/' + VM4, other)
        ex.run('resource', 'provider', 'allocation', 'set', VM4,
               '--allocation', 'rp=compute-2,VCPU=4,MEMORY_MB=4096',
               '--project-id', 'project-1', '--user-id', 'user-1',
               endpoint=between.endpoint, expect=1)
    if not fired.is_set():
        raise recorder.ExampleError('the concurrent writer never ran')

    ex.file('allocation-conflict-after')
    ex.run('resource', 'provider', 'allocation', 'show', VM4)
    ex.run('resource', 'provider', 'allocation', 'set', VM4,
           '--allocation', 'rp=compute-2,VCPU=4,MEMORY_MB=4096,DISK_GB=20',
           '--project-id', 'project-1', '--user-id', 'user-1')

    ex.file('allocation-capacity')
    ex.run('resource', 'provider', 'allocation', 'set', VM5,
           '--allocation', 'rp=compute-2,VCPU=100',
           '--project-id', 'project-1', '--user-id', 'user-1', expect=1)


def allocation_writes(ex):
    alloc = ('resource', 'provider', 'allocation')
    # A migration of VM1 from compute-2 to compute-1 that failed: as Nova
    # does, the migration's consumer holds what VM1 held on the source,
    # and VM1 holds its allocations on the destination.
    owner = {'project_id': 'project-1', 'user_id': 'user-1'}
    migration = {cloud.COMPUTE2: {'resources': {
        'VCPU': 2, 'MEMORY_MB': 4096, 'DISK_GB': 40}}}
    destination = {cloud.COMPUTE1: {'resources': {'DISK_GB': 40}},
                   cloud.COMPUTE1_NUMA0: {'resources': {
                       'VCPU': 2, 'MEMORY_MB': 4096}}}
    ex.api('POST', '/allocations', body={
        MIGRATION: dict(owner, allocations=migration,
                        consumer_generation=None,
                        consumer_type='MIGRATION'),
        cloud.VM1: dict(owner, allocations=destination,
                        consumer_generation=1, consumer_type='INSTANCE')})

    ex.file('allocation-migration-before')
    ex.run(*alloc, 'show', MIGRATION)
    ex.run(*alloc, 'show', cloud.VM1)
    ex.run('resource', 'provider', 'usage', 'show', 'compute-2')

    ex.file('allocation-migration-move')
    rows = recorder.table_rows(ex.run(*alloc, 'move', MIGRATION, cloud.VM1))
    recorder.claim([row[0] for row in rows] == [cloud.COMPUTE2],
                   'VM1 holds the migration\'s allocations only, as Nova '
                   'moves them')
    usage = ex.run('resource', 'provider', 'usage', 'show', 'compute-2')
    recorder.claim('| MEMORY_MB      |  5120 |' in usage,
                   'the usage of compute-2 is the same after the move')

    ex.cwd = tempfile.mkdtemp(prefix='doc-examples-')
    try:
        ex.file('allocation-save')
        ex.run(*alloc, 'save', '--resource-provider', 'compute-2',
               '--file', 'before-edit.json')
        with open(os.path.join(ex.cwd, 'before-edit.json')) as f:
            ex.show_file('before-edit.json', f.read())

        ex.file('allocation-restore-dry-run')
        ex.run(*alloc, 'delete', cloud.VM3)
        ex.run(*alloc, 'restore', 'before-edit.json', '--dry-run')

        ex.file('allocation-restore')
        ex.run(*alloc, 'restore', 'before-edit.json')
        rows = recorder.table_rows(ex.run(*alloc, 'show', cloud.VM3))
        recorder.claim(len(rows) == 1 and 'CUSTOM_FPGA' in rows[0][2],
                       'VM3 holds its allocations again after the restore')

        ex.file('allocation-restore-refused')
        _bump_consumer(ex.box, cloud.VM1, {'VCPU': 4, 'MEMORY_MB': 4096,
                                           'DISK_GB': 40})()
        ex.run(*alloc, 'delete', cloud.VM3)
        ex.run(*alloc, 'restore', 'before-edit.json', expect=1)
        ex.run(*alloc, 'restore', 'before-edit.json', '--force')
    finally:
        for name in os.listdir(ex.cwd):
            os.unlink(os.path.join(ex.cwd, name))
        os.rmdir(ex.cwd)
        ex.cwd = None
