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

"""Server and network faults, and what the user sees for each.

Every test runs the real ``openstack`` shell in-process against a small
HTTP server listening on 127.0.0.1 (``faultserver``): the requests go
through keystoneauth, requests and a real socket. For each fault the
command must exit 1 and print exactly one line on stderr, naming the HTTP
status when there is one and the server's message, with no traceback
(``--debug`` aside) and never the token.
"""

import unicodedata
from urllib import parse as urlparse

from keystoneauth1 import loading
from keystoneauth1 import session as ks_session
from oslotest import base
import testscenarios

from osc_placement import errors
from osc_placement.http import client as http
from osc_placement.tests import cli
from osc_placement.tests.functional import faultserver

Reply = faultserver.Reply

TOKEN = 'gAAAAABm-s3cr3t-T0KEN-value-0123456789'
RP = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'

# The two commands every fault is tried with, and the path of the request
# that meets the fault (after the version negotiation).
COMMANDS = [
    ('list', {'argv': ['resource', 'provider', 'list'],
              'path': '/resource_providers'}),
    ('show', {'argv': ['resource', 'provider', 'show', RP],
              'path': '/resource_providers/' + RP}),
]
LIST = COMMANDS[0][1]['argv']
SHOW = COMMANDS[1][1]['argv']


def _nginx(status, reason):
    """The error page nginx serves."""
    return ('<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n'
            '<center><h1>%d %s</h1></center>\r\n<hr><center>nginx</center>'
            '\r\n</body>\r\n</html>\r\n' % (status, reason, status, reason))


APACHE_403 = (
    '<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n'
    '<title>403 Forbidden</title>\n</head><body>\n<h1>Forbidden</h1>\n'
    "<p>You don't have permission to access this resource.</p>\n"
    '</body></html>\n')


def _placement_error(status, title, detail, code=None):
    error = {'status': status, 'title': title, 'detail': detail,
             'request_id': 'req-00000000-0000-0000-0000-000000000000'}
    if code:
        error['code'] = code
    return {'errors': [error]}


def _control_characters(text):
    return [c for c in text if unicodedata.category(c) in ('Cc', 'Cf')]


def _debug_requests(lines):
    return [line for line in lines if line.startswith('REQ: curl')]


HTML = 'text/html; charset=UTF-8'

# (id, reply to the command's request, the line the user must see).
HTTP_FAULTS = [
    # HTML error pages from a proxy or a load balancer.
    ('html-400', Reply(400, '<html><body><h1>400 Bad Request</h1><p>Request '
                       'Header Or Cookie Too Large</p></body></html>', HTML),
     '400 Bad Request Request Header Or Cookie Too Large (HTTP 400)'),
    ('html-401', Reply(401, '<html><body><h1>401 Authorization Required'
                       '</h1></body></html>', HTML),
     '401 Authorization Required (HTTP 401)'),
    ('html-403', Reply(403, '<html>\n<body>\n<h1>Forbidden</h1>\n<p>Access '
                       'denied by the proxy&#39;s policy &amp; rules.</p>\n'
                       '</body>\n</html>\n', HTML),
     "Forbidden Access denied by the proxy's policy & rules. (HTTP 403)"),
    ('apache-403', Reply(403, APACHE_403, HTML),
     "Forbidden You don't have permission to access this resource. "
     '(HTTP 403)'),
    ('html-404', Reply(404, _nginx(404, 'Not Found'), HTML),
     '404 Not Found nginx (HTTP 404)'),
    ('html-409', Reply(409, '<html><body><p>Conflict: the resource was '
                       'changed.</p></body></html>', HTML),
     'Conflict: the resource was changed. (HTTP 409)'),
    # Empty bodies: the reason phrase of the status line.
    ('empty-400', Reply(400), 'Bad Request (HTTP 400)'),
    ('empty-401', Reply(401), 'Unauthorized (HTTP 401)'),
    ('empty-403', Reply(403), 'Forbidden (HTTP 403)'),
    ('empty-404', Reply(404), 'Not Found (HTTP 404)'),
    ('empty-409', Reply(409), 'Conflict (HTTP 409)'),
    ('empty-403-custom-reason', Reply(403, reason='Blocked By WAF'),
     'Blocked By WAF (HTTP 403)'),
    # JSON that is not Placement's error shape: printed as text.
    ('json-without-errors-403', Reply(403, {'message': 'Not allowed.'}),
     '{"message": "Not allowed."} (HTTP 403)'),
    ('json-empty-errors-400', Reply(400, {'errors': []}),
     '{"errors": []} (HTTP 400)'),
    ('json-detail-not-text-400', Reply(400, {'errors': [{'detail': 12}]}),
     '{"errors": [{"detail": 12}]} (HTTP 400)'),
    ('json-list-409', Reply(409, [1, 2]), '[1, 2] (HTTP 409)'),
    # Placement's own errors: the last line of the detail (the recorded
    # contract).
    ('placement-404', Reply(404, _placement_error(
        404, 'Not Found', 'The resource could not be found.\n\n No resource '
        'provider with uuid %s found  ' % RP)),
     'No resource provider with uuid %s found (HTTP 404)' % RP),
    ('placement-409', Reply(409, _placement_error(
        409, 'Conflict', 'There was a conflict when trying to complete your '
        'request.\n\n Another thread concurrently updated the data. Please '
        'retry your update  ', 'placement.concurrent_update')),
     'Another thread concurrently updated the data. Please retry your '
     'update (HTTP 409)'),
    # Server errors, with and without a body.
    ('500-empty', Reply(500), 'Internal Server Error (HTTP 500)'),
    ('500-placement-json', Reply(500, _placement_error(
        500, 'Internal Server Error', 'The server has either erred or is '
        'incapable of performing the requested operation.\n\n '
        'DBConnectionError: database unreachable  ')),
     'DBConnectionError: database unreachable (HTTP 500)'),
    ('500-text', Reply(500, 'Internal error: see the logs\n', 'text/plain'),
     'Internal error: see the logs (HTTP 500)'),
    ('502-empty', Reply(502), 'Bad Gateway (HTTP 502)'),
    ('502-html', Reply(502, _nginx(502, 'Bad Gateway'), HTML),
     '502 Bad Gateway nginx (HTTP 502)'),
    ('503-empty', Reply(503), 'Service Unavailable (HTTP 503)'),
    ('503-text', Reply(503, 'Service Unavailable: back in 5 minutes.',
                       'text/plain', headers={'Retry-After': '300'}),
     'Service Unavailable: back in 5 minutes. (HTTP 503)'),
    ('504-html', Reply(504, _nginx(504, 'Gateway Time-out'), HTML),
     '504 Gateway Time-out nginx (HTTP 504)'),
]

_NOT_JSON = ('Invalid response from the Placement API: GET {url} answered '
             'HTTP 200 with a body that is not JSON: {text}')

# A 200 whose body is not JSON: (id, reply, the quoted text in the line).
INVALID_200 = [
    ('invalid-json', Reply(200, 'not json {', 'application/json'),
     "'not json {'"),
    ('empty', Reply(200), "''"),
    ('html-login-page', Reply(200, '<html><body><h1>Please log in</h1>'
                              '</body></html>', HTML), "'Please log in'"),
    ('truncated-json', Reply(200, '{"resource_providers": [{"uuid": ',
                             'application/json'),
     '\'{"resource_providers": [{"uuid":\''),
]

load_tests = testscenarios.load_tests_apply_scenarios


def _scenarios(table, *names):
    """(id, reply, ...) rows as scenarios with these attribute names."""
    return [(row[0], dict(zip(names, row[1:]))) for row in table]


class FaultTestCase(base.BaseTestCase):
    """``openstack`` against the fault server (or no server at all)."""

    def start_server(self, tls=False):
        return self.useFixture(faultserver.FaultServer(tls=tls))

    def openstack(self, endpoint, argv, global_argv=(), env=None):
        """``openstack [global_argv] <auth> argv``.

        Returns (stdout, stderr lines, exit code), once the token is known
        to be absent from what was printed (``--debug`` aside).
        """
        out, err, code = cli.run(
            list(global_argv) + cli.auth_argv(endpoint, TOKEN) + list(argv),
            env=env)
        if '--debug' not in global_argv:
            self.assertNotIn(TOKEN, out)
            self.assertNotIn(TOKEN, err)
        return out, err.splitlines(), code

    def error_line(self, out, lines, code):
        """Exit 1, nothing on stdout, one line on stderr, no traceback."""
        self.assertEqual(1, code, (out, lines))
        self.assertEqual('', out)
        # A traceback takes several lines; a body may mention one.
        self.assertEqual(1, len(lines), lines)
        self.assertFalse(lines[0].startswith('Traceback'), lines)
        return lines[0]

    def sent(self, server):
        """(method, path, raw query) of the requests after negotiation."""
        return [(r.method, r.path, r.raw_query)
                for r in server.api_requests()]


class TestHTTPError(FaultTestCase):

    scenarios = testscenarios.multiply_scenarios(
        COMMANDS, _scenarios(HTTP_FAULTS, 'reply', 'expected'))

    def test_http_error(self):
        server = self.start_server()
        server.answer(self.reply)
        line = self.error_line(*self.openstack(server.endpoint, self.argv))
        self.assertEqual(self.expected, line)
        # The fault was the answer to the command's own request.
        self.assertEqual([faultserver.PREFIX + self.path],
                         [r.path for r in server.api_requests()])


class TestInvalidResponse(FaultTestCase):

    scenarios = testscenarios.multiply_scenarios(
        COMMANDS, _scenarios(INVALID_200, 'reply', 'text'))

    def test_200_with_a_body_that_is_not_json(self):
        server = self.start_server()
        server.answer(self.reply)
        line = self.error_line(*self.openstack(server.endpoint, self.argv))
        self.assertEqual(_NOT_JSON.format(url=server.endpoint + self.path,
                                          text=self.text), line)


class TestNestedTooDeeply(FaultTestCase):
    """A 200 whose JSON Python cannot decode (RecursionError): one line."""

    scenarios = COMMANDS

    def test_200_with_json_nested_too_deeply(self):
        server = self.start_server()
        server.answer(Reply(200, '{"resource_providers": ' + '[' * 100000,
                            'application/json'))
        line = self.error_line(*self.openstack(server.endpoint, self.argv))
        self.assertEqual(
            'Invalid response from the Placement API: GET %s%s answered '
            'HTTP 200 with JSON nested too deeply'
            % (server.endpoint, self.path), line)


class TestDebug(FaultTestCase):

    scenarios = testscenarios.multiply_scenarios(COMMANDS, [
        ('html-404', {'reply': Reply(404, _nginx(404, 'Not Found'), HTML),
                      'expected': '404 Not Found nginx (HTTP 404)'}),
        ('empty-500', {'reply': Reply(500),
                       'expected': 'Internal Server Error (HTTP 500)'}),
        ('invalid-json-200', {
            'reply': Reply(200, 'not json', 'application/json'),
            'expected': 'Invalid response from the Placement API: '}),
    ])

    def test_debug_keeps_the_error_line(self):
        """A traceback may come too, but the line is there, and exit 1."""
        server = self.start_server()
        server.answer(self.reply)
        out, lines, code = self.openstack(server.endpoint, self.argv,
                                          global_argv=['--debug'])
        self.assertEqual(1, code)
        self.assertTrue(any(line.startswith(self.expected)
                            for line in lines), lines)


class TestEachCommand(FaultTestCase):
    """Faults met the same way by a list and a show."""

    scenarios = COMMANDS

    # Faults below HTTP. The negotiation (GET /) is the first request, so
    # it is the one that meets the fault unless a version is given.

    def test_connection_refused(self):
        endpoint = ('http://127.0.0.1:%d/placement'
                    % self.useFixture(faultserver.ClosedPort()).port)
        line = self.error_line(*self.openstack(endpoint, self.argv))
        self.assertEqual('Unable to reach the Placement API at %s/: '
                         'connection refused.' % endpoint, line)

    def test_connection_refused_without_negotiation(self):
        endpoint = ('http://127.0.0.1:%d/placement'
                    % self.useFixture(faultserver.ClosedPort()).port)
        line = self.error_line(*self.openstack(
            endpoint, self.argv,
            global_argv=['--os-placement-api-version', '1.14']))
        self.assertEqual('Unable to reach the Placement API at %s%s: '
                         'connection refused.' % (endpoint, self.path), line)

    def test_unknown_host(self):
        # .invalid never resolves (RFC 6761).
        line = self.error_line(*self.openstack(
            'http://placement.invalid/placement', self.argv))
        self.assertEqual('Unable to reach the Placement API at '
                         'http://placement.invalid/placement/: the host '
                         'name could not be resolved.', line)

    def test_connection_closed_without_an_answer(self):
        server = self.start_server()
        server.answer(Reply(drop=True))
        line = self.error_line(*self.openstack(server.endpoint, self.argv))
        self.assertEqual('Unable to reach the Placement API at %s%s: the '
                         'connection was closed before an answer came.'
                         % (server.endpoint, self.path), line)

    def test_tls_to_a_plain_http_server(self):
        server = self.start_server()
        endpoint = server.endpoint.replace('http://', 'https://')
        line = self.error_line(*self.openstack(endpoint, self.argv))
        self.assertEqual('Unable to reach the Placement API at %s/: TLS '
                         'handshake failed (wrong version number).'
                         % endpoint, line)

    def test_tls_self_signed_certificate(self):
        server = self.start_server(tls=True)
        line = self.error_line(*self.openstack(server.endpoint, self.argv))
        self.assertEqual([], server.requests)
        self.assertEqual('Unable to reach the Placement API at %s/: TLS '
                         'handshake failed (self-signed certificate).'
                         % server.endpoint, line)

    def test_negotiation_meets_a_server_error(self):
        """A 5xx on GET / is not a refusal.

        The command's request goes on at 1.29 and reports what it meets.
        """
        server = self.start_server()
        server.answer(Reply(503), negotiation=True)
        line = self.error_line(*self.openstack(server.endpoint, self.argv))
        self.assertEqual('Service Unavailable (HTTP 503)', line)
        self.assertEqual(
            [('/placement/', 'placement 1.29'),
             ('/placement' + self.path, 'placement 1.29')],
            [(r.path, r.headers['OpenStack-API-Version'])
             for r in server.requests])

    def test_keystone_401_message(self):
        """keystonemiddleware answers a bad token with its own JSON."""
        server = self.start_server()
        server.answer(Reply(401, {'error': {
            'code': 401, 'title': 'Unauthorized',
            'message': 'The request you have made requires '
                       'authentication.'}}))
        line = self.error_line(*self.openstack(server.endpoint, self.argv))
        self.assertEqual('The request you have made requires '
                         'authentication. (HTTP 401)', line)

    def test_long_error_body_is_cut(self):
        server = self.start_server()
        server.answer(Reply(400, 'x' * 20000, 'text/plain'))
        line = self.error_line(*self.openstack(server.endpoint, self.argv))
        self.assertEqual('x' * 297 + '... (HTTP 400)', line)


class TestReadTimeout(FaultTestCase):
    """OpenStackClient 10.5.0 sets no timeout: the plugin offers one."""

    scenarios = testscenarios.multiply_scenarios(COMMANDS, [
        ('os-placement-timeout', {
            'global_argv': ['--os-placement-timeout', '1'], 'env': None}),
        ('env', {'global_argv': [], 'env': {'OS_PLACEMENT_TIMEOUT': '1'}}),
    ])

    def test_read_timeout(self):
        server = self.start_server()
        server.answer(Reply(200, {'resource_providers': []}, delay=3))
        line = self.error_line(*self.openstack(
            server.endpoint, self.argv, self.global_argv, env=self.env))
        self.assertEqual('Reached the Placement API at %s%s: no complete '
                         'answer within the timeout.'
                         % (server.endpoint, self.path), line)


class TestNegotiationRefused(FaultTestCase):

    scenarios = testscenarios.multiply_scenarios(COMMANDS, [
        ('json-without-max-version', {
            'reply': Reply(406, _placement_error(
                406, 'Not Acceptable', 'Version not acceptable')),
            'message': 'Version not acceptable'}),
        ('bad-max-version', {
            'reply': Reply(406, {'errors': [{
                'status': 406, 'title': 'Not Acceptable',
                'max_version': 'one point nine'}]}),
            'message': 'Not Acceptable'}),
        ('empty', {'reply': Reply(406), 'message': 'Not Acceptable'}),
        ('html', {'reply': Reply(406, _nginx(406, 'Not Acceptable'), HTML),
                  'message': '406 Not Acceptable nginx'}),
    ], [
        ('default', {'requested': None, 'ceiling': '1.29'}),
        ('latest', {'requested': 'latest', 'ceiling': '1.39'}),
    ])

    def test_negotiation_refused_without_max_version(self):
        server = self.start_server()
        server.answer(self.reply, negotiation=True)
        global_argv = ['--os-placement-api-version', self.requested] \
            if self.requested else []
        line = self.error_line(*self.openstack(server.endpoint, self.argv,
                                               global_argv))
        self.assertEqual(
            'Placement API version negotiation failed: the server refused '
            'version %s (HTTP 406) without saying which versions it '
            'supports (%s). Pass an explicit --os-placement-api-version.'
            % (self.ceiling, self.message), line)
        # Nothing was sent after the refused negotiation.
        self.assertEqual([('GET', '/placement/')],
                         [(r.method, r.path) for r in server.requests])


class TestErrorBodyAsText(FaultTestCase):
    """Format directives printed as they are, HTML reduced to its text once.

    Entities are not decoded twice, Placement's JSON detail is not treated
    as markup, and a body never spans lines.
    """

    scenarios = testscenarios.multiply_scenarios(COMMANDS, [
        ('format-text', {
            'reply': Reply(400, '%s %(name)s {0} {name} %%', 'text/plain'),
            'expected': '%s %(name)s {0} {name} %% (HTTP 400)'}),
        ('format-json', {
            'reply': Reply(409, _placement_error(409, 'Conflict',
                                                 'Bad %(value)s {0} %d')),
            'expected': 'Bad %(value)s {0} %d (HTTP 409)'}),
        ('html-entities', {
            'reply': Reply(400, '<script>alert("x")</script><style>p {}'
                                '</style><p>Denied &lt;b&gt;here&lt;/b&gt;'
                                '</p>', HTML),
            'expected': 'Denied <b>here</b> (HTTP 400)'}),
        ('json-markup', {
            'reply': Reply(404, _placement_error(404, 'Not Found',
                                                 '<b>x</b>\n\n<i>y</i>')),
            'expected': '<i>y</i> (HTTP 404)'}),
        ('multi-line', {
            'reply': Reply(500, 'first line\r\nTraceback (most recent call '
                                'last):\r\n  File "x"\n', 'text/plain'),
            'expected': 'first line Traceback (most recent call last): '
                        'File "x" (HTTP 500)'}),
    ])

    def test_error_body_printed_as_text(self):
        server = self.start_server()
        server.answer(self.reply)
        line = self.error_line(*self.openstack(server.endpoint, self.argv))
        self.assertEqual(self.expected, line)


class TestControlCharacters(FaultTestCase):
    """Escape sequences never reach the terminal as they are.

    They would clear the screen, retitle the terminal or reorder the text.
    """

    scenarios = testscenarios.multiply_scenarios(COMMANDS, [
        ('ansi-text', {'reply': Reply(400, '\x1b[2J\x1b[31mred\x1b[0m',
                                      'text/plain')}),
        ('osc-and-bidi-json', {'reply': Reply(409, _placement_error(
            409, 'Conflict', 'x \x1b]0;owned\x07 \u202egnp.exe'))}),
        ('binary', {'reply': Reply(400, b'\xff\xfe\x00\x01garbage',
                                   'application/octet-stream')}),
    ])

    def test_error_body_control_characters_not_printed(self):
        server = self.start_server()
        server.answer(self.reply)
        line = self.error_line(*self.openstack(server.endpoint, self.argv))
        self.assertEqual([], _control_characters(line))
        self.assertTrue(line.endswith(' (HTTP %d)' % self.reply.status),
                        line)


class TestUnexpectedJSON(FaultTestCase):
    """Valid JSON of the wrong shape is an invalid response too.

    Not a Python error text on its own.
    """

    scenarios = [
        ('missing-key', {'body': {'providers': []}}),
        ('not-a-list', {'body': {'resource_providers': 5}}),
        ('list-body', {'body': []}),
    ]

    def test_200_with_unexpected_json(self):
        server = self.start_server()
        server.answer(Reply(200, self.body))
        line = self.error_line(*self.openstack(server.endpoint, LIST))
        self.assertTrue(line.startswith(
            'Invalid response from the Placement API: GET '
            '%s/resource_providers' % server.endpoint), line)


class TestTimeout(FaultTestCase):

    def test_no_timeout_by_default(self):
        server = self.start_server()
        server.answer(Reply(200, {'resource_providers': []}, delay=1.5))
        out, lines, code = self.openstack(server.endpoint, LIST)
        self.assertEqual(('\n', [], 0), (out, lines, code))

    def test_read_timeout_of_the_session(self):
        """The timeout of the keystoneauth session is honoured too."""
        server = self.start_server()
        server.answer(Reply(200, {'resource_providers': []}, delay=3))
        auth = loading.get_plugin_loader('admin_token').load_from_options(
            endpoint=server.endpoint, token=TOKEN)
        client = http.SessionClient(
            ks_session.Session(auth=auth, timeout=1),
            {'service_type': 'placement', 'region_name': None,
             'interface': 'public'}, api_version='1.14')
        raised = self.assertRaises(errors.ConnectionFailed, client.request,
                                   'GET', '/resource_providers')
        self.assertEqual(
            'Reached the Placement API at %s/resource_providers: no '
            'complete answer within the timeout.' % server.endpoint,
            str(raised))


class TestTLS(FaultTestCase):

    def test_self_signed_certificate_accepted_when_asked(self):
        """The TLS failure is about the certificate.

        --insecure and --os-cacert get through to the same server.
        """
        server = self.start_server(tls=True)
        server.answer(Reply(200, {'resource_providers': []}))
        out, lines, code = self.openstack(server.endpoint, LIST,
                                          ['--insecure'])
        self.assertEqual((0, []), (code, lines))
        out, lines, code = self.openstack(server.endpoint, LIST,
                                          ['--os-cacert', server.cert_path])
        self.assertEqual((0, []), (code, lines))
        self.assertEqual(['/placement/resource_providers'] * 2,
                         [r.path for r in server.api_requests()])


class TestToken(FaultTestCase):

    def test_token_redacted_with_debug(self):
        """--debug logs every request; the token itself never appears.

        keystoneauth shows a hash of it.
        """
        server = self.start_server()
        server.answer(Reply(404, _placement_error(404, 'Not Found', 'Gone')))
        out, lines, code = self.openstack(server.endpoint, SHOW,
                                          global_argv=['--debug'])
        self.assertEqual(1, code)
        self.assertNotIn(TOKEN, out)
        # osc-lib's own "START with options:" line echoes the command line
        # and its masking misses "--os-token <token>": the plugin masks it.
        self.assertEqual([], [line for line in lines if TOKEN in line])
        self.assertTrue(any(line.startswith('START with options') and
                            '--os-token ***' in line for line in lines),
                        lines)
        curl = _debug_requests(lines)
        self.assertEqual(2, len(curl), curl)
        for line in curl:
            self.assertIn('X-Auth-Token: {SHA256}', line)
        # The token did reach the server.
        self.assertEqual([TOKEN, TOKEN], [r.headers.get('X-Auth-Token')
                                          for r in server.requests])

    def test_token_from_the_environment_never_printed_with_debug(self):
        server = self.start_server()
        server.answer(Reply(404, _placement_error(404, 'Not Found', 'Gone')))
        out, err, code = cli.run(
            ['--debug', '--os-auth-type', 'admin_token', '--os-endpoint',
             server.endpoint] + SHOW, env={'OS_TOKEN': TOKEN})
        self.assertEqual(1, code)
        self.assertNotIn(TOKEN, out + err)
        curl = _debug_requests(err.splitlines())
        self.assertEqual(2, len(curl), curl)
        for line in curl:
            self.assertIn('X-Auth-Token: {SHA256}', line)
        self.assertEqual([TOKEN, TOKEN], [r.headers.get('X-Auth-Token')
                                          for r in server.requests])

    def test_token_not_printed_in_any_fault(self):
        """The server echoes the request line and the URL in its error.

        (Every test of this module also checks the token is not printed.)
        """
        server = self.start_server()
        server.answer(Reply(400, 'Bad request for '
                                 '/placement/resource_providers',
                            'text/plain'))
        out, lines, code = self.openstack(server.endpoint, LIST)
        self.assertEqual(1, code)
        self.assertNotIn(TOKEN, out + ''.join(lines))


# Path and query injection through user-given values.

class TestProviderName(FaultTestCase):
    """A provider given by name is looked up with one query parameter.

    Its characters cannot add parameters, end the query or leave the path.
    """

    scenarios = [
        ('question-mark', {'value': 'x?y=1',
                           'raw_query': 'name=x%3Fy%3D1'}),
        ('parent', {'value': '../traits', 'raw_query': 'name=..%2Ftraits'}),
        ('ampersand-and-hash', {'value': 'a&uuid=b#c',
                                'raw_query': 'name=a%26uuid%3Db%23c'}),
        ('percent', {'value': '%2e%2e', 'raw_query': 'name=%252e%252e'}),
    ]

    def test_provider_name_cannot_change_the_request(self):
        server = self.start_server()
        server.answer(Reply(200, {'resource_providers': []}))
        out, lines, code = self.openstack(
            server.endpoint, ['resource', 'provider', 'show', self.value])
        self.assertEqual(
            (1, ["No resource provider with name or UUID '%s' found."
                 % self.value]), (code, lines))
        self.assertEqual(
            [('GET', '/placement/resource_providers', self.raw_query)],
            self.sent(server))
        self.assertEqual([('name', self.value)],
                         urlparse.parse_qsl(self.raw_query))


class TestUUIDFromTheServer(FaultTestCase):

    def test_uuid_from_the_server_is_encoded_in_the_path(self):
        """The UUID a name lookup returns is a path segment too."""
        server = self.start_server()
        server.route('GET', '/resource_providers', Reply(
            200, {'resource_providers': [{'uuid': '../../traits?x=1'}]}))
        server.answer(Reply(404, _placement_error(404, 'Not Found',
                                                  'No such')))
        out, lines, code = self.openstack(
            server.endpoint, ['resource', 'provider', 'show', 'name1'])
        self.assertEqual((1, ['No such (HTTP 404)']), (code, lines))
        self.assertEqual(
            [('GET', '/placement/resource_providers', 'name=name1'),
             ('GET', '/placement/resource_providers/'
                     '..%2F..%2Ftraits%3Fx%3D1', '')],
            self.sent(server))


class TestPathSegment(FaultTestCase):
    """A resource class or trait name is one percent-encoded path segment.

    No query, fragment or parent directory can be slipped in.
    """

    scenarios = [
        (' '.join(argv), {'argv': argv, 'method': method, 'encoded': encoded})
        for argv, method, encoded in [
            (['resource', 'class', 'show', 'CUSTOM_X?foo=1'],
             'GET', '/resource_classes/CUSTOM_X%3Ffoo%3D1'),
            (['resource', 'class', 'set', 'CUSTOM_X?foo=1'],
             'PUT', '/resource_classes/CUSTOM_X%3Ffoo%3D1'),
            (['resource', 'class', 'delete', 'CUSTOM_X?foo=1'],
             'DELETE', '/resource_classes/CUSTOM_X%3Ffoo%3D1'),
            (['resource', 'class', 'show', '%2e%2e'],
             'GET', '/resource_classes/%252e%252e'),
            (['resource', 'class', 'show', '../../resource_providers'],
             'GET', '/resource_classes/..%2F..%2Fresource_providers'),
            (['trait', 'show', '../traits'], 'GET', '/traits/..%2Ftraits'),
            (['trait', 'create', '../traits'], 'PUT', '/traits/..%2Ftraits'),
            (['trait', 'delete', '../traits'],
             'DELETE', '/traits/..%2Ftraits'),
            (['trait', 'show', 'CUSTOM_A#x'], 'GET', '/traits/CUSTOM_A%23x'),
            (['trait', 'show', 'CUSTOM_A&name=B'],
             'GET', '/traits/CUSTOM_A%26name%3DB'),
        ]
    ]

    def test_class_and_trait_names_stay_one_path_segment(self):
        server = self.start_server()
        server.answer(Reply(404, _placement_error(404, 'Not Found',
                                                  'No such')))
        out, lines, code = self.openstack(
            server.endpoint, self.argv,
            global_argv=['--os-placement-api-version', '1.7'])
        self.assertEqual((1, ['No such (HTTP 404)']), (code, lines))
        self.assertEqual([(self.method, '/placement' + self.encoded, '')],
                         self.sent(server))
