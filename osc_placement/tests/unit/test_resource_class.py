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

"""Resource class commands beyond the recorded contract."""

import json

import pytest
import requests_mock

from osc_placement.tests import cli

URL = cli.ENDPOINT


def run(*argv, version='1.7'):
    return cli.run(cli.auth_argv() + ['--os-placement-api-version', version]
                   + list(argv))


def sent(mocker):
    return [(r.method, r.url[len(URL):]) for r in mocker.request_history]


def error(status, detail):
    return {'status_code': status,
            'json': {'errors': [{'status': status, 'title': 'Error',
                                 'detail': 'Headline.\n\n %s  ' % detail}]}}


@pytest.fixture
def mocker():
    with requests_mock.Mocker(case_sensitive=True) as m:
        yield m


def test_list_sends_the_version_and_prints_names(mocker):
    mocker.get(URL + '/resource_classes', json={'resource_classes': [
        {'name': 'VCPU', 'links': []}, {'name': 'CUSTOM_X', 'links': []}]})
    out, err, code = run('resource', 'class', 'list', '-f', 'value',
                         version='1.2')
    assert (out, err, code) == ('VCPU\nCUSTOM_X\n', '', 0)
    request = mocker.request_history[0]
    assert request.headers['OpenStack-API-Version'] == 'placement 1.2'
    assert request.headers['Accept'] == 'application/json'


def test_create_posts_the_name(mocker):
    mocker.post(URL + '/resource_classes', status_code=201)
    out, err, code = run('resource', 'class', 'create', 'CUSTOM_X')
    assert (out, err, code) == ('', '', 0)
    assert sent(mocker) == [('POST', '/resource_classes')]
    assert mocker.request_history[0].json() == {'name': 'CUSTOM_X'}


@pytest.mark.parametrize('verb, method', [('set', 'PUT'), ('show', 'GET'),
                                          ('delete', 'DELETE')])
def test_name_is_one_encoded_path_segment(mocker, verb, method):
    mocker.register_uri(method, requests_mock.ANY, json={'name': 'x'})
    out, err, code = run('resource', 'class', verb, 'CUSTOM_A/../B?c=d&e')
    assert code == 0, err
    assert sent(mocker) == [
        (method, '/resource_classes/CUSTOM_A%2F..%2FB%3Fc%3Dd%26e')]


def test_set_needs_1_7(mocker):
    out, err, code = run('resource', 'class', 'set', 'CUSTOM_X',
                         version='1.6')
    assert (out, code) == ('', 1)
    assert err == ('Operation or argument is not supported with version '
                   '1.6; requires at least version 1.7\n')
    assert sent(mocker) == []


@pytest.mark.parametrize('verb', ['create', 'set', 'show', 'delete'])
def test_empty_name_is_refused_locally(mocker, verb):
    out, err, code = run('resource', 'class', verb, '')
    assert code == 2
    assert 'must not be empty' in err
    assert sent(mocker) == []


def test_delete_several_deletes_each_in_order(mocker):
    mocker.delete(requests_mock.ANY, status_code=204)
    out, err, code = run('resource', 'class', 'delete', 'CUSTOM_A',
                         'CUSTOM_B', 'CUSTOM_C', version='1.2')
    assert (out, err, code) == ('', '', 0)
    assert sent(mocker) == [('DELETE', '/resource_classes/CUSTOM_A'),
                            ('DELETE', '/resource_classes/CUSTOM_B'),
                            ('DELETE', '/resource_classes/CUSTOM_C')]


def test_delete_several_goes_on_after_failures_and_counts_them(mocker):
    mocker.delete(URL + '/resource_classes/CUSTOM_A',
                  **error(404, 'No such resource class CUSTOM_A.'))
    mocker.delete(URL + '/resource_classes/CUSTOM_B', status_code=204)
    mocker.delete(URL + '/resource_classes/CUSTOM_C',
                  **error(409, 'Class is in use in inventory.'))
    out, err, code = run('resource', 'class', 'delete', 'CUSTOM_A',
                         'CUSTOM_B', 'CUSTOM_C')
    assert (out, code) == ('', 1)
    assert err.splitlines() == [
        'Failed to delete resource class CUSTOM_A: No such resource class '
        'CUSTOM_A. (HTTP 404)',
        'Failed to delete resource class CUSTOM_C: Class is in use in '
        'inventory. (HTTP 409)',
        'Failed to delete 2 of 3 resource classes.']
    assert [m for m, _ in sent(mocker)] == ['DELETE'] * 3


def test_delete_one_fails_with_the_server_message_only(mocker):
    mocker.delete(URL + '/resource_classes/CUSTOM_A',
                  **error(404, 'No such resource class CUSTOM_A.'))
    out, err, code = run('resource', 'class', 'delete', 'CUSTOM_A')
    assert (out, err, code) == (
        '', 'No such resource class CUSTOM_A. (HTTP 404)\n', 1)


def test_delete_with_an_empty_extra_name_sends_nothing(mocker):
    out, err, code = run('resource', 'class', 'delete', 'CUSTOM_A', '')
    assert code == 2
    assert 'must not be empty' in err
    assert sent(mocker) == []


def test_delete_usage_synopsis_is_the_reference_one(mocker):
    out, err, code = run('resource', 'class', 'delete')
    assert code == 2
    assert err.splitlines()[0] == \
        'usage: openstack resource class delete [-h] <name>'


def test_delete_help_mentions_several_names(mocker):
    out, err, code = run('resource', 'class', 'delete', '--help')
    assert code == 0
    assert 'More resource classes to delete.' in out


def test_show_prints_only_the_name(mocker):
    mocker.get(URL + '/resource_classes/CUSTOM_X',
               json={'name': 'CUSTOM_X', 'links': [{'rel': 'self'}]})
    out, err, code = run('resource', 'class', 'show', 'CUSTOM_X', '-f',
                         'json')
    assert (json.loads(out), err, code) == ({'name': 'CUSTOM_X'}, '', 0)
