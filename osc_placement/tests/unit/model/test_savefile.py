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

import os

import fixtures
from oslotest import base

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
