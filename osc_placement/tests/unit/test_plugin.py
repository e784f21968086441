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


"""The OpenStackClient plugin hooks (osc_placement/plugin.py).

What importing the plugin loads is checked in a fresh interpreter, in
``osc_placement/tests/functional/test_plugin_import.py``.
"""

import argparse
import importlib.metadata
import io
from unittest import mock as umock

import fixtures
from keystoneauth1 import loading
from keystoneauth1 import session as ks_session
import testscenarios

from osc_placement import http
from osc_placement import plugin
from osc_placement.tests import cli
from osc_placement.tests.unit import base
from osc_placement import version

load_tests = testscenarios.load_tests_apply_scenarios


def _instance(requested, session=None):
    instance = umock.Mock(spec=['_api_version', '_region_name', 'interface',
                                'session'])
    instance._api_version = {'placement': requested}
    instance._region_name = 'RegionTwo'
    instance.interface = 'internal'
    instance.session = session or umock.Mock(spec=['request'])
    return instance


def _session():
    auth = loading.get_plugin_loader('admin_token').load_from_options(
        endpoint=cli.ENDPOINT, token='t')
    return ks_session.Session(auth=auth)


class PluginTestCase(base.TestCase):

    def parse(self, argv, env=None):
        """The plugin's options parsed; the environment as given."""
        for name in ('OS_PLACEMENT_API_VERSION', 'OS_PLACEMENT_TIMEOUT'):
            self.useFixture(fixtures.EnvironmentVariable(
                name, (env or {}).get(name)))
        parser = plugin.build_option_parser(argparse.ArgumentParser())
        return parser, parser.parse_args(argv)


class TestHooks(PluginTestCase):

    def test_entry_point(self):
        entry_points = importlib.metadata.entry_points(
            group='openstack.cli.extension')
        self.assertEqual(['osc_placement.plugin'],
                         [ep.value for ep in entry_points
                          if ep.name == 'placement'])

    def test_constants(self):
        self.assertEqual('placement', plugin.API_NAME)
        self.assertEqual('os_placement_api_version',
                         plugin.API_VERSION_OPTION)
        self.assertEqual(
            set(version.SUPPORTED_MICROVERSIONS + ['1', '1.latest']),
            set(plugin.API_VERSIONS))
        self.assertEqual({'osc_placement.http.SessionClient'},
                         set(plugin.API_VERSIONS.values()))

    def test_make_client_with_an_explicit_version(self):
        instance = _instance('1.14')
        client = plugin.make_client(instance)
        self.assertIsInstance(client, http.SessionClient)
        self.assertEqual('1.14', client.api_version)
        self.assertIs(instance.session, client.session)
        self.assertEqual({'service_type': 'placement',
                          'region_name': 'RegionTwo',
                          'interface': 'internal'}, client.ks_filter)
        # No negotiation for an explicit version.
        instance.session.request.assert_not_called()

    def test_make_client_negotiates(self):
        self.requests_mock.get(cli.ENDPOINT + '/', json={'versions': []})
        client = plugin.make_client(_instance('1.latest', _session()))
        self.assertEqual([(cli.ENDPOINT + '/', 'placement 1.39')],
                         [(r.url, r.headers['OpenStack-API-Version'])
                          for r in self.requests_mock.request_history])
        self.assertEqual('1.39', client.api_version)

    def test_make_client_refuses_an_unsupported_version(self):
        instance = _instance('1.40')
        raised = self.assertRaises(version.UnsupportedVersion,
                                   plugin.make_client, instance)
        self.assertIn("'1.40' is not supported", str(raised))
        instance.session.request.assert_not_called()

    def test_option_help(self):
        parser, args = self.parse([])
        text = ' '.join(parser.format_help().split())
        self.assertIn('--os-placement-api-version <placement-api-version>',
                      text)
        self.assertIn('Placement API version, default=1 (Env: '
                      'OS_PLACEMENT_API_VERSION).', text)
        self.assertIn('1.0 to 1.39', text)
        self.assertIn("'latest' to negotiate up to 1.39", text)

    def test_make_client_passes_the_timeout_to_each_request(self):
        instance = _instance('1', _session())
        instance._cli_options = umock.Mock(config={'placement_timeout': 2.5})
        self.requests_mock.get(cli.ENDPOINT + '/', json={'versions': []})
        self.requests_mock.get(cli.ENDPOINT + '/traits', json={'traits': []})
        client = plugin.make_client(instance)
        client.request('GET', '/traits')
        self.assertEqual([2.5, 2.5], [r.timeout for r in
                                      self.requests_mock.request_history])

    def test_make_client_reads_the_timeout_from_the_environment(self):
        instance = _instance('1.6', _session())
        instance._cli_options = umock.Mock(config={})
        self.requests_mock.get(cli.ENDPOINT + '/traits', json={'traits': []})
        with cli.clean_environment({'OS_PLACEMENT_TIMEOUT': '4'}):
            plugin.make_client(instance).request('GET', '/traits')
        self.assertEqual([4.0], [r.timeout for r in
                                 self.requests_mock.request_history])

    def test_bad_env_timeout_refused_by_placement_commands_in_one_line(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'list',
            env={'OS_PLACEMENT_TIMEOUT': 'abc'})
        self.assertEqual([], self.requests_mock.request_history)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(1, len(err.splitlines()), err)
        # openstacksdk's config loader also reads OS_PLACEMENT_TIMEOUT (as
        # the session timeout) and fails first, before the plugin runs: its
        # line names the value but not the variable.
        self.assertIn("'abc'", err)


class TestAPIVersionOption(PluginTestCase):

    scenarios = [
        ('default', {'argv': [], 'env': None, 'value': '1'}),
        ('env', {'argv': [], 'env': {'OS_PLACEMENT_API_VERSION': '1.20'},
                 'value': '1.20'}),
        ('env-latest', {'argv': [],
                        'env': {'OS_PLACEMENT_API_VERSION': 'latest'},
                        'value': '1.latest'}),
        ('option-over-env', {
            'argv': ['--os-placement-api-version', '1.5'],
            'env': {'OS_PLACEMENT_API_VERSION': '1.20'}, 'value': '1.5'}),
        ('option-latest', {
            'argv': ['--os-placement-api-version', ' LATEST '], 'env': None,
            'value': '1.latest'}),
        # Refused later, by placement commands only.
        ('option-unsupported', {
            'argv': ['--os-placement-api-version', '1.40'], 'env': None,
            'value': '1.40'}),
    ]

    def test_build_option_parser(self):
        parser, args = self.parse(self.argv, self.env)
        self.assertEqual(self.value, args.os_placement_api_version)


class TestTimeoutOption(PluginTestCase):
    """The timeout OpenStackClient does not offer."""

    scenarios = [
        ('none', {'argv': [], 'env': None, 'seconds': None}),
        ('timeout', {'argv': ['--timeout', '2.5'], 'env': None,
                     'seconds': 2.5}),
        ('os-placement-timeout', {
            'argv': ['--os-placement-timeout', '3'], 'env': None,
            'seconds': 3.0}),
        # The environment is read when the client is made.
        ('env', {'argv': [], 'env': {'OS_PLACEMENT_TIMEOUT': '4'},
                 'seconds': None}),
        ('option-over-env', {'argv': ['--timeout', '1'],
                             'env': {'OS_PLACEMENT_TIMEOUT': '4'},
                             'seconds': 1.0}),
    ]

    def test_timeout_option(self):
        parser, args = self.parse(self.argv, self.env)
        self.assertEqual(self.seconds, args.os_placement_timeout)


class TestTimeoutRefused(PluginTestCase):

    scenarios = [(repr(value), {'value': value})
                 for value in ('abc', '0', '-1', 'nan', 'inf', '')]

    def test_timeout_option_refuses(self):
        stderr = io.StringIO()
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', stderr))
        raised = self.assertRaises(SystemExit, self.parse,
                                   ['--timeout', self.value])
        self.assertEqual(2, raised.code)
        self.assertTrue(stderr.getvalue().splitlines()[-1].endswith(
            "argument --os-placement-timeout/--timeout: '%s' is not a "
            "positive number of seconds" % self.value), stderr.getvalue())


class TestBadEnvTimeout(PluginTestCase):

    scenarios = [(value, {'value': value}) for value in ('abc', '0')]

    def test_bad_env_timeout_does_not_break_other_commands(self):
        out, err, code = cli.run(['module', 'list', '-f', 'json'],
                                 env={'OS_PLACEMENT_TIMEOUT': self.value})
        self.assertEqual((0, ''), (code, err))
        self.assertIn('openstackclient', out)
