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
``--os-placement-api-version`` accepts (deviation D10)."""

from unittest import mock as umock

from osc_lib import exceptions
import pytest
import requests_mock

from osc_placement.tests import cli
from osc_placement import version

ENDPOINT = cli.ENDPOINT
ACCEPTED = ("accepted values: 1.0 to 1.39, '1' (negotiate up to 1.29) or "
            "'latest'.")


# Predicates and compare.

@pytest.mark.parametrize('predicate,current,result', [
    (version.ge('1.14'), '1.14', True),
    (version.ge('1.14'), '1.13', 'requires at least version 1.14'),
    (version.ge('1.9'), '1.10', True),
    (version.gt('1.9'), '1.10', True),
    (version.gt('1.10'), '1.10', 'requires version greater than 1.10'),
    (version.lt('1.10'), '1.9', True),
    (version.lt('1.10'), '1.10', 'requires version less than 1.10'),
    (version.le('1.10'), '1.10', True),
    (version.le('1.10'), '1.11', 'requires at most version 1.10'),
    (version.eq('1.5'), '1.5', True),
    (version.eq('1.5'), '1.50', 'requires version 1.5'),
    (version.ne('1.5'), '1.6', True),
    (version.ne('1.5'), '1.5', 'can not use version 1.5'),
])
def test_predicates_compare_numbers(predicate, current, result):
    """1.10 is above 1.9: versions are compared as numbers."""
    assert predicate(current) == result


def test_predicate_keeps_its_bound():
    assert version.ge('1.14').bound == '1.14'


def test_predicate_refuses_a_malformed_bound():
    with pytest.raises(ValueError):
        version.ge('1.x')


def test_compare_true():
    assert version.compare('1.20', version.ge('1.14'), version.lt('1.30'))


def test_compare_raises_the_gate_error():
    with pytest.raises(version.VersionGateError) as raised:
        version.compare('1.13', version.ge('1.14'))
    assert str(raised.value) == ('Operation or argument is not supported '
                                 'with version 1.13; requires at least '
                                 'version 1.14')
    # A CommandError for the CLI, a ValueError for callers of the
    # reference's API.
    assert isinstance(raised.value, exceptions.CommandError)
    assert isinstance(raised.value, ValueError)


def test_compare_names_every_failed_predicate():
    with pytest.raises(version.VersionGateError) as raised:
        version.compare('1.40', version.ge('1.41'), version.lt('1.30'),
                        version.ge('1.0'))
    assert str(raised.value) == (
        'Operation or argument is not supported with version 1.40; requires '
        'at least version 1.41, and requires version less than 1.30')


def test_compare_any():
    assert version.compare('1.5', version.lt('1.3'), version.ge('1.5'),
                           op=any)
    with pytest.raises(version.VersionGateError) as raised:
        version.compare('1.4', version.lt('1.3'), version.ge('1.5'), op=any)
    assert str(raised.value) == (
        'Operation or argument is not supported with version 1.4; requires '
        'version less than 1.3, or requires at least version 1.5')


def test_compare_without_exception():
    assert version.compare('1.1', version.ge('1.2'), exc=False) is False
    assert version.compare('1.2', version.ge('1.2'), exc=False) is True


@pytest.mark.parametrize('text,parsed', [
    ('1.0', (1, 0)), ('1.14', (1, 14)), ('1.39', (1, 39)), ('2.5', (2, 5))])
def test_parse(text, parsed):
    assert version.parse(text) == parsed


@pytest.mark.parametrize('text', ['1', '1.', '.1', '1.x', 'latest', '',
                                  '1.2.3', ' 1.2', '１.２'])
def test_parse_refuses(text):
    with pytest.raises(ValueError):
        version.parse(text)


# What the option accepts.

@pytest.mark.parametrize('value', version.SUPPORTED_MICROVERSIONS)
def test_validate_accepts_every_microversion(value):
    assert version.validate(value) == value


def test_accepted_range_is_1_0_to_1_39():
    assert version.SUPPORTED_MICROVERSIONS[0] == '1.0'
    assert version.SUPPORTED_MICROVERSIONS[-1] == version.MAX_VERSION \
        == '1.39'
    assert len(version.SUPPORTED_MICROVERSIONS) == 40


@pytest.mark.parametrize('value', ['1', version.LATEST_OPTION_VALUE])
def test_validate_accepts_negotiation(value):
    assert version.validate(value) == value


@pytest.mark.parametrize('value', ['1.40', '2.0', 'abc', '', '1.', '1.05',
                                   '1.-1', '0.9', 'latest', '1.3 ', '1,3'])
def test_validate_refuses(value):
    with pytest.raises(version.UnsupportedVersion) as raised:
        version.validate(value)
    assert str(raised.value) == (
        "Placement API version '%s' is not supported; %s"
        % (value, ACCEPTED))
    assert isinstance(raised.value, exceptions.CommandError)


@pytest.mark.parametrize('value,normalized', [
    ('latest', '1.latest'), ('LATEST', '1.latest'), (' Latest ', '1.latest'),
    (' 1.5 ', '1.5'), ('1', '1'), ('1.39', '1.39'),
])
def test_normalize_option(value, normalized):
    assert version.normalize_option(value) == normalized


@pytest.mark.parametrize('value', ['abc', '2.0', '', '1.40', '0.9', '1.x'])
def test_normalized_refused_value_is_named_by_validate(value):
    """Whatever form the option parser keeps a refused value in, the error
    names the value the user gave."""
    with pytest.raises(version.UnsupportedVersion) as raised:
        version.validate(version.normalize_option(value))
    assert str(raised.value) == (
        "Placement API version '%s' is not supported; %s"
        % (value, ACCEPTED))


# The version parsers and commands see.

class _App(object):
    def __init__(self, requested, client=None):
        self.client_manager = umock.Mock(spec=['_api_version', 'placement'])
        self.client_manager._api_version = {'placement': requested}
        if client is None:
            del self.client_manager.placement
        else:
            self.client_manager.placement = client


@pytest.mark.parametrize('requested,expected', [
    ('1', '1.29'), ('1.latest', '1.39'), ('1.7', '1.7'), ('1.40', '1.39'),
])
def test_requested_version(requested, expected):
    assert version.requested_version(_App(requested)) == expected


def test_requested_version_without_app():
    assert version.requested_version(None) == '1.0'


class _Command(version.CheckerMixin):
    def __init__(self, app):
        self.app = app


def test_checker_uses_the_negotiated_version():
    client = umock.Mock(api_version='1.20')
    command = _Command(_App('1', client))
    assert command.check_version(version.ge('1.20'))
    assert command.compare_version(version.ge('1.21')) is False
    with pytest.raises(version.VersionGateError) as raised:
        command.check_version(version.ge('1.21'))
    assert 'with version 1.20;' in str(raised.value)


def test_checker_without_client_uses_the_requested_version():
    command = _Command(_App('1.5'))
    assert command.compare_version(version.ge('1.5'))
    assert command.compare_version(version.ge('1.6')) is False


def test_check_decorator():
    class Thing(_Command):
        @version.check(version.ge('1.10'))
        def act(self, value):
            """Do it."""
            return value * 2

    assert Thing(_App('1', umock.Mock(api_version='1.10'))).act(2) == 4
    with pytest.raises(version.VersionGateError):
        Thing(_App('1', umock.Mock(api_version='1.9'))).act(2)
    assert Thing.act.__doc__ == 'Do it.'
    assert Thing.act.__name__ == 'act'


# Through the real openstack shell.

ROOT = {'versions': [{'id': 'v1.0', 'min_version': '1.0',
                      'max_version': '1.39', 'status': 'CURRENT'}]}


def run(argv, env=None, root=None):
    """openstack <auth> argv against requests-mock: (stdout, stderr lines,
    code, [(method, path, version header)])."""
    with requests_mock.Mocker(case_sensitive=True) as mocker:
        mocker.get(ENDPOINT + '/', **(root or {'json': ROOT}))
        mocker.get(ENDPOINT + '/resource_providers',
                   json={'resource_providers': []})
        out, err, code = cli.run(cli.auth_argv() + list(argv), env=env)
        sent = [(r.method, r.url[len(ENDPOINT):],
                 r.headers.get('OpenStack-API-Version'))
                for r in mocker.request_history]
    lines = err.splitlines()
    return out, lines, code, sent


LIST = ['resource', 'provider', 'list', '-f', 'value']


@pytest.mark.parametrize('value', version.SUPPORTED_MICROVERSIONS)
def test_option_accepts_every_microversion(value):
    """1.0 to 1.39, 1.30 to 1.36 included (D10): used as is, no
    negotiation."""
    out, lines, code, sent = run(['--os-placement-api-version', value]
                                 + LIST)
    assert (code, lines) == (0, [])
    assert sent == [('GET', '/resource_providers', 'placement ' + value)]


@pytest.mark.parametrize('value', ['1.40', '1.99', '1.', '1.05', '1.-1'])
def test_option_refuses_in_one_line_without_request(value):
    out, lines, code, sent = run(['--os-placement-api-version', value]
                                 + LIST)
    assert (out, code, sent) == ('', 1, [])
    assert lines == ["Placement API version '%s' is not supported; %s"
                     % (value, ACCEPTED)]


@pytest.mark.parametrize('value', ['abc', '2.0', '0.9', ''])
def test_option_refuses_other_majors_in_one_line_without_request(value):
    """OpenStackClient picks the command group from the text before the
    first dot of the value: the plugin keeps a refused value under major 1
    so that the placement command runs and names it."""
    out, lines, code, sent = run(['--os-placement-api-version', value]
                                 + LIST)
    assert (out, code, sent) == ('', 1, [])
    assert lines == ["Placement API version '%s' is not supported; %s"
                     % (value, ACCEPTED)]


def test_default_negotiates_up_to_1_29():
    out, lines, code, sent = run(LIST)
    assert (code, lines) == (0, [])
    assert sent == [('GET', '/', 'placement 1.29'),
                    ('GET', '/resource_providers', 'placement 1.29')]


def test_default_falls_back_to_the_server_maximum():
    out, lines, code, sent = run(LIST, root={
        'status_code': 406, 'json': {'errors': [{
            'status': 406, 'title': 'Not Acceptable', 'min_version': '1.0',
            'max_version': '1.17'}]}})
    assert (code, lines) == (0, [])
    assert sent == [('GET', '/', 'placement 1.29'),
                    ('GET', '/resource_providers', 'placement 1.17')]


@pytest.mark.parametrize('argv,env', [
    (['--os-placement-api-version', 'latest'], None),
    (['--os-placement-api-version', 'LATEST'], None),
    (['--os-placement-api-version', '1'],
     {'OS_PLACEMENT_API_VERSION': 'latest'}),
    ([], {'OS_PLACEMENT_API_VERSION': 'latest'}),
    ([], {'OS_PLACEMENT_API_VERSION': 'Latest'}),
], ids=['option', 'option-upper-case', 'option-1-over-env', 'env',
        'env-mixed-case'])
def test_latest_negotiates_up_to_1_39(argv, env):
    out, lines, code, sent = run(argv + LIST, env=env)
    assert (code, lines) == (0, [])
    expected = '1.29' if argv[1:] == ['1'] else '1.39'
    assert sent == [('GET', '/', 'placement ' + expected),
                    ('GET', '/resource_providers', 'placement ' + expected)]


def test_env_version_and_option_override():
    out, lines, code, sent = run(LIST, env={'OS_PLACEMENT_API_VERSION':
                                            '1.7'})
    assert (code, sent) == (0, [('GET', '/resource_providers',
                                 'placement 1.7')])
    out, lines, code, sent = run(['--os-placement-api-version', '1.33']
                                 + LIST,
                                 env={'OS_PLACEMENT_API_VERSION': '1.7'})
    assert (code, sent) == (0, [('GET', '/resource_providers',
                                 'placement 1.33')])


def test_env_version_refused_in_one_line():
    out, lines, code, sent = run(LIST, env={'OS_PLACEMENT_API_VERSION':
                                            '1.40'})
    assert (out, code, sent) == ('', 1, [])
    assert lines == ["Placement API version '1.40' is not supported; %s"
                     % ACCEPTED]


@pytest.mark.parametrize('value', ['1.40', 'abc', '9.9'])
def test_bad_env_version_does_not_break_other_commands(value):
    """A stray OS_PLACEMENT_API_VERSION is reported by placement commands
    only: other services' commands run without a warning."""
    out, err, code = cli.run(['module', 'list', '-f', 'json'],
                             env={'OS_PLACEMENT_API_VERSION': value})
    assert code == 0
    assert 'openstackclient' in out
    assert err == ''


@pytest.mark.parametrize('version_value,argv,minimum', [
    ('1.3', ['--resource', 'VCPU=1'], '1.4'),
    ('1.13', ['--in-tree', 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'], '1.14'),
    ('1.17', ['--required', 'HW_CPU_X86_AVX'], '1.18'),
    ('1.21', ['--forbidden', 'HW_CPU_X86_AVX'], '1.22'),
    ('1.2', ['--member-of', 'dddddddd-dddd-4ddd-8ddd-000000000001'], '1.3'),
    ('1.38', ['--required', 'A,B'], '1.39'),
])
def test_gate_message_without_request(version_value, argv, minimum):
    out, lines, code, sent = run(['--os-placement-api-version',
                                  version_value] + LIST + argv)
    assert (out, code, sent) == ('', 1, [])
    assert lines == ['Operation or argument is not supported with version '
                     '%s; requires at least version %s'
                     % (version_value, minimum)]


def test_gate_checked_against_the_negotiated_version():
    """An old server (max 1.13) makes --in-tree fail after the
    negotiation, before any other request."""
    out, lines, code, sent = run(
        LIST + ['--in-tree', 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'],
        root={'status_code': 406, 'json': {'errors': [{
            'status': 406, 'title': 'Not Acceptable',
            'max_version': '1.13'}]}})
    assert (out, code) == ('', 1)
    assert sent == [('GET', '/', 'placement 1.29')]
    assert lines == ['Operation or argument is not supported with version '
                     '1.13; requires at least version 1.14']
