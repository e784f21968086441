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

"""The relay of the sandbox, between real sockets.

A client that goes away before its answer, or resets a connection kept
alive, is no error of the relay: one debug line, nothing on stderr, and
the next client is served. A server that cannot be reached is one warning
line, and no traceback on stderr.
"""

import http.client
import http.server
import io
import logging
import socket
import struct
import threading
import time
import urllib.parse

import fixtures
from oslotest import base

from osc_placement.tests.functional import faultserver
from osc_placement.tests.support import relay


class Upstream(fixtures.Fixture):
    """A small HTTP/1.1 server in a thread that answers ``{}`` to a GET."""

    def _setUp(self):
        class Answer(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def do_GET(self):
                self.send_response(200)
                self.send_header('Content-Length', '2')
                self.end_headers()
                self.wfile.write(b'{}')

            def log_message(self, *args):
                pass

        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Answer)
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever,
                                  kwargs={'poll_interval': 0.05},
                                  daemon=True)
        thread.start()
        self.addCleanup(thread.join, 10)
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        self.endpoint = 'http://127.0.0.1:%d' % server.server_port


def reset(sock):
    """Close ``sock`` with a reset (RST), as a killed client's kernel does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                    struct.pack('ii', 1, 0))
    sock.close()


class TestClientGoesAway(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.stderr = io.StringIO()
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', self.stderr))
        self.log = self.useFixture(fixtures.FakeLogger(
            name=relay.__name__, level=logging.DEBUG))
        self.relay = self.useFixture(relay.Relay(
            self.useFixture(Upstream()).endpoint, timeout=30))
        address = urllib.parse.urlsplit(self.relay.endpoint)
        self.address = (address.hostname, address.port)

    def assertNoticedQuietly(self):
        """One debug line, nothing on stderr, and the relay still serves."""
        deadline = time.monotonic() + 10
        while 'went away' not in self.log.output:
            if time.monotonic() > deadline:
                self.fail('no debug line from the relay; stderr: %s'
                          % self.stderr.getvalue())
            time.sleep(0.01)
        self.assertEqual(1, len(self.log.output.splitlines()),
                         self.log.output)
        self.assertEqual('', self.stderr.getvalue())
        conn = http.client.HTTPConnection(*self.address, timeout=10)
        self.addCleanup(conn.close)
        conn.request('GET', '/next')
        resp = conn.getresponse()
        self.assertEqual((200, b'{}'), (resp.status, resp.read()))

    def test_a_client_that_leaves_before_its_answer(self):
        held = self.relay.hold('GET', '/slow')
        sock = socket.create_connection(self.address, timeout=10)
        sock.sendall(b'GET /slow HTTP/1.1\r\nHost: relay\r\n\r\n')
        self.assertTrue(held.wait(10))
        # Gone while its request is held: the answer has nowhere to go.
        reset(sock)
        self.relay.release()
        self.assertNoticedQuietly()

    def test_a_client_that_resets_a_connection_kept_alive(self):
        sock = socket.create_connection(self.address, timeout=10)
        sock.sendall(b'GET /first HTTP/1.1\r\nHost: relay\r\n\r\n')
        answer = b''
        while not answer.endswith(b'{}'):
            answer += sock.recv(4096)
        self.assertTrue(answer.startswith(b'HTTP/1.1 200 '), answer)
        # The relay waits for the next request on this connection.
        reset(sock)
        self.assertNoticedQuietly()


class TestServerGone(base.BaseTestCase):
    """No server behind the relay.

    The client's connection is closed without an answer, and the relay
    says why in one warning line.
    """

    def test_one_warning_line_and_nothing_on_stderr(self):
        stderr = io.StringIO()
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', stderr))
        log = self.useFixture(fixtures.FakeLogger(
            name=relay.__name__, level=logging.DEBUG))
        port = self.useFixture(faultserver.ClosedPort()).port
        between = self.useFixture(relay.Relay('http://127.0.0.1:%d' % port,
                                              timeout=30))
        address = urllib.parse.urlsplit(between.endpoint)
        conn = http.client.HTTPConnection(address.hostname, address.port,
                                          timeout=10)
        self.addCleanup(conn.close)
        conn.request('GET', '/gone')
        self.assertRaises(http.client.RemoteDisconnected, conn.getresponse)
        self.assertEqual(
            ['GET /gone: no answer from the server at 127.0.0.1:%d: '
             '[Errno 111] Connection refused' % port],
            log.output.splitlines())
        self.assertEqual('', stderr.getvalue())
