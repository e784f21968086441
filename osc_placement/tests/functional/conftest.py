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

The ``placement`` fixture starts the openstack-placement package's own test
fixture (an in-memory database, the real WSGI application behind
wsgi-intercept) and returns a :class:`Placement` that runs ``openstack``
commands against it and reads its state back with direct API calls.
"""

import json
import logging

import pytest

from osc_placement.tests import cli

try:
    from placement.tests.functional.fixtures import placement as pfixture
except ImportError:  # pragma: no cover - only without openstack-placement
    pfixture = None


class CommandFailed(Exception):
    def __init__(self, argv, stdout, stderr, code):
        super().__init__('openstack %s exited %s: %s' % (
            ' '.join(argv), code, stderr.strip()))
        self.stdout, self.stderr, self.code = stdout, stderr, code


class Placement(object):
    """Runs the CLI against the fixture's endpoint."""

    def __init__(self, endpoint):
        self.endpoint = endpoint

    def run(self, *argv, version=None, env=None):
        """``openstack [--os-placement-api-version V] argv`` -> (out, err, rc).
        """
        full = cli.auth_argv(self.endpoint)
        if version:
            full += ['--os-placement-api-version', version]
        return cli.run(full + list(argv), env=env)

    def ok(self, *argv, version=None, env=None):
        """Run, require exit 0, return stdout (parsed if ``-f json``)."""
        out, err, code = self.run(*argv, version=version, env=env)
        if code != 0:
            raise CommandFailed(argv, out, err, code)
        if '-f' in argv and argv[argv.index('-f') + 1] == 'json':
            return json.loads(out)
        return out

    def fail(self, *argv, version=None, env=None):
        """Run, require a non-zero exit, return (stderr, code)."""
        out, err, code = self.run(*argv, version=version, env=env)
        assert code != 0, 'expected a failure, got %r' % out
        return err, code

    def api(self, method, path, version='1.39', body=None):
        """A direct request to the server (setup and read-back)."""
        import requests
        resp = requests.request(
            method, self.endpoint + path, json=body,
            headers={'x-auth-token': 'admin',
                     'OpenStack-API-Version': 'placement %s' % version,
                     'Accept': 'application/json'})
        assert resp.status_code < 400, (method, path, resp.status_code,
                                        resp.text)
        return resp.json() if resp.content else None


@pytest.fixture
def placement():
    if pfixture is None:
        pytest.fail('openstack-placement is not installed: run the '
                    'functional tests with "tox -e functional"')
    fixture = pfixture.PlacementFixture()
    fixture.setUp()
    # The server logs at INFO per request; keep test output readable.
    for name in ('placement', 'oslo_policy', 'keystoneauth'):
        logging.getLogger(name).setLevel(logging.WARNING)
    try:
        yield Placement(fixture.endpoint)
    finally:
        fixture.cleanUp()
