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

"""``resource provider drain plan`` through the installed ``openstack``.

Its read path on PostgreSQL with four workers (the batches' requests
really run at once there), and on SQLite. The cloud, added to the
sample cloud (whose providers are no compute nodes, so no targets):
``drain-src`` with a vGPU child, 17 consumers on it; ``drain-t1`` (8
VCPU, a vGPU child with 2), ``drain-t2`` (8 VCPU, sharing the disk pool
``drain-pool``), and ``drain-off``, the biggest but disabled. Sixteen
VCPU for nineteen wanted: the most that can move is 15 (the two vGPU
consumers cost two VCPU each, the small ones one). The proof is
Placement's: the ``allocations`` of the 15, written as ONE ``POST
/allocations`` with the consumers' generations, are accepted; then
undone.
"""

import json

from osc_placement import microversions
from osc_placement import tests
from osc_placement.tests.e2e import base

DRAIN = ('resource', 'provider', 'drain', 'plan')
PROJECT, USER = 'project-d', 'user-d'

SMALL = {'VCPU': 1, 'MEMORY_MB': 1024, 'DISK_GB': 10}
GPU_ROOT = {'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 10}
POOLED_ROOT = {'VCPU': 1, 'MEMORY_MB': 1024}
SMALLS = 14


class DrainOnServer(object):
    """The drain's cloud and tests; mixed into a sandbox's class."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        box = cls.sandbox
        uuid = base.new_uuid
        cls.src, cls.src_gpu = uuid('d7a10000'), uuid('d7a10000')
        cls.t1, cls.t1_gpu = uuid('d7a10000'), uuid('d7a10000')
        cls.t2, cls.pool, cls.off = (uuid('d7a10000') for _ in range(3))
        cls.agg = uuid('d7a90000')
        compute = ['COMPUTE_NODE']
        tests.create_provider(box, cls.src, 'drain-src', {
            'VCPU': 32, 'MEMORY_MB': 65536, 'DISK_GB': 1000},
            traits=compute)
        tests.create_provider(box, cls.src_gpu, 'drain-src_gpu',
                              {'VGPU': 4}, parent=cls.src)
        tests.create_provider(box, cls.t1, 'drain-t1', {
            'VCPU': 8, 'MEMORY_MB': 32768, 'DISK_GB': 500}, traits=compute)
        tests.create_provider(box, cls.t1_gpu, 'drain-t1_gpu', {'VGPU': 2},
                              parent=cls.t1)
        tests.create_provider(box, cls.t2, 'drain-t2', {
            'VCPU': 8, 'MEMORY_MB': 16384, 'DISK_GB': 500}, traits=compute,
            aggregates=[cls.agg])
        tests.create_provider(box, cls.pool, 'drain-pool', {'DISK_GB': 1000},
                              traits=['MISC_SHARES_VIA_AGGREGATE'],
                              aggregates=[cls.agg])
        tests.create_provider(box, cls.off, 'drain-off', {
            'VCPU': 64, 'MEMORY_MB': 262144, 'DISK_GB': 2000},
            traits=compute + ['COMPUTE_STATUS_DISABLED'])
        cls.gpus = [uuid('d75e0000') for _ in range(2)]
        cls.pooled = uuid('d75e0000')
        cls.smalls = [uuid('d75e0000') for _ in range(SMALLS)]
        cls.held = {c: {cls.src: GPU_ROOT, cls.src_gpu: {'VGPU': 1}}
                    for c in cls.gpus}
        cls.held[cls.pooled] = {cls.src: POOLED_ROOT,
                                cls.pool: {'DISK_GB': 20}}
        cls.held.update((c, {cls.src: SMALL}) for c in cls.smalls)
        for consumer, allocations in cls.held.items():
            tests.allocate(box, consumer, allocations, project=PROJECT,
                           user=USER)

    def state(self):
        return {c: self.sandbox.api('GET', '/allocations/' + c)
                for c in self.held}

    def test_plan_and_its_proof(self):
        before = self.state()
        with self.sandbox.count_requests() as seen:
            res = self.cli.run(*(DRAIN + ('drain-src', '--long', '-f',
                                          'json')))
        self.assertEqual(3, res.returncode, res.stderr)
        # Each read once: no compute API in this session, and the version
        # document read once, not again in looking for one.
        sent = ['%s %s' % (r.method, r.uri) for r in seen]
        self.assertEqual(sorted(set(sent)), sorted(sent))
        self.assertEqual(1, sent.count('GET /'))
        self.assertIn('15 of 17 consumers can move; 2 cannot.',
                      res.stderr.splitlines())
        self.assertNotIn('lower bound', res.stderr)
        # A plan writes nothing.
        self.assertEqual(before, self.state())
        rows = json.loads(res.stdout)
        self.assertEqual(sorted(self.held), sorted(r['consumer']
                                                   for r in rows))
        found = {r['consumer']: r for r in rows}
        self.assertEqual({'drain-src'}, {r['from'] for r in rows})
        names = {'drain-t1': self.t1, 'drain-t2': self.t2}
        moved = {c: r['allocations'] for c, r in found.items() if r['to']}
        self.assertEqual(15, len(moved))
        # Where each kind may go, all of it, or why not.
        for consumer, to, allocations in [
                (self.pooled, 'drain-t2', {self.t2: POOLED_ROOT,
                                           self.pool: {'DISK_GB': 20}})] + [
                (c, 'drain-t1', {self.t1: GPU_ROOT,
                                 self.t1_gpu: {'VGPU': 1}})
                for c in self.gpus]:
            row = found[consumer]
            if row['to']:
                self.assertEqual((to, allocations),
                                 (row['to'], row['allocations']))
            else:
                self.assertTrue(row['reason'].startswith('needs VCPU='),
                                row['reason'])
        for consumer in self.smalls:
            row = found[consumer]
            self.assertEqual({names[row['to']]: SMALL}, row['allocations'])
        # Each target's VCPU, all of it; the disabled host none.
        used = {}
        for allocations in moved.values():
            for rp, resources in allocations.items():
                used[rp] = used.get(rp, 0) + resources.get('VCPU', 0)
        self.assertEqual({self.t1: 8, self.t2: 8}, {
            rp: n for rp, n in used.items() if n})
        self.prove(moved, before)

    def test_the_same_plan_at_the_latest_microversion(self):
        # Placement 16.0.0 fails some queries on PostgreSQL at later
        # microversions (the audit's GET /usages at 1.38): not the plan's.
        plans = [self.cli.run(*(DRAIN + ('drain-src', '--long', '-f',
                                         'json')), version=version)
                 for version in (None, microversions.LATEST)]
        self.assertEqual([3, 3], [res.returncode for res in plans],
                         [res.stderr for res in plans])
        self.assertEqual(*[json.loads(res.stdout) for res in plans])

    def prove(self, moved, before):
        """ONE POST /allocations of the moves: accepted, then undone."""
        def body(consumer, allocations, generation):
            return tests.allocations_entry(before[consumer], allocations,
                                           generation)
        self.sandbox.api('POST', '/allocations', body={
            c: body(c, allocations, before[c]['consumer_generation'])
            for c, allocations in moved.items()})
        after = self.state()
        self.assertEqual(moved, {c: {rp: a['resources'] for rp, a in after[
            c]['allocations'].items()} for c in moved})
        usages = self.sandbox.api(
            'GET', '/resource_providers/%s/usages' % self.t1)['usages']
        self.assertEqual(8, usages['VCPU'])
        self.sandbox.api('POST', '/allocations', body={
            c: body(c, {rp: a['resources'] for rp, a in before[c][
                'allocations'].items()}, after[c]['consumer_generation'])
            for c in moved})
        self.assertEqual(self.held, {
            c: {rp: a['resources'] for rp, a in found[
                'allocations'].items()} for c, found in self.state().items()})


class TestDrainOnPostgreSQL(DrainOnServer, base.ProductionTestCase):
    pass


class TestDrainOnSQLite(DrainOnServer, base.SandboxTestCase):
    pass
