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

import testscenarios

from osc_placement.tests.unit import base

URL = base.ENDPOINT
RP1 = base.RP1
RP2 = base.RP2
RP3 = base.RP3

load_tests = testscenarios.load_tests_apply_scenarios


rp = base.provider


class TestResourceProvider(base.TestCase):

    api_version = '1.14'

    def test_name_is_resolved_with_one_query(self):
        self.by_name('compute-1', RP1, generation=0)
        self.requests_mock.get(
            URL + '/resource_providers/' + RP1, json=rp(RP1, 'compute-1'))
        out, err, code = self.openstack(
            'resource', 'provider', 'show', 'compute-1', '-f', 'json')
        self.assertEqual((0, ''), (code, err))
        self.assertEqual(RP1, json.loads(out)['uuid'])
        self.assertEqual(
            [('GET', '/resource_providers?name=compute-1'),
             ('GET', '/resource_providers/' + RP1)],
            self.sent())

    def test_uuid_costs_no_lookup(self):
        self.requests_mock.get(
            URL + '/resource_providers/' + RP1, json=rp(RP1, 'compute-1'))
        out, err, code = self.openstack(
            'resource', 'provider', 'show', RP1, '-f', 'json')
        self.assertEqual(0, code)
        self.assertEqual([('GET', '/resource_providers/' + RP1)], self.sent())

    def test_name_with_reserved_characters_is_encoded(self):
        self.requests_mock.get(URL + '/resource_providers',
                               json={'resource_providers': []})
        out, err, code = self.openstack(
            'resource', 'provider', 'show', 'rack 1/a&b=c')
        self.assertEqual(1, code)
        self.assertEqual(
            "No resource provider with name or UUID 'rack 1/a&b=c' "
            "found.\n",
            err)
        self.assertEqual(
            [('GET', '/resource_providers?name=rack+1%2Fa%26b%3Dc')],
            self.sent())

    def test_name_not_found_is_printed_with_control_characters_escaped(self):
        self.requests_mock.get(URL + '/resource_providers',
                               json={'resource_providers': []})
        out, err, code = self.openstack(
            'resource', 'provider', 'show', 'rack\x1b[2J\n1')
        self.assertEqual(
            ('', "No resource provider with name or UUID "
             "'rack\\x1b[2J\\n1' found.\n", 1),
            (out, err, code))

    def test_create_reads_back_through_the_endpoint_not_location_host(self):
        self.requests_mock.post(
            URL + '/resource_providers', status_code=201,
            headers={'Location': 'http://10.0.0.5:8778/placement'
                                 '/resource_providers/' + RP2})
        self.requests_mock.get(URL + '/resource_providers/' + RP2,
                               json=rp(RP2, 'numa-0'))
        out, err, code = self.openstack(
            'resource', 'provider', 'create', 'numa-0', '-f', 'json')
        self.assertEqual((0, ''), (code, err))
        self.assertEqual(RP2, json.loads(out)['uuid'])
        self.assertEqual(
            [('POST', '/resource_providers'),
             ('GET', '/resource_providers/' + RP2)],
            self.sent())

    def test_create_with_a_location_that_is_no_provider(self):
        self.requests_mock.post(
            URL + '/resource_providers', status_code=201,
            headers={'Location': 'http://10.0.0.5:8778/elsewhere'})
        out, err, code = self.openstack(
            'resource', 'provider', 'create', 'numa-0')
        self.assertEqual(
            ('', 'Invalid response from the Placement API: POST '
             '%s/resource_providers answered HTTP 201 with a Location header '
             "that does not name a resource provider: "
             "'http://10.0.0.5:8778/elsewhere'\n" % URL, 1),
            (out, err, code))
        self.assertEqual([('POST', '/resource_providers')], self.sent())

    def test_forbidden_list_forbids_every_trait(self):
        self.requests_mock.get(URL + '/resource_providers',
                               json={'resource_providers': []})
        out, err, code = self.openstack(
            'resource', 'provider', 'list', '--forbidden', 'CUSTOM_A,CUSTOM_B',
            '--forbidden', 'CUSTOM_C', version='1.22')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            [('required', '!CUSTOM_A,!CUSTOM_B,!CUSTOM_C')],
            self.requests_sent()[0].query)

    def test_parent_provider_by_name_on_create(self):
        self.by_name('compute-1', RP1, generation=0)
        self.requests_mock.post(
            URL + '/resource_providers', status_code=201,
            headers={'Location': URL + '/resource_providers/' + RP2})
        self.requests_mock.get(URL + '/resource_providers/' + RP2,
                               json=rp(RP2, 'numa-0', parent=RP1))
        out, err, code = self.openstack(
            'resource', 'provider', 'create', 'numa-0', '--parent-provider',
            'compute-1', '-f', 'json')
        self.assertEqual(0, code, err)
        self.assertEqual(
            {'name': 'numa-0', 'parent_provider_uuid': RP1},
            self.requests_mock.request_history[1].json())

    def test_delete_one_behaves_as_before(self):
        self.requests_mock.delete(
            URL + '/resource_providers/' + RP1, **base.error_reply(
                404, 'No resource provider with uuid %s found' % RP1))
        out, err, code = self.openstack('resource', 'provider', 'delete', RP1)
        self.assertEqual(
            ('', 'No resource provider with uuid %s found (HTTP 404)\n'
             % RP1, 1),
            (out, err, code))

    def test_delete_several_goes_on_after_a_failure(self):
        self.requests_mock.delete(
            URL + '/resource_providers/' + RP1, status_code=204)
        self.requests_mock.delete(
            URL + '/resource_providers/' + RP2,
            **base.error_reply(409, 'It has child resource providers.'))
        self.requests_mock.delete(
            URL + '/resource_providers/' + RP3, status_code=204)
        out, err, code = self.openstack(
            'resource', 'provider', 'delete', RP1, RP2, RP3)
        self.assertEqual(1, code)
        self.assertEqual(
            ['Failed to delete resource provider %s: It has child resource '
             'providers. (HTTP 409)' % RP2,
             'Failed to delete 1 of 3 resource providers.'],
            err.splitlines())
        self.assertEqual(['DELETE'] * 3, [m for m, _ in self.sent()])

    def test_delete_usage_synopsis_is_the_reference_one(self):
        out, err, code = self.openstack('resource', 'provider', 'delete')
        self.assertEqual(2, code)
        self.assertEqual(
            'usage: openstack resource provider delete [-h] <uuid>',
            err.splitlines()[0])

    def test_set_no_parent_sends_null(self):
        self.requests_mock.put(
            URL + '/resource_providers/' + RP2, json=rp(RP2, 'numa-0'))
        out, err, code = self.openstack(
            'resource', 'provider', 'set', RP2, '--name', 'numa-0',
            '--no-parent', version='1.37')
        self.assertEqual(0, code, err)
        self.assertEqual(
            {'name': 'numa-0', 'parent_provider_uuid': None},
            self.requests_mock.request_history[0].json())

    def test_no_parent_and_parent_are_exclusive(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'set', RP2, '--name', 'x', '--no-parent',
            '--parent-provider', RP1, version='1.37')
        self.assertEqual(2, code)
        self.assertIn('not allowed with argument', err)

    def test_tree_rows_are_depth_first_with_depths(self):
        tree = [rp(RP1, 'compute-1'), rp(RP3, 'numa-1', parent=RP1),
                rp(RP2, 'numa-0', parent=RP1),
                rp('aaaaaaaa-aaaa-4aaa-8aaa-000000000004', 'pf', parent=RP2)]
        self.requests_mock.get(
            URL + '/resource_providers?in_tree=' + RP1,
            json={'resource_providers': tree}, complete_qs=True)
        out, err, code = self.openstack(
            'resource', 'provider', 'tree', 'show', RP1, '-f', 'value', '-c',
            'name', '-c', 'depth')
        self.assertEqual(0, code, err)
        self.assertEqual(
            ['compute-1 0', 'numa-0 1', 'pf 2', 'numa-1 1'],
            out.splitlines())

    def test_tree_json_has_depth_and_plain_names(self):
        self.requests_mock.get(
            URL + '/resource_providers?in_tree=' + RP1,
            json={'resource_providers': [rp(RP1, 'compute-1'),
                                         rp(RP2, 'numa-0', parent=RP1)]})
        out, err, code = self.openstack(
            'resource', 'provider', 'tree', 'show', RP1, '-f', 'json')
        self.assertEqual(0, code, err)
        self.assertEqual(
            [
                {'name': 'compute-1', 'uuid': RP1, 'generation': 0,
                 'parent_provider_uuid': None, 'depth': 0},
                {'name': 'numa-0', 'uuid': RP2, 'generation': 0,
                 'parent_provider_uuid': RP1, 'depth': 1}],
            json.loads(out))

    def test_tree_long_shows_capacity_and_traits(self):
        self.requests_mock.get(
            URL + '/resource_providers?in_tree=' + RP1,
            json={'resource_providers': [rp(RP1, 'compute-1')]})
        self.requests_mock.get(
            URL + '/resource_providers/%s/inventories' % RP1,
            json={'inventories': {'VCPU': {
                'total': 8, 'reserved': 2, 'allocation_ratio': 4.0}}})
        self.requests_mock.get(URL + '/resource_providers/%s/usages' % RP1,
                               json={'usages': {'VCPU': 3}})
        self.requests_mock.get(
            URL + '/resource_providers/%s/traits' % RP1,
            json={'traits': ['HW_CPU_X86_AVX', 'CUSTOM_GOLD']})
        out, err, code = self.openstack(
            'resource', 'provider', 'tree', 'show', RP1, '--long', '-f',
            'json')
        self.assertEqual(0, code, err)
        row = json.loads(out)[0]
        self.assertEqual('VCPU=3/24', row['inventory used/capacity'])
        self.assertEqual('HW_CPU_X86_AVX,CUSTOM_GOLD', row['traits'])


# Bad values, refused before any request (see base.RefusedLocallyTestCase).

BAD_VALUES = base.empty_positionals([
    ('resource provider create', (), ()),
    ('resource provider show', (), ()),
    ('resource provider set', (), ('--name', 'x')),
    ('resource provider delete', (), ()),
    ('resource provider delete', (RP1,), ()),
]) + [
    base.empty_value('resource provider show', version='1.0'),
    base.bad_value('empty-provider-create-uuid',
                   ['resource', 'provider', 'create', '--uuid', '', 'rp-1'],
                   2, ['--uuid', 'empty']),
    base.bad_value('empty-provider-create-parent',
                   ['resource', 'provider', 'create', '--parent-provider',
                    '', 'rp-1'], 2, ['--parent-provider', 'empty']),
    base.bad_value('empty-provider-set-parent',
                   ['resource', 'provider', 'set', RP1, '--name', 'rp-1',
                    '--parent-provider', ''], 2,
                   ['--parent-provider', 'empty']),
    base.bad_value('empty-provider-list-in-tree',
                   ['resource', 'provider', 'list', '--in-tree', ''], 2,
                   ['--in-tree', 'empty']),
    base.bad_value('empty-provider-list-required',
                   ['resource', 'provider', 'list', '--required', ''], 2,
                   ['--required']),
    base.bad_value('empty-provider-list-member-of',
                   ['resource', 'provider', 'list', '--member-of', ''], 2,
                   ['--member-of']),
]

# Malformed values that the server judges (see
# base.JudgedByTheServerTestCase).
ROUND_TRIPS = [
    ('provider-list-resource-no-equals-recorded',
     ['--os-placement-api-version', '1.4', 'resource', 'provider', 'list',
      '--resource', 'VCPU'],
     ('GET', '/resource_providers', [('resources', 'VCPU')]), None),
    ('provider-list-resource-not-int',
     ['--os-placement-api-version', '1.4', 'resource', 'provider', 'list',
      '--resource', 'VCPU=abc'],
     ('GET', '/resource_providers', [('resources', 'VCPU:abc')]), None),
]


class TestRefusedLocally(base.RefusedLocallyTestCase):

    scenarios = BAD_VALUES


class TestJudgedByTheServer(base.JudgedByTheServerTestCase):

    scenarios = base.round_trips(ROUND_TRIPS)


class TestCaseIds(base.CaseIdsTestCase):

    tables = (BAD_VALUES, ROUND_TRIPS)


class TestAmountsOutOfRange(base.OutOfRangeTestCase):

    scenarios = [
        ('provider-list', {
            'argv': ('resource', 'provider', 'list', '--resource',
                     'VCPU=2147483648'),
            'error': "--resource 'VCPU=2147483648': amount: 2147483648 is "
                     "out of range (1 to 2147483647)."}),
    ]
