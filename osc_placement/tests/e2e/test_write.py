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

"""Changing data with the installed ``openstack``: allocations, the
inventories of a whole aggregate.

Each test creates the providers and consumers it changes (UUIDs of its own),
so the tests of this module do not depend on each other.
"""

import json
import uuid as uuidlib

from osc_placement.tests.e2e import base


class TestWrite(base.SandboxTestCase):

    def test_allocation_set_at_1_28_and_show(self):
        rp = base.make_provider(self.sandbox, 'alloc', {
            'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096}})
        consumer = base.new_uuid('cccccccc')
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
                         base.allocations_of(self.sandbox, consumer))
        shown = self.cli.ok('resource', 'provider', 'allocation', 'show',
                            consumer, '-f', 'json')
        self.assertEqual(rows, shown)

    def test_inventory_set_aggregate_partial_failure(self):
        # Seed scenario 3: set the inventory of every provider of an
        # aggregate. One of them has MEMORY_MB in use, so replacing its
        # inventory with VCPU only is refused (409); the others are updated.
        aggregate = str(uuidlib.uuid4())
        inventory = {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096}}
        rps = [base.make_provider(self.sandbox, 'agg', inventory, aggregate)
               for _ in range(3)]
        busy = rps[1]
        base.allocate(self.sandbox, base.new_uuid('cccccccc'), busy,
                      {'MEMORY_MB': 1024})

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
