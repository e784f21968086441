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

"""Usage commands against a real Placement."""

import pytest

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
RP2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
C1 = 'cccccccc-cccc-4ccc-8ccc-000000000001'
C2 = 'cccccccc-cccc-4ccc-8ccc-000000000002'
C3 = 'cccccccc-cccc-4ccc-8ccc-000000000003'


@pytest.fixture
def cloud(placement):
    """Two providers; three consumers of two projects and two types.

    C1: project-1/user-1, INSTANCE, VCPU 2 + MEMORY_MB 512 on RP1
    C2: project-1/user-2, MIGRATION, VCPU 1 on RP2
    C3: project-2/user-1, INSTANCE, DISK_GB 10 on RP1
    """
    for uuid, name in ((RP1, 'compute-1'), (RP2, 'compute-2')):
        placement.api('POST', '/resource_providers',
                      body={'name': name, 'uuid': uuid})
        placement.api('PUT', '/resource_providers/%s/inventories' % uuid,
                      body={'resource_provider_generation': 0,
                            'inventories': {'VCPU': {'total': 8},
                                            'MEMORY_MB': {'total': 4096},
                                            'DISK_GB': {'total': 100}}})
    for consumer, rp, resources, project, user, ctype in (
            (C1, RP1, {'VCPU': 2, 'MEMORY_MB': 512}, 'project-1', 'user-1',
             'INSTANCE'),
            (C2, RP2, {'VCPU': 1}, 'project-1', 'user-2', 'MIGRATION'),
            (C3, RP1, {'DISK_GB': 10}, 'project-2', 'user-1', 'INSTANCE')):
        placement.api('PUT', '/allocations/' + consumer, body={
            'allocations': {rp: {'resources': resources}},
            'project_id': project, 'user_id': user,
            'consumer_generation': None, 'consumer_type': ctype})
    return placement


def as_dict(rows, key='resource_class', value='usage'):
    return {row[key]: row[value] for row in rows}


# resource provider usage show


def test_provider_usage_at_default_version(cloud):
    rows = cloud.ok('resource', 'provider', 'usage', 'show', RP1,
                    '-f', 'json')
    assert as_dict(rows) == {'VCPU': 2, 'MEMORY_MB': 512, 'DISK_GB': 10}


def test_provider_usage_by_name_at_1_0(cloud):
    rows = cloud.ok('resource', 'provider', 'usage', 'show', 'compute-2',
                    '-f', 'json', version='1.0')
    assert as_dict(rows) == {'VCPU': 1, 'MEMORY_MB': 0, 'DISK_GB': 0}


def test_provider_usage_unknown_provider(placement):
    err, code = placement.fail('resource', 'provider', 'usage', 'show',
                               RP1)
    assert (err, code) == (
        'No resource provider with uuid %s found: No resource provider '
        'with uuid %s found (HTTP 404)\n' % (RP1, RP1), 1)


# resource usage show


def test_project_usage_at_1_9(cloud):
    rows = cloud.ok('resource', 'usage', 'show', 'project-1', '-f', 'json',
                    version='1.9')
    assert as_dict(rows) == {'VCPU': 3, 'MEMORY_MB': 512}


def test_project_and_user_usage_at_default_version(cloud):
    rows = cloud.ok('resource', 'usage', 'show', 'project-1', '--user-id',
                    'user-2', '-f', 'json')
    assert as_dict(rows) == {'VCPU': 1}


def test_project_usage_needs_1_9(cloud):
    err, code = cloud.fail('resource', 'usage', 'show', 'project-1',
                           version='1.8')
    assert (err, code) == (
        'Operation or argument is not supported with version 1.8; '
        'requires at least version 1.9\n', 1)


def test_project_usage_by_consumer_type_at_1_38(cloud):
    rows = cloud.ok('resource', 'usage', 'show', 'project-1', '-f', 'json',
                    version='1.38')
    assert sorted(rows, key=lambda r: (r['consumer_type'],
                                       r['resource_class'])) == [
        {'consumer_type': 'INSTANCE', 'resource_class': 'MEMORY_MB',
         'usage': 512, 'consumer_count': 1},
        {'consumer_type': 'INSTANCE', 'resource_class': 'VCPU',
         'usage': 2, 'consumer_count': 1},
        {'consumer_type': 'MIGRATION', 'resource_class': 'VCPU',
         'usage': 1, 'consumer_count': 1}]


def test_project_usage_table_at_latest(cloud):
    out = cloud.ok('resource', 'usage', 'show', 'project-2',
                   version='latest')
    lines = [[cell.strip() for cell in line.strip('|').split('|')]
             for line in out.splitlines() if line.startswith('|')]
    assert lines == [
        ['consumer_type', 'resource_class', 'usage', 'consumer_count'],
        ['INSTANCE', 'DISK_GB', '10', '1']]


def test_consumer_type_filter_at_1_38(cloud):
    rows = cloud.ok('resource', 'usage', 'show', 'project-1',
                    '--consumer-type', 'MIGRATION', '-f', 'json',
                    version='1.38')
    assert rows == [{'consumer_type': 'MIGRATION', 'resource_class': 'VCPU',
                     'usage': 1, 'consumer_count': 1}]


def test_consumer_type_all_sums_every_type(cloud):
    rows = cloud.ok('resource', 'usage', 'show', 'project-1',
                    '--consumer-type', 'all', '-f', 'json', version='1.38')
    assert {(r['consumer_type'], r['resource_class']): (r['usage'],
                                                        r['consumer_count'])
            for r in rows} == {('all', 'VCPU'): (3, 2),
                               ('all', 'MEMORY_MB'): (512, 2)}


def test_consumer_type_needs_1_38(cloud):
    err, code = cloud.fail('resource', 'usage', 'show', 'project-1',
                           '--consumer-type', 'INSTANCE', version='1.37')
    assert (err, code) == (
        'Operation or argument is not supported with version 1.37; '
        'requires at least version 1.38\n', 1)


def test_consumer_type_refused_by_the_server(cloud):
    err, code = cloud.fail('resource', 'usage', 'show', 'project-1',
                           '--consumer-type', 'not a type!',
                           version='1.38')
    assert code == 1
    assert len(err.splitlines()) == 1 and err.endswith('(HTTP 400)\n')


def test_unknown_project_has_no_usage(cloud):
    assert cloud.ok('resource', 'usage', 'show', 'project-x', '-f', 'json',
                    version='1.38') == []
