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

"""The save file on disk: written whole, synced, then renamed."""

import json
import os

import fixtures
from oslotest import base

from osc_placement import microversions
from osc_placement.model import savefile


class TestWrite(base.BaseTestCase):

    def test_fsync_before_the_rename(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path, 'f')
        calls = []
        real_fsync, real_replace = os.fsync, os.replace

        def fsync(fd):
            calls.append('fsync')
            return real_fsync(fd)

        def replace(src, dst):
            calls.append('replace')
            return real_replace(src, dst)

        self.useFixture(fixtures.MonkeyPatch('os.fsync', fsync))
        self.useFixture(fixtures.MonkeyPatch('os.replace', replace))
        savefile.write(path, '{}\n')
        self.assertEqual(['fsync', 'replace'], calls[:2])
        with open(path) as f:
            self.assertEqual('{}\n', f.read())

    def test_no_temporary_file_left_after_ctrl_c(self):
        directory = self.useFixture(fixtures.TempDir()).path

        def fsync(fd):
            raise KeyboardInterrupt()

        self.useFixture(fixtures.MonkeyPatch('os.fsync', fsync))
        self.assertRaises(KeyboardInterrupt, savefile.write,
                          os.path.join(directory, 'f'), '{}\n')
        self.assertEqual([], os.listdir(directory))

    def test_a_new_file_only_never_replaces_one(self):
        directory = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(directory, 'undo.json')
        with open(path, 'w') as f:
            f.write('earlier\n')
        exc = self.assertRaises(savefile.FileError, savefile.write, path,
                                '{}\n', replace=False)
        self.assertEqual('%s: exists: only a new file is written here, '
                         'never one replaced; give another path.' % path,
                         str(exc))
        self.assertEqual(['undo.json'], os.listdir(directory))
        with open(path) as f:
            self.assertEqual('earlier\n', f.read())

    def test_a_file_made_meanwhile_is_not_replaced(self):
        # Made between the check and the link: the link refuses it.
        directory = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(directory, 'undo.json')
        real_link = os.link

        def link(src, dst):
            with open(dst, 'w') as f:
                f.write('meanwhile\n')
            return real_link(src, dst)

        self.useFixture(fixtures.MonkeyPatch('os.link', link))
        self.assertRaises(savefile.FileError, savefile.write, path, '{}\n',
                          replace=False)
        self.assertEqual(['undo.json'], os.listdir(directory))
        with open(path) as f:
            self.assertEqual('meanwhile\n', f.read())

    def test_a_new_file_without_hard_links(self):
        directory = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(directory, 'undo.json')

        def link(src, dst):
            raise PermissionError(1, 'Operation not permitted')

        self.useFixture(fixtures.MonkeyPatch('os.link', link))
        savefile.write(path, '{}\n', replace=False)
        self.assertEqual(['undo.json'], os.listdir(directory))
        self.assertEqual(0o600, os.stat(path).st_mode & 0o777)

    def test_messages_name_no_command_and_no_errno(self):
        directory = self.useFixture(fixtures.TempDir()).path
        link = os.path.join(directory, 'link')
        os.symlink(os.path.join(directory, 'target'), link)
        exc = self.assertRaises(savefile.FileError, savefile.write, link,
                                '{}\n')
        self.assertEqual('%s: not a regular file (a symbolic link): a new '
                         'file is written here, or a regular one replaced; '
                         'give another path.' % link, str(exc))

        def lstat(name):
            raise PermissionError(13, 'Permission denied', name)

        self.useFixture(fixtures.MonkeyPatch('os.lstat', lstat))
        exc = self.assertRaises(savefile.FileError, savefile.write, link,
                                '{}\n')
        self.assertEqual('%s: cannot write it: Permission denied.' % link,
                         str(exc))

    def test_check_writable(self):
        directory = self.useFixture(fixtures.TempDir()).path
        for path, message in (
                (os.path.join(directory, 'no', 'undo.json'),
                 'cannot write it: No such file or directory.'),
                (os.path.join(directory, 'file', 'undo.json'),
                 'cannot write it: Not a directory.'),
                (os.path.join(directory, 'file'),
                 'exists: only a new file is written here, never one '
                 'replaced; give another path.')):
            with open(os.path.join(directory, 'file'), 'w'):
                pass
            exc = self.assertRaises(savefile.FileError,
                                    savefile.check_writable, path,
                                    replace=False)
            self.assertEqual('%s: %s' % (path, message), str(exc))
        savefile.check_writable(os.path.join(directory, 'new.json'),
                                replace=False)
        self.assertEqual(['file'], os.listdir(directory))


class TestRead(base.BaseTestCase):
    """What a file must be, one line naming the file and the path."""

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.path = os.path.join(self.dir, 'saved.json')

    def refused(self, text, reader=savefile.read_saved):
        with open(self.path, 'w') as f:
            f.write(text)
        exc = self.assertRaises(savefile.FileError, reader, self.path)
        self.assertEqual(1, len(str(exc).splitlines()), str(exc))
        return str(exc)

    @staticmethod
    def saved(**changes):
        data = {'format_version': 1, 'microversion': '1.39',
                'saved_at': '2026-12-01T15:00:00Z', 'consumers': {}}
        data.update(changes)
        return json.dumps(data)

    def test_a_file_above_the_limit(self):
        self.useFixture(fixtures.MonkeyPatch(
            'osc_placement.model.savefile.MAX_FILE_BYTES', 100))
        self.assertEqual(
            '%s: larger than 100 bytes: not a file this command writes.'
            % self.path, self.refused(' ' * 90 + self.saved()))

    def test_deeply_nested_json_names_the_file(self):
        self.assertEqual(
            '%s: not JSON this command reads: nested too deeply.'
            % self.path, self.refused('[' * 100000 + ']' * 100000))

    def test_duplicate_key_is_named_with_its_path(self):
        c1 = 'cccccccc-cccc-4ccc-8ccc-000000000001'
        text = ('{"format_version": 1, "microversion": "1.39", "saved_at": '
                '"x", "consumers": {"%s": {"allocations": {}, '
                '"allocations": {}}}}' % c1)
        self.assertEqual(
            '%s: consumers.%s.allocations: expected the key once (it is '
            'given 2 times).' % (self.path, c1), self.refused(text))

    def test_unknown_top_level_key(self):
        self.assertEqual(
            '%s: consumer: expected no such key (known: consumers, '
            'format_version, microversion, providers, saved_at, written).'
            % self.path,
            self.refused(self.saved(consumer={})))

    def test_written_only_of_the_consumers_saved(self):
        c1 = 'cccccccc-cccc-4ccc-8ccc-000000000001'
        self.assertEqual(
            '%s: written.%s: expected a consumer of "consumers" too.'
            % (self.path, c1), self.refused(self.saved(written={c1: {
                'allocations': {}}})))

    def test_an_undo_file_reads_back_what_was_written(self):
        c1 = 'cccccccc-cccc-4ccc-8ccc-000000000001'
        rp = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
        after = {'allocations': {rp: {'resources': {'VCPU': 1}}},
                 'project_id': 'p', 'user_id': 'u',
                 'consumer_generation': 1}
        with open(self.path, 'w') as f:
            f.write(savefile.dumps({c1: {'allocations': {}}}, '1.39',
                                   '2026-12-01T15:00:00Z', {c1: after}))
        saved = savefile.read_saved(self.path)
        self.assertEqual({c1: after}, saved.written)
        with open(self.path, 'w') as f:
            f.write(savefile.dumps({}, '1.39', '2026-12-01T15:00:00Z'))
        self.assertNotIn('written', json.loads(open(self.path).read()))
        self.assertEqual({}, savefile.read_saved(self.path).written)

    def test_a_save_of_providers_reads_back_its_providers(self):
        rp = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
        with open(self.path, 'w') as f:
            f.write(savefile.dumps({}, '1.39', '2026-12-01T15:00:00Z',
                                   providers=[rp]))
        self.assertEqual([rp], savefile.read_saved(self.path).providers)
        # A file of before (no providers) reads as a save of consumers.
        with open(self.path, 'w') as f:
            f.write(self.saved())
        self.assertEqual([], savefile.read_saved(self.path).providers)

    def test_providers_are_uuids_each_once(self):
        rp = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
        for value, where, expected in (
                ({rp: 1}, 'providers', 'a list of resource provider UUIDs'),
                (['compute-1'], 'providers.0', 'a resource provider UUID'),
                ([rp, rp], 'providers.1', 'each resource provider once '
                                          '(%s is given twice)' % rp)):
            self.assertEqual(
                '%s: %s: expected %s.' % (self.path, where, expected),
                self.refused(self.saved(providers=value)))

    def test_unknown_microversion(self):
        self.assertEqual(
            '%s: microversion: expected a microversion this client knows, '
            '%s to %s.' % (self.path, microversions.BASE,
                           microversions.LATEST),
            self.refused(self.saved(microversion='1.99')))

    def test_reshape_file_too(self):
        self.assertIn('expected the key once',
                      self.refused('{"inventories": {}, "inventories": {}}',
                                   savefile.read_reshape))
