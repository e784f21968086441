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

from osc_placement import tests
from osc_placement.tests.functional import base

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
AGG1 = 'dddddddd-dddd-4ddd-8ddd-000000000001'
AGG2 = 'dddddddd-dddd-4ddd-8ddd-000000000002'
AGG3 = 'dddddddd-dddd-4ddd-8ddd-000000000003'


def aggregates(placement):
    body = placement.api('GET', '/resource_providers/%s/aggregates' % RP1,
                         version='1.19')
    return sorted(body['aggregates']), body['resource_provider_generation']


def uuids(rows):
    return sorted(row['uuid'] for row in rows)


class TestProviderAggregate(base.TestCase):
    """compute-1 (RP1) exists, in no aggregate."""

    def setUp(self):
        super().setUp()
        tests.create_provider(self, RP1, 'compute-1')

    def test_list_needs_1_1(self):
        err, code = self.fails('resource', 'provider', 'aggregate', 'list',
                               RP1, version='1.0')
        self.assertEqual((
            'Operation or argument is not supported with version 1.0; '
            'requires at least version 1.1\n', 1), (err, code))

    def test_list_at_1_1_and_default(self):
        rows = self.ok('resource', 'provider', 'aggregate', 'list', RP1,
                       '-f', 'json', version='1.1')
        self.assertEqual([], rows)
        self.api('PUT', '/resource_providers/%s/aggregates' % RP1,
                 version='1.1', body=[AGG1, AGG2])
        rows = self.ok('resource', 'provider', 'aggregate', 'list',
                       'compute-1', '-f', 'json')
        self.assertEqual([AGG1, AGG2], uuids(rows))

    def test_set_needs_1_1(self):
        err, code = self.fails('resource', 'provider', 'aggregate', 'set',
                               RP1, '--aggregate', AGG1, version='1.0')
        self.assertEqual(1, code)
        self.assertTrue(err.endswith('requires at least version 1.1\n'), err)
        self.assertEqual(([], 0), aggregates(self))

    def test_set_at_1_1_replaces_the_aggregates(self):
        self.api('PUT', '/resource_providers/%s/aggregates' % RP1,
                 version='1.1', body=[AGG3])
        rows = self.ok('resource', 'provider', 'aggregate', 'set', RP1,
                       '--aggregate', AGG1, '--aggregate', AGG2,
                       '-f', 'json', version='1.1')
        self.assertEqual([AGG1, AGG2], uuids(rows))
        self.assertEqual([AGG1, AGG2], aggregates(self)[0])

    def test_set_without_aggregate_clears(self):
        self.api('PUT', '/resource_providers/%s/aggregates' % RP1,
                 version='1.1', body=[AGG1])
        rows = self.ok('resource', 'provider', 'aggregate', 'set', RP1,
                       '-f', 'json', version='1.1')
        self.assertEqual([], rows)
        self.assertEqual([], aggregates(self)[0])

    def test_set_with_generation_at_1_19(self):
        generation = aggregates(self)[1]
        rows = self.ok('resource', 'provider', 'aggregate', 'set',
                       'compute-1', '--aggregate', AGG3, '--generation',
                       str(generation), '-f', 'json', version='1.19')
        self.assertEqual([AGG3], uuids(rows))
        self.assertEqual(([AGG3], generation + 1), aggregates(self))

    def test_set_at_default_version_with_generation(self):
        self.ok('resource', 'provider', 'aggregate', 'set', RP1,
                '--aggregate', AGG1, '--generation', '0')
        self.assertEqual(([AGG1], 1), aggregates(self))

    def test_set_stale_generation_is_refused(self):
        # Another client wrote the aggregates since generation 0 was read.
        self.api('PUT', '/resource_providers/%s/aggregates' % RP1,
                 version='1.19', body={'aggregates': [AGG1],
                                       'resource_provider_generation': 0})
        err, code = self.fails('resource', 'provider', 'aggregate', 'set',
                               RP1, '--aggregate', AGG2, '--generation', '0',
                               version='1.19')
        self.assertEqual((
            "Resource provider's generation already changed. Please update "
            "the generation and try again. (HTTP 409)\n", 1), (err, code))
        self.assertEqual(([AGG1], 1), aggregates(self))

    def test_set_without_generation_from_1_19(self):
        err, code = self.fails('resource', 'provider', 'aggregate', 'set',
                               RP1, '--aggregate', AGG1, version='1.19')
        self.assertEqual(('A generation must be specified.\n', 1), (err, code))
        self.assertEqual(([], 0), aggregates(self))

    def test_generation_needs_1_19(self):
        err, code = self.fails('resource', 'provider', 'aggregate', 'set',
                               RP1, '--aggregate', AGG1, '--generation', '0',
                               version='1.18')
        self.assertEqual((
            'Operation or argument is not supported with version 1.18; '
            'requires at least version 1.19\n', 1), (err, code))
        self.assertEqual(([], 0), aggregates(self))

    def test_set_malformed_aggregate_is_refused_by_the_server(self):
        err, code = self.fails('resource', 'provider', 'aggregate', 'set',
                               RP1, '--aggregate', 'agg-one', version='1.1')
        self.assertEqual(1, code)
        self.assertTrue(err.endswith('(HTTP 400)\n'), err)
        self.assertIn("'agg-one'", err)
        self.assertEqual(([], 0), aggregates(self))


class TestNoProvider(base.TestCase):

    def test_list_unknown_provider(self):
        err, code = self.fails('resource', 'provider', 'aggregate', 'list',
                               RP1, version='1.1')
        self.assertEqual((
            'No resource provider with uuid %s found (HTTP 404)\n' % RP1, 1),
            (err, code))
