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

"""osc_placement.api.compute: flavors and zones read through openstacksdk.

A real openstacksdk connection (as OpenStackClient holds one) over
requests-mock: the requests it sends to Nova, what we read from the
answers, and the one-line errors.
"""

import ast
import os
import subprocess
import sys
import threading
import types

from keystoneauth1 import fixture as ks_fixture
from keystoneauth1 import noauth
from keystoneauth1 import session
from keystoneauth1 import token_endpoint
from openstack import connection
from openstack import exceptions as exceptions_of_sdk
from osc_lib import exceptions
from oslotest import base
import requests
from requests_mock.contrib import fixture as rm_fixture

from osc_placement.api import compute
from osc_placement.tests.unit import clouds

NOVA = 'http://nova.example/v2.1'
KEYSTONE = 'http://keystone.example/v3'
PLACEMENT = 'http://placement.example'


def _version(maximum):
    return {'version': {'id': 'v2.1', 'status': 'CURRENT',
                        'version': maximum, 'min_version': '2.1',
                        'links': [{'rel': 'self', 'href': NOVA + '/'}]}}


def _flavor_body(id_, name, specs=None, public=True, swap=0):
    body = {'id': id_, 'name': name, 'vcpus': 4, 'ram': 8192, 'disk': 40,
            'swap': swap, 'OS-FLV-EXT-DATA:ephemeral': 5,
            'os-flavor-access:is_public': public}
    if specs is not None:
        body['extra_specs'] = specs
    return body


class ComputeTestCase(base.BaseTestCase):

    maximum = '2.96'

    def setUp(self):
        super().setUp()
        self.requests_mock = self.useFixture(rm_fixture.Fixture())
        for url in (NOVA, NOVA + '/'):
            self.requests_mock.get(url, json=_version(self.maximum))
        self.cmd = self.command(connection.Connection(
            session=session.Session(auth=noauth.NoAuth()),
            compute_endpoint_override=NOVA))
        self.clients = self.cmd.app.client_manager

    @staticmethod
    def command(conn):
        return types.SimpleNamespace(app=types.SimpleNamespace(
            client_manager=types.SimpleNamespace(
                compute=conn.compute, session=conn.session,
                sdk_connection=conn, setup_auth=lambda: None)))

    def sent(self):
        """(method, URL, compute microversion) of the API requests."""
        return [(r.method, r.url, r.headers.get('OpenStack-API-Version'))
                for r in self.requests_mock.request_history
                if r.url.rstrip('/') != NOVA]

    def flavors(self, *bodies):
        self.requests_mock.get(NOVA + '/flavors/detail',
                               json={'flavors': list(bodies)})


class TestFindFlavor(ComputeTestCase):

    def test_by_name_with_extra_specs_in_the_flavor(self):
        self.requests_mock.get(NOVA + '/flavors/m1.large', status_code=404,
                               json={'itemNotFound': {'code': 404}})
        self.flavors(_flavor_body('f1', 'm1.large', {'hw:cpu_policy':
                                                     'dedicated'}),
                     _flavor_body('f2', 'm1.small', {}))
        self.assertEqual(
            {'id': 'f1', 'name': 'm1.large', 'vcpus': 4, 'ram': 8192,
             'disk': 40, 'ephemeral': 5, 'swap': 0, 'is_public': True,
             'extra_specs': {'hw:cpu_policy': 'dedicated'}},
            compute.find_flavor(self.clients, 'm1.large'))
        self.assertEqual(
            [('GET', NOVA + '/flavors/m1.large', 'compute 2.61'),
             ('GET', NOVA + '/flavors/detail?is_public=None',
              'compute 2.61')], self.sent())

    def test_by_id(self):
        self.requests_mock.get(NOVA + '/flavors/f3', json={
            'flavor': _flavor_body('f3', 'private', {'a': 'b'},
                                   public=False, swap=1024)})
        found = compute.find_flavor(self.clients, 'f3')
        self.assertEqual(('f3', 1024, False, {'a': 'b'}),
                         (found['id'], found['swap'], found['is_public'],
                          found['extra_specs']))
        self.assertEqual([('GET', NOVA + '/flavors/f3', 'compute 2.61')],
                         self.sent())

    def test_not_found(self):
        self.requests_mock.get(NOVA + '/flavors/nope', status_code=404,
                               json={'itemNotFound': {'code': 404}})
        self.flavors(_flavor_body('f1', 'm1.large', {}))
        exc = self.assertRaises(exceptions.CommandError,
                                compute.find_flavor, self.clients, 'nope')
        self.assertEqual("No flavor with a name or ID of 'nope' in the "
                         "compute API.", str(exc))

    def test_two_flavors_of_the_name(self):
        self.requests_mock.get(NOVA + '/flavors/twin', status_code=404,
                               json={'itemNotFound': {'code': 404}})
        self.flavors(_flavor_body('f1', 'twin', {}),
                     _flavor_body('f2', 'twin', {}))
        exc = self.assertRaises(exceptions.CommandError,
                                compute.find_flavor, self.clients, 'twin')
        self.assertEqual("More than one flavor is named 'twin': give its "
                         "ID.", str(exc))

    def test_error_answered(self):
        self.requests_mock.get(NOVA + '/flavors/f1', status_code=500,
                               json={'computeFault': {
                                   'code': 500, 'message': 'Boom.'}})
        exc = self.assertRaises(exceptions.CommandError,
                                compute.find_flavor, self.clients, 'f1')
        self.assertIn("Cannot read flavor 'f1': the compute API answered "
                      "HTTP 500", str(exc))
        self.assertNotIn('\n', str(exc))

    def test_unreachable(self):
        self.requests_mock.get(
            NOVA + '/flavors/f1',
            exc=requests.exceptions.ConnectionError(
                ConnectionRefusedError(111, 'Connection refused')))
        exc = self.assertRaises(exceptions.CommandError,
                                compute.find_flavor, self.clients, 'f1')
        self.assertEqual("Cannot read flavor 'f1': the compute API is "
                         "unreachable (connection refused).", str(exc))

    def test_reached_but_no_complete_answer(self):
        self.requests_mock.get(
            NOVA + '/flavors/f1', exc=requests.exceptions.ReadTimeout(
                'Read timed out. (read timeout=5)'))
        exc = self.assertRaises(exceptions.CommandError,
                                compute.find_flavor, self.clients, 'f1')
        self.assertEqual("Cannot read flavor 'f1': the compute API was "
                         "reached (no complete answer within the timeout).",
                         str(exc))


class TestRead(ComputeTestCase):
    """read(): another module's reader on the same proxy and errors."""

    def test_the_reader_gets_the_proxy(self):
        self.requests_mock.get(NOVA + '/os-migrations',
                               json={'migrations': []})
        got = compute.read(
            self.clients, 'the migrations',
            lambda proxy: proxy.get('/os-migrations').json())
        self.assertEqual({'migrations': []}, got)

    def test_an_error_answered_is_one_line(self):
        self.requests_mock.get(NOVA + '/os-migrations', status_code=503,
                               json={'computeFault': {
                                   'code': 503, 'message': 'Down.'}})

        def reader(proxy):
            response = proxy.get('/os-migrations')
            exceptions_of_sdk.raise_from_response(response)

        exc = self.assertRaises(exceptions.CommandError, compute.read,
                                self.clients, 'the migrations', reader)
        self.assertIn('Cannot read the migrations: the compute API '
                      'answered HTTP 503', str(exc))
        self.assertNotIn('\n', str(exc))


class TestReadBeside(ComputeTestCase):
    """read_beside(): read()'s reader in a thread, its errors the same."""

    def test_the_reader_runs_in_a_thread_of_its_own(self):
        self.requests_mock.get(NOVA + '/os-migrations',
                               json={'migrations': []})
        threads = []

        def reader(proxy):
            threads.append(threading.current_thread())
            return proxy.get('/os-migrations').json()
        future = compute.read_beside(self.clients, 'the migrations', reader)
        self.assertEqual({'migrations': []}, future.result(10))
        self.assertIsNot(threading.main_thread(), threads[0])

    def test_an_error_answered_is_one_line_through_the_future(self):
        self.requests_mock.get(NOVA + '/os-migrations', status_code=503,
                               json={'computeFault': {
                                   'code': 503, 'message': 'Down.'}})

        def reader(proxy):
            exceptions_of_sdk.raise_from_response(
                proxy.get('/os-migrations'))

        exc = compute.read_beside(self.clients, 'the migrations',
                                  reader).exception(10)
        self.assertIsInstance(exc, exceptions.CommandError)
        self.assertIn('Cannot read the migrations: the compute API '
                      'answered HTTP 503', str(exc))
        self.assertNotIn('\n', str(exc))

    def test_no_proxy_raises_here_and_reads_nothing(self):
        mock = self.useFixture(rm_fixture.Fixture())
        clients = _Unmade(connection.Connection(session=session.Session(
            auth=token_endpoint.Token(PLACEMENT, 'admin'))))
        read = []
        self.assertRaises(exceptions.CommandError, compute.read_beside,
                          clients, 'the migrations', read.append)
        self.assertEqual([], read)
        self.assertEqual([], mock.request_history)


class TestBefore261(ComputeTestCase):
    """Below compute 2.61 the extra specs are a request of their own."""

    maximum = '2.60'

    def test_extra_specs_read_apart(self):
        # Before 2.75 a flavor without swap says "".
        self.requests_mock.get(NOVA + '/flavors/f1', json={
            'flavor': _flavor_body('f1', 'm1', swap='')})
        self.requests_mock.get(NOVA + '/flavors/f1/os-extra_specs', json={
            'extra_specs': {'resources:VGPU': '1'}})
        found = compute.find_flavor(self.clients, 'f1')
        self.assertEqual({'resources:VGPU': '1'}, found['extra_specs'])
        self.assertEqual(0, found['swap'])
        self.assertEqual(
            [('GET', NOVA + '/flavors/f1', 'compute 2.60'),
             ('GET', NOVA + '/flavors/f1/os-extra_specs', 'compute 2.60')],
            self.sent())


class TestAllFlavors(ComputeTestCase):

    def test_public_and_private(self):
        self.flavors(_flavor_body('f1', 'a', {}),
                     _flavor_body('f2', 'b', {'x': 'y'}, public=False))
        # openstacksdk asks again for the extra specs of a flavor that has
        # none.
        self.requests_mock.get(NOVA + '/flavors/f1/os-extra_specs',
                               json={'extra_specs': {}})
        found = compute.all_flavors(self.clients)
        self.assertEqual([('f1', True, {}), ('f2', False, {'x': 'y'})],
                         [(f['id'], f['is_public'], f['extra_specs'])
                          for f in found])
        self.assertEqual(
            [('GET', NOVA + '/flavors/detail?is_public=None',
              'compute 2.61'),
             ('GET', NOVA + '/flavors/f1/os-extra_specs', 'compute 2.61')],
            self.sent())


class TestZoneAggregates(ComputeTestCase):

    def aggregates(self, *bodies):
        self.requests_mock.get(NOVA + '/os-aggregates',
                               json={'aggregates': list(bodies)})
        self.requests_mock.get(NOVA + '/os-availability-zone/detail',
                               json={'availabilityZoneInfo': []})

    @staticmethod
    def aggregate(id_, uuid, zone=None):
        metadata = {'availability_zone': zone} if zone else {}
        body = {'id': id_, 'name': 'agg%d' % id_, 'metadata': metadata,
                'availability_zone': zone, 'hosts': []}
        if uuid:
            body['uuid'] = uuid
        return body

    def test_the_uuids_of_the_zone(self):
        self.aggregates(self.aggregate(1, 'u-2', 'az1'),
                        self.aggregate(2, 'u-9', 'az2'),
                        self.aggregate(3, 'u-1', 'az1'),
                        self.aggregate(4, 'u-3'))
        self.assertEqual(['u-1', 'u-2'],
                         compute.availability_zone(self.clients,
                                                   'az1').aggregates)
        self.assertEqual([('GET', NOVA + '/os-aggregates', 'compute 2.81')],
                         self.sent())

    def test_unknown_zone(self):
        self.aggregates(self.aggregate(1, 'u-2', 'az1'))
        exc = self.assertRaises(exceptions.CommandError,
                                compute.availability_zone, self.clients,
                                'az9')
        self.assertEqual("No host aggregate of the compute API is in "
                         "availability zone 'az9'.", str(exc))

    def test_no_uuid_before_2_41(self):
        self.aggregates(self.aggregate(1, None, 'az1'))
        exc = self.assertRaises(exceptions.CommandError,
                                compute.availability_zone, self.clients,
                                'az1')
        self.assertIn('compute microversion 2.41 or later needed',
                      str(exc))


class TestAvailabilityZone(ComputeTestCase):
    """A zone's aggregates, or, in Nova's default zone, its hosts."""

    def setUp(self):
        super().setUp()
        self.requests_mock.get(NOVA + '/os-aggregates', json={
            'aggregates': [TestZoneAggregates.aggregate(1, 'u-1', 'az1')]})
        self.requests_mock.get(NOVA + '/os-availability-zone/detail',
                               json=clouds.ZONES)

    def test_a_zone_of_aggregates_reads_no_hosts(self):
        zone = compute.availability_zone(self.clients, 'az1')
        self.assertEqual((['u-1'], None), (zone.aggregates, zone.hosts))
        self.assertEqual([('GET', NOVA + '/os-aggregates', 'compute 2.81')],
                         self.sent())

    def test_the_default_zone_is_its_compute_hosts(self):
        zone = compute.availability_zone(self.clients, 'nova')
        self.assertEqual((None, ['compute-1', 'gone'], None),
                         (zone.aggregates, zone.hosts, zone.nodes))
        self.assertEqual(
            [('GET', NOVA + '/os-aggregates', 'compute 2.81'),
             # openstacksdk asks for the zones at the base microversion.
             ('GET', NOVA + '/os-availability-zone/detail', None)],
            self.sent())

    def test_the_internal_zone_has_no_compute(self):
        exc = self.assertRaises(exceptions.CommandError,
                                compute.availability_zone, self.clients,
                                'internal')
        self.assertEqual("Availability zone 'internal' has no host aggregate "
                         "and no enabled nova-compute host in the compute "
                         "API.", str(exc))

    def test_a_zone_of_disabled_computes_has_none(self):
        exc = self.assertRaises(exceptions.CommandError,
                                compute.availability_zone, self.clients,
                                'az-down')
        self.assertIn('no enabled nova-compute host', str(exc))

    def test_a_zone_no_one_has(self):
        exc = self.assertRaises(exceptions.CommandError,
                                compute.availability_zone, self.clients, 'az9')
        self.assertEqual("No host aggregate of the compute API is in "
                         "availability zone 'az9'.", str(exc))


def _uuid(n):
    return 'c0ffee00-0000-4000-8000-%012d' % n


class TestZoneNodes(ComputeTestCase):
    """with_nodes(): the compute nodes of the default zone's hosts."""

    # host-a's node is its FQDN; ironic-1 has two nodes (Ironic: one
    # nova-compute for many nodes); host-b has none; big is of another
    # zone.
    HOSTS = ['host-a', 'host-b', 'ironic-1']
    BODIES = [clouds.hypervisor(_uuid(1), 'host-a.example.org', 'host-a'),
              clouds.hypervisor(_uuid(2), 'node-2', 'ironic-1'),
              clouds.hypervisor(_uuid(3), 'big', 'big'),
              clouds.hypervisor(_uuid(4), 'node-1', 'ironic-1')]

    def hypervisors(self, *pages, **answer):
        """GET /os-hypervisors/detail: one answer per page, in order."""
        if answer:
            self.requests_mock.get(NOVA + '/os-hypervisors/detail',
                                   **answer)
            return
        self.requests_mock.get(NOVA + '/os-hypervisors/detail', [
            {'json': page} for page in pages])

    def nodes(self, hosts=None):
        return compute.with_nodes(self.clients, compute.Zone(
            'nova', hosts=self.HOSTS if hosts is None else hosts))

    def test_each_host_its_nodes(self):
        self.hypervisors({'hypervisors': self.BODIES})
        zone = self.nodes()
        self.assertEqual(
            {'host-a': [compute.Node(_uuid(1), 'host-a.example.org',
                                     'host-a')],
             'host-b': [],
             'ironic-1': [compute.Node(_uuid(4), 'node-1', 'ironic-1'),
                          compute.Node(_uuid(2), 'node-2', 'ironic-1')]},
            zone.nodes)
        self.assertEqual([_uuid(1), _uuid(2), _uuid(4)],
                         sorted(zone.roots))
        self.assertEqual((None, self.HOSTS, 'nova'),
                         (zone.aggregates, zone.hosts, zone.name))
        # One read, at the version whose ids are the nodes' UUIDs.
        self.assertEqual(
            [('GET', NOVA + '/os-hypervisors/detail', 'compute 2.53')],
            self.sent())

    def test_pages_follow_the_next_link(self):
        link = {'rel': 'next', 'href': NOVA + '/os-hypervisors/detail?'
                'marker=' + _uuid(2)}
        self.hypervisors(
            {'hypervisors': self.BODIES[:2], 'hypervisors_links': [link]},
            {'hypervisors': self.BODIES[2:]})
        zone = self.nodes()
        self.assertEqual([_uuid(1), _uuid(2), _uuid(4)],
                         sorted(zone.roots))
        self.assertEqual(
            [('GET', NOVA + '/os-hypervisors/detail', 'compute 2.53'),
             ('GET', NOVA + '/os-hypervisors/detail?marker=' + _uuid(2),
              'compute 2.53')], self.sent())

    def test_a_page_that_comes_again_is_one_line(self):
        link = {'rel': 'next', 'href': NOVA + '/os-hypervisors/detail'}
        page = {'hypervisors': self.BODIES[:1], 'hypervisors_links': [link]}
        self.hypervisors(page, page, page)
        exc = self.assertRaises(exceptions.CommandError, self.nodes)
        self.assertEqual(
            'Invalid response from the compute API to GET '
            '/os-hypervisors/detail: the page after marker %s is that page '
            'again.' % _uuid(1), str(exc))
        self.assertEqual(2, len(self.sent()))

    def test_no_host_has_a_node(self):
        self.hypervisors({'hypervisors': self.BODIES})
        zone = self.nodes(['host-b'])
        self.assertEqual(({'host-b': []}, {}), (zone.nodes, zone.roots))

    def test_an_id_that_is_no_uuid(self):
        # A compute API that answers below 2.53: integer ids.
        self.hypervisors({'hypervisors': [
            clouds.hypervisor(7, 'host-a', 'host-a')]})
        exc = self.assertRaises(exceptions.CommandError, self.nodes)
        self.assertEqual(
            "Cannot read the hypervisors of availability zone 'nova': the "
            "compute API gives hypervisor 'host-a' of host host-a the ID 7, "
            "not its compute node's UUID (compute microversion 2.53 or "
            "later needed).", str(exc))

    def test_an_error_answered_is_one_line(self):
        fault = {'code': 406, 'message': 'Version 2.53 is not supported '
                 'by the API. Minimum is 2.1 and maximum is 2.52.'}
        self.hypervisors(status_code=406, json={'computeFault': fault},
                         headers={'Content-Type': 'application/json'})
        exc = self.assertRaises(exceptions.CommandError, self.nodes)
        self.assertEqual(
            "Cannot read the hypervisors of availability zone 'nova': the "
            "compute API answered HTTP 406: Version 2.53 is not supported "
            "by the API. Minimum is 2.1 and maximum is 2.52.", str(exc))

    def test_unreachable(self):
        self.hypervisors(exc=requests.exceptions.ConnectionError('refused'))
        exc = self.assertRaises(exceptions.CommandError, self.nodes)
        self.assertIn("Cannot read the hypervisors of availability zone "
                      "'nova': the compute API is unreachable", str(exc))

    def test_not_a_list(self):
        self.hypervisors({'hypervisors': {'id': _uuid(1)}})
        exc = self.assertRaises(exceptions.CommandError, self.nodes)
        self.assertEqual(
            "Invalid response from the compute API to GET "
            "/os-hypervisors/detail: no list of objects at \"hypervisors\".",
            str(exc))


class TestImportedByCommandsOnly(base.BaseTestCase):
    """No helper module imports compute: only the commands reading Nova.

    And nova_state and drain, the audit's and the drain plan's reads of
    Nova, which page through compute.paged(): only the commands that read
    Nova import them.
    """

    READERS_OF_NOVA = ['drain.py', 'nova_state.py']

    def test_no_helper_imports_it(self):
        package = os.path.dirname(compute.__file__)
        found = []
        for name in sorted(os.listdir(package)):
            if not name.endswith('.py'):
                continue
            with open(os.path.join(package, name)) as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and any(
                        '%s.%s' % (node.module, a.name)
                        == 'osc_placement.api.compute' for a in node.names):
                    found.append(name)
                elif isinstance(node, ast.Import) and any(
                        a.name == 'osc_placement.api.compute'
                        for a in node.names):
                    found.append(name)
        self.assertEqual(self.READERS_OF_NOVA, found)


class _Lazy(object):
    """As OpenStackClient's client manager: the proxy made at first use."""

    def __init__(self, conn):
        self.conn = self.sdk_connection = conn
        self.session = conn.session

    def setup_auth(self):
        pass

    @property
    def compute(self):
        return self.conn.compute


class TestNoComputeInTheCatalog(base.BaseTestCase):

    def test_one_line(self):
        mock = self.useFixture(rm_fixture.Fixture())
        token = ks_fixture.V3Token()
        service = token.add_service('placement')
        service.add_endpoint('public', 'http://placement.example')
        mock.get(KEYSTONE, json=ks_fixture.V3Discovery(KEYSTONE))
        mock.post(KEYSTONE + '/auth/tokens', json=token,
                  headers={'X-Subject-Token': 'tok'})
        conn = connection.Connection(
            auth_url=KEYSTONE, username='admin', password='secret',
            project_name='admin', user_domain_id='default',
            project_domain_id='default', auth_type='password',
            identity_api_version='3')
        exc = self.assertRaises(exceptions.CommandError,
                                compute.find_flavor, _Lazy(conn), 'm1')
        self.assertTrue(str(exc).startswith(
            "Cannot read flavor 'm1': no compute endpoint in the service "
            "catalog"), str(exc))
        self.assertNotIn('\n', str(exc))


class TestNoCatalogNoProxy(base.BaseTestCase):
    """Without a catalog the compute proxy is not made.

    Its version discovery would read Placement's root, the session's one
    endpoint.
    """

    def test_one_line_and_no_request(self):
        mock = self.useFixture(rm_fixture.Fixture())
        clients = _Unmade(connection.Connection(session=session.Session(
            auth=token_endpoint.Token(PLACEMENT, 'admin'))))
        exc = self.assertRaises(exceptions.CommandError,
                                compute.find_flavor, clients, 'm1')
        self.assertTrue(str(exc).startswith(
            '--flavor, --all-flavors and --availability-zone read the '
            'compute API, which this session cannot reach'), str(exc))
        self.assertEqual([], mock.request_history)

    def test_an_endpoint_of_its_own_is_nova_s(self):
        clients = _Unmade(connection.Connection(session=session.Session(
            auth=token_endpoint.Token(PLACEMENT, 'admin')),
            compute_endpoint_override=NOVA))
        self.assertRaisesRegex(AssertionError, 'the proxy was made',
                               compute.find_flavor, clients, 'm1')


class _Unmade(_Lazy):

    @property
    def compute(self):
        raise AssertionError('the proxy was made')


class TestComputeNotLoaded(base.BaseTestCase):
    """A command without --flavor never imports the compute helpers."""

    def test_plain_command(self):
        code = (
            'import sys\n'
            'from osc_placement.tests import cli\n'
            'cli.run(cli.auth_argv() + ["resource", "provider", "capacity",'
            ' "fit", "--help"])\n'
            'print("osc_placement.api.compute" in sys.modules)\n')
        done = subprocess.run([sys.executable, '-c', code],
                              capture_output=True, text=True, check=True)
        self.assertEqual('False', done.stdout.splitlines()[-1])


class TestPaged(ComputeTestCase):
    """compute.paged(): a list read page after page at a microversion."""

    PATH = '/os-migrations'
    M1 = '44444444-4444-4444-4444-444444444441'
    M2 = '44444444-4444-4444-4444-444444444442'

    def test_each_page_with_its_params_the_marker_and_the_version(self):
        link = [{'rel': 'next', 'href': 'http://elsewhere/ignored'}]
        self.requests_mock.get(NOVA + self.PATH, [
            {'json': {'migrations': [{'uuid': self.M1, 'id': 1}],
                      'migrations_links': link}},
            {'json': {'migrations': [{'uuid': self.M2, 'id': 2}]}}])
        found = compute.paged(
            self.cmd.app.client_manager.compute, self.PATH, 'migrations',
            {'instance_uuid': 's1'}, '2.80', marker_key='uuid')
        self.assertEqual([self.M1, self.M2], [m['uuid'] for m in found])
        self.assertEqual(
            [('GET', NOVA + self.PATH + '?instance_uuid=s1', 'compute 2.80'),
             ('GET', NOVA + self.PATH + '?instance_uuid=s1&marker='
              + self.M1, 'compute 2.80')], self.sent())

    def test_a_down_cell_s_server_is_no_marker(self):
        link = [{'rel': 'next', 'href': 'http://elsewhere/ignored'}]
        self.requests_mock.get(NOVA + '/servers/detail', [
            {'json': {'servers': [{'id': 'a'}, {'id': 'b',
                                                'status': 'UNKNOWN'}],
                      'servers_links': link}},
            {'json': {'servers': []}}])
        compute.paged(self.cmd.app.client_manager.compute, '/servers/detail',
                      'servers', {}, '2.80')
        self.assertEqual(NOVA + '/servers/detail?marker=a',
                         self.sent()[1][1])

    def test_an_answer_that_is_no_object_is_one_line(self):
        self.requests_mock.get(NOVA + self.PATH, json=[])
        exc = self.assertRaises(
            exceptions.CommandError, compute.paged,
            self.cmd.app.client_manager.compute, self.PATH, 'migrations',
            {}, '2.80')
        self.assertEqual('Invalid response from the compute API to GET '
                         '/os-migrations: not a JSON object.', str(exc))
