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

"""Aggregate commands beyond the recorded contract."""

import json

import pytest
import requests_mock

from osc_placement.tests import cli

URL = cli.ENDPOINT
RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
AGG1 = 'dddddddd-dddd-4ddd-8ddd-000000000001'
AGG2 = 'dddddddd-dddd-4ddd-8ddd-000000000002'


def run(*argv, version='1.19'):
    return cli.run(cli.auth_argv() + ['--os-placement-api-version', version]
                   + list(argv))


def sent(mocker):
    return [(r.method, r.url[len(URL):]) for r in mocker.request_history]


def by_name(mocker):
    mocker.get(URL + '/resource_providers?name=compute-1',
               json={'resource_providers': [{'uuid': RP1,
                                             'name': 'compute-1',
                                             'generation': 4}]},
               complete_qs=True)


@pytest.fixture
def mocker():
    with requests_mock.Mocker(case_sensitive=True) as m:
        yield m


def test_list_by_name(mocker):
    by_name(mocker)
    mocker.get(URL + '/resource_providers/%s/aggregates' % RP1,
               json={'aggregates': [AGG1, AGG2],
                     'resource_provider_generation': 4})
    out, err, code = run('resource', 'provider', 'aggregate', 'list',
                         'compute-1', '-f', 'value')
    assert (out, err, code) == ('%s\n%s\n' % (AGG1, AGG2), '', 0)
    assert [path for _, path in sent(mocker)] == [
        '/resource_providers?name=compute-1',
        '/resource_providers/%s/aggregates' % RP1]


def test_set_by_name_with_generation(mocker):
    by_name(mocker)
    mocker.put(URL + '/resource_providers/%s/aggregates' % RP1,
               json={'aggregates': [AGG2, AGG1],
                     'resource_provider_generation': 5})
    out, err, code = run('resource', 'provider', 'aggregate', 'set',
                         'compute-1', '--aggregate', AGG2, '--aggregate',
                         AGG1, '--generation', '4', '-f', 'json')
    assert code == 0, err
    put = mocker.request_history[-1]
    assert put.headers['OpenStack-API-Version'] == 'placement 1.19'
    assert put.json() == {'aggregates': [AGG2, AGG1],
                          'resource_provider_generation': 4}
    assert json.loads(out) == [{'uuid': AGG2}, {'uuid': AGG1}]


def test_set_below_1_19_sends_a_bare_list(mocker):
    mocker.put(URL + '/resource_providers/%s/aggregates' % RP1,
               json={'aggregates': [AGG1]})
    out, err, code = run('resource', 'provider', 'aggregate', 'set', RP1,
                         '--aggregate', AGG1, '-f', 'value', version='1.18')
    assert (out, err, code) == (AGG1 + '\n', '', 0)
    assert mocker.request_history[-1].json() == [AGG1]


def test_missing_generation_is_reported_before_the_name_lookup(mocker):
    out, err, code = run('resource', 'provider', 'aggregate', 'set',
                         'compute-1', '--aggregate', AGG1)
    assert (out, err, code) == ('', 'A generation must be specified.\n', 1)
    assert sent(mocker) == []


def test_gate_is_checked_before_the_name_lookup(mocker):
    out, err, code = run('resource', 'provider', 'aggregate', 'list',
                         'compute-1', version='1.0')
    assert code == 1
    assert 'requires at least version 1.1' in err
    assert sent(mocker) == []


def test_generation_help_names_its_version(mocker):
    out, err, code = run('resource', 'provider', 'aggregate', 'set',
                         '--help')
    assert code == 0
    assert '1.19' in out


def test_empty_provider_is_refused_locally(mocker):
    out, err, code = run('resource', 'provider', 'aggregate', 'list', '')
    assert code == 2
    assert sent(mocker) == []
