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

"""The OpenStackClient plugin hooks (osc_placement/plugin.py)."""

import argparse
import importlib.metadata
import json
import os
import subprocess
import sys
from unittest import mock as umock

from keystoneauth1 import loading
from keystoneauth1 import session as ks_session
import pytest
import requests_mock

from osc_placement import http
from osc_placement import plugin
from osc_placement.tests import cli
from osc_placement import version


def test_entry_point():
    entry_points = importlib.metadata.entry_points(
        group='openstack.cli.extension')
    assert [ep.value for ep in entry_points if ep.name == 'placement'] == [
        'osc_placement.plugin']


def test_constants():
    assert plugin.API_NAME == 'placement'
    assert plugin.API_VERSION_OPTION == 'os_placement_api_version'
    assert set(plugin.API_VERSIONS) == set(
        version.SUPPORTED_MICROVERSIONS + ['1', '1.latest'])
    assert set(plugin.API_VERSIONS.values()) == {
        'osc_placement.http.SessionClient'}


@pytest.mark.parametrize('value', ['1', '1.14', '1.latest', '1.40', 'abc'])
def test_check_api_version_leaves_the_check_to_make_client(value):
    """True: OpenStackClient skips its own warning, whatever the value."""
    assert plugin.check_api_version(value) is True


def _instance(requested, session=None):
    instance = umock.Mock(spec=['_api_version', '_region_name', 'interface',
                                'session'])
    instance._api_version = {'placement': requested}
    instance._region_name = 'RegionTwo'
    instance.interface = 'internal'
    instance.session = session or umock.Mock(spec=['request'])
    return instance


def test_make_client_with_an_explicit_version():
    instance = _instance('1.14')
    client = plugin.make_client(instance)
    assert isinstance(client, http.SessionClient)
    assert client.api_version == '1.14'
    assert client.session is instance.session
    assert client.ks_filter == {'service_type': 'placement',
                                'region_name': 'RegionTwo',
                                'interface': 'internal'}
    # No negotiation for an explicit version.
    instance.session.request.assert_not_called()


def test_make_client_negotiates():
    auth = loading.get_plugin_loader('admin_token').load_from_options(
        endpoint=cli.ENDPOINT, token='t')
    with requests_mock.Mocker() as mocker:
        mocker.get(cli.ENDPOINT + '/', json={'versions': []})
        client = plugin.make_client(_instance(
            '1.latest', ks_session.Session(auth=auth)))
        assert [(r.url, r.headers['OpenStack-API-Version'])
                for r in mocker.request_history] == [
            (cli.ENDPOINT + '/', 'placement 1.39')]
    assert client.api_version == '1.39'


def test_make_client_refuses_an_unsupported_version():
    instance = _instance('1.40')
    with pytest.raises(version.UnsupportedVersion) as raised:
        plugin.make_client(instance)
    assert "'1.40' is not supported" in str(raised.value)
    instance.session.request.assert_not_called()


def _parse(argv, env=None):
    saved = dict(os.environ)
    os.environ.pop('OS_PLACEMENT_API_VERSION', None)
    os.environ.update(env or {})
    try:
        parser = plugin.build_option_parser(argparse.ArgumentParser())
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return parser, parser.parse_args(argv)


@pytest.mark.parametrize('argv,env,value', [
    ([], None, '1'),
    ([], {'OS_PLACEMENT_API_VERSION': '1.20'}, '1.20'),
    ([], {'OS_PLACEMENT_API_VERSION': 'latest'}, '1.latest'),
    (['--os-placement-api-version', '1.5'],
     {'OS_PLACEMENT_API_VERSION': '1.20'}, '1.5'),
    (['--os-placement-api-version', ' LATEST '], None, '1.latest'),
    # Refused later, by placement commands only.
    (['--os-placement-api-version', '1.40'], None, '1.40'),
])
def test_build_option_parser(argv, env, value):
    parser, args = _parse(argv, env)
    assert args.os_placement_api_version == value


def test_option_help():
    parser, args = _parse([])
    text = ' '.join(parser.format_help().split())
    assert ('--os-placement-api-version <placement-api-version>' in text)
    assert ('Placement API version, default=1 (Env: '
            'OS_PLACEMENT_API_VERSION).' in text)
    assert '1.0 to 1.39' in text
    assert "'latest' to negotiate up to 1.39" in text


def _python(code):
    """Run ``code`` in a fresh interpreter; return what it printed."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(('OS_', 'CLIFF_'))}
    result = subprocess.run(
        [sys.executable, '-c', code], env=env,
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


# What the openstack command imports on every run (its plugins but ours),
# in a fresh interpreter; then SNAPSHOT holds the modules loaded so far.
_WITHOUT_US = """
import importlib.abc, importlib.metadata, json, sys

class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.partition('.')[0] == 'osc_placement':
            raise ImportError('hidden for the test')

hide = Hide()
sys.meta_path.insert(0, hide)
import openstackclient.shell
sys.meta_path.remove(hide)
assert not [m for m in sys.modules if m.startswith('osc_placement')]
SNAPSHOT = set(sys.modules)
"""


def test_import_adds_no_module_to_what_openstack_imports():
    """OpenStackClient imports every plugin on every run, for any command:
    ours must not make that slower by importing anything new."""
    new = json.loads(_python(_WITHOUT_US + """
import osc_placement.plugin
print(json.dumps(sorted(set(sys.modules) - SNAPSHOT)))
"""))
    assert new == ['osc_placement', 'osc_placement.plugin',
                   'osc_placement.version']


def test_command_modules_add_only_their_own_modules():
    """cliff imports every command module of the group on every run (even
    for other services' commands): they must not import anything new
    either, in particular not the HTTP layer."""
    new = json.loads(_python(_WITHOUT_US + """
import osc_placement.plugin
for ep in importlib.metadata.entry_points(group='openstack.placement.v1'):
    ep.load()
print(json.dumps(sorted(set(sys.modules) - SNAPSHOT)))
"""))
    assert 'osc_placement.http' not in new
    assert [m for m in new if m.partition('.')[0] != 'osc_placement'] == []
    assert 'osc_placement.resources.resource_provider' in new


def test_other_commands_do_not_load_the_http_layer():
    loaded = json.loads(_python("""
import io, json, sys, contextlib
from openstackclient import shell
with contextlib.redirect_stdout(io.StringIO()):
    code = shell.main(['module', 'list'])
assert code == 0, code
print(json.dumps(sorted(m for m in sys.modules
                        if m.startswith('osc_placement'))))
"""))
    assert 'osc_placement.plugin' in loaded
    assert 'osc_placement.http' not in loaded


# The timeout OpenStackClient does not offer.

@pytest.mark.parametrize('argv,env,seconds', [
    ([], None, None),
    (['--timeout', '2.5'], None, 2.5),
    (['--os-placement-timeout', '3'], None, 3.0),
    # The environment is read when the client is made (next tests).
    ([], {'OS_PLACEMENT_TIMEOUT': '4'}, None),
    (['--timeout', '1'], {'OS_PLACEMENT_TIMEOUT': '4'}, 1.0),
])
def test_timeout_option(argv, env, seconds):
    saved = dict(os.environ)
    os.environ.pop('OS_PLACEMENT_TIMEOUT', None)
    try:
        parser, args = _parse(argv, env)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    assert args.os_placement_timeout == seconds


@pytest.mark.parametrize('value', ['abc', '0', '-1', 'nan', 'inf', ''])
def test_timeout_option_refuses(value, capsys):
    with pytest.raises(SystemExit) as raised:
        _parse(['--timeout', value])
    assert raised.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(
        "argument --os-placement-timeout/--timeout: '%s' is not a positive "
        "number of seconds" % value)


def test_make_client_passes_the_timeout_to_each_request():
    auth = loading.get_plugin_loader('admin_token').load_from_options(
        endpoint=cli.ENDPOINT, token='t')
    instance = _instance('1', ks_session.Session(auth=auth))
    instance._cli_options = umock.Mock(config={'placement_timeout': 2.5})
    with requests_mock.Mocker() as mocker:
        mocker.get(cli.ENDPOINT + '/', json={'versions': []})
        mocker.get(cli.ENDPOINT + '/traits', json={'traits': []})
        client = plugin.make_client(instance)
        client.request('GET', '/traits')
        assert [r.timeout for r in mocker.request_history] == [2.5, 2.5]


def test_make_client_reads_the_timeout_from_the_environment():
    auth = loading.get_plugin_loader('admin_token').load_from_options(
        endpoint=cli.ENDPOINT, token='t')
    instance = _instance('1.6', ks_session.Session(auth=auth))
    instance._cli_options = umock.Mock(config={})
    with cli.clean_environment({'OS_PLACEMENT_TIMEOUT': '4'}), \
            requests_mock.Mocker() as mocker:
        mocker.get(cli.ENDPOINT + '/traits', json={'traits': []})
        plugin.make_client(instance).request('GET', '/traits')
        assert [r.timeout for r in mocker.request_history] == [4.0]


@pytest.mark.parametrize('value', ['abc', '0'])
def test_bad_env_timeout_does_not_break_other_commands(value):
    out, err, code = cli.run(['module', 'list', '-f', 'json'],
                             env={'OS_PLACEMENT_TIMEOUT': value})
    assert (code, err) == (0, '')
    assert 'openstackclient' in out


def test_bad_env_timeout_refused_by_placement_commands_in_one_line():
    with requests_mock.Mocker() as mocker:
        out, err, code = cli.run(
            cli.auth_argv() + ['resource', 'provider', 'list'],
            env={'OS_PLACEMENT_TIMEOUT': 'abc'})
        assert mocker.request_history == []
    assert (out, code) == ('', 1)
    assert len(err.splitlines()) == 1
    # openstacksdk's config loader also reads OS_PLACEMENT_TIMEOUT (as the
    # session timeout) and fails first, before the plugin runs: its line
    # names the value but not the variable.
    assert "'abc'" in err
