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

"""The sandbox itself, from Python and from the command line.

The Placement fixture leaves no process and no file behind;
``tools/sandbox.py`` (what ``tox -e sandbox`` runs) prints exports that
work, shows in ``--help`` the defaults that ``tox -e sandbox`` uses,
stops everything on Ctrl-C without its parent (tox) being interrupted,
keeps its database file across a restart, and adds a bigger cloud beside
the sample one with ``--providers N``.
"""

from concurrent import futures
import http.client
import os
import re
import select
import signal
import subprocess
import sys
import time
import urllib.parse

import fixtures
from oslotest import base as oslotest_base

from osc_placement.tests.e2e import base
from osc_placement.tests.support import client
from osc_placement.tests.support import cloud
from osc_placement.tests.support import placement
from osc_placement.tests.support import processes

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
TOOL = os.path.join(REPO, 'tools', 'sandbox.py')
BANNER_END = 'Ctrl-C stops the server'


def start_cli(*argv):
    """Start tools/sandbox.py on a free port; (Popen, banner).

    In a session of its own: without a controlling terminal, the tool
    leaves the terminal of whoever runs the tests alone.
    """
    proc = subprocess.Popen(
        [sys.executable, TOOL, '--port', '0'] + list(argv),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if BANNER_END in line:
            break
    else:
        proc.wait(30)
        raise AssertionError('the sandbox did not start: %s%s'
                             % (''.join(lines), proc.stderr.read()))
    return proc, ''.join(lines)


def stop_cli(proc):
    pid = proc.pid
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err, base.server_processes_of(pid)


def exports(text):
    """The environment of a shell where the printed exports were pasted.

    No other OS_* variable is set in it.
    """
    found = dict(re.findall(r'^export (OS_\w+)=(\S+)$', text, re.M))
    env = {key: value
           for key, value in client.client_env(found['OS_ENDPOINT']).items()
           if not key.startswith('OS_')}
    env.update(found)
    return env


def openstack(env, *argv):
    return subprocess.run([client.openstack_executable()] + list(argv),
                          env=env, capture_output=True, text=True,
                          timeout=120)


# What tox does with the command of an environment, reduced to what
# matters here: it runs it in its own process group, in the foreground of
# the terminal, and notes whether a Ctrl-C reached tox itself.
TOX_STAND_IN = """
import fcntl, signal, subprocess, sys, termios
fcntl.ioctl(0, termios.TIOCSCTTY, 0)
interrupted = []
signal.signal(signal.SIGINT, lambda signum, frame: interrupted.append(signum))
code = subprocess.call(sys.argv[1:])
print('parent: child exited %d, parent interrupted: %s'
      % (code, bool(interrupted)))
"""


def read_terminal(fd, until, timeout=90):
    """What the terminal ``fd`` shows until ``until`` (None: its end)."""
    data = b''
    deadline = time.monotonic() + timeout
    while until is None or until.encode() not in data:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError('the terminal showed only: %r' % data)
        if not select.select([fd], [], [], left)[0]:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:   # EIO: every process has closed the terminal
            chunk = b''
        if not chunk:
            if until is None:
                break
            raise AssertionError('the terminal closed after: %r' % data)
        data += chunk
    return data.decode('utf-8', 'replace')


class TestSandbox(oslotest_base.BaseTestCase):

    def test_stop_leaves_no_process_and_no_file(self):
        box = placement.Placement()
        with box:
            workdir = box.workdir
            self.assertEqual([], box.api('GET', '/resource_providers')[
                'resource_providers'])
            # The gunicorn master and its worker.
            running = base.server_processes_of(os.getpid())
            self.assertEqual(2, len(running))
            self.assertIn(box.server_pids[0], running)
        self.assertEqual(sorted(running), sorted(box.server_pids))
        self.assertEqual([], box.alive_pids())
        self.assertEqual([], base.server_processes_of(os.getpid()))
        self.assertFalse(os.path.exists(workdir))

    def test_latency_relay_keeps_connections_and_waits_in_parallel(self):
        box = self.useFixture(placement.Placement(latency_ms=500))
        self.assertNotEqual(box.server_endpoint, box.endpoint)
        address = urllib.parse.urlsplit(box.endpoint)

        def three_requests(_):
            # Three requests on one connection: the relay keeps it open.
            conn = http.client.HTTPConnection(address.hostname,
                                              address.port, timeout=30)
            try:
                started = time.monotonic()
                conn.connect()
                sock = conn.sock
                for _ in range(3):
                    conn.request('GET', '/resource_providers',
                                 headers={'X-Auth-Token': client.TOKEN})
                    resp = conn.getresponse()
                    self.assertEqual(200, resp.status)
                    resp.read()
                    self.assertIs(sock, conn.sock)
                return time.monotonic() - started
            finally:
                conn.close()

        with box.count_requests() as seen:
            started = time.monotonic()
            with futures.ThreadPoolExecutor(8) as pool:
                took = list(pool.map(three_requests, range(8)))
            elapsed = time.monotonic() - started
        self.assertEqual(24, len(seen))
        # Each request waited its 500 ms...
        self.assertTrue(all(t >= 1.5 for t in took), took)
        # ...at the same time as those of the other connections: one
        # after another, the 24 would take 12 s.
        self.assertLess(elapsed, 6)

    def test_pasted_lines_replace_the_variables_of_the_shell(self):
        # A shell where the lines of the --with-nova sandbox, an openrc or
        # a clouds.yaml were pasted before.
        before = dict(client.clean_env(), OS_CLOUD='devstack',
                      OS_AUTH_TYPE='password',
                      OS_AUTH_URL='http://127.0.0.1:5000/v3',
                      OS_USERNAME='admin', OS_PASSWORD='secret',
                      OS_PROJECT_NAME='admin', OS_REGION_NAME='RegionOne',
                      OS_INTERFACE='public', OS_IDENTITY_API_VERSION='3')
        proc, banner = start_cli('--temporary')
        try:
            pasted = '\n'.join(
                line for line in banner.splitlines()
                if line.startswith(('unset ', 'export ')))
            res = subprocess.run(['sh', '-c', pasted + '\nenv'], env=before,
                                 capture_output=True, text=True, timeout=30)
            self.assertEqual((0, ''), (res.returncode, res.stderr))
            found = dict(re.findall(r'^(OS_\w+)=(.*)$', res.stdout, re.M))
            self.assertEqual(['OS_AUTH_TYPE', 'OS_ENDPOINT', 'OS_TOKEN'],
                             sorted(found))
            self.assertEqual('admin_token', found['OS_AUTH_TYPE'])
        finally:
            stop_cli(proc)

    def test_serves_until_interrupted_and_keeps_its_database(self):
        db = os.path.join(self.useFixture(fixtures.TempDir()).path,
                          'placement.sqlite')

        proc, banner = start_cli('--sqlite-file', db)
        try:
            self.assertIn('(seeded with the sample cloud)', banner)
            env = exports(banner)
            self.assertEqual('admin_token', env['OS_AUTH_TYPE'])
            self.assertEqual('admin', env['OS_TOKEN'])
            self.assertRegex(env['OS_ENDPOINT'], r'^http://127\.0\.0\.1:\d+$')
            res = openstack(env, 'resource', 'provider', 'list', '-f', 'value',
                            '-c', 'name')
            self.assertEqual((0, ''), (res.returncode, res.stderr))
            self.assertEqual(sorted(name for name, _, _, _, _ in
                                    cloud.PROVIDERS),
                             sorted(res.stdout.split()))
            res = openstack(env, 'resource', 'provider', 'create', 'added')
            self.assertEqual(0, res.returncode, res.stderr)
        finally:
            code, out, err, left = stop_cli(proc)
        self.assertEqual((0, '', []), (code, err, left))
        self.assertEqual('Stopped.', out.strip())
        self.assertTrue(os.path.exists(db))

        # Started again on the same file: nothing lost, nothing seeded twice.
        proc, banner = start_cli('--sqlite-file', db)
        try:
            self.assertIn('(existing data kept)', banner)
            res = openstack(exports(banner), 'resource', 'provider', 'list',
                            '-f', 'value', '-c', 'name')
            self.assertEqual(sorted(
                ['added'] + [name for name, _, _, _, _ in cloud.PROVIDERS]),
                sorted(res.stdout.split()))
        finally:
            code, out, err, left = stop_cli(proc)
        self.assertEqual((0, '', []), (code, err, left))

    def test_help_shows_the_defaults_of_tox_e_sandbox(self):
        res = subprocess.run([sys.executable, TOOL, '--help'],
                             capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, COLUMNS='200'))
        self.assertEqual((0, ''), (res.returncode, res.stderr))
        self.assertIn('port to listen on; 0 picks a free one (default: '
                      '8778)', res.stdout)
        self.assertIn('kept across runs (default: %s)'
                      % os.path.join(REPO, 'sandbox.sqlite'), res.stdout)
        self.assertNotIn('temporary database, removed on exit)',
                         res.stdout)

    def test_ctrl_c_in_a_terminal_stops_the_sandbox_and_not_its_parent(self):
        # tox, interrupted too, would interrupt the sandbox a second time
        # and report "sandbox: SKIP", "evaluation failed".
        main, sub = os.openpty()
        self.addCleanup(os.close, main)
        try:
            parent = subprocess.Popen(
                [sys.executable, '-c', TOX_STAND_IN, sys.executable, TOOL,
                 '--port', '0', '--temporary'],
                stdin=sub, stdout=sub, stderr=sub, start_new_session=True)
        finally:
            os.close(sub)
        self.addCleanup(parent.kill)
        banner = read_terminal(main, BANNER_END)
        server_pid = int(re.search(r'\(pid (\d+),', banner).group(1))
        os.write(main, b'\x03')
        rest = read_terminal(main, None)
        self.assertEqual(0, parent.wait(60), rest)
        self.assertIn('Stopped.', rest)
        self.assertIn('parent: child exited 0, parent interrupted: False',
                      rest)
        self.assertFalse(processes.alive(server_pid))

    def test_providers_adds_trees_beside_the_sample_cloud(self):
        proc, banner = start_cli('--temporary', '--providers', '12')
        try:
            self.assertIn('(seeded with the sample cloud; 12 of 12 '
                          'providers in trees of five added in ', banner)
            env = exports(banner)
            res = openstack(env, 'resource', 'provider', 'list', '-f',
                            'value', '-c', 'uuid', '-c', 'name')
            self.assertEqual((0, ''), (res.returncode, res.stderr))
            rows = [line.split() for line in res.stdout.splitlines()]
            uuids, names = zip(*rows)
            self.assertEqual(6 + 12, len(set(uuids)))
            self.assertEqual(6 + 12, len(set(names)))
            self.assertEqual(
                {cloud.provider_uuid(p) for p in range(12)}
                | {uuid for _, uuid, _, _, _ in cloud.PROVIDERS},
                set(uuids))
            # Two complete trees, each with its consumer; the third has
            # two providers and no consumer.
            res = openstack(env, '--os-placement-api-version', '1.18',
                            'resource', 'provider', 'usage', 'show',
                            cloud.provider_uuid(6), '-f', 'value')
            self.assertEqual((0, ''), (res.returncode, res.stderr))
            self.assertEqual({'VCPU 2', 'MEMORY_MB 4096'},
                             set(res.stdout.splitlines()))
            res = openstack(env, '--os-placement-api-version', '1.14',
                            'resource', 'provider', 'list', '--in-tree',
                            cloud.provider_uuid(10), '-f', 'value', '-c',
                            'name')
            self.assertEqual(['cn00002', 'cn00002-numa0'],
                             sorted(res.stdout.split()))
        finally:
            code, out, err, left = stop_cli(proc)
        self.assertEqual((0, '', []), (code, err, left))


class TestScaledCloud(oslotest_base.BaseTestCase):
    """The seeder of ``--providers`` and of the benchmark."""

    def test_grows_beside_the_sample_cloud_in_parallel(self):
        box = self.useFixture(placement.Placement())
        cloud.seed(box.endpoint)
        with box.count_requests() as seen:
            self.assertEqual(7, cloud.populate(box.endpoint, 7, parallel=4))
        # Tree 0 only is complete: one POST of its consumer.
        self.assertEqual(1, len([r for r in seen
                                 if r.uri == '/allocations']))
        # Grown to 15: the 8 missing providers, the consumers of the
        # trees completed; what was there is untouched.
        self.assertEqual(8, cloud.populate(box.endpoint, 15, parallel=4))
        self.assertEqual(0, cloud.populate(box.endpoint, 15, parallel=4))
        there = cloud.provider_uuids(box.endpoint)
        self.assertEqual({uuid for _, uuid, _, _, _ in cloud.PROVIDERS}
                         | {cloud.provider_uuid(p) for p in range(15)},
                         there)
        for tree in range(3):
            self.assertEqual(
                {cloud.provider_uuid(tree * 5 + role) for role in (0, 1, 3)},
                set(box.api('GET', '/allocations/%s' % cloud.consumer_uuid(
                    tree))['allocations']))
        pf1 = box.api('GET', '/resource_providers/%s'
                      % cloud.provider_uuid(9))
        self.assertEqual(('cn00001-pf1', cloud.provider_uuid(7)),
                         (pf1['name'], pf1['parent_provider_uuid']))
        self.assertEqual(
            [cloud.AGG_100],
            box.api('GET', '/resource_providers/%s/aggregates'
                    % cloud.provider_uuid(6))['aggregates'])
