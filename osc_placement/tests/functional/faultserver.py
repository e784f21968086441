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

"""A small HTTP server on 127.0.0.1 that answers with chosen faults.

It listens on a real socket (an ephemeral port), so the client under test
goes through its whole stack: keystoneauth, requests, urllib3, the socket.
Each test says how the server answers with :meth:`FaultServer.answer`; the
server records every request it gets, for assertions on the wire::

    server = self.useFixture(faultserver.FaultServer())
    server.answer(status=503, body='<h1>Down</h1>', content_type='text/html')
    out, err, code = cli.run(cli.auth_argv(server.endpoint) + [...])
    self.assertEqual('/placement/resource_providers',
                     server.requests[-1].path)
"""

import collections
import datetime
import http.server
import ipaddress
import json
import os
import socket
import ssl
import threading
from urllib import parse as urlparse

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography import x509
from cryptography.x509.oid import NameOID
import fixtures

PREFIX = '/placement'

# What a Placement 16.0.0 answers to GET / (the version document).
ROOT_DOCUMENT = {
    'versions': [{
        'id': 'v1.0',
        'max_version': '1.39',
        'min_version': '1.0',
        'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': ''}],
    }],
}

Request = collections.namedtuple(
    'Request', 'method path raw_query headers body')


class Reply(object):
    """One canned answer.

    ``body`` is sent as is (str or bytes); a dict or list is sent as JSON
    with ``Content-Type: application/json``. ``delay`` seconds pass before
    anything is written. ``drop`` closes the connection without an answer.
    ``reason`` replaces the standard reason phrase of the status line.
    ``trickle``: the body is written a byte at a time, one every
    ``trickle`` seconds, until it is whole or the client goes away.
    """

    def __init__(self, status=200, body=b'', content_type=None,
                 headers=None, delay=0, drop=False, reason=None,
                 trickle=None):
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
            content_type = content_type or 'application/json'
        if isinstance(body, str):
            body = body.encode('utf-8')
        self.status = status
        self.body = body
        self.headers = dict(headers or {})
        if content_type:
            self.headers['Content-Type'] = content_type
        self.delay = delay
        self.drop = drop
        self.reason = reason
        self.trickle = trickle


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, format, *args):
        pass

    def _serve(self):
        length = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(length) if length else b''
        split = urlparse.urlsplit(self.path)
        request = Request(self.command, split.path, split.query,
                          dict(self.headers.items()), body)
        server = self.server.fault_server
        reply = server.reply_for(request)
        if reply.delay:
            # Stop early when the test is over, so shutdown is quick.
            server.stopping.wait(reply.delay)
        if reply.drop:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.send_response(reply.status, reply.reason)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.send_header('Content-Length', str(len(reply.body)))
        self.end_headers()
        if self.command == 'HEAD':
            return
        if not reply.trickle:
            self.wfile.write(reply.body)
            return
        for at in range(len(reply.body)):
            if server.stopping.wait(reply.trickle):
                return
            # Raises once the client has closed the connection.
            self.wfile.write(reply.body[at:at + 1])

    do_GET = do_PUT = do_POST = do_DELETE = do_PATCH = do_HEAD = _serve


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # A client that gave up (a timeout, a TLS failure) is what the
        # tests provoke: nothing to report.
        pass


class FaultServer(fixtures.Fixture):
    """The server, as a fixture: started on set-up, stopped on clean-up.

    By default ``GET /placement/`` (the version negotiation) gets the
    version document and every other request gets ``default`` (an empty
    provider list). :meth:`answer` replaces the answer to everything but
    the negotiation (``negotiation=True``: to the negotiation too);
    :meth:`route` sets the answer to one method and path.
    """

    def __init__(self, tls=False):
        super().__init__()
        self.tls = tls
        self.requests = []
        self.stopping = threading.Event()
        self._routes = {}
        self._default = Reply(200, {'resource_providers': []})
        self._negotiation = Reply(200, ROOT_DOCUMENT)
        self._lock = threading.Lock()
        self._httpd = None
        self._thread = None
        self.cert_path = None

    @property
    def port(self):
        return self._httpd.server_address[1]

    @property
    def endpoint(self):
        scheme = 'https' if self.tls else 'http'
        return '%s://127.0.0.1:%d%s' % (scheme, self.port, PREFIX)

    def answer(self, *args, negotiation=False, **kwargs):
        reply = args[0] if args and isinstance(args[0], Reply) \
            else Reply(*args, **kwargs)
        self._default = reply
        if negotiation:
            self._negotiation = reply
        return reply

    def route(self, method, path, *args, **kwargs):
        """Answer ``method PREFIX+path`` (any query) with this reply."""
        reply = args[0] if args and isinstance(args[0], Reply) \
            else Reply(*args, **kwargs)
        self._routes[(method, PREFIX + path)] = reply
        return reply

    def reply_for(self, request):
        with self._lock:
            self.requests.append(request)
        reply = self._routes.get((request.method, request.path))
        if reply is not None:
            return reply
        if request.method == 'GET' and request.path in (PREFIX, PREFIX + '/'):
            return self._negotiation
        return self._default

    def api_requests(self):
        """The requests other than the version negotiation."""
        return [r for r in self.requests
                if r.path not in (PREFIX, PREFIX + '/')]

    def _setUp(self):
        self._httpd = _Server(('127.0.0.1', 0), _Handler)
        self._httpd.fault_server = self
        self.addCleanup(self._httpd.server_close)
        if self.tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            directory = self.useFixture(fixtures.TempDir()).path
            self.cert_path, key = write_self_signed_cert(directory)
            context.load_cert_chain(self.cert_path, key)
            self._httpd.socket = context.wrap_socket(self._httpd.socket,
                                                     server_side=True)
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={'poll_interval': 0.05},
                                        daemon=True)
        self._thread.start()
        self.addCleanup(self._stop)

    def _stop(self):
        self.stopping.set()
        self._httpd.shutdown()
        self._thread.join(5)


def write_self_signed_cert(directory):
    """A self-signed certificate for 127.0.0.1 and its key, as PEM files.

    cryptography comes with openstacksdk, which OpenStackClient needs.
    """
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME,
                                         'fault server')])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(name).issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address('127.0.0.1'))]),
                critical=False)
            .sign(key, hashes.SHA256()))
    cert_path = os.path.join(directory, 'cert.pem')
    key_path = os.path.join(directory, 'key.pem')
    with open(cert_path, 'wb') as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, 'wb') as f:
        f.write(key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption()))
    return cert_path, key_path


class ClosedPort(fixtures.Fixture):
    """A 127.0.0.1 port on which nothing listens (connection refused).

    The port stays bound, never listening, until the fixture ends: no
    other process (a sandbox server of a test running beside, a client's
    outgoing connection) can take it meanwhile.
    """

    def _setUp(self):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.addCleanup(sock.close)
        sock.bind(('127.0.0.1', 0))
        self.port = sock.getsockname()[1]
