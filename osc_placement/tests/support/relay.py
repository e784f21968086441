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

"""An HTTP relay in front of a server, in threads of this process.

A :class:`Relay` forwards requests and answers unchanged. It puts a
distance between a client and the server (a delay before each request),
and lets a test decide what happens between two requests of a real client
process (an action, or a hold, before a chosen request). A client that
goes away before its answer is normal (a command interrupted, a timeout):
the relay notes it in one debug line and carries on. A server that cannot
be reached is one warning line, and the client's connection is closed
without an answer. It counts the requests in flight through it
(``most_in_flight``): what a client really sends at once. After the
server has answered a chosen request, it can also lose that answer (close
the client's connection instead), trickle it (a byte at a time) or hold
it: a write that landed while its client cannot know.
"""

import http.client
import http.server
import logging
import socket
import threading
import time
import urllib.parse

import fixtures

from osc_placement.tests.support import SandboxError

LOG = logging.getLogger(__name__)

# Headers about one connection, not about the request or answer.
HOP_BY_HOP = ('connection', 'keep-alive', 'proxy-connection', 'te',
              'trailer', 'transfer-encoding', 'upgrade')


class RelayError(SandboxError):
    """The server behind the relay could not be reached."""


class Relay(fixtures.Fixture):
    """An HTTP relay in front of ``upstream``, listening on ``endpoint``.

    Clients pointed at ``endpoint`` reach ``upstream`` with their requests
    and the answers unchanged. It serves two purposes:

    * distance: each request waits ``delay_ms`` before it goes on, as if
      the client were that far from the cloud (``Placement(latency_ms=N)``,
      the benchmark);
    * races: a test decides what happens between two requests of a real
      client process: :meth:`intercept` runs code of its own just before a
      chosen request goes on, :meth:`hold` parks that request until
      :meth:`release`.

    Like a network between a client's session and a server, it keeps
    connections alive (HTTP/1.1) on both sides, with one upstream
    connection per client connection, and handles each client connection
    in a thread of its own: requests on different connections wait and
    travel in parallel. Runs in threads of this process from set-up to
    clean-up (:meth:`close`).

    :param upstream: the server's endpoint, e.g. ``Placement().endpoint``.
    :param delay_ms: milliseconds to wait before relaying each request.
    :param timeout: seconds to wait for the server, and at most for a
        release.
    :param host: address to listen on.
    :param port: port to listen on; 0 picks a free one.
    """

    def __init__(self, upstream, delay_ms=0, timeout=120, host='127.0.0.1',
                 port=0):
        super().__init__()
        self.upstream = urllib.parse.urlsplit(upstream)
        self.delay_ms = delay_ms
        self.timeout = timeout
        self.host = host
        self.port = port
        self.endpoint = None
        self._hooks = []
        # (method, path, answered event, what to do with the answer).
        self._answer_hooks = []
        self._lock = threading.Lock()
        self._released = threading.Event()
        # Requests between their arrival and the end of their answer.
        self.in_flight = 0
        self.most_in_flight = 0
        self._server = None
        self._thread = None

    def _setUp(self):
        try:
            self._server = http.server.ThreadingHTTPServer(
                (self.host, self.port), self._handler())
        except OSError as exc:
            raise SandboxError('cannot listen on %s:%s: %s'
                               % (self.host, self.port, exc.strerror))
        self._server.daemon_threads = True
        self.addCleanup(self.close)
        self.port = self._server.server_port
        self.endpoint = 'http://%s:%d' % (self.host, self.port)
        # A short poll: close() waits for the loop to notice.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={'poll_interval': 0.05},
            daemon=True)
        self._thread.start()

    def intercept(self, method, path, action):
        """Run ``action()`` before relaying the next ``method path`` request.

        Once; ``path`` is compared without the query string. Returns an
        event that is set when the request has arrived, before ``action``
        runs.
        """
        arrived = threading.Event()
        with self._lock:
            self._hooks.append((method, path, arrived, action))
        return arrived

    def hold(self, method, path):
        """Park the next ``method path`` request until :meth:`release`.

        Returns the event set when that request has arrived.
        """
        return self.intercept(method, path,
                              lambda: self._released.wait(self.timeout))

    def release(self):
        self._released.set()

    def _after(self, method, path, what):
        answered = threading.Event()
        with self._lock:
            self._answer_hooks.append((method, path, answered, what))
        return answered

    def lose_answer(self, method, path):
        """Relay the next ``method path``, then drop the server's answer.

        The client's connection is closed instead of answered, once the
        server has answered (the write landed). Returns the event set
        then.
        """
        return self._after(method, path, ('lose', None))

    def trickle_answer(self, method, path, every):
        """Send the answer to the next ``method path`` a byte at a time.

        One byte every ``every`` seconds, the status line included: no
        read of the client waits long, the whole answer takes minutes.
        Returns the event set once the server has answered.
        """
        return self._after(method, path, ('trickle', every))

    def hold_answer(self, method, path):
        """Park the server's answer to the next ``method path``.

        Until :meth:`release`. Returns the event set once the server has
        answered, before the answer is held.
        """
        return self._after(method, path, ('hold', None))

    def close(self):
        """Release what is held and stop listening (the clean-up)."""
        server, self._server = self._server, None
        if server is None:
            return
        self.release()
        server.shutdown()
        server.server_close()
        self._thread.join(10)

    def _count(self, step):
        with self._lock:
            self.in_flight += step
            self.most_in_flight = max(self.most_in_flight, self.in_flight)

    def _answer_hook_for(self, method, target):
        path = urllib.parse.urlsplit(target).path
        with self._lock:
            for hook in self._answer_hooks:
                if hook[:2] == (method, path):
                    self._answer_hooks.remove(hook)
                    return hook
        return None

    def _hook_for(self, method, path):
        with self._lock:
            for hook in self._hooks:
                if hook[:2] == (method, path):
                    self._hooks.remove(hook)
                    return hook
        return None

    def _before(self, method, target):
        """The delay, then the hook of this request if there is one."""
        if self.delay_ms:
            time.sleep(self.delay_ms / 1000.0)
        hook = self._hook_for(method, urllib.parse.urlsplit(target).path)
        if hook:
            hook[2].set()
            hook[3]()

    def _connect(self):
        return http.client.HTTPConnection(
            self.upstream.hostname, self.upstream.port, timeout=self.timeout)

    def _handler(self):
        relay = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'
            # The headers and the body of an answer are two writes: with
            # Nagle's algorithm the body would wait for the client's
            # delayed ACK of the headers (40 ms on Linux) on a kept-alive
            # connection.
            disable_nagle_algorithm = True
            # This client connection's own connection to the server.
            upstream = None

            def handle_one_request(self):
                # Everything said to or heard from the server is wrapped
                # in RelayError: a ConnectionError here is the client's.
                try:
                    super().handle_one_request()
                except ConnectionError as exc:
                    LOG.debug('client %s:%s went away: %s',
                              self.client_address[0],
                              self.client_address[1], exc)
                    self.close_connection = True
                except RelayError as exc:
                    # The server is gone (a test stopped it): the client's
                    # connection is closed without an answer, and the log
                    # says why in one line, not in a traceback on stderr.
                    LOG.warning('%s', exc)
                    self.close_connection = True

            def _send_upstream(self, body, headers):
                """The server's answer: (status, reason, headers, body)."""
                fresh = self.upstream is None
                if fresh:
                    self.upstream = relay._connect()
                try:
                    self.upstream.request(self.command, self.path, body,
                                          headers)
                    resp = self.upstream.getresponse()
                except (http.client.RemoteDisconnected, BrokenPipeError,
                        ConnectionResetError) as exc:
                    # The server closed an idle kept-alive connection just
                    # as the request went out: once more on a new one.
                    self.upstream.close()
                    self.upstream = None
                    if fresh:
                        raise RelayError('%s %s: the server at %s closed '
                                         'the connection: %s' % (
                                             self.command, self.path,
                                             relay.upstream.netloc, exc))
                    return self._send_upstream(body, headers)
                except (OSError, http.client.HTTPException) as exc:
                    raise self._no_answer(exc)
                try:
                    return (resp.status, resp.reason, resp.getheaders(),
                            resp.read())
                except (OSError, http.client.HTTPException) as exc:
                    raise self._no_answer(exc)

            def _no_answer(self, exc):
                return RelayError('%s %s: no answer from the server at %s: '
                                  '%s' % (self.command, self.path,
                                          relay.upstream.netloc, exc))

            def _forward(self):
                relay._count(1)
                try:
                    self._relay()
                finally:
                    relay._count(-1)

            def _relay(self):
                length = int(self.headers.get('Content-Length') or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in HOP_BY_HOP + ('host',)}
                relay._before(self.command, self.path)
                status, reason, resp_headers, data = self._send_upstream(
                    body, headers)
                hook = relay._answer_hook_for(self.command, self.path)
                what, every = hook[3] if hook else (None, None)
                if hook:
                    hook[2].set()
                if what == 'hold':
                    relay._released.wait(relay.timeout)
                elif what == 'lose':
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.send_response_only(status, reason)
                for key, value in resp_headers:
                    if key.lower() not in HOP_BY_HOP + ('content-length',):
                        self.send_header(key, value)
                self.send_header('Content-Length', str(len(data)))
                if what == 'trickle':
                    self._trickle(b''.join(self._headers_buffer) + b'\r\n'
                                  + data, every)
                    return
                self.end_headers()
                self.wfile.write(data)

            def _trickle(self, raw, every):
                self._headers_buffer = []
                self.close_connection = True
                for offset in range(len(raw)):
                    self.wfile.write(raw[offset:offset + 1])
                    self.wfile.flush()
                    time.sleep(every)

            do_GET = do_PUT = do_POST = do_PATCH = do_DELETE = _forward

            def finish(self):
                super().finish()
                if self.upstream is not None:
                    self.upstream.close()

            def log_message(self, *args):
                pass

        return Handler
