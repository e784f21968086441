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

import testscenarios

from osc_placement.tests.e2e import base
from osc_placement.tests import sandbox as sb

load_tests = testscenarios.load_tests_apply_scenarios

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


class TestWrite(base.SandboxTestCase):

    def test_allocation_set_at_1_28_and_show(self):
        rp = make_provider(self.sandbox, 'alloc', {
            'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096}})
        consumer = new_uuid('cccccccc')
        with self.sandbox.count_requests() as seen:
            rows = self.cli.ok(
                'resource', 'provider', 'allocation', 'set', consumer,
                '--allocation', 'rp=%s,VCPU=2,MEMORY_MB=512' % rp,
                '--project-id', 'project-9', '--user-id', 'user-9',
                '-f', 'json', version='1.28')
        path = '/allocations/%s' % consumer
        # Read the consumer generation, write with it, read back.
        self.assertEqual([
            ('GET', path, 'placement 1.28'),
            ('PUT', path, 'placement 1.28'),
            ('GET', path, 'placement 1.28'),
        ], [(r.method, r.uri, r.version) for r in seen])
        self.assertEqual([{'resource_provider': rp, 'generation': 2,
                           'resources': {'VCPU': 2, 'MEMORY_MB': 512},
                           'project_id': 'project-9', 'user_id': 'user-9'}],
                         rows)
        self.assertEqual({rp: {'VCPU': 2, 'MEMORY_MB': 512}},
                         allocations_of(self.sandbox, consumer))
        shown = self.cli.ok('resource', 'provider', 'allocation', 'show',
                            consumer, '-f', 'json')
        self.assertEqual(rows, shown)

    def test_inventory_set_aggregate_partial_failure(self):
        # Seed scenario 3: set the inventory of every provider of an
        # aggregate. One of them has MEMORY_MB in use, so replacing its
        # inventory with VCPU only is refused (409); the others are updated.
        aggregate = str(uuidlib.uuid4())
        inventory = {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096}}
        rps = [make_provider(self.sandbox, 'agg', inventory, aggregate)
               for _ in range(3)]
        busy = rps[1]
        allocate(self.sandbox, new_uuid('cccccccc'), busy, {'MEMORY_MB': 1024})

        res = self.cli.run('resource', 'provider', 'inventory', 'set',
                           aggregate, '--aggregate', '--resource', 'VCPU=16',
                           '-f', 'json')

        self.assertEqual(1, res.returncode)
        self.assertEqual(
            "Failed to set inventory for resource provider %s: update "
            "conflict: Inventory for 'MEMORY_MB' on resource provider '%s' in "
            "use. (HTTP 409).\n"
            "Failed to set inventory for 1 of 3 resource providers.\n"
            % (busy, busy), res.stderr)
        # The rows of the providers that were updated are printed.
        rows = json.loads(res.stdout)
        self.assertEqual(sorted(rp for rp in rps if rp != busy),
                         sorted(row['resource_provider'] for row in rows))
        self.assertEqual({('VCPU', 16)},
                         {(row['resource_class'], row['total'])
                          for row in rows})
        # The server agrees.
        for rp in rps:
            inventories = self.sandbox.api(
                'GET',
                '/resource_providers/%s/inventories' % rp)['inventories']
            totals = {rc: inv['total'] for rc, inv in inventories.items()}
            if rp == busy:
                self.assertEqual({'VCPU': 8, 'MEMORY_MB': 4096}, totals)
            else:
                self.assertEqual({'VCPU': 16}, totals)


class TestConcurrentWriters(base.SandboxTestCase):
    scenarios = [('existing-consumer', {'existing': True}),
                 ('new-consumer', {'existing': False})]

    def setUp(self):
        super().setUp()
        self.proxy = sb.Relay(self.sandbox.endpoint,
                              timeout=base.COMMAND_TIMEOUT)
        self.addCleanup(self.proxy.close)

    def test_allocation_set_concurrent_writers_one_loses(self):
        # Seed scenario 2. Two real "openstack" processes set the allocations
        # of one consumer at 1.28, both starting from the same consumer
        # generation. To make the race deterministic, writer A talks to the
        # server through a proxy that holds A's PUT until writer B has read
        # the generation and written. A's PUT then carries a stale generation:
        # the server refuses it (409), A exits 1 with the server's message,
        # and B's allocations stay.
        rp = make_provider(self.sandbox, 'race', {
            'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096}})
        consumer = new_uuid('cccccccc')
        path = '/allocations/%s' % consumer
        if self.existing:
            allocate(self.sandbox, consumer, rp, {'VCPU': 1})
        common = ['resource', 'provider', 'allocation', 'set', consumer,
                  '--project-id', 'project-9', '--user-id', 'user-9']

        held = self.proxy.hold('PUT', path)
        with self.sandbox.count_requests() as seen:
            writer_a = self.cli.start(
                *common + ['--allocation', 'rp=%s,VCPU=2' % rp],
                version='1.28', endpoint=self.proxy.endpoint)
            try:
                while not held.wait(0.1):
                    if writer_a.poll() is not None:
                        self.fail('writer A ended before its PUT: %r'
                                  % (writer_a.communicate(),))
                writer_b = self.cli.run(
                    *common + ['--allocation',
                               'rp=%s,VCPU=3,MEMORY_MB=256' % rp],
                    version='1.28')
            finally:
                self.proxy.release()
            out_a, err_a = writer_a.communicate(timeout=60)

        # The order the server saw: A read, B read-wrote-read, A wrote.
        self.assertEqual([
            ('GET', path), ('GET', path), ('PUT', path), ('GET', path),
            ('PUT', path)], [(r.method, r.uri) for r in seen])
        self.assertEqual((0, ''), (writer_b.returncode, writer_b.stderr))
        self.assertEqual(1, writer_a.returncode)
        self.assertEqual('', out_a)
        # B's write moved the generation from what A read (1 after the first
        # allocation, or none for a new consumer) to the next one.
        self.assertEqual(
            'consumer generation conflict - expected %s (HTTP 409)\n'
            % ('2 but got 1' if self.existing else '1 but got None'), err_a)
        self.assertEqual({rp: {'VCPU': 3, 'MEMORY_MB': 256}},
                         allocations_of(self.sandbox, consumer))
