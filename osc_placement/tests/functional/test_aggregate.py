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

"""Resource provider aggregate commands against a real Placement."""

import pytest

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
AGG1 = 'dddddddd-dddd-4ddd-8ddd-000000000001'
AGG2 = 'dddddddd-dddd-4ddd-8ddd-000000000002'
AGG3 = 'dddddddd-dddd-4ddd-8ddd-000000000003'


@pytest.fixture
def provider(placement):
    placement.api('POST', '/resource_providers',
                  body={'name': 'compute-1', 'uuid': RP1})
    return placement


def aggregates(placement):
    body = placement.api('GET', '/resource_providers/%s/aggregates' % RP1,
                         version='1.19')
    return sorted(body['aggregates']), body['resource_provider_generation']


def uuids(rows):
    return sorted(row['uuid'] for row in rows)


def test_list_needs_1_1(provider):
    err, code = provider.fail('resource', 'provider', 'aggregate', 'list',
                              RP1, version='1.0')
    assert (err, code) == (
        'Operation or argument is not supported with version 1.0; '
        'requires at least version 1.1\n', 1)


def test_list_at_1_1_and_default(provider):
    assert provider.ok('resource', 'provider', 'aggregate', 'list', RP1,
                       '-f', 'json', version='1.1') == []
    provider.api('PUT', '/resource_providers/%s/aggregates' % RP1,
                 version='1.1', body=[AGG1, AGG2])
    assert uuids(provider.ok('resource', 'provider', 'aggregate', 'list',
                             'compute-1', '-f', 'json')) == [AGG1, AGG2]


def test_list_unknown_provider(placement):
    err, code = placement.fail('resource', 'provider', 'aggregate', 'list',
                               RP1, version='1.1')
    assert (err, code) == (
        'No resource provider with uuid %s found (HTTP 404)\n' % RP1, 1)


def test_set_needs_1_1(provider):
    err, code = provider.fail('resource', 'provider', 'aggregate', 'set',
                              RP1, '--aggregate', AGG1, version='1.0')
    assert code == 1
    assert err.endswith('requires at least version 1.1\n')
    assert aggregates(provider) == ([], 0)


def test_set_at_1_1_replaces_the_aggregates(provider):
    provider.api('PUT', '/resource_providers/%s/aggregates' % RP1,
                 version='1.1', body=[AGG3])
    rows = provider.ok('resource', 'provider', 'aggregate', 'set', RP1,
                       '--aggregate', AGG1, '--aggregate', AGG2,
                       '-f', 'json', version='1.1')
    assert uuids(rows) == [AGG1, AGG2]
    assert aggregates(provider)[0] == [AGG1, AGG2]


def test_set_without_aggregate_clears(provider):
    provider.api('PUT', '/resource_providers/%s/aggregates' % RP1,
                 version='1.1', body=[AGG1])
    assert provider.ok('resource', 'provider', 'aggregate', 'set', RP1,
                       '-f', 'json', version='1.1') == []
    assert aggregates(provider)[0] == []


def test_set_with_generation_at_1_19(provider):
    generation = aggregates(provider)[1]
    rows = provider.ok('resource', 'provider', 'aggregate', 'set',
                       'compute-1', '--aggregate', AGG3, '--generation',
                       str(generation), '-f', 'json', version='1.19')
    assert uuids(rows) == [AGG3]
    assert aggregates(provider) == ([AGG3], generation + 1)


def test_set_at_default_version_with_generation(provider):
    provider.ok('resource', 'provider', 'aggregate', 'set', RP1,
                '--aggregate', AGG1, '--generation', '0')
    assert aggregates(provider) == ([AGG1], 1)


def test_set_stale_generation_is_refused(provider):
    # Another client wrote the aggregates since generation 0 was read.
    provider.api('PUT', '/resource_providers/%s/aggregates' % RP1,
                 version='1.19', body={'aggregates': [AGG1],
                                       'resource_provider_generation': 0})
    err, code = provider.fail('resource', 'provider', 'aggregate', 'set',
                              RP1, '--aggregate', AGG2, '--generation', '0',
                              version='1.19')
    assert (err, code) == (
        "Resource provider's generation already changed. Please update the "
        "generation and try again. (HTTP 409)\n", 1)
    assert aggregates(provider) == ([AGG1], 1)


def test_set_without_generation_from_1_19(provider):
    err, code = provider.fail('resource', 'provider', 'aggregate', 'set',
                              RP1, '--aggregate', AGG1, version='1.19')
    assert (err, code) == ('A generation must be specified.\n', 1)
    assert aggregates(provider) == ([], 0)


def test_generation_needs_1_19(provider):
    err, code = provider.fail('resource', 'provider', 'aggregate', 'set',
                              RP1, '--aggregate', AGG1, '--generation', '0',
                              version='1.18')
    assert (err, code) == (
        'Operation or argument is not supported with version 1.18; '
        'requires at least version 1.19\n', 1)
    assert aggregates(provider) == ([], 0)


def test_set_malformed_aggregate_is_refused_by_the_server(provider):
    err, code = provider.fail('resource', 'provider', 'aggregate', 'set',
                              RP1, '--aggregate', 'agg-one', version='1.1')
    assert code == 1
    assert err.endswith('(HTTP 400)\n') and "'agg-one'" in err
    assert aggregates(provider) == ([], 0)
