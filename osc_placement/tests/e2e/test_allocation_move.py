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

"""The clean-up after a failed migration, with the installed ``openstack``
on the PostgreSQL sandbox (four gunicorn workers).

Nova starts a migration by giving the instance's allocations on the source
host to the migration's consumer, and allocating the instance on the
destination. When the migration fails with the instance still on the
source, an operator puts things back as Nova reverts a migration: the
instance's allocations become the migration's, on the source, in one
request (``allocation move``), with no moment where the source is counted
for nobody or twice, and the destination is released in the same request.
"""

import json

from osc_placement import tests
from osc_placement.tests.e2e import base

ALLOC = ('resource', 'provider', 'allocation')
FLAVOR = {'VCPU': 2, 'MEMORY_MB': 1024}


class TestMigrationCleanup(base.ProductionTestCase):

    def usages(self, *rps):
        return [self.sandbox.api('GET', '/resource_providers/%s/usages'
                                 % rp)['usages'] for rp in rps]

    def test_failed_migration_moved_back_in_one_request(self):
        inventory = {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 8192}}
        source = base.make_provider(self.sandbox, 'src', inventory)
        dest = base.make_provider(self.sandbox, 'dst', inventory)
        instance = base.new_uuid('cccccccc')
        migration = base.new_uuid('cccccccc')
        tests.allocate(self.sandbox, migration, {source: FLAVOR},
                       project='project-9', user='user-9',
                       consumer_type='MIGRATION')
        tests.allocate(self.sandbox, instance, {dest: FLAVOR},
                       project='project-9', user='user-9',
                       consumer_type='INSTANCE')
        self.assertEqual([FLAVOR, FLAVOR], self.usages(source, dest))

        with self.sandbox.count_requests() as seen:
            res = self.cli.run(*ALLOC, 'move', migration, instance,
                               '-f', 'json', version='1.39')
        self.assertEqual(0, res.returncode, res.stderr)
        # What the instance held on the destination, said once.
        self.assertEqual(
            'Consumer %s held rp=%s,MEMORY_MB=1024,VCPU=2 before the move: '
            'replaced by the source\'s (--sum adds to them instead).\n'
            % (instance, dest), res.stderr)
        rows = json.loads(res.stdout)
        self.assertEqual([('POST', '/allocations')],
                         [(r.method, r.uri) for r in seen
                          if r.method != 'GET'])
        self.assertEqual(
            {source: FLAVOR},
            {row['resource_provider']: row['resources'] for row in rows})
        self.assertEqual({('project-9', 'user-9', 'INSTANCE')}, set(
            (row['project_id'], row['user_id'], row['consumer_type'])
            for row in rows))
        # The source is used as much as before, by the instance now; the
        # destination is free, released by the same request.
        self.assertEqual([FLAVOR, {'VCPU': 0, 'MEMORY_MB': 0}],
                         self.usages(source, dest))
        self.assertEqual({}, base.allocations_of(self.sandbox, migration))
        self.assertEqual({source: FLAVOR},
                         base.allocations_of(self.sandbox, instance))
        self.assertEqual('INSTANCE', self.sandbox.api(
            'GET', '/allocations/%s' % instance)['consumer_type'])
