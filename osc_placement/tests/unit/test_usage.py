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

"""Usage commands beyond the recorded contract."""

import json

import pytest
import requests_mock

from osc_placement.tests import cli

URL = cli.ENDPOINT
RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'

BY_TYPE = {'usages': {
    'INSTANCE': {'VCPU': 2, 'consumer_count': 1, 'MEMORY_MB': 1024},
    'MIGRATION': {'consumer_count': 3, 'VCPU': 1}}}


def run(*argv, version='1.38'):
    return cli.run(cli.auth_argv() + ['--os-placement-api-version', version]
                   + list(argv))


def sent(mocker):
    return [(r.method, r.url[len(URL):]) for r in mocker.request_history]


@pytest.fixture
def mocker():
    with requests_mock.Mocker(case_sensitive=True) as m:
        yield m


def test_consumer_type_filter_is_sent_last(mocker):
    mocker.get(URL + '/usages', json=BY_TYPE)
    out, err, code = run('resource', 'usage', 'show', 'project-1',
                         '--consumer-type', 'INSTANCE', '--user-id',
                         'user-1', '-f', 'json')
    assert code == 0, err
    assert sent(mocker) == [
        ('GET', '/usages?project_id=project-1&user_id=user-1'
                '&consumer_type=INSTANCE')]
    assert mocker.request_history[0].headers[
        'OpenStack-API-Version'] == 'placement 1.38'


def test_consumer_type_needs_1_38(mocker):
    out, err, code = run('resource', 'usage', 'show', 'project-1',
                         '--consumer-type', 'INSTANCE', version='1.37')
    assert (out, code) == ('', 1)
    assert err == ('Operation or argument is not supported with version '
                   '1.37; requires at least version 1.38\n')
    assert sent(mocker) == []


def test_consumer_type_is_in_help_not_in_usage(mocker):
    out, err, code = run('resource', 'usage', 'show', '--help')
    assert code == 0
    assert '--consumer-type' in out and '1.38' in out
    out, err, code = run('resource', 'usage', 'show')
    assert code == 2
    assert '--consumer-type' not in err


def test_rows_per_consumer_type_in_server_order(mocker):
    mocker.get(URL + '/usages', json=BY_TYPE)
    out, err, code = run('resource', 'usage', 'show', 'project-1',
                         '-f', 'value')
    assert (err, code) == ('', 0)
    # consumer_count is a column of each row, never a resource class.
    assert out.splitlines() == [
        'INSTANCE VCPU 2 1',
        'INSTANCE MEMORY_MB 1024 1',
        'MIGRATION VCPU 1 3']


def test_csv_header_at_1_38(mocker):
    mocker.get(URL + '/usages', json={'usages': {}})
    out, err, code = run('resource', 'usage', 'show', 'project-1',
                         '-f', 'csv')
    assert (out, code) == (
        '"consumer_type","resource_class","usage","consumer_count"\n', 0)


def test_below_1_38_rows_are_per_class(mocker):
    mocker.get(URL + '/usages', json={'usages': {'VCPU': 2, 'DISK_GB': 5}})
    out, err, code = run('resource', 'usage', 'show', 'project-1',
                         '-f', 'json', version='1.37')
    assert code == 0, err
    assert json.loads(out) == [{'resource_class': 'VCPU', 'usage': 2},
                               {'resource_class': 'DISK_GB', 'usage': 5}]


def test_empty_project_is_refused_locally(mocker):
    out, err, code = run('resource', 'usage', 'show', '')
    assert code == 2
    assert 'must not be empty' in err
    assert sent(mocker) == []


def test_provider_usage_by_name(mocker):
    mocker.get(URL + '/resource_providers?name=compute-1',
               json={'resource_providers': [{'uuid': RP1,
                                             'name': 'compute-1',
                                             'generation': 0}]},
               complete_qs=True)
    mocker.get(URL + '/resource_providers/%s/usages' % RP1,
               json={'resource_provider_generation': 0,
                     'usages': {'VCPU': 4}})
    out, err, code = run('resource', 'provider', 'usage', 'show',
                         'compute-1', '-f', 'json', version='1.0')
    assert code == 0, err
    assert json.loads(out) == [{'resource_class': 'VCPU', 'usage': 4}]
    assert [path for _, path in sent(mocker)] == [
        '/resource_providers?name=compute-1',
        '/resource_providers/%s/usages' % RP1]


def test_provider_usage_empty_uuid_is_refused_locally(mocker):
    out, err, code = run('resource', 'provider', 'usage', 'show', '',
                         version='1.0')
    assert code == 2
    assert sent(mocker) == []
