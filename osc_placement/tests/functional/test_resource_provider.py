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

"""Resource provider commands against a real Placement."""

import pytest

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
RP2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
RP3 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000003'
AGG1 = 'dddddddd-dddd-4ddd-8ddd-000000000001'
AGG2 = 'dddddddd-dddd-4ddd-8ddd-000000000002'
GATE = ('Operation or argument is not supported with version %s; '
        'requires at least version %s')


def make_rp(placement, name, uuid, parent=None):
    body = {'name': name, 'uuid': uuid}
    if parent:
        body['parent_provider_uuid'] = parent
    placement.api('POST', '/resource_providers', body=body)


@pytest.fixture
def cloud(placement):
    """compute-1 (AVX, agg1, 8 VCPU) with a child; compute-2 (agg2)."""
    make_rp(placement, 'compute-1', RP1)
    make_rp(placement, 'compute-2', RP2)
    make_rp(placement, 'numa-0', RP3, parent=RP1)
    placement.api('PUT', '/resource_providers/%s/inventories' % RP1,
                  body={'resource_provider_generation': 0,
                        'inventories': {'VCPU': {'total': 8}}})
    placement.api('PUT', '/resource_providers/%s/traits' % RP1,
                  body={'resource_provider_generation': 1,
                        'traits': ['HW_CPU_X86_AVX']})
    placement.api('PUT', '/resource_providers/%s/aggregates' % RP1,
                  body={'resource_provider_generation': 2,
                        'aggregates': [AGG1]})
    placement.api('PUT', '/resource_providers/%s/aggregates' % RP2,
                  body={'resource_provider_generation': 0,
                        'aggregates': [AGG2]})
    return placement


def names(rows):
    return sorted(r['name'] for r in rows)


def test_list_at_default_negotiated_version(placement):
    make_rp(placement, 'compute-1', RP1)
    rows = placement.ok('resource', 'provider', 'list', '-f', 'json')
    # Negotiation stops at 1.29: the tree columns are there.
    assert rows == [{'uuid': RP1, 'name': 'compute-1', 'generation': 0,
                     'root_provider_uuid': RP1,
                     'parent_provider_uuid': None}]


def test_list_at_1_0_has_three_columns(placement):
    make_rp(placement, 'compute-1', RP1)
    rows = placement.ok('resource', 'provider', 'list', '-f', 'json',
                        version='1.0')
    assert rows == [{'uuid': RP1, 'name': 'compute-1', 'generation': 0}]


def test_list_filters(cloud):
    run = cloud.ok
    assert names(run('resource', 'provider', 'list', '--name', 'compute-2',
                     '-f', 'json')) == ['compute-2']
    assert names(run('resource', 'provider', 'list', '--uuid', RP1,
                     '-f', 'json')) == ['compute-1']
    assert names(run('resource', 'provider', 'list', '--resource',
                     'VCPU=4', '-f', 'json', version='1.4')) == ['compute-1']
    assert names(run('resource', 'provider', 'list', '--in-tree', RP3,
                     '-f', 'json', version='1.14')) == ['compute-1',
                                                        'numa-0']
    assert names(run('resource', 'provider', 'list', '--required',
                     'HW_CPU_X86_AVX', '-f', 'json',
                     version='1.18')) == ['compute-1']
    assert names(run('resource', 'provider', 'list', '--forbidden',
                     'HW_CPU_X86_AVX', '-f', 'json',
                     version='1.22')) == ['compute-2', 'numa-0']
    assert names(run('resource', 'provider', 'list', '--member-of',
                     AGG1 + ',' + AGG2, '-f', 'json',
                     version='1.3')) == ['compute-1', 'compute-2']
    assert names(run('resource', 'provider', 'list', '--member-of', AGG1,
                     '--member-of', AGG2, '-f', 'json',
                     version='1.24')) == []


def test_list_any_of_required_traits_at_1_39(cloud):
    rows = cloud.ok('resource', 'provider', 'list', '--required',
                    'HW_CPU_X86_AVX,HW_CPU_X86_SSE', '-f', 'json',
                    version='1.39')
    assert names(rows) == ['compute-1']
    err, code = cloud.fail('resource', 'provider', 'list', '--required',
                           'HW_CPU_X86_AVX,HW_CPU_X86_SSE', version='1.38')
    assert (err, code) == (GATE % ('1.38', '1.39') + '\n', 1)


def test_list_forbidden_aggregate_from_1_32(cloud):
    rows = cloud.ok('resource', 'provider', 'list', '--member-of',
                    '!' + AGG1, '-f', 'json', version='1.32')
    assert names(rows) == ['compute-2', 'numa-0']
    rows = cloud.ok('resource', 'provider', 'list', '--member-of',
                    '!%s,%s' % (AGG1, AGG2), '-f', 'json', version='1.32')
    assert names(rows) == ['numa-0']
    err, code = cloud.fail('resource', 'provider', 'list', '--member-of',
                           '!' + AGG1, version='1.31')
    assert (err, code) == (GATE % ('1.31', '1.32') + '\n', 1)


@pytest.mark.parametrize('option,value,below,since', [
    ('--resource', 'VCPU=1', '1.3', '1.4'),
    ('--in-tree', RP1, '1.13', '1.14'),
    ('--required', 'HW_CPU_X86_AVX', '1.17', '1.18'),
    ('--forbidden', 'HW_CPU_X86_AVX', '1.21', '1.22'),
    ('--member-of', AGG1, '1.2', '1.3'),
])
def test_list_gates(cloud, option, value, below, since):
    err, code = cloud.fail('resource', 'provider', 'list', option, value,
                           version=below)
    assert (err, code) == (GATE % (below, since) + '\n', 1)


def test_repeated_member_of_needs_1_24(cloud):
    err, code = cloud.fail('resource', 'provider', 'list', '--member-of',
                           AGG1, '--member-of', AGG2, version='1.23')
    assert (err, code) == (GATE % ('1.23', '1.24') + '\n', 1)


def test_create_show_set_delete(placement):
    created = placement.ok('resource', 'provider', 'create', 'compute-1',
                           '--uuid', RP1, '-f', 'json', version='1.14')
    assert created == {'uuid': RP1, 'name': 'compute-1', 'generation': 0,
                       'root_provider_uuid': RP1,
                       'parent_provider_uuid': None}
    child = placement.ok('resource', 'provider', 'create', 'numa-0',
                         '--parent-provider', 'compute-1', '-f', 'json',
                         version='1.14')
    assert child['parent_provider_uuid'] == RP1
    assert child['root_provider_uuid'] == RP1
    shown = placement.ok('resource', 'provider', 'show', 'numa-0',
                         '-f', 'json')
    assert shown['uuid'] == child['uuid']
    renamed = placement.ok('resource', 'provider', 'set', RP1, '--name',
                           'compute-one', '-f', 'json')
    assert renamed['name'] == 'compute-one'
    assert placement.api('GET', '/resource_providers/' + RP1)['name'] == \
        'compute-one'
    err, code = placement.fail('resource', 'provider', 'delete', RP1)
    assert code == 1 and 'child resource providers' in err
    placement.ok('resource', 'provider', 'delete', 'numa-0')
    placement.ok('resource', 'provider', 'delete', 'compute-one')
    assert placement.api('GET', '/resource_providers')[
        'resource_providers'] == []


def test_create_parent_needs_1_14(placement):
    make_rp(placement, 'compute-1', RP1)
    err, code = placement.fail('resource', 'provider', 'create', 'child',
                               '--parent-provider', RP1, version='1.13')
    assert (err, code) == (GATE % ('1.13', '1.14') + '\n', 1)
    assert len(placement.api('GET', '/resource_providers')[
        'resource_providers']) == 1


def test_show_allocations_of_an_idle_provider_prints_empty_dict(placement):
    make_rp(placement, 'compute-1', RP1)
    out = placement.ok('resource', 'provider', 'show', '--allocations', RP1,
                       '-c', 'allocations', '-f', 'value')
    assert out == '{}\n'


def test_unknown_name_is_one_clear_line(placement):
    err, code = placement.fail('resource', 'provider', 'show', 'nope')
    assert (err, code) == (
        "No resource provider with name or UUID 'nope' found.\n", 1)


def test_set_reparent_and_no_parent_at_1_37(placement):
    make_rp(placement, 'compute-1', RP1)
    make_rp(placement, 'compute-2', RP2)
    make_rp(placement, 'numa-0', RP3, parent=RP1)
    moved = placement.ok('resource', 'provider', 'set', 'numa-0', '--name',
                         'numa-0', '--parent-provider', 'compute-2',
                         '-f', 'json', version='1.37')
    assert moved['parent_provider_uuid'] == RP2
    assert moved['root_provider_uuid'] == RP2
    orphan = placement.ok('resource', 'provider', 'set', RP3, '--name',
                          'numa-0', '--no-parent', '-f', 'json',
                          version='1.37')
    assert orphan['parent_provider_uuid'] is None
    assert orphan['root_provider_uuid'] == RP3
    assert placement.api('GET', '/resource_providers/' + RP3)[
        'parent_provider_uuid'] is None


def test_no_parent_needs_1_37(placement):
    make_rp(placement, 'compute-1', RP1)
    make_rp(placement, 'numa-0', RP3, parent=RP1)
    err, code = placement.fail('resource', 'provider', 'set', RP3, '--name',
                               'numa-0', '--no-parent', version='1.36')
    assert (err, code) == (GATE % ('1.36', '1.37') + '\n', 1)
    assert placement.api('GET', '/resource_providers/' + RP3)[
        'parent_provider_uuid'] == RP1


def test_reparenting_before_1_37_is_refused_by_the_server(placement):
    make_rp(placement, 'compute-1', RP1)
    make_rp(placement, 'compute-2', RP2)
    make_rp(placement, 'numa-0', RP3, parent=RP1)
    err, code = placement.fail('resource', 'provider', 'set', RP3, '--name',
                               'numa-0', '--parent-provider', RP2,
                               version='1.36')
    assert code == 1 and 're-parenting a provider is not currently ' \
        'allowed' in err and err.endswith('(HTTP 400)\n')


def test_delete_several_reports_each_failure(placement):
    make_rp(placement, 'compute-1', RP1)
    make_rp(placement, 'compute-2', RP2)
    out, err, code = placement.run('resource', 'provider', 'delete',
                                   'compute-1', 'ghost', RP2)
    assert code == 1
    assert err.splitlines() == [
        "Failed to delete resource provider ghost: No resource provider "
        "with name or UUID 'ghost' found.",
        'Failed to delete 1 of 3 resource providers.']
    assert placement.api('GET', '/resource_providers')[
        'resource_providers'] == []


def test_tree_show(cloud):
    make_rp(cloud, 'numa-1', 'aaaaaaaa-aaaa-4aaa-8aaa-000000000004',
            parent=RP1)
    make_rp(cloud, 'pf-0', 'aaaaaaaa-aaaa-4aaa-8aaa-000000000005',
            parent=RP3)
    out = cloud.ok('resource', 'provider', 'tree', 'show', 'pf-0',
                   '-f', 'value', '-c', 'name')
    assert out.splitlines() == ['compute-1', '  numa-0', '    pf-0',
                                '  numa-1']
    rows = cloud.ok('resource', 'provider', 'tree', 'show', RP1, '-f', 'json')
    assert [(r['name'], r['depth'], r['parent_provider_uuid'])
            for r in rows] == [
        ('compute-1', 0, None), ('numa-0', 1, RP1),
        ('pf-0', 2, RP3), ('numa-1', 1, RP1)]
    long_rows = cloud.ok('resource', 'provider', 'tree', 'show', RP1,
                         '--long', '-f', 'json')
    assert long_rows[0]['inventory used/capacity'] == 'VCPU=0/8'
    assert long_rows[0]['traits'] == 'HW_CPU_X86_AVX'
    assert long_rows[1]['inventory used/capacity'] == ''


def test_tree_show_needs_1_14(cloud):
    err, code = cloud.fail('resource', 'provider', 'tree', 'show', RP1,
                           version='1.13')
    assert (err, code) == (GATE % ('1.13', '1.14') + '\n', 1)
