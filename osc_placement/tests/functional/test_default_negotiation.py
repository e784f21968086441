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

"""The default microversion against a real Placement.

Where the user pins no version, what the reference plugin never had (its
commands, its options) is sent at the microversion it needs; the
reference's commands with the reference's options keep 1.29, and a
pinned version keeps its one-line refusal.
"""

import fixtures

from osc_placement.http import client as placement_http
from osc_placement import tests
from osc_placement.tests.functional import base

HOST1 = '33333333-3333-4333-8333-000000000001'
HOST2 = '33333333-3333-4333-8333-000000000002'

LIST = ('allocation', 'candidate', 'list')
FIT = ('resource', 'provider', 'capacity', 'fit')
GATE = ('Operation or argument is not supported with version %s; requires '
        'at least version %s\n')


class TestDefaultNegotiation(base.TestCase):
    """Two hosts, one of them with a trait on its root."""

    def setUp(self):
        super().setUp()
        tests.create_provider(self, HOST1, 'host1', inventories={'VCPU': 4},
                              traits=['CUSTOM_GOLD'])
        tests.create_provider(self, HOST2, 'host2', inventories={'VCPU': 8})
        self.api('PUT', '/traits/CUSTOM_SILVER')
        # The microversion of each request the CLI sends.
        self.versions = []
        real = placement_http.SessionClient.request

        def request(client, method, url, **kwargs):
            self.versions.append((method, url.split('?')[0],
                                  client.api_version))
            return real(client, method, url, **kwargs)

        self.useFixture(fixtures.MonkeyPatch(
            'osc_placement.http.SessionClient.request', request))

    def candidates_versions(self):
        return [v for method, url, v in self.versions
                if url == '/allocation_candidates']

    def test_extended_option_of_a_reference_command(self):
        rows = self.ok(*LIST, '--resource', 'VCPU=1', '--root-required',
                       'CUSTOM_GOLD', '-f', 'json')
        self.assertEqual({HOST1}, {r['resource provider'] for r in rows})
        self.assertEqual(['1.35'], self.candidates_versions())

    def test_reference_options_keep_the_reference_default(self):
        rows = self.ok(*LIST, '--resource', 'VCPU=1', '-f', 'json')
        self.assertEqual({HOST1, HOST2},
                         {r['resource provider'] for r in rows})
        self.assertEqual(['1.29'], self.candidates_versions())
        self.assertEqual({'1.29'}, {v for _m, _u, v in self.versions})

    def test_reference_option_value_keeps_its_refusal(self):
        # Any-of traits (a comma) are a value of the reference's --required:
        # its commands keep 1.29 and its refusal.
        err, code = self.fails(*LIST, '--resource', 'VCPU=1', '--required',
                               'CUSTOM_GOLD,CUSTOM_SILVER')
        self.assertEqual(GATE % ('1.29', '1.39'), err)
        self.assertEqual([], self.candidates_versions())

    def test_pinned_version_keeps_the_refusal(self):
        err, code = self.fails(*LIST, '--resource', 'VCPU=1',
                               '--root-required', 'CUSTOM_GOLD',
                               version='1.29')
        self.assertEqual((GATE % ('1.29', '1.35'), 1), (err, code))
        self.assertEqual([], self.candidates_versions())

    def test_option_of_a_command_the_reference_never_had(self):
        rows = self.ok(*FIT, '--resource', 'VCPU=2', '--root-required',
                       'CUSTOM_GOLD', '-f', 'json')
        self.assertEqual({HOST1: 2, HOST2: 0},
                         {r['resource_provider']: r['fits'] for r in rows})
        self.assertEqual(['1.35'], self.candidates_versions())
        # Pinned: the same one line as ever.
        err, code = self.fails(*FIT, '--resource', 'VCPU=2',
                               '--root-required', 'CUSTOM_GOLD',
                               version='1.29')
        self.assertEqual((GATE % ('1.29', '1.35'), 1), (err, code))

    def test_any_of_traits_in_a_command_the_reference_never_had(self):
        rows = self.ok(*FIT, '--resource', 'VCPU=2', '--required',
                       'CUSTOM_GOLD,CUSTOM_SILVER', '-f', 'json')
        self.assertEqual({HOST1: 2, HOST2: 0},
                         {r['resource_provider']: r['fits'] for r in rows})
        self.assertEqual(['1.39'], self.candidates_versions())

    def test_command_the_reference_never_had_without_such_options(self):
        self.ok(*FIT, '--resource', 'VCPU=2', '-f', 'json')
        self.assertEqual(['1.29'], self.candidates_versions())

    def test_latest_is_left_as_it_is(self):
        self.ok(*LIST, '--resource', 'VCPU=1', '--root-required',
                'CUSTOM_GOLD', '-f', 'json', version='latest')
        self.assertEqual(['1.39'], self.candidates_versions())
