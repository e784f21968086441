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


"""The client's work per tree for a 4-group isolate flavor; run by isolate.py.

Run with the python of the bench's ``ours`` virtualenv (this package as
users install it), as ``python isolate_child.py TREES``. It builds TREES
provider trees as ``capacity fit`` holds them once read (a compute root
with VCPU, MEMORY_MB and DISK_GB, eight identical children with VGPU),
translates GPU_FLAVOR as ``--flavor`` does (``flavors.translate()``),
and then does what ``capacity fit`` does for each tree once the trees
are read and Placement has answered: the local evaluation
(``verdicts.local_verdicts()``) and the row with its count
(``fit_requests.tree_fits()``), every tree a candidate for Placement.
It prints, as JSON, the process CPU time (user + system, not wall) of
that work and the rows' counts, which it checks against the closed form.
Imports only this package and the standard library.
"""

import json
import sys
import time

from osc_placement.api import fit_requests
from osc_placement.api import verdicts
from osc_placement.model import flavors

# Nova's request of this flavor: VCPU, MEMORY_MB and DISK_GB in the
# unnamed group, four groups of one VGPU each, each on its own provider.
GPU_FLAVOR = {
    'name': 'g1.4vgpu', 'vcpus': 4, 'ram': 8192, 'disk': 40,
    'ephemeral': 0, 'swap': 0,
    'extra_specs': dict([('resources%d:VGPU' % n, '1') for n in (1, 2, 3, 4)]
                        + [('group_policy', 'isolate')])}
CHILDREN = 8
# Each child's VGPU: total 4, of which (tree % 4) used on every child of
# the tree: the children of a tree stay identical, the trees differ.
VGPU_TOTAL = 4
ROOT_VCPU = 128
MICROVERSION = '1.39'


def _inventory(total):
    return {'total': total, 'reserved': 0, 'min_unit': 1,
            'max_unit': total, 'step_size': 1, 'allocation_ratio': 1.0}


def tree(number):
    """The provider records of tree ``number``, as Trees.read() keeps them."""
    root = 'aaaaaaaa-aaaa-4aaa-8aaa-%012d' % (number * (CHILDREN + 1))
    records = [{
        'uuid': root, 'name': 'gpu%05d' % number,
        'parent_provider_uuid': None, 'root_provider_uuid': root,
        'inventories': {'VCPU': _inventory(ROOT_VCPU),
                        'MEMORY_MB': _inventory(1048576),
                        'DISK_GB': _inventory(4000)},
        'usages': {'VCPU': 0, 'MEMORY_MB': 0, 'DISK_GB': 0},
        'traits': [], 'aggregates': []}]
    for child in range(CHILDREN):
        records.append({
            'uuid': 'aaaaaaaa-aaaa-4aaa-8aaa-%012d' % (
                number * (CHILDREN + 1) + 1 + child),
            'name': 'gpu%05d-vgpu%d' % (number, child),
            'parent_provider_uuid': root, 'root_provider_uuid': root,
            'inventories': {'VGPU': _inventory(VGPU_TOTAL)},
            'usages': {'VGPU': number % VGPU_TOTAL},
            'traits': [], 'aggregates': []})
    return records


def expected(number):
    """The count of tree ``number``, by the closed form.

    Each copy takes one VGPU on each of four distinct children: with f
    free on each of the eight, 8 f / 4 copies (the root's VCPU allows
    ROOT_VCPU / 4, more).
    """
    free = VGPU_TOTAL - number % VGPU_TOTAL
    return min(CHILDREN * free // 4, ROOT_VCPU // 4)


class Read(object):
    """The trees once read, as ``verdicts.Trees`` holds them."""

    def __init__(self, count):
        self.records = {}
        self.roots = []
        for number in range(count):
            records = tree(number)
            self.roots.append({'uuid': records[0]['uuid'],
                               'name': records[0]['name']})
            self.records[records[0]['uuid']] = records
        self.shared = {}

    def evaluated(self, root):
        return self.records[root]


def main(count):
    trees = Read(count)
    params = flavors.translate(GPU_FLAVOR).params
    placement = {root['uuid']: True for root in trees.roots}
    started = time.process_time()
    request, local = verdicts.local_verdicts(params, MICROVERSION, trees)
    rows = fit_requests.tree_fits(trees, request, local, placement)
    cpu = time.process_time() - started
    wrong = [(row.name, row.fits, row.at_most, expected(number))
             for number, row in enumerate(rows)
             if (row.fits, row.at_most) != (expected(number),) * 2]
    return {'trees': count, 'cpu_s': cpu,
            'query': '&'.join('%s=%s' % pair for pair in params),
            'sample': [list(row.shown()) for row in rows[:4]],
            'wrong': wrong[:5], 'wrong_count': len(wrong)}


if __name__ == '__main__':
    print(json.dumps(main(int(sys.argv[1]))))
