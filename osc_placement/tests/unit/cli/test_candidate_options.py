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

"""The candidates request of the candidate commands (``candidate_options.py``).

``allocation candidate list`` against a fake Placement: the query in the
order the reference sends it (``--limit``, ``group_policy``, then each
group's resources, traits and aggregates, then ``root_required`` and
``same_subtree``); ``--aggregate-uuid`` sent as ``member_of`` with its
deprecation warning; a ``--limit`` below 1 refused before any request.
"""

from urllib import parse

from osc_placement.tests.unit import base

URL = base.ENDPOINT
AGG = '11111111-1111-4111-8111-111111111111'
EMPTY = {'allocation_requests': [], 'provider_summaries': {}}


class TestQuery(base.TestCase):

    command = ('allocation', 'candidate', 'list')
    api_version = '1.39'

    def setUp(self):
        super().setUp()
        self.requests_mock.get(URL + '/allocation_candidates', json=EMPTY)

    def query(self):
        (_method, path), = self.sent()
        self.assertTrue(path.startswith('/allocation_candidates?'), path)
        return parse.parse_qsl(path.split('?', 1)[1])

    def test_in_the_order_of_the_reference(self):
        out, err, code = self.openstack(
            '--limit', '5', '--group-policy', 'isolate',
            '--resource', 'VCPU=1', '--required', 'CUSTOM_A',
            '--member-of', AGG, '--group', '1', '--resource', 'PCPU=2',
            '--forbidden', 'CUSTOM_B', '--root-required', 'CUSTOM_R',
            '--same-subtree', '1,_x', '--group', '_x', '--resource',
            'VGPU=1')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            [('limit', '5'), ('group_policy', 'isolate'),
             ('resources', 'VCPU:1'), ('required', 'CUSTOM_A'),
             ('member_of', 'in:' + AGG),
             ('resources1', 'PCPU:2'), ('required1', '!CUSTOM_B'),
             ('resources_x', 'VGPU:1'),
             ('root_required', 'CUSTOM_R'), ('same_subtree', '1,_x')],
            self.query())

    def test_aggregate_uuid_is_member_of_with_a_warning(self):
        out, err, code = self.openstack(
            '--resource', 'VCPU=1', '--aggregate-uuid', AGG)
        self.assertEqual(0, code)
        self.assertIn('--aggregate-uuid', err)
        self.assertIn('--member-of', err)
        self.assertEqual([('resources', 'VCPU:1'),
                          ('member_of', 'in:' + AGG)], self.query())

    def test_limit_below_one_refused_before_any_request(self):
        out, err, code = self.openstack('--resource', 'VCPU=1',
                                        '--limit', '0')
        self.assertNotEqual(0, code)
        self.assertIn('--limit', err)
        self.assertEqual(1, len(err.strip().splitlines()), err)
        self.assertEqual([], self.sent())
