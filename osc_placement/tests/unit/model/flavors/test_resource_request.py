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

"""A flavor's request as the rules build it (``resource_request.py``).

``Request`` directly, without the rules: the query it writes (the group
policy, the unnamed group with its aggregates and ``in_tree``, the other
groups by suffix, ``root_required``) and the microversion each part
needs; the enumerated and boolean specs it reads; its one-line refusal.
"""

from oslotest import base

from osc_placement.model.flavors import resource_request

AGG = '00000000-0000-0000-0000-000000000001'


def request(**options):
    return resource_request.Request(
        {'name': 'm\n1', 'vcpus': 2,
         'extra_specs': {'hw:cpu_policy': 'x', 'hw:mem_encryption': ' True',
                         'hw:cpu_realtime': 'maybe'}},
        **options)


class TestQuery(base.BaseTestCase):

    def test_groups_in_order_and_the_versions_they_need(self):
        found = request(required=['CUSTOM_U'], member_of=['!' + AGG],
                        in_tree='rp-1', root_required=['!CUSTOM_R'])
        found.group_policy = 'none'
        found.add_resource('VCPU', 2)
        found.add_resource('VGPU', 1, suffix='_gpu')
        found.add_resource('PCPU', 1, suffix='1')
        found.add_trait('CUSTOM_F', suffix='1', forbidden=True)
        found.root_required.add('CUSTOM_ROOT')
        params, needs = found.query()
        self.assertEqual(
            [('group_policy', 'none'),
             ('resources', 'VCPU:2'), ('required', 'CUSTOM_U'),
             ('member_of', '!' + AGG), ('in_tree', 'rp-1'),
             ('resources1', 'PCPU:1'), ('required1', '!CUSTOM_F'),
             ('resources_gpu', 'VGPU:1'),
             ('root_required', 'CUSTOM_ROOT,!CUSTOM_R')], params)
        self.assertEqual('1.35', resource_request.Translation(
            params, needs, [], []).microversion)
        self.assertIn(('request group _gpu', '1.33'), needs)
        self.assertIn(('forbidden aggregates', '1.32'), needs)

    def test_no_unnamed_group_without_anything_for_it(self):
        found = request()
        found.add_resource('PCPU', 1, suffix='1')
        self.assertEqual([('resources1', 'PCPU:1')], found.query()[0])

    def test_complete_without_untranslated_specs(self):
        self.assertEqual(
            (True, False),
            (resource_request.Translation([], [], [], []).complete,
             resource_request.Translation([], [], [], ['x']).complete))


class TestSpecs(base.BaseTestCase):

    def test_boolean(self):
        found = request()
        self.assertEqual((True, None),
                         (found.boolean('hw:mem_encryption'),
                          found.boolean('hw:unset')))

    def test_refusals_are_one_line_naming_the_spec(self):
        found = request()
        exc = self.assertRaises(resource_request.Refused, found.boolean,
                                'hw:cpu_realtime')
        self.assertEqual(
            'Flavor m\\n1: extra spec hw:cpu_realtime=maybe: not a '
            'boolean (true or false); Nova refuses it.', str(exc))
        exc = self.assertRaises(resource_request.Refused, found.choice,
                                'hw:cpu_policy')
        self.assertEqual('m\\n1', exc.flavor)
        self.assertTrue(exc.reason.startswith(
            'extra spec hw:cpu_policy=x: not one of dedicated, shared, '
            'mixed'), exc.reason)
