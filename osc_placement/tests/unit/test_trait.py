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

"""Trait commands beyond the recorded contract."""

import json

import pytest
import requests_mock

from osc_placement.tests import cli

URL = cli.ENDPOINT
RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
TRAITS = URL + '/resource_providers/' + RP1 + '/traits'
CONFLICT_DETAIL = ("Resource provider's generation already changed. Please "
                   "update the generation and try again.")


def run(*argv, version='1.29'):
    return cli.run(cli.auth_argv() + ['--os-placement-api-version', version]
                   + list(argv))


def sent(mocker):
    return [(r.method, r.url[len(URL):]) for r in mocker.request_history]


def error(status, detail, code=None):
    body = {'status': status, 'title': 'Error',
            'detail': 'Headline.\n\n %s  ' % detail}
    if code:
        body['code'] = code
    return {'status_code': status, 'json': {'errors': [body]}}


def conflict(code='placement.concurrent_update'):
    return error(409, CONFLICT_DETAIL, code)


def traits(names, generation):
    return {'json': {'traits': names,
                     'resource_provider_generation': generation}}


def put_bodies(mocker):
    return [r.json() for r in mocker.request_history if r.method == 'PUT']


@pytest.fixture
def mocker():
    with requests_mock.Mocker(case_sensitive=True) as m:
        yield m


# trait list|show|create|delete

def test_list_sends_name_then_associated_true(mocker):
    mocker.get(URL + '/traits', json={'traits': ['HW_CPU_X86_SSE']})
    out, err, code = run('trait', 'list', '--associated', '--name',
                         'startswith:HW_', '-f', 'value')
    assert (out, err, code) == ('HW_CPU_X86_SSE\n', '', 0)
    assert sent(mocker) == [
        ('GET', '/traits?name=startswith%3AHW_&associated=True')]


def test_list_without_filters_sends_no_query(mocker):
    mocker.get(URL + '/traits', json={'traits': []})
    out, err, code = run('trait', 'list', '-f', 'json')
    assert (json.loads(out), code) == ([], 0)
    assert sent(mocker) == [('GET', '/traits')]


@pytest.mark.parametrize('verb, method', [('show', 'GET'), ('create', 'PUT'),
                                          ('delete', 'DELETE')])
def test_trait_name_is_one_encoded_path_segment(mocker, verb, method):
    mocker.register_uri(method, requests_mock.ANY, status_code=204)
    out, err, code = run('trait', verb, 'CUSTOM_A/B?c=1')
    assert code == 0, err
    assert sent(mocker) == [(method, '/traits/CUSTOM_A%2FB%3Fc%3D1')]


@pytest.mark.parametrize('argv', [
    ['trait', 'list'], ['trait', 'show', 'CUSTOM_A'],
    ['trait', 'create', 'CUSTOM_A'], ['trait', 'delete', 'CUSTOM_A'],
    ['resource', 'provider', 'trait', 'list', RP1],
    ['resource', 'provider', 'trait', 'set', RP1],
    ['resource', 'provider', 'trait', 'delete', RP1],
    ['resource', 'provider', 'trait', 'add', RP1, '--trait', 'CUSTOM_A'],
    ['resource', 'provider', 'trait', 'remove', RP1, '--trait', 'CUSTOM_A'],
])
def test_every_trait_command_needs_1_6(mocker, argv):
    out, err, code = run(*argv, version='1.5')
    assert (out, code) == ('', 1)
    assert err == ('Operation or argument is not supported with version '
                   '1.5; requires at least version 1.6\n')
    assert sent(mocker) == []


def test_delete_several_traits_reports_each_failure(mocker):
    mocker.delete(URL + '/traits/CUSTOM_A', status_code=204)
    mocker.delete(URL + '/traits/CUSTOM_B', **error(
        409, 'The trait CUSTOM_B is in use by a resource provider.'))
    mocker.delete(URL + '/traits/HW_CPU_X86_SSE', **error(
        400, 'Cannot delete standard trait HW_CPU_X86_SSE.'))
    mocker.delete(URL + '/traits/CUSTOM_D', status_code=204)
    out, err, code = run('trait', 'delete', 'CUSTOM_A', 'CUSTOM_B',
                         'HW_CPU_X86_SSE', 'CUSTOM_D')
    assert (out, code) == ('', 1)
    assert err.splitlines() == [
        'Failed to delete trait CUSTOM_B: The trait CUSTOM_B is in use by '
        'a resource provider. (HTTP 409)',
        'Failed to delete trait HW_CPU_X86_SSE: Cannot delete standard '
        'trait HW_CPU_X86_SSE. (HTTP 400)',
        'Failed to delete 2 of 4 traits.']
    assert sent(mocker) == [('DELETE', '/traits/CUSTOM_A'),
                            ('DELETE', '/traits/CUSTOM_B'),
                            ('DELETE', '/traits/HW_CPU_X86_SSE'),
                            ('DELETE', '/traits/CUSTOM_D')]


def test_delete_several_traits_all_deleted(mocker):
    mocker.delete(requests_mock.ANY, status_code=204)
    out, err, code = run('trait', 'delete', 'CUSTOM_A', 'CUSTOM_B')
    assert (out, err, code) == ('', '', 0)
    assert len(mocker.request_history) == 2


def test_delete_usage_synopsis_is_the_reference_one(mocker):
    out, err, code = run('trait', 'delete')
    assert code == 2
    assert err.splitlines()[0] == 'usage: openstack trait delete [-h] <name>'


# resource provider trait list|set|delete

@pytest.mark.parametrize('verb, method, path', [
    ('list', 'GET', '/traits'), ('delete', 'DELETE', '/traits')])
def test_provider_by_name(mocker, verb, method, path):
    mocker.get(URL + '/resource_providers?name=compute-1', complete_qs=True,
               json={'resource_providers': [{'uuid': RP1}]})
    mocker.register_uri(method, TRAITS, **traits(['CUSTOM_A'], 1))
    out, err, code = run('resource', 'provider', 'trait', verb, 'compute-1')
    assert code == 0, err
    assert sent(mocker) == [
        ('GET', '/resource_providers?name=compute-1'),
        (method, '/resource_providers/%s%s' % (RP1, path))]


def test_provider_name_not_found(mocker):
    mocker.get(URL + '/resource_providers', json={'resource_providers': []})
    out, err, code = run('resource', 'provider', 'trait', 'add', 'nope',
                         '--trait', 'CUSTOM_A')
    assert (out, code) == ('', 1)
    assert err == "No resource provider with name or UUID 'nope' found.\n"
    assert sent(mocker) == [('GET', '/resource_providers?name=nope')]


def test_set_reads_generation_then_puts(mocker):
    mocker.get(URL + '/resource_providers?name=compute-1', complete_qs=True,
               json={'resource_providers': [{'uuid': RP1}]})
    mocker.get(URL + '/resource_providers/' + RP1,
               json={'uuid': RP1, 'generation': 7})
    mocker.put(TRAITS, **traits(['CUSTOM_A', 'CUSTOM_B'], 8))
    out, err, code = run('resource', 'provider', 'trait', 'set',
                         'compute-1', '--trait', 'CUSTOM_B', '--trait',
                         'CUSTOM_A', '-f', 'value')
    assert (out, err, code) == ('CUSTOM_A\nCUSTOM_B\n', '', 0)
    assert sent(mocker)[1:] == [
        ('GET', '/resource_providers/' + RP1),
        ('PUT', '/resource_providers/%s/traits' % RP1)]
    assert put_bodies(mocker) == [{'resource_provider_generation': 7,
                                   'traits': ['CUSTOM_B', 'CUSTOM_A']}]


def test_set_never_retries_a_conflict(mocker):
    mocker.get(URL + '/resource_providers/' + RP1,
               json={'uuid': RP1, 'generation': 7})
    mocker.put(TRAITS, **conflict())
    out, err, code = run('resource', 'provider', 'trait', 'set', RP1,
                         '--trait', 'CUSTOM_A')
    assert (out, code) == ('', 1)
    assert err == CONFLICT_DETAIL + ' (HTTP 409)\n'
    assert [m for m, _ in sent(mocker)] == ['GET', 'PUT']


def test_set_without_trait_removes_all(mocker):
    mocker.get(URL + '/resource_providers/' + RP1,
               json={'uuid': RP1, 'generation': 2})
    mocker.put(TRAITS, **traits([], 3))
    out, err, code = run('resource', 'provider', 'trait', 'set', RP1,
                         '-f', 'json')
    assert (json.loads(out), code) == ([], 0)
    assert put_bodies(mocker) == [{'resource_provider_generation': 2,
                                   'traits': []}]


# resource provider trait add|remove

def test_add_puts_the_union_with_the_generation_read(mocker):
    mocker.get(TRAITS, **traits(['CUSTOM_A', 'HW_CPU_X86_SSE'], 4))
    mocker.put(TRAITS, **traits(['CUSTOM_A', 'CUSTOM_B', 'HW_CPU_X86_SSE'],
                                5))
    out, err, code = run('resource', 'provider', 'trait', 'add', RP1,
                         '--trait', 'CUSTOM_B', '--trait', 'CUSTOM_A',
                         '--trait', 'CUSTOM_B', '-f', 'json')
    assert code == 0, err
    assert json.loads(out) == [{'name': 'CUSTOM_A'}, {'name': 'CUSTOM_B'},
                               {'name': 'HW_CPU_X86_SSE'}]
    assert sent(mocker) == [('GET', '/resource_providers/%s/traits' % RP1),
                            ('PUT', '/resource_providers/%s/traits' % RP1)]
    assert put_bodies(mocker) == [{
        'resource_provider_generation': 4,
        'traits': ['CUSTOM_A', 'HW_CPU_X86_SSE', 'CUSTOM_B']}]
    put = mocker.request_history[1]
    assert put.headers['OpenStack-API-Version'] == 'placement 1.29'
    assert put.headers['Content-Type'] == 'application/json'


def test_add_by_provider_name(mocker):
    mocker.get(URL + '/resource_providers?name=compute-1', complete_qs=True,
               json={'resource_providers': [{'uuid': RP1}]})
    mocker.get(TRAITS, **traits([], 0))
    mocker.put(TRAITS, **traits(['CUSTOM_A'], 1))
    out, err, code = run('resource', 'provider', 'trait', 'add',
                         'compute-1', '--trait', 'CUSTOM_A', '-f', 'value')
    assert (out, err, code) == ('CUSTOM_A\n', '', 0)
    assert [m for m, _ in sent(mocker)] == ['GET', 'GET', 'PUT']


def test_add_of_traits_already_set_writes_nothing(mocker):
    mocker.get(TRAITS, **traits(['CUSTOM_A', 'CUSTOM_B'], 4))
    out, err, code = run('resource', 'provider', 'trait', 'add', RP1,
                         '--trait', 'CUSTOM_B', '-f', 'value')
    assert (out, err, code) == ('CUSTOM_A\nCUSTOM_B\n', '', 0)
    assert [m for m, _ in sent(mocker)] == ['GET']


def test_remove_puts_the_difference(mocker):
    mocker.get(TRAITS, **traits(['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C'], 9))
    mocker.put(TRAITS, **traits(['CUSTOM_B'], 10))
    out, err, code = run('resource', 'provider', 'trait', 'remove', RP1,
                         '--trait', 'CUSTOM_C', '--trait', 'CUSTOM_A',
                         '--trait', 'CUSTOM_NOT_SET', '-f', 'value')
    assert (out, err, code) == ('CUSTOM_B\n', '', 0)
    assert put_bodies(mocker) == [{'resource_provider_generation': 9,
                                   'traits': ['CUSTOM_B']}]


def test_remove_of_traits_not_set_writes_nothing(mocker):
    mocker.get(TRAITS, **traits(['CUSTOM_A'], 4))
    out, err, code = run('resource', 'provider', 'trait', 'remove', RP1,
                         '--trait', 'CUSTOM_B', '-f', 'value')
    assert (out, err, code) == ('CUSTOM_A\n', '', 0)
    assert [m for m, _ in sent(mocker)] == ['GET']


def test_add_reads_again_and_retries_after_a_generation_conflict(mocker):
    mocker.get(TRAITS, [traits(['CUSTOM_A'], 4),
                        traits(['CUSTOM_A', 'CUSTOM_X'], 5)])
    mocker.put(TRAITS, [conflict(),
                        traits(['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_X'], 6)])
    out, err, code = run('resource', 'provider', 'trait', 'add', RP1,
                         '--trait', 'CUSTOM_B', '-f', 'value')
    assert (out, err, code) == ('CUSTOM_A\nCUSTOM_B\nCUSTOM_X\n', '', 0)
    assert [m for m, _ in sent(mocker)] == ['GET', 'PUT', 'GET', 'PUT']
    assert put_bodies(mocker) == [
        {'resource_provider_generation': 4,
         'traits': ['CUSTOM_A', 'CUSTOM_B']},
        {'resource_provider_generation': 5,
         'traits': ['CUSTOM_A', 'CUSTOM_X', 'CUSTOM_B']}]


def test_retry_finds_the_change_already_made(mocker):
    # Another client added the very trait: after the re-read, no write.
    mocker.get(TRAITS, [traits([], 4), traits(['CUSTOM_B'], 5)])
    mocker.put(TRAITS, **conflict())
    out, err, code = run('resource', 'provider', 'trait', 'add', RP1,
                         '--trait', 'CUSTOM_B', '-f', 'value')
    assert (out, err, code) == ('CUSTOM_B\n', '', 0)
    assert [m for m, _ in sent(mocker)] == ['GET', 'PUT', 'GET']


@pytest.mark.parametrize('verb', ['add', 'remove'])
def test_gives_up_after_three_attempts_with_server_message(mocker, verb):
    mocker.get(TRAITS, [traits(['CUSTOM_A'], 1), traits(['CUSTOM_A'], 2),
                        traits(['CUSTOM_A'], 3)])
    mocker.put(TRAITS, **conflict())
    trait = 'CUSTOM_B' if verb == 'add' else 'CUSTOM_A'
    out, err, code = run('resource', 'provider', 'trait', verb, RP1,
                         '--trait', trait)
    assert (out, code) == ('', 1)
    assert err == CONFLICT_DETAIL + ' (HTTP 409)\n'
    assert [m for m, _ in sent(mocker)] == ['GET', 'PUT'] * 3
    assert [b['resource_provider_generation']
            for b in put_bodies(mocker)] == [1, 2, 3]


def test_a_conflict_of_another_kind_is_not_retried(mocker):
    mocker.get(TRAITS, **traits([], 1))
    mocker.put(TRAITS, **conflict(code='placement.undefined_code'))
    out, err, code = run('resource', 'provider', 'trait', 'add', RP1,
                         '--trait', 'CUSTOM_B')
    assert (out, code) == ('', 1)
    assert err == CONFLICT_DETAIL + ' (HTTP 409)\n'
    assert [m for m, _ in sent(mocker)] == ['GET', 'PUT']


def test_other_errors_are_not_retried(mocker):
    mocker.get(TRAITS, **traits([], 1))
    mocker.put(TRAITS, **error(400, 'No such trait CUSTOM_NOPE',
                               code='placement.undefined_code'))
    out, err, code = run('resource', 'provider', 'trait', 'add', RP1,
                         '--trait', 'CUSTOM_NOPE')
    assert (out, err, code) == ('', 'No such trait CUSTOM_NOPE (HTTP 400)\n',
                                1)
    assert [m for m, _ in sent(mocker)] == ['GET', 'PUT']


def test_before_1_23_a_conflict_without_code_is_retried(mocker):
    # Placement sends error codes from 1.23 only; a 409 to this PUT can
    # only be a generation conflict.
    mocker.get(TRAITS, [traits([], 1), traits(['CUSTOM_X'], 2)])
    mocker.put(TRAITS, [conflict(code=None),
                        traits(['CUSTOM_B', 'CUSTOM_X'], 3)])
    out, err, code = run('resource', 'provider', 'trait', 'add', RP1,
                         '--trait', 'CUSTOM_B', '-f', 'value', version='1.6')
    assert (out, err, code) == ('CUSTOM_B\nCUSTOM_X\n', '', 0)
    assert [m for m, _ in sent(mocker)] == ['GET', 'PUT', 'GET', 'PUT']


def test_a_conflict_with_a_body_that_is_not_json_is_retried(mocker):
    mocker.get(TRAITS, [traits([], 1), traits([], 2)])
    mocker.put(TRAITS, [{'status_code': 409, 'text': '<html>busy</html>'},
                        traits(['CUSTOM_B'], 3)])
    out, err, code = run('resource', 'provider', 'trait', 'add', RP1,
                         '--trait', 'CUSTOM_B', '-f', 'value')
    assert (out, err, code) == ('CUSTOM_B\n', '', 0)


@pytest.mark.parametrize('verb', ['add', 'remove'])
def test_trait_option_is_required_and_not_empty(mocker, verb):
    out, err, code = run('resource', 'provider', 'trait', verb, RP1)
    assert code == 2
    assert 'the following arguments are required: --trait' in err
    out, err, code = run('resource', 'provider', 'trait', verb, RP1,
                         '--trait', '')
    assert code == 2
    assert 'must not be empty' in err
    assert sent(mocker) == []
