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

"""The Placement server fixture: gunicorn on 127.0.0.1, in a subprocess.

The server is the ``openstack-placement`` package itself (installed by tox,
never by this module), ``auth_strategy = noauth2`` (any request carrying
the token ``admin`` is an admin), served by gunicorn in a subprocess on a
free port (:mod:`.server`). It comes in two shapes:

* ``db='sqlite'`` (the default): SQLite and one synchronous worker, so
  requests are handled one at a time, in arrival order;
* ``db='postgresql'``: PostgreSQL (:mod:`.postgres`) and several workers
  (default 4), as real deployments run Placement.

``latency_ms=N`` puts a :class:`~.relay.Relay` in front of the server
that delays each request by N ms (an operator's shell far from the
cloud): ``endpoint`` is then the relay's, ``server_endpoint`` the
server's own.

In a test, ``self.useFixture(placement.Placement())``; from a tool::

    from osc_placement.tests.support import client
    from osc_placement.tests.support import cloud
    from osc_placement.tests.support import placement

    with placement.Placement() as server:  # temporary database
        cloud.seed(server.endpoint)        # the sample cloud
        with server.count_requests() as seen:
            subprocess.run(client.openstack_argv(server.endpoint) +
                           ['resource', 'provider', 'list'])
        print(len(seen), seen)             # requests the server received

``Placement(db_path='x.sqlite')`` keeps the SQLite database in that file
across restarts; ``Placement(db='postgresql', workers=4, latency_ms=20)``
is the production-like shape, 20 ms away. ``tools/sandbox.py`` (``tox -e
sandbox``) runs one from a shell.

How it stays clean: the server runs in its own session, so a Ctrl-C in
the terminal reaches only this process, whose clean-up stops the server
(SIGTERM to its process group, then SIGKILL if it hangs), then PostgreSQL,
and removes the temporary directory. If this process dies without
cleaning up (SIGKILL), the kernel signals the servers
(:func:`.processes.die_with_parent`), the gunicorn master removes the
directory and its workers exit with it.
"""

import collections
import contextlib
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import fixtures

from osc_placement.tests.support import cloud
from osc_placement.tests.support import postgres
from osc_placement.tests.support import processes
from osc_placement.tests.support import relay
from osc_placement.tests.support import SandboxError
from osc_placement.tests.support import server

CONFIG = """\
[DEFAULT]
debug = False

[api]
auth_strategy = noauth2

[placement_database]
connection = {connection}
# SQLite: create or upgrade the schema when the application loads (the
# migrations "placement-manage db sync" runs). PostgreSQL: the fixture runs
# "placement-manage db sync" once before the workers start, as they would
# race each other otherwise.
sync_on_startup = {sync_on_startup}
"""

DATABASES = ('sqlite', 'postgresql')
# gunicorn workers of each shape.
DEFAULT_WORKERS = {'sqlite': 1, 'postgresql': 4}

Request = collections.namedtuple('Request', 'method uri version')
Request.__doc__ = """One request as the server received it.

``uri`` is the path and query string exactly as sent (percent-encoded);
``version`` is the ``OpenStack-API-Version`` header, or ``None``.
"""


class Placement(fixtures.Fixture):
    """A Placement server process, from set-up to clean-up.

    :param db_path: SQLite file to use and keep (created and migrated if
        needed); ``None`` for a temporary database removed on clean-up.
    :param port: TCP port on ``host``; 0 picks a free one. With a latency,
        the relay listens there and the server on a free port.
    :param timeout: seconds to wait for the server to answer ``GET /``.
    :param db: ``'sqlite'`` or ``'postgresql'`` (always temporary).
    :param workers: gunicorn workers; default 1 for SQLite, 4 for
        PostgreSQL.
    :param latency_ms: delay added to each request by a relay; 0 for none.
    """

    def __init__(self, db_path=None, host='127.0.0.1', port=0, timeout=90,
                 db='sqlite', workers=None, latency_ms=0):
        super().__init__()
        if db not in DATABASES:
            raise SandboxError('unknown database %r (one of: %s)'
                               % (db, ', '.join(DATABASES)))
        if db_path and db != 'sqlite':
            raise SandboxError('a database file is for SQLite only')
        self.db_path = os.path.abspath(db_path) if db_path else None
        self.db = db
        self.workers = workers or DEFAULT_WORKERS[db]
        self.latency_ms = latency_ms
        self.host = host
        self.port = port
        self.timeout = timeout
        self.endpoint = None
        self.server_endpoint = None
        self.workdir = None
        # The gunicorn master first, then its workers.
        self.server_pids = []
        self.postgres = None
        self.proxy = None
        self.log_path = None
        self.request_log_path = None
        self._pid_file = None
        self._proc = None

    # -- life cycle -----------------------------------------------------------

    def _setUp(self):
        missing = [dist for dist, module in (('openstack-placement',
                                              'placement'),
                                             ('gunicorn', 'gunicorn'))
                   if importlib.util.find_spec(module) is None]
        if missing:
            raise SandboxError('%s not installed beside %s (tox -e demo '
                               'installs what the sandbox needs)'
                               % (' and '.join(missing), sys.executable))
        self.workdir = tempfile.mkdtemp(prefix='placement-sandbox-',
                                        dir=processes.tmpfs())
        self.addCleanup(shutil.rmtree, self.workdir, ignore_errors=True)
        if self.db == 'postgresql':
            self.postgres = self.useFixture(
                postgres.Postgres(self.workdir, self.timeout))
        self._start()
        if self.latency_ms:
            self.proxy = self.useFixture(relay.Relay(
                self.server_endpoint, delay_ms=self.latency_ms,
                host=self.host, port=self.port))
            self.port = self.proxy.port
            self.endpoint = self.proxy.endpoint

    def _configure(self):
        """Write placement.conf; migrate a PostgreSQL database."""
        config = os.path.join(self.workdir, 'placement.conf')
        if self.postgres:
            connection = self.postgres.url
        else:
            connection = 'sqlite:///' + (self.db_path or os.path.join(
                self.workdir, 'placement.sqlite'))
        with open(config, 'w') as f:
            f.write(CONFIG.format(connection=connection,
                                  sync_on_startup=not self.postgres))
        if self.postgres:
            manage = os.path.join(os.path.dirname(sys.executable),
                                  'placement-manage')
            proc = subprocess.run(
                [manage, '--config-file', config, 'db', 'sync'],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, cwd=self.workdir)
            if proc.returncode:
                raise SandboxError('placement-manage db sync failed:\n%s'
                                   % proc.stdout.decode('utf-8', 'replace'))

    def _start(self):
        self._configure()
        self.log_path = os.path.join(self.workdir, 'server.log')
        self.request_log_path = os.path.join(self.workdir, 'requests.log')
        self._pid_file = os.path.join(self.workdir, 'pids')
        open(self.request_log_path, 'w').close()

        # This process binds the listening socket and hands it to the
        # server: the port is known before the server starts and no other
        # process can take it in between.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((self.host, 0 if self.latency_ms else self.port))
            except OSError as exc:
                raise SandboxError('cannot listen on %s:%s: %s'
                                   % (self.host, self.port, exc.strerror))
            sock.listen(128)
            self.server_endpoint = 'http://%s:%d' % (
                self.host, sock.getsockname()[1])
            self.endpoint = self.server_endpoint
            if not self.latency_ms:
                self.port = sock.getsockname()[1]
            env = dict(os.environ)
            env.update({
                server.ENV_CONFIG_DIR: self.workdir,
                server.ENV_REQUEST_LOG: self.request_log_path,
                server.ENV_PID_FILE: self._pid_file,
                server.ENV_WORKERS: str(self.workers),
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
        self._wait_until_ready()

    def _wait_until_ready(self):
        deadline = time.monotonic() + self.timeout
        while True:
            if self._proc.poll() is not None:
                raise SandboxError('the Placement server exited with code %s '
                                   'while starting:\n%s'
                                   % (self._proc.returncode, self.log_tail()))
            try:
                cloud.api(self.server_endpoint, 'GET', '/', timeout=5)
                return
            except (OSError, SandboxError):
                pass
            if time.monotonic() > deadline:
                raise SandboxError('the Placement server did not answer '
                                   'GET / within %s s:\n%s'
                                   % (self.timeout, self.log_tail()))
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
        """Server processes still running (gunicorn, PostgreSQL)."""
        pids = self.server_pids + (self.postgres.pids if self.postgres
                                   else [])
        return [pid for pid in pids if processes.alive(pid)]

    def analyze(self):
        """Give the database fresh statistics after it was filled.

        PostgreSQL: ``VACUUM ANALYZE`` (see :meth:`.Postgres.analyze`).
        SQLite plans without statistics: nothing to do.
        """
        if self.postgres:
            self.postgres.analyze()

    def cpu_seconds(self):
        """CPU time (user + system) the server has used since it started.

        Counts gunicorn and PostgreSQL with every process under them,
        running or already reaped. The relay runs in this process and is
        not counted.
        """
        return processes.cpu_seconds(self.cpu_roots)

    @property
    def cpu_roots(self):
        """The processes :meth:`cpu_seconds` counts, with all under them."""
        return self.server_pids[:1] + (self.postgres.pids[:1]
                                       if self.postgres else [])

    @property
    def requests_in_flight(self):
        """Requests worth sending at once: two per worker.

        Each worker then has its next request waiting; more only queue
        (SQLite's one worker gains nothing from a second one, measured).
        """
        return 2 * self.workers

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
            result.append(Request(method, uri, version or None))
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

    # -- direct API calls -----------------------------------------------------

    def api(self, method, path, body=None, version=cloud.VERSION):
        """One request straight to the server (never through the relay)."""
        return cloud.api(self.server_endpoint, method, path, body=body,
                         version=version)
