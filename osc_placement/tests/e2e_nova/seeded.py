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

"""The base of the tests on a Nova with servers and migrations.

A :class:`SeededNovaTestCase` runs on a
:class:`~osc_placement.tests.support.nova_seed.SeededNovaCloud`:
Keystone, Placement, the Nova API and the stand-in network API, seeded
with the audit's scenario (Nova's records written with Nova's object
layer, Placement's through its API), and no sample cloud. Minutes to
start: the classes of a package share one (see :mod:`.base`); a class
that changes the scenario for good sets a later
:attr:`~.base.NovaCloudTestCase.cloud_turn`, one that changes it for a
test puts it back. ``self.nova_manage`` runs nova 34's own
``nova-manage`` on the same databases and Placement.
"""

from osc_placement.tests.e2e_nova import base
from osc_placement.tests.support import cloud
from osc_placement.tests.support import nova_manage
from osc_placement.tests.support import nova_seed
from osc_placement.tests.support import service


# The seeded scenario's Placement runs on PostgreSQL, with two workers:
# the database clouds run, where Placement 16.0.0 fails queries SQLite
# takes (GET /usages by consumer type at 1.38, a forbidden trait in
# GET /allocation_candidates); tests/functional runs the audit on SQLite.
PLACEMENT = {'db': 'postgresql', 'workers': 2}


class SeededNovaTestCase(base.NovaCloudTestCase):
    """The seeded cloud of the class's kind (see the module)."""

    cloud_kind = 'seeded audit scenario'

    @classmethod
    def use_cloud(cls, seeded):
        super().use_cloud(seeded.cloud)
        cls.seeded = seeded
        cls.scenario = seeded.scenario
        cls.nova_manage = nova_manage.NovaManage(cls.cloud)

    @classmethod
    def start_cloud(cls):
        """A :class:`~.nova_seed.SeededNovaCloud`, set up."""
        seeded = nova_seed.SeededNovaCloud(placement_options=PLACEMENT)
        seeded.setUp()
        return seeded

    @staticmethod
    def stop_cloud(seeded):
        base.stop_and_check(seeded, seeded.workdirs())

    def compute(self, method, path, body=None, version='2.88'):
        """One compute API request as the admin; returns the body.

        A new token: its catalog has the network service.
        """
        return service.request(
            self.cloud.nova.url + path, method, body,
            token=self.cloud.keystone.token(),
            headers={'OpenStack-API-Version': 'compute %s' % version})[1]

    def placement(self, method, path, body=None):
        """One Placement request as the admin; returns the body."""
        return cloud.api(self.cloud.placement.endpoint, method, path, body,
                         token=self.cloud.token)

    def allocations(self):
        """{consumer: {provider: resources}} of every provider."""
        found = {}
        for rp in self.placement('GET', '/resource_providers')[
                'resource_providers']:
            allocs = self.placement(
                'GET', '/resource_providers/%s/allocations' % rp['uuid'])
            for consumer, held in allocs['allocations'].items():
                found.setdefault(consumer, {})[rp['uuid']] = held[
                    'resources']
        return found

    def provider_aggregates(self, uuid):
        """(aggregates, generation) of provider ``uuid``."""
        body = self.placement('GET',
                              '/resource_providers/%s/aggregates' % uuid)
        return sorted(body['aggregates']), body[
            'resource_provider_generation']
