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

"""Resource provider commands beyond the recorded contract."""

import json

import pytest
import requests_mock

from osc_placement.tests import cli

URL = cli.ENDPOINT
RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
RP2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
RP3 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000003'


def rp(uuid, name, parent=None, generation=0):
    return {'uuid': uuid, 'name': name, 'generation': generation,
            'parent_provider_uuid': parent,
            'root_provider_uuid': parent or uuid}


def run(*argv, version='1.14'):
    return cli.run(cli.auth_argv() + ['--os-placement-api-version', version]
                   + list(argv))


def sent(mocker):
    return [(r.method, r.url[len(URL):]) for r in mocker.request_history]


@pytest.fixture
def mocker():
    with requests_mock.Mocker(case_sensitive=True) as m:
        yield m


def test_name_is_resolved_with_one_query(mocker):
    mocker.get(URL + '/resource_providers?name=compute-1',
               json={'resource_providers': [rp(RP1, 'compute-1')]},
               complete_qs=True)
    mocker.get(URL + '/resource_providers/' + RP1, json=rp(RP1, 'compute-1'))
    out, err, code = run('resource', 'provider', 'show', 'compute-1',
                         '-f', 'json')
    assert (code, err) == (0, '')
    assert json.loads(out)['uuid'] == RP1
    assert sent(mocker) == [
        ('GET', '/resource_providers?name=compute-1'),
        ('GET', '/resource_providers/' + RP1)]


def test_uuid_costs_no_lookup(mocker):
    mocker.get(URL + '/resource_providers/' + RP1, json=rp(RP1, 'compute-1'))
    out, err, code = run('resource', 'provider', 'show', RP1, '-f', 'json')
    assert code == 0
    assert sent(mocker) == [('GET', '/resource_providers/' + RP1)]


def test_name_with_reserved_characters_is_encoded(mocker):
    mocker.get(URL + '/resource_providers',
               json={'resource_providers': []})
    out, err, code = run('resource', 'provider', 'show', 'rack 1/a&b=c')
    assert code == 1
    assert err == "No resource provider with name or UUID 'rack 1/a&b=c' " \
        "found.\n"
    assert sent(mocker) == [
        ('GET', '/resource_providers?name=rack+1%2Fa%26b%3Dc')]


def test_parent_provider_by_name_on_create(mocker):
    mocker.get(URL + '/resource_providers?name=compute-1',
               json={'resource_providers': [rp(RP1, 'compute-1')]})
    mocker.post(URL + '/resource_providers', status_code=201,
                headers={'Location': URL + '/resource_providers/' + RP2})
    mocker.get(URL + '/resource_providers/' + RP2,
               json=rp(RP2, 'numa-0', parent=RP1))
    out, err, code = run('resource', 'provider', 'create', 'numa-0',
                         '--parent-provider', 'compute-1', '-f', 'json')
    assert code == 0, err
    assert mocker.request_history[1].json() == {
        'name': 'numa-0', 'parent_provider_uuid': RP1}


def test_delete_one_behaves_as_before(mocker):
    mocker.delete(URL + '/resource_providers/' + RP1, status_code=404,
                  json={'errors': [{'status': 404, 'detail': 'No resource '
                                    'provider with uuid %s found' % RP1}]})
    out, err, code = run('resource', 'provider', 'delete', RP1)
    assert (out, err, code) == (
        '', 'No resource provider with uuid %s found (HTTP 404)\n' % RP1, 1)


def test_delete_several_goes_on_after_a_failure(mocker):
    mocker.delete(URL + '/resource_providers/' + RP1, status_code=204)
    mocker.delete(URL + '/resource_providers/' + RP2, status_code=409,
                  json={'errors': [{'status': 409, 'detail': 'It has child '
                                    'resource providers.'}]})
    mocker.delete(URL + '/resource_providers/' + RP3, status_code=204)
    out, err, code = run('resource', 'provider', 'delete', RP1, RP2, RP3)
    assert code == 1
    assert err.splitlines() == [
        'Failed to delete resource provider %s: It has child resource '
        'providers. (HTTP 409)' % RP2,
        'Failed to delete 1 of 3 resource providers.']
    assert [m for m, _ in sent(mocker)] == ['DELETE'] * 3


def test_delete_usage_synopsis_is_the_reference_one():
    out, err, code = run('resource', 'provider', 'delete')
    assert code == 2
    assert err.splitlines()[0] == \
        'usage: openstack resource provider delete [-h] <uuid>'


def test_set_no_parent_sends_null(mocker):
    mocker.put(URL + '/resource_providers/' + RP2, json=rp(RP2, 'numa-0'))
    out, err, code = run('resource', 'provider', 'set', RP2, '--name',
                         'numa-0', '--no-parent', version='1.37')
    assert code == 0, err
    assert mocker.request_history[0].json() == {
        'name': 'numa-0', 'parent_provider_uuid': None}


def test_no_parent_and_parent_are_exclusive():
    out, err, code = run('resource', 'provider', 'set', RP2, '--name', 'x',
                         '--no-parent', '--parent-provider', RP1,
                         version='1.37')
    assert code == 2
    assert 'not allowed with argument' in err


def test_tree_rows_are_depth_first_with_indented_names(mocker):
    tree = [rp(RP1, 'compute-1'), rp(RP3, 'numa-1', parent=RP1),
            rp(RP2, 'numa-0', parent=RP1),
            rp('aaaaaaaa-aaaa-4aaa-8aaa-000000000004', 'pf', parent=RP2)]
    mocker.get(URL + '/resource_providers?in_tree=' + RP1,
               json={'resource_providers': tree}, complete_qs=True)
    out, err, code = run('resource', 'provider', 'tree', 'show', RP1,
                         '-f', 'value', '-c', 'name', '-c', 'generation')
    assert code == 0, err
    assert out.splitlines() == ['compute-1 0', '  numa-0 0', '    pf 0',
                                '  numa-1 0']


def test_tree_json_has_depth_and_plain_names(mocker):
    mocker.get(URL + '/resource_providers?in_tree=' + RP1,
               json={'resource_providers': [
                   rp(RP1, 'compute-1'), rp(RP2, 'numa-0', parent=RP1)]})
    out, err, code = run('resource', 'provider', 'tree', 'show', RP1,
                         '-f', 'json')
    assert code == 0, err
    assert json.loads(out) == [
        {'name': 'compute-1', 'uuid': RP1, 'generation': 0,
         'parent_provider_uuid': None, 'depth': 0},
        {'name': 'numa-0', 'uuid': RP2, 'generation': 0,
         'parent_provider_uuid': RP1, 'depth': 1}]


def test_tree_long_shows_capacity_and_traits(mocker):
    mocker.get(URL + '/resource_providers?in_tree=' + RP1,
               json={'resource_providers': [rp(RP1, 'compute-1')]})
    mocker.get(URL + '/resource_providers/%s/inventories' % RP1,
               json={'inventories': {'VCPU': {
                   'total': 8, 'reserved': 2, 'allocation_ratio': 4.0}}})
    mocker.get(URL + '/resource_providers/%s/usages' % RP1,
               json={'usages': {'VCPU': 3}})
    mocker.get(URL + '/resource_providers/%s/traits' % RP1,
               json={'traits': ['HW_CPU_X86_AVX', 'CUSTOM_GOLD']})
    out, err, code = run('resource', 'provider', 'tree', 'show', RP1,
                         '--long', '-f', 'json')
    assert code == 0, err
    row = json.loads(out)[0]
    assert row['inventory used/capacity'] == 'VCPU=3/24'
    assert row['traits'] == 'HW_CPU_X86_AVX,CUSTOM_GOLD'
