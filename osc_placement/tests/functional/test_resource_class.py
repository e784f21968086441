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

"""Resource class commands against a real Placement."""

import pytest

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
GATE = ('Operation or argument is not supported with version %s; '
        'requires at least version %s\n')
BAD_NAME = ("JSON does not validate: 'FPGA' does not match "
            "'^CUSTOM_[A-Z0-9_]+$'  Failed validating 'pattern' in "
            "schema['properties']['name']:     {'type': 'string', "
            "'pattern': '^CUSTOM_[A-Z0-9_]+$', 'maxLength': 255}  On "
            "instance['name']:     'FPGA' (HTTP 400)\n")


def class_names(placement):
    return [c['name'] for c in
            placement.api('GET', '/resource_classes')['resource_classes']]


def make_class(placement, name):
    placement.api('PUT', '/resource_classes/' + name)


def use_in_inventory(placement, name):
    placement.api('POST', '/resource_providers',
                  body={'name': 'compute-1', 'uuid': RP1})
    placement.api('PUT', '/resource_providers/%s/inventories' % RP1,
                  body={'resource_provider_generation': 0,
                        'inventories': {name: {'total': 1}}})


@pytest.mark.parametrize('version', [None, '1.2'])
def test_list(placement, version):
    make_class(placement, 'CUSTOM_FPGA')
    rows = placement.ok('resource', 'class', 'list', '-f', 'json',
                        version=version)
    assert rows == [{'name': n} for n in class_names(placement)]
    assert {'name': 'VCPU'} in rows and {'name': 'CUSTOM_FPGA'} in rows


def test_list_value_format(placement):
    out = placement.ok('resource', 'class', 'list', '-f', 'value')
    assert out.splitlines() == class_names(placement)


@pytest.mark.parametrize('argv', [
    ['list'], ['create', 'CUSTOM_FPGA'], ['show', 'VCPU'],
    ['delete', 'CUSTOM_FPGA']])
def test_commands_need_1_2(placement, argv):
    make_class(placement, 'CUSTOM_FPGA')
    out, err, code = placement.run('resource', 'class', *argv,
                                   version='1.1')
    assert (out, err, code) == ('', GATE % ('1.1', '1.2'), 1)
    assert 'CUSTOM_FPGA' in class_names(placement)


@pytest.mark.parametrize('version', [None, '1.2'])
def test_create(placement, version):
    out = placement.ok('resource', 'class', 'create', 'CUSTOM_FPGA',
                       version=version)
    assert out == ''
    assert 'CUSTOM_FPGA' in class_names(placement)


def test_create_existing_is_a_conflict(placement):
    make_class(placement, 'CUSTOM_FPGA')
    err, code = placement.fail('resource', 'class', 'create', 'CUSTOM_FPGA')
    assert (err, code) == (
        'Conflicting resource class already exists: CUSTOM_FPGA '
        '(HTTP 409)\n', 1)


def test_create_needs_custom_prefix(placement):
    err, code = placement.fail('resource', 'class', 'create', 'FPGA')
    assert (err, code) == (BAD_NAME, 1)


@pytest.mark.parametrize('version', [None, '1.7'])
def test_set_creates_then_accepts_existing(placement, version):
    assert placement.ok('resource', 'class', 'set', 'CUSTOM_FPGA',
                        version=version) == ''
    assert 'CUSTOM_FPGA' in class_names(placement)
    assert placement.ok('resource', 'class', 'set', 'CUSTOM_FPGA',
                        version=version) == ''
    assert class_names(placement).count('CUSTOM_FPGA') == 1


def test_set_needs_1_7(placement):
    out, err, code = placement.run('resource', 'class', 'set', 'CUSTOM_FPGA',
                                   version='1.6')
    assert (out, err, code) == ('', GATE % ('1.6', '1.7'), 1)
    assert 'CUSTOM_FPGA' not in class_names(placement)


def test_set_needs_custom_prefix(placement):
    err, code = placement.fail('resource', 'class', 'set', 'FPGA')
    assert (err, code) == (BAD_NAME, 1)


@pytest.mark.parametrize('version', [None, '1.2'])
def test_show(placement, version):
    make_class(placement, 'CUSTOM_FPGA')
    row = placement.ok('resource', 'class', 'show', 'CUSTOM_FPGA', '-f',
                       'json', version=version)
    assert row == {'name': 'CUSTOM_FPGA'}


def test_show_missing(placement):
    err, code = placement.fail('resource', 'class', 'show', 'CUSTOM_NOPE')
    assert (err, code) == (
        'No such resource class CUSTOM_NOPE. (HTTP 404)\n', 1)


def test_name_cannot_inject_a_query(placement):
    # Sent as one path segment, the name reaches the server whole.
    make_class(placement, 'CUSTOM_FPGA')
    err, code = placement.fail('resource', 'class', 'show',
                               'CUSTOM_FPGA?x=1')
    assert (err, code) == (
        'No such resource class CUSTOM_FPGA?x=1. (HTTP 404)\n', 1)


def test_empty_name_is_refused_before_any_request(placement):
    err, code = placement.fail('resource', 'class', 'show', '')
    assert code == 2
    assert 'must not be empty' in err


@pytest.mark.parametrize('version', [None, '1.2'])
def test_delete(placement, version):
    make_class(placement, 'CUSTOM_FPGA')
    assert placement.ok('resource', 'class', 'delete', 'CUSTOM_FPGA',
                        version=version) == ''
    assert 'CUSTOM_FPGA' not in class_names(placement)


def test_delete_missing(placement):
    err, code = placement.fail('resource', 'class', 'delete', 'CUSTOM_NOPE')
    assert (err, code) == (
        'No such resource class CUSTOM_NOPE. (HTTP 404)\n', 1)


def test_delete_in_use(placement):
    make_class(placement, 'CUSTOM_FPGA')
    use_in_inventory(placement, 'CUSTOM_FPGA')
    err, code = placement.fail('resource', 'class', 'delete', 'CUSTOM_FPGA')
    assert (err, code) == (
        'Error in delete resource class: Cannot delete resource class '
        'CUSTOM_FPGA. Class is in use in inventory. (HTTP 409)\n', 1)
    assert 'CUSTOM_FPGA' in class_names(placement)


def test_delete_several(placement):
    for name in ('CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C'):
        make_class(placement, name)
    assert placement.ok('resource', 'class', 'delete', 'CUSTOM_A',
                        'CUSTOM_B', 'CUSTOM_C') == ''
    assert not {'CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C'} & set(
        class_names(placement))


def test_delete_several_goes_on_after_failures(placement):
    for name in ('CUSTOM_A', 'CUSTOM_B', 'CUSTOM_USED'):
        make_class(placement, name)
    use_in_inventory(placement, 'CUSTOM_USED')
    out, err, code = placement.run(
        'resource', 'class', 'delete', 'CUSTOM_A', 'CUSTOM_NOPE',
        'CUSTOM_USED', 'VCPU', 'CUSTOM_B')
    assert (out, code) == ('', 1)
    assert err.splitlines() == [
        'Failed to delete resource class CUSTOM_NOPE: No such resource '
        'class CUSTOM_NOPE. (HTTP 404)',
        'Failed to delete resource class CUSTOM_USED: Error in delete '
        'resource class: Cannot delete resource class CUSTOM_USED. Class '
        'is in use in inventory. (HTTP 409)',
        'Failed to delete resource class VCPU: Error in delete resource '
        'class: Cannot delete standard resource class VCPU. (HTTP 400)',
        'Failed to delete 3 of 5 resource classes.']
    left = set(class_names(placement))
    assert {'CUSTOM_USED', 'VCPU'} <= left
    assert not {'CUSTOM_A', 'CUSTOM_B'} & left
