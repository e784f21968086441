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
free port (:mod:`.service`). With ``keystone=`` a running
:class:`~.keystone.Keystone`, it validates that Keystone's tokens instead
(``auth_strategy = keystone``, keystonemiddleware as deployed). It comes
in two shapes:

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

import os

from osc_placement.tests.support import client
from osc_placement.tests.support import cloud
from osc_placement.tests.support import postgres
from osc_placement.tests.support import processes
from osc_placement.tests.support import relay
from osc_placement.tests.support import SandboxError
from osc_placement.tests.support import server
from osc_placement.tests.support import service

CONFIG = """\
[DEFAULT]
debug = False

[api]
auth_strategy = {auth_strategy}

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

Request = server.Request


class Placement(service.Service):
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
    :param keystone: a running :class:`~.keystone.Keystone` whose tokens
        the server validates (keystonemiddleware's ``auth_token``, as
        deployed) instead of ``noauth2``; :attr:`token` is then a token of
        Keystone's admin.
    """

    title = 'Placement'
    application = server.PLACEMENT_APPLICATION
    modules = (('openstack-placement', 'placement'),
               ('gunicorn', 'gunicorn'))
    prefix = 'placement-sandbox-'

    def __init__(self, db_path=None, host='127.0.0.1', port=0, timeout=90,
                 db='sqlite', workers=None, latency_ms=0, keystone=None):
        if db not in DATABASES:
            raise SandboxError('unknown database %r (one of: %s)'
                               % (db, ', '.join(DATABASES)))
        if db_path and db != 'sqlite':
            raise SandboxError('a database file is for SQLite only')
        super().__init__(host=host, port=port, timeout=timeout,
                         workers=workers or DEFAULT_WORKERS[db])
        self.db_path = os.path.abspath(db_path) if db_path else None
        self.db = db
        self.latency_ms = latency_ms
        self.keystone = keystone
        self.token = client.TOKEN
        self.endpoint = None
        self.postgres = None
        self.proxy = None

    # -- life cycle -----------------------------------------------------------

    def _setUp(self):
        self.check_installed()
        self.make_workdir()
        if self.db == 'postgresql':
            self.postgres = self.useFixture(
                postgres.Postgres(self.workdir, self.timeout))
        if self.keystone:
            self.token = self.keystone.admin_token()
        self.start(port=0 if self.latency_ms else self.port)
        self.endpoint = self.server_endpoint
        if self.latency_ms:
            self.proxy = self.useFixture(relay.Relay(
                self.server_endpoint, delay_ms=self.latency_ms,
                host=self.host, port=self.port))
            self.port = self.proxy.port
            self.endpoint = self.proxy.endpoint
        else:
            self.port = int(self.server_endpoint.rsplit(':', 1)[1])

    def configure(self):
        """Write placement.conf; migrate a PostgreSQL database."""
        config = os.path.join(self.workdir, 'placement.conf')
        if self.postgres:
            connection = self.postgres.url
        else:
            connection = 'sqlite:///' + (self.db_path or os.path.join(
                self.workdir, 'placement.sqlite'))
        with open(config, 'w') as f:
            f.write(CONFIG.format(
                connection=connection, sync_on_startup=not self.postgres,
                auth_strategy='keystone' if self.keystone else 'noauth2'))
            if self.keystone:
                f.write(self.keystone.authtoken_config('placement'))
        if self.postgres:
            service.manage(['placement-manage', '--config-file', config,
                            'db', 'sync'], self.workdir,
                           what='placement-manage db sync')
        return {}

    def ready(self):
        try:
            cloud.api(self.server_endpoint, 'GET', '/', timeout=5,
                      token=self.token)
            return True
        except (OSError, SandboxError):
            return False

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

    # -- direct API calls -----------------------------------------------------

    def api(self, method, path, body=None, version=cloud.VERSION):
        """One request straight to the server (never through the relay)."""
        return cloud.api(self.server_endpoint, method, path, body=body,
                         version=version, token=self.token)
