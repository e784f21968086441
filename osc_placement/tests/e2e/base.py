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

"""End-to-end: the installed ``openstack`` executable, over real HTTP.

Each :class:`SandboxTestCase` class gets one sandbox server (a real
Placement under gunicorn: the fixture of osc_placement/tests/support/
placement.py) seeded with the sample cloud (support/cloud.py). Tests run
the ``openstack`` script installed beside this Python as a subprocess, the
way a shell script, Ansible or a CI job does, and read the server back
with direct API calls. Tests that change data use
providers and consumers of their own (:func:`new_uuid`).

A class sets ``sandbox_options`` for another shape of server:
:class:`ProductionTestCase` (PostgreSQL, four gunicorn workers) is the one
for concurrent writers and parallel batches, whose requests really run at
the same time there. Starting it takes about 20 s: keep such tests in one
class.
"""

import itertools
import json
import os
import subprocess

from oslotest import base
import psutil

from osc_placement import tests
from osc_placement.tests.support import client
from osc_placement.tests.support import cloud
from osc_placement.tests.support import placement
from osc_placement.tests.support import processes
from osc_placement.tests.support import server

COMMAND_TIMEOUT = 120

_numbers = itertools.count(1)


def new_uuid(prefix):
    """A UUID of the given hex prefix, unique in this test process."""
    return '%s-0000-4000-8000-%012d' % (prefix, next(_numbers))


def make_provider(sandbox, name, inventories, aggregate=None, uuid=None):
    """Create a provider (a new UUID unless given) with an inventory.

    The name ends with the UUID's last digits: the tests of a class share
    one server.
    """
    uuid = uuid or new_uuid('eeeeeeee')
    tests.create_provider(sandbox, uuid, name + '-' + uuid[-4:], inventories,
                          aggregates=[aggregate] if aggregate else ())
    return uuid


def allocate(sandbox, consumer, rp, resources):
    """Replace the allocations of ``consumer`` (new or not) by one."""
    current = sandbox.api('GET', '/allocations/%s' % consumer)
    tests.allocate(sandbox, consumer, {rp: resources},
                   project='project-9', user='user-9',
                   generation=current.get('consumer_generation'))


def allocations_of(sandbox, consumer):
    return {rp: alloc['resources'] for rp, alloc in sandbox.api(
        'GET', '/allocations/%s' % consumer)['allocations'].items()}


def inventories_of(sandbox, rp):
    return sandbox.api('GET', '/resource_providers/%s/inventories'
                       % rp)['inventories']


class Cli(object):
    """Runs ``openstack`` against the sandbox (or another endpoint)."""

    def __init__(self, endpoint):
        self.endpoint = endpoint
        # OS_* and CLIFF_* of the caller must not leak into the commands.
        self.env = client.client_env(endpoint)
        for key in ('OS_AUTH_TYPE', 'OS_ENDPOINT', 'OS_TOKEN'):
            del self.env[key]
        self.env['PYTHONWARNINGS'] = 'ignore'

    def argv(self, argv, version=None, endpoint=None):
        full = client.openstack_argv(endpoint or self.endpoint)
        if version:
            full += ['--os-placement-api-version', version]
        return full + list(argv)

    def start(self, *argv, version=None, endpoint=None):
        """Start a command in the background; returns the Popen."""
        return subprocess.Popen(
            self.argv(argv, version, endpoint), env=self.env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)

    def run(self, *argv, version=None, endpoint=None):
        """Run a command; returns the CompletedProcess."""
        return subprocess.run(
            self.argv(argv, version, endpoint), env=self.env,
            stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=COMMAND_TIMEOUT)

    def ok(self, *argv, version=None):
        """Run, require exit 0 and nothing on stderr; returns stdout.

        The output is parsed when the format is JSON.
        """
        res = self.run(*argv, version=version)
        if (res.returncode, res.stderr) != (0, ''):
            raise AssertionError('openstack %s exited %s: %s' % (
                ' '.join(argv), res.returncode, res.stderr))
        if '-f' in argv and argv[argv.index('-f') + 1] == 'json':
            return json.loads(res.stdout)
        return res.stdout


def server_processes_of(parent_pid):
    """Live sandbox server processes started by process ``parent_pid``.

    The server's command line names its parent (``server.COMMAND``).
    """
    code = server.COMMAND % (0, parent_pid)
    start, end = code.split('(')[0], code.split(',')[-1]
    found = []
    for proc in psutil.process_iter(['cmdline']):
        cmdline = ' '.join(proc.info['cmdline'] or ())
        if start in cmdline and cmdline.endswith(end) and \
                processes.alive(proc.pid):
            found.append(proc.pid)
    return found


class SandboxTestCase(base.BaseTestCase):
    """One seeded Placement server for all the tests of the class.

    When the class is done the server is stopped, and the clean-up is
    checked: the server's processes are gone, as is every sandbox server
    this process started, and so are the temporary files. A failed check
    is an error of the class, reported by the test runner.
    """

    # Keyword arguments of the class's placement.Placement.
    sandbox_options = {}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.sandbox = placement.Placement(**cls.sandbox_options)
        # The fixture cleans up after itself when its set-up fails.
        cls.sandbox.setUp()
        cls.addClassCleanup(cls._stop_and_check, cls.sandbox)
        cloud.seed(cls.sandbox.endpoint)
        cls.cli = Cli(cls.sandbox.endpoint)

    @staticmethod
    def _stop_and_check(sandbox):
        sandbox.cleanUp()
        workdir = sandbox.workdir
        if not sandbox.server_pids:
            raise AssertionError('the server pids were not recorded')
        left = sandbox.alive_pids() + server_processes_of(os.getpid())
        if left:
            raise AssertionError('sandbox server processes left running: '
                                 '%s' % sorted(set(left)))
        if os.path.exists(workdir):
            raise AssertionError('the sandbox left %s' % workdir)


class ProductionTestCase(SandboxTestCase):
    """The production-like server: PostgreSQL and four gunicorn workers."""

    sandbox_options = {'db': 'postgresql', 'workers': 4}
