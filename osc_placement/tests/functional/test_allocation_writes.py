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

"""Writes of several consumers in one request, against a real Placement.

``allocation move``, ``save`` and ``restore`` (``POST /allocations``) and
``resource provider reshape`` (``POST /reshaper``): the server's state
after each, and the requests counted (one write, or none).
"""

import json
import os

import fixtures
import testscenarios

from osc_placement import tests
from osc_placement.tests.functional import base

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
RP2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
RP3 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000003'
C1 = 'cccccccc-cccc-4ccc-8ccc-000000000001'
C2 = 'cccccccc-cccc-4ccc-8ccc-000000000002'
C3 = 'cccccccc-cccc-4ccc-8ccc-000000000003'
ALLOC = ('resource', 'provider', 'allocation')
WRITES = ('PUT', 'POST', 'DELETE')

load_tests = testscenarios.load_tests_apply_scenarios


class WritesTestCase(base.TestCase):
    """compute-1 (RP1: VCPU, MEMORY_MB), storage-1 (RP2: DISK_GB).

    ``self.sent`` collects every request the CLI sends.
    """

    def setUp(self):
        super().setUp()
        tests.create_provider(self, RP1, 'compute-1',
                              {'VCPU': 8, 'MEMORY_MB': 4096})
        tests.create_provider(self, RP2, 'storage-1', {'DISK_GB': 100})
        self.sent = []
        self.before_request(
            lambda method, url, kwargs: self.sent.append((method, url)))

    def writes(self):
        return [(method, url) for method, url in self.sent
                if method in WRITES]

    def held(self, consumer):
        """{provider: {class: amount}} the server holds for a consumer."""
        return {rp: alloc['resources'] for rp, alloc in self.api(
            'GET', '/allocations/' + consumer)['allocations'].items()}

    def consumer(self, consumer):
        return self.api('GET', '/allocations/' + consumer)


class TestMove(WritesTestCase):

    scenarios = base.versions('1.13', '1.28', '1.38')

    def setUp(self):
        super().setUp()
        tests.allocate(self, C1, {RP1: {'VCPU': 2, 'MEMORY_MB': 256},
                                  RP2: {'DISK_GB': 10}},
                       project='project-1', user='user-1')

    def test_all_allocations_to_a_target_that_does_not_exist(self):
        rows = self.ok(*ALLOC, 'move', C1, C2, '-f', 'json',
                       version=self.version)
        self.assertEqual([('POST', '/allocations')], self.writes())
        self.assertEqual({}, self.held(C1))
        self.assertEqual({RP1: {'VCPU': 2, 'MEMORY_MB': 256},
                          RP2: {'DISK_GB': 10}}, self.held(C2))
        target = self.consumer(C2)
        self.assertEqual(('project-1', 'user-1', 'INSTANCE'), (
            target['project_id'], target['user_id'],
            target['consumer_type']) if self.version == '1.38' else (
            'project-1', 'user-1', 'INSTANCE'))
        self.assertEqual({RP1, RP2},
                         set(row['resource_provider'] for row in rows))
        self.assertEqual('1.38' == self.version, 'consumer_type' in rows[0])

    def test_only_one_providers_allocations(self):
        self.ok(*ALLOC, 'move', C1, C2, '--resource-provider', 'storage-1',
                version=self.version)
        self.assertEqual([('POST', '/allocations')], self.writes())
        self.assertEqual({RP1: {'VCPU': 2, 'MEMORY_MB': 256}},
                         self.held(C1))
        self.assertEqual({RP2: {'DISK_GB': 10}}, self.held(C2))

    def test_target_with_allocations_of_its_own_keeps_its_owner(self):
        tests.allocate(self, C2, {RP1: {'VCPU': 1}, RP2: {'DISK_GB': 5}},
                       project='project-2', user='user-2',
                       consumer_type='MIGRATION')
        self.ok(*ALLOC, 'move', C1, C2, version=self.version)
        self.assertEqual([('POST', '/allocations')], self.writes())
        self.assertEqual({RP1: {'VCPU': 2, 'MEMORY_MB': 256},
                          RP2: {'DISK_GB': 10}}, self.held(C2))
        self.assertEqual({}, self.held(C1))
        target = self.consumer(C2)
        self.assertEqual(('project-2', 'user-2', 'MIGRATION'), (
            target['project_id'], target['user_id'],
            target['consumer_type']))

    def test_nothing_to_move_from_a_provider_sends_no_write(self):
        tests.allocate(self, C3, {RP1: {'VCPU': 1}})
        err, code = self.fails(*ALLOC, 'move', C3, C2,
                               '--resource-provider', RP2,
                               version=self.version)
        self.assertEqual(
            'Consumer %s holds nothing on resource provider %s: nothing to '
            'move from it.\n' % (C3, RP2), err)
        self.assertEqual([], self.writes())


class TestMoveTypes(WritesTestCase):

    def test_consumer_without_type_moves_at_1_37_and_says_so(self):
        # Written at 1.28: the server reads its type back as 'unknown'.
        tests.allocate(self, C1, {RP1: {'VCPU': 2}}, consumer_type=None)
        tests.allocate(self, C2, {RP2: {'DISK_GB': 1}},
                       consumer_type='INSTANCE')
        out, err, code = self.openstack(*ALLOC, 'move', C1, C2,
                                        version='1.39')
        self.assertEqual(0, code, err)
        self.assertIn('Consumer %s has no type that can be written (none, '
                      'or unknown): the request is sent at '
                      '--os-placement-api-version 1.37' % C1, err)
        self.assertEqual({RP1: {'VCPU': 2}}, self.held(C2))
        self.assertEqual('INSTANCE', self.consumer(C2)['consumer_type'])

    def test_below_1_13_one_line_names_the_version(self):
        err, code = self.fails(*ALLOC, 'move', C1, C2, version='1.12')
        self.assertEqual(1, code)
        self.assertIn('requires at least version 1.13', err)
        self.assertEqual([], self.sent)


class TestMoveConflict(WritesTestCase):

    def test_concurrent_change_is_named_and_nothing_changes(self):
        tests.allocate(self, C1, {RP1: {'VCPU': 2}})
        tests.allocate(self, C2, {RP2: {'DISK_GB': 1}})

        def other_writer(method, url, kwargs):
            # Between the command's read and its write.
            tests.allocate(self, C1, {RP1: {'VCPU': 4}}, generation=1)

        self.before_request(other_writer, 'POST', '/allocations')
        err, code = self.fails(*ALLOC, 'move', C1, C2, version='1.39')
        self.assertEqual(1, code)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertIn('consumer generation conflict', err)
        self.assertIn('Nothing was written. Changed since it was read: '
                      'consumer %s (generation 1 when read, 2 now).' % C1,
                      err)
        self.assertIn('openstack resource provider allocation show %s'
                      % C1, err)
        self.assertEqual([('POST', '/allocations')], self.writes())
        self.assertEqual({RP1: {'VCPU': 4}}, self.held(C1))
        self.assertEqual({RP2: {'DISK_GB': 1}}, self.held(C2))


class TestSaveRestore(WritesTestCase):

    def setUp(self):
        super().setUp()
        tests.allocate(self, C1, {RP1: {'VCPU': 2, 'MEMORY_MB': 256},
                                  RP2: {'DISK_GB': 10}})
        tests.allocate(self, C2, {RP1: {'VCPU': 1}}, project='project-2',
                       user='user-2', consumer_type='MIGRATION')
        tests.allocate(self, C3, {RP2: {'DISK_GB': 5}})
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.file = os.path.join(self.dir, 'saved.json')

    def saved(self):
        with open(self.file) as f:
            return json.load(f)

    def test_save_writes_every_consumer_of_the_providers(self):
        out = self.ok(*ALLOC, 'save', '--resource-provider', 'compute-1',
                      '--file', self.file, version='1.39')
        self.assertEqual(
            'Saved the allocations of 2 consumers on 2 resource providers '
            'to %s (read at --os-placement-api-version 1.39).\n'
            % self.file, out)
        data = self.saved()
        self.assertEqual(('1.39', 1), (data['microversion'],
                                       data['format_version']))
        self.assertRegex(data['saved_at'],
                         r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$')
        self.assertEqual({
            C1: {'allocations': {RP1: {'resources': {'VCPU': 2,
                                                     'MEMORY_MB': 256}},
                                 RP2: {'resources': {'DISK_GB': 10}}},
                 'project_id': 'project-1', 'user_id': 'user-1',
                 'consumer_generation': 1, 'consumer_type': 'INSTANCE'},
            C2: {'allocations': {RP1: {'resources': {'VCPU': 1}}},
                 'project_id': 'project-2', 'user_id': 'user-2',
                 'consumer_generation': 1, 'consumer_type': 'MIGRATION'}},
            data['consumers'])
        self.assertEqual([], self.writes())

    def test_save_delete_restore_gives_the_saved_allocations_back(self):
        self.ok(*ALLOC, 'save', '--file', self.file, version='1.39')
        before = {c: self.consumer(c) for c in (C1, C2, C3)}
        self.ok(*ALLOC, 'delete', C1, C2, C3, version='1.39')
        self.sent[:] = []
        rows = self.ok(*ALLOC, 'restore', self.file, '-f', 'json',
                       version='1.39')
        self.assertEqual([('POST', '/allocations')], self.writes())
        for consumer in (C1, C2, C3):
            now = self.consumer(consumer)
            for key in ('project_id', 'user_id', 'consumer_type'):
                self.assertEqual(before[consumer][key], now[key])
            self.assertEqual(self.held_of(before[consumer]),
                             self.held(consumer))
        self.assertEqual(
            [(C1, RP1, 'added'), (C1, RP2, 'added'), (C2, RP1, 'added'),
             (C3, RP2, 'added')],
            sorted((row['consumer_uuid'], row['resource_provider'],
                    row['change']) for row in rows))

    @staticmethod
    def held_of(payload):
        return {rp: alloc['resources']
                for rp, alloc in payload['allocations'].items()}

    def test_changed_consumer_is_refused_then_forced(self):
        self.ok(*ALLOC, 'save', '--file', self.file, version='1.39')
        self.ok(*ALLOC, 'delete', C2, version='1.39')
        tests.allocate(self, C1, {RP1: {'VCPU': 4}}, generation=1)
        self.sent[:] = []
        err, code = self.fails(*ALLOC, 'restore', self.file,
                               version='1.39')
        self.assertEqual(1, code)
        self.assertEqual([
            'Consumer %s changed since the save (generation 1 in the file, '
            '2 now): not restored; --force writes the saved allocations '
            'over its current ones (with its generation 2).' % C1,
            'Refused 1 of 2 consumers to restore, changed since the save; '
            'nothing was written.'], err.splitlines())
        self.assertEqual([], self.writes())
        self.assertEqual({}, self.held(C2))
        self.assertEqual({RP1: {'VCPU': 4}}, self.held(C1))

        self.ok(*ALLOC, 'restore', self.file, '--force', version='1.39')
        self.assertEqual([('POST', '/allocations')], self.writes())
        self.assertEqual({RP1: {'VCPU': 2, 'MEMORY_MB': 256},
                          RP2: {'DISK_GB': 10}}, self.held(C1))
        self.assertEqual({RP1: {'VCPU': 1}}, self.held(C2))

    def test_dry_run_prints_the_change_and_writes_nothing(self):
        self.ok(*ALLOC, 'save', '--file', self.file, version='1.39')
        self.ok(*ALLOC, 'unset', C1, '--provider', RP2, version='1.39')
        self.ok(*ALLOC, 'delete', C3, version='1.39')
        self.sent[:] = []
        out, err, code = self.openstack(
            *ALLOC, 'restore', self.file, '--dry-run', '-f', 'json',
            version='1.39')
        # C1 changed (the unset): the real run refuses it, so does this.
        self.assertEqual(1, code, err)
        self.assertEqual([], self.writes())
        self.assertEqual([
            {'consumer_uuid': C1, 'resource_provider': RP2,
             'change': 'added', 'before': {}, 'after': {'DISK_GB': 10}},
            {'consumer_uuid': C3, 'resource_provider': RP2,
             'change': 'added', 'before': {}, 'after': {'DISK_GB': 5}}],
            json.loads(out))
        self.assertIn('Consumer %s changed since the save' % C1, err)
        self.assertIn('Refused 1 of 2 consumers to restore, changed since '
                      'the save; nothing was written.', err)
        self.assertEqual({RP1: {'VCPU': 2, 'MEMORY_MB': 256}},
                         self.held(C1))

    def test_file_saved_at_1_28_restored_at_1_39_keeps_types(self):
        self.ok(*ALLOC, 'save', '--file', self.file, version='1.28')
        self.assertNotIn('consumer_type', self.saved()['consumers'][C2])
        self.ok(*ALLOC, 'delete', C2, version='1.39')
        out, err, code = self.openstack(*ALLOC, 'restore', self.file,
                                        version='1.39')
        self.assertEqual(0, code, err)
        # C2 is gone and the file has no type for it.
        self.assertIn('Consumer %s has no type that can be written' % C2,
                      err)
        self.assertIn('sent at --os-placement-api-version 1.37', err)
        self.assertEqual({RP1: {'VCPU': 1}}, self.held(C2))
        self.assertEqual('unknown', self.consumer(C2)['consumer_type'])
        self.assertEqual('INSTANCE', self.consumer(C1)['consumer_type'])

    def test_nothing_changed_writes_nothing(self):
        self.ok(*ALLOC, 'save', '--consumer', C1, '--file', self.file,
                version='1.39')
        self.sent[:] = []
        out, err, code = self.openstack(*ALLOC, 'restore', self.file,
                                        version='1.39')
        self.assertEqual(0, code, err)
        self.assertIn('Nothing to restore: every consumer of the file (1) '
                      'holds what it says.', err)
        self.assertEqual([], self.writes())


class TestReshape(WritesTestCase):
    """A virt driver's reshape: VGPU from the root to a new child."""

    def setUp(self):
        super().setUp()
        tests.create_provider(self, RP3, 'compute-3',
                              {'VCPU': 8, 'VGPU': 4})
        tests.allocate(self, C1, {RP3: {'VCPU': 2, 'VGPU': 1}})
        self.child = 'aaaaaaaa-aaaa-4aaa-8aaa-0000000000c1'
        tests.create_provider(self, self.child, 'compute-3-pgpu-0',
                              parent=RP3)
        self.file = os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'reshape.json')

    def write_file(self, root_generation=None):
        root = self.api('GET', '/resource_providers/' + RP3)
        consumer = self.consumer(C1)
        body = {
            'inventories': {
                RP3: {'resource_provider_generation': root['generation']
                      if root_generation is None else root_generation,
                      'inventories': {'VCPU': {'total': 8}}},
                self.child: {'resource_provider_generation': 0,
                             'inventories': {'VGPU': {'total': 4}}}},
            'allocations': {C1: {
                'allocations': {RP3: {'resources': {'VCPU': 2}},
                                self.child: {'resources': {'VGPU': 1}}},
                'project_id': 'project-1', 'user_id': 'user-1',
                'consumer_generation': consumer['consumer_generation'],
                'consumer_type': 'INSTANCE'}}}
        with open(self.file, 'w') as f:
            json.dump(body, f)

    def inventories(self, rp):
        return {rc: inv['total'] for rc, inv in self.api(
            'GET', '/resource_providers/%s/inventories' % rp)[
                'inventories'].items()}

    def test_dry_run_checks_and_writes_nothing(self):
        self.write_file()
        out, err, code = self.openstack(
            'resource', 'provider', 'reshape', self.file, '--dry-run',
            '-f', 'json', version='1.39')
        self.assertEqual(0, code, err)
        self.assertIn('Dry run: no rule of Placement refuses this reshape; '
                      'nothing was sent.', err)
        self.assertEqual([], self.writes())
        rows = [(r['resource_provider'], r['resource_class'],
                 r['consumer_uuid'], r['before'], r['after'])
                for r in json.loads(out)]
        self.assertEqual([
            (RP3, 'VGPU', '', '1/4', ''),
            (self.child, 'VGPU', '', '', '1/4'),
            (RP3, 'VGPU', C1, 1, ''),
            (self.child, 'VGPU', C1, '', 1)], rows)
        self.assertEqual({'VCPU': 8, 'VGPU': 4}, self.inventories(RP3))

    def test_reshape_moves_inventory_and_allocations_in_one_request(self):
        self.write_file()
        self.ok('resource', 'provider', 'reshape', self.file,
                version='1.39')
        self.assertEqual([('POST', '/reshaper')], self.writes())
        self.assertEqual({'VCPU': 8}, self.inventories(RP3))
        self.assertEqual({'VGPU': 4}, self.inventories(self.child))
        self.assertEqual({RP3: {'VCPU': 2}, self.child: {'VGPU': 1}},
                         self.held(C1))

    def test_wrong_generation_is_refused_and_nothing_changes(self):
        root = self.api('GET', '/resource_providers/' + RP3)['generation']
        self.write_file(root_generation=root - 1)
        err, code = self.fails('resource', 'provider', 'reshape',
                               self.file, '--dry-run', version='1.39')
        self.assertIn('Placement would refuse: resource provider %s: '
                      'generation %d in the file, %d now.'
                      % (RP3, root - 1, root), err)
        err, code = self.fails('resource', 'provider', 'reshape',
                               self.file, version='1.39')
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertIn('resource provider generation conflict', err)
        self.assertIn('Nothing was written. Changed since it was read: '
                      'resource provider %s (generation %d when read, %d '
                      'now).' % (RP3, root - 1, root), err)
        self.assertEqual([('POST', '/reshaper')], self.writes())
        self.assertEqual({'VCPU': 8, 'VGPU': 4}, self.inventories(RP3))
        self.assertEqual({}, self.inventories(self.child))
        self.assertEqual({RP3: {'VCPU': 2, 'VGPU': 1}}, self.held(C1))

    def test_dry_run_refuses_what_does_not_fit(self):
        self.write_file()
        with open(self.file) as f:
            body = json.load(f)
        body['inventories'][self.child]['inventories']['VGPU'] = {
            'total': 4, 'max_unit': 2}
        body['allocations'][C1]['allocations'][self.child] = {
            'resources': {'VGPU': 3}}
        with open(self.file, 'w') as f:
            json.dump(body, f)
        err, code = self.fails('resource', 'provider', 'reshape',
                               self.file, '--dry-run', version='1.39')
        self.assertIn('Placement would refuse: consumer %s: VGPU=3 on '
                      'resource provider %s is outside min_unit 1, max_unit '
                      '2, step_size 1.' % (C1, self.child), err)
        self.assertEqual([], self.writes())
        # The real run: Placement says the same.
        err, code = self.fails('resource', 'provider', 'reshape',
                               self.file, version='1.39')
        self.assertIn('Nothing was written.', err)
        self.assertEqual({'VCPU': 8, 'VGPU': 4}, self.inventories(RP3))
