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

"""osc_placement.api.drain: Nova's reads of a drain plan.

A real openstacksdk connection over requests-mock, as in
``test_compute``: the requests sent (one list of servers and one of
migrations per drained host, a stray consumer by UUID) and the compute
microversion, with the fallback of an API older than 2.96. Placement's
reads are the functional tests' (``tests/functional/test_drain.py``).
"""

import urllib.parse

from osc_lib import exceptions

from osc_placement.api import drain
from osc_placement.tests.unit.api import test_compute

NOVA = test_compute.NOVA
CN1, CN2 = ('c0de0000-0000-4000-8000-00000000000%d' % n for n in (1, 2))
S1, S2, X1, M1 = ('5e7e0000-0000-4000-8000-00000000000%d' % n
                  for n in (1, 2, 3, 4))


def _server(uuid, host, **more):
    body = {'id': uuid, 'name': 'vm', 'status': 'ACTIVE',
            'OS-EXT-SRV-ATTR:host': host, 'OS-EXT-AZ:availability_zone': 'az1',
            'flavor': {'vcpus': 1, 'ram': 512, 'disk': 1, 'extra_specs': {}}}
    body.update(more)
    return body


class TestReadNova(test_compute.ComputeTestCase):

    def setUp(self):
        super().setUp()
        self.requests_mock.get(NOVA + '/os-hypervisors/detail', json={
            'hypervisors': [
                {'id': CN1, 'hypervisor_hostname': 'cn1',
                 'service': {'host': 'h1'}},
                {'id': CN2, 'hypervisor_hostname': 'cn2',
                 'service': {'host': 'h2'}}]})
        self.requests_mock.get(NOVA + '/os-availability-zone/detail', json={
            'availabilityZoneInfo': [
                {'zoneName': 'az1', 'hosts': {
                    'h1': {'nova-compute': {}}, 'h2': {'nova-compute': {}},
                    'ctl': {'nova-scheduler': {}}}},
                {'zoneName': 'internal', 'hosts': None}]})
        self.requests_mock.get(NOVA + '/os-migrations', json={
            'migrations': [{'uuid': M1, 'instance_uuid': S2,
                            'status': 'running'}]})
        self.requests_mock.get(NOVA + '/servers/%s' % S2, json={
            'server': _server(S2, 'h2')})
        self.requests_mock.get(NOVA + '/servers/%s' % X1, status_code=404,
                               json={'itemNotFound': {'code': 404}})

    @property
    def proxy(self):
        return self.cmd.app.client_manager.compute

    def test_requests(self):
        self.requests_mock.get(NOVA + '/servers/detail', json={
            'servers': [_server(S1, 'h1', pinned_availability_zone='az1'),
                        _server('other', 'h1')]})
        found = drain.read_nova(self.proxy, [CN1], [S1, S2, X1, M1])
        self.assertEqual([S1, S2], sorted(found.servers))
        self.assertEqual('az1', found.servers[S1].pinned_zone)
        self.assertEqual([M1], list(found.migrations))
        self.assertEqual({'h1': 'az1', 'h2': 'az1'}, found.zones)
        self.assertEqual('h1', found.nodes[CN1].host)
        self.assertTrue(found.pinned_known)
        queries = {(urllib.parse.urlsplit(url).path.rsplit('/', 1)[1],
                    urllib.parse.urlsplit(url).query, version)
                   for _method, url, version in self.sent()}
        self.assertIn(('detail', 'all_tenants=1&host=h1', 'compute 2.96'),
                      queries)
        self.assertIn(('os-migrations', 'host=h1', 'compute 2.80'), queries)
        self.assertIn((S2, '', 'compute 2.96'), queries)
        self.assertIn((X1, '', 'compute 2.96'), queries)
        # The migration is no server: never read as one.
        self.assertNotIn(M1, {q[0] for q in queries})

    def test_older_api_reads_servers_at_the_audit_s_version(self):
        self.requests_mock.get(NOVA + '/servers/detail', [
            {'status_code': 406, 'json': {'computeFault': {
                'code': 406, 'message': 'Version 2.96 is not supported'}}},
            {'json': {'servers': [_server(S1, 'h1')]}}])
        found = drain.read_nova(self.proxy, [CN1], [S1])
        self.assertFalse(found.pinned_known)
        self.assertEqual([S1], list(found.servers))
        self.assertEqual(['compute 2.96', 'compute 2.80'], [
            version for _m, url, version in self.sent()
            if '/servers/detail' in url])

    def test_a_deleted_server_is_read_from_the_deleted_list(self):
        # GET /servers/{id} of a deleted server is 404 (X1's, above).
        def servers(request, context):
            query = urllib.parse.parse_qs(request.query)
            deleted = query.get('deleted') == ['true'] and query.get(
                'uuid') == [X1]
            return {'servers': [_server(X1, None, status='DELETED')]
                    if deleted else []}
        self.requests_mock.get(NOVA + '/servers/detail', json=servers)
        found = drain.read_nova(self.proxy, [CN1], [X1])
        self.assertTrue(found.servers[X1].deleted)

    def test_a_disabled_hypervisor_is_said(self):
        self.requests_mock.get(NOVA + '/os-hypervisors/detail', json={
            'hypervisors': [
                {'id': CN1, 'hypervisor_hostname': 'cn1', 'status': 'enabled',
                 'service': {'host': 'h1'}},
                {'id': CN2, 'hypervisor_hostname': 'cn2',
                 'status': 'disabled', 'service': {'host': 'h2'}}]})
        self.requests_mock.get(NOVA + '/servers/detail', json={
            'servers': []})
        found = drain.read_nova(self.proxy, [CN1], [])
        self.assertEqual(frozenset([CN2]), found.disabled)
        self.assertEqual([CN1, CN2], sorted(found.nodes))

    def test_a_zone_whose_hosts_are_no_object_is_one_line(self):
        self.requests_mock.get(NOVA + '/servers/detail', json={
            'servers': []})
        self.requests_mock.get(NOVA + '/os-availability-zone/detail', json={
            'availabilityZoneInfo': [{'zoneName': 'az1', 'hosts': ['h1']}]})
        raised = self.assertRaises(exceptions.CommandError, drain.read_nova,
                                   self.proxy, [CN1], [])
        self.assertEqual(
            "Cannot read the availability zones: the compute API gives the "
            "hosts of zone 'az1' as list, not an object.", str(raised))
