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

"""Changing data with the installed ``openstack``: allocations under
concurrency, inventories of a whole aggregate.

Each test creates the providers and consumers it changes (UUIDs of its own),
so the tests of this module do not depend on each other.
"""

import itertools
import json
import uuid as uuidlib

import pytest

_numbers = itertools.count(1)


def new_uuid(prefix):
    """A UUID of the given hex prefix, unique in this module."""
    return '%s-0000-4000-8000-%012d' % (prefix, next(_numbers))


def make_provider(sandbox, name, inventories, aggregate=None):
    uuid = new_uuid('eeeeeeee')
    rp = sandbox.api('POST', '/resource_providers',
                     {'name': name + '-' + uuid[-4:], 'uuid': uuid})
    generation = sandbox.api(
        'PUT', '/resource_providers/%s/inventories' % uuid,
        {'inventories': inventories,
         'resource_provider_generation': rp['generation']},
    )['resource_provider_generation']
    if aggregate:
        sandbox.api('PUT', '/resource_providers/%s/aggregates' % uuid,
                    {'aggregates': [aggregate],
                     'resource_provider_generation': generation})
    return uuid


def allocate(sandbox, consumer, rp, resources):
    current = sandbox.api('GET', '/allocations/%s' % consumer)
    sandbox.api('PUT', '/allocations/%s' % consumer,
                {'allocations': {rp: {'resources': resources}},
                 'project_id': 'project-9', 'user_id': 'user-9',
                 'consumer_generation': current.get('consumer_generation'),
                 'consumer_type': 'INSTANCE'})


def allocations_of(sandbox, consumer):
    return {rp: alloc['resources'] for rp, alloc in sandbox.api(
        'GET', '/allocations/%s' % consumer)['allocations'].items()}


def test_allocation_set_at_1_28_and_show(sandbox, cli):
    rp = make_provider(sandbox, 'alloc', {'VCPU': {'total': 8},
                                          'MEMORY_MB': {'total': 4096}})
    consumer = new_uuid('cccccccc')
    with sandbox.count_requests() as seen:
        rows = cli.ok('resource', 'provider', 'allocation', 'set', consumer,
                      '--allocation', 'rp=%s,VCPU=2,MEMORY_MB=512' % rp,
                      '--project-id', 'project-9', '--user-id', 'user-9',
                      '-f', 'json', version='1.28')
    path = '/allocations/%s' % consumer
    # Read the consumer generation, write with it, read back.
    assert [(r.method, r.uri, r.version) for r in seen] == [
        ('GET', path, 'placement 1.28'),
        ('PUT', path, 'placement 1.28'),
        ('GET', path, 'placement 1.28'),
    ]
    assert rows == [{'resource_provider': rp, 'generation': 2,
                     'resources': {'VCPU': 2, 'MEMORY_MB': 512},
                     'project_id': 'project-9', 'user_id': 'user-9'}]
    assert allocations_of(sandbox, consumer) == {
        rp: {'VCPU': 2, 'MEMORY_MB': 512}}
    shown = cli.ok('resource', 'provider', 'allocation', 'show', consumer,
                   '-f', 'json')
    assert shown == rows


@pytest.mark.parametrize('existing', [True, False],
                         ids=['existing-consumer', 'new-consumer'])
def test_allocation_set_concurrent_writers_one_loses(sandbox, cli, proxy,
                                                     existing):
    # Seed scenario 2. Two real "openstack" processes set the allocations
    # of one consumer at 1.28, both starting from the same consumer
    # generation. To make the race deterministic, writer A talks to the
    # server through a proxy that holds A's PUT until writer B has read
    # the generation and written. A's PUT then carries a stale generation:
    # the server refuses it (409), A exits 1 with the server's message,
    # and B's allocations stay.
    rp = make_provider(sandbox, 'race', {'VCPU': {'total': 8},
                                         'MEMORY_MB': {'total': 4096}})
    consumer = new_uuid('cccccccc')
    path = '/allocations/%s' % consumer
    if existing:
        allocate(sandbox, consumer, rp, {'VCPU': 1})
    common = ['resource', 'provider', 'allocation', 'set', consumer,
              '--project-id', 'project-9', '--user-id', 'user-9']

    proxy.hold('PUT', path)
    with sandbox.count_requests() as seen:
        writer_a = cli.start(*common + ['--allocation', 'rp=%s,VCPU=2' % rp],
                             version='1.28', endpoint=proxy.endpoint)
        try:
            while not proxy.held.wait(0.1):
                assert writer_a.poll() is None, (
                    'writer A ended before its PUT: %r' % (
                        writer_a.communicate(),))
            writer_b = cli.run(
                *common + ['--allocation', 'rp=%s,VCPU=3,MEMORY_MB=256' % rp],
                version='1.28')
        finally:
            proxy.release()
        out_a, err_a = writer_a.communicate(timeout=60)

    # The order the server saw: A read, B read-wrote-read, A wrote.
    assert [(r.method, r.uri) for r in seen] == [
        ('GET', path), ('GET', path), ('PUT', path), ('GET', path),
        ('PUT', path)]
    assert (writer_b.returncode, writer_b.stderr) == (0, '')
    assert writer_a.returncode == 1
    assert out_a == ''
    # B's write moved the generation from what A read (1 after the first
    # allocation, or none for a new consumer) to the next one.
    assert err_a == (
        'consumer generation conflict - expected %s (HTTP 409)\n'
        % ('2 but got 1' if existing else '1 but got None'))
    assert allocations_of(sandbox, consumer) == {
        rp: {'VCPU': 3, 'MEMORY_MB': 256}}


def test_inventory_set_aggregate_partial_failure(sandbox, cli):
    # Seed scenario 3: set the inventory of every provider of an
    # aggregate. One of them has MEMORY_MB in use, so replacing its
    # inventory with VCPU only is refused (409); the others are updated.
    aggregate = str(uuidlib.uuid4())
    inventory = {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096}}
    rps = [make_provider(sandbox, 'agg', inventory, aggregate)
           for _ in range(3)]
    busy = rps[1]
    allocate(sandbox, new_uuid('cccccccc'), busy, {'MEMORY_MB': 1024})

    res = cli.run('resource', 'provider', 'inventory', 'set', aggregate,
                  '--aggregate', '--resource', 'VCPU=16', '-f', 'json')

    assert res.returncode == 1
    assert res.stderr == (
        "Failed to set inventory for resource provider %s: update "
        "conflict: Inventory for 'MEMORY_MB' on resource provider '%s' in "
        "use. (HTTP 409).\n"
        "Failed to set inventory for 1 of 3 resource providers.\n"
        % (busy, busy))
    # The rows of the providers that were updated (deviation D12).
    rows = json.loads(res.stdout)
    assert sorted(row['resource_provider'] for row in rows) == sorted(
        rp for rp in rps if rp != busy)
    assert {(row['resource_class'], row['total']) for row in rows} == {
        ('VCPU', 16)}
    # The server agrees.
    for rp in rps:
        inventories = sandbox.api(
            'GET', '/resource_providers/%s/inventories' % rp)['inventories']
        totals = {rc: inv['total'] for rc, inv in inventories.items()}
        if rp == busy:
            assert totals == {'VCPU': 8, 'MEMORY_MB': 4096}
        else:
            assert totals == {'VCPU': 16}
