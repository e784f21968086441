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

from osc_placement import tests
from osc_placement.tests.functional import base

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
RP2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
C1 = 'cccccccc-cccc-4ccc-8ccc-000000000001'
C2 = 'cccccccc-cccc-4ccc-8ccc-000000000002'
C3 = 'cccccccc-cccc-4ccc-8ccc-000000000003'


def as_dict(rows, key='resource_class', value='usage'):
    return {row[key]: row[value] for row in rows}


class TestUsage(base.TestCase):
    """Two providers; three consumers of two projects and two types.

    C1: project-1/user-1, INSTANCE, VCPU 2 + MEMORY_MB 512 on RP1
    C2: project-1/user-2, MIGRATION, VCPU 1 on RP2
    C3: project-2/user-1, INSTANCE, DISK_GB 10 on RP1
    """

    def setUp(self):
        super().setUp()
        for uuid, name in ((RP1, 'compute-1'), (RP2, 'compute-2')):
            tests.create_provider(self, uuid, name, {
                'VCPU': 8, 'MEMORY_MB': 4096, 'DISK_GB': 100})
        for consumer, rp, resources, project, user, ctype in (
                (C1, RP1, {'VCPU': 2, 'MEMORY_MB': 512}, 'project-1',
                 'user-1', 'INSTANCE'),
                (C2, RP2, {'VCPU': 1}, 'project-1', 'user-2', 'MIGRATION'),
                (C3, RP1, {'DISK_GB': 10}, 'project-2', 'user-1',
                 'INSTANCE')):
            tests.allocate(self, consumer, {rp: resources}, project=project,
                           user=user, consumer_type=ctype)

    def test_provider_usage_at_default_version(self):
        rows = self.ok('resource', 'provider', 'usage', 'show', RP1,
                       '-f', 'json')
        self.assertEqual({'VCPU': 2, 'MEMORY_MB': 512, 'DISK_GB': 10},
                         as_dict(rows))

    def test_provider_usage_by_name_at_1_0(self):
        rows = self.ok('resource', 'provider', 'usage', 'show', 'compute-2',
                       '-f', 'json', version='1.0')
        self.assertEqual({'VCPU': 1, 'MEMORY_MB': 0, 'DISK_GB': 0},
                         as_dict(rows))

    def test_project_usage_at_1_9(self):
        rows = self.ok('resource', 'usage', 'show', 'project-1', '-f', 'json',
                       version='1.9')
        self.assertEqual({'VCPU': 3, 'MEMORY_MB': 512}, as_dict(rows))

    def test_project_and_user_usage_at_default_version(self):
        rows = self.ok('resource', 'usage', 'show', 'project-1', '--user-id',
                       'user-2', '-f', 'json')
        self.assertEqual({'VCPU': 1}, as_dict(rows))

    def test_project_usage_needs_1_9(self):
        err, code = self.fails('resource', 'usage', 'show', 'project-1',
                               version='1.8')
        self.assertEqual((
            'Operation or argument is not supported with version 1.8; '
            'requires at least version 1.9\n', 1), (err, code))

    def test_project_usage_by_consumer_type_at_1_38(self):
        rows = self.ok('resource', 'usage', 'show', 'project-1', '-f', 'json',
                       version='1.38')
        self.assertEqual([
            {'consumer_type': 'INSTANCE', 'resource_class': 'MEMORY_MB',
             'usage': 512, 'consumer_count': 1},
            {'consumer_type': 'INSTANCE', 'resource_class': 'VCPU',
             'usage': 2, 'consumer_count': 1},
            {'consumer_type': 'MIGRATION', 'resource_class': 'VCPU',
             'usage': 1, 'consumer_count': 1}],
            sorted(rows, key=lambda r: (r['consumer_type'],
                                        r['resource_class'])))

    def test_project_usage_table_at_latest(self):
        out = self.ok('resource', 'usage', 'show', 'project-2',
                      version='latest')
        lines = [[cell.strip() for cell in line.strip('|').split('|')]
                 for line in out.splitlines() if line.startswith('|')]
        self.assertEqual([
            ['consumer_type', 'resource_class', 'usage', 'consumer_count'],
            ['INSTANCE', 'DISK_GB', '10', '1']], lines)

    def test_consumer_type_filter_at_1_38(self):
        rows = self.ok('resource', 'usage', 'show', 'project-1',
                       '--consumer-type', 'MIGRATION', '-f', 'json',
                       version='1.38')
        self.assertEqual([{'consumer_type': 'MIGRATION',
                           'resource_class': 'VCPU', 'usage': 1,
                           'consumer_count': 1}], rows)

    def test_consumer_type_all_sums_every_type(self):
        rows = self.ok('resource', 'usage', 'show', 'project-1',
                       '--consumer-type', 'all', '-f', 'json', version='1.38')
        self.assertEqual({('all', 'VCPU'): (3, 2),
                          ('all', 'MEMORY_MB'): (512, 2)},
                         {(r['consumer_type'], r['resource_class']):
                          (r['usage'], r['consumer_count']) for r in rows})

    def test_consumer_type_needs_1_38(self):
        err, code = self.fails('resource', 'usage', 'show', 'project-1',
                               '--consumer-type', 'INSTANCE', version='1.37')
        self.assertEqual((
            'Operation or argument is not supported with version 1.37; '
            'requires at least version 1.38\n', 1), (err, code))

    def test_consumer_type_refused_by_the_server(self):
        err, code = self.fails('resource', 'usage', 'show', 'project-1',
                               '--consumer-type', 'not a type!',
                               version='1.38')
        self.assertEqual(1, code)
        self.assertEqual(1, len(err.splitlines()))
        self.assertTrue(err.endswith('(HTTP 400)\n'), err)

    def test_unknown_project_has_no_usage(self):
        rows = self.ok('resource', 'usage', 'show', 'project-x', '-f',
                       'json', version='1.38')
        self.assertEqual([], rows)


class TestNoProvider(base.TestCase):

    def test_provider_usage_unknown_provider(self):
        err, code = self.fails('resource', 'provider', 'usage', 'show',
                               RP1)
        self.assertEqual((
            'No resource provider with uuid %s found: No resource provider '
            'with uuid %s found (HTTP 404)\n' % (RP1, RP1), 1), (err, code))
