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

"""A small cloud behind a real Keystone: Keystone, Placement and Nova.

:class:`NovaCloud` starts a :class:`~.keystone.Keystone`, a
:class:`~.placement.Placement` that validates its tokens, and a
:class:`~.nova.Nova` API, and puts Placement and Nova in Keystone's
catalog, so that ``openstack`` finds them as in any cloud: by service
type, region and interface.

Placement has four endpoints, each its own URL (a
:class:`~.relay.Relay` in front of the one server), so that a test can
tell which one a command used: public, internal and admin in
:data:`~.keystone.REGION`, and public in :data:`OTHER_REGION`. Nova has
one URL for the three interfaces of :data:`~.keystone.REGION`, and no
endpoint in :data:`OTHER_REGION`.

In a test, ``self.useFixture(stack.NovaCloud())``; from a tool::

    with stack.NovaCloud() as box:
        subprocess.run(['openstack', 'flavor', 'list'],
                       env=box.client_env())

Starting it takes minutes (four on a busy machine here): Keystone's and
Nova's database set-up are most of it.
"""

from concurrent import futures
import shutil
import tempfile

import fixtures

from osc_placement.tests.support import client
from osc_placement.tests.support import keystone
from osc_placement.tests.support import nova
from osc_placement.tests.support import placement
from osc_placement.tests.support import processes
from osc_placement.tests.support import relay
from osc_placement.tests.support import service

REGION = keystone.REGION
OTHER_REGION = 'RegionTwo'
# (region, interface) of each Placement endpoint in the catalog.
PLACEMENT_ENDPOINTS = tuple((REGION, interface)
                            for interface in keystone.INTERFACES) + (
                                (OTHER_REGION, 'public'),)
# The compute microversion of direct requests: flavors with their extra
# specs (2.61), aggregates with their UUIDs (2.41).
COMPUTE_VERSION = '2.61'


class NovaCloud(fixtures.Fixture):
    """Keystone, Placement and the Nova API, found through the catalog.

    :param placement_options: keyword arguments of the
        :class:`~.placement.Placement` (``db``, ``workers``,
        ``latency_ms``, ``port``...).
    :param host: address every server listens on.

    After set-up: :attr:`keystone`, :attr:`placement`, :attr:`nova`,
    :attr:`relays` (``{(region, interface): Relay}`` of the Placement
    endpoints) and :attr:`placement_urls` (the same keys, their URLs).
    """

    def __init__(self, placement_options=None, host='127.0.0.1'):
        super().__init__()
        self.placement_options = dict(placement_options or {})
        self.host = host
        self.keystone = None
        self.placement = None
        self.nova = None
        self.relays = {}
        self.placement_urls = {}

    def _setUp(self):
        # Nova's databases need no Keystone: made while Keystone starts.
        # Placement and the Nova API need Keystone (their service users),
        # not each other: both start, then both are waited for. (Started
        # from this thread: a server dies with the thread that started
        # it, see processes.die_with_parent.)
        workdir = tempfile.mkdtemp(prefix=nova.Nova.prefix,
                                   dir=processes.tmpfs())
        self.addCleanup(shutil.rmtree, workdir, ignore_errors=True)
        with futures.ThreadPoolExecutor(1) as pool:
            databases = pool.submit(nova.prepare, workdir)
            self.keystone = self.useFixture(keystone.Keystone(host=self.host))
            self.placement = placement.Placement(
                keystone=self.keystone, host=self.host,
                **self.placement_options)
            self.placement.defer_ready = True
            self.useFixture(self.placement)
            databases.result()
        self.nova = nova.Nova(self.keystone, host=self.host, workdir=workdir)
        self.nova.defer_ready = True
        self.useFixture(self.nova)
        self.placement.wait_until_ready()
        self.nova.wait_until_ready()
        self.keystone.add_region(OTHER_REGION)
        for key in PLACEMENT_ENDPOINTS:
            self.relays[key] = self.useFixture(relay.Relay(
                self.placement.endpoint, host=self.host))
            self.placement_urls[key] = self.relays[key].endpoint
        self.keystone.add_service('placement', 'placement',
                                  self.placement_urls)
        self.keystone.add_service(
            'compute', 'nova', {(REGION, interface): self.nova.url
                                for interface in keystone.INTERFACES})

    @property
    def token(self):
        """The admin's token (for direct API requests)."""
        return self.keystone.admin_token()

    def compute(self, method, path, body=None, version=COMPUTE_VERSION):
        """One compute API request as the admin; returns the body."""
        return service.request(
            self.nova.url + path, method, body, token=self.token,
            headers={'OpenStack-API-Version': 'compute %s' % version})[1]

    def client_env(self, base=None, region=REGION, interface='public'):
        """The environment of an ``openstack`` logged in as the admin.

        ``base`` (default: os.environ) without OS_* and CLIFF_*
        variables, plus the admin's password credentials, the region and
        the interface.
        """
        env = client.clean_env(base)
        env.update(self.keystone.client_env(region, interface))
        return env

    def server_pids(self):
        """Every server process (Keystone, Placement, Nova) started."""
        return (self.keystone.server_pids + self.placement.server_pids
                + self.nova.server_pids)

    def alive_pids(self):
        """Those of :meth:`server_pids` (and PostgreSQL's) still running."""
        return (self.keystone.alive_pids() + self.placement.alive_pids()
                + self.nova.alive_pids())
