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

"""Aggregate commands beyond the recorded contract."""

import json

import testscenarios

from osc_placement.tests.unit import base

URL = base.ENDPOINT
RP1 = base.RP1
AGG1 = base.AGG1
AGG2 = base.AGG2

load_tests = testscenarios.load_tests_apply_scenarios


class TestAggregate(base.TestCase):

    api_version = '1.19'

    def test_list_by_name(self):
        self.by_name('compute-1', RP1, generation=4)
        self.requests_mock.get(
            URL + '/resource_providers/%s/aggregates' % RP1,
            json={'aggregates': [AGG1, AGG2],
                  'resource_provider_generation': 4})
        out, err, code = self.openstack(
            'resource', 'provider', 'aggregate', 'list', 'compute-1',
            '-f', 'value')
        self.assertEqual(('%s\n%s\n' % (AGG1, AGG2), '', 0), (out, err, code))
        self.assertEqual(['/resource_providers?name=compute-1',
                          '/resource_providers/%s/aggregates' % RP1],
                         [path for _, path in self.sent()])

    def test_set_by_name_with_generation(self):
        self.by_name('compute-1', RP1, generation=4)
        self.requests_mock.put(
            URL + '/resource_providers/%s/aggregates' % RP1,
            json={'aggregates': [AGG2, AGG1],
                  'resource_provider_generation': 5})
        out, err, code = self.openstack(
            'resource', 'provider', 'aggregate', 'set', 'compute-1',
            '--aggregate', AGG2, '--aggregate', AGG1, '--generation', '4',
            '-f', 'json')
        self.assertEqual(0, code, err)
        put = self.requests_mock.request_history[-1]
        self.assertEqual(
            'placement 1.19',
            put.headers['OpenStack-API-Version'])
        self.assertEqual(
            {'aggregates': [AGG2, AGG1],
             'resource_provider_generation': 4},
            put.json())
        self.assertEqual([{'uuid': AGG2}, {'uuid': AGG1}], json.loads(out))

    def test_set_below_1_19_sends_a_bare_list(self):
        self.requests_mock.put(
            URL + '/resource_providers/%s/aggregates' % RP1,
            json={'aggregates': [AGG1]})
        out, err, code = self.openstack(
            'resource', 'provider', 'aggregate', 'set', RP1, '--aggregate',
            AGG1, '-f', 'value', version='1.18')
        self.assertEqual((AGG1 + '\n', '', 0), (out, err, code))
        self.assertEqual([AGG1], self.requests_mock.request_history[-1].json())

    def test_missing_generation_is_reported_before_the_name_lookup(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'aggregate', 'set', 'compute-1',
            '--aggregate', AGG1)
        self.assertEqual(('', 'A generation must be specified.\n', 1),
                         (out, err, code))
        self.assertEqual([], self.sent())

    def test_gate_is_checked_before_the_name_lookup(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'aggregate', 'list', 'compute-1',
            version='1.0')
        self.assertEqual(1, code)
        self.assertIn('requires at least version 1.1', err)
        self.assertEqual([], self.sent())

    def test_generation_help_names_its_version(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'aggregate', 'set', '--help')
        self.assertEqual(0, code)
        self.assertIn('1.19', out)

    def test_empty_provider_is_refused_locally(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'aggregate', 'list', '')
        self.assertEqual(2, code)
        self.assertEqual([], self.sent())


# Bad values, refused before any request (see base.RefusedLocallyTestCase).

BAD_VALUES = base.empty_positionals([
    ('resource provider aggregate list', (), ()),
    ('resource provider aggregate set', (), ('--generation', '1')),
]) + [
    base.bad_value('aggregate-set-generation-%r' % value,
                   ['resource', 'provider', 'aggregate', 'set', RP1,
                    '--aggregate', AGG1, '--generation', value], 2,
                   ['--generation', repr(value), 'int'])
    for value in ('abc', '', '1.5', 'one', '0x1')
] + [
    base.bad_value('aggregate-set-no-generation',
                   ['resource', 'provider', 'aggregate', 'set', RP1,
                    '--aggregate', AGG1], 1, ['generation'],
                   version='1.19'),
]

# Malformed values that the server judges (see
# base.JudgedByTheServerTestCase).
ROUND_TRIPS = [
    ('aggregate-set-malformed-aggregate-recorded',
     ['--os-placement-api-version', '1.1', 'resource', 'provider',
      'aggregate', 'set', RP1, '--aggregate', 'agg-one'],
     ('PUT', '/resource_providers/%s/aggregates' % RP1, []), 'agg-one'),
]


class TestRefusedLocally(base.RefusedLocallyTestCase):

    scenarios = BAD_VALUES


class TestJudgedByTheServer(base.JudgedByTheServerTestCase):

    scenarios = base.round_trips(ROUND_TRIPS)


class TestCaseIds(base.CaseIdsTestCase):

    tables = (BAD_VALUES, ROUND_TRIPS)
