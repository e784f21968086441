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

"""What runs inside a server subprocess (Placement, Keystone, Nova).

:func:`serve` runs gunicorn with a WSGI application (by default the
``openstack-placement`` one) on a socket the parent bound; :func:`logged`
is the WSGI middleware that writes one line per request, which the parent
reads back (``Service.requests()``). The parent passes the rest in the
environment variables below.
"""

import collections
import importlib
import os
import shutil

from osc_placement.tests.support import processes

# Environment of the server subprocess.
ENV_REQUEST_LOG = 'OSC_PLACEMENT_SANDBOX_REQUEST_LOG'
ENV_PID_FILE = 'OSC_PLACEMENT_SANDBOX_PID_FILE'
ENV_WORKERS = 'OSC_PLACEMENT_SANDBOX_WORKERS'
ENV_CONFIG_DIR = 'OS_PLACEMENT_CONFIG_DIR'
# ``module:attribute`` of the WSGI application, and the process name.
ENV_APPLICATION = 'OSC_PLACEMENT_SANDBOX_APPLICATION'
ENV_NAME = 'OSC_PLACEMENT_SANDBOX_NAME'
# gunicorn's limit_request_line, when set (0: no limit).
ENV_LIMIT_REQUEST_LINE = 'OSC_PLACEMENT_SANDBOX_LIMIT_REQUEST_LINE'
PLACEMENT_APPLICATION = 'placement.wsgi.api:application'

# The server's command line: ``python -c <COMMAND % (fd, parent pid)>``.
# It names the parent, so that a test can find the servers a process
# started.
COMMAND = ('from osc_placement.tests.support import server; '
           'server.serve(%d, %d)')

Request = collections.namedtuple('Request', 'method uri version')
Request.__doc__ = """One request as the server received it.

``uri`` is the path and query string exactly as sent (percent-encoded);
``version`` is the ``OpenStack-API-Version`` header, or ``None``.
"""


def logged(app, log_path):
    """WSGI middleware writing one line per request to ``log_path``.

    The line (method, URI as sent, ``OpenStack-API-Version``, separated by
    tabs) is written, unbuffered and in append mode, when the request
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


def load_application(spec):
    """The WSGI application named ``module:attribute``.

    ``module:function()`` calls the function for it (keystone has only an
    application factory, ``initialize_public_application``).
    """
    module, _, name = spec.partition(':')
    call = name.endswith('()')
    found = getattr(importlib.import_module(module),
                    name[:-2] if call else name)
    return found() if call else found


def serve(listen_fd, parent_pid):
    """Run gunicorn on the inherited socket (in the server subprocess)."""
    processes.die_with_parent(parent_pid)
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
        'workers': int(os.environ[ENV_WORKERS]),
        'worker_class': 'sync',
        # The worker loads the application, including the schema
        # migrations, before it reports alive: be patient on slow CI.
        'timeout': 120,
        'graceful_timeout': 5,
        'proc_name': os.environ.get(ENV_NAME, 'placement-sandbox'),
        'errorlog': '-',
        'loglevel': 'warning',
        # gunicorn >= 24: no control socket in $HOME.
        'control_socket_disable': True,
    }
    if os.environ.get(ENV_LIMIT_REQUEST_LINE):
        settings['limit_request_line'] = int(
            os.environ[ENV_LIMIT_REQUEST_LINE])

    class Server(base.BaseApplication):
        def load_config(self):
            for key, value in settings.items():
                if key in self.cfg.settings:
                    self.cfg.set(key, value)

        def load(self):
            # Runs in the worker process.
            with open(os.environ[ENV_PID_FILE], 'a') as f:
                f.write('%d\n' % os.getpid())
            return logged(load_application(os.environ.get(
                ENV_APPLICATION, PLACEMENT_APPLICATION)),
                os.environ[ENV_REQUEST_LOG])

    master = os.getpid()
    try:
        Server().run()
    finally:
        # (The worker, forked inside run(), comes through here too.)
        if os.getpid() == master and os.getppid() != parent_pid:
            # The parent died without cleaning up (e.g. SIGKILL): remove
            # the temporary directory ourselves.
            shutil.rmtree(os.environ[ENV_CONFIG_DIR], ignore_errors=True)
