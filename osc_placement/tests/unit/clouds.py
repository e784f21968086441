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

"""Fake clouds that the tests of several modules run against.

Placement served by requests-mock, each cloud a test case to derive
from:

* :class:`CloudTestCase`: the small cloud of the views over many
  providers (capacity list, provider allocation list, tree list), and of
  the batch's report of a provider that cannot be read;
* :class:`TwoTrees`: two trees of one provider each, for the commands
  that ask Placement about every tree (allocation candidate explain,
  capacity fit) and their metrics;
* :class:`FlavorTestCase`: two trees, and Nova beside Placement, for the
  commands that take ``--flavor``.
"""

import json
from urllib import parse as urlparse

from osc_placement.tests import cli
from osc_placement.tests.unit import base

URL = base.ENDPOINT
RP1, RP2, RP3 = base.RP1, base.RP2, base.RP3
RP4 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000004'
C1, C2 = base.C1, base.C2
AGG1 = base.AGG1
NOVA = 'http://nova.example/v2.1'
FIT = ('resource', 'provider', 'capacity', 'fit')


# The small cloud.

PROVIDERS = [base.provider(RP1, 'compute-1'),
             base.provider(RP2, 'numa-0', parent=RP1),
             base.provider(RP3, 'compute-2'),
             base.provider(RP4, 'empty')]


def inventory(total, reserved=0, ratio=1.0):
    """An inventory record as Placement returns it."""
    return {'total': total, 'reserved': reserved, 'allocation_ratio': ratio,
            'min_unit': 1, 'max_unit': total, 'step_size': 1}


INVENTORIES = {
    RP1: {'DISK_GB': inventory(100, 10)},
    RP2: {'VCPU': inventory(8, ratio=4.0),
          'MEMORY_MB': inventory(4096, 512, 1.5)},
    RP3: {'VCPU': inventory(4)},
    RP4: {},
}
USAGES = {RP1: {'DISK_GB': 10}, RP2: {'VCPU': 2, 'MEMORY_MB': 1024},
          RP3: {'VCPU': 6}, RP4: {}}
ALLOCATIONS = {
    RP1: {C1: {'resources': {'DISK_GB': 10}}},
    RP2: {C1: {'resources': {'VCPU': 2, 'MEMORY_MB': 1024}}},
    RP3: {C2: {'resources': {'VCPU': 6}}},
    RP4: {},
}
CONSUMERS = {
    C1: {'project_id': 'p1', 'user_id': 'u1', 'consumer_type': 'INSTANCE'},
    # Written before 1.38: Placement shows no type.
    C2: {'project_id': 'p2', 'user_id': 'u2', 'consumer_type': 'unknown'},
}
TRAITS = {RP1: ['COMPUTE_VOLUME_MULTI_ATTACH'], RP2: ['HW_NUMA_ROOT'],
          RP3: [], RP4: []}


class CloudTestCase(base.TestCase):
    """The small cloud on requests-mock: the views over many providers.

    * compute-1 (RP1, root, in AGG1): DISK_GB 100, 10 reserved; C1 holds
      10.
    * numa-0 (RP2, child of RP1): VCPU 8 at ratio 4.0, MEMORY_MB 4096 with
      512 reserved at ratio 1.5; C1 holds VCPU 2 and MEMORY_MB 1024.
    * compute-2 (RP3, root): VCPU 4, over-committed: C2 holds 6.
    * empty (RP4, root): no inventory, no allocation.

    ``failing``: the providers whose every request answers HTTP 500.
    """

    api_version = '1.39'
    failing = ()

    def setUp(self):
        super().setUp()
        mock = self.requests_mock
        mock.get(URL + '/resource_providers', complete_qs=True,
                 json={'resource_providers': PROVIDERS})
        for rp in (RP1, RP2, RP3, RP4):
            path = URL + '/resource_providers/' + rp
            if rp in self.failing:
                for what in ('inventories', 'usages', 'allocations',
                             'traits', 'aggregates'):
                    mock.get(path + '/' + what, **base.error_reply(
                        500, 'Boom on %s.' % rp))
                continue
            generation = {'resource_provider_generation': 1}
            mock.get(path + '/inventories', json=dict(
                generation, inventories=INVENTORIES[rp]))
            mock.get(path + '/usages', json=dict(generation,
                                                 usages=USAGES[rp]))
            mock.get(path + '/allocations', json=dict(
                generation, allocations=ALLOCATIONS[rp]))
            mock.get(path + '/traits', json=dict(generation,
                                                 traits=TRAITS[rp]))
            mock.get(path + '/aggregates', json=dict(
                generation, aggregates=[AGG1] if rp == RP1 else []))
        for consumer, owner in CONSUMERS.items():
            mock.get(URL + '/allocations/' + consumer, json=dict(
                owner, allocations={}, consumer_generation=1))

    def json(self, *argv, **kwargs):
        out, err, code = self.openstack(*(argv + ('-f', 'json')), **kwargs)
        self.assertEqual(('', 0), (err, code))
        return json.loads(out)

    def gets(self):
        """The paths of the requests sent, sorted (parallel order)."""
        return sorted(path for method, path in self.sent()
                      if method == 'GET')

    def assertRefused(self, argv, message, version=None):
        out, err, code = self.openstack(*argv, version=version)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual([message], err.splitlines())
        self.assertEqual([], self.sent())


def per_provider(*what, providers=(RP1, RP2, RP3, RP4)):
    """The paths of ``what`` (e.g. 'usages') of each provider, sorted."""
    return sorted('/resource_providers/%s/%s' % (rp, w)
                  for rp in providers for w in what)


# Two trees.

# The inventory of each provider of TwoTrees.
TREE_INVENTORY = {'VCPU': inventory(8)}


class TwoTrees(base.TestCase):
    """Two trees of one provider each, 8 VCPU, nothing used."""

    api_version = '1.39'

    def setUp(self):
        super().setUp()
        providers = [{'uuid': rp, 'name': name, 'generation': 1,
                      'root_provider_uuid': rp,
                      'parent_provider_uuid': None}
                     for rp, name in ((RP1, 'one'), (RP2, 'two'))]
        self.requests_mock.get(URL + '/resource_providers', complete_qs=True,
                               json={'resource_providers': providers})
        for rp in (RP1, RP2):
            path = URL + '/resource_providers/' + rp
            self.requests_mock.get(path + '/inventories',
                                   json={'inventories': TREE_INVENTORY})
            self.requests_mock.get(path + '/usages', json={'usages': {}})
            self.requests_mock.get(path + '/traits', json={'traits': []})
            self.requests_mock.get(path + '/aggregates',
                                   json={'aggregates': []})

    def candidates_sent(self):
        """The path and query of each candidates request, in order."""
        return [path for method, path in self.sent()
                if path.startswith('/allocation_candidates')]


# Placement and Nova, for --flavor.

FLAVOR_INVENTORIES = {
    RP1: {'VCPU': 16, 'MEMORY_MB': 65536, 'DISK_GB': 800},
    RP2: {'VCPU': 4, 'MEMORY_MB': 16384, 'DISK_GB': 200},
}


def _flavor(id_, name, vcpus, ram, disk, specs=None):
    """A flavor as the compute API returns it."""
    return {'id': id_, 'name': name, 'vcpus': vcpus, 'ram': ram,
            'disk': disk, 'swap': 0, 'OS-FLV-EXT-DATA:ephemeral': 0,
            'os-flavor-access:is_public': True,
            'extra_specs': specs or {}}


LARGE = _flavor('f-large', 'm1.large', 4, 8192, 80)
SMALL = _flavor('f-small', 'm1.small', 1, 2048, 20)
ACCEL = _flavor('f-accel', 'accel', 1, 2048, 20,
                {'accel:device_profile': 'gpu'})
TWO_GROUPS = _flavor('f-two', 'two', 1, 2048, 20,
                     {'resources1:VCPU': '1', 'resources2:VCPU': '1',
                      'group_policy': 'none'})
# Two groups and no group_policy: Placement refuses the request (HTTP 400).
NO_POLICY = _flavor('f-nopolicy', 'm1.nopolicy', 1, 2048, 20,
                    {'resources1:VCPU': '1', 'resources2:VCPU': '1'})
# An extra spec Nova refuses: never asked for.
SOMETIMES = _flavor('f-sometimes', 'm1.sometimes', 1, 2048, 20,
                    {'hw:cpu_policy': 'sometimes'})
# A named group: Placement 1.33.
NAMED = _flavor('f-named', 'm1.named', 1, 2048, 20,
                {'resources_A:VCPU': '1'})


def _zone(name, hosts):
    """A zone of GET /os-availability-zone/detail: {host: [binaries]}."""
    return {'zoneName': name, 'zoneState': {'available': bool(hosts)},
            'hosts': {host: {binary: {'available': True, 'active': True,
                                      'updated_at': None}
                             for binary in binaries}
                      for host, binaries in hosts.items()} or None}


# The zones Nova lists: az1 (AGG1's, of host big); its default zone nova,
# of host compute-1 (whose compute node is small: its hypervisor_hostname
# is not the service's host) and of host gone, that has no compute node;
# the internal zone of its other services; az-down, whose only compute is
# disabled.
ZONES = {'availabilityZoneInfo': [
    _zone('internal', {'controller': ['nova-conductor', 'nova-scheduler']}),
    _zone('az1', {'big': ['nova-compute']}),
    _zone('nova', {'compute-1': ['nova-compute'],
                   'gone': ['nova-compute']}),
    _zone('az-down', {})]}


def hypervisor(uuid, name, host):
    """A hypervisor of GET /os-hypervisors/detail at compute 2.53."""
    return {'id': uuid, 'hypervisor_hostname': name, 'state': 'up',
            'status': 'enabled', 'hypervisor_type': 'fake',
            'service': {'id': 'svc-' + host, 'host': host,
                        'disabled_reason': None}}


# Their compute nodes: big's (RP1, in az1) and compute-1's (RP2, named
# small in Placement, as Nova names a provider after its node).
HYPERVISORS = {'hypervisors': [hypervisor(RP1, 'big', 'big'),
                               hypervisor(RP2, 'small', 'compute-1')]}
GROUP_POLICY_DETAIL = base.webob_detail(
    'The "group_policy" parameter is required when specifying more than '
    'one "resources{N}" parameter.', 'The server could not comply with '
    'the request since it is either malformed or otherwise incorrect.')


class FlavorTestCase(base.TestCase):
    """Placement and Nova: the cloud of the commands that take --flavor.

    Both on requests-mock; the compute client a real openstacksdk
    connection, as OpenStackClient holds one.

    * big (RP1, root, in AGG1): VCPU 16, MEMORY_MB 65536, DISK_GB 800.
    * small (RP2, root): VCPU 4, MEMORY_MB 16384, DISK_GB 200.

    Both roots have COMPUTE_ACCELERATORS; the fake answer of the
    candidates request holds both trees (RP1 only when the request names
    AGG1). Nova knows the flavors below, and an availability zone az1 of
    AGG1.
    """

    api_version = '1.39'

    def setUp(self):
        super().setUp()
        mock = self.requests_mock
        mock.get(URL + '/resource_providers', complete_qs=True, json={
            'resource_providers': [base.provider(RP1, 'big'),
                                   base.provider(RP2, 'small')]})
        for rp, amounts in FLAVOR_INVENTORIES.items():
            path = URL + '/resource_providers/' + rp
            generation = {'resource_provider_generation': 1}
            mock.get(path + '/inventories', json=dict(generation, inventories={
                rc: inventory(total) for rc, total in amounts.items()}))
            mock.get(path + '/usages', json=dict(generation, usages={}))
            mock.get(path + '/traits', json=dict(
                generation, traits=['COMPUTE_ACCELERATORS']))
            mock.get(path + '/aggregates', json=dict(
                generation, aggregates=[AGG1] if rp == RP1 else []))

        def candidates(request, context):
            # Both trees take one of anything asked, unless the request
            # asks for AGG1: then only RP1's. Two numbered groups without
            # a group_policy are refused, as Placement refuses them.
            if 'resources2' in request.url and \
                    'group_policy' not in request.url:
                context.status_code = 400
                return base.placement_error(400, GROUP_POLICY_DETAIL,
                                            'Bad Request')
            rps = (RP1,) if AGG1 in request.url else (RP1, RP2)
            return {'allocation_requests': [
                {'allocations': {rp: {'resources': {'VCPU': 1}}}}
                for rp in rps], 'provider_summaries': {}}
        mock.get(URL + '/allocation_candidates', json=candidates)
        mock.get(URL + '/resource_providers?member_of=in:' + AGG1,
                 complete_qs=True, json={'resource_providers': [
                     base.provider(RP1, 'big')]})
        mock.get(NOVA, json=self.nova_version())
        mock.get(NOVA + '/', json=self.nova_version())
        for body in (LARGE, SMALL, ACCEL, TWO_GROUPS, NO_POLICY, SOMETIMES,
                     NAMED):
            mock.get(NOVA + '/flavors/' + body['id'], json={'flavor': body})
            # openstacksdk asks again for empty extra specs.
            mock.get(NOVA + '/flavors/%s/os-extra_specs' % body['id'],
                     json={'extra_specs': body['extra_specs']})
        mock.get(NOVA + '/flavors/detail?is_public=None', json={
            'flavors': [LARGE, SMALL]})
        mock.get(NOVA + '/os-aggregates', json={'aggregates': [
            {'id': 1, 'name': 'az1-hosts', 'uuid': AGG1,
             'availability_zone': 'az1',
             'metadata': {'availability_zone': 'az1'}, 'hosts': []}]})
        mock.get(NOVA + '/os-availability-zone/detail', json=ZONES)
        mock.get(NOVA + '/os-hypervisors/detail', json=HYPERVISORS)
        self.useFixture(cli.compute_at(NOVA))

    @staticmethod
    def nova_version():
        return {'version': {'id': 'v2.1', 'status': 'CURRENT',
                            'version': '2.96', 'min_version': '2.1',
                            'links': [{'rel': 'self', 'href': NOVA + '/'}]}}

    def fit(self, *argv, version=None):
        return self.openstack(*(FIT + argv), version=version)

    def candidates_sent(self):
        return [urlparse.unquote(r.url[len(URL):])
                for r in self.requests_mock.request_history
                if r.url.startswith(URL + '/allocation_candidates')]

    def placement_sent(self):
        return [r for r in self.requests_mock.request_history
                if r.url.startswith(URL)]
