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

"""An OpenStack WSGI service under gunicorn, in a subprocess on 127.0.0.1.

:class:`Service` is the life cycle the servers of this package share
(Placement, Keystone, the Nova API): a temporary directory, a listening
socket bound by this process (the port is known before the server starts
and nobody can take it in between), the configuration written once the
endpoint is known, gunicorn started in a session of its own on that
socket (:mod:`.server`), a wait until it answers, and on clean-up a
graceful stop of the master and its workers. A subclass names its WSGI
application and writes its configuration; :mod:`.server` loads the
application in the worker and logs every request it receives.

Also here: :func:`manage` (a ``*-manage`` command of a server),
:func:`request` (one JSON request, a token optional) and
:func:`started_by` (what a clean-up check looks for).
"""

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import fixtures
import psutil

from osc_placement.tests.support import processes
from osc_placement.tests.support import SandboxError
from osc_placement.tests.support import server


def manage(argv, cwd, what=None):
    """Run a ``*-manage`` command installed beside this Python.

    Raises SandboxError with its output when it fails.
    """
    command = os.path.join(os.path.dirname(sys.executable), argv[0])
    if not os.path.exists(command):
        raise SandboxError('no %s beside %s' % (argv[0], sys.executable))
    proc = subprocess.run([command] + list(argv[1:]),
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, cwd=cwd)
    if proc.returncode:
        raise SandboxError('%s failed:\n%s' % (
            what or ' '.join(argv[:3]),
            proc.stdout.decode('utf-8', 'replace')[-3000:]))


# Our own requests to the server never go through an HTTP proxy.
_urlopen = urllib.request.build_opener(urllib.request.ProxyHandler({})).open


def request(url, method='GET', body=None, token=None, timeout=30,
            headers=None):
    """One JSON request to a server; returns ``(headers, decoded body)``.

    ``token`` goes in ``X-Auth-Token``; ``headers`` are more request
    headers (``OpenStack-API-Version``...); the answer's headers are
    returned.

    Raises SandboxError on a status >= 400, OSError when the server cannot
    be reached.
    """
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={'Accept': 'application/json'})
    if data is not None:
        req.add_header('Content-Type', 'application/json')
    if token:
        req.add_header('X-Auth-Token', token)
    for key, value in (headers or {}).items():
        req.add_header(key, value)
    try:
        with _urlopen(req, timeout=timeout) as resp:
            content = resp.read()
            answer_headers = resp.headers
    except urllib.error.HTTPError as exc:
        raise SandboxError('%s %s: HTTP %s %s' % (
            method, url, exc.code, exc.read().decode('utf-8', 'replace')))
    return answer_headers, json.loads(content) if content else None


def answers(url, timeout=5):
    """Whether an HTTP server answers ``GET url`` (any status)."""
    try:
        with _urlopen(url, timeout=timeout):
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def started_by(parent_pid):
    """Live processes under ``parent_pid``: its children and theirs.

    What a clean-up check looks for: the servers (gunicorn masters and
    their workers) and anything else still running. Found by parentage,
    as the command line of a server is gunicorn's process title where
    setproctitle is installed (nova brings it), and setproctitle also
    overwrites what /proc shows of its environment.
    """
    try:
        under = psutil.Process(parent_pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    return [proc.pid for proc in under if processes.alive(proc.pid)]


class Service(fixtures.Fixture):
    """A WSGI application served by gunicorn in a subprocess.

    Subclasses set :attr:`title`, :attr:`application` and
    :attr:`modules`, and write their configuration in :meth:`configure`.

    :param host: address to listen on.
    :param port: TCP port on ``host``; 0 picks a free one.
    :param timeout: seconds to wait for the server to answer.
    :param workers: gunicorn workers.
    """

    #: The server's name in messages ("the Keystone server ...").
    title = 'WSGI'
    #: The WSGI application, ``module:attribute``.
    application = None
    #: (distribution, module) pairs that must be importable.
    modules = (('gunicorn', 'gunicorn'),)
    #: Prefix of the temporary directory.
    prefix = 'sandbox-'
    #: The path whose answer (any status) means the server is up.
    ready_path = '/'
    #: What installs the server's packages, for the error when missing.
    installed_by = 'tox -e demo'

    def __init__(self, host='127.0.0.1', port=0, timeout=90, workers=1):
        super().__init__()
        self.host = host
        self.port = port
        self.timeout = timeout
        self.workers = workers
        # True: set-up returns once the server is started, and the owner
        # calls wait_until_ready() (servers that start at the same time).
        self.defer_ready = False
        self.server_endpoint = None
        self.workdir = None
        # The gunicorn master first, then its workers.
        self.server_pids = []
        self.log_path = None
        self.request_log_path = None
        self._pid_file = None
        self._proc = None

    # -- for subclasses -------------------------------------------------------

    def configure(self):
        """Write the configuration into :attr:`workdir` (endpoint known).

        Returns the environment variables the server needs.
        """
        return {}

    def ready(self):
        """Whether the server answers its :attr:`ready_path`."""
        return answers(self.server_endpoint + self.ready_path)

    # -- life cycle -----------------------------------------------------------

    def _setUp(self):
        self.check_installed()
        self.make_workdir()
        self.start()

    def check_installed(self):
        missing = [dist for dist, module in self.modules
                   if not _importable(module)]
        if missing:
            raise SandboxError('%s not installed beside %s (%s installs '
                               'what the sandbox needs)'
                               % (' and '.join(missing), sys.executable,
                                  self.installed_by))

    def make_workdir(self):
        self.workdir = tempfile.mkdtemp(prefix=self.prefix,
                                        dir=processes.tmpfs())
        self.addCleanup(shutil.rmtree, self.workdir, ignore_errors=True)

    def start(self, port=None):
        """Bind, configure, start gunicorn and wait until it answers.

        ``port`` overrides :attr:`port` for the bind (0: a free port).
        """
        self.log_path = os.path.join(self.workdir, 'server.log')
        self.request_log_path = os.path.join(self.workdir, 'requests.log')
        self._pid_file = os.path.join(self.workdir, 'pids')
        open(self.request_log_path, 'w').close()
        port = self.port if port is None else port

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((self.host, port))
            except OSError as exc:
                raise SandboxError('cannot listen on %s:%s: %s'
                                   % (self.host, port, exc.strerror))
            sock.listen(128)
            self.server_endpoint = 'http://%s:%d' % (
                self.host, sock.getsockname()[1])
            env = dict(os.environ)
            env.update(self.configure())
            env.update({
                server.ENV_CONFIG_DIR: self.workdir,
                server.ENV_REQUEST_LOG: self.request_log_path,
                server.ENV_PID_FILE: self._pid_file,
                server.ENV_WORKERS: str(self.workers),
                server.ENV_APPLICATION: self.application,
                server.ENV_NAME: self.prefix.rstrip('-'),
            })
            code = server.COMMAND % (sock.fileno(), os.getpid())
            with open(self.log_path, 'wb') as log:
                self._proc = subprocess.Popen(
                    [sys.executable, '-c', code], env=env, cwd=self.workdir,
                    stdin=subprocess.DEVNULL, stdout=log,
                    stderr=subprocess.STDOUT, pass_fds=[sock.fileno()],
                    start_new_session=True)
            self.server_pids.append(self._proc.pid)
            self.addCleanup(self._stop_server)
        finally:
            sock.close()
        if not self.defer_ready:
            self.wait_until_ready()

    def wait_until_ready(self):
        """Wait until the server answers; SandboxError if it cannot."""
        deadline = time.monotonic() + self.timeout
        while True:
            if self._proc.poll() is not None:
                raise SandboxError('the %s server exited with code %s '
                                   'while starting:\n%s'
                                   % (self.title, self._proc.returncode,
                                      self.log_tail()))
            if self.ready():
                return
            if time.monotonic() > deadline:
                raise SandboxError('the %s server did not answer GET %s '
                                   'within %s s:\n%s'
                                   % (self.title, self.ready_path,
                                      self.timeout, self.log_tail()))
            time.sleep(0.1)

    def _stop_server(self):
        """Stop gunicorn and wait for every one of its processes."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        self._read_pids()
        # SIGTERM is gunicorn's graceful stop (a worker finishes its
        # request; graceful_timeout bounds it), sent to the workers at the
        # same time as to the master, which would relay it only later.
        processes.stop(proc, signal.SIGTERM, 15, group=True)
        self._read_pids()
        # The master reaps its workers before exiting; make sure anyway.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(
                processes.alive(pid) for pid in self.server_pids):
            time.sleep(0.05)
        for pid in self.server_pids:
            if processes.alive(pid):
                processes.kill(pid)

    def _read_pids(self):
        try:
            with open(self._pid_file) as f:
                pids = [int(line) for line in f if line.strip()]
        except (OSError, ValueError):
            return
        for pid in pids:
            if pid not in self.server_pids:
                self.server_pids.append(pid)

    # -- the running server ---------------------------------------------------

    def alive_pids(self):
        """Server processes still running."""
        return [pid for pid in self.server_pids if processes.alive(pid)]

    @property
    def running(self):
        return self._proc is not None and self._proc.poll() is None

    def wait(self, timeout=None):
        """Block until the server exits; return its exit code."""
        return self._proc.wait(timeout=timeout)

    def log_tail(self, lines=30):
        try:
            with open(self.log_path or '', errors='replace') as f:
                return ''.join(f.readlines()[-lines:])
        except OSError:
            return '(no server log)'

    # -- what the server received ---------------------------------------------

    def requests(self, start=0):
        """Requests received so far (from byte ``start`` of the log)."""
        with open(self.request_log_path, 'rb') as f:
            f.seek(start)
            data = f.read()
        result = []
        for line in data.decode('utf-8', 'replace').splitlines():
            method, uri, version = line.split('\t')
            result.append(server.Request(method, uri, version or None))
        return result

    @contextlib.contextmanager
    def count_requests(self):
        """Collect the requests the server receives inside the block.

        Yields a list that is filled when the block ends. A request is
        logged when it arrives, before it is handled, so every request of a
        command that has finished is in it.
        """
        start = os.path.getsize(self.request_log_path)
        seen = []
        yield seen
        seen.extend(self.requests(start))


def _importable(module):
    return importlib.util.find_spec(module) is not None
