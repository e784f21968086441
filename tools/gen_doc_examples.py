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

"""Regenerate, or check, the example outputs of the user guide.

Each scenario (``tools/doc_examples/``, a module for a page or a few)
starts a real Placement (the fixture of
``osc_placement/tests/support/placement.py``) with the sample cloud, runs
commands through the installed ``openstack`` executable, exactly as an
operator would type them, and records the command lines with what they
printed into ``doc/source/user/examples/<name>.txt``.
The pages include those files, so every output shown in the guide is one
the current code really printed.

    tools/gen_doc_examples.py            # rewrite the files
    tools/gen_doc_examples.py --check    # fail (with a diff) if they differ
    tools/gen_doc_examples.py --only allocations
    tools/gen_doc_examples.py --nova --check   # tox -e e2e-nova runs it

``--nova`` runs the scenarios of NOVA_SCENARIOS instead, each behind a
real Keystone, Placement and Nova API (``stack.NovaCloud``: keystone and
nova installed, as in ``tox -e e2e-nova``, which checks them): the
examples of ``--flavor``. Their files (NOVA_FILES) are left alone by the
runs without it.

Identifiers are fixed (the sandbox seed, and ``--uuid`` wherever something
is created), so the outputs are the same on every run. Each recorded command
also states the exit code it must have: an example that is supposed to show
a failure cannot silently start succeeding, or the reverse.
"""

import argparse
from concurrent import futures
import difflib
import os
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
sys.path.insert(0, TOP)

import fixtures  # noqa: E402

from osc_placement.tests import support  # noqa: E402
from osc_placement.tests.support import cloud  # noqa: E402
from osc_placement.tests.support import placement  # noqa: E402

from doc_examples import allocations  # noqa: E402
from doc_examples import candidates  # noqa: E402
from doc_examples import drain  # noqa: E402
from doc_examples import gpu  # noqa: E402
from doc_examples import providers  # noqa: E402
from doc_examples import recorder  # noqa: E402
from doc_examples import scripting  # noqa: E402
from doc_examples import troubleshooting  # noqa: E402

EXAMPLES_DIR = os.path.join(TOP, 'doc', 'source', 'user', 'examples')
# Scenarios run at the same time (each with its own server); most of the
# time goes into starting ``openstack`` processes, so about one per core.
PARALLEL = max(2, min(4, os.cpu_count() or 2))

# Every scenario, in the order ``--only`` lists them.
SCENARIOS = (
    providers.microversions,
    providers.providers,
    allocations.allocations,
    allocations.allocation_writes,
    providers.inventory,
    candidates.candidates,
    troubleshooting.troubleshooting,
    scripting.scripting,
    candidates.capacity,
    candidates.capacity_fit,
    troubleshooting.no_valid_host,
    drain.drain,
)
# The scenarios of --nova, and the files they write.
NOVA_SCENARIOS = (
    gpu.gpu_fit,
)
NOVA_FILES = ('capacity-gpu.txt',)


def generate(names, nova=False):
    """{file name: text} of the selected scenarios.

    nova: those of NOVA_SCENARIOS, behind Keystone and Nova.
    """
    # Placement builds allocation candidates and trait lists from Python
    # sets, whose order changes with the hash seed of the server process.
    # A fixed seed (inherited by the server and the clients) gives the same
    # order on every run.
    os.environ['PYTHONHASHSEED'] = '0'
    selected = [func for func in (NOVA_SCENARIOS if nova else SCENARIOS)
                if not names or func.__name__ in names]
    if nova:
        # One stack at a time: Keystone, Placement and Nova take minutes
        # and much of the machine to start.
        results = [run_nova_scenario(func) for func in selected]
        return _files(results)
    # Each scenario has a sandbox of its own, started and stopped in the
    # worker thread that runs it: they can run side by side.
    with futures.ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        results = list(pool.map(run_scenario, selected))
    return _files(results)


def _files(results):
    """{file name: text} of the recorded blocks of each scenario."""
    files = {}
    for recorded in results:
        for name, blocks in recorded.items():
            files[name + '.txt'] = '\n'.join(blocks)
    return files


def run_scenario(func):
    """{example name: [recorded blocks]} of one scenario."""
    recorded = {}
    with placement.Placement() as box:
        cloud.seed(box.endpoint)
        func(recorder.Recorder(box, recorded))
    return recorded


def run_nova_scenario(func):
    """{example name: [recorded blocks]} of a scenario of NOVA_SCENARIOS.

    Its own Keystone, Placement and Nova; the commands log in through
    Keystone as the admin, and find each service in the catalog.
    """
    # Only here: the other scenarios need neither keystone nor nova.
    from osc_placement.tests.support import stack
    recorded = {}
    with stack.NovaCloud() as box:
        env = box.client_env()
        env['PYTHONWARNINGS'] = 'ignore'
        func(recorder.Recorder(box, recorded, env=env))
    return recorded


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument('--check', action='store_true',
                      help='compare with the committed files; exit 1 and '
                           'print a diff if they differ')
    mode.add_argument('--write', action='store_true',
                      help='rewrite the files (the default)')
    parser.add_argument('--nova', action='store_true',
                        help='the scenarios behind Keystone and Nova '
                             '(keystone and nova installed: tox -e '
                             'e2e-nova)')
    parser.add_argument('--only', action='append', default=[],
                        choices=[f.__name__ for f in
                                 SCENARIOS + NOVA_SCENARIOS],
                        help='run only this scenario (repeatable)')
    args = parser.parse_args(argv)

    try:
        files = generate(args.only, nova=args.nova)
    except (recorder.ExampleError, support.SandboxError,
            fixtures.MultipleExceptions) as exc:
        error = support.first_error(exc)
        if not isinstance(error, (recorder.ExampleError,
                                  support.SandboxError)):
            raise
        print('error: %s' % error, file=sys.stderr)
        return 1

    existing = {name for name in os.listdir(EXAMPLES_DIR)
                if name.endswith('.txt')} if os.path.isdir(
                    EXAMPLES_DIR) else set()
    # Each run answers for its own files only.
    existing = existing & set(NOVA_FILES) if args.nova \
        else existing - set(NOVA_FILES)
    stale = set() if args.only else existing - set(files)
    if args.check:
        differ = False
        for name in sorted(files):
            path = os.path.join(EXAMPLES_DIR, name)
            try:
                with open(path) as f:
                    old = f.read()
            except FileNotFoundError:
                old = None
            if old != files[name]:
                differ = True
                sys.stdout.writelines(difflib.unified_diff(
                    (old or '').splitlines(True),
                    files[name].splitlines(True),
                    'committed/' + name, 'generated/' + name))
        for name in sorted(stale):
            differ = True
            print('%s is no longer generated' % name)
        if differ:
            print('\nThe example outputs differ from what the code prints '
                  'now. Regenerate them with %s and commit the result.' % (
                      '"tools/gen_doc_examples.py --nova --write" in the '
                      'environment of tox -e e2e-nova' if args.nova
                      else '"tox -e docs-examples -- --write"'),
                  file=sys.stderr)
            return 1
        print('%d example files match the code.' % len(files))
        return 0

    os.makedirs(EXAMPLES_DIR, exist_ok=True)
    for name, text in sorted(files.items()):
        with open(os.path.join(EXAMPLES_DIR, name), 'w') as f:
            f.write(text)
    for name in sorted(stale):
        os.remove(os.path.join(EXAMPLES_DIR, name))
    print('wrote %d example files to %s' % (len(files), EXAMPLES_DIR))
    return 0


if __name__ == '__main__':
    sys.exit(main())
