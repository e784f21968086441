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

"""Allocation commands beyond the recorded contract."""

import json

import hypothesis
from hypothesis import strategies as st
from osc_lib import exceptions
import pytest
import requests_mock

from osc_placement.resources import allocation
from osc_placement.tests import cli

URL = cli.ENDPOINT
RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
RP2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
C1 = 'cccccccc-cccc-4ccc-8ccc-000000000001'
C2 = 'cccccccc-cccc-4ccc-8ccc-000000000002'
C3 = 'cccccccc-cccc-4ccc-8ccc-000000000003'
OWNER = ['--project-id', 'project-1', '--user-id', 'user-1']


def run(*argv, version='1.28'):
    return cli.run(cli.auth_argv() + ['--os-placement-api-version', version]
                   + list(argv))


def sent(mocker):
    return [(r.method, r.url[len(URL):]) for r in mocker.request_history]


def provider_named(mocker, name, uuid):
    mocker.get(URL + '/resource_providers?name=' + name, complete_qs=True,
               json={'resource_providers': [{'uuid': uuid, 'name': name,
                                             'generation': 1}]})


@pytest.fixture
def mocker():
    with requests_mock.Mocker(case_sensitive=True) as m:
        yield m


# allocation set

@pytest.mark.parametrize('value, words', [
    ('rp=%s,VCPU=two' % RP1, ["'two'", 'VCPU', 'not an integer']),
    ('rp=%s,VCPU' % RP1, ["'VCPU'", 'Incorrect allocation string format']),
    ('rp=%s,VCPU=1=2' % RP1, ["'VCPU=1=2'"]),
    ('VCPU=1,MEMORY_MB=2', ['rp=', 'VCPU=1,MEMORY_MB=2']),
    ('rp=,VCPU=1', ['rp=', 'UUID or name']),
    ('rp=%s' % RP1, ['Incorrect allocation string format']),
])
@pytest.mark.parametrize('version', ['1.12', '1.28'])
def test_set_rejects_a_malformed_allocation_before_any_request(
        mocker, value, words, version):
    out, err, code = run('resource', 'provider', 'allocation', 'set', C1,
                         '--allocation', value, *OWNER, version=version)
    assert (out, code) == ('', 1)
    assert len(err.splitlines()) == 1
    for word in words:
        assert word in err
    assert 'invalid literal' not in err and 'dictionary' not in err
    assert sent(mocker) == []


def test_set_conflict_is_checked_before_any_request(mocker):
    out, err, code = run(
        'resource', 'provider', 'allocation', 'set', C1,
        '--allocation', 'rp=%s,VCPU=1' % RP1,
        '--allocation', 'rp=%s,VCPU=2' % RP1, *OWNER)
    assert (out, code) == ('', 1)
    assert err == ('Conflict detected for resource provider %s resource '
                   'class VCPU\n' % RP1)
    assert sent(mocker) == []


def test_set_at_1_28_sends_the_generation_it_read(mocker):
    mocker.get(URL + '/allocations/' + C1, [
        {'json': {'allocations': {RP2: {'resources': {'DISK_GB': 5},
                                        'generation': 3}},
                  'project_id': 'project-1', 'user_id': 'user-1',
                  'consumer_generation': 7}},
        {'json': {'allocations': {RP1: {'resources': {'VCPU': 2},
                                        'generation': 4}},
                  'project_id': 'project-1', 'user_id': 'user-1',
                  'consumer_generation': 8}}])
    mocker.put(URL + '/allocations/' + C1, status_code=204)
    out, err, code = run('resource', 'provider', 'allocation', 'set', C1,
                         '--allocation', 'rp=%s,VCPU=2' % RP1, *OWNER,
                         '-f', 'json')
    assert (err, code) == ('', 0)
    assert sent(mocker) == [('GET', '/allocations/' + C1),
                            ('PUT', '/allocations/' + C1),
                            ('GET', '/allocations/' + C1)]
    put = mocker.request_history[1]
    assert put.headers['OpenStack-API-Version'] == 'placement 1.28'
    assert put.json() == {
        'allocations': {RP1: {'resources': {'VCPU': 2}}},
        'consumer_generation': 7,
        'project_id': 'project-1', 'user_id': 'user-1'}
    assert json.loads(out) == [{
        'resource_provider': RP1, 'generation': 4,
        'resources': {'VCPU': 2}, 'project_id': 'project-1',
        'user_id': 'user-1'}]


def test_set_generation_conflict_is_reported_once_without_retry(mocker):
    mocker.get(URL + '/allocations/' + C1,
               json={'allocations': {}})
    mocker.put(URL + '/allocations/' + C1, status_code=409, json={
        'errors': [{'status': 409, 'code': 'placement.concurrent_update',
                    'detail': 'There was a conflict when trying to complete '
                              'your request.\n\n consumer generation '
                              'conflict - expected null but got 1  '}]})
    out, err, code = run('resource', 'provider', 'allocation', 'set', C1,
                         '--allocation', 'rp=%s,VCPU=2' % RP1, *OWNER)
    assert (out, code) == ('', 1)
    assert err == ('consumer generation conflict - expected null but got 1 '
                   '(HTTP 409)\n')
    assert sent(mocker) == [('GET', '/allocations/' + C1),
                            ('PUT', '/allocations/' + C1)]


def test_set_provider_by_name_merges_with_its_uuid(mocker):
    provider_named(mocker, 'compute-1', RP1)
    mocker.put(URL + '/allocations/' + C1, status_code=204)
    mocker.get(URL + '/allocations/' + C1, json={
        'allocations': {RP1: {'resources': {'VCPU': 1, 'MEMORY_MB': 64},
                              'generation': 2}},
        'project_id': 'project-1', 'user_id': 'user-1'})
    out, err, code = run('resource', 'provider', 'allocation', 'set', C1,
                         '--allocation', 'rp=compute-1,VCPU=1',
                         '--allocation', 'rp=%s,MEMORY_MB=64' % RP1,
                         *OWNER, version='1.12')
    assert (err, code) == ('', 0)
    assert sent(mocker)[0] == ('GET', '/resource_providers?name=compute-1')
    assert mocker.request_history[1].json()['allocations'] == {
        RP1: {'resources': {'VCPU': 1, 'MEMORY_MB': 64}}}


def test_set_unknown_provider_name(mocker):
    mocker.get(URL + '/resource_providers?name=nope',
               json={'resource_providers': []})
    out, err, code = run('resource', 'provider', 'allocation', 'set', C1,
                         '--allocation', 'rp=nope,VCPU=1', *OWNER)
    assert (out, code) == ('', 1)
    assert err == "No resource provider with name or UUID 'nope' found.\n"
    assert sent(mocker) == [('GET', '/resource_providers?name=nope')]


def test_set_list_body_below_1_12(mocker):
    mocker.put(URL + '/allocations/' + C1, status_code=204)
    mocker.get(URL + '/allocations/' + C1, json={'allocations': {}})
    out, err, code = run('resource', 'provider', 'allocation', 'set', C1,
                         '--allocation', 'rp=%s,VCPU=1' % RP1,
                         '--allocation', 'rp=%s,DISK_GB=2' % RP2,
                         *OWNER, version='1.11')
    assert code == 0, err
    assert mocker.request_history[0].json() == {
        'allocations': [
            {'resource_provider': {'uuid': RP1}, 'resources': {'VCPU': 1}},
            {'resource_provider': {'uuid': RP2},
             'resources': {'DISK_GB': 2}}],
        'project_id': 'project-1', 'user_id': 'user-1'}


def test_set_consumer_is_percent_encoded(mocker):
    mocker.put(URL + '/allocations/a%2Fb%3Fc', status_code=204)
    mocker.get(URL + '/allocations/a%2Fb%3Fc', json={'allocations': {}})
    out, err, code = run('resource', 'provider', 'allocation', 'set',
                         'a/b?c', '--allocation', 'rp=%s,VCPU=1' % RP1,
                         version='1.0')
    assert code == 0, err
    assert sent(mocker)[0] == ('PUT', '/allocations/a%2Fb%3Fc')


def test_set_negotiation_requires_the_owner_without_a_request(mocker):
    # The parser is built for the negotiation ceiling (1.29), so argparse
    # already requires the owner there.
    out, err, code = cli.run(cli.auth_argv() + [
        'resource', 'provider', 'allocation', 'set', C1,
        '--allocation', 'rp=%s,VCPU=1' % RP1])
    assert code == 2
    assert 'the following arguments are required: --project-id, ' \
        '--user-id' in err
    assert sent(mocker) == []


def test_set_help_names_the_versions():
    out, err, code = run('resource', 'provider', 'allocation', 'set',
                         '--help', version='1.0')
    assert code == 0
    assert '--os-placement-api-version 1.8' in ' '.join(out.split())
    assert '--os-placement-api-version 1.38' in ' '.join(out.split())


# allocation unset

ALLOCS = {
    'allocations': {
        RP1: {'resources': {'VCPU': 2, 'MEMORY_MB': 1024}, 'generation': 3},
        RP2: {'resources': {'DISK_GB': 10}, 'generation': 2}},
    'project_id': 'project-1', 'user_id': 'user-1',
    'consumer_generation': 1}


def test_unset_without_allocations_at_1_28_sends_no_put(mocker):
    mocker.get(URL + '/allocations/' + C1, json={'allocations': {}})
    out, err, code = run('resource', 'provider', 'allocation', 'unset', C1)
    assert (out, code) == ('', 1)
    assert err == "No allocations for consumer '%s'\n" % C1
    assert sent(mocker) == [('GET', '/allocations/' + C1)]


def test_unset_provider_by_name(mocker):
    provider_named(mocker, 'compute-1', RP1)
    mocker.get(URL + '/allocations/' + C1, [
        {'json': ALLOCS},
        {'json': {'allocations': {RP2: {'resources': {'DISK_GB': 10},
                                        'generation': 3}},
                  'project_id': 'project-1', 'user_id': 'user-1',
                  'consumer_generation': 2}}])
    mocker.put(URL + '/allocations/' + C1, status_code=204)
    out, err, code = run('resource', 'provider', 'allocation', 'unset', C1,
                         '--provider', 'compute-1', '-f', 'value')
    assert (err, code) == ('', 0)
    assert sent(mocker) == [
        ('GET', '/resource_providers?name=compute-1'),
        ('GET', '/allocations/' + C1), ('PUT', '/allocations/' + C1),
        ('GET', '/allocations/' + C1)]
    assert mocker.request_history[2].json() == {
        'allocations': {RP2: {'resources': {'DISK_GB': 10},
                              'generation': 2}},
        'project_id': 'project-1', 'user_id': 'user-1',
        'consumer_generation': 1}
    assert out == "%s 3 {'DISK_GB': 10} project-1 user-1\n" % RP2


def test_unset_class_on_one_provider_only(mocker):
    mocker.get(URL + '/allocations/' + C1, json=ALLOCS)
    mocker.put(URL + '/allocations/' + C1, status_code=204)
    out, err, code = run('resource', 'provider', 'allocation', 'unset', C1,
                         '--provider', RP2, '--resource-class', 'MEMORY_MB')
    assert code == 0, err
    # MEMORY_MB is on RP1, not RP2: nothing changes.
    assert mocker.request_history[1].json()['allocations'] == \
        ALLOCS['allocations']


def test_unset_below_1_12_is_a_gate_error(mocker):
    out, err, code = run('resource', 'provider', 'allocation', 'unset', C1,
                         version='1.11')
    assert code == 1
    assert 'requires at least version 1.12' in err
    assert sent(mocker) == []


def test_unset_empty_provider_is_rejected(mocker):
    out, err, code = run('resource', 'provider', 'allocation', 'unset', C1,
                         '--provider', '')
    assert code == 2
    assert sent(mocker) == []


# allocation show / delete

def test_show_empty_consumer_prints_nothing(mocker):
    mocker.get(URL + '/allocations/' + C1, json={'allocations': {}})
    out, err, code = run('resource', 'provider', 'allocation', 'show', C1,
                         '-f', 'json')
    assert (json.loads(out), err, code) == ([], '', 0)


def test_show_empty_consumer_is_rejected_locally(mocker):
    out, err, code = run('resource', 'provider', 'allocation', 'show', '')
    assert code == 2
    assert sent(mocker) == []


def test_delete_one_consumer_as_before(mocker):
    mocker.delete(URL + '/allocations/' + C1, status_code=204)
    out, err, code = run('resource', 'provider', 'allocation', 'delete', C1)
    assert (out, err, code) == ('', '', 0)
    assert sent(mocker) == [('DELETE', '/allocations/' + C1)]


def test_delete_several_goes_on_and_counts_failures(mocker):
    mocker.delete(URL + '/allocations/' + C1, status_code=204)
    mocker.delete(URL + '/allocations/' + C2, status_code=404, json={
        'errors': [{'status': 404, 'detail': 'The resource could not be '
                    "found.\n\n No allocations for consumer '%s'  " % C2}]})
    mocker.delete(URL + '/allocations/' + C3, status_code=204)
    out, err, code = run('resource', 'provider', 'allocation', 'delete',
                         C1, C2, C3)
    assert (out, code) == ('', 1)
    assert err.splitlines() == [
        "Failed to delete allocations of consumer %s: No allocations for "
        "consumer '%s' (HTTP 404)" % (C2, C2),
        'Failed to delete 1 of 3 allocations.']
    assert sent(mocker) == [('DELETE', '/allocations/' + c)
                            for c in (C1, C2, C3)]


def test_delete_usage_synopsis_is_the_reference_one():
    out, err, code = run('resource', 'provider', 'allocation', 'delete')
    assert code == 2
    assert '[<uuid> ...]' not in err
    assert err.splitlines()[-1] == (
        'openstack resource provider allocation delete: error: the '
        'following arguments are required: <uuid>')


# resource provider allocation list

PROVIDER_ALLOCS = {
    'allocations': {
        C1: {'resources': {'VCPU': 2, 'MEMORY_MB': 1024}},
        C2: {'resources': {'VCPU': 1}}},
    'resource_provider_generation': 5}


def test_list_by_provider_name(mocker):
    provider_named(mocker, 'compute-1', RP1)
    mocker.get(URL + '/resource_providers/%s/allocations' % RP1,
               json=PROVIDER_ALLOCS)
    out, err, code = run('resource', 'provider', 'allocation', 'list',
                         'compute-1', '-f', 'json')
    assert (err, code) == ('', 0)
    assert json.loads(out) == [
        {'consumer_uuid': C1, 'resources': {'VCPU': 2, 'MEMORY_MB': 1024}},
        {'consumer_uuid': C2, 'resources': {'VCPU': 1}}]
    assert sent(mocker) == [
        ('GET', '/resource_providers?name=compute-1'),
        ('GET', '/resource_providers/%s/allocations' % RP1)]


def test_list_long_reads_each_consumer(mocker):
    mocker.get(URL + '/resource_providers/%s/allocations' % RP1,
               json=PROVIDER_ALLOCS)
    mocker.get(URL + '/allocations/' + C1, json={
        'allocations': {}, 'project_id': 'p1', 'user_id': 'u1',
        'consumer_generation': 1, 'consumer_type': 'INSTANCE'})
    mocker.get(URL + '/allocations/' + C2, json={
        'allocations': {}, 'project_id': 'p2', 'user_id': 'u2',
        'consumer_generation': 1, 'consumer_type': 'MIGRATION'})
    out, err, code = run('resource', 'provider', 'allocation', 'list', RP1,
                         '--long', '-f', 'json', version='1.38')
    assert (err, code) == ('', 0)
    assert [(r['consumer_uuid'], r['project_id'], r['user_id'],
             r['consumer_type']) for r in json.loads(out)] == [
        (C1, 'p1', 'u1', 'INSTANCE'), (C2, 'p2', 'u2', 'MIGRATION')]
    assert sent(mocker) == [
        ('GET', '/resource_providers/%s/allocations' % RP1),
        ('GET', '/allocations/' + C1), ('GET', '/allocations/' + C2)]


def test_list_long_before_1_38_has_no_consumer_type(mocker):
    mocker.get(URL + '/resource_providers/%s/allocations' % RP1,
               json={'allocations': {C1: {'resources': {'VCPU': 1}}}})
    mocker.get(URL + '/allocations/' + C1, json={
        'allocations': {}, 'project_id': 'p1', 'user_id': 'u1'})
    out, err, code = run('resource', 'provider', 'allocation', 'list', RP1,
                         '--long', '-f', 'json', version='1.12')
    assert code == 0, err
    assert json.loads(out) == [{'consumer_uuid': C1,
                                'resources': {'VCPU': 1},
                                'project_id': 'p1', 'user_id': 'u1'}]


def test_list_long_below_1_12_is_a_gate_error(mocker):
    out, err, code = run('resource', 'provider', 'allocation', 'list', RP1,
                         '--long', version='1.11')
    assert code == 1
    assert err == ('Operation or argument is not supported with version '
                   '1.11; requires at least version 1.12\n')
    assert sent(mocker) == []


# Parsing, property-based

@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(st.lists(st.text(alphabet='rp=,VCPU0123x- ', max_size=20),
                           max_size=3))
def test_parse_allocations_fails_only_with_a_one_line_command_error(values):
    try:
        parsed = allocation.parse_allocations(values)
    except exceptions.CommandError as exc:
        assert '\n' not in str(exc)
        assert 'invalid literal' not in str(exc)
        return
    for resources in parsed.values():
        assert all(isinstance(v, int) for v in resources.values())


@hypothesis.given(st.dictionaries(
    st.sampled_from([RP1, RP2, 'compute-1']),
    st.dictionaries(st.sampled_from(['VCPU', 'MEMORY_MB', 'DISK_GB']),
                    st.integers(min_value=1, max_value=10 ** 6),
                    min_size=1), min_size=1))
def test_parse_allocations_round_trips(expected):
    values = ['rp=%s,%s' % (rp, ','.join('%s=%d' % kv for kv in res.items()))
              for rp, res in expected.items()]
    assert allocation.parse_allocations(values) == expected
