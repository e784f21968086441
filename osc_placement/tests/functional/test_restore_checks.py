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

"""``allocation restore --dry-run`` predicts the real run, on a real
Placement: the same refusals, the same exit code, and no write.
"""

import json
import os
import stat

import fixtures

from osc_placement.model import savefile
from osc_placement import tests
from osc_placement.tests.functional import test_allocation_writes as writes

ALLOC = writes.ALLOC
C1, C2, RP1 = writes.C1, writes.C2, writes.RP1
MISSING_RP = 'aaaaaaaa-aaaa-4aaa-8aaa-0000000000ff'


class RestoreCase(writes.WritesTestCase):
    """C1 on compute-1 and storage-1, C2 on compute-1; a file dir."""

    def setUp(self):
        super().setUp()
        tests.allocate(self, C1, {RP1: {'VCPU': 2, 'MEMORY_MB': 256},
                                  writes.RP2: {'DISK_GB': 10}})
        tests.allocate(self, C2, {RP1: {'VCPU': 1}}, project='project-2',
                       user='user-2')
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.file = os.path.join(self.dir, 'saved.json')

    def edit(self, change):
        """Change the saved file: ``change(data)``."""
        with open(self.file) as f:
            data = json.load(f)
        change(data)
        with open(self.file, 'w') as f:
            json.dump(data, f)

    def state(self):
        return {c: self.held(c) for c in (C1, C2)}


class TestDryRunPredicts(RestoreCase):

    def both(self):
        """The dry run and the real run: (stderr lines, exit code) of each.

        Asserts that neither wrote anything.
        """
        before = self.state()
        self.sent[:] = []
        _out, dry_err, dry = self.openstack(*ALLOC, 'restore', self.file,
                                            '--dry-run', version='1.39')
        self.assertEqual([], self.writes())
        self.assertEqual(before, self.state())
        _out, err, code = self.openstack(*ALLOC, 'restore', self.file,
                                         version='1.39')
        return (dry_err.splitlines(), dry), (err.splitlines(), code)

    def test_consumer_changed_since_the_save(self):
        self.ok(*ALLOC, 'save', '--file', self.file, version='1.39')
        self.ok(*ALLOC, 'delete', C2, version='1.39')
        tests.allocate(self, C1, {RP1: {'VCPU': 4}}, generation=1)
        dry, real = self.both()
        self.assertEqual(1, real[1])
        self.assertEqual(real, dry)
        self.assertEqual([], self.writes())

    def test_provider_that_does_not_exist(self):
        self.ok(*ALLOC, 'save', '--file', self.file, version='1.39')
        self.edit(lambda data: data['consumers'][C1]['allocations'].update(
            {MISSING_RP: {'resources': {'VCPU': 1}}}))
        dry, real = self.both()
        self.assertEqual(1, real[1])
        self.assertEqual(real, dry)
        self.assertIn('resource provider %s does not exist' % MISSING_RP,
                      dry[0][0])
        self.assertEqual([], self.writes())

    def test_amount_above_capacity(self):
        self.ok(*ALLOC, 'save', '--file', self.file, version='1.39')
        self.edit(lambda data: data['consumers'][C1]['allocations'][RP1][
            'resources'].update(VCPU=100000))
        dry, real = self.both()
        self.assertEqual(1, real[1])
        self.assertEqual(real, dry)
        self.assertIn('VCPU would be used 100001 of a capacity of 8',
                      dry[0][0])
        self.assertEqual([], self.writes())


class TestSaveWhatRestoreTakes(RestoreCase):
    """A consumer that holds nothing is saved as such and restored."""

    def saved(self):
        with open(self.file) as f:
            return json.load(f)

    def test_mistyped_consumer_is_one_line_and_no_file(self):
        err, code = self.fails(*ALLOC, 'save', '--consumer', MISSING_RP,
                               '--file', self.file, version='1.39')
        self.assertEqual((
            ['--consumer %s holds no allocations (a mistyped UUID?): '
             'nothing was saved.' % MISSING_RP], 1),
            (err.splitlines(), code))
        self.assertFalse(os.path.exists(self.file))

    def test_consumer_gone_while_saving_is_saved_as_holding_nothing(self):
        deleted = []

        def delete_c2(method, url, kwargs):
            # Once: the server deleted between the two reads of save.
            if not deleted:
                deleted.append(self.api('DELETE', '/allocations/' + C2))

        self.before_request(delete_c2, 'GET', '/allocations/' + C2)
        out = self.ok(*ALLOC, 'save', '--file', self.file, version='1.39')
        self.assertIn('Saved the allocations of 2 consumers', out)
        self.assertIn('1 of them held nothing when read', out)
        self.assertEqual({'allocations': {}},
                         self.saved()['consumers'][C2])
        # What save wrote, restore takes: C2 still holds nothing.
        out, err, code = self.openstack(*ALLOC, 'restore', self.file,
                                        version='1.39')
        self.assertEqual(0, code, err)
        self.assertIn('Nothing to restore', err)
        # C2 holds something now: changed since the save; --force
        # removes it.
        tests.allocate(self, C2, {RP1: {'VCPU': 1}})
        err, code = self.fails(*ALLOC, 'restore', self.file,
                               version='1.39')
        self.assertIn('Consumer %s changed since the save (generation none '
                      'in the file, 1 now)' % C2, err)
        self.assertEqual({RP1: {'VCPU': 1}}, self.held(C2))
        rows = self.ok(*ALLOC, 'restore', self.file, '--force', '-f',
                       'json', version='1.39')
        self.assertEqual([{'consumer_uuid': C2, 'resource_provider': RP1,
                           'change': 'removed', 'before': {'VCPU': 1},
                           'after': {}}], rows)
        self.assertEqual({}, self.held(C2))

    def test_empty_cloud_saves_and_restores_nothing(self):
        self.ok(*ALLOC, 'delete', C1, C2, version='1.39')
        self.ok(*ALLOC, 'save', '--file', self.file, version='1.39')
        self.assertEqual({}, self.saved()['consumers'])
        out, err, code = self.openstack(*ALLOC, 'restore', self.file,
                                        version='1.39')
        self.assertEqual((0, ['Nothing to restore: the file has no '
                              'consumer.']), (code, err.splitlines()))


class TestSaveOfProviders(RestoreCase):
    """A restore of a save of providers names the consumers it leaves."""

    def test_consumers_now_on_the_providers_are_named_and_left_alone(self):
        out = self.ok(*ALLOC, 'save', '--resource-provider', 'storage-1',
                      '--file', self.file, version='1.39')
        self.assertIn('Saved the allocations of 1 consumer on 2 resource '
                      'providers', out)
        with open(self.file) as f:
            self.assertEqual([writes.RP2], json.load(f)['providers'])
        # After the save: C1 deleted, a new consumer on storage-1.
        self.ok(*ALLOC, 'delete', C1, version='1.39')
        tests.allocate(self, writes.C3, {writes.RP2: {'DISK_GB': 5}})
        left = ('Left alone: 1 consumer now on the resource providers '
                'saved, not in the file: %s.' % writes.C3)
        out, err, code = self.openstack(*ALLOC, 'restore', self.file, '-f',
                                        'json', version='1.39')
        self.assertEqual((0, [left]), (code, err.splitlines()))
        self.assertEqual([C1, C1], [r['consumer_uuid']
                                    for r in json.loads(out)])
        self.assertEqual({RP1: {'VCPU': 2, 'MEMORY_MB': 256},
                          writes.RP2: {'DISK_GB': 10}}, self.held(C1))
        self.assertEqual({writes.RP2: {'DISK_GB': 5}},
                         self.held(writes.C3))
        # Nothing left to restore: the consumers left alone still said.
        _out, err, code = self.openstack(*ALLOC, 'restore', self.file,
                                         version='1.39')
        self.assertEqual((0, [left, 'Nothing to restore: every consumer of '
                                    'the file (1) holds what it says.']),
                         (code, err.splitlines()))

    def test_the_restore_says_it_in_the_dry_run_and_the_real_run(self):
        self.ok(*ALLOC, 'save', '--resource-provider', 'storage-1',
                '--file', self.file, version='1.39')
        self.ok(*ALLOC, 'delete', C1, version='1.39')
        tests.allocate(self, writes.C3, {writes.RP2: {'DISK_GB': 5}})
        said = []
        for more in (('--dry-run',), ()):
            _out, err, code = self.openstack(*ALLOC, 'restore', self.file,
                                             *more, version='1.39')
            self.assertEqual(0, code, err)
            said.append(err.splitlines()[0])
        self.assertEqual(['Left alone: 1 consumer now on the resource '
                          'providers saved, not in the file: %s.'
                          % writes.C3] * 2, said)

    def test_a_save_of_consumers_names_no_provider(self):
        self.ok(*ALLOC, 'save', '--consumer', C1, '--file', self.file,
                version='1.39')
        with open(self.file) as f:
            self.assertNotIn('providers', json.load(f))
        tests.allocate(self, writes.C3, {writes.RP2: {'DISK_GB': 5}})
        _out, err, code = self.openstack(*ALLOC, 'restore', self.file,
                                         version='1.39')
        self.assertEqual((0, ['Nothing to restore: every consumer of the '
                              'file (1) holds what it says.']),
                         (code, err.splitlines()))


class TestSaveFile(RestoreCase):
    """``save --file`` writes a new regular file, or replaces one."""

    def test_symlink_is_refused_and_left_alone(self):
        target = os.path.join(self.dir, 'target')
        with open(target, 'w') as f:
            f.write('keep\n')
        os.symlink(target, self.file)
        err, code = self.fails(*ALLOC, 'save', '--file', self.file,
                               version='1.39')
        self.assertEqual((
            ['%s: not a regular file (a symbolic link): a new file is '
             'written here, or a regular one replaced; give another path, '
             'or - for standard output.' % self.file], 1),
            (err.splitlines(), code))
        self.assertTrue(os.path.islink(self.file))
        with open(target) as f:
            self.assertEqual('keep\n', f.read())

    def test_fifo_is_refused(self):
        # A FIFO stands for every node that is not a regular file (a
        # device such as /dev/null, which a test must not risk).
        os.mkfifo(self.file)
        err, code = self.fails(*ALLOC, 'save', '--file', self.file,
                               version='1.39')
        self.assertIn('%s: not a regular file (a FIFO)' % self.file, err)
        self.assertTrue(stat.S_ISFIFO(os.lstat(self.file).st_mode))

    def test_dash_is_standard_output(self):
        # In the test's own directory: no file named "-" appears there.
        self.addCleanup(os.chdir, os.getcwd())
        os.chdir(self.dir)
        out = self.ok(*ALLOC, 'save', '--file', '-', version='1.39')
        self.assertEqual({C1, C2}, set(json.loads(out)['consumers']))
        self.assertEqual([], os.listdir(self.dir))

    def test_new_file_is_0600_and_replaces_a_regular_one(self):
        with open(self.file, 'w') as f:
            f.write('old\n')
        os.chmod(self.file, 0o644)
        self.ok(*ALLOC, 'save', '--file', self.file, version='1.39')
        self.assertEqual(0o600, stat.S_IMODE(os.stat(self.file).st_mode))
        with open(self.file) as f:
            self.assertEqual({C1, C2}, set(json.load(f)['consumers']))
        self.assertEqual(['saved.json'], os.listdir(self.dir))

    def test_restore_of_dev_zero_is_one_line(self):
        self.sent[:] = []
        err, code = self.fails(*ALLOC, 'restore', '/dev/zero',
                               version='1.39')
        self.assertEqual(
            (['/dev/zero: larger than %d bytes: not a file this command '
              'writes.' % savefile.MAX_FILE_BYTES], 1),
            (err.splitlines(), code))
        self.assertEqual([], self.writes())


class TestFileOption(RestoreCase):
    """``--file`` on save, restore and reshape; the positional kept."""

    def test_restore_takes_file_option_as_the_positional(self):
        self.ok(*ALLOC, 'save', '--file', self.file, version='1.39')
        self.ok(*ALLOC, 'delete', C2, version='1.39')
        out = self.ok(*ALLOC, 'restore', '--file', self.file, '--dry-run',
                      '-f', 'value', version='1.39')
        self.assertEqual(out, self.ok(*ALLOC, 'restore', self.file,
                                      '--dry-run', '-f', 'value',
                                      version='1.39'))
        self.ok(*ALLOC, 'restore', '--file', self.file, version='1.39')
        self.assertEqual({RP1: {'VCPU': 1}}, self.held(C2))

    def test_reshape_takes_file_option(self):
        with open(self.file, 'w') as f:
            json.dump({'inventories': {RP1: {
                'resource_provider_generation': self.api(
                    'GET', '/resource_providers/' + RP1)['generation'],
                'inventories': {'VCPU': {'total': 16},
                                'MEMORY_MB': {'total': 4096}}}},
                'allocations': {}}, f)
        self.ok('resource', 'provider', 'reshape', '--file', self.file,
                version='1.39')
        self.assertEqual(16, self.api(
            'GET', '/resource_providers/%s/inventories/VCPU' % RP1)['total'])

    def test_neither_or_two_files_is_one_line(self):
        for command in (ALLOC + ('restore',),
                        ('resource', 'provider', 'reshape')):
            err, code = self.fails(*command, version='1.39')
            self.assertEqual((['Give the file: <path> or --file <path>.'],
                              1), (err.splitlines(), code))
            err, code = self.fails(*command, self.file, '--file', 'other',
                                   version='1.39')
            self.assertEqual(([
                'Two files given: %s and --file other; give one.'
                % self.file], 1), (err.splitlines(), code))
