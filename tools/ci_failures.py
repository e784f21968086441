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

"""The tests that did not pass, at the end of a failed CI run.

tox prints each environment's failures in the middle of a long log, and a
CI page often shows only its end. This prints, last, every test of the
stestr repository's runs that neither passed nor was skipped: the end of
each text it left (traceback, stdout, stderr, log), then the list of
their ids and statuses. A test whose worker died is among them (stestr
stores it as failed).

Run with a Python that has stestr (any tox test environment's)::

    .tox/py3/bin/python tools/ci_failures.py --stestr .tox/py3/bin/stestr \
        [--dir .] [--dir .tox/reference/tmp/reference]
"""

import argparse
import io
import subprocess
import sys

import subunit
import testtools

PASSED = {'success', 'skip', 'xfail'}
# Lines of each text a failed test left, from its end.
TAIL = 40


def run_ids(stestr, where):
    """The ids of the runs of the repository in ``where``, oldest first.

    Empty when there is no repository.
    """
    # One run a line, its id first (cliff's "value" format); without a
    # repository, a sentence instead.
    out = subprocess.run([stestr, 'history', 'list', '-f', 'value'],
                         text=True, cwd=where, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL).stdout
    firsts = [line.split()[0] for line in out.splitlines() if line.split()]
    return sorted(int(first) for first in firsts if first.isdigit())


def run_stream(stestr, where, run_id):
    """The subunit stream of one run of the repository in ``where``."""
    return io.BytesIO(subprocess.run(
        [stestr, 'history', 'show', '--subunit', str(run_id)], cwd=where,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout)


def failures(stream):
    """(test id, status, {name: text}) of every test that did not pass."""
    found = []

    def keep(test):
        if test['status'] in PASSED:
            return
        texts = {}
        for name, detail in sorted(test['details'].items()):
            if detail.content_type.type == 'text':
                texts[name] = detail.as_text()
        found.append((test['id'], test['status'], texts))

    result = testtools.StreamToDict(keep)
    result.startTestRun()
    try:
        subunit.ByteStreamToStreamResult(
            stream, non_subunit_name='stdout').run(result)
    finally:
        result.stopTestRun()
    return found


def tail(text, lines=TAIL):
    kept = text.rstrip('\n').splitlines()
    if len(kept) > lines:
        return ['    [%d lines before]' % (len(kept) - lines)] + [
            '    ' + line for line in kept[-lines:]]
    return ['    ' + line for line in kept]


def texts_of(texts):
    """The lines that show what a failed test left."""
    lines = []
    for name, text in texts.items():
        if text.strip():
            lines.append('  %s:' % name)
            lines.extend(tail(text))
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--stestr', default='stestr',
                        help='the stestr program (default: %(default)s)')
    parser.add_argument('--dir', action='append', dest='dirs',
                        help='a directory whose .stestr repository is read '
                        '(repeatable; default: the current one)')
    args = parser.parse_args(argv)
    out, names, ran = [], [], False
    for where in args.dirs or ['.']:
        for run_id in run_ids(args.stestr, where):
            ran = True
            stream = run_stream(args.stestr, where, run_id)
            for test_id, status, texts in failures(stream):
                names.append('%s, run %d: %s: %s'
                             % (where, run_id, test_id, status))
                out.append(names[-1])
                out.extend(texts_of(texts))
    if not ran:
        print('No stestr run to report on.')
    elif names:
        # The details first, the list of names last: the end of the log
        # is what a CI page shows.
        print('\n'.join(out))
        print('Tests that did not pass (%d):' % len(names))
        print('\n'.join(names))
    else:
        print('Every test of the stestr runs passed or was skipped.')
    return 0


if __name__ == '__main__':
    sys.exit(main())
