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

"""Usage commands beyond the recorded contract."""

import json

import testscenarios

from osc_placement.tests.unit import base

URL = base.ENDPOINT
RP1 = base.RP1

load_tests = testscenarios.load_tests_apply_scenarios

BY_TYPE = {'usages': {
    'INSTANCE': {'VCPU': 2, 'consumer_count': 1, 'MEMORY_MB': 1024},
    'MIGRATION': {'consumer_count': 3, 'VCPU': 1}}}


class TestUsage(base.TestCase):

    api_version = '1.38'

    def test_consumer_type_filter_is_sent_last(self):
        self.requests_mock.get(URL + '/usages', json=BY_TYPE)
        out, err, code = self.openstack(
            'resource', 'usage', 'show', 'project-1', '--consumer-type',
            'INSTANCE', '--user-id', 'user-1', '-f', 'json')
        self.assertEqual(0, code, err)
        self.assertEqual([('GET', '/usages?project_id=project-1&user_id=user-1'
                                  '&consumer_type=INSTANCE')], self.sent())
        self.assertEqual(
            'placement 1.38',
            self.requests_mock.request_history[0].headers[
                'OpenStack-API-Version'])

    def test_consumer_type_needs_1_38(self):
        out, err, code = self.openstack(
            'resource', 'usage', 'show', 'project-1', '--consumer-type',
            'INSTANCE', version='1.37')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            'Operation or argument is not supported with version '
            '1.37; requires at least version 1.38\n',
            err)
        self.assertEqual([], self.sent())

    def test_consumer_type_is_in_help_not_in_usage(self):
        out, err, code = self.openstack('resource', 'usage', 'show', '--help')
        self.assertEqual(0, code)
        self.assertTrue('--consumer-type' in out and '1.38' in out)
        out, err, code = self.openstack('resource', 'usage', 'show')
        self.assertEqual(2, code)
        self.assertNotIn('--consumer-type', err)

    def test_rows_per_consumer_type_in_server_order(self):
        self.requests_mock.get(URL + '/usages', json=BY_TYPE)
        out, err, code = self.openstack(
            'resource', 'usage', 'show', 'project-1', '-f', 'value')
        self.assertEqual(('', 0), (err, code))
        # consumer_count is a column of each row, never a resource class.
        self.assertEqual(
            ['INSTANCE VCPU 2 1',
             'INSTANCE MEMORY_MB 1024 1',
             'MIGRATION VCPU 1 3'],
            out.splitlines())

    def test_csv_header_at_1_38(self):
        self.requests_mock.get(URL + '/usages', json={'usages': {}})
        out, err, code = self.openstack(
            'resource', 'usage', 'show', 'project-1', '-f', 'csv')
        self.assertEqual(
            ('"consumer_type","resource_class","usage","consumer_count"\n', 0),
            (out, code))

    def test_below_1_38_rows_are_per_class(self):
        self.requests_mock.get(
            URL + '/usages', json={'usages': {'VCPU': 2, 'DISK_GB': 5}})
        out, err, code = self.openstack(
            'resource', 'usage', 'show', 'project-1', '-f', 'json',
            version='1.37')
        self.assertEqual(0, code, err)
        self.assertEqual(
            [{'resource_class': 'VCPU', 'usage': 2},
             {'resource_class': 'DISK_GB', 'usage': 5}],
            json.loads(out))

    def test_empty_project_is_refused_locally(self):
        out, err, code = self.openstack('resource', 'usage', 'show', '')
        self.assertEqual(2, code)
        self.assertIn('must not be empty', err)
        self.assertEqual([], self.sent())

    def test_provider_usage_by_name(self):
        self.by_name('compute-1', RP1, generation=0)
        self.requests_mock.get(URL + '/resource_providers/%s/usages' % RP1,
                               json={'resource_provider_generation': 0,
                                     'usages': {'VCPU': 4}})
        out, err, code = self.openstack(
            'resource', 'provider', 'usage', 'show', 'compute-1', '-f', 'json',
            version='1.0')
        self.assertEqual(0, code, err)
        self.assertEqual(
            [{'resource_class': 'VCPU', 'usage': 4}],
            json.loads(out))
        self.assertEqual(
            ['/resource_providers?name=compute-1',
             '/resource_providers/%s/usages' % RP1],
            [path for _, path in self.sent()])

    def test_provider_usage_empty_uuid_is_refused_locally(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'usage', 'show', '', version='1.0')
        self.assertEqual(2, code)
        self.assertEqual([], self.sent())


# Bad values, refused before any request (see base.RefusedLocallyTestCase).

BAD_VALUES = base.empty_positionals([
    ('resource provider usage show', (), ()),
    ('resource usage show', (), ()),
])


class TestRefusedLocally(base.RefusedLocallyTestCase):

    scenarios = BAD_VALUES


class TestCaseIds(base.CaseIdsTestCase):

    tables = (BAD_VALUES,)
