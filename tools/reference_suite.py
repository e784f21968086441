#!/usr/bin/env python3
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

"""Run the reference's own functional suite against this plugin.

The functional tests of the upstream osc-placement release we replace
drive the ``openstack`` shell against a real Placement (the placement
package's fixture, in-process). Passing them with our plugin installed
is the plainest proof of the drop-in promise. This tool:

1. downloads the release's source distribution from the package index
   (``pip download --no-deps --no-binary :all:``), into ``--work-dir``;
2. unpacks only its ``osc_placement/tests/functional`` as the package
   ``reference_tests.functional`` there, with the tests' imports of their
   own base module pointed at that copy (``osc_placement.tests`` is our
   package: its base module is not theirs), and the skips of ``SKIPS``
   added at the end of their modules;
3. runs that copy with stestr, in ``--work-dir``; the commands the tests
   run are the ones installed in this Python environment, ours;
4. counts the outcomes from stestr's subunit record and fails unless
   every test passed and at least ``--expect`` tests ran, so that a
   download or a discovery that finds fewer tests cannot pass quietly.
   A skipped test fails the run too unless its reason names a rule of
   doc/source/contributor/deviations.rst (``D<n>``): the rule that says
   the reference is wrong there. The only skips are those of ``SKIPS``
   below, each added after the module it skips in.

    tools/reference_suite.py --work-dir /tmp/ref
    tools/reference_suite.py --work-dir /tmp/ref -- test_inventory

Arguments after ``--`` go to ``stestr run`` (a filter, ``--serial``).
Nothing of the reference is kept in this repository.
"""

import argparse
import glob
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile

import subunit
import testtools

RELEASE = '4.9.1'
# The number of tests of the 4.9.1 functional suite.
EXPECTED = 160
PACKAGE = 'reference_tests'
SUITE = 'osc_placement/tests/functional/'
IMPORT = re.compile(r'^(\s*)(from|import)(\s+)osc_placement\.tests\.',
                    re.MULTILINE)
RULE = re.compile(r'\bD\d+[a-z]?\b')

# The reference tests this plugin skips, by module, each with the rule of
# doc/source/contributor/deviations.rst that says the reference is wrong
# there, named first in the reason.
SKIPS = {
    'test_inventory': {
        'TestAggregateInventory.test_with_aggregate': (
            'D20: the dry run of records without a total warns on stderr '
            'that Placement would refuse each of them, and this test\'s '
            'harness fails any command that writes to stderr; its rows and '
            'exit 0 are kept, and tested with the warnings in '
            'osc_placement/tests/functional/test_inventory_warnings.py'),
    },
}


def download(release, directory):
    """The path of the release's sdist, downloaded into ``directory``."""
    os.makedirs(directory, exist_ok=True)
    subprocess.run(
        [sys.executable, '-m', 'pip', 'download', '--no-deps',
         '--no-binary', ':all:', '--dest', directory,
         'osc-placement==%s' % release], check=True)
    found = glob.glob(os.path.join(directory,
                                   'osc_placement-%s.tar.gz' % release))
    if not found:
        sys.exit('pip left no osc_placement-%s.tar.gz in %s'
                 % (release, directory))
    return found[0]


def skips(module):
    """Lines that skip the tests of ``module`` that SKIPS names.

    Appended to the module: a name that is not there (a class or test of
    another release) fails its import, and so the run.
    """
    lines = []
    for test, reason in sorted(SKIPS.get(module, {}).items()):
        if not RULE.match(reason):
            sys.exit('the skip of %s.%s names no rule' % (module, test))
        lines.append('%s = _reference_suite_unittest.skip(%r)(%s)'
                     % (test, reason, test))
    if not lines:
        return ''
    return ('\n\n# Added by tools/reference_suite.py: the skips that a rule '
            'of\n# deviations.rst names.\nimport unittest as '
            '_reference_suite_unittest\n%s\n' % '\n'.join(lines))


def unpack(sdist, work_dir):
    """Write the suite as ``<work_dir>/reference_tests/functional``.

    Returns the number of modules written. Only the suite's ``.py`` files
    are read from the archive, and each is written under a name of our
    choosing, so no path inside the archive decides where a file goes.
    """
    target = os.path.join(work_dir, PACKAGE, 'functional')
    shutil.rmtree(os.path.join(work_dir, PACKAGE), ignore_errors=True)
    os.makedirs(target)
    with open(os.path.join(work_dir, PACKAGE, '__init__.py'), 'w'):
        pass
    written = 0
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            # <name>-<version>/osc_placement/tests/functional/<module>.py
            inner = member.name.split('/', 1)[-1]
            module = inner[len(SUITE):]
            if (not member.isfile() or not inner.startswith(SUITE)
                    or '/' in module or not module.endswith('.py')):
                continue
            text = archive.extractfile(member).read().decode('utf-8')
            text = IMPORT.sub(r'\1\2\3%s.' % PACKAGE, text)
            text += skips(module[:-len('.py')])
            if re.search(r'^\s*(from|import)\s+osc_placement\.tests\b',
                         text, re.MULTILINE):
                sys.exit('%s still imports osc_placement.tests after the '
                         'rewrite' % inner)
            with open(os.path.join(target, module), 'w') as f:
                f.write(text)
            written += 1
    if not written:
        sys.exit('%s holds no %s*.py' % (sdist, SUITE))
    with open(os.path.join(work_dir, '.stestr.conf'), 'w') as f:
        f.write('[DEFAULT]\ntest_path=./%s/functional\ntop_dir=./\n'
                % PACKAGE)
    return written


def outcomes(work_dir):
    """{test id: (status, skip reason)} of stestr's last run."""
    stream = subprocess.run(
        [sys.executable, '-m', 'stestr', 'last', '--subunit'],
        cwd=work_dir, stdout=subprocess.PIPE, check=True).stdout
    tests = {}

    def record(test):
        reason = test['details'].get('reason')
        tests[test['id']] = (test['status'],
                             reason.as_text() if reason else '')

    result = testtools.StreamToDict(record)
    result.startTestRun()
    subunit.ByteStreamToStreamResult(
        io.BytesIO(stream), non_subunit_name='stdout').run(result)
    result.stopTestRun()
    return tests


def verdict(tests, expected):
    """Lines saying what is wrong with the run (none when it passed)."""
    problems = []
    skipped = {t: reason for t, (status, reason) in tests.items()
               if status == 'skip'}
    for test, reason in sorted(skipped.items()):
        if not RULE.search(reason):
            problems.append('%s skipped without naming a deviation rule: '
                            '%s' % (test, reason or '(no reason)'))
    failed = sorted(t for t, (status, _) in tests.items()
                    if status not in ('success', 'skip'))
    problems.extend('%s: %s' % (t, tests[t][0]) for t in failed)
    if len(tests) < expected:
        problems.append('only %d tests ran (%d expected)'
                        % (len(tests), expected))
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--work-dir', required=True,
                        help='Where the sdist is downloaded and its tests '
                             'unpacked and run')
    parser.add_argument('--release', default=RELEASE,
                        help='osc-placement release (default %(default)s)')
    parser.add_argument('--expect', type=int, default=EXPECTED,
                        help='Fewest tests that must run (default '
                             '%(default)s; lower it with a filter)')
    parser.add_argument('stestr_args', nargs='*',
                        help='Passed to stestr run')
    args = parser.parse_args(argv)
    work_dir = os.path.abspath(args.work_dir)
    sdist = download(args.release, os.path.join(work_dir, 'download'))
    print('%d modules of %s unpacked into %s' % (
        unpack(sdist, work_dir), os.path.basename(sdist),
        os.path.join(work_dir, PACKAGE)), flush=True)
    shutil.rmtree(os.path.join(work_dir, '.stestr'), ignore_errors=True)
    run = subprocess.run([sys.executable, '-m', 'stestr', 'run']
                         + args.stestr_args, cwd=work_dir)
    tests = outcomes(work_dir)
    problems = verdict(tests, args.expect)
    passed = sum(1 for status, _ in tests.values() if status == 'success')
    skipped = sum(1 for status, _ in tests.values() if status == 'skip')
    print('reference suite %s: %d passed, %d skipped, %d ran' % (
        args.release, passed, skipped, len(tests)))
    for problem in problems:
        print('FAILED: ' + problem)
    if problems or run.returncode:
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
