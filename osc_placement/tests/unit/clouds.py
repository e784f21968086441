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
  the batch's report of a provider that cannot be read.
"""

import json

from osc_placement.tests.unit import base

URL = base.ENDPOINT
RP1, RP2, RP3 = base.RP1, base.RP2, base.RP3
RP4 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000004'
C1, C2 = base.C1, base.C2
AGG1 = base.AGG1


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
