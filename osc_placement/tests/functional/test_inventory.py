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

"""Inventory commands against a real Placement.

Each test reads the server state back with direct API calls: what the
command printed is not taken as proof of what it wrote.
"""

import requests

from osc_placement import http as placement_http

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
RP2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
RP3 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000003'
AGG = 'dddddddd-dddd-4ddd-8ddd-000000000001'
CONSUMER = 'cccccccc-cccc-4ccc-8ccc-000000000001'
CONSUMER2 = 'cccccccc-cccc-4ccc-8ccc-000000000002'

DEFAULTS = {'reserved': 0, 'min_unit': 1, 'max_unit': 2147483647,
            'step_size': 1, 'allocation_ratio': 1.0}


def full(**values):
    """An inventory record as the server stores it, defaults filled."""
    result = dict(DEFAULTS)
    result.update(values)
    return result


def create_provider(placement, uuid=RP1, name='compute-1'):
    placement.api('POST', '/resource_providers',
                  body={'name': name, 'uuid': uuid})


def put_inventories(placement, uuid, inventories):
    generation = placement.api(
        'GET', '/resource_providers/' + uuid)['generation']
    placement.api('PUT', '/resource_providers/%s/inventories' % uuid,
                  body={'resource_provider_generation': generation,
                        'inventories': inventories})


def inventories(placement, uuid=RP1):
    return placement.api(
        'GET', '/resource_providers/%s/inventories' % uuid)['inventories']


def allocate(placement, resources, uuid=RP1, consumer=CONSUMER):
    placement.api('PUT', '/allocations/' + consumer, body={
        'allocations': {uuid: {'resources': resources}},
        'project_id': 'project-1', 'user_id': 'user-1',
        'consumer_generation': None, 'consumer_type': 'INSTANCE'})


def rows_by_class(rows):
    return {row.pop('resource_class'): row for row in rows}


def in_aggregate(placement, *uuids):
    for uuid in uuids:
        placement.api('PUT', '/resource_providers/%s/aggregates' % uuid,
                      version='1.1', body=[AGG])


# inventory set


def test_set_replaces_the_inventory(placement):
    create_provider(placement)
    put_inventories(placement, RP1, {'DISK_GB': {'total': 100}})
    rows = placement.ok(
        'resource', 'provider', 'inventory', 'set', RP1,
        '--resource', 'VCPU=8', '--resource', 'VCPU:allocation_ratio=16',
        '--resource', 'MEMORY_MB=4096', '--resource',
        'MEMORY_MB:reserved=512', '--resource', 'MEMORY_MB:step_size=64',
        '--resource', 'MEMORY_MB:min_unit=64', '--resource',
        'MEMORY_MB:max_unit=2048', '-f', 'json')
    expected = {
        'VCPU': full(total=8, allocation_ratio=16.0),
        'MEMORY_MB': full(total=4096, reserved=512, step_size=64,
                          min_unit=64, max_unit=2048)}
    # DISK_GB was not given: it is gone.
    assert inventories(placement) == expected
    assert rows_by_class(rows) == expected


def test_set_without_resource_empties_the_inventory(placement):
    create_provider(placement)
    put_inventories(placement, RP1, {'DISK_GB': {'total': 100}})
    rows = placement.ok('resource', 'provider', 'inventory', 'set', RP1,
                        '-f', 'json', version='1.0')
    assert rows == []
    assert inventories(placement) == {}


def test_set_amend_keeps_the_other_classes(placement):
    create_provider(placement)
    put_inventories(placement, RP1, {
        'DISK_GB': {'total': 100, 'reserved': 5},
        'VCPU': {'total': 4, 'allocation_ratio': 2.0}})
    placement.ok('resource', 'provider', 'inventory', 'set', RP1,
                 '--amend', '--resource', 'VCPU=16', '--resource',
                 'MEMORY_MB=1024')
    assert inventories(placement) == {
        'DISK_GB': full(total=100, reserved=5),
        'VCPU': full(total=16, allocation_ratio=2.0),
        'MEMORY_MB': full(total=1024)}


def test_set_dry_run_writes_nothing(placement):
    create_provider(placement)
    put_inventories(placement, RP1, {'DISK_GB': {'total': 100}})
    generation = placement.api('GET', '/resource_providers/' + RP1)[
        'generation']
    rows = placement.ok('resource', 'provider', 'inventory', 'set', RP1,
                        '--amend', '--dry-run', '--resource', 'VCPU=2',
                        '-f', 'json')
    assert [row['resource_class'] for row in rows] == ['DISK_GB', 'VCPU']
    assert inventories(placement) == {'DISK_GB': full(total=100)}
    assert placement.api('GET', '/resource_providers/' + RP1)[
        'generation'] == generation


def test_set_by_provider_name(placement):
    create_provider(placement, name='compute-by-name')
    placement.ok('resource', 'provider', 'inventory', 'set',
                 'compute-by-name', '--resource', 'VCPU=3')
    assert inventories(placement) == {'VCPU': full(total=3)}


def test_set_unknown_provider_name(placement):
    err, code = placement.fail('resource', 'provider', 'inventory', 'set',
                               'nowhere', '--resource', 'VCPU=3')
    assert (err, code) == (
        "No resource provider with name or UUID 'nowhere' found.\n", 1)


def test_set_malformed_value_sends_nothing(placement):
    create_provider(placement)
    put_inventories(placement, RP1, {'DISK_GB': {'total': 100}})
    err, code = placement.fail('resource', 'provider', 'inventory', 'set',
                               RP1, '--resource', 'VCPU=4', '--resource',
                               'DISK_GB=lots')
    assert code == 1
    assert err == "total of --resource DISK_GB=lots: 'lots' is not an " \
        "integer.\n"
    assert inventories(placement) == {'DISK_GB': full(total=100)}


def test_set_in_use_class_cannot_be_removed(placement):
    create_provider(placement)
    put_inventories(placement, RP1, {'VCPU': {'total': 8},
                                     'DISK_GB': {'total': 100}})
    allocate(placement, {'VCPU': 2})
    err, code = placement.fail('resource', 'provider', 'inventory', 'set',
                               RP1, '--resource', 'DISK_GB=10')
    assert code == 1
    assert err == ("update conflict: Inventory for 'VCPU' on resource "
                   "provider '%s' in use. (HTTP 409)\n" % RP1)
    assert set(inventories(placement)) == {'VCPU', 'DISK_GB'}


def test_reserved_equal_to_total_from_1_26(placement):
    create_provider(placement)
    rows = placement.ok('resource', 'provider', 'inventory', 'set', RP1,
                        '--resource', 'VCPU=4', '--resource',
                        'VCPU:reserved=4', '-f', 'json', version='1.26')
    assert rows_by_class(rows) == {'VCPU': full(total=4, reserved=4)}
    assert inventories(placement) == {'VCPU': full(total=4, reserved=4)}


def test_reserved_equal_to_total_refused_at_1_25(placement):
    create_provider(placement)
    err, code = placement.fail('resource', 'provider', 'inventory', 'set',
                               RP1, '--resource', 'VCPU=4', '--resource',
                               'VCPU:reserved=4', version='1.25')
    assert code == 1
    # The server's reason, on one line, with the status.
    assert err == (
        "Unable to update inventory for resource provider %s: Invalid "
        "inventory for 'VCPU' on resource provider '%s'. The reserved value "
        "is greater than or equal to total. (HTTP 400)\n" % (RP1, RP1))
    assert inventories(placement) == {}


def test_set_amend_concurrent_writers(placement, monkeypatch):
    """Two --amend writers on one provider: the second to write loses.

    The loser reads the inventory; before its PUT, the winner runs a whole
    ``inventory set --amend``. The loser's PUT carries the generation it
    read, now stale: the server answers 409, the loser exits 1 with the
    server's message and does not retry; the winner's write stays.
    """
    create_provider(placement)
    put_inventories(placement, RP1, {'VCPU': {'total': 8},
                                     'DISK_GB': {'total': 100}})
    original = placement_http.SessionClient.request
    interleaved = []

    def request(self, method, url, **kwargs):
        if method == 'PUT' and url.endswith('/inventories') \
                and not interleaved:
            interleaved.append(url)
            placement.ok('resource', 'provider', 'inventory', 'set', RP1,
                         '--amend', '--resource', 'DISK_GB=50')
        return original(self, method, url, **kwargs)

    monkeypatch.setattr(placement_http.SessionClient, 'request', request)
    out, err, code = placement.run('resource', 'provider', 'inventory',
                                   'set', RP1, '--amend', '--resource',
                                   'VCPU=16')
    monkeypatch.undo()
    assert interleaved
    assert (out, code) == ('', 1)
    assert err == 'resource provider generation conflict (HTTP 409)\n'
    # The winner's write is intact and the loser's is not applied.
    assert inventories(placement) == {'VCPU': full(total=8),
                                      'DISK_GB': full(total=50)}


def test_set_aggregate_needs_1_3(placement):
    create_provider(placement)
    err, code = placement.fail('resource', 'provider', 'inventory', 'set',
                               AGG, '--aggregate', '--resource', 'VCPU=2',
                               version='1.2')
    assert (err, code) == (
        'Operation or argument is not supported with version 1.2; '
        'requires at least version 1.3\n', 1)
    assert inventories(placement) == {}


def test_set_aggregate_sets_every_member(placement):
    create_provider(placement, RP1, 'compute-1')
    create_provider(placement, RP2, 'compute-2')
    create_provider(placement, RP3, 'outsider')
    in_aggregate(placement, RP1, RP2)
    rows = placement.ok('resource', 'provider', 'inventory', 'set', AGG,
                        '--aggregate', '--resource', 'VCPU=8', '-f', 'json',
                        version='1.3')
    assert sorted(row['resource_provider'] for row in rows) == [RP1, RP2]
    assert inventories(placement, RP1) == {'VCPU': full(total=8)}
    assert inventories(placement, RP2) == {'VCPU': full(total=8)}
    assert inventories(placement, RP3) == {}


def test_set_aggregate_amend(placement):
    create_provider(placement, RP1, 'compute-1')
    create_provider(placement, RP2, 'compute-2')
    put_inventories(placement, RP1, {'DISK_GB': {'total': 100}})
    in_aggregate(placement, RP1, RP2)
    placement.ok('resource', 'provider', 'inventory', 'set', AGG,
                 '--aggregate', '--amend', '--resource', 'VCPU=2')
    assert inventories(placement, RP1) == {'DISK_GB': full(total=100),
                                           'VCPU': full(total=2)}
    assert inventories(placement, RP2) == {'VCPU': full(total=2)}


def test_set_aggregate_dry_run_writes_nothing(placement):
    create_provider(placement, RP1, 'compute-1')
    create_provider(placement, RP2, 'compute-2')
    put_inventories(placement, RP1, {'DISK_GB': {'total': 100}})
    in_aggregate(placement, RP1, RP2)
    rows = placement.ok('resource', 'provider', 'inventory', 'set', AGG,
                        '--aggregate', '--dry-run', '--resource', 'VCPU=2',
                        '-f', 'json')
    assert sorted((row['resource_provider'], row['resource_class'],
                   row['total']) for row in rows) == [
        (RP1, 'VCPU', 2), (RP2, 'VCPU', 2)]
    assert inventories(placement, RP1) == {'DISK_GB': full(total=100)}
    assert inventories(placement, RP2) == {}


def test_set_aggregate_without_members(placement):
    err, code = placement.fail('resource', 'provider', 'inventory', 'set',
                               AGG, '--aggregate', '--resource', 'VCPU=2')
    assert (err, code) == (
        'No resource providers found in aggregate with uuid %s.\n' % AGG, 1)


def test_set_aggregate_partial_failure(placement):
    """One provider of three refuses (a class in use): the others change.

    The rows of the two updated providers are printed; the failure and the
    count follow on stderr; the exit code is 1.
    """
    for uuid, name in ((RP1, 'compute-1'), (RP2, 'compute-2'),
                       (RP3, 'compute-3')):
        create_provider(placement, uuid, name)
        put_inventories(placement, uuid, {'MEMORY_MB': {'total': 1024}})
    in_aggregate(placement, RP1, RP2, RP3)
    allocate(placement, {'MEMORY_MB': 256}, uuid=RP2)
    out, err, code = placement.run('resource', 'provider', 'inventory',
                                   'set', AGG, '--aggregate', '--resource',
                                   'VCPU=4', '-f', 'value')
    assert code == 1
    updated = sorted(line.split()[0] for line in out.splitlines())
    assert updated == [RP1, RP3]
    assert err.splitlines() == [
        "Failed to set inventory for resource provider %s: update "
        "conflict: Inventory for 'MEMORY_MB' on resource provider '%s' in "
        "use. (HTTP 409)." % (RP2, RP2),
        'Failed to set inventory for 1 of 3 resource providers.']
    # Read back: the batch is not atomic.
    assert inventories(placement, RP1) == {'VCPU': full(total=4)}
    assert inventories(placement, RP2) == {'MEMORY_MB': full(total=1024)}
    assert inventories(placement, RP3) == {'VCPU': full(total=4)}


# inventory class set


def test_class_set_replaces_one_class(placement):
    create_provider(placement)
    put_inventories(placement, RP1, {
        'VCPU': {'total': 4, 'reserved': 1, 'max_unit': 2},
        'DISK_GB': {'total': 100}})
    record = placement.ok(
        'resource', 'provider', 'inventory', 'class', 'set', RP1, 'VCPU',
        '--total', '16', '--reserved', '2', '--min_unit', '2',
        '--max_unit', '8', '--step_size', '2', '--allocation_ratio', '2.5',
        '-f', 'json')
    expected = full(total=16, reserved=2, min_unit=2, max_unit=8,
                    step_size=2, allocation_ratio=2.5)
    assert record == expected
    assert inventories(placement) == {'VCPU': expected,
                                      'DISK_GB': full(total=100)}


def test_class_set_fields_not_given_take_defaults(placement):
    create_provider(placement)
    put_inventories(placement, RP1, {'VCPU': {'total': 4, 'reserved': 1}})
    placement.ok('resource', 'provider', 'inventory', 'class', 'set',
                 'compute-1', 'VCPU', '--total', '6', version='1.0')
    assert inventories(placement) == {'VCPU': full(total=6)}


def test_class_set_class_not_in_inventory(placement):
    create_provider(placement)
    put_inventories(placement, RP1, {'VCPU': {'total': 4}})
    err, code = placement.fail('resource', 'provider', 'inventory', 'class',
                               'set', RP1, 'DISK_GB', '--total', '6')
    assert code == 1
    assert err == ('No inventory record with resource class for resource '
                   'provider %s: No inventory of class DISK_GB found. '
                   '(HTTP 400)\n' % RP1)
    assert inventories(placement) == {'VCPU': full(total=4)}


def test_class_set_concurrent_change_is_a_conflict(placement, monkeypatch):
    create_provider(placement)
    put_inventories(placement, RP1, {'VCPU': {'total': 4}})
    original = placement_http.SessionClient.request
    interleaved = []

    def request(self, method, url, **kwargs):
        if method == 'PUT' and not interleaved:
            interleaved.append(url)
            placement.ok('resource', 'provider', 'inventory', 'class',
                         'set', RP1, 'VCPU', '--total', '10')
        return original(self, method, url, **kwargs)

    monkeypatch.setattr(placement_http.SessionClient, 'request', request)
    out, err, code = placement.run('resource', 'provider', 'inventory',
                                   'class', 'set', RP1, 'VCPU', '--total',
                                   '20')
    monkeypatch.undo()
    assert (out, code) == ('', 1)
    assert err == 'resource provider generation conflict (HTTP 409)\n'
    assert inventories(placement) == {'VCPU': full(total=10)}


# inventory list and show


def test_list_with_usage_and_long(placement):
    create_provider(placement)
    put_inventories(placement, RP1, {
        'VCPU': {'total': 8, 'reserved': 1, 'allocation_ratio': 16.0},
        'MEMORY_MB': {'total': 1001, 'reserved': 0,
                      'allocation_ratio': 1.5}})
    allocate(placement, {'VCPU': 10, 'MEMORY_MB': 100})
    rows = rows_by_class(placement.ok(
        'resource', 'provider', 'inventory', 'list', RP1, '-f', 'json'))
    assert rows == {
        'VCPU': dict(full(total=8, reserved=1, allocation_ratio=16.0),
                     used=10),
        'MEMORY_MB': dict(full(total=1001, allocation_ratio=1.5),
                          used=100)}
    long_rows = rows_by_class(placement.ok(
        'resource', 'provider', 'inventory', 'list', 'compute-1', '--long',
        '-f', 'json'))
    assert (long_rows['VCPU']['capacity'],
            long_rows['VCPU']['free']) == (112, 102)
    # int(1001 * 1.5) = 1501
    assert (long_rows['MEMORY_MB']['capacity'],
            long_rows['MEMORY_MB']['free']) == (1501, 1401)


def test_long_capacity_matches_what_the_server_allows(placement):
    create_provider(placement)
    put_inventories(placement, RP1, {
        'VCPU': {'total': 3, 'reserved': 1, 'allocation_ratio': 1.5}})
    free = rows_by_class(placement.ok(
        'resource', 'provider', 'inventory', 'list', RP1, '--long',
        '-f', 'json'))['VCPU']['free']
    assert free == 3
    # Exactly ``free`` fits; then nothing is left, and the server agrees.
    allocate(placement, {'VCPU': free})
    rows = rows_by_class(placement.ok(
        'resource', 'provider', 'inventory', 'list', RP1, '--long',
        '-f', 'json'))
    assert (rows['VCPU']['used'], rows['VCPU']['free']) == (3, 0)
    resp = requests.put(
        placement.endpoint + '/allocations/' + CONSUMER2,
        json={'allocations': {RP1: {'resources': {'VCPU': 1}}},
              'project_id': 'project-1', 'user_id': 'user-1',
              'consumer_generation': None, 'consumer_type': 'INSTANCE'},
        headers={'x-auth-token': 'admin',
                 'OpenStack-API-Version': 'placement 1.39'})
    assert resp.status_code == 409


def test_list_at_1_0(placement):
    create_provider(placement)
    rows = placement.ok('resource', 'provider', 'inventory', 'list', RP1,
                        '-f', 'json', version='1.0')
    assert rows == []


def test_show_with_usage(placement):
    create_provider(placement)
    put_inventories(placement, RP1, {'VCPU': {'total': 8}})
    allocate(placement, {'VCPU': 3})
    record = placement.ok('resource', 'provider', 'inventory', 'show',
                          'compute-1', 'VCPU', '-f', 'json')
    assert record == dict(full(total=8), used=3)


def test_show_class_not_in_inventory(placement):
    create_provider(placement)
    err, code = placement.fail('resource', 'provider', 'inventory', 'show',
                               RP1, 'VCPU')
    assert (err, code) == (
        'No inventory of class VCPU for %s (HTTP 404)\n' % RP1, 1)


# inventory delete


def test_delete_one_class(placement):
    create_provider(placement)
    put_inventories(placement, RP1, {'VCPU': {'total': 8},
                                     'DISK_GB': {'total': 10}})
    placement.ok('resource', 'provider', 'inventory', 'delete', RP1,
                 '--resource-class', 'VCPU', version='1.0')
    assert inventories(placement) == {'DISK_GB': full(total=10)}


def test_delete_all_from_1_5(placement):
    create_provider(placement)
    put_inventories(placement, RP1, {'VCPU': {'total': 8},
                                     'DISK_GB': {'total': 10}})
    out = placement.ok('resource', 'provider', 'inventory', 'delete',
                       'compute-1', version='1.5')
    assert out == ''
    assert inventories(placement) == {}


def test_delete_all_needs_the_class_at_1_4(placement):
    create_provider(placement)
    put_inventories(placement, RP1, {'VCPU': {'total': 8}})
    err, code = placement.fail('resource', 'provider', 'inventory',
                               'delete', RP1, version='1.4')
    assert code == 2
    assert err.endswith('error: the following arguments are required: '
                        '--resource-class\n')
    assert inventories(placement) == {'VCPU': full(total=8)}


def test_delete_in_use(placement):
    create_provider(placement)
    put_inventories(placement, RP1, {'VCPU': {'total': 8}})
    allocate(placement, {'VCPU': 1})
    err, code = placement.fail('resource', 'provider', 'inventory',
                               'delete', RP1, '--resource-class', 'VCPU')
    assert code == 1
    assert err == ("Unable to delete inventory of class VCPU: Inventory for "
                   "'VCPU' on resource provider '%s' in use. (HTTP 409)\n"
                   % RP1)
    assert inventories(placement) == {'VCPU': full(total=8)}
