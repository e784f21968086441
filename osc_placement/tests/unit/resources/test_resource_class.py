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

"""Resource class commands beyond the recorded contract."""

import json

import requests_mock
import testscenarios


from osc_placement.tests.unit import base

URL = base.ENDPOINT

load_tests = testscenarios.load_tests_apply_scenarios


def error(status, detail):
    return base.error_reply(status, base.webob_detail(detail))


class TestResourceClass(base.TestCase):

    api_version = '1.7'

    def test_list_sends_the_version_and_prints_names(self):
        self.requests_mock.get(
            URL + '/resource_classes',
            json={'resource_classes': [{'name': 'VCPU', 'links': []},
                                       {'name': 'CUSTOM_X', 'links': []}]})
        out, err, code = self.openstack(
            'resource', 'class', 'list', '-f', 'value', version='1.2')
        self.assertEqual(('VCPU\nCUSTOM_X\n', '', 0), (out, err, code))
        request = self.requests_mock.request_history[0]
        self.assertEqual(
            'placement 1.2',
            request.headers['OpenStack-API-Version'])
        self.assertEqual('application/json', request.headers['Accept'])

    def test_create_posts_the_name(self):
        self.requests_mock.post(URL + '/resource_classes', status_code=201)
        out, err, code = self.openstack(
            'resource', 'class', 'create', 'CUSTOM_X')
        self.assertEqual(('', '', 0), (out, err, code))
        self.assertEqual([('POST', '/resource_classes')], self.sent())
        self.assertEqual(
            {'name': 'CUSTOM_X'},
            self.requests_mock.request_history[0].json())

    def test_set_needs_1_7(self):
        out, err, code = self.openstack('resource', 'class', 'set', 'CUSTOM_X',
                                        version='1.6')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            'Operation or argument is not supported with version '
            '1.6; requires at least version 1.7\n',
            err)
        self.assertEqual([], self.sent())

    def test_delete_several_deletes_each_in_order(self):
        self.requests_mock.delete(requests_mock.ANY, status_code=204)
        out, err, code = self.openstack(
            'resource', 'class', 'delete', 'CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C',
            version='1.2')
        self.assertEqual(('', '', 0), (out, err, code))
        self.assertEqual(
            [('DELETE', '/resource_classes/CUSTOM_A'),
             ('DELETE', '/resource_classes/CUSTOM_B'),
             ('DELETE', '/resource_classes/CUSTOM_C')],
            self.sent())

    def test_delete_several_goes_on_after_failures_and_counts_them(self):
        self.requests_mock.delete(
            URL + '/resource_classes/CUSTOM_A',
            **error(404, 'No such resource class CUSTOM_A.'))
        self.requests_mock.delete(
            URL + '/resource_classes/CUSTOM_B', status_code=204)
        self.requests_mock.delete(
            URL + '/resource_classes/CUSTOM_C',
            **error(409, 'Class is in use in inventory.'))
        out, err, code = self.openstack(
            'resource', 'class', 'delete', 'CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ['Failed to delete resource class CUSTOM_A: No such resource '
             'class CUSTOM_A. (HTTP 404)',
             'Failed to delete resource class CUSTOM_C: Class is in use in '
             'inventory. (HTTP 409)',
             'Failed to delete 2 of 3 resource classes.'],
            err.splitlines())
        self.assertEqual(['DELETE'] * 3, [m for m, _ in self.sent()])

    def test_delete_one_fails_with_the_server_message_only(self):
        self.requests_mock.delete(
            URL + '/resource_classes/CUSTOM_A',
            **error(404, 'No such resource class CUSTOM_A.'))
        out, err, code = self.openstack(
            'resource', 'class', 'delete', 'CUSTOM_A')
        self.assertEqual(
            ('', 'No such resource class CUSTOM_A. (HTTP 404)\n', 1),
            (out, err, code))

    def test_delete_with_an_empty_extra_name_sends_nothing(self):
        out, err, code = self.openstack(
            'resource', 'class', 'delete', 'CUSTOM_A', '')
        self.assertEqual(2, code)
        self.assertIn('must not be empty', err)
        self.assertEqual([], self.sent())

    def test_delete_usage_synopsis_is_the_reference_one(self):
        out, err, code = self.openstack('resource', 'class', 'delete')
        self.assertEqual(2, code)
        self.assertEqual(
            'usage: openstack resource class delete [-h] <name>',
            err.splitlines()[0])

    def test_delete_help_mentions_several_names(self):
        out, err, code = self.openstack(
            'resource', 'class', 'delete', '--help')
        self.assertEqual(0, code)
        self.assertIn('More resource classes can follow.', out)

    def test_show_prints_only_the_name(self):
        self.requests_mock.get(
            URL + '/resource_classes/CUSTOM_X',
            json={'name': 'CUSTOM_X', 'links': [{'rel': 'self'}]})
        out, err, code = self.openstack(
            'resource', 'class', 'show', 'CUSTOM_X', '-f', 'json')
        self.assertEqual(
            ({'name': 'CUSTOM_X'}, '', 0),
            (json.loads(out), err, code))


class TestEncodedName(base.TestCase):

    api_version = '1.7'

    scenarios = [(verb, {'verb': verb, 'method': method})
                 for verb, method in [('set', 'PUT'), ('show', 'GET'),
                                      ('delete', 'DELETE')]]

    def test_name_is_one_encoded_path_segment(self):
        self.requests_mock.register_uri(
            self.method, requests_mock.ANY, json={'name': 'x'})
        out, err, code = self.openstack(
            'resource', 'class', self.verb, 'CUSTOM_A/../B?c=d&e')
        self.assertEqual(0, code, err)
        self.assertEqual(
            [(self.method, '/resource_classes/CUSTOM_A%2F..%2FB%3Fc%3Dd%26e')],
            self.sent())


class TestEmptyName(base.TestCase):

    api_version = '1.7'

    scenarios = [(verb, {'verb': verb})
                 for verb in ('create', 'set', 'show', 'delete')]

    def test_empty_name_is_refused_locally(self):
        out, err, code = self.openstack('resource', 'class', self.verb, '')
        self.assertEqual(2, code)
        self.assertIn('must not be empty', err)
        self.assertEqual([], self.sent())


# Bad values, refused before any request (see base.RefusedLocallyTestCase).

BAD_VALUES = base.empty_positionals([
    ('resource class create', (), ()),
    ('resource class set', (), ()),
    ('resource class show', (), ()),
    ('resource class delete', (), ()),
    ('resource class delete', ('CUSTOM_A',), ()),
])

# Malformed values that the server judges (see
# base.JudgedByTheServerTestCase).
ROUND_TRIPS = [
    ('resource-class-create-bad-name-recorded',
     ['--os-placement-api-version', '1.2', 'resource', 'class', 'create',
      'FPGA'],
     ('POST', '/resource_classes', []), '"FPGA"'),
]


class TestRefusedLocally(base.RefusedLocallyTestCase):

    scenarios = BAD_VALUES


class TestJudgedByTheServer(base.JudgedByTheServerTestCase):

    scenarios = base.round_trips(ROUND_TRIPS)


class TestCaseIds(base.CaseIdsTestCase):

    tables = (BAD_VALUES, ROUND_TRIPS)
