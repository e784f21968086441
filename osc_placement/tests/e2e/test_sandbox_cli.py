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

``Sandbox.stop()`` leaves no process and no file behind; ``python -m
osc_placement.tests.sandbox`` (what ``tox -e sandbox`` runs) prints exports
that work, stops everything on Ctrl-C and keeps its database file across a
restart.
"""

from concurrent import futures
import http.client
import os
import re
import signal
import subprocess
import sys
import time
import urllib.parse

import fixtures
from oslotest import base as oslotest_base

from osc_placement.tests.e2e import base
from osc_placement.tests import sandbox as sb


def start_cli(db_path):
    proc = subprocess.Popen(
        [sys.executable, '-m', 'osc_placement.tests.sandbox',
         '--sqlite-file', str(db_path)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if 'Ctrl-C stops the server' in line:
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
           for key, value in sb.client_env(found['OS_ENDPOINT']).items()
           if not key.startswith('OS_')}
    env.update(found)
    return env


def openstack(env, *argv):
    return subprocess.run([sb.openstack_executable()] + list(argv),
                          env=env, capture_output=True, text=True,
                          timeout=120)


class TestSandbox(oslotest_base.BaseTestCase):

    def test_stop_leaves_no_process_and_no_file(self):
        box = sb.Sandbox()
        self.addCleanup(box.stop)
        box.start()
        workdir = box.workdir
        self.assertEqual([], sb.api(box.endpoint, 'GET',
                                    '/resource_providers')[
            'resource_providers'])
        # The gunicorn master and its worker.
        running = base.server_processes_of(os.getpid())
        self.assertEqual(2, len(running))
        self.assertIn(box.server_pids[0], running)
        box.stop()
        self.assertEqual(sorted(running), sorted(box.server_pids))
        self.assertEqual([], box.alive_pids())
        self.assertEqual([], base.server_processes_of(os.getpid()))
        self.assertFalse(os.path.exists(workdir))

    def test_latency_relay_keeps_connections_and_waits_in_parallel(self):
        box = sb.Sandbox(latency_ms=500)
        self.addCleanup(box.stop)
        box.start()
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
                                 headers={'X-Auth-Token': sb.TOKEN})
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

    def test_serves_until_interrupted_and_keeps_its_database(self):
        db = os.path.join(self.useFixture(fixtures.TempDir()).path,
                          'placement.sqlite')

        proc, banner = start_cli(db)
        try:
            self.assertIn('(seeded with the sample cloud)', banner)
            env = exports(banner)
            self.assertEqual('admin_token', env['OS_AUTH_TYPE'])
            self.assertEqual('admin', env['OS_TOKEN'])
            self.assertRegex(env['OS_ENDPOINT'], r'^http://127\.0\.0\.1:\d+$')
            res = openstack(env, 'resource', 'provider', 'list', '-f', 'value',
                            '-c', 'name')
            self.assertEqual((0, ''), (res.returncode, res.stderr))
            self.assertEqual(sorted(name for name, _, _, _, _ in sb.PROVIDERS),
                             sorted(res.stdout.split()))
            res = openstack(env, 'resource', 'provider', 'create', 'added')
            self.assertEqual(0, res.returncode, res.stderr)
        finally:
            code, out, err, left = stop_cli(proc)
        self.assertEqual((0, '', []), (code, err, left))
        self.assertEqual('Stopped.', out.strip())
        self.assertTrue(os.path.exists(db))

        # Started again on the same file: nothing lost, nothing seeded twice.
        proc, banner = start_cli(db)
        try:
            self.assertIn('(existing data kept)', banner)
            res = openstack(exports(banner), 'resource', 'provider', 'list',
                            '-f', 'value', '-c', 'name')
            self.assertEqual(sorted(
                ['added'] + [name for name, _, _, _, _ in sb.PROVIDERS]),
                sorted(res.stdout.split()))
        finally:
            code, out, err, left = stop_cli(proc)
        self.assertEqual((0, '', []), (code, err, left))
