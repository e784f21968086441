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

"""A real Placement, in-process, for each functional test.

:class:`TestCase` starts the openstack-placement package's own test fixture
(an in-memory database, the real WSGI application behind wsgi-intercept)
and runs ``openstack`` commands against it; :meth:`TestCase.api` reads its
state back with direct API calls.
"""

import json
import logging

import fixtures
from oslotest import base
import requests

from osc_placement.http import client as placement_http
from osc_placement.tests import cli

try:
    from placement.tests.functional.fixtures import placement as pfixture
except ImportError:
    pfixture = None


def versions(*versions):
    """``scenarios`` setting ``self.version``; None: no version option.

    A module with scenarios applies them with ``load_tests =
    testscenarios.load_tests_apply_scenarios``, so that each case is a test
    of its own for ``stestr list`` and ``stestr run <id>``.
    """
    return [(version or 'negotiated', {'version': version})
            for version in versions]


class TestCase(base.BaseTestCase):
    """One fresh Placement per test."""

    def setUp(self):
        super().setUp()
        if pfixture is None:
            self.fail('openstack-placement is not installed: run the '
                      'functional tests with "tox -e functional"')
        # The fixture stays at hand: a test may change the server's
        # configuration (self.placement.conf_fixture.config(...)).
        self.placement = self.useFixture(pfixture.PlacementFixture())
        self.endpoint = self.placement.endpoint
        # The server and the client log each request: keep the log as a
        # detail of the test, shown when it fails.
        self.useFixture(fixtures.FakeLogger(level=logging.INFO))

    def openstack(self, *argv, version=None, env=None):
        """``openstack [--os-placement-api-version V] argv``, serial batches.

        Returns (stdout, stderr, exit code).
        """
        full = cli.auth_argv(self.endpoint)
        if version:
            full += ['--os-placement-api-version', version]
        # The fixture's SQLite takes one request at a time: batches run
        # serially here, unless a test asks otherwise.
        env = dict({'OS_PLACEMENT_PARALLEL': '1'}, **(env or {}))
        return cli.run(full + list(argv), env=env)

    def ok(self, *argv, version=None, env=None):
        """Run, require exit 0, return stdout (parsed if ``-f json``)."""
        out, err, code = self.openstack(*argv, version=version, env=env)
        self.assertEqual(0, code, 'openstack %s exited %s: %s' % (
            ' '.join(argv), code, err.strip()))
        if '-f' in argv and argv[argv.index('-f') + 1] == 'json':
            return json.loads(out)
        return out

    def fails(self, *argv, version=None, env=None):
        """Run, require a non-zero exit, return (stderr, exit code)."""
        out, err, code = self.openstack(*argv, version=version, env=env)
        self.assertNotEqual(0, code, 'expected a failure, got %r' % out)
        return err, code

    def api(self, method, path, version='1.39', body=None):
        """A direct request to the server (set-up and read-back)."""
        resp = requests.request(
            method, self.endpoint + path, json=body,
            headers={'x-auth-token': 'admin',
                     'OpenStack-API-Version': 'placement %s' % version,
                     'Accept': 'application/json'})
        self.assertLess(resp.status_code, 400,
                        '%s %s: %s' % (method, path, resp.text))
        return resp.json() if resp.content else None

    def before_request(self, action, method=None, url=None):
        """Run ``action`` before the CLI sends each request.

        ``action(method, url, kwargs)`` runs for every request of the CLI's
        HTTP layer, or only for those of ``method`` and ``url`` when given;
        the request is sent after it.
        """
        real = placement_http.SessionClient.request

        def request(client, req_method, req_url, **kwargs):
            if (method in (None, req_method)
                    and url in (None, req_url)):
                action(req_method, req_url, kwargs)
            return real(client, req_method, req_url, **kwargs)

        self.useFixture(fixtures.MonkeyPatch(
            'osc_placement.http.SessionClient.request', request))
