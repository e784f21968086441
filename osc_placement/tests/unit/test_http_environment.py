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

"""The environment and the debug lines with the per-request work cut.

http.py reads the environment once per batch (proxies, CA bundle,
``.netrc``) and asks keystoneauth for its debug lines only when a handler
writes them (issue 33). These tests pin what a user sees: the proxy, the
``no_proxy`` exception, the CA bundle and the ``.netrc`` credentials of
the environment are used by the requests of a batch and by a single
request alike; the requests of a batch are those of single requests; the
session trusts the environment again after a batch; ``--debug`` still
prints keystoneauth's request lines.
"""

import base64
import logging
import os

import fixtures

from osc_placement.tests.unit import base

ENDPOINT = base.ENDPOINT
PROXY = 'http://proxy.test:3128'
PROVIDERS = [base.provider('aaaaaaaa-aaaa-4aaa-8aaa-%012d' % i, 'rp-%d' % i)
             for i in range(12)]
INVENTORY = {'resource_provider_generation': 1, 'inventories': {}}
# One batch (the inventories of each provider, eight at a time) and a
# single request (the list).
BATCH = ['--os-placement-parallel', '8', 'resource', 'provider',
         'capacity', 'list', '-f', 'value']
SINGLE = ['resource', 'provider', 'list', '-f', 'value', '-c', 'name']


class EnvironmentTestCase(base.TestCase):

    api_version = '1.39'

    def setUp(self):
        super().setUp()
        for name in ('http_proxy', 'https_proxy', 'no_proxy', 'HTTP_PROXY',
                     'HTTPS_PROXY', 'NO_PROXY', 'all_proxy', 'ALL_PROXY',
                     'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'NETRC'):
            self.useFixture(fixtures.EnvironmentVariable(name))
        self.requests_mock.get(
            ENDPOINT + '/resource_providers', complete_qs=True,
            json={'resource_providers': PROVIDERS})
        for rp in PROVIDERS:
            for what in ('inventories', 'usages'):
                self.requests_mock.get(
                    ENDPOINT + '/resource_providers/%s/%s' % (rp['uuid'],
                                                              what),
                    json={'inventories': {}, 'usages': {},
                          'resource_provider_generation': 1})

    def run_both(self, env):
        """The batch, then the single request; their requests, each."""
        out, err, code = self.openstack(*BATCH, env=env)
        self.assertEqual(0, code, err)
        batch = list(self.requests_mock.request_history)
        self.requests_mock.reset_mock()
        out, err, code = self.openstack(*SINGLE, env=env)
        self.assertEqual(0, code, err)
        single = list(self.requests_mock.request_history)
        # The batch's reads of each provider, and its own list.
        reads = [r for r in batch if r.path.endswith(
            ('/inventories', '/usages'))]
        self.assertEqual(2 * len(PROVIDERS), len(reads))
        return reads, single


class TestProxies(EnvironmentTestCase):

    def test_the_proxy_of_the_environment_is_used(self):
        reads, single = self.run_both({'http_proxy': PROXY,
                                       'https_proxy': PROXY})
        for request in reads + single:
            self.assertEqual(PROXY, request.proxies.get('http'),
                             request.url)

    def test_no_proxy_is_honoured(self):
        reads, single = self.run_both({'http_proxy': PROXY,
                                       'no_proxy': 'placement.test'})
        for request in reads + single:
            self.assertNotIn('http', request.proxies, request.url)

    def test_the_ca_bundle_of_the_environment_is_used(self):
        bundle = os.path.join(self.useFixture(fixtures.TempDir()).path,
                              'ca.pem')
        reads, single = self.run_both({'REQUESTS_CA_BUNDLE': bundle})
        for request in reads + single:
            self.assertEqual(bundle, request.verify, request.url)


class TestNetrc(EnvironmentTestCase):

    def netrc(self, host):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'netrc')
        with open(path, 'w') as f:
            f.write('machine %s login someone password secret\n' % host)
        os.chmod(path, 0o600)
        return path

    def test_a_netrc_entry_for_the_endpoint_is_sent(self):
        reads, single = self.run_both({'NETRC': self.netrc('placement.test')})
        expected = 'Basic ' + base64.b64encode(
            b'someone:secret').decode('ascii')
        for request in reads + single:
            self.assertEqual(expected, request.headers.get('Authorization'),
                             request.url)

    def test_an_entry_for_another_host_is_not(self):
        reads, single = self.run_both({'NETRC': self.netrc('other.test')})
        for request in reads + single:
            self.assertNotIn('Authorization', request.headers, request.url)


class TestSameRequests(EnvironmentTestCase):

    def test_a_batch_sends_the_headers_of_a_single_request(self):
        reads, single = self.run_both({'http_proxy': PROXY})
        headers = dict(single[-1].headers)
        for request in reads:
            self.assertEqual(headers, dict(request.headers), request.url)
            self.assertEqual(single[-1].timeout, request.timeout)
            self.assertEqual(single[-1].cert, request.cert)


class TestSessionAfterABatch(EnvironmentTestCase):

    def test_the_session_trusts_the_environment_again(self):
        from keystoneauth1 import loading
        from keystoneauth1 import session as ks_session

        from osc_placement.cli import batch
        from osc_placement import http

        auth = loading.get_plugin_loader('admin_token').load_from_options(
            endpoint=ENDPOINT, token='the-token')
        session = ks_session.Session(auth=auth)
        client = http.SessionClient(
            session, {'service_type': 'placement', 'region_name': None,
                      'interface': 'public'}, api_version='1.39', parallel=4)
        seen = []

        def work(rp):
            seen.append(session.session.trust_env)
            return client.request('GET', '/resource_providers/%s/usages'
                                  % rp['uuid'])
        done = batch.run(client, work, PROVIDERS)
        self.assertEqual(len(PROVIDERS), len(done.done()))
        # Not trusted while the batch reads with what it read once...
        self.assertEqual([False] * len(PROVIDERS), seen)
        # ...and trusted again for whatever comes next.
        self.assertTrue(session.session.trust_env)


class TestDebugLines(EnvironmentTestCase):

    def test_debug_prints_the_request_lines(self):
        out, err, code = self.openstack('--debug', *BATCH)
        self.assertEqual(0, code, err)
        for rp in PROVIDERS:
            self.assertIn('REQ: curl -g -i -X GET %s/resource_providers/%s/'
                          'inventories' % (ENDPOINT, rp['uuid']), err)
        self.assertIn('RESP BODY: ', err)

    def test_no_debug_lines_are_built_without_a_handler_for_them(self):
        from osc_placement import http

        quiet = logging.getLogger('osc_placement.tests.quiet')
        self.addCleanup(setattr, quiet, 'propagate', quiet.propagate)
        quiet.propagate = False
        quiet.setLevel(logging.DEBUG)
        handler = logging.StreamHandler()
        handler.setLevel(logging.WARNING)
        quiet.addHandler(handler)
        self.addCleanup(quiet.removeHandler, handler)
        # Enabled for DEBUG, but its only handler drops DEBUG records.
        self.assertFalse(http.writes_debug('osc_placement.tests.quiet'))
        handler.setLevel(logging.DEBUG)
        self.assertTrue(http.writes_debug('osc_placement.tests.quiet'))
        quiet.setLevel(logging.INFO)
        self.assertFalse(http.writes_debug('osc_placement.tests.quiet'))
