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

"""The threads of requests given up at their deadline end.

A request with a timeout runs in a thread of its own (``http/inflight.py``)
that the caller stops waiting for at the deadline. Against a server that
trickles its answer (a byte every few hundredths of a second, so that no
read of the socket times out), that thread would read on for as long as
the server sends: a long run of such requests (a batch, the audit) would
pile them up. Its socket is shut instead, and the thread ends.

The server is ``faultserver`` on 127.0.0.1: the requests go through
keystoneauth, requests, urllib3 and a real socket.
"""

import threading
import time

from keystoneauth1 import loading
from keystoneauth1 import session as ks_session
from oslotest import base
import testscenarios

from osc_placement import errors
from osc_placement.http import client as http
from osc_placement.tests.functional import faultserver

# How long the threads are given to end, at most: far more than they need,
# far less than the server's trickle lasts.
SETTLE_SECONDS = 20
# The trickled answer: a byte every 0.05 s, for an hour.
TRICKLE = faultserver.Reply(
    200, b'{"resource_providers": []}' + b' ' * 72000,
    content_type='application/json', trickle=0.05)


load_tests = testscenarios.load_tests_apply_scenarios


def live_threads():
    return threading.active_count()


class TestAbandonedRequests(base.BaseTestCase):

    scenarios = [('http', {'tls': False}), ('https', {'tls': True})]

    def test_threads_end_after_timeouts(self):
        server = self.useFixture(faultserver.FaultServer(tls=self.tls))
        server.answer(TRICKLE)
        auth = loading.get_plugin_loader('admin_token').load_from_options(
            endpoint=server.endpoint, token='the-token')
        client = http.SessionClient(
            ks_session.Session(auth=auth, verify=server.cert_path or True),
            {'service_type': 'placement', 'region_name': None,
             'interface': 'public'}, api_version='1.14', timeout=0.5)
        before = live_threads()
        for _ in range(5):
            raised = self.assertRaises(errors.ConnectionFailed,
                                       client.request, 'GET',
                                       '/resource_providers')
            self.assertEqual(
                'Reached the Placement API at %s/resource_providers: no '
                'complete answer within the timeout.' % server.endpoint,
                str(raised))
        self.assertEqual(5, len(server.api_requests()))
        # The request threads (and the server's threads that served them,
        # which end when their client goes away) end; polled, with a
        # bound.
        settled = time.monotonic() + SETTLE_SECONDS
        while live_threads() > before and time.monotonic() < settled:
            time.sleep(0.05)
        self.assertEqual(before, live_threads())
