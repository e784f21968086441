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

"""ci_failures.py on a real stestr repository.

``tox -e py3`` runs these after the unit tests; alone::

    .tox/py3/bin/python -m unittest discover -s tools -p 'test_ci_*.py'
"""

import contextlib
import io
import os
import subprocess
import sys
import tempfile
import unittest

import subunit

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import ci_failures  # noqa: E402

STESTR = os.path.join(os.path.dirname(sys.executable), 'stestr')


def stream(*tests):
    """A subunit v2 stream of (id, status or None, traceback or None)."""
    out = io.BytesIO()
    result = subunit.StreamResultToBytes(out)
    for test_id, status, traceback in tests:
        result.status(test_id=test_id, test_status='inprogress')
        if traceback:
            result.status(test_id=test_id, file_name='traceback',
                          file_bytes=traceback.encode(), eof=True,
                          mime_type='text/plain; charset=utf8')
        if status:
            result.status(test_id=test_id, test_status=status)
    return out.getvalue()


class TestFailures(unittest.TestCase):

    def setUp(self):
        work = tempfile.TemporaryDirectory()
        self.addCleanup(work.cleanup)
        self.dir = work.name
        with open(os.path.join(self.dir, '.stestr.conf'), 'w') as f:
            f.write('[DEFAULT]\ntest_path=.\n')

    def load(self, data):
        subprocess.run([STESTR, 'load', '--force-init'], input=data,
                       cwd=self.dir, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)

    def report(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(0, ci_failures.main(['--stestr', STESTR,
                                                  '--dir', self.dir]))
        return out.getvalue().splitlines()

    def test_failed_and_unfinished_tests_are_listed_last(self):
        self.load(stream(('a.test_ok', 'success', None),
                         ('a.test_skipped', 'skip', None)))
        self.load(stream(('b.test_ok', 'success', None),
                         ('b.test_bad', 'fail',
                          'Traceback (most recent call last):\n'
                          'AssertionError: 1 != 2\n'),
                         ('b.test_crashed', None, None)))
        lines = self.report()
        self.assertEqual(['Tests that did not pass (2):',
                          '%s, run 1: b.test_bad: fail' % self.dir,
                          # stestr stores a test left unfinished (its
                          # worker died) as failed.
                          '%s, run 1: b.test_crashed: fail' % self.dir],
                         lines[-3:])
        self.assertIn('    AssertionError: 1 != 2', lines)
        self.assertNotIn('a.test_ok', '\n'.join(lines))

    def test_every_test_passed(self):
        self.load(stream(('a.test_ok', 'success', None)))
        self.assertEqual(
            ['Every test of the stestr runs passed or was skipped.'],
            self.report())

    def test_no_repository(self):
        self.assertEqual(['No stestr run to report on.'], self.report())

    def test_a_long_text_keeps_its_end(self):
        lines = ['line %d' % n for n in range(100)]
        self.assertEqual(['    [60 lines before]'] +
                         ['    line %d' % n for n in range(60, 100)],
                         ci_failures.tail('\n'.join(lines)))


if __name__ == '__main__':
    unittest.main()
