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

"""The provider trees the unit tests of the evaluation are made of.

Records as ``evaluation.provider_record()`` builds them: ``rp()`` one
provider, ``host()`` a tree of one, ``numa_tree()`` a compute node with two
NUMA nodes below it; ``inv()`` an inventory with every field. The test
modules import these names as they are, for the tables of cases to read.
"""

AGG1 = '11111111-1111-4111-8111-111111111111'
AGG2 = '22222222-2222-4222-8222-222222222222'
ROOT = 'aaaaaaaa-0000-4000-8000-000000000000'
NUMA0 = 'aaaaaaaa-0000-4000-8000-000000000001'
NUMA1 = 'aaaaaaaa-0000-4000-8000-000000000002'
OTHER = 'bbbbbbbb-0000-4000-8000-000000000000'


def inv(total, reserved=0, ratio=1.0, min_unit=1, max_unit=None, step=1):
    return {'total': total, 'reserved': reserved, 'allocation_ratio': ratio,
            'min_unit': min_unit,
            'max_unit': total if max_unit is None else max_unit,
            'step_size': step}


def rp(uuid, name, parent=None, inventories=None, usages=None, traits=(),
       aggregates=()):
    return {'uuid': uuid, 'name': name, 'parent_provider_uuid': parent,
            'root_provider_uuid': ROOT if parent else uuid,
            'inventories': inventories or {}, 'usages': usages or {},
            'traits': list(traits), 'aggregates': list(aggregates)}


def host(**kwargs):
    """A tree of one provider."""
    return [rp(ROOT, 'cn1', **kwargs)]


def numa_tree(root=None, numa0=None, numa1=None):
    """A compute node with two NUMA nodes below it."""
    return [rp(ROOT, 'cn1', **(root or {})),
            rp(NUMA0, 'numa0', parent=ROOT, **(numa0 or {})),
            rp(NUMA1, 'numa1', parent=ROOT, **(numa1 or {}))]


VCPU16 = {'inventories': {'VCPU': inv(16)}, 'usages': {'VCPU': 14}}
VCPU32 = inv(32, max_unit=64)
