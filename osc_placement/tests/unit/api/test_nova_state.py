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

"""osc_placement.api.nova_state: Nova's lists read through openstacksdk.

A real openstacksdk connection over requests-mock, as in
``test_compute``: the requests sent (paths, queries, the compute
microversion), the paging, and what is made of the answers.
"""

import datetime
import threading

import fixtures
from openstack import exceptions as sdk_exceptions
from osc_lib import exceptions
from oslotest import base

from osc_placement.api import nova_state
from osc_placement.model.audit import state
from osc_placement.tests.unit.api import test_compute

NOVA = test_compute.NOVA
S1 = '11111111-1111-1111-1111-111111111111'
S2 = '22222222-2222-2222-2222-222222222222'
CN1 = '33333333-3333-3333-3333-333333333333'
M1 = '44444444-4444-4444-4444-444444444444'
AGG = '55555555-5555-5555-5555-555555555555'


def _server(uuid, status='ACTIVE', **more):
    body = {'id': uuid, 'name': 'vm', 'status': status, 'tenant_id': 'p',
            'user_id': 'u', 'OS-EXT-STS:task_state': None,
            'OS-EXT-SRV-ATTR:hypervisor_hostname': 'cn1', 'image': '',
            'flavor': {'original_name': 'small', 'vcpus': 1, 'ram': 512,
                       'disk': 10, 'ephemeral': 0, 'swap': 0,
                       'extra_specs': {'hw:cpu_policy': 'shared'}}}
    body.update(more)
    return body


NEXT = [{'rel': 'next', 'href': 'http://elsewhere/servers/detail?x'}]


class TestRead(test_compute.ComputeTestCase):

    @property
    def proxy(self):
        return self.cmd.app.client_manager.compute

    def mock(self, servers=(), deleted=(), hypervisors_status=200):
        self.requests_mock.get(NOVA + '/servers/detail', [
            {'json': page} for page in servers])
        self.requests_mock.get(
            NOVA + '/servers/detail?all_tenants=1&deleted=true',
            [{'json': page} for page in deleted] or [
                {'json': {'servers': []}}])
        self.requests_mock.get(NOVA + '/os-migrations', json={
            'migrations': [{'uuid': M1, 'instance_uuid': S1,
                            'status': 'confirmed', 'source_node': 'cn1',
                            'dest_node': 'cn2',
                            'updated_at': '2026-01-01T10:00:00.000000'}]})
        self.requests_mock.get(
            NOVA + '/os-hypervisors/detail', status_code=hypervisors_status,
            json={'hypervisors': [{'id': CN1, 'hypervisor_hostname': 'cn1',
                                   'service': {'host': 'host1'}}]})
        self.requests_mock.get(NOVA + '/os-aggregates', json={
            'aggregates': [{'uuid': AGG, 'name': 'az1',
                            'hosts': ['host1']}]})

    def test_requests_and_microversion(self):
        self.mock(servers=[{'servers': [_server(S1)]}])
        found = nova_state.read(self.proxy)
        self.assertEqual(
            [('GET', NOVA + '/servers/detail?all_tenants=1', 'compute 2.80'),
             ('GET', NOVA + '/servers/detail?all_tenants=1&deleted=true',
              'compute 2.80'),
             ('GET', NOVA + '/os-migrations', 'compute 2.80'),
             ('GET', NOVA + '/os-hypervisors/detail', 'compute 2.80'),
             ('GET', NOVA + '/os-aggregates', 'compute 2.80')], self.sent())
        [server] = found.servers
        self.assertEqual(
            state.Server(S1, 'vm', 'ACTIVE', None, 'p', 'u', 'cn1', {
                'name': 'small', 'vcpus': 1, 'ram': 512, 'disk': 10,
                'ephemeral': 0, 'swap': 0,
                'extra_specs': {'hw:cpu_policy': 'shared'}}, True), server)
        self.assertEqual([(M1, S1, 'confirmed')], [
            (m.uuid, m.server, m.status) for m in found.migrations])
        self.assertEqual([state.Hypervisor(CN1, 'cn1', 'host1')],
                         found.hypervisors)
        self.assertEqual([state.Aggregate(AGG, 'az1', ('host1',))],
                         found.aggregates)

    def test_pages_follow_with_the_last_marker(self):
        self.mock(servers=[{'servers': [_server(S1)], 'servers_links': NEXT},
                           {'servers': [_server(S2)]}])
        found = nova_state.read(self.proxy)
        self.assertEqual([S1, S2], sorted(s.uuid for s in found.servers))
        self.assertEqual(
            NOVA + '/servers/detail?all_tenants=1&marker=' + S1,
            self.sent()[1][1])

    def test_first_page_has_no_paging_so_down_cells_are_listed(self):
        down = {'id': S2, 'status': 'UNKNOWN', 'tenant_id': 'p'}
        self.mock(servers=[{'servers': [_server(S1), down],
                            'servers_links': NEXT},
                           {'servers': []}])
        found = nova_state.read(self.proxy)
        self.assertIn(state.UNKNOWN, [s.status for s in found.servers])
        # A down cell's server is no marker.
        self.assertEqual(
            NOVA + '/servers/detail?all_tenants=1&marker=' + S1,
            self.sent()[1][1])

    def test_a_deleted_server_and_a_soft_deleted_one(self):
        self.mock(servers=[{'servers': []}], deleted=[{'servers': [
            _server(S1, status='DELETED'),
            _server(S2, status='SOFT_DELETED')]}])
        found = {s.uuid: s for s in nova_state.read(self.proxy).servers}
        self.assertTrue(found[S1].deleted)
        self.assertFalse(found[S2].deleted)

    def test_hypervisors_500_is_cannot_list(self):
        self.mock(servers=[{'servers': []}], hypervisors_status=500)
        found = nova_state.read(self.proxy)
        self.assertIsNone(found.hypervisors)
        self.assertEqual('HTTP 500', found.hypervisors_error)

    def test_other_errors_are_one_line(self):
        self.mock(servers=[{'servers': []}], hypervisors_status=403)
        exc = self.assertRaises(sdk_exceptions.HttpException,
                                nova_state.read, self.proxy)
        self.assertEqual(403, exc.status_code)

    def test_a_body_without_its_list_is_one_line(self):
        self.mock(servers=[{'servers': {}}])
        exc = self.assertRaises(exceptions.CommandError, nova_state.read,
                                self.proxy)
        self.assertEqual('Invalid response from the compute API to GET '
                         '/servers/detail: no list of objects at "servers".',
                         str(exc))

    def test_a_page_that_comes_again_is_one_line(self):
        # The page after S1's marker is S1's page: one line, not a loop.
        page = {'servers': [_server(S1)], 'servers_links': NEXT}
        self.mock(servers=[page, page, page])
        exc = self.assertRaises(exceptions.CommandError, nova_state.read,
                                self.proxy)
        self.assertEqual('Invalid response from the compute API to GET '
                         '/servers/detail: the page after marker %s is that '
                         'page again.' % S1, str(exc))

    def test_a_body_not_json_is_one_line(self):
        self.mock(servers=[{'servers': []}])
        self.requests_mock.get(NOVA + '/os-aggregates', text='<html>')
        exc = self.assertRaises(exceptions.CommandError, nova_state.read,
                                self.proxy)
        self.assertEqual('Invalid response from the compute API to GET '
                         '/os-aggregates: not a JSON object.', str(exc))

    def around_get(self, before=None, after=None):
        """The proxy's GETs with ``before(path)`` and ``after(path)``.

        Outside requests-mock, which answers one request at a time.
        """
        real = self.proxy.get

        def get(path, *args, **kwargs):
            if before:
                before(path)
            try:
                return real(path, *args, **kwargs)
            finally:
                if after:
                    after(path)

        self.useFixture(fixtures.MockPatchObject(
            self.proxy, 'get', autospec=True, side_effect=get))

    def test_the_lists_are_read_at_once(self):
        self.mock(servers=[{'servers': [_server(S1)]}])
        # Each list waits for the other four to be asked: read one after
        # another, the barrier would break.
        barrier = threading.Barrier(5, timeout=10)
        self.around_get(before=lambda path: barrier.wait())
        found = nova_state.read(self.proxy, workers=5)
        self.assertEqual([S1], [s.uuid for s in found.servers])
        self.assertEqual(5, len(self.sent()))

    def test_the_error_is_the_first_list_s_whichever_fails_first(self):
        self.mock(servers=[{'servers': []}])
        self.requests_mock.get(NOVA + '/os-migrations', status_code=403,
                               json={'forbidden': {'message': 'Policy'}})
        self.requests_mock.get(NOVA + '/os-aggregates', status_code=500,
                               json={})
        aggregates_answered = threading.Event()

        def before(path):
            if path == '/os-migrations':
                self.assertTrue(aggregates_answered.wait(10))

        def after(path):
            if path == '/os-aggregates':
                aggregates_answered.set()

        self.around_get(before, after)
        exc = self.assertRaises(sdk_exceptions.HttpException,
                                nova_state.read, self.proxy, workers=5)
        self.assertEqual(403, exc.status_code)


class TestReadAgain(test_compute.ComputeTestCase):
    """What a fix reads again of Nova just before it writes."""

    @property
    def proxy(self):
        return self.cmd.app.client_manager.compute

    def test_each_server_its_migrations_and_those_changed_since(self):
        self.requests_mock.get(NOVA + '/servers/' + S1,
                               json={'server': _server(S1)})
        self.requests_mock.get(NOVA + '/servers/' + S2, status_code=404,
                               json={'itemNotFound': {'code': 404}})
        self.requests_mock.get(NOVA + '/os-migrations', json={
            'migrations': [{'uuid': M1, 'instance_uuid': S1,
                            'status': 'running'}]})
        since = datetime.datetime(2026, 1, 1, 12, 30, 5, 999,
                                  tzinfo=datetime.timezone(
                                      datetime.timedelta(hours=2)))
        servers, migrations = nova_state.read_again(
            self.proxy, [S2, S1, S1], since)
        self.assertEqual({S1: 'ACTIVE', S2: None}, {
            uuid: found and found.status for uuid, found in servers.items()})
        self.assertEqual([M1] * 3, [m.uuid for m in migrations])
        sent = [(r.method, r.url, r.headers.get('OpenStack-API-Version'))
                for r in self.requests_mock.request_history
                if r.url.startswith(NOVA + '/s') or '/os-' in r.url]
        self.assertEqual(sorted([
            ('GET', NOVA + '/os-migrations?changes-since=2026-01-01T10%3A30%'
             '3A05', 'compute 2.80'),
            ('GET', NOVA + '/servers/' + S1, 'compute 2.80'),
            ('GET', NOVA + '/os-migrations?instance_uuid=' + S1,
             'compute 2.80'),
            ('GET', NOVA + '/servers/' + S2, 'compute 2.80'),
            ('GET', NOVA + '/os-migrations?instance_uuid=' + S2,
             'compute 2.80')]), sorted(sent))

    def test_a_server_answer_without_a_server_is_one_line(self):
        self.requests_mock.get(NOVA + '/servers/' + S1, json={'x': 1})
        exc = self.assertRaises(exceptions.CommandError,
                                nova_state.server_now, self.proxy, S1)
        self.assertEqual('Invalid response from the compute API to GET '
                         '/servers/%s: no server object.' % S1, str(exc))


class TestOutcomes(base.BaseTestCase):

    def test_each_outcome_in_call_order(self):
        def fails():
            raise ValueError('two')

        outcomes = nova_state.outcomes_of(
            [lambda: 1, fails, lambda: 3], workers=2)
        self.assertEqual([(1, None), (3, None)],
                         [outcomes[0], outcomes[2]])
        self.assertIsNone(outcomes[1][0])
        self.assertEqual('two', str(outcomes[1][1]))

    def test_no_calls_no_outcomes(self):
        self.assertEqual([], nova_state.outcomes_of([], workers=4))


class TestOutcomesHoldNothingUp(base.BaseTestCase):
    """outcomes_of(): its calls in daemon threads, the exit never held."""

    def test_a_call_in_flight_is_in_a_daemon_thread(self):
        seen = []

        def call():
            seen.append(threading.current_thread().daemon)
            return 'read'

        self.assertEqual([('read', None)], nova_state.outcomes_of([call], 1))
        self.assertEqual([True], seen)
