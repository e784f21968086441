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

"""Clouds to put on a server, through the Placement API as the admin.

* The sample cloud (:func:`seed`): six providers with fixed UUIDs, in the
  style of the contract cases, and three consumers. The end-to-end tests,
  the demo, the documentation examples and ``tox -e sandbox`` start from
  it.
* The scaled cloud (:func:`populate`): N providers in trees of five,
  shaped like compute-1 of the sample cloud, with UUIDs and names of their
  own, so that it can be added beside the sample cloud. ``tox -e sandbox
  -- --providers N`` and the benchmark create it, several requests in
  flight at once.

:func:`api` sends one request (never through a proxy) and returns the
decoded body.
"""

from concurrent import futures
import json
import urllib.error
import urllib.request

from osc_placement.tests.support import client
from osc_placement.tests.support import SandboxError

# The microversion of every request of this module (consumer types).
VERSION = '1.39'

# Our own requests to the server never go through an HTTP proxy.
_urlopen = urllib.request.build_opener(urllib.request.ProxyHandler({})).open


def api(endpoint, method, path, body=None, version=VERSION, timeout=30,
        token=client.TOKEN):
    """One request to Placement as the admin; returns the decoded body.

    ``token``: the sandbox's ``noauth2`` admin token by default, or a
    Keystone token where Placement validates them.

    Raises SandboxError on a status >= 400, and OSError when the server
    cannot be reached.
    """
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        endpoint + path, data=data, method=method,
        headers={'X-Auth-Token': token, 'Accept': 'application/json',
                 'OpenStack-API-Version': 'placement %s' % version})
    if data is not None:
        req.add_header('Content-Type', 'application/json')
    try:
        with _urlopen(req, timeout=timeout) as resp:
            content = resp.read()
    except urllib.error.HTTPError as exc:
        raise SandboxError('%s %s: HTTP %s %s' % (
            method, path, exc.code, exc.read().decode('utf-8', 'replace')))
    return json.loads(content) if content else None


def provider_uuids(endpoint, token=client.TOKEN):
    """The UUIDs of every provider on the server."""
    return {rp['uuid'] for rp in api(endpoint, 'GET', '/resource_providers',
                                     token=token)['resource_providers']}


def is_empty(endpoint, token=client.TOKEN):
    """True when the server has no resource provider."""
    return not provider_uuids(endpoint, token)


def create_provider(endpoint, name, uuid, parent, inventories, traits,
                    aggregates, token=client.TOKEN):
    """Create a provider with its inventories, traits and aggregates.

    The parent must exist. Four requests, one after another (each needs
    the generation the previous one returned); no aggregate request when
    ``aggregates`` is empty.
    """
    rp = api(endpoint, 'POST', '/resource_providers',
             {'name': name, 'uuid': uuid, 'parent_provider_uuid': parent},
             token=token)
    path = '/resource_providers/%s' % uuid
    generation = api(endpoint, 'PUT', path + '/inventories',
                     {'inventories': inventories,
                      'resource_provider_generation': rp['generation']},
                     token=token)['resource_provider_generation']
    generation = api(endpoint, 'PUT', path + '/traits',
                     {'traits': traits,
                      'resource_provider_generation': generation},
                     token=token)['resource_provider_generation']
    if aggregates:
        api(endpoint, 'PUT', path + '/aggregates',
            {'aggregates': aggregates,
             'resource_provider_generation': generation}, token=token)


def create_names(endpoint, traits, classes, token=client.TOKEN):
    """Create custom traits and resource classes (those there are kept)."""
    for trait in traits:
        api(endpoint, 'PUT', '/traits/%s' % trait, token=token)
    for rc in classes:
        api(endpoint, 'PUT', '/resource_classes/%s' % rc, token=token)


# -- the sample cloud ---------------------------------------------------------

def _rp(n):
    return 'aaaaaaaa-aaaa-4aaa-8aaa-%012d' % n


def _consumer(n):
    return 'cccccccc-cccc-4ccc-8ccc-%012d' % n


# Fixed identifiers, in the style of the contract cases.
COMPUTE1 = _rp(1)
COMPUTE1_NUMA0 = _rp(11)
COMPUTE1_NUMA1 = _rp(12)
COMPUTE1_PF0 = _rp(21)   # SR-IOV physical function under NUMA node 0
COMPUTE1_PF1 = _rp(22)   # ... and under NUMA node 1
COMPUTE2 = _rp(2)
AGGREGATE = 'dddddddd-dddd-4ddd-8ddd-000000000001'
VM1 = _consumer(1)
VM2 = _consumer(2)
VM3 = _consumer(3)
PROJECT = 'project-1'
USER = 'user-1'
CUSTOM_TRAITS = ('CUSTOM_PHYSNET1', 'CUSTOM_LICENSED_WINDOWS')
CUSTOM_CLASSES = ('CUSTOM_FPGA',)

# name, uuid, parent, inventories, traits
PROVIDERS = (
    ('compute-1', COMPUTE1, None,
     {'DISK_GB': {'total': 1000, 'reserved': 50}},
     ['COMPUTE_VOLUME_MULTI_ATTACH']),
    ('compute-1_NUMA0', COMPUTE1_NUMA0, COMPUTE1,
     {'VCPU': {'total': 8, 'allocation_ratio': 4.0},
      'MEMORY_MB': {'total': 16384, 'reserved': 512}},
     ['HW_NUMA_ROOT']),
    ('compute-1_NUMA1', COMPUTE1_NUMA1, COMPUTE1,
     {'VCPU': {'total': 8, 'allocation_ratio': 4.0},
      'MEMORY_MB': {'total': 16384, 'reserved': 512}},
     ['HW_NUMA_ROOT']),
    ('compute-1_ens1f0', COMPUTE1_PF0, COMPUTE1_NUMA0,
     {'SRIOV_NET_VF': {'total': 8}},
     ['CUSTOM_PHYSNET1', 'HW_NIC_SRIOV']),
    ('compute-1_ens1f1', COMPUTE1_PF1, COMPUTE1_NUMA1,
     {'SRIOV_NET_VF': {'total': 8}},
     ['CUSTOM_PHYSNET1', 'HW_NIC_SRIOV']),
    ('compute-2', COMPUTE2, None,
     {'VCPU': {'total': 16, 'allocation_ratio': 4.0},
      'MEMORY_MB': {'total': 32768, 'reserved': 512,
                    'allocation_ratio': 1.5},
      'DISK_GB': {'total': 2000, 'reserved': 100},
      'CUSTOM_FPGA': {'total': 2, 'max_unit': 1}},
     ['HW_CPU_X86_AVX2', 'CUSTOM_LICENSED_WINDOWS']),
)

# consumer, project, user, {provider: {class: amount}}
ALLOCATIONS = (
    (VM1, PROJECT, USER,
     {COMPUTE2: {'VCPU': 2, 'MEMORY_MB': 4096, 'DISK_GB': 40}}),
    (VM2, PROJECT, 'user-2',
     {COMPUTE1: {'DISK_GB': 20},
      COMPUTE1_NUMA0: {'VCPU': 4, 'MEMORY_MB': 8192},
      COMPUTE1_PF0: {'SRIOV_NET_VF': 1}}),
    (VM3, 'project-2', USER,
     {COMPUTE2: {'VCPU': 1, 'MEMORY_MB': 1024, 'DISK_GB': 10,
                 'CUSTOM_FPGA': 1}}),
)


def seed(endpoint, token=client.TOKEN):
    """Create the sample cloud described by PROVIDERS and ALLOCATIONS.

    Expects a server without them. Two compute nodes in one aggregate:
    compute-1 has two NUMA node children, each with an SR-IOV physical
    function child (trait CUSTOM_PHYSNET1); compute-2 is flat and has a
    custom resource class. Three consumers hold allocations. One request
    at a time, always in the same order: the examples of the user guide
    are printed from this cloud.
    """
    create_names(endpoint, CUSTOM_TRAITS, CUSTOM_CLASSES, token)
    for name, uuid, parent, inventories, traits in PROVIDERS:
        create_provider(endpoint, name, uuid, parent, inventories, traits,
                        [AGGREGATE] if parent is None else [], token)
    for consumer, project, user, allocations in ALLOCATIONS:
        api(endpoint, 'PUT', '/allocations/%s' % consumer,
            {'allocations': {rp: {'resources': resources}
                             for rp, resources in allocations.items()},
             'project_id': project, 'user_id': user,
             'consumer_generation': None, 'consumer_type': 'INSTANCE'},
            token=token)


# -- the scaled cloud ---------------------------------------------------------
#
# Providers come in trees of five, shaped like compute-1::
#
#     cn00042                 DISK_GB          (+ CUSTOM_FPGA every 10th)
#     ├── cn00042-numa0       VCPU, MEMORY_MB
#     │   └── cn00042-pf0     SRIOV_NET_VF
#     └── cn00042-numa1       VCPU, MEMORY_MB
#         └── cn00042-pf1     SRIOV_NET_VF
#
# Provider p (0-based) is member p % 5 of tree p // 5 and has the UUID
# provider_uuid(p), whatever N is; the last tree is cut short when N is not
# a multiple of 5. Every provider has traits; every root is in the
# aggregate of its rack (20 racks); the NUMA nodes of trees 0-49 form the
# aggregate AGG_100 (100 providers) and those of trees 50-299 the aggregate
# AGG_500 (500 providers), which the benchmark's ``inventory set
# --aggregate`` works on. Each complete tree has one consumer holding disk
# on the root, CPU and memory on NUMA node 0 and a VF on its PF. No UUID,
# name or aggregate is one of the sample cloud's.

TREE = 5
RACKS = 20
AGG_100 = 'dddddddd-dddd-4ddd-8ddd-100000000100'
AGG_500 = 'dddddddd-dddd-4ddd-8ddd-100000000500'
AGG_TREES = {AGG_100: range(0, 50), AGG_500: range(50, 300)}
SCALED_CLASSES = ('CUSTOM_FPGA',)
SCALED_TRAITS = tuple('CUSTOM_RACK%02d' % r for r in range(RACKS)) + (
    'CUSTOM_PHYSNET0', 'CUSTOM_PHYSNET1')
# Consumers posted per request.
ALLOCATION_BATCH = 250
# Requests in flight at once by default.
PARALLEL = 8

NUMA_VCPU = {'total': 16, 'reserved': 0, 'min_unit': 1, 'max_unit': 16,
             'step_size': 1, 'allocation_ratio': 4.0}


def provider_uuid(p):
    """The UUID of provider ``p`` of the scaled cloud."""
    return 'bbbbbbbb-bbbb-4bbb-8bbb-%012d' % p


def consumer_uuid(tree):
    """The UUID of the consumer of a tree of the scaled cloud."""
    return 'ffffffff-ffff-4fff-8fff-%012d' % tree


def rack_aggregate(rack):
    return 'dddddddd-dddd-4ddd-8ddd-2%011d' % rack


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
            inventories['CUSTOM_FPGA'] = _inv(2, max_unit=1)
        return (name, provider_uuid(p), None, inventories,
                ['COMPUTE_VOLUME_MULTI_ATTACH', 'HW_CPU_X86_AVX2',
                 'CUSTOM_RACK%02d' % (tree % RACKS)],
                [rack_aggregate(tree % RACKS)])
    if role in (1, 2):
        numa = role - 1
        aggregates = [agg for agg, trees in AGG_TREES.items()
                      if tree in trees]
        return ('%s-numa%d' % (name, numa), provider_uuid(p),
                provider_uuid(root),
                {'VCPU': dict(NUMA_VCPU),
                 'MEMORY_MB': _inv(65536, reserved=512, ratio=1.5)},
                ['HW_NUMA_ROOT'], aggregates)
    pf = role - 3
    return ('%s-pf%d' % (name, pf), provider_uuid(p),
            provider_uuid(root + 1 + pf), {'SRIOV_NET_VF': _inv(8)},
            ['HW_NIC_SRIOV', 'CUSTOM_PHYSNET%d' % pf], [])


def consumer(tree):
    """The consumer of a complete tree, as ``POST /allocations`` takes it."""
    root = tree * TREE
    return {'allocations': {
        provider_uuid(root): {'resources': {'DISK_GB': 20}},
        provider_uuid(root + 1): {'resources': {'VCPU': 2,
                                                'MEMORY_MB': 4096}},
        provider_uuid(root + 3): {'resources': {'SRIOV_NET_VF': 1}}},
        'project_id': 'project-%d' % (tree % 5),
        'user_id': 'user-%d' % (tree % 7),
        'consumer_generation': None,
        'consumer_type': 'INSTANCE'}


# Seconds a POST /allocations of ALLOCATION_BATCH consumers may take.
ALLOCATION_TIMEOUT = 300


def populate(endpoint, n, parallel=PARALLEL, token=client.TOKEN):
    """Create the first ``n`` providers of the scaled cloud and consumers.

    The providers already on the server are left as they are, so the
    scaled cloud can be added beside the sample cloud, or grown by a
    later call. The trees are made ``parallel`` at a time (the requests
    of one tree go one after another: each needs its parent, or the
    generation of the previous one), then the consumers of the complete
    trees that this call made, ``ALLOCATION_BATCH`` per request. Returns
    the number of providers created.
    """
    existing = provider_uuids(endpoint, token)
    create_names(endpoint, SCALED_TRAITS, SCALED_CLASSES, token)
    missing = {}
    for p in range(n):
        if provider_uuid(p) not in existing:
            missing.setdefault(p // TREE, []).append(p)

    def make_tree(tree):
        for p in missing[tree]:
            create_provider(endpoint, *provider(p), token=token)

    complete = [tree for tree in sorted(missing)
                if (tree + 1) * TREE <= n]
    batches = [complete[i:i + ALLOCATION_BATCH]
               for i in range(0, len(complete), ALLOCATION_BATCH)]

    def allocate(batch):
        # One request writes a whole batch: on a loaded machine it can
        # take far longer than the default timeout.
        api(endpoint, 'POST', '/allocations',
            {consumer_uuid(tree): consumer(tree) for tree in batch},
            token=token, timeout=ALLOCATION_TIMEOUT)

    with futures.ThreadPoolExecutor(max(1, parallel)) as pool:
        # list(): the first error, if any, is raised here.
        list(pool.map(make_tree, sorted(missing)))
        list(pool.map(allocate, batches))
    return sum(len(members) for members in missing.values())
