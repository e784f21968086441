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

"""Run the real ``openstack`` shell in-process and capture what it prints."""

import contextlib
import io
import logging
import os
import sys
import warnings

from cliff import app as cliff_app
import fixtures
from keystoneauth1 import noauth
from keystoneauth1 import session
from openstack import connection
from openstackclient import shell
from osc_lib import clientmanager as osc_clientmanager
import requests_mock

ENDPOINT = 'http://placement.test/placement'
# What every run() adds to its environment (compute_at() names the
# compute endpoint there).
RUN_ENVIRONMENT = {}


def compute_at(endpoint):
    """A fixture: OpenStackClient's compute proxy on ``endpoint``.

    An openstacksdk connection with no auth and ``endpoint`` as the
    compute endpoint, as a session without a catalog cannot name one;
    the requests it sends are openstacksdk's own (mock them at
    ``endpoint``).
    """
    conn = connection.Connection(
        session=session.Session(auth=noauth.NoAuth()),
        compute_endpoint_override=endpoint)
    return fixtures.CompoundFixture([
        # What the command's configuration says, as clouds.yaml would.
        fixtures.MockPatch('osc_placement.tests.cli.RUN_ENVIRONMENT', {
            'OS_COMPUTE_ENDPOINT_OVERRIDE': endpoint}),
        fixtures.MockPatchObject(
            osc_clientmanager.ClientManager, 'compute',
            new=property(lambda manager: conn.compute))])


def mock_compute(test, endpoint):
    """The compute API at ``endpoint`` on requests-mock, for ``test``.

    OpenStackClient's compute proxy is set there (:func:`compute_at`)
    and the version document answered; every other request goes on to
    the real servers. Returns the mocker: register the compute API's
    answers on it.
    """
    mock = requests_mock.Mocker(real_http=True)
    mock.start()
    test.addCleanup(mock.stop)
    version = {'version': {'id': 'v2.1', 'status': 'CURRENT',
                           'version': '2.96', 'min_version': '2.1',
                           'links': [{'rel': 'self',
                                      'href': endpoint + '/'}]}}
    mock.get(endpoint, json=version)
    mock.get(endpoint + '/', json=version)
    test.useFixture(compute_at(endpoint))
    return mock


def flavors_at(mock, endpoint, *flavors):
    """The compute API's answers on ``mock`` for each of ``flavors``.

    Looked up by name as openstacksdk does: the name as an ID first (404),
    then the detailed list of every flavor, then the flavor by its ID and
    its extra specs, which openstacksdk asks again.
    """
    mock.get(endpoint + '/flavors/detail?is_public=None',
             json={'flavors': list(flavors)})
    for body in flavors:
        mock.get(endpoint + '/flavors/' + body['name'], status_code=404)
        mock.get(endpoint + '/flavors/' + body['id'], json={'flavor': body})
        mock.get(endpoint + '/flavors/%s/os-extra_specs' % body['id'],
                 json={'extra_specs': body['extra_specs']})


def server_by_id(servers):
    """requests-mock's answer to ``GET /servers/{id}`` from ``servers()``.

    ``servers``: a callable giving the server bodies now (a test changes
    them); an ID of none of them is the compute API's 404.
    """
    def answer(request, context):
        uuid = request.path.rsplit('/', 1)[1]
        for body in servers():
            if body['id'] == uuid:
                return {'server': body}
        context.status_code = 404
        return {'itemNotFound': {'code': 404, 'message': 'not found'}}
    return answer


def auth_argv(endpoint=ENDPOINT, token='admin'):
    return ['--os-auth-type', 'admin_token', '--os-endpoint', endpoint,
            '--os-token', token]


@contextlib.contextmanager
def clean_environment(env=None):
    """OS_* and CLIFF_* unset, ``env`` applied; restored afterwards."""
    saved = dict(os.environ)
    for key in list(os.environ):
        if key.startswith(('OS_', 'CLIFF_')):
            del os.environ[key]
    # argparse wraps usage text to the terminal width: fix it.
    os.environ['COLUMNS'] = '80'
    os.environ.update(RUN_ENVIRONMENT)
    os.environ.update(env or {})
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _forget_clients():
    """Each plugin's client is made anew by the next command.

    OpenStackClient puts each plugin's client on the ClientManager class, as
    a ClientCache attribute named after the plugin's API: the first client
    made serves every later command of the process. A process runs one
    command; tests run many in one process. Each cache is replaced by an
    empty one around the same factory (the plugin's ``make_client``).
    """
    manager = osc_clientmanager.ClientManager
    caches = {name: value for name, value in vars(manager).items()
              if isinstance(value, osc_clientmanager.ClientCache)}
    with warnings.catch_warnings():
        # osc-lib deprecates the class for new users; OpenStackClient, the
        # one that matters here, still registers its plugins with it.
        warnings.simplefilter('ignore', DeprecationWarning)
        for name, cache in caches.items():
            setattr(manager, name, osc_clientmanager.ClientCache(
                cache.factory))


def run(argv, env=None):
    """Run ``openstack <argv>``; return (stdout, stderr, exit code)."""
    _forget_clients()
    out, err = io.StringIO(), io.StringIO()
    root = logging.getLogger()
    handlers = list(root.handlers)
    level = root.level
    argv0, app_name = sys.argv[0], cliff_app.App.NAME
    # argparse and cliff name the program after sys.argv[0].
    sys.argv[0] = cliff_app.App.NAME = 'openstack'
    with clean_environment(env), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = shell.main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            for handler in list(root.handlers):
                if handler not in handlers:
                    root.removeHandler(handler)
            root.setLevel(level)
            sys.argv[0], cliff_app.App.NAME = argv0, app_name
    return out.getvalue(), err.getvalue(), code
