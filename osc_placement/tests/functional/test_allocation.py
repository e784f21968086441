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

"""Allocation commands against a real Placement."""

import testscenarios

from osc_placement import tests
from osc_placement.tests.functional import base

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
RP2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
C1 = 'cccccccc-cccc-4ccc-8ccc-000000000001'
C2 = 'cccccccc-cccc-4ccc-8ccc-000000000002'
C3 = 'cccccccc-cccc-4ccc-8ccc-000000000003'
OWNER = ('--project-id', 'project-1', '--user-id', 'user-1')
ALLOC = 'resource', 'provider', 'allocation'

load_tests = testscenarios.load_tests_apply_scenarios


def server_allocations(placement, consumer, version='1.38'):
    return placement.api('GET', '/allocations/' + consumer,
                         version=version)


def resources_of(rows):
    return {row['resource_provider']: row['resources'] for row in rows}


class TwoProvidersTestCase(base.TestCase):
    """compute-1 (RP1: VCPU, MEMORY_MB) and storage-1 (RP2: DISK_GB)."""

    def setUp(self):
        super().setUp()
        tests.create_provider(self, RP1, 'compute-1',
                              {'VCPU': 8, 'MEMORY_MB': 4096})
        tests.create_provider(self, RP2, 'storage-1', {'DISK_GB': 100})


class ConsumerTestCase(TwoProvidersTestCase):
    """Consumer C1 holds VCPU and MEMORY_MB on RP1, DISK_GB on RP2."""

    def setUp(self):
        super().setUp()
        tests.allocate(self, C1, {RP1: {'VCPU': 2, 'MEMORY_MB': 256},
                                  RP2: {'DISK_GB': 10}}, consumer_type=None)


class TestAllocationSet(TwoProvidersTestCase):

    def test_set_at_1_0_sends_a_list_and_needs_no_owner(self):
        rows = self.ok(*ALLOC, 'set', C1,
                       '--allocation', 'rp=%s,VCPU=2,MEMORY_MB=512' % RP1,
                       '--allocation', 'rp=%s,DISK_GB=20' % RP2, '-f', 'json',
                       version='1.0')
        self.assertEqual({RP1: {'VCPU': 2, 'MEMORY_MB': 512},
                          RP2: {'DISK_GB': 20}}, resources_of(rows))
        self.assertEqual({'resource_provider', 'generation', 'resources'},
                         set(rows[0]))
        stored = server_allocations(self, C1)['allocations']
        self.assertEqual(resources_of(rows), {
            rp: allocation['resources'] for rp, allocation in stored.items()})

    def test_set_at_1_7_warns_that_the_owner_is_ignored(self):
        out, err, code = self.openstack(
            *ALLOC, 'set', C1, '--allocation', 'rp=%s,VCPU=1' % RP1, *OWNER,
            version='1.7')
        self.assertEqual(0, code)
        self.assertIn('--project-id and --user-id options do not affect '
                      'allocation for --os-placement-api-version less than '
                      '1.8', err)

    def test_set_from_1_8_requires_the_owner(self):
        out, err, code = self.openstack(
            *ALLOC, 'set', C1, '--allocation', 'rp=%s,VCPU=1' % RP1,
            version='1.8')
        self.assertEqual(2, code)
        self.assertIn('the following arguments are required: --project-id, '
                      '--user-id', err)
        self.assertEqual({}, server_allocations(self, C1)['allocations'])

    def test_set_at_1_8_stores_the_owner(self):
        rows = self.ok(*ALLOC, 'set', C1, '--allocation',
                       'rp=%s,VCPU=1' % RP1, *OWNER, '-f', 'json',
                       version='1.8')
        # The owner is only shown from 1.12.
        self.assertNotIn('project_id', rows[0])
        stored = server_allocations(self, C1)
        self.assertEqual(('project-1',
                          'user-1'), (stored['project_id'], stored['user_id']))

    def test_set_at_1_28_replaces_an_existing_consumer(self):
        tests.allocate(self, C1, {RP1: {'VCPU': 4}}, consumer_type=None)
        rows = self.ok(*ALLOC, 'set', C1, '--allocation',
                       'rp=storage-1,DISK_GB=5', *OWNER, '-f', 'json',
                       version='1.28')
        self.assertEqual({RP2: {'DISK_GB': 5}}, resources_of(rows))
        self.assertEqual(
            2, server_allocations(self, C1)['consumer_generation'])

    def test_set_at_1_37_ignores_the_consumer_type(self):
        out, err, code = self.openstack(
            *ALLOC, 'set', C1, '--allocation', 'rp=%s,VCPU=1' % RP1, *OWNER,
            '--consumer-type', 'INSTANCE', version='1.37')
        self.assertEqual(0, code)
        self.assertIn('--consumer-type option does not affect allocation', err)
        self.assertEqual('unknown',
                         server_allocations(self, C1)['consumer_type'])

    def test_set_from_1_38_requires_and_shows_the_consumer_type(self):
        out, err, code = self.openstack(*ALLOC, 'set', C1, '--allocation',
                                        'rp=%s,VCPU=1' % RP1, *OWNER,
                                        version='1.38')
        self.assertEqual(2, code)
        self.assertIn('the following arguments are required: --consumer-type',
                      err)
        rows = self.ok(*ALLOC, 'set', C1, '--allocation', 'rp=%s,VCPU=1' % RP1,
                       *OWNER, '--consumer-type', 'MIGRATION', '-f', 'json',
                       version='1.38')
        self.assertEqual('MIGRATION', rows[0]['consumer_type'])

    def test_set_capacity_exceeded(self):
        err, code = self.fails(
            *ALLOC, 'set', C1, '--allocation', 'rp=%s,DISK_GB=1000' % RP2,
            *OWNER, version='1.28')
        self.assertEqual(1, code)
        self.assertTrue(err.endswith('The requested amount would exceed the '
                                     'capacity. (HTTP 409)\n'), err)

    def test_set_malformed_value_sends_nothing(self):
        sent = []
        self.before_request(lambda method, url, kwargs: sent.append(
            (method, url)))
        err, code = self.fails(
            *ALLOC, 'set', C1, '--allocation', 'rp=%s,VCPU=two' % RP1, *OWNER,
            version='1.28')
        self.assertEqual(1, code)
        self.assertIn("'two'", err)
        self.assertEqual([], sent)

    def test_concurrent_writers_the_second_gets_409(self):
        """Two writers of one consumer: the one that read first loses.

        The CLI reads the consumer generation, then, just before its PUT,
        another writer (a direct API call) replaces the consumer's allocations.
        The CLI's PUT carries the stale generation: Placement refuses it, the
        CLI reports it once (no retry) and the other writer's allocations stay.
        """
        tests.allocate(self, C1, {RP1: {'VCPU': 1}}, consumer_type=None)
        puts = []

        def other_writer_first(method, url, kwargs):
            puts.append(kwargs['json']['consumer_generation'])
            tests.allocate(self, C1, {RP1: {'VCPU': 3}}, generation=1,
                           consumer_type=None)

        self.before_request(other_writer_first, 'PUT', '/allocations/' + C1)
        out, err, code = self.openstack(*ALLOC, 'set', C1, '--allocation',
                                        'rp=%s,DISK_GB=7' % RP2, *OWNER,
                                        version='1.28')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual([1], puts)  # one attempt, with the generation read
        self.assertEqual(1, len(err.splitlines()))
        self.assertIn('consumer generation conflict', err)
        self.assertTrue(err.endswith('(HTTP 409)\n'), err)
        stored = server_allocations(self, C1)
        self.assertEqual({RP1: {'resources': {'VCPU': 3}, 'generation': 3}},
                         stored['allocations'])
        self.assertEqual(2, stored['consumer_generation'])

    def test_unset_concurrent_writer_wins(self):
        tests.allocate(self, C1, {RP1: {'VCPU': 1}, RP2: {'DISK_GB': 1}},
                       consumer_type=None)

        def other_writer_first(method, url, kwargs):
            tests.allocate(self, C1, {RP2: {'DISK_GB': 9}}, generation=1,
                           consumer_type=None)

        self.before_request(other_writer_first, 'PUT')
        err, code = self.fails(*ALLOC, 'unset', C1, '--provider', RP1,
                               version='1.28')
        self.assertEqual(1, code)
        self.assertIn('consumer generation conflict', err)
        self.assertEqual({
            RP2: {'resources': {'DISK_GB': 9}, 'generation': 3}},
            server_allocations(self, C1)['allocations'])

    def test_unset_at_1_38_keeps_the_consumer_type(self):
        self.ok(*ALLOC, 'set', C1, '--allocation', 'rp=%s,VCPU=1' % RP1,
                '--allocation', 'rp=%s,DISK_GB=1' % RP2, *OWNER,
                '--consumer-type', 'INSTANCE', version='1.38')
        rows = self.ok(*ALLOC, 'unset', C1, '--provider', RP2, '-f', 'json',
                       version='1.38')
        self.assertEqual([
            (RP1, 'INSTANCE')],
            [(r['resource_provider'], r['consumer_type']) for r in rows])


class TestAllocationSetBodyShape(TwoProvidersTestCase):
    scenarios = base.versions('1.11', '1.12')

    def test_set_body_shape_changes_at_1_12(self):
        rows = self.ok(
            *ALLOC, 'set', C1, '--allocation', 'rp=%s,VCPU=1' % RP1,
            '--allocation', 'rp=%s,MEMORY_MB=64' % RP1, *OWNER, '-f', 'json',
            version=self.version)
        self.assertEqual({RP1: {'VCPU': 1, 'MEMORY_MB': 64}},
                         resources_of(rows))
        self.assertEqual(self.version == '1.12', 'project_id' in rows[0])


class TestAllocationsOfAConsumer(ConsumerTestCase):

    def test_unset_below_1_12_is_refused(self):
        err, code = self.fails(*ALLOC, 'unset', C1, version='1.11')
        self.assertEqual('Operation or argument is not supported with version '
                         '1.11; requires at least version 1.12\n', err)
        self.assertEqual(2, len(server_allocations(self, C1)['allocations']))

    def test_unset_a_class_everywhere(self):
        rows = self.ok(*ALLOC, 'unset', C1, '--resource-class', 'VCPU',
                       '--resource-class', 'DISK_GB', '-f', 'json',
                       version='1.28')
        self.assertEqual({RP1: {'MEMORY_MB': 256}}, resources_of(rows))

    def test_unset_unknown_provider_and_class_are_ignored(self):
        rows = self.ok(*ALLOC, 'unset', C1, '--provider', RP2,
                       '--resource-class', 'VCPU', '-f', 'json',
                       version='1.28')
        self.assertEqual({RP1: {'VCPU': 2, 'MEMORY_MB': 256},
                          RP2: {'DISK_GB': 10}}, resources_of(rows))

    def test_unset_from_1_38_leaves_an_untyped_consumer_unknown(self):
        """A consumer written before 1.38 reads back as type 'unknown'.

        Placement refuses that value in a write; the unset succeeds and the
        type stays unknown.
        """
        tests.allocate(self, C2, {RP1: {'VCPU': 1}, RP2: {'DISK_GB': 1}},
                       consumer_type=None)
        rows = self.ok(*ALLOC, 'unset', C1, '--provider', RP2, '-f', 'json',
                       version='1.38')
        self.assertEqual([(RP1, 'unknown')],
                         [(r['resource_provider'], r['consumer_type'])
                          for r in rows])
        stored = server_allocations(self, C1)
        self.assertEqual({RP1: {'VCPU': 2, 'MEMORY_MB': 256}},
                         {rp: held['resources'] for rp, held
                          in stored['allocations'].items()})
        self.assertEqual('unknown', stored['consumer_type'])
        rows = self.ok(*ALLOC, 'unset', C2, '--resource-class', 'DISK_GB',
                       '-f', 'json', version='latest')
        self.assertEqual([(RP1, 'unknown')],
                         [(r['resource_provider'], r['consumer_type'])
                          for r in rows])

    def test_delete_one(self):
        self.assertEqual('', self.ok(*ALLOC, 'delete', C1))
        self.assertEqual({}, server_allocations(self, C1)['allocations'])

    def test_delete_several_reports_each_failure(self):
        tests.allocate(self, C2, {RP1: {'VCPU': 1}}, consumer_type=None)
        out, err, code = self.openstack(*ALLOC, 'delete', C1, C3, C2)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual([
            "Failed to delete allocations of consumer %s: No allocations for "
            "consumer '%s' (HTTP 404)" % (C3, C3),
            'Failed to delete 1 of 3 allocations.'], err.splitlines())
        for consumer_uuid in (C1, C2):
            self.assertEqual({}, server_allocations(self, consumer_uuid)[
                'allocations'])

    def test_list_by_provider(self):
        tests.allocate(self, C2, {RP1: {'VCPU': 1}}, consumer_type=None)
        rows = self.ok(*ALLOC, 'list', 'compute-1', '-f', 'json',
                       version='1.12')
        self.assertEqual([
            {'consumer_uuid': C1, 'resources': {'VCPU': 2, 'MEMORY_MB': 256}},
            {'consumer_uuid': C2, 'resources': {'VCPU': 1}}],
            sorted(rows, key=lambda r: r['consumer_uuid']))

    def test_list_by_provider_long(self):
        tests.allocate(self, C2, {RP1: {'VCPU': 1}}, project='project-2',
                       user='user-2', consumer_type='MIGRATION')
        rows = self.ok(*ALLOC, 'list', RP1, '--long', '-f', 'json',
                       version='1.38')
        self.assertEqual([
            (C1, 'project-1', 'user-1', 'unknown'),
            (C2, 'project-2', 'user-2', 'MIGRATION')],
            sorted((r['consumer_uuid'], r['project_id'], r['user_id'],
                    r['consumer_type']) for r in rows))
        rows = self.ok(*ALLOC, 'list', RP1, '--long', '-f', 'json',
                       version='1.12')
        self.assertNotIn('consumer_type', rows[0])
        self.assertIn('project_id', rows[0])
        err, code = self.fails(*ALLOC, 'list', RP1, '--long',
                               version='1.11')
        self.assertIn('requires at least version 1.12', err)

    def test_list_unknown_provider_name(self):
        err, code = self.fails(*ALLOC, 'list', 'nope')
        self.assertEqual((
            "No resource provider with name or UUID 'nope' found.\n", 1),
            (err, code))

    def test_show_at_the_negotiated_versions(self):
        rows = self.ok(*ALLOC, 'show', C1, '-f', 'json')
        # '1' negotiates up to 1.29: owner shown, no consumer type.
        self.assertEqual(['resource_provider', 'generation', 'resources',
                          'project_id', 'user_id'], list(rows[0]))
        rows = self.ok(*ALLOC, 'show', C1, '-f', 'json', version='latest')
        self.assertEqual('unknown', rows[0]['consumer_type'])


class TestAllocationUnsetAtEachVersion(ConsumerTestCase):
    scenarios = base.versions('1.12', '1.28')

    def test_unset_a_provider_by_name(self):
        rows = self.ok(*ALLOC, 'unset', C1, '--provider', 'storage-1',
                       '-f', 'json', version=self.version)
        self.assertEqual({RP1: {'VCPU': 2, 'MEMORY_MB': 256}},
                         resources_of(rows))
        self.assertEqual([RP1],
                         list(server_allocations(self, C1)['allocations']))

    def test_unset_everything(self):
        rows = self.ok(*ALLOC, 'unset', C1, '-f', 'json', version=self.version)
        self.assertEqual([], rows)
        self.assertEqual({}, server_allocations(self, C1)['allocations'])


class TestAllocationUnsetWithoutAllocations(ConsumerTestCase):
    scenarios = [
        ('1.12', {'version': '1.12', 'message':
                  "No allocations for consumer '%s' (HTTP 404)\n" % C3}),
        ('1.28', {'version': '1.28', 'message':
                  "No allocations for consumer '%s'\n" % C3}),
    ]

    def test_unset_consumer_without_allocations(self):
        err, code = self.fails(*ALLOC, 'unset', C3, version=self.version)
        self.assertEqual((self.message, 1), (err, code))


class TestAllocationShowColumns(ConsumerTestCase):
    scenarios = [
        ('1.0', {'version': '1.0', 'columns': [
            'resource_provider', 'generation', 'resources']}),
        ('1.12', {'version': '1.12', 'columns': [
            'resource_provider', 'generation', 'resources', 'project_id',
            'user_id']}),
        ('1.38', {'version': '1.38', 'columns': [
            'resource_provider', 'generation', 'resources', 'project_id',
            'user_id', 'consumer_type']}),
    ]

    def test_show_columns_per_version(self):
        rows = self.ok(*ALLOC, 'show', C1, '-f', 'json', version=self.version)
        self.assertEqual([self.columns, self.columns],
                         [list(row) for row in rows])
        self.assertEqual({RP1: {'VCPU': 2, 'MEMORY_MB': 256},
                          RP2: {'DISK_GB': 10}}, resources_of(rows))
