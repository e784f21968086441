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

"""osc_placement.model.drain.inputs: the plan's values from records."""

from oslotest import base

from osc_placement.model.drain import cloud
from osc_placement.model.drain import inputs


def _record(uuid, name, root=None, parent=None):
    return {'uuid': uuid, 'name': name, 'root_provider_uuid': root or uuid,
            'parent_provider_uuid': parent}


RECORDS = [_record('b', 'cn-b'), _record('a', 'cn-a'),
           _record('g', 'gpu', root='a', parent='a'),
           _record('d', 'cn-d'), _record('x', 'other')]


class TestInputs(base.BaseTestCase):

    def test_inventory_defaults_and_fields(self):
        self.assertEqual(cloud.Inventory(8), inputs.inventory({'total': 8}))
        self.assertEqual(
            cloud.Inventory(8, 1, 2, 4, 2, 1.5),
            inputs.inventory({'total': 8, 'reserved': 1, 'min_unit': 2,
                              'max_unit': 4, 'step_size': 2,
                              'allocation_ratio': 1.5}))

    def test_provider_with_and_without_state(self):
        found = inputs.provider(RECORDS[2], traits={'T'}, state=(
            {'VGPU': {'total': 2}}, {'VGPU': 1}))
        self.assertEqual(('a', 'a', 1), (found.root, found.parent,
                                         found.free('VGPU')))
        self.assertEqual({}, inputs.provider(RECORDS[0]).inventories)

    def test_trees_and_roots(self):
        self.assertEqual(['a', 'g'], inputs.trees(RECORDS)['a'])
        self.assertEqual(['a'], inputs.roots(RECORDS, ['g', 'a', 'nosuch']))

    def test_targets(self):
        compute = {'a', 'b', 'd'}
        self.assertEqual(['a', 'b'], inputs.targets(
            RECORDS, compute, disabled={'d'}, drained=set()))
        self.assertEqual(['b'], inputs.targets(
            RECORDS, compute, disabled=set(), drained={'a'},
            narrowed={'b', 'x'}))

    def test_consumer(self):
        record = {'allocations': {'a': {'resources': {'VCPU': 1}}},
                  'consumer_generation': 3, 'project_id': 'p',
                  'user_id': 'u', 'consumer_type': 'INSTANCE'}
        found = inputs.consumer('c', record, server='vm (ACTIVE)')
        self.assertEqual((3, 'INSTANCE', {'a': {'VCPU': 1}}, 'vm (ACTIVE)'),
                         (found.generation, found.consumer_type,
                          found.allocations, found.server))
