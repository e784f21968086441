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


"""Microversions: the predicates, the gates, and what
``--os-placement-api-version`` accepts (every version from 1.0 to 1.39).
"""

import os
from unittest import mock as umock

import fixtures
import hypothesis
from hypothesis import strategies as st
from osc_lib import exceptions
import testscenarios

from osc_placement.tests.unit import base
from osc_placement.tests.unit import strategies
from osc_placement import version

load_tests = testscenarios.load_tests_apply_scenarios

ENDPOINT = base.ENDPOINT
ACCEPTED = ("accepted values: 1.0 to 1.39, '1' (negotiate up to 1.29) or "
            "'latest'.")
ROOT = {'versions': [{'id': 'v1.0', 'min_version': '1.0',
                      'max_version': '1.39', 'status': 'CURRENT'}]}
LIST = ['resource', 'provider', 'list', '-f', 'value']


def _values(values):
    return [(repr(value), {'value': value}) for value in values]


# Predicates and compare.

class TestPredicates(base.TestCase):
    """1.10 is above 1.9: versions are compared as numbers."""

    scenarios = [
        ('%s-%s-%s' % (name, bound, current),
         {'predicate': getattr(version, name)(bound), 'current': current,
          'result': result})
        for name, bound, current, result in [
            ('ge', '1.14', '1.14', True),
            ('ge', '1.14', '1.13', 'requires at least version 1.14'),
            ('ge', '1.9', '1.10', True),
            ('ge', '1.50', '1.5', 'requires at least version 1.50'),
            ('lt', '1.10', '1.9', True),
            ('lt', '1.10', '1.10', 'requires version less than 1.10'),
            ('lt', '1.5', '1.50', 'requires version less than 1.5')]]

    def test_predicates_compare_numbers(self):
        self.assertEqual(self.result, self.predicate(self.current))


class TestCompare(base.TestCase):

    def test_predicate_keeps_its_bound(self):
        self.assertEqual('1.14', version.ge('1.14').bound)

    def test_predicate_refuses_a_malformed_bound(self):
        self.assertRaises(ValueError, version.ge, '1.x')

    def test_compare_true(self):
        self.assertTrue(version.compare('1.20', version.ge('1.14'),
                                        version.lt('1.30')))

    def test_compare_raises_the_gate_error(self):
        raised = self.assertRaises(version.VersionGateError, version.compare,
                                   '1.13', version.ge('1.14'))
        self.assertEqual('Operation or argument is not supported with '
                         'version 1.13; requires at least version 1.14',
                         str(raised))
        # A CommandError for the CLI, a ValueError for callers of the
        # reference's API.
        self.assertIsInstance(raised, exceptions.CommandError)
        self.assertIsInstance(raised, ValueError)

    def test_compare_names_every_failed_predicate(self):
        raised = self.assertRaises(
            version.VersionGateError, version.compare, '1.40',
            version.ge('1.41'), version.lt('1.30'), version.ge('1.0'))
        self.assertEqual(
            'Operation or argument is not supported with version 1.40; '
            'requires at least version 1.41, and requires version less '
            'than 1.30', str(raised))

    def test_compare_any(self):
        self.assertTrue(version.compare('1.5', version.lt('1.3'),
                                        version.ge('1.5'), op=any))
        raised = self.assertRaises(
            version.VersionGateError, version.compare, '1.4',
            version.lt('1.3'), version.ge('1.5'), op=any)
        self.assertEqual(
            'Operation or argument is not supported with version 1.4; '
            'requires version less than 1.3, or requires at least version '
            '1.5', str(raised))

    def test_compare_without_exception(self):
        self.assertIs(False, version.compare('1.1', version.ge('1.2'),
                                             exc=False))
        self.assertIs(True, version.compare('1.2', version.ge('1.2'),
                                            exc=False))

    def test_before_is_the_version_just_below(self):
        self.assertEqual('1.9', version.before('1.10'))
        self.assertRaises(ValueError, version.before, '1.0')

    def test_accepted_range_is_1_0_to_1_39(self):
        self.assertEqual('1.0', version.SUPPORTED_MICROVERSIONS[0])
        self.assertEqual('1.39', version.SUPPORTED_MICROVERSIONS[-1])
        self.assertEqual('1.39', version.MAX_VERSION)
        self.assertEqual(40, len(version.SUPPORTED_MICROVERSIONS))


class TestParse(base.TestCase):

    scenarios = [(text, {'text': text, 'parsed': parsed})
                 for text, parsed in [('1.0', (1, 0)), ('1.14', (1, 14)),
                                      ('1.39', (1, 39)), ('2.5', (2, 5))]]

    def test_parse(self):
        self.assertEqual(self.parsed, version.parse(self.text))


class TestParseRefuses(base.TestCase):

    scenarios = _values(['1', '1.', '.1', '1.x', 'latest', '', '1.2.3',
                         ' 1.2', '１.２'])

    def test_parse_refuses(self):
        self.assertRaises(ValueError, version.parse, self.value)


# What the option accepts.

class TestValidateAccepts(base.TestCase):

    scenarios = _values(version.SUPPORTED_MICROVERSIONS
                        + ['1', version.LATEST_OPTION_VALUE])

    def test_validate_accepts(self):
        self.assertEqual(self.value, version.validate(self.value))


class TestValidateRefuses(base.TestCase):

    scenarios = _values(['1.40', '2.0', 'abc', '', '1.', '1.05', '1.-1',
                         '0.9', 'latest', '1.3 ', '1,3'])

    def test_validate_refuses(self):
        raised = self.assertRaises(version.UnsupportedVersion,
                                   version.validate, self.value)
        self.assertEqual("Placement API version '%s' is not supported; %s"
                         % (self.value, ACCEPTED), str(raised))
        self.assertIsInstance(raised, exceptions.CommandError)


class TestNormalizeOption(base.TestCase):

    scenarios = [(repr(value), {'value': value, 'normalized': normalized})
                 for value, normalized in [
                     ('latest', '1.latest'), ('LATEST', '1.latest'),
                     (' Latest ', '1.latest'), (' 1.5 ', '1.5'), ('1', '1'),
                     ('1.39', '1.39')]]

    def test_normalize_option(self):
        self.assertEqual(self.normalized,
                         version.normalize_option(self.value))


class TestNormalizedRefused(base.TestCase):

    scenarios = _values(['abc', '2.0', '', '1.40', '0.9', '1.x'])

    def test_normalized_refused_value_is_named_by_validate(self):
        """The error names the value the user gave.

        Whatever form the option parser keeps a refused value in.
        """
        raised = self.assertRaises(version.UnsupportedVersion,
                                   version.validate,
                                   version.normalize_option(self.value))
        self.assertEqual("Placement API version '%s' is not supported; %s"
                         % (self.value, ACCEPTED), str(raised))


# The version parsers and commands see.

class _App(object):
    def __init__(self, requested, client=None):
        self.client_manager = umock.Mock(spec=['_api_version', 'placement'])
        self.client_manager._api_version = {'placement': requested}
        if client is None:
            del self.client_manager.placement
        else:
            self.client_manager.placement = client


class _Command(version.CheckerMixin):
    def __init__(self, app):
        self.app = app


class TestRequestedVersion(base.TestCase):

    scenarios = [(requested, {'requested': requested, 'expected': expected})
                 for requested, expected in [
                     ('1', '1.29'), ('1.latest', '1.39'), ('1.7', '1.7'),
                     ('1.40', '1.39')]]

    def test_requested_version(self):
        self.assertEqual(self.expected,
                         version.requested_version(_App(self.requested)))


class TestChecker(base.TestCase):

    def test_requested_version_without_app(self):
        self.assertEqual('1.0', version.requested_version(None))

    def test_checker_uses_the_negotiated_version(self):
        client = umock.Mock(api_version='1.20')
        command = _Command(_App('1', client))
        self.assertTrue(command.check_version(version.ge('1.20')))
        self.assertIs(False, command.compare_version(version.ge('1.21')))
        raised = self.assertRaises(version.VersionGateError,
                                   command.check_version, version.ge('1.21'))
        self.assertIn('with version 1.20;', str(raised))

    def test_checker_without_client_uses_the_requested_version(self):
        command = _Command(_App('1.5'))
        self.assertTrue(command.compare_version(version.ge('1.5')))
        self.assertIs(False, command.compare_version(version.ge('1.6')))


# Through the real openstack shell.

class ShellTestCase(base.TestCase):

    def list_providers(self, argv, env=None, root=None):
        """openstack <auth> argv against a Placement with no provider.

        Returns (stdout, stderr lines, code, [(method, path, version)]).
        """
        self.requests_mock.get(ENDPOINT + '/', **(root or {'json': ROOT}))
        self.requests_mock.get(ENDPOINT + '/resource_providers',
                               json={'resource_providers': []})
        out, err, code = self.openstack(*argv, env=env)
        sent = [(r.method, r.path, r.version) for r in self.requests_sent()]
        return out, err.splitlines(), code, sent


class TestOptionAccepts(ShellTestCase):

    scenarios = _values(version.SUPPORTED_MICROVERSIONS)

    def test_option_accepts_every_microversion(self):
        """1.0 to 1.39, 1.30 to 1.36 included: used as is, no negotiation."""
        out, lines, code, sent = self.list_providers(
            ['--os-placement-api-version', self.value] + LIST)
        self.assertEqual((0, []), (code, lines))
        self.assertEqual(
            [('GET', '/resource_providers', 'placement ' + self.value)],
            sent)


class TestOptionRefuses(ShellTestCase):
    """A refused value: one line, no request.

    OpenStackClient picks the command group from the text before the
    first dot of the value: the plugin keeps a refused value under major 1
    so that the placement command runs and names it.
    """

    scenarios = _values(['1.40', '1.99', '1.', '1.05', '1.-1', 'abc', '2.0',
                         '0.9', ''])

    def test_option_refuses_in_one_line_without_request(self):
        out, lines, code, sent = self.list_providers(
            ['--os-placement-api-version', self.value] + LIST)
        self.assertEqual(('', 1, []), (out, code, sent))
        self.assertEqual(["Placement API version '%s' is not supported; %s"
                          % (self.value, ACCEPTED)], lines)


class TestNegotiation(ShellTestCase):

    def test_default_negotiates_up_to_1_29(self):
        out, lines, code, sent = self.list_providers(LIST)
        self.assertEqual((0, []), (code, lines))
        self.assertEqual([('GET', '/', 'placement 1.29'),
                          ('GET', '/resource_providers', 'placement 1.29')],
                         sent)

    def test_default_falls_back_to_the_server_maximum(self):
        out, lines, code, sent = self.list_providers(LIST, root={
            'status_code': 406, 'json': {'errors': [{
                'status': 406, 'title': 'Not Acceptable',
                'min_version': '1.0', 'max_version': '1.17'}]}})
        self.assertEqual((0, []), (code, lines))
        self.assertEqual([('GET', '/', 'placement 1.29'),
                          ('GET', '/resource_providers', 'placement 1.17')],
                         sent)

    def test_env_version(self):
        out, lines, code, sent = self.list_providers(
            LIST, env={'OS_PLACEMENT_API_VERSION': '1.7'})
        self.assertEqual(
            (0, [('GET', '/resource_providers', 'placement 1.7')]),
            (code, sent))

    def test_option_overrides_env_version(self):
        out, lines, code, sent = self.list_providers(
            ['--os-placement-api-version', '1.33'] + LIST,
            env={'OS_PLACEMENT_API_VERSION': '1.7'})
        self.assertEqual(
            (0, [('GET', '/resource_providers', 'placement 1.33')]),
            (code, sent))

    def test_env_version_refused_in_one_line(self):
        out, lines, code, sent = self.list_providers(
            LIST, env={'OS_PLACEMENT_API_VERSION': '1.40'})
        self.assertEqual(('', 1, []), (out, code, sent))
        self.assertEqual(["Placement API version '1.40' is not supported; %s"
                          % ACCEPTED], lines)

    def test_gate_checked_against_the_negotiated_version(self):
        """An old server (max 1.13) makes --in-tree fail.

        After the negotiation, before any other request.
        """
        out, lines, code, sent = self.list_providers(
            LIST + ['--in-tree', base.RP1],
            root={'status_code': 406, 'json': {'errors': [{
                'status': 406, 'title': 'Not Acceptable',
                'max_version': '1.13'}]}})
        self.assertEqual(('', 1), (out, code))
        self.assertEqual([('GET', '/', 'placement 1.29')], sent)
        self.assertEqual(['Operation or argument is not supported with '
                          'version 1.13; requires at least version 1.14'],
                         lines)


class TestLatest(ShellTestCase):

    scenarios = [
        ('option', {'argv': ['--os-placement-api-version', 'latest'],
                    'env': None, 'expected': '1.39'}),
        ('option-upper-case', {
            'argv': ['--os-placement-api-version', 'LATEST'], 'env': None,
            'expected': '1.39'}),
        ('option-1-over-env', {
            'argv': ['--os-placement-api-version', '1'],
            'env': {'OS_PLACEMENT_API_VERSION': 'latest'},
            'expected': '1.29'}),
        ('env', {'argv': [], 'env': {'OS_PLACEMENT_API_VERSION': 'latest'},
                 'expected': '1.39'}),
        ('env-mixed-case', {
            'argv': [], 'env': {'OS_PLACEMENT_API_VERSION': 'Latest'},
            'expected': '1.39'}),
    ]

    def test_latest_negotiates_up_to_1_39(self):
        out, lines, code, sent = self.list_providers(self.argv + LIST,
                                                     env=self.env)
        self.assertEqual((0, []), (code, lines))
        self.assertEqual(
            [('GET', '/', 'placement ' + self.expected),
             ('GET', '/resource_providers', 'placement ' + self.expected)],
            sent)


class CloudsYamlTestCase(ShellTestCase):

    def write_clouds_yaml(self, api_version):
        """A clouds.yaml with the cloud 'test'; its path."""
        lines = ['clouds:', '  test:', '    region_name: RegionOne']
        if api_version is not None:
            lines.append('    placement_api_version: %s' % api_version)
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'clouds.yaml')
        with open(path, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        return path


class TestCloudsYaml(CloudsYamlTestCase):
    """placement_api_version of a cloud in clouds.yaml picks the version.

    As compute_api_version does for compute commands; the option and
    OS_PLACEMENT_API_VERSION still win over it.
    """

    scenarios = [
        ('explicit', {'cloud': '1.7', 'argv': [], 'env': {},
                      'sent': [('GET', '/resource_providers', '1.7')]}),
        ('quoted-1.10', {'cloud': "'1.10'", 'argv': [], 'env': {},
                         'sent': [('GET', '/resource_providers', '1.10')]}),
        ('negotiate', {'cloud': '1', 'argv': [], 'env': {},
                       'sent': [('GET', '/', '1.29'),
                                ('GET', '/resource_providers', '1.29')]}),
        ('unset', {'cloud': None, 'argv': [], 'env': {},
                   'sent': [('GET', '/', '1.29'),
                            ('GET', '/resource_providers', '1.29')]}),
        ('option-wins', {
            'cloud': '1.7', 'env': {},
            'argv': ['--os-placement-api-version', '1.33'],
            'sent': [('GET', '/resource_providers', '1.33')]}),
        ('option-latest-wins', {
            'cloud': '1.7', 'env': {},
            'argv': ['--os-placement-api-version', 'latest'],
            'sent': [('GET', '/', '1.39'),
                     ('GET', '/resource_providers', '1.39')]}),
        ('env-wins', {
            'cloud': '1.7', 'argv': [],
            'env': {'OS_PLACEMENT_API_VERSION': '1.12'},
            'sent': [('GET', '/resource_providers', '1.12')]}),
    ]

    def test_clouds_yaml_version(self):
        env = dict(self.env, OS_CLIENT_CONFIG_FILE=self.write_clouds_yaml(
            self.cloud))
        out, lines, code, sent = self.list_providers(
            ['--os-cloud', 'test'] + self.argv + LIST, env=env)
        self.assertEqual((0, []), (code, lines))
        self.assertEqual(
            [(method, path, 'placement ' + version_value)
             for method, path, version_value in self.sent], sent)


class TestCloudsYamlRefused(CloudsYamlTestCase):

    def test_clouds_yaml_version_refused_in_one_line(self):
        env = {'OS_CLIENT_CONFIG_FILE': self.write_clouds_yaml("'1.40'")}
        out, lines, code, sent = self.list_providers(
            ['--os-cloud', 'test'] + LIST, env=env)
        self.assertEqual(('', 1, []), (out, code, sent))
        self.assertEqual(["Placement API version '1.40' is not supported; %s"
                          % ACCEPTED], lines)


class TestGateMessage(ShellTestCase):

    scenarios = [
        (' '.join(argv), {'version': version_value, 'argv': argv,
                          'minimum': minimum})
        for version_value, argv, minimum in [
            ('1.3', ['--resource', 'VCPU=1'], '1.4'),
            ('1.13', ['--in-tree', base.RP1], '1.14'),
            ('1.17', ['--required', 'HW_CPU_X86_AVX'], '1.18'),
            ('1.21', ['--forbidden', 'HW_CPU_X86_AVX'], '1.22'),
            ('1.2', ['--member-of', base.AGG1], '1.3'),
            ('1.38', ['--required', 'A,B'], '1.39')]]

    def test_gate_message_without_request(self):
        out, lines, code, sent = self.list_providers(
            ['--os-placement-api-version', self.version] + LIST + self.argv)
        self.assertEqual(('', 1, []), (out, code, sent))
        self.assertEqual(['Operation or argument is not supported with '
                          'version %s; requires at least version %s'
                          % (self.version, self.minimum)], lines)


# Bad values of the option and of OS_PLACEMENT_API_VERSION, refused before
# any request (see base.RefusedLocallyTestCase).

API_VERSION_WORDS = ['1.0 to 1.39']
BAD_VALUES = [
    base.bad_value('api-version-option-%r' % value,
                   ['--os-placement-api-version', value, 'resource',
                    'class', 'create', 'CUSTOM_A'], 1,
                   [repr(value.strip())] + API_VERSION_WORDS, version=None)
    for value in ('1.40', '1.99', '2.0', '2', '0.9', 'abc', '', ' ',
                  '1.x', '1.', '1.-1', '1.030', '1.5.1', 'v1.5')
] + [
    base.bad_value('api-version-env-%r' % value,
                   ['resource', 'class', 'create', 'CUSTOM_A'], 1,
                   [repr(value)] + API_VERSION_WORDS, version=None,
                   env={'OS_PLACEMENT_API_VERSION': value})
    for value in ('1.40', '2.0', 'abc', '1.x', '1.')
] + [
    # A value holding a line break (pasted from a file, say) must not
    # break the error line.
    base.bad_value('line-break-api-version',
                   ['--os-placement-api-version', '1.\n5', 'resource',
                    'class', 'create', 'CUSTOM_A'], 1, ['1.0 to 1.39']),
]


class TestRefusedLocally(base.RefusedLocallyTestCase):

    scenarios = BAD_VALUES


class TestCaseIds(base.CaseIdsTestCase):

    tables = (BAD_VALUES,)


# Any value, property-based (see the strategies module).

VERSION_VALUES = st.one_of(
    strategies.TEXT,
    st.sampled_from(version.SUPPORTED_MICROVERSIONS + [
        '1', 'latest', 'LATEST', ' latest ', '1.40', '2.0', '1.x', '1.',
        '', '0.9', '1.030', ' 1.5 ']),
    strategies.built_from(['1', '.', '2', '9', ' ', 'latest', 'x']))


class TestAnyOptionValue(base.TestCase):
    """Any value of the option: a version, or refused in one line."""

    @strategies.SETTINGS
    @hypothesis.given(VERSION_VALUES)
    def test_api_version_is_supported_or_refused_in_one_line(self, value):
        option = version.normalize_option(value)
        # Always major 1: OpenStackClient then runs the placement command,
        # which names the bad value.
        self.assertTrue(option == '1' or option.startswith('1.'))
        accepted, error = strategies.outcome(version.validate, option)
        stripped = value.strip()
        if error is None:
            self.assertIn(accepted, version.SUPPORTED_VERSIONS)
            self.assertTrue(
                stripped in version.SUPPORTED_MICROVERSIONS + ['1']
                or stripped.lower() == 'latest', stripped)
            return
        self.assertIsInstance(error, version.UnsupportedVersion)
        self.assertNotIn(stripped, version.SUPPORTED_MICROVERSIONS + ['1'])
        message = str(error)
        self.assertIn(repr(stripped), message)
        self.assertIn('1.0 to %s' % version.MAX_VERSION, message)
        if '\n' not in value and '\r' not in value:
            self.assertOneLine(message)
