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

"""Inventory commands beyond the recorded contract."""

import json

import pytest
import requests_mock

from osc_placement.tests import cli

URL = cli.ENDPOINT
RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
RP2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
RP3 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000003'
AGG = 'dddddddd-dddd-4ddd-8ddd-000000000001'

FULL = {'total': 8, 'reserved': 0, 'min_unit': 1, 'max_unit': 8,
        'step_size': 1, 'allocation_ratio': 16.0}


def rp(uuid, name='compute', generation=0):
    return {'uuid': uuid, 'name': name, 'generation': generation}


def record(**values):
    result = dict(FULL)
    result.update(values)
    return result


def run(*argv, version='1.3'):
    return cli.run(cli.auth_argv() + ['--os-placement-api-version', version]
                   + list(argv))


def sent(mocker):
    return [(r.method, r.url[len(URL):]) for r in mocker.request_history]


def conflict(detail):
    return {'status_code': 409,
            'json': {'errors': [{'status': 409, 'title': 'Conflict',
                                 'detail': detail}]}}


@pytest.fixture
def mocker():
    with requests_mock.Mocker(case_sensitive=True) as m:
        yield m


# inventory set


def test_set_by_name_resolves_then_reads_generation(mocker):
    mocker.get(URL + '/resource_providers?name=compute-1',
               json={'resource_providers': [rp(RP1, 'compute-1', 5)]},
               complete_qs=True)
    mocker.get(URL + '/resource_providers/' + RP1,
               json=rp(RP1, 'compute-1', 5))
    mocker.put(URL + '/resource_providers/%s/inventories' % RP1,
               json={'resource_provider_generation': 6,
                     'inventories': {'VCPU': record()}})
    out, err, code = run('resource', 'provider', 'inventory', 'set',
                         'compute-1', '--resource', 'VCPU=8', '-f', 'json')
    assert (code, err) == (0, '')
    assert sent(mocker) == [
        ('GET', '/resource_providers?name=compute-1'),
        ('GET', '/resource_providers/' + RP1),
        ('PUT', '/resource_providers/%s/inventories' % RP1)]
    put = mocker.request_history[-1]
    assert put.headers['OpenStack-API-Version'] == 'placement 1.3'
    assert put.json() == {'resource_provider_generation': 5,
                          'inventories': {'VCPU': {'total': 8}}}
    assert json.loads(out) == [dict(record(), resource_class='VCPU')]


def test_set_fields_of_one_class_are_merged(mocker):
    mocker.get(URL + '/resource_providers/' + RP1, json=rp(RP1))
    mocker.put(URL + '/resource_providers/%s/inventories' % RP1,
               json={'resource_provider_generation': 1, 'inventories': {}})
    out, err, code = run(
        'resource', 'provider', 'inventory', 'set', RP1,
        '--resource', 'VCPU=8', '--resource', 'VCPU:allocation_ratio=2.5',
        '--resource', 'VCPU:reserved=1', '--resource', 'DISK_GB=10')
    assert code == 0, err
    assert mocker.request_history[-1].json()['inventories'] == {
        'VCPU': {'total': 8, 'allocation_ratio': 2.5, 'reserved': 1},
        'DISK_GB': {'total': 10}}


@pytest.mark.parametrize('value, message', [
    ('VCPU=nan', "total of --resource VCPU=nan: 'nan' is not an integer."),
    ('VCPU:allocation_ratio=inf',
     "allocation_ratio of --resource VCPU:allocation_ratio=inf: 'inf' is "
     "not a number."),
    ('VCPU:allocation_ratio=nan',
     "allocation_ratio of --resource VCPU:allocation_ratio=nan: 'nan' is "
     "not a number."),
    ('VCPU:total:x=1', 'Resource argument can contain only one colon'),
    ('=1', 'Name, field and value must be not empty'),
    ('VCPU:step_size=1.5',
     "step_size of --resource VCPU:step_size=1.5: '1.5' is not an "
     "integer."),
])
def test_set_bad_resource_is_refused_before_any_request(mocker, value,
                                                        message):
    out, err, code = run('resource', 'provider', 'inventory', 'set', RP1,
                         '--resource', value)
    assert (out, err, code) == ('', message + '\n', 1)
    assert sent(mocker) == []


def test_set_bad_resource_is_refused_before_the_version_gate(mocker):
    # --aggregate needs 1.3, but the malformed value is reported first,
    # without any request.
    out, err, code = run('resource', 'provider', 'inventory', 'set', AGG,
                         '--aggregate', '--resource', 'VCPU', version='1.2')
    assert (err, code) == (
        'Resource argument must have "name=value" format\n', 1)
    assert sent(mocker) == []


def test_set_aggregate_below_1_3_is_a_gate_error(mocker):
    out, err, code = run('resource', 'provider', 'inventory', 'set', AGG,
                         '--aggregate', '--resource', 'VCPU=1',
                         version='1.2')
    assert (err, code) == (
        'Operation or argument is not supported with version 1.2; '
        'requires at least version 1.3\n', 1)
    assert sent(mocker) == []


def test_set_empty_uuid_is_a_usage_error(mocker):
    out, err, code = run('resource', 'provider', 'inventory', 'set', '',
                         '--resource', 'VCPU=1')
    assert code == 2
    assert 'must not be empty' in err
    assert sent(mocker) == []


def test_set_amend_dry_run_reads_but_never_writes(mocker):
    mocker.get(URL + '/resource_providers/' + RP1, json=rp(RP1, 'c', 3))
    mocker.get(URL + '/resource_providers/%s/inventories' % RP1,
               json={'resource_provider_generation': 3,
                     'inventories': {'VCPU': record()}})
    out, err, code = run('resource', 'provider', 'inventory', 'set', RP1,
                         '--amend', '--dry-run', '--resource',
                         'VCPU:reserved=2', '--resource', 'DISK_GB=5',
                         '-f', 'json')
    assert code == 0, err
    assert [m for m, _ in sent(mocker)] == ['GET', 'GET']
    assert json.loads(out) == [
        dict(record(reserved=2), resource_class='VCPU'),
        {'resource_class': 'DISK_GB', 'allocation_ratio': '',
         'min_unit': '', 'max_unit': '', 'reserved': '', 'step_size': '',
         'total': 5}]


def test_set_amend_conflict_is_not_retried(mocker):
    mocker.get(URL + '/resource_providers/' + RP1, json=rp(RP1, 'c', 3))
    mocker.get(URL + '/resource_providers/%s/inventories' % RP1,
               json={'resource_provider_generation': 3,
                     'inventories': {'VCPU': record()}})
    mocker.put(URL + '/resource_providers/%s/inventories' % RP1,
               **conflict("resource provider generation conflict"))
    out, err, code = run('resource', 'provider', 'inventory', 'set', RP1,
                         '--amend', '--resource', 'VCPU=4')
    assert (out, code) == ('', 1)
    assert err == 'resource provider generation conflict (HTTP 409)\n'
    assert [m for m, _ in sent(mocker)] == ['GET', 'GET', 'PUT']
    assert mocker.request_history[-1].json() == {
        'resource_provider_generation': 3,
        'inventories': {'VCPU': record(total=4)}}


def _aggregate_of(mocker, *providers):
    mocker.get(URL + '/resource_providers?member_of=' + AGG,
               json={'resource_providers': list(providers)},
               complete_qs=True)


def test_set_aggregate_partial_failure_table_then_errors(mocker):
    _aggregate_of(mocker, rp(RP1, 'a', 1), rp(RP2, 'b', 2), rp(RP3, 'c', 3))
    mocker.put(URL + '/resource_providers/%s/inventories' % RP1,
               json={'resource_provider_generation': 2,
                     'inventories': {'VCPU': record(total=4)}})
    mocker.put(URL + '/resource_providers/%s/inventories' % RP2,
               **conflict("Inventory for 'VCPU' on resource provider "
                          "'%s' in use." % RP2))
    mocker.put(URL + '/resource_providers/%s/inventories' % RP3,
               json={'resource_provider_generation': 4,
                     'inventories': {'VCPU': record(total=4)}})
    out, err, code = run('resource', 'provider', 'inventory', 'set', AGG,
                         '--aggregate', '--resource', 'VCPU=4',
                         '-f', 'value')
    assert code == 1
    # The providers that were updated, before and after the failure.
    assert out.splitlines() == [
        '%s VCPU 16.0 1 8 0 1 4' % RP1,
        '%s VCPU 16.0 1 8 0 1 4' % RP3]
    assert err.splitlines() == [
        "Failed to set inventory for resource provider %s: Inventory for "
        "'VCPU' on resource provider '%s' in use. (HTTP 409)." % (RP2, RP2),
        'Failed to set inventory for 1 of 3 resource providers.']
    assert [m for m, _ in sent(mocker)] == ['GET', 'PUT', 'PUT', 'PUT']


def test_set_aggregate_amend_read_failure_goes_on(mocker):
    # A provider deleted between the listing and its read is one failure;
    # the others are still updated.
    _aggregate_of(mocker, rp(RP1, 'a', 1), rp(RP2, 'b', 2))
    mocker.get(URL + '/resource_providers/%s/inventories' % RP1,
               status_code=404,
               json={'errors': [{'status': 404, 'detail': 'No resource '
                                 'provider with uuid %s found' % RP1}]})
    mocker.get(URL + '/resource_providers/%s/inventories' % RP2,
               json={'resource_provider_generation': 2, 'inventories': {}})
    mocker.put(URL + '/resource_providers/%s/inventories' % RP2,
               json={'resource_provider_generation': 3,
                     'inventories': {'VCPU': record(total=2)}})
    out, err, code = run('resource', 'provider', 'inventory', 'set', AGG,
                         '--aggregate', '--amend', '--resource', 'VCPU=2',
                         '-f', 'json')
    assert code == 1
    assert [row['resource_provider'] for row in json.loads(out)] == [RP2]
    assert err.splitlines() == [
        'Failed to set inventory for resource provider %s: No resource '
        'provider with uuid %s found (HTTP 404).' % (RP1, RP1),
        'Failed to set inventory for 1 of 2 resource providers.']


def test_set_aggregate_without_members(mocker):
    _aggregate_of(mocker)
    out, err, code = run('resource', 'provider', 'inventory', 'set', AGG,
                         '--aggregate', '--resource', 'VCPU=2')
    assert (out, err, code) == (
        '', 'No resource providers found in aggregate with uuid %s.\n'
        % AGG, 1)


def test_set_aggregate_value_is_not_resolved_as_a_provider_name(mocker):
    mocker.get(URL + '/resource_providers?member_of=my-agg',
               json={'resource_providers': []}, complete_qs=True)
    out, err, code = run('resource', 'provider', 'inventory', 'set',
                         'my-agg', '--aggregate', '--resource', 'VCPU=2')
    assert code == 1
    assert sent(mocker) == [('GET', '/resource_providers?member_of=my-agg')]


# inventory class set


def test_class_set_by_name_encodes_the_class(mocker):
    mocker.get(URL + '/resource_providers?name=compute-1',
               json={'resource_providers': [rp(RP1, 'compute-1', 7)]})
    mocker.get(URL + '/resource_providers/' + RP1,
               json=rp(RP1, 'compute-1', 7))
    mocker.put(URL + '/resource_providers/%s/inventories/CUSTOM_X%%3Fa%%3D1'
               % RP1, json=dict(record(), resource_provider_generation=8))
    out, err, code = run('resource', 'provider', 'inventory', 'class',
                         'set', 'compute-1', 'CUSTOM_X?a=1', '--total', '8',
                         '--allocation_ratio', '16', '-f', 'json')
    assert code == 0, err
    assert sent(mocker)[1:] == [
        ('GET', '/resource_providers/' + RP1),
        ('PUT', '/resource_providers/%s/inventories/CUSTOM_X%%3Fa%%3D1'
         % RP1)]
    assert mocker.request_history[-1].json() == {
        'resource_provider_generation': 7, 'total': 8,
        'allocation_ratio': 16.0}
    assert json.loads(out) == record()


@pytest.mark.parametrize('value', ['nan', 'inf', 'x'])
def test_class_set_ratio_must_be_a_finite_number(mocker, value):
    out, err, code = run('resource', 'provider', 'inventory', 'class',
                         'set', RP1, 'VCPU', '--total', '8',
                         '--allocation_ratio', value)
    assert code == 2
    assert err.splitlines()[-1].endswith(
        "error: argument --allocation_ratio: invalid float value: %r"
        % value)
    assert sent(mocker) == []


# inventory list / show


def _inventory_of(mocker, inventories, usages):
    mocker.get(URL + '/resource_providers/%s/inventories' % RP1,
               json={'resource_provider_generation': 1,
                     'inventories': inventories})
    mocker.get(URL + '/resource_providers/%s/usages' % RP1,
               json={'resource_provider_generation': 1, 'usages': usages})


def test_list_long_adds_capacity_and_free(mocker):
    _inventory_of(mocker, {
        'VCPU': record(total=8, reserved=1, allocation_ratio=16.0),
        'MEMORY_MB': record(total=1000, reserved=1, allocation_ratio=1.5),
        'DISK_GB': record(total=10, reserved=0, allocation_ratio=1.0)},
        {'VCPU': 100, 'MEMORY_MB': 0, 'DISK_GB': 10})
    out, err, code = run('resource', 'provider', 'inventory', 'list', RP1,
                         '--long', '-f', 'json')
    assert code == 0, err
    rows = {row['resource_class']: row for row in json.loads(out)}
    # int((8 - 1) * 16.0) = 112; int(999 * 1.5) = 1498 (truncated).
    assert (rows['VCPU']['capacity'], rows['VCPU']['free']) == (112, 12)
    assert (rows['MEMORY_MB']['capacity'],
            rows['MEMORY_MB']['free']) == (1498, 1498)
    assert (rows['DISK_GB']['capacity'], rows['DISK_GB']['free']) == (10, 0)
    assert list(json.loads(out)[0]) == [
        'resource_class', 'allocation_ratio', 'min_unit', 'max_unit',
        'reserved', 'step_size', 'total', 'used', 'capacity', 'free']


def test_list_without_long_has_the_reference_columns(mocker):
    _inventory_of(mocker, {'VCPU': record()}, {'VCPU': 3})
    out, err, code = run('resource', 'provider', 'inventory', 'list', RP1,
                         '-f', 'value')
    assert (out, err, code) == ('VCPU 16.0 1 8 0 1 8 3\n', '', 0)


def test_list_long_is_in_help_not_in_usage(mocker):
    out, err, code = run('resource', 'provider', 'inventory', 'list',
                         '--help')
    assert code == 0
    assert '--long' in out
    assert 'capacity' in out
    out, err, code = run('resource', 'provider', 'inventory', 'list')
    assert code == 2
    assert '--long' not in err


def test_list_by_name(mocker):
    mocker.get(URL + '/resource_providers?name=compute-1',
               json={'resource_providers': [rp(RP1, 'compute-1')]})
    _inventory_of(mocker, {}, {})
    out, err, code = run('resource', 'provider', 'inventory', 'list',
                         'compute-1', '-f', 'json')
    assert (out, code) == ('[]\n', 0)
    assert [path for _, path in sent(mocker)] == [
        '/resource_providers?name=compute-1',
        '/resource_providers/%s/inventories' % RP1,
        '/resource_providers/%s/usages' % RP1]


def test_list_unknown_name(mocker):
    mocker.get(URL + '/resource_providers?name=nope',
               json={'resource_providers': []})
    out, err, code = run('resource', 'provider', 'inventory', 'list', 'nope')
    assert (out, err, code) == (
        '', "No resource provider with name or UUID 'nope' found.\n", 1)


def test_show_encodes_the_class(mocker):
    mocker.get(URL + '/resource_providers/%s/inventories/CUSTOM_A%%2FB'
               % RP1, json=dict(record(), resource_provider_generation=1))
    mocker.get(URL + '/resource_providers/%s/usages' % RP1,
               json={'resource_provider_generation': 1,
                     'usages': {'CUSTOM_A/B': 2}})
    out, err, code = run('resource', 'provider', 'inventory', 'show', RP1,
                         'CUSTOM_A/B', '-f', 'json')
    assert code == 0, err
    assert json.loads(out) == dict(record(), used=2)


# inventory delete


def test_delete_by_name_one_class(mocker):
    mocker.get(URL + '/resource_providers?name=compute-1',
               json={'resource_providers': [rp(RP1, 'compute-1')]})
    mocker.delete(URL + '/resource_providers/%s/inventories/VCPU' % RP1,
                  status_code=204)
    out, err, code = run('resource', 'provider', 'inventory', 'delete',
                         'compute-1', '--resource-class', 'VCPU',
                         version='1.0')
    assert (out, err, code) == ('', '', 0)
    assert sent(mocker)[-1] == (
        'DELETE', '/resource_providers/%s/inventories/VCPU' % RP1)


def test_delete_all_when_the_server_negotiates_below_1_5(mocker):
    # The parser could not know the server's maximum; the gate catches it
    # before the DELETE.
    mocker.get(URL + '/', status_code=406, json={'errors': [{
        'status': 406, 'detail': 'not acceptable', 'max_version': '1.4',
        'min_version': '1.0'}]})
    out, err, code = cli.run(cli.auth_argv() + [
        'resource', 'provider', 'inventory', 'delete', RP1])
    assert (out, code) == ('', 1)
    assert err == ('Operation or argument is not supported with version '
                   '1.4; requires at least version 1.5\n')
    assert sent(mocker) == [('GET', '/')]


def test_delete_class_is_optional_in_usage_from_1_5(mocker):
    out, err, code = run('resource', 'provider', 'inventory', 'delete',
                         version='1.5')
    assert code == 2
    assert '[--resource-class <resource_class>]' in err
