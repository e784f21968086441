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

"""A Nova with servers and migrations, and Placement's view of them.

:class:`SeededNovaCloud` is the fixture: a :class:`~.stack.NovaCloud`,
the stand-in network API the Nova API asks when it lists servers
(:mod:`.neutron`) in the catalog, and a scenario seeded.

:func:`seed` writes a :class:`Scenario` into a running
:class:`~.stack.NovaCloud`: Nova's records through Nova's own object
layer (:mod:`.nova_objects`, in a subprocess with this Python, which must
have the ``nova`` package), then the providers, aggregates and
allocations in the real Placement through its API, as the admin.

:func:`audit_scenario` is the cloud of the audit: a few compute nodes
and a sharing provider, and for each kind of finding of ``resource
provider audit`` one case whose finding is known (:attr:`Scenario.
expected`), plus the cases that must not be findings (a healthy server,
a migration in progress, a server whose disk is on the sharing
provider). Its UUIDs and names are fixed and are nobody else's.

The specification :mod:`.nova_objects` reads is JSON: ``flavors``
(``name``, ``flavorid``, ``vcpus``, ``memory_mb``, ``root_gb``,
``ephemeral_gb``, ``swap``, ``extra_specs``), ``hosts`` (``host``, the
compute node's ``uuid`` which is its provider's, ``vcpus``,
``memory_mb``, ``local_gb``, and optionally ``node``, the compute
node's ``hypervisor_hostname`` where it is not the host's name, and
``disabled``, its service disabled),
``servers`` (``uuid``, ``name``,
``flavor``, ``host`` or null, ``image`` (its UUID, or empty for a
volume-backed server), ``project``, ``user``, ``vm_state``,
``task_state``, ``deleted``, ``launched``, and optionally
``pinned_zone``, the zone it was booted into, which its request spec
pins it to), ``migrations`` (``uuid``,
``server``, ``type``, ``status``, ``source``, ``dest``, ``flavor``,
``project``, ``user``, ``updated_at``) and ``aggregates`` (``name``,
``uuid``, ``hosts``, ``zone``), and ``delete_servers`` (UUIDs). Times
are ``YYYY-MM-DDTHH:MM:SS`` UTC.
"""

import datetime
import json
import os
import subprocess
import sys
import tempfile

import fixtures

from osc_placement.tests.support import cloud
from osc_placement.tests.support import neutron
from osc_placement.tests.support import SandboxError
from osc_placement.tests.support import stack

SEED_TIMEOUT = 300


def _uuid(kind, n):
    """A fixed UUID: ``kind`` (four hex digits) says what it names."""
    return '%s0000-0000-4000-8000-%012d' % (kind, n)


# Compute nodes (compute node UUID = provider UUID) and other providers.
CMP1, CMP2, CMP3 = (_uuid('c0de', n) for n in (1, 2, 3))
CMP1_GPU = _uuid('c0de', 11)          # a pGPU child of cmp-1 (VGPU)
STALE = _uuid('c0de', 9)              # a compute provider no node has
SHARED = _uuid('d15c', 1)             # a sharing DISK_GB provider
# Servers.
SRV_OK, SRV_DELETED, SRV_MIGRATED, SRV_RESIZING, SRV_EVACUATED, \
    SRV_WRONG_HOST, SRV_NO_ALLOC, SRV_OWNER, SRV_BUILDING, SRV_SHARED = (
        _uuid('5e7e', n) for n in range(1, 11))
# A server whose flavor asks for a vGPU (heal_allocations stops at it):
# never in audit_scenario(), see vgpu_server().
SRV_VGPU = _uuid('5e7e', 11)
# Consumers that never were servers.
NEVER_SERVER, NEVER_SERVER_CUSTOM, NEVER_SERVER_VGPU = (
    _uuid('0c0c', n) for n in (1, 2, 3))
# Migrations.
MIG_CONFIRMED, MIG_RESIZING, MIG_EVACUATION = (
    _uuid('a161', n) for n in (1, 2, 3))
# Written by later_cases() only, after the tests of the scenario as
# seeded: a flavor drift, a migration that ended a minute ago, a
# reinstalled compute (its new node, and its old provider that holds the
# name) and servers that failed to schedule.
SRV_DRIFT = _uuid('5e7e', 12)
MIG_RECENT = _uuid('a161', 4)
CMP4, CMP4_OLD = _uuid('c0de', 4), _uuid('c0de', 14)
FAILED_SERVERS = 200
# Host aggregates (Nova's UUIDs, mirrored or not in Placement).
AGG_MIRRORED, AGG_UNMIRRORED = (_uuid('a99e', n) for n in (1, 2))
AGG_SHARED = _uuid('a99e', 9)         # Placement only: the sharing one

# The image of every server (no Glance here: the compute API shows the
# UUID; a server without one would be volume-backed, its disk not
# Placement's).
IMAGE = _uuid('1a9e', 1)

PROJECT, USER = 'project-a', 'user-a'
OTHER_PROJECT, OTHER_USER = 'project-b', 'user-b'
CUSTOM_CLASS = 'CUSTOM_FPGA_SLOT'

FLAVOR = {'name': 'm1.seed', 'flavorid': 'seed-1', 'vcpus': 2,
          'memory_mb': 2048, 'root_gb': 20, 'ephemeral_gb': 0, 'swap': 0,
          'extra_specs': {}}
VGPU_FLAVOR = dict(FLAVOR, name='m1.seed-vgpu', flavorid='seed-vgpu',
                   extra_specs={'resources:VGPU': '1'})
# What heal_allocations writes for a server of FLAVOR.
FLAVOR_RESOURCES = {'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 20}

HOST_SIZE = {'vcpus': 16, 'memory_mb': 32768, 'local_gb': 500}
ROOT_INVENTORY = {'VCPU': {'total': 16, 'allocation_ratio': 4.0},
                  'MEMORY_MB': {'total': 32768},
                  'DISK_GB': {'total': 500}}


def ago(now, minutes):
    """The specification's time ``minutes`` before ``now``."""
    return (now - datetime.timedelta(minutes=minutes)).strftime(
        '%Y-%m-%dT%H:%M:%S')


class Scenario(object):
    """What to write in Nova and Placement, and the findings it holds.

    ``nova``: the specification of :mod:`.nova_objects`.
    ``providers``: (name, uuid, parent, inventories, traits, aggregates)
    in creation order. ``allocations``: (consumer, consumer type,
    project, user, {provider: {class: amount}}). ``expected``: kind of
    finding -> the consumers (or, for ``provider``, the providers; for
    ``aggregate``, (provider, aggregate, 'add' or 'remove')) it must
    name, sorted. ``quiet``: consumers that must not be findings.
    """

    def __init__(self, nova, providers, allocations, expected, quiet):
        self.nova = nova
        self.providers = providers
        self.allocations = allocations
        self.expected = expected
        self.quiet = quiet

    @property
    def servers(self):
        """{uuid: server spec} of every server, deleted ones included."""
        return {s['uuid']: s for s in self.nova['servers']}


def _server(uuid, name, host, **extra):
    spec = {'uuid': uuid, 'name': name, 'flavor': FLAVOR['name'],
            'host': host, 'image': IMAGE, 'project': PROJECT, 'user': USER,
            'vm_state': 'active', 'task_state': None, 'deleted': False,
            'launched': '2026-01-01T00:00:00'}
    spec.update(extra)
    return spec


def audit_scenario(now=None):
    """The audit's cloud: one known case of each kind (module docstring).

    ``now``: the time the migrations' ages are counted from (default:
    the current UTC time). Hosts cmp-1, cmp-2 and cmp-3; cmp-1 has a
    pGPU child with VGPU; cmp-2 shares the disk of ``shared-disk``
    (Placement aggregate ``AGG_SHARED``).
    """
    now = now or datetime.datetime.now(datetime.timezone.utc)
    hosts = [dict(host=name, uuid=uuid, **HOST_SIZE)
             for name, uuid in (('cmp-1', CMP1), ('cmp-2', CMP2),
                                ('cmp-3', CMP3))]
    servers = [
        _server(SRV_OK, 'srv-ok', 'cmp-1'),
        _server(SRV_DELETED, 'srv-deleted', 'cmp-1', deleted=True),
        _server(SRV_MIGRATED, 'srv-migrated', 'cmp-2'),
        # Resized to cmp-3, waiting for the user's confirmation: the
        # server is on cmp-3, its migration holds its old place on cmp-1.
        _server(SRV_RESIZING, 'srv-resizing', 'cmp-3', vm_state='resized'),
        _server(SRV_EVACUATED, 'srv-evacuated', 'cmp-3'),
        _server(SRV_WRONG_HOST, 'srv-wrong-host', 'cmp-2'),
        _server(SRV_NO_ALLOC, 'srv-no-alloc', 'cmp-3'),
        _server(SRV_OWNER, 'srv-owner', 'cmp-1'),
        _server(SRV_BUILDING, 'srv-building', 'cmp-2', vm_state='building',
                task_state='spawning', launched=None),
        _server(SRV_SHARED, 'srv-shared', 'cmp-2'),
    ]
    migrations = [
        dict(uuid=MIG_CONFIRMED, server=SRV_MIGRATED, type='migration',
             status='confirmed', source='cmp-1', dest='cmp-2',
             updated_at=ago(now, 120)),
        dict(uuid=MIG_RESIZING, server=SRV_RESIZING, type='resize',
             status='finished', source='cmp-1', dest='cmp-3',
             updated_at=ago(now, 120)),
        dict(uuid=MIG_EVACUATION, server=SRV_EVACUATED, type='evacuation',
             status='done', source='cmp-1', dest='cmp-3',
             updated_at=ago(now, 120)),
    ]
    for mig in migrations:
        mig.update(flavor=FLAVOR['name'], project=PROJECT, user=USER)
    aggregates = [
        {'name': 'agg-mirrored', 'uuid': AGG_MIRRORED, 'hosts': ['cmp-1'],
         'zone': None},
        {'name': 'agg-unmirrored', 'uuid': AGG_UNMIRRORED,
         'hosts': ['cmp-2'], 'zone': 'az-seed'},
    ]
    nova = {'flavors': [FLAVOR], 'hosts': hosts, 'servers': servers,
            'migrations': migrations, 'aggregates': aggregates}

    compute = ['COMPUTE_NODE']
    providers = [
        # cmp-1 is in its Nova aggregate; cmp-3 is in that aggregate in
        # Placement only (Nova has no cmp-3 there).
        ('cmp-1', CMP1, None, ROOT_INVENTORY, compute, [AGG_MIRRORED]),
        ('cmp-1_pgpu0', CMP1_GPU, CMP1, {'VGPU': {'total': 4}}, [], []),
        ('cmp-2', CMP2, None, ROOT_INVENTORY, compute, [AGG_SHARED]),
        ('cmp-3', CMP3, None,
         dict(ROOT_INVENTORY, **{CUSTOM_CLASS: {'total': 2}}), compute,
         [AGG_MIRRORED]),
        ('cmp-gone', STALE, None, ROOT_INVENTORY, compute, []),
        ('shared-disk', SHARED, None, {'DISK_GB': {'total': 2000}},
         ['MISC_SHARES_VIA_AGGREGATE'], [AGG_SHARED]),
    ]
    flavor = FLAVOR_RESOURCES
    cpu_mem = {'VCPU': 2, 'MEMORY_MB': 2048}
    allocations = [
        (SRV_OK, 'INSTANCE', PROJECT, USER, {CMP1: flavor}),
        (SRV_DELETED, 'INSTANCE', PROJECT, USER, {CMP1: flavor}),
        (NEVER_SERVER, 'INSTANCE', PROJECT, USER, {CMP2: flavor}),
        (NEVER_SERVER_CUSTOM, 'INSTANCE', PROJECT, USER,
         {CMP3: {CUSTOM_CLASS: 1}}),
        (NEVER_SERVER_VGPU, 'INSTANCE', PROJECT, USER,
         {CMP1_GPU: {'VGPU': 1}}),
        (SRV_MIGRATED, 'INSTANCE', PROJECT, USER, {CMP2: flavor}),
        (MIG_CONFIRMED, 'MIGRATION', PROJECT, USER, {CMP1: flavor}),
        (SRV_RESIZING, 'INSTANCE', PROJECT, USER, {CMP3: flavor}),
        (MIG_RESIZING, 'MIGRATION', PROJECT, USER, {CMP1: flavor}),
        (SRV_EVACUATED, 'INSTANCE', PROJECT, USER,
         {CMP1: flavor, CMP3: flavor}),
        (SRV_WRONG_HOST, 'INSTANCE', PROJECT, USER, {CMP3: flavor}),
        (SRV_OWNER, 'INSTANCE', OTHER_PROJECT, OTHER_USER, {CMP1: flavor}),
        (SRV_SHARED, 'INSTANCE', PROJECT, USER,
         {CMP2: cpu_mem, SHARED: {'DISK_GB': 20}}),
    ]
    expected = {
        'orphan': sorted([SRV_DELETED, NEVER_SERVER, NEVER_SERVER_CUSTOM,
                          NEVER_SERVER_VGPU]),
        'migration': [MIG_CONFIRMED],
        'evacuated': [SRV_EVACUATED],
        'wrong-host': [SRV_WRONG_HOST],
        'missing': [SRV_NO_ALLOC],
        'owner': [SRV_OWNER],
        'provider': [STALE],
        'aggregate': sorted([(CMP2, AGG_UNMIRRORED, 'add'),
                             (CMP3, AGG_MIRRORED, 'remove')]),
    }
    quiet = sorted([SRV_OK, SRV_RESIZING, MIG_RESIZING, SRV_MIGRATED,
                    SRV_SHARED, SRV_BUILDING])
    return Scenario(nova, providers, allocations, expected, quiet)


def vgpu_server():
    """The specification of an active vGPU server on cmp-1, no allocation.

    Written into a cloud seeded with :func:`audit_scenario` (its flavor
    comes with it); ``{'delete_servers': [SRV_VGPU]}`` takes it away.
    ``heal_allocations`` stops at it (exit 8): it is kept out of the
    scenario heal is compared on.
    """
    return {'flavors': [VGPU_FLAVOR],
            'servers': [_server(SRV_VGPU, 'srv-vgpu', 'cmp-1',
                                flavor=VGPU_FLAVOR['name'])]}


def later_cases(now=None, failed=FAILED_SERVERS):
    """More cases, for a cloud seeded with :func:`audit_scenario`.

    A :class:`Scenario` to :func:`seed` into it once the tests that need
    the scenario as seeded have run (it is not part of it: the
    troubleshooting page and the bench show that one's findings): an
    active server whose allocations differ from its flavor (cmp-2, VCPU=4
    where it asks 2); a migration of srv-migrated, confirmed a minute
    before ``now``, that still holds its source cmp-3; host cmp-4, a
    reinstalled compute whose new compute node has no provider while the
    provider of its old one holds the name ``cmp-4``; and ``failed``
    servers in ERROR on no host, which are no finding but make the
    compute API's server list a page of more than 150 servers (Nova asks
    the network API for their ports in one long request line).
    """
    now = now or datetime.datetime.now(datetime.timezone.utc)
    servers = [_server(SRV_DRIFT, 'srv-drift', 'cmp-2')] + [
        _server(_uuid('fa11', n), 'srv-failed-%03d' % n, None,
                vm_state='error', launched=None)
        for n in range(1, failed + 1)]
    migrations = [dict(uuid=MIG_RECENT, server=SRV_MIGRATED,
                       type='migration', status='confirmed', source='cmp-3',
                       dest='cmp-2', updated_at=ago(now, 1),
                       flavor=FLAVOR['name'], project=PROJECT, user=USER)]
    nova = {'hosts': [dict(host='cmp-4', uuid=CMP4, **HOST_SIZE)],
            'servers': servers, 'migrations': migrations}
    providers = [('cmp-4', CMP4_OLD, None, ROOT_INVENTORY, ['COMPUTE_NODE'],
                  [])]
    allocations = [
        (SRV_DRIFT, 'INSTANCE', PROJECT, USER,
         {CMP2: dict(FLAVOR_RESOURCES, VCPU=4)}),
        (MIG_RECENT, 'MIGRATION', PROJECT, USER, {CMP3: FLAVOR_RESOURCES}),
    ]
    expected = {'flavor': [SRV_DRIFT], 'migration': [MIG_RECENT],
                'provider': [CMP4_OLD]}
    quiet = sorted(s['uuid'] for s in servers[1:])
    return Scenario(nova, providers, allocations, expected, quiet)


def write_nova(nova_config, spec, python=None, timeout=SEED_TIMEOUT):
    """Write ``spec`` with :mod:`.nova_objects`; returns what it made.

    ``nova_config``: a configuration with the API database (the cells
    are found through it). ``python``: the interpreter with ``nova``
    (default: this one).
    """
    with tempfile.NamedTemporaryFile('w', suffix='.json',
                                     delete=False) as f:
        json.dump(spec, f)
    try:
        proc = subprocess.run(
            [python or sys.executable, '-m',
             'osc_placement.tests.support.nova_objects', nova_config,
             f.name], stdin=subprocess.DEVNULL, capture_output=True,
            text=True, timeout=timeout)
    finally:
        os.unlink(f.name)
    if proc.returncode:
        raise SandboxError('writing Nova\'s records failed (exit %s):\n%s'
                           % (proc.returncode, proc.stderr[-3000:]))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def write_placement(endpoint, token, scenario):
    """The scenario's providers, aggregates and allocations, in order."""
    classes = sorted({rc for p in scenario.providers for rc in p[3]
                      if rc.startswith('CUSTOM_')})
    cloud.create_names(endpoint, (), classes, token)
    for name, uuid, parent, inventories, traits, aggs in scenario.providers:
        cloud.create_provider(endpoint, name, uuid, parent, inventories,
                              traits, aggs, token)
    for consumer, kind, project, user, allocs in scenario.allocations:
        cloud.api(endpoint, 'PUT', '/allocations/%s' % consumer,
                  {'allocations': {rp: {'resources': resources}
                                   for rp, resources in allocs.items()},
                   'project_id': project, 'user_id': user,
                   'consumer_generation': None, 'consumer_type': kind},
                  token=token)


def seed(box, scenario=None, python=None):
    """Write ``scenario`` (default: :func:`audit_scenario`) into ``box``.

    ``box``: a running :class:`~.stack.NovaCloud` whose Nova and
    Placement hold nothing of it yet. Returns the scenario.
    """
    scenario = scenario or audit_scenario()
    write_nova(os.path.join(box.nova.workdir, 'nova.conf'), scenario.nova,
               python)
    write_placement(box.placement.endpoint, box.token, scenario)
    return scenario


class SeededNovaCloud(fixtures.Fixture):
    """A :class:`~.stack.NovaCloud` with a scenario and a network API.

    :param scenario: what to seed (default: :func:`audit_scenario`).
    :param placement_options: as for :class:`~.stack.NovaCloud`.

    After set-up: :attr:`cloud` (the NovaCloud), :attr:`neutron` (the
    :class:`~.neutron.NeutronStandIn`, ``network`` in the catalog) and
    :attr:`scenario`.
    """

    def __init__(self, scenario=None, placement_options=None,
                 host='127.0.0.1'):
        super().__init__()
        self.scenario = scenario
        self.placement_options = placement_options
        self.host = host
        self.cloud = None
        self.neutron = None

    def _setUp(self):
        self.cloud = self.useFixture(stack.NovaCloud(
            placement_options=self.placement_options, host=self.host))
        # The seeding does not ask the network API: it starts meanwhile.
        self.neutron = neutron.NeutronStandIn(host=self.host)
        self.neutron.defer_ready = True
        self.useFixture(self.neutron)
        neutron.register(self.cloud.keystone, self.neutron.server_endpoint)
        self.scenario = seed(self.cloud, self.scenario)
        self.neutron.wait_until_ready()

    def server_pids(self):
        return self.cloud.server_pids() + self.neutron.server_pids

    def alive_pids(self):
        return self.cloud.alive_pids() + self.neutron.alive_pids()

    def workdirs(self):
        """The temporary directories of every server."""
        box = self.cloud
        return [box.keystone.workdir, box.placement.workdir,
                box.nova.workdir, self.neutron.workdir]
