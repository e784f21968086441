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

"""``allocation move`` as Nova's ``move_allocations``, on a real Placement.

The target's allocations become the source's (on the ``--resource-provider``
ones only, when given), with a note of what the target held; ``--sum``
adds them instead. The clean-ups of a failed migration or resize, read
back from the server after each, and the type asked for a consumer
written before consumer types.
"""

import testscenarios

from osc_placement import tests
from osc_placement.tests.functional import test_allocation_writes as writes

RP1, RP2, RP3 = writes.RP1, writes.RP2, writes.RP3
ALLOC = writes.ALLOC
SERVER = 'cccccccc-cccc-4ccc-8ccc-000000000001'
MIGRATION = 'cccccccc-cccc-4ccc-8ccc-0000000000a1'
OLD_FLAVOR = {'VCPU': 2, 'MEMORY_MB': 512}
NEW_FLAVOR = {'VCPU': 4, 'MEMORY_MB': 1024}

load_tests = testscenarios.load_tests_apply_scenarios


def note(target, held):
    """The line ``move`` prints about what the target held."""
    return (
        'Consumer %s held %s before the move: replaced by the source\'s '
        '(--sum adds to them instead).' % (target, ' '.join(
            'rp=%s,%s' % (rp, ','.join('%s=%s' % item
                                       for item in sorted(resources.items())))
            for rp, resources in sorted(held))))


class MoveTestCase(writes.WritesTestCase):
    """compute-1 (RP1), storage-1 (RP2) and compute-2 (RP3)."""

    def setUp(self):
        super().setUp()
        tests.create_provider(self, RP3, 'compute-2',
                              {'VCPU': 8, 'MEMORY_MB': 4096})

    def usage(self, rp):
        return self.api('GET', '/resource_providers/%s/usages' % rp)[
            'usages']


class TestMoveReplaces(MoveTestCase):

    scenarios = writes.base.versions('1.13', '1.28', '1.39')

    def resize_on_one_host(self):
        """A resize on compute-1 to revert, as Nova leaves it.

        The migration holds the old flavor, the server the new one, both
        on the same provider.
        """
        tests.allocate(self, MIGRATION, {RP1: OLD_FLAVOR},
                       consumer_type='MIGRATION')
        tests.allocate(self, SERVER, {RP1: NEW_FLAVOR})

    def test_same_host_resize_leaves_one_flavor(self):
        self.resize_on_one_host()
        out, err, code = self.openstack(*ALLOC, 'move', MIGRATION, SERVER,
                                        '-f', 'json', version=self.version)
        self.assertEqual(0, code, err)
        self.assertEqual(note(SERVER, [(RP1, NEW_FLAVOR)]) + '\n', err)
        self.assertEqual([('POST', '/allocations')], self.writes())
        self.assertEqual({RP1: OLD_FLAVOR}, self.held(SERVER))
        self.assertEqual({}, self.held(MIGRATION))
        self.assertEqual(OLD_FLAVOR, {
            rc: used for rc, used in self.usage(RP1).items() if used})

    def test_sum_adds_the_sources_amounts_as_before(self):
        self.resize_on_one_host()
        out, err, code = self.openstack(*ALLOC, 'move', MIGRATION, SERVER,
                                        '--sum', version=self.version)
        self.assertEqual(0, code, err)
        self.assertEqual('', err)
        self.assertEqual({RP1: {'VCPU': 6, 'MEMORY_MB': 1536}},
                         self.held(SERVER))
        self.assertEqual({}, self.held(MIGRATION))

    def test_failed_migration_the_destination_is_released(self):
        # compute-2 to compute-1 failed, the server stays on compute-2:
        # the migration holds compute-2, the server compute-1 and storage.
        tests.allocate(self, MIGRATION, {RP3: OLD_FLAVOR},
                       consumer_type='MIGRATION')
        tests.allocate(self, SERVER, {RP1: OLD_FLAVOR,
                                      RP2: {'DISK_GB': 10}})
        out, err, code = self.openstack(*ALLOC, 'move', MIGRATION, SERVER,
                                        version=self.version)
        self.assertEqual(0, code, err)
        self.assertEqual(note(SERVER, [(RP1, OLD_FLAVOR),
                                       (RP2, {'DISK_GB': 10})]) + '\n', err)
        self.assertEqual({RP3: OLD_FLAVOR}, self.held(SERVER))
        self.assertEqual({}, self.held(MIGRATION))
        self.assertEqual({'VCPU': 0, 'MEMORY_MB': 0}, self.usage(RP1))
        self.assertEqual({'DISK_GB': 0}, self.usage(RP2))

    def test_on_providers_named_the_targets_others_are_kept(self):
        tests.allocate(self, MIGRATION, {RP1: OLD_FLAVOR,
                                         RP2: {'DISK_GB': 10}})
        tests.allocate(self, SERVER, {RP2: {'DISK_GB': 5},
                                      RP3: NEW_FLAVOR})
        out, err, code = self.openstack(
            *ALLOC, 'move', MIGRATION, SERVER, '--resource-provider',
            'storage-1', version=self.version)
        self.assertEqual(0, code, err)
        self.assertEqual(note(SERVER, [(RP2, {'DISK_GB': 5})]) + '\n', err)
        self.assertEqual({RP2: {'DISK_GB': 10}, RP3: NEW_FLAVOR},
                         self.held(SERVER))
        self.assertEqual({RP1: OLD_FLAVOR}, self.held(MIGRATION))

    def test_target_holding_nothing_gets_no_note(self):
        tests.allocate(self, MIGRATION, {RP1: OLD_FLAVOR})
        out, err, code = self.openstack(*ALLOC, 'move', MIGRATION, SERVER,
                                        version=self.version)
        self.assertEqual(0, code, err)
        self.assertEqual('', err)
        self.assertEqual({RP1: OLD_FLAVOR}, self.held(SERVER))


class TestMoveTargetChanged(MoveTestCase):

    def test_a_change_of_the_target_is_refused_and_nothing_changes(self):
        # As Nova's move_allocations, the write carries the target's
        # generation too: a change of the target in between is refused.
        tests.allocate(self, MIGRATION, {RP1: OLD_FLAVOR})
        tests.allocate(self, SERVER, {RP3: NEW_FLAVOR})

        def other_writer(method, url, kwargs):
            tests.allocate(self, SERVER, {RP3: {'VCPU': 1}}, generation=1)

        self.before_request(other_writer, 'POST', '/allocations')
        err, code = self.fails(*ALLOC, 'move', MIGRATION, SERVER,
                               version='1.39')
        self.assertIn('Changed since it was read: consumer %s (generation '
                      '1 when read, 2 now).' % SERVER, err)
        self.assertEqual({RP1: OLD_FLAVOR}, self.held(MIGRATION))
        self.assertEqual({RP3: {'VCPU': 1}}, self.held(SERVER))


class TestMoveTypeOfAnUntypedSource(MoveTestCase):
    """``--consumer-type`` with a source written before 1.38 (``unknown``).

    A write at 1.38 needs a type for every consumer in it.
    """

    scenarios = writes.base.versions('1.38', '1.39')

    def setUp(self):
        super().setUp()
        # Written at 1.28: the server reads its type back as 'unknown'.
        tests.allocate(self, MIGRATION, {RP1: OLD_FLAVOR,
                                         RP2: {'DISK_GB': 10}},
                       consumer_type=None)

    def test_new_target_gets_the_type_asked(self):
        out, err, code = self.openstack(
            *ALLOC, 'move', MIGRATION, SERVER, '--consumer-type',
            'INSTANCE', '-f', 'json', version=self.version)
        self.assertEqual(0, code, err)
        self.assertEqual('', err)
        self.assertEqual('INSTANCE', self.consumer(SERVER)['consumer_type'])
        self.assertEqual({RP1: OLD_FLAVOR, RP2: {'DISK_GB': 10}},
                         self.held(SERVER))
        self.assertEqual({}, self.held(MIGRATION))

    def test_target_of_another_type_gets_the_type_asked(self):
        tests.allocate(self, SERVER, {RP3: NEW_FLAVOR},
                       consumer_type='MIGRATION')
        out, err, code = self.openstack(
            *ALLOC, 'move', MIGRATION, SERVER, '--consumer-type',
            'INSTANCE', version=self.version)
        self.assertEqual(0, code, err)
        self.assertEqual(note(SERVER, [(RP3, NEW_FLAVOR)]) + '\n', err)
        self.assertEqual('INSTANCE', self.consumer(SERVER)['consumer_type'])
        self.assertEqual({RP1: OLD_FLAVOR, RP2: {'DISK_GB': 10}},
                         self.held(SERVER))

    def test_source_that_keeps_allocations_is_refused_in_one_line(self):
        tests.allocate(self, SERVER, {RP3: NEW_FLAVOR},
                       consumer_type='MIGRATION')
        err, code = self.fails(
            *ALLOC, 'move', MIGRATION, SERVER, '--resource-provider',
            'storage-1', '--consumer-type', 'INSTANCE', version=self.version)
        self.assertEqual(
            'Consumer %s keeps allocations after the move and has no type '
            'that can be written (unknown): --consumer-type INSTANCE needs '
            'a type for it in the same request; move all of its '
            'allocations, or leave out --consumer-type, which writes no '
            'type.\n' % MIGRATION, err)
        self.assertEqual([], self.writes())
        self.assertEqual('MIGRATION', self.consumer(SERVER)['consumer_type'])
        self.assertEqual({RP3: NEW_FLAVOR}, self.held(SERVER))
        self.assertEqual({RP1: OLD_FLAVOR, RP2: {'DISK_GB': 10}},
                         self.held(MIGRATION))
