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

The client it makes, and its global options: the API version, the
timeout and the parallelism, whose bad values fail placement commands
only.

What importing the plugin loads is checked in a fresh interpreter, in
``osc_placement/tests/functional/test_plugin_import.py``.
"""

import argparse
import importlib.metadata
import math
from unittest import mock as umock

import fixtures
import hypothesis
from hypothesis import strategies as st
from keystoneauth1 import loading
from keystoneauth1 import session as ks_session
from openstack.config import cloud_region
from openstackclient.common import clientmanager
from osc_lib import exceptions
import testscenarios

from osc_placement.http import client as http
from osc_placement import plugin
from osc_placement.tests import cli
from osc_placement.tests.unit import base
from osc_placement.tests.unit import strategies
from osc_placement import version

load_tests = testscenarios.load_tests_apply_scenarios


def _instance(requested, session=None, config=None):
    """The ClientManager OpenStackClient hands to ``make_client``.

    Built as OpenStackClient builds it, from the options of the command
    line (region RegionTwo, internal interface, ``config``) and the API
    versions asked for; ``session`` stands for the one its authentication
    makes.
    """
    options = cloud_region.CloudRegion(
        region_name='RegionTwo',
        config=dict({'interface': 'internal'}, **(config or {})))
    instance = clientmanager.ClientManager(
        cli_options=options, api_version={'placement': requested})
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
        self.requests_mock.get(cli.ENDPOINT + '/', json=base.VERSIONS)
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
        instance = _instance('1', _session(),
                             config={plugin.TIMEOUT_CONFIG_KEY: '2.5'})
        self.requests_mock.get(cli.ENDPOINT + '/', json=base.VERSIONS)
        self.requests_mock.get(cli.ENDPOINT + '/traits', json={'traits': []})
        client = plugin.make_client(instance)
        client.request('GET', '/traits')
        self.assertEqual([2.5, 2.5], [r.timeout for r in
                                      self.requests_mock.request_history])

    def test_bad_env_timeout_refused_by_placement_commands_in_one_line(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'list',
            env={'OS_PLACEMENT_TIMEOUT': 'abc'})
        self.assertEqual([], self.requests_mock.request_history)
        self.assertEqual(
            ('', "--os-placement-timeout (or --timeout, OS_PLACEMENT_TIMEOUT)"
             ": 'abc' is not a positive number of seconds.\n", 1),
            (out, err, code))


class TestAPIVersionOption(PluginTestCase):

    scenarios = [
        # None lets OpenStackClient take the cloud's placement_api_version
        # (clouds.yaml), else plugin.DEFAULT_API_VERSION.
        ('default', {'argv': [], 'env': None, 'value': None}),
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
                     'seconds': '2.5'}),
        ('os-placement-timeout', {
            'argv': ['--os-placement-timeout', '3'], 'env': None,
            'seconds': '3'}),
        ('env', {'argv': [], 'env': {'OS_PLACEMENT_TIMEOUT': '4'},
                 'seconds': '4'}),
        ('option-over-env', {'argv': ['--timeout', '1'],
                             'env': {'OS_PLACEMENT_TIMEOUT': '4'},
                             'seconds': '1'}),
    ]

    def test_timeout_option(self):
        parser, args = self.parse(self.argv, self.env)
        self.assertEqual(self.seconds, args.os_placement_timeout_seconds)


class TestTimeoutRefused(PluginTestCase):
    """A bad timeout fails placement commands only, in one line."""

    scenarios = [(repr(value), {'value': value})
                 for value in ('abc', '0', '-1', 'nan', 'inf')]

    def test_timeout_option_refuses(self):
        out, err, code = self.openstack('--os-placement-timeout', self.value,
                                        'resource', 'class', 'list')
        self.assertEqual(
            ('', "--os-placement-timeout (or --timeout, OS_PLACEMENT_TIMEOUT)"
             ": %r is not a positive number of seconds.\n" % self.value, 1),
            (out, err, code))
        self.assertEqual([], self.requests_mock.request_history)


class TestDeprecatedTimeout(PluginTestCase):
    """--timeout works for one more release, with a warning.

    The warning names the new option; --os-placement-timeout warns of
    nothing.
    """

    scenarios = [
        ('old', {'flag': '--timeout', 'warned': True}),
        ('new', {'flag': '--os-placement-timeout', 'warned': False}),
    ]

    def test_deprecated_timeout_warns(self):
        self.requests_mock.get(cli.ENDPOINT + '/', json=base.VERSIONS)
        self.requests_mock.get(cli.ENDPOINT + '/resource_classes',
                               json={'resource_classes': []})
        out, err, code = self.openstack(self.flag, '2.5', 'resource',
                                        'class', 'list', '-f', 'json')
        self.assertEqual((0, '[]'), (code, out.strip()), err)
        self.assertEqual([2.5, 2.5], [r.timeout for r in
                                      self.requests_mock.request_history])
        warning = ('The --timeout option is deprecated and will be removed '
                   'in a future release: use --os-placement-timeout.\n')
        self.assertEqual(warning if self.warned else '', err)


class TestTimeoutOfOtherServices(PluginTestCase):
    """The placement timeout is not the timeout of the whole session."""

    scenarios = [
        ('bad-env', {'argv': [], 'env': {'OS_PLACEMENT_TIMEOUT': 'abc'}}),
        ('bad-option', {'argv': ['--timeout', 'abc'], 'env': None}),
        ('option', {'argv': ['--timeout', '2'], 'env': None}),
        ('env', {'argv': [], 'env': {'OS_PLACEMENT_TIMEOUT': '2'}}),
    ]

    def test_another_service_does_not_get_the_placement_timeout(self):
        # The version discovery of the compute API: the first request of
        # "server list", sent through the shared session.
        self.requests_mock.get(cli.ENDPOINT, status_code=404)
        out, err, code = cli.run(cli.auth_argv() + self.argv
                                 + ['server', 'list'], env=self.env)
        self.assertNotIn('abc', err)
        self.assertNotIn('convert', err)
        sent = self.requests_mock.request_history
        self.assertNotEqual([], sent, err)
        self.assertEqual({None}, {r.timeout for r in sent})


class TestBadEnvTimeout(PluginTestCase):

    scenarios = [(value, {'value': value}) for value in ('abc', '0')]

    def test_bad_env_timeout_does_not_break_other_commands(self):
        out, err, code = cli.run(['module', 'list', '-f', 'json'],
                                 env={'OS_PLACEMENT_TIMEOUT': self.value})
        self.assertEqual((0, ''), (code, err))
        self.assertIn('openstackclient', out)


class TestBadEnvVersion(base.TestCase):
    """A stray OS_PLACEMENT_API_VERSION is reported by placement commands.

    Other services' commands run without a warning.
    """

    scenarios = [(repr(value), {'value': value})
                 for value in ('1.40', 'abc', '9.9')]

    def test_bad_env_version_does_not_break_other_commands(self):
        out, err, code = cli.run(['module', 'list', '-f', 'json'],
                                 env={'OS_PLACEMENT_API_VERSION': self.value})
        self.assertEqual(0, code)
        self.assertIn('openstackclient', out)
        self.assertEqual('', err)


class TestParallelOption(base.TestCase):
    """Bad values are refused in one line; other services never mind."""

    api_version = '1.39'
    # An empty OS_PLACEMENT_PARALLEL is the same as none: not in the table.
    scenarios = [(repr(value), {'value': value})
                 for value in ('0', '65', 'abc', '-1', '1.5', ' ', '١')]

    def test_bad_option_fails_placement_commands_in_one_line(self):
        out, err, code = self.openstack('--os-placement-parallel',
                                        self.value, 'trait', 'list')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ['--os-placement-parallel (or OS_PLACEMENT_PARALLEL): %r is not '
             'a whole number from 1 to 64.' % self.value], err.splitlines())
        self.assertEqual([], self.sent())

    def test_bad_option_leaves_other_services_alone(self):
        out, err, code = self.openstack(
            '--os-placement-parallel', self.value, 'module', 'list',
            '-f', 'value')
        self.assertEqual(('', 0), (err, code))

    def test_bad_environment_fails_placement_commands_in_one_line(self):
        out, err, code = self.openstack(
            'trait', 'list', env={'OS_PLACEMENT_PARALLEL': self.value})
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ['--os-placement-parallel (or OS_PLACEMENT_PARALLEL): %r is not '
             'a whole number from 1 to 64.' % self.value], err.splitlines())
        self.assertEqual([], self.sent())

    def test_bad_environment_leaves_other_services_alone(self):
        out, err, code = self.openstack(
            'module', 'list', '-f', 'value',
            env={'OS_PLACEMENT_PARALLEL': self.value})
        self.assertEqual(('', 0), (err, code))


class TestRefusedLocally(base.RefusedLocallyTestCase):
    """A bad timeout with a line break (pasted from a file, say).

    It must not break the error line.
    """

    scenarios = [
        base.bad_value('line-break-timeout',
                       ['--os-placement-timeout', '1\n0', 'resource',
                        'class', 'create', 'CUSTOM_A'], 1,
                       ['--os-placement-timeout', 'seconds']),
    ]


# Any value, property-based (see the strategies module).

class TestAnyTimeout(base.TestCase):
    """Any value of the timeout: seconds, or refused in one line."""

    @strategies.SETTINGS
    @hypothesis.given(st.one_of(strategies.LINE,
                                st.sampled_from(strategies.NUMBERS)))
    def test_timeout_is_positive_seconds_or_a_command_error(self, value):
        seconds, error = strategies.outcome(
            plugin._timeout_seconds, value, errors=exceptions.CommandError)
        if error is None:
            self.assertTrue(
                isinstance(seconds, float) and 0 < seconds < math.inf)
        else:
            self.assertOneLine(str(error))
            self.assertIn(repr(value), str(error))
