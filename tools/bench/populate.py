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

"""The benchmark cloud: N providers laid out the same way for every N.

Providers come in trees of five, like a compute node with two NUMA nodes,
each with an SR-IOV physical function::

    cn00042                 DISK_GB          (+ CUSTOM_BENCH_FPGA every 10th)
    ├── cn00042-numa0       VCPU, MEMORY_MB
    │   └── cn00042-pf0     SRIOV_NET_VF
    └── cn00042-numa1       VCPU, MEMORY_MB
        └── cn00042-pf1     SRIOV_NET_VF

Provider ``p`` (0-based) is member ``p % 5`` of tree ``p // 5`` and has the
UUID ``aaaaaaaa-aaaa-4aaa-8aaa-<p on 12 digits>``, whatever N is; the last
tree is cut short when N is not a multiple of 5. Every provider has traits;
every root is in the aggregate of its rack (20 racks); the NUMA nodes of
trees 0-49 form the aggregate AGG_100 (100 providers) and those of trees
50-299 the aggregate AGG_500 (500 providers), which ``inventory set
--aggregate`` works on. Each complete tree has one consumer holding disk on
the root, CPU and memory on NUMA node 0 and a VF on its PF.

Everything goes through the Placement API (one request per provider and
kind of data, as the API has no bulk write for them; allocations are posted
250 consumers at a time).
"""

TREE = 5
RACKS = 20
AGG_100 = 'dddddddd-dddd-4ddd-8ddd-100000000100'
AGG_500 = 'dddddddd-dddd-4ddd-8ddd-100000000500'
AGG_TREES = {AGG_100: range(0, 50), AGG_500: range(50, 300)}
CUSTOM_CLASSES = ('CUSTOM_BENCH_FPGA',)
CUSTOM_TRAITS = tuple('CUSTOM_BENCH_RACK%02d' % r for r in range(RACKS)) + (
    'CUSTOM_PHYSNET0', 'CUSTOM_PHYSNET1')

NUMA_VCPU = {'total': 16, 'reserved': 0, 'min_unit': 1, 'max_unit': 16,
             'step_size': 1, 'allocation_ratio': 4.0}


EXTRA = 'eeeeeeee-eeee-4eee-8eee-%012d'


def rp_uuid(p):
    return 'aaaaaaaa-aaaa-4aaa-8aaa-%012d' % p


def consumer_uuid(t):
    return 'cccccccc-cccc-4ccc-8ccc-%012d' % t


def rack_aggregate(rack):
    return 'dddddddd-dddd-4ddd-8ddd-%012d' % rack


def _inv(total, reserved=0, max_unit=None, ratio=1.0):
    return {'total': total, 'reserved': reserved, 'min_unit': 1,
            'max_unit': max_unit or total, 'step_size': 1,
            'allocation_ratio': ratio}


def provider(p):
    """(name, uuid, parent uuid, inventories, traits, aggregates) of p."""
    tree, role = divmod(p, TREE)
    root = tree * TREE
    name = 'cn%05d' % tree
    if role == 0:
        inventories = {'DISK_GB': _inv(2000, reserved=100)}
        if tree % 10 == 0:
            inventories['CUSTOM_BENCH_FPGA'] = _inv(2, max_unit=1)
        return (name, rp_uuid(p), None, inventories,
                ['COMPUTE_VOLUME_MULTI_ATTACH', 'HW_CPU_X86_AVX2',
                 'CUSTOM_BENCH_RACK%02d' % (tree % RACKS)],
                [rack_aggregate(tree % RACKS)])
    if role in (1, 2):
        numa = role - 1
        aggregates = [agg for agg, trees in AGG_TREES.items()
                      if tree in trees]
        return ('%s-numa%d' % (name, numa), rp_uuid(p), rp_uuid(root),
                {'VCPU': dict(NUMA_VCPU),
                 'MEMORY_MB': _inv(65536, reserved=512, ratio=1.5)},
                ['HW_NUMA_ROOT'], aggregates)
    pf = role - 3
    return ('%s-pf%d' % (name, pf), rp_uuid(p), rp_uuid(root + 1 + pf),
            {'SRIOV_NET_VF': _inv(8)},
            ['HW_NIC_SRIOV', 'CUSTOM_PHYSNET%d' % pf], [])


def allocation(tree):
    """The allocations of the consumer of a complete tree."""
    root = tree * TREE
    return {rp_uuid(root): {'resources': {'DISK_GB': 20}},
            rp_uuid(root + 1): {'resources': {'VCPU': 2,
                                              'MEMORY_MB': 4096}},
            rp_uuid(root + 3): {'resources': {'SRIOV_NET_VF': 1}}}


def aggregate_members(aggregate, n):
    """UUIDs of the providers of AGG_100 or AGG_500 among the first n."""
    return [rp_uuid(t * TREE + role) for t in AGG_TREES[aggregate]
            for role in (1, 2) if t * TREE + role < n]


def _create_tree(api, tree, n):
    for p in range(tree * TREE, min(n, (tree + 1) * TREE)):
        name, uuid, parent, inventories, traits, aggregates = provider(p)
        body = {'name': name, 'uuid': uuid}
        if parent:
            body['parent_provider_uuid'] = parent
        generation = api('POST', '/resource_providers', body)['generation']
        path = '/resource_providers/%s' % uuid
        generation = api('PUT', path + '/inventories',
                         {'inventories': inventories,
                          'resource_provider_generation': generation}
                         )['resource_provider_generation']
        generation = api('PUT', path + '/traits',
                         {'traits': traits,
                          'resource_provider_generation': generation}
                         )['resource_provider_generation']
        if aggregates:
            api('PUT', path + '/aggregates',
                {'aggregates': aggregates,
                 'resource_provider_generation': generation})


def populate(api, n, start=0, progress=None):
    """Create providers start..n-1, their data and their consumers.

    ``api(method, path, body)`` sends one request and returns the decoded
    body. With ``start`` 0 the server must be empty; otherwise it must hold
    exactly the first ``start`` providers (a multiple of 5), made by this
    function. Requests are sent one at a time: the sandbox has one worker
    and SQLite one writer, so threads only slow it down (measured), and
    the creation order, hence the server's internal ids, stays the same.
    """
    if start % TREE:
        raise ValueError('start must be a multiple of %d' % TREE)
    if start == 0:
        for rc in CUSTOM_CLASSES:
            api('PUT', '/resource_classes/%s' % rc, None)
        for trait in CUSTOM_TRAITS:
            api('PUT', '/traits/%s' % trait, None)
    first, trees = start // TREE, (n + TREE - 1) // TREE
    for t in range(first, trees):
        _create_tree(api, t, n)
        if progress and (t + 1 - first) % 200 == 0:
            progress('%d/%d trees' % (t + 1 - first, trees - first))
    complete = n // TREE
    batch = 250
    for begin in range(first, complete, batch):
        body = {consumer_uuid(t): {
            'allocations': allocation(t),
            'project_id': 'project-%d' % (t % 5),
            'user_id': 'user-%d' % (t % 7),
            'consumer_generation': None,
            'consumer_type': 'INSTANCE'}
            for t in range(begin, min(complete, begin + batch))}
        api('POST', '/allocations', body)


def restore(api, what):
    """Put the cloud back before a run of a command that changes it.

    ``what`` is None (nothing to do) or ``['extra', count]``: the
    providers EXTRA % 0..count-1, without data, which a multi-delete
    removes; those missing are created.
    """
    if not what:
        return
    kind, count = what
    if kind != 'extra':
        raise ValueError('unknown restore %r' % kind)
    there = {rp['uuid'] for rp in api('GET', '/resource_providers',
                                      None)['resource_providers']}
    for i in range(count):
        if EXTRA % i not in there:
            api('POST', '/resource_providers',
                {'name': 'bench-extra-%05d' % i, 'uuid': EXTRA % i})
