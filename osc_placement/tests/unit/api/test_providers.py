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

"""osc_placement.api.providers: the requests sent, their microversion.

A real session client over requests-mock (``http/test_client.py``'s).
"""

from osc_placement.api import providers
from osc_placement.tests.unit import base
from osc_placement.tests.unit.http import test_client

URL = base.ENDPOINT
RP = base.RP1
AGG = 'aaaaaaaa-0000-4000-8000-000000000001'


class TestAggregates(base.TestCase):

    def sent(self):
        return [(r.method, r.url[len(URL):],
                 r.headers.get('OpenStack-API-Version'),
                 r.json() if r.body else None)
                for r in self.requests_mock.request_history]

    def test_one_put_with_the_generation_from_1_19(self):
        self.requests_mock.put(
            URL + '/resource_providers/%s/aggregates' % RP,
            json={'aggregates': [AGG], 'resource_provider_generation': 4})
        http = test_client.client('1.19')
        self.assertEqual(([AGG], 4), providers.set_aggregates(
            http, RP, [AGG], 3))
        self.assertEqual(
            [('PUT', '/resource_providers/%s/aggregates' % RP,
              'placement 1.19', {'aggregates': [AGG],
                                 'resource_provider_generation': 3})],
            self.sent())

    def test_the_list_alone_below_1_19(self):
        self.requests_mock.put(
            URL + '/resource_providers/%s/aggregates' % RP,
            json={'aggregates': [AGG]})
        http = test_client.client('1.18')
        self.assertEqual(([AGG], None), providers.set_aggregates(
            http, RP, [AGG]))
        self.assertEqual([AGG], self.sent()[0][3])

    def test_read_with_its_generation(self):
        self.requests_mock.get(
            URL + '/resource_providers/%s/aggregates' % RP,
            json={'aggregates': [AGG], 'resource_provider_generation': 2})
        self.assertEqual(([AGG], 2), providers.aggregates_of(
            test_client.client('1.19'), RP))


class TestOwnerUsages(base.TestCase):

    def asked(self, session_version):
        self.requests_mock.get(URL + '/usages', json={'usages': {'VCPU': 2}})
        self.assertEqual({'VCPU': 2}, providers.owner_usages(
            test_client.client(session_version), 'p', 'u'))
        request = self.requests_mock.request_history[-1]
        return (request.qs, request.headers['OpenStack-API-Version'])

    def test_by_class_at_1_37_at_the_most(self):
        self.assertEqual(({'project_id': ['p'], 'user_id': ['u']},
                          'placement 1.37'), self.asked('1.39'))
        self.assertEqual('placement 1.37', self.asked('1.38')[1])
        self.assertEqual('placement 1.28', self.asked('1.28')[1])
