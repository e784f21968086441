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

"""Allocation commands against a real Placement."""

import pytest

from osc_placement import http as placement_http

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
RP2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
C1 = 'cccccccc-cccc-4ccc-8ccc-000000000001'
C2 = 'cccccccc-cccc-4ccc-8ccc-000000000002'
C3 = 'cccccccc-cccc-4ccc-8ccc-000000000003'
OWNER = ('--project-id', 'project-1', '--user-id', 'user-1')
ALLOC = 'resource', 'provider', 'allocation'


def provider(placement, uuid, name, **inventory):
    placement.api('POST', '/resource_providers',
                  body={'name': name, 'uuid': uuid})
    placement.api('PUT', '/resource_providers/%s/inventories' % uuid,
                  body={'resource_provider_generation': 0,
                        'inventories': {rc: {'total': total}
                                        for rc, total in inventory.items()}})


@pytest.fixture
def two_providers(placement):
    provider(placement, RP1, 'compute-1', VCPU=8, MEMORY_MB=4096)
    provider(placement, RP2, 'storage-1', DISK_GB=100)
    return placement


def server_allocations(placement, consumer, version='1.38'):
    return placement.api('GET', '/allocations/' + consumer,
                         version=version)


def put_allocations(placement, consumer, allocations, generation=None,
                    version='1.28'):
    body = {'allocations': {rp: {'resources': res}
                            for rp, res in allocations.items()},
            'project_id': 'project-1', 'user_id': 'user-1',
            'consumer_generation': generation}
    placement.api('PUT', '/allocations/' + consumer, body=body,
                  version=version)


def resources_of(rows):
    return {row['resource_provider']: row['resources'] for row in rows}


# allocation set

def test_set_at_1_0_sends_a_list_and_needs_no_owner(two_providers):
    p = two_providers
    rows = p.ok(*ALLOC, 'set', C1,
                '--allocation', 'rp=%s,VCPU=2,MEMORY_MB=512' % RP1,
                '--allocation', 'rp=%s,DISK_GB=20' % RP2, '-f', 'json',
                version='1.0')
    assert resources_of(rows) == {RP1: {'VCPU': 2, 'MEMORY_MB': 512},
                                  RP2: {'DISK_GB': 20}}
    assert set(rows[0]) == {'resource_provider', 'generation', 'resources'}
    assert resources_of([dict(resource_provider=k, **v) for k, v in
                         server_allocations(p, C1)['allocations'].items()]
                        ) == resources_of(rows)


def test_set_at_1_7_warns_that_the_owner_is_ignored(two_providers):
    out, err, code = two_providers.run(
        *ALLOC, 'set', C1, '--allocation', 'rp=%s,VCPU=1' % RP1, *OWNER,
        version='1.7')
    assert code == 0
    assert '--project-id and --user-id options do not affect allocation ' \
        'for --os-placement-api-version less than 1.8' in err


def test_set_from_1_8_requires_the_owner(two_providers):
    out, err, code = two_providers.run(
        *ALLOC, 'set', C1, '--allocation', 'rp=%s,VCPU=1' % RP1,
        version='1.8')
    assert code == 2
    assert 'the following arguments are required: --project-id, ' \
        '--user-id' in err
    assert server_allocations(two_providers, C1)['allocations'] == {}


def test_set_at_1_8_stores_the_owner(two_providers):
    rows = two_providers.ok(*ALLOC, 'set', C1, '--allocation',
                            'rp=%s,VCPU=1' % RP1, *OWNER, '-f', 'json',
                            version='1.8')
    # The owner is only shown from 1.12.
    assert 'project_id' not in rows[0]
    stored = server_allocations(two_providers, C1)
    assert (stored['project_id'], stored['user_id']) == ('project-1',
                                                         'user-1')


@pytest.mark.parametrize('version', ['1.11', '1.12'])
def test_set_body_shape_changes_at_1_12(two_providers, version):
    rows = two_providers.ok(
        *ALLOC, 'set', C1, '--allocation', 'rp=%s,VCPU=1' % RP1,
        '--allocation', 'rp=%s,MEMORY_MB=64' % RP1, *OWNER, '-f', 'json',
        version=version)
    assert resources_of(rows) == {RP1: {'VCPU': 1, 'MEMORY_MB': 64}}
    assert ('project_id' in rows[0]) == (version == '1.12')


def test_set_at_1_28_replaces_an_existing_consumer(two_providers):
    p = two_providers
    put_allocations(p, C1, {RP1: {'VCPU': 4}})
    rows = p.ok(*ALLOC, 'set', C1, '--allocation', 'rp=storage-1,DISK_GB=5',
                *OWNER, '-f', 'json', version='1.28')
    assert resources_of(rows) == {RP2: {'DISK_GB': 5}}
    assert server_allocations(p, C1)['consumer_generation'] == 2


def test_set_at_1_37_ignores_the_consumer_type(two_providers):
    out, err, code = two_providers.run(
        *ALLOC, 'set', C1, '--allocation', 'rp=%s,VCPU=1' % RP1, *OWNER,
        '--consumer-type', 'INSTANCE', version='1.37')
    assert code == 0
    assert '--consumer-type option does not affect allocation' in err
    assert server_allocations(two_providers, C1)['consumer_type'] == \
        'unknown'


def test_set_from_1_38_requires_and_shows_the_consumer_type(two_providers):
    p = two_providers
    out, err, code = p.run(*ALLOC, 'set', C1, '--allocation',
                           'rp=%s,VCPU=1' % RP1, *OWNER, version='1.38')
    assert code == 2
    assert 'the following arguments are required: --consumer-type' in err
    rows = p.ok(*ALLOC, 'set', C1, '--allocation', 'rp=%s,VCPU=1' % RP1,
                *OWNER, '--consumer-type', 'MIGRATION', '-f', 'json',
                version='1.38')
    assert rows[0]['consumer_type'] == 'MIGRATION'


def test_set_capacity_exceeded(two_providers):
    err, code = two_providers.fail(
        *ALLOC, 'set', C1, '--allocation', 'rp=%s,DISK_GB=1000' % RP2,
        *OWNER, version='1.28')
    assert code == 1
    assert err.strip().endswith('The requested amount would exceed the '
                                'capacity. (HTTP 409)')


def test_set_malformed_value_sends_nothing(two_providers, monkeypatch):
    sent = []
    original = placement_http.SessionClient.request

    def spy(self, method, url, **kwargs):
        sent.append((method, url))
        return original(self, method, url, **kwargs)

    monkeypatch.setattr(placement_http.SessionClient, 'request', spy)
    err, code = two_providers.fail(
        *ALLOC, 'set', C1, '--allocation', 'rp=%s,VCPU=two' % RP1, *OWNER,
        version='1.28')
    assert code == 1 and "'two'" in err
    assert sent == []


def test_concurrent_writers_the_second_gets_409(two_providers, monkeypatch):
    """Two writers of one consumer: the one that read first loses.

    The CLI reads the consumer generation, then, just before its PUT,
    another writer (a direct API call) replaces the consumer's allocations.
    The CLI's PUT carries the stale generation: Placement refuses it, the
    CLI reports it once (no retry) and the other writer's allocations stay.
    """
    p = two_providers
    put_allocations(p, C1, {RP1: {'VCPU': 1}})
    original = placement_http.SessionClient.request
    puts = []

    def other_writer_first(self, method, url, **kwargs):
        if method == 'PUT' and url == '/allocations/' + C1:
            puts.append(kwargs['json']['consumer_generation'])
            put_allocations(p, C1, {RP1: {'VCPU': 3}}, generation=1)
        return original(self, method, url, **kwargs)

    monkeypatch.setattr(placement_http.SessionClient, 'request',
                        other_writer_first)
    out, err, code = p.run(*ALLOC, 'set', C1, '--allocation',
                           'rp=%s,DISK_GB=7' % RP2, *OWNER, version='1.28')
    assert (out, code) == ('', 1)
    assert puts == [1]  # one attempt, with the generation it read
    assert len(err.splitlines()) == 1
    assert 'consumer generation conflict' in err
    assert err.endswith('(HTTP 409)\n')
    stored = server_allocations(p, C1)
    assert stored['allocations'] == {
        RP1: {'resources': {'VCPU': 3}, 'generation': 3}}
    assert stored['consumer_generation'] == 2


def test_unset_concurrent_writer_wins(two_providers, monkeypatch):
    p = two_providers
    put_allocations(p, C1, {RP1: {'VCPU': 1}, RP2: {'DISK_GB': 1}})
    original = placement_http.SessionClient.request

    def other_writer_first(self, method, url, **kwargs):
        if method == 'PUT':
            put_allocations(p, C1, {RP2: {'DISK_GB': 9}}, generation=1)
        return original(self, method, url, **kwargs)

    monkeypatch.setattr(placement_http.SessionClient, 'request',
                        other_writer_first)
    err, code = p.fail(*ALLOC, 'unset', C1, '--provider', RP1,
                       version='1.28')
    assert code == 1 and 'consumer generation conflict' in err
    assert server_allocations(p, C1)['allocations'] == {
        RP2: {'resources': {'DISK_GB': 9}, 'generation': 3}}


# allocation unset

@pytest.fixture
def consumer(two_providers):
    put_allocations(two_providers, C1, {RP1: {'VCPU': 2, 'MEMORY_MB': 256},
                                        RP2: {'DISK_GB': 10}})
    return two_providers


def test_unset_below_1_12_is_refused(consumer):
    err, code = consumer.fail(*ALLOC, 'unset', C1, version='1.11')
    assert err == ('Operation or argument is not supported with version '
                   '1.11; requires at least version 1.12\n')
    assert len(server_allocations(consumer, C1)['allocations']) == 2


@pytest.mark.parametrize('version', ['1.12', '1.28'])
def test_unset_a_provider_by_name(consumer, version):
    rows = consumer.ok(*ALLOC, 'unset', C1, '--provider', 'storage-1',
                       '-f', 'json', version=version)
    assert resources_of(rows) == {RP1: {'VCPU': 2, 'MEMORY_MB': 256}}
    assert list(server_allocations(consumer, C1)['allocations']) == [RP1]


def test_unset_a_class_everywhere(consumer):
    rows = consumer.ok(*ALLOC, 'unset', C1, '--resource-class', 'VCPU',
                       '--resource-class', 'DISK_GB', '-f', 'json',
                       version='1.28')
    assert resources_of(rows) == {RP1: {'MEMORY_MB': 256}}


@pytest.mark.parametrize('version', ['1.12', '1.28'])
def test_unset_everything(consumer, version):
    rows = consumer.ok(*ALLOC, 'unset', C1, '-f', 'json', version=version)
    assert rows == []
    assert server_allocations(consumer, C1)['allocations'] == {}


def test_unset_unknown_provider_and_class_are_ignored(consumer):
    rows = consumer.ok(*ALLOC, 'unset', C1, '--provider', RP2,
                       '--resource-class', 'VCPU', '-f', 'json',
                       version='1.28')
    assert resources_of(rows) == {RP1: {'VCPU': 2, 'MEMORY_MB': 256},
                                  RP2: {'DISK_GB': 10}}


def test_unset_at_1_38_keeps_the_consumer_type(two_providers):
    p = two_providers
    p.ok(*ALLOC, 'set', C1, '--allocation', 'rp=%s,VCPU=1' % RP1,
         '--allocation', 'rp=%s,DISK_GB=1' % RP2, *OWNER,
         '--consumer-type', 'INSTANCE', version='1.38')
    rows = p.ok(*ALLOC, 'unset', C1, '--provider', RP2, '-f', 'json',
                version='1.38')
    assert [(r['resource_provider'], r['consumer_type']) for r in rows] == [
        (RP1, 'INSTANCE')]


def test_unset_at_1_38_of_an_untyped_consumer_fails_as_the_reference(
        consumer):
    """A consumer written before 1.38 reads back as type 'unknown'.

    Like the reference, unset sends that value back and Placement refuses
    it; the allocations are left untouched.
    """
    err, code = consumer.fail(*ALLOC, 'unset', C1, '--provider', RP2,
                              version='1.38')
    assert code == 1
    assert "'unknown' does not match" in err and err.endswith(
        '(HTTP 400)\n')
    assert len(server_allocations(consumer, C1)['allocations']) == 2


@pytest.mark.parametrize('version, message', [
    ('1.12', "No allocations for consumer '%s' (HTTP 404)\n" % C3),
    ('1.28', "No allocations for consumer '%s'\n" % C3),
])
def test_unset_consumer_without_allocations(consumer, version, message):
    err, code = consumer.fail(*ALLOC, 'unset', C3, version=version)
    assert (err, code) == (message, 1)


# allocation show

@pytest.mark.parametrize('version, columns', [
    ('1.0', ['resource_provider', 'generation', 'resources']),
    ('1.12', ['resource_provider', 'generation', 'resources', 'project_id',
              'user_id']),
    ('1.38', ['resource_provider', 'generation', 'resources', 'project_id',
              'user_id', 'consumer_type']),
])
def test_show_columns_per_version(consumer, version, columns):
    rows = consumer.ok(*ALLOC, 'show', C1, '-f', 'json', version=version)
    assert [list(row) for row in rows] == [columns, columns]
    assert resources_of(rows) == {RP1: {'VCPU': 2, 'MEMORY_MB': 256},
                                  RP2: {'DISK_GB': 10}}


# allocation delete

def test_delete_one(consumer):
    assert consumer.ok(*ALLOC, 'delete', C1) == ''
    assert server_allocations(consumer, C1)['allocations'] == {}


def test_delete_several_reports_each_failure(consumer):
    put_allocations(consumer, C2, {RP1: {'VCPU': 1}})
    out, err, code = consumer.run(*ALLOC, 'delete', C1, C3, C2)
    assert (out, code) == ('', 1)
    assert err.splitlines() == [
        "Failed to delete allocations of consumer %s: No allocations for "
        "consumer '%s' (HTTP 404)" % (C3, C3),
        'Failed to delete 1 of 3 allocations.']
    for consumer_uuid in (C1, C2):
        assert server_allocations(consumer, consumer_uuid)[
            'allocations'] == {}


# resource provider allocation list

def test_list_by_provider(consumer):
    put_allocations(consumer, C2, {RP1: {'VCPU': 1}})
    rows = consumer.ok(*ALLOC, 'list', 'compute-1', '-f', 'json',
                       version='1.12')
    assert sorted(rows, key=lambda r: r['consumer_uuid']) == [
        {'consumer_uuid': C1, 'resources': {'VCPU': 2, 'MEMORY_MB': 256}},
        {'consumer_uuid': C2, 'resources': {'VCPU': 1}}]


def test_list_by_provider_long(consumer):
    placement = consumer
    placement.api('PUT', '/allocations/' + C2, version='1.38', body={
        'allocations': {RP1: {'resources': {'VCPU': 1}}},
        'project_id': 'project-2', 'user_id': 'user-2',
        'consumer_generation': None, 'consumer_type': 'MIGRATION'})
    rows = placement.ok(*ALLOC, 'list', RP1, '--long', '-f', 'json',
                        version='1.38')
    assert sorted((r['consumer_uuid'], r['project_id'], r['user_id'],
                   r['consumer_type']) for r in rows) == [
        (C1, 'project-1', 'user-1', 'unknown'),
        (C2, 'project-2', 'user-2', 'MIGRATION')]
    rows = placement.ok(*ALLOC, 'list', RP1, '--long', '-f', 'json',
                        version='1.12')
    assert 'consumer_type' not in rows[0] and 'project_id' in rows[0]
    err, code = placement.fail(*ALLOC, 'list', RP1, '--long',
                               version='1.11')
    assert 'requires at least version 1.12' in err


def test_list_unknown_provider_name(consumer):
    err, code = consumer.fail(*ALLOC, 'list', 'nope')
    assert (err, code) == (
        "No resource provider with name or UUID 'nope' found.\n", 1)


def test_show_at_the_negotiated_versions(consumer):
    rows = consumer.ok(*ALLOC, 'show', C1, '-f', 'json')
    # '1' negotiates up to 1.29: owner shown, no consumer type.
    assert list(rows[0]) == ['resource_provider', 'generation', 'resources',
                             'project_id', 'user_id']
    rows = consumer.ok(*ALLOC, 'show', C1, '-f', 'json', version='latest')
    assert rows[0]['consumer_type'] == 'unknown'
