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

Each test module gets one sandbox server (a real Placement under gunicorn,
osc_placement/tests/sandbox.py) seeded with the sample cloud. Tests run the
``openstack`` script installed beside this Python as a subprocess, the way a
shell script, Ansible or a CI job does, and read the server back with direct
API calls. Tests that change data use providers and consumers of their own.
"""

import http.client
import http.server
import json
import os
import subprocess
import threading
import urllib.parse

import pytest

from osc_placement.tests import sandbox as sb

COMMAND_TIMEOUT = 120


class Cli(object):
    """Runs ``openstack`` against the sandbox (or another endpoint)."""

    def __init__(self, endpoint):
        self.endpoint = endpoint
        # OS_* and CLIFF_* of the caller must not leak into the commands.
        self.env = sb.client_env(endpoint)
        for key in ('OS_AUTH_TYPE', 'OS_ENDPOINT', 'OS_TOKEN'):
            del self.env[key]
        self.env['PYTHONWARNINGS'] = 'ignore'

    def argv(self, argv, version=None, endpoint=None):
        full = sb.openstack_argv(endpoint or self.endpoint)
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
        """Run, require exit 0 and nothing on stderr; returns stdout,
        parsed when the format is JSON."""
        res = self.run(*argv, version=version)
        assert (res.returncode, res.stderr) == (0, ''), res
        if '-f' in argv and argv[argv.index('-f') + 1] == 'json':
            return json.loads(res.stdout)
        return res.stdout


def server_processes_of(parent_pid):
    """Live server processes started by the sandbox CLI ``parent_pid``.

    The server's command line names its parent: ``sandbox._serve(fd,
    parent)``.
    """
    found = []
    marker = ('sandbox._serve(', ', %d)' % parent_pid)
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/cmdline' % entry, 'rb') as f:
                cmdline = f.read().replace(b'\0', b' ').decode(
                    'utf-8', 'replace')
        except OSError:
            continue
        if all(m in cmdline for m in marker) and sb._pid_alive(int(entry)):
            found.append(int(entry))
    return found


@pytest.fixture(scope='session', autouse=True)
def no_server_left_behind():
    """After the last test: no server started by this process runs."""
    yield
    assert server_processes_of(os.getpid()) == []


@pytest.fixture(scope='module')
def sandbox():
    """One seeded Placement server per test module.

    The teardown checks that no server process is left and that the
    temporary files are gone.
    """
    server = sb.Sandbox()
    server.start()
    workdir = server.workdir
    try:
        sb.seed(server.endpoint)
        yield server
    finally:
        server.stop()
    assert server.server_pids, 'the server pids were not recorded'
    assert server.alive_pids() == []
    assert not os.path.exists(workdir)


@pytest.fixture
def cli(sandbox):
    return Cli(sandbox.endpoint)


class HoldingProxy(object):
    """A forwarding HTTP proxy that can park one request.

    ``hold(method, path)`` makes the next request with that method and
    path wait in the proxy: ``held`` is set when it arrives, and it is sent
    on to the server only after ``release()``. Everything else goes
    straight through. This is how a test decides the order in which two
    real client processes reach the server.
    """

    HOP_BY_HOP = ('connection', 'keep-alive', 'transfer-encoding', 'host',
                  'proxy-connection', 'te', 'trailer', 'upgrade')

    def __init__(self, upstream):
        self.upstream = urllib.parse.urlsplit(upstream)
        self.held = threading.Event()
        self._released = threading.Event()
        self._target = None
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _forward(self):
                length = int(self.headers.get('Content-Length') or 0)
                body = self.rfile.read(length) if length else None
                if proxy._target == (self.command, self.path):
                    proxy._target = None
                    proxy.held.set()
                    proxy._released.wait(COMMAND_TIMEOUT)
                conn = http.client.HTTPConnection(
                    proxy.upstream.hostname, proxy.upstream.port,
                    timeout=COMMAND_TIMEOUT)
                try:
                    headers = {k: v for k, v in self.headers.items()
                               if k.lower() not in proxy.HOP_BY_HOP}
                    conn.request(self.command, self.path, body=body,
                                 headers=headers)
                    resp = conn.getresponse()
                    data = resp.read()
                finally:
                    conn.close()
                self.send_response(resp.status, resp.reason)
                for key, value in resp.getheaders():
                    if key.lower() not in proxy.HOP_BY_HOP + (
                            'content-length', 'date', 'server'):
                        self.send_header(key, value)
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_DELETE = _forward

            def log_message(self, *args):
                pass

        self._server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                       Handler)
        self._server.daemon_threads = True
        self.endpoint = 'http://127.0.0.1:%d' % self._server.server_port
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        daemon=True)
        self._thread.start()

    def hold(self, method, path):
        self._target = (method, path)

    def release(self):
        self._released.set()

    def close(self):
        self.release()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)


@pytest.fixture
def proxy(sandbox):
    p = HoldingProxy(sandbox.endpoint)
    try:
        yield p
    finally:
        p.close()
