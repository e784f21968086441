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

"""Server and network faults, and what the user sees for each (issue 6).

Every test runs the real ``openstack`` shell in-process against a small
HTTP server listening on 127.0.0.1 (``faultserver``): the requests go
through keystoneauth, requests and a real socket. For each fault the
command must exit 1 and print exactly one line on stderr, naming the HTTP
status when there is one and the server's message, with no traceback
(``--debug`` aside) and never the token.
"""

import unicodedata
from urllib import parse as urlparse

import pytest

from osc_placement.tests import cli
from osc_placement.tests.unit import faultserver
from osc_placement.tests.unit.faultserver import Reply

TOKEN = 'gAAAAABm-s3cr3t-T0KEN-value-0123456789'
RP = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'

# The two commands every fault is tried with, and the path of the request
# that meets the fault (after the version negotiation).
COMMANDS = {
    'list': (['resource', 'provider', 'list'], '/resource_providers'),
    'show': (['resource', 'provider', 'show', RP],
             '/resource_providers/' + RP),
}


def auth_argv(endpoint, token=TOKEN):
    return ['--os-auth-type', 'admin_token', '--os-endpoint', endpoint,
            '--os-token', token]


def run(endpoint, argv, global_argv=(), env=None):
    """``openstack [global_argv] <auth> argv`` -> (stdout, stderr lines,
    exit code), with the token checked absent from what was printed."""
    out, err, code = cli.run(list(global_argv) + auth_argv(endpoint)
                             + list(argv), env=env)
    lines = err.splitlines()
    if '--debug' not in global_argv:
        assert TOKEN not in out and TOKEN not in err
    return out, lines, code


def one_error_line(out, lines, code):
    """Exit 1, nothing on stdout, one line on stderr, no traceback."""
    assert code == 1, (out, lines)
    assert out == '', out
    # A traceback takes several lines; a body may mention one.
    assert len(lines) == 1, lines
    assert not lines[0].startswith('Traceback'), lines
    return lines[0]


@pytest.fixture
def server():
    with faultserver.FaultServer() as fault_server:
        yield fault_server


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
        'request.\n\n resource provider generation conflict  ',
        'placement.concurrent_update')),
     'resource provider generation conflict (HTTP 409)'),
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


@pytest.mark.parametrize('command', sorted(COMMANDS))
@pytest.mark.parametrize('reply,expected', [f[1:] for f in HTTP_FAULTS],
                         ids=[f[0] for f in HTTP_FAULTS])
def test_http_error(server, command, reply, expected):
    argv, path = COMMANDS[command]
    server.answer(reply)
    line = one_error_line(*run(server.endpoint, argv))
    assert line == expected
    # The fault was the answer to the command's own request.
    assert [r.path for r in server.api_requests()] == [
        faultserver.PREFIX + path]


@pytest.mark.parametrize('command', sorted(COMMANDS))
@pytest.mark.parametrize('reply,text', [f[1:] for f in INVALID_200],
                         ids=[f[0] for f in INVALID_200])
def test_200_with_a_body_that_is_not_json(server, command, reply, text):
    argv, path = COMMANDS[command]
    server.answer(reply)
    line = one_error_line(*run(server.endpoint, argv))
    assert line == _NOT_JSON.format(url=server.endpoint + path, text=text)


@pytest.mark.parametrize('command', sorted(COMMANDS))
@pytest.mark.parametrize('reply,expected', [
    (Reply(404, _nginx(404, 'Not Found'), HTML),
     '404 Not Found nginx (HTTP 404)'),
    (Reply(500), 'Internal Server Error (HTTP 500)'),
    (Reply(200, 'not json', 'application/json'),
     'Invalid response from the Placement API: '),
], ids=['html-404', 'empty-500', 'invalid-json-200'])
def test_debug_keeps_the_error_line(server, command, reply, expected):
    """With --debug a traceback may come too, but the line is still there
    and the command still exits 1."""
    argv, path = COMMANDS[command]
    server.answer(reply)
    out, lines, code = run(server.endpoint, argv, global_argv=['--debug'])
    assert code == 1
    assert any(line.startswith(expected) for line in lines), lines


# Faults below HTTP. The negotiation (GET /) is the first request, so it is
# the one that meets the fault unless a version is given.

@pytest.mark.parametrize('command', sorted(COMMANDS))
def test_connection_refused(command):
    argv, path = COMMANDS[command]
    endpoint = 'http://127.0.0.1:%d/placement' % faultserver.closed_port()
    line = one_error_line(*run(endpoint, argv))
    assert line == ('Unable to reach the Placement API at %s/: connection '
                    'refused.' % endpoint)


@pytest.mark.parametrize('command', sorted(COMMANDS))
def test_connection_refused_without_negotiation(command):
    argv, path = COMMANDS[command]
    endpoint = 'http://127.0.0.1:%d/placement' % faultserver.closed_port()
    line = one_error_line(*run(
        endpoint, argv, global_argv=['--os-placement-api-version', '1.14']))
    assert line == ('Unable to reach the Placement API at %s%s: connection '
                    'refused.' % (endpoint, path))


@pytest.mark.parametrize('command', sorted(COMMANDS))
def test_unknown_host(command):
    # .invalid never resolves (RFC 6761).
    argv, path = COMMANDS[command]
    line = one_error_line(*run('http://placement.invalid/placement', argv))
    assert line == ('Unable to reach the Placement API at '
                    'http://placement.invalid/placement/: the host name '
                    'could not be resolved.')


@pytest.mark.parametrize('command', sorted(COMMANDS))
def test_connection_closed_without_an_answer(server, command):
    argv, path = COMMANDS[command]
    server.answer(Reply(drop=True))
    line = one_error_line(*run(server.endpoint, argv))
    assert line == ('Unable to reach the Placement API at %s%s: the '
                    'connection was closed before an answer came.'
                    % (server.endpoint, path))


@pytest.mark.parametrize('command', sorted(COMMANDS))
def test_tls_to_a_plain_http_server(server, command):
    argv, path = COMMANDS[command]
    endpoint = server.endpoint.replace('http://', 'https://')
    line = one_error_line(*run(endpoint, argv))
    assert line == ('Unable to reach the Placement API at %s/: TLS handshake '
                    'failed (wrong version number).' % endpoint)


@pytest.mark.parametrize('command', sorted(COMMANDS))
def test_tls_self_signed_certificate(command):
    argv, path = COMMANDS[command]
    with faultserver.FaultServer(tls=True) as server:
        line = one_error_line(*run(server.endpoint, argv))
        assert server.requests == []
    assert line == ('Unable to reach the Placement API at %s/: TLS handshake '
                    'failed (self-signed certificate).' % server.endpoint)


def test_tls_self_signed_certificate_accepted_when_asked():
    """The TLS failure is about the certificate: --insecure and --os-cacert
    get through to the same server."""
    with faultserver.FaultServer(tls=True) as server:
        server.answer(Reply(200, {'resource_providers': []}))
        out, lines, code = run(server.endpoint,
                               COMMANDS['list'][0], ['--insecure'])
        assert (code, lines) == (0, [])
        out, lines, code = run(server.endpoint, COMMANDS['list'][0],
                               ['--os-cacert', server.cert_path])
        assert (code, lines) == (0, [])
        assert [r.path for r in server.api_requests()] == [
            '/placement/resource_providers'] * 2


@pytest.mark.parametrize('command', sorted(COMMANDS))
@pytest.mark.parametrize('global_argv,env', [
    (['--timeout', '1'], None),
    (['--os-placement-timeout', '1'], None),
    ([], {'OS_PLACEMENT_TIMEOUT': '1'}),
], ids=['timeout', 'os-placement-timeout', 'env'])
def test_read_timeout(server, command, global_argv, env):
    """OpenStackClient 10.5.0 sets no timeout at all: the plugin offers
    one, applied to each of its requests."""
    argv, path = COMMANDS[command]
    server.answer(Reply(200, {'resource_providers': []}, delay=3))
    line = one_error_line(*run(server.endpoint, argv, global_argv, env=env))
    assert line == ('Unable to reach the Placement API at %s%s: no answer '
                    'before the timeout.' % (server.endpoint, path))


def test_no_timeout_by_default(server):
    server.answer(Reply(200, {'resource_providers': []}, delay=1.5))
    out, lines, code = run(server.endpoint, COMMANDS['list'][0])
    assert (out, lines, code) == ('\n', [], 0)


def test_read_timeout_of_the_session(server):
    """The timeout of the keystoneauth session is honoured too."""
    from keystoneauth1 import loading
    from keystoneauth1 import session as ks_session

    from osc_placement import http

    server.answer(Reply(200, {'resource_providers': []}, delay=3))
    auth = loading.get_plugin_loader('admin_token').load_from_options(
        endpoint=server.endpoint, token=TOKEN)
    client = http.SessionClient(
        ks_session.Session(auth=auth, timeout=1),
        {'service_type': 'placement', 'region_name': None,
         'interface': 'public'}, api_version='1.14')
    with pytest.raises(http.ConnectionFailed) as raised:
        client.request('GET', '/resource_providers')
    assert str(raised.value) == (
        'Unable to reach the Placement API at %s/resource_providers: no '
        'answer before the timeout.' % server.endpoint)


# The version negotiation.

@pytest.mark.parametrize('command', sorted(COMMANDS))
@pytest.mark.parametrize('reply,message', [
    (Reply(406, _placement_error(406, 'Not Acceptable',
                                 'Version not acceptable')),
     'Version not acceptable'),
    (Reply(406, {'errors': [{'status': 406, 'title': 'Not Acceptable',
                             'max_version': 'one point nine'}]}),
     'Not Acceptable'),
    (Reply(406), 'Not Acceptable'),
    (Reply(406, _nginx(406, 'Not Acceptable'), HTML),
     '406 Not Acceptable nginx'),
], ids=['json-without-max-version', 'bad-max-version', 'empty', 'html'])
@pytest.mark.parametrize('requested,ceiling', [
    (None, '1.29'), ('latest', '1.39')])
def test_negotiation_refused_without_max_version(
        server, command, reply, message, requested, ceiling):
    argv, path = COMMANDS[command]
    server.answer(reply, negotiation=True)
    global_argv = ['--os-placement-api-version', requested] \
        if requested else []
    line = one_error_line(*run(server.endpoint, argv, global_argv))
    assert line == (
        'Placement API version negotiation failed: the server refused '
        'version %s (HTTP 406) without saying which versions it supports '
        '(%s). Pass an explicit --os-placement-api-version.'
        % (ceiling, message))
    # Nothing was sent after the refused negotiation.
    assert [(r.method, r.path) for r in server.requests] == [
        ('GET', '/placement/')]


@pytest.mark.parametrize('command', sorted(COMMANDS))
def test_negotiation_meets_a_server_error(server, command):
    """A 5xx on GET / is not a refusal: the command's request goes on at
    1.29 and reports what it meets."""
    argv, path = COMMANDS[command]
    server.answer(Reply(503), negotiation=True)
    line = one_error_line(*run(server.endpoint, argv))
    assert line == 'Service Unavailable (HTTP 503)'
    assert [(r.path, r.headers['OpenStack-API-Version'])
            for r in server.requests] == [
        ('/placement/', 'placement 1.29'),
        ('/placement' + path, 'placement 1.29')]


# Better messages that need a change outside the tests.

@pytest.mark.parametrize('command', sorted(COMMANDS))
def test_keystone_401_message(server, command):
    """keystonemiddleware, in front of Placement, answers a bad token with
    its own JSON shape."""
    argv, path = COMMANDS[command]
    server.answer(Reply(401, {'error': {
        'code': 401, 'title': 'Unauthorized',
        'message': 'The request you have made requires authentication.'}}))
    line = one_error_line(*run(server.endpoint, argv))
    assert line == ('The request you have made requires authentication. '
                    '(HTTP 401)')


@pytest.mark.parametrize('body', [
    {'providers': []}, {'resource_providers': 5}, [],
], ids=['missing-key', 'not-a-list', 'list-body'])
def test_200_with_unexpected_json(server, body):
    """Valid JSON of the wrong shape is an invalid response too, not a
    Python error text on its own."""
    server.answer(Reply(200, body))
    line = one_error_line(*run(server.endpoint, COMMANDS['list'][0]))
    assert line.startswith('Invalid response from the Placement API: GET '
                           '%s/resource_providers' % server.endpoint), line


# Security.

def _control_characters(text):
    return [c for c in text if unicodedata.category(c) in ('Cc', 'Cf')]


@pytest.mark.parametrize('command', sorted(COMMANDS))
@pytest.mark.parametrize('reply,expected', [
    (Reply(400, '%s %(name)s {0} {name} %%', 'text/plain'),
     '%s %(name)s {0} {name} %% (HTTP 400)'),
    (Reply(409, _placement_error(409, 'Conflict', 'Bad %(value)s {0} %d')),
     'Bad %(value)s {0} %d (HTTP 409)'),
    (Reply(400, '<script>alert("x")</script><style>p {}</style><p>Denied '
                '&lt;b&gt;here&lt;/b&gt;</p>', HTML),
     'Denied <b>here</b> (HTTP 400)'),
    (Reply(404, _placement_error(404, 'Not Found', '<b>x</b>\n\n<i>y</i>')),
     '<i>y</i> (HTTP 404)'),
    (Reply(500, 'first line\r\nTraceback (most recent call last):\r\n  '
                'File "x"\n', 'text/plain'),
     'first line Traceback (most recent call last): File "x" (HTTP 500)'),
], ids=['format-text', 'format-json', 'html-entities', 'json-markup',
        'multi-line'])
def test_error_body_printed_as_text(server, command, reply, expected):
    """Format directives are printed as they are, HTML is reduced to its
    text once (entities are not decoded twice), Placement's JSON detail is
    not treated as markup, and a body never spans lines."""
    argv, path = COMMANDS[command]
    server.answer(reply)
    line = one_error_line(*run(server.endpoint, argv))
    assert line == expected


@pytest.mark.parametrize('command', sorted(COMMANDS))
def test_long_error_body_is_cut(server, command):
    argv, path = COMMANDS[command]
    server.answer(Reply(400, 'x' * 20000, 'text/plain'))
    line = one_error_line(*run(server.endpoint, argv))
    assert line == 'x' * 297 + '... (HTTP 400)'


@pytest.mark.parametrize('command', sorted(COMMANDS))
@pytest.mark.parametrize('reply', [
    Reply(400, '\x1b[2J\x1b[31mred\x1b[0m', 'text/plain'),
    Reply(409, _placement_error(409, 'Conflict',
                                'x \x1b]0;owned\x07 \u202egnp.exe')),
    Reply(400, b'\xff\xfe\x00\x01garbage', 'application/octet-stream'),
], ids=['ansi-text', 'osc-and-bidi-json', 'binary'])
def test_error_body_control_characters_not_printed(server, command, reply):
    """Escape sequences that would clear the screen, retitle the terminal
    or reorder the text never reach the terminal as they are."""
    argv, path = COMMANDS[command]
    server.answer(reply)
    line = one_error_line(*run(server.endpoint, argv))
    assert _control_characters(line) == []
    assert line.endswith(' (HTTP %d)' % reply.status)


def _debug_requests(lines):
    return [line for line in lines if line.startswith('REQ: curl')]


def test_token_redacted_with_debug(server):
    """--debug logs every request; keystoneauth shows a hash of the token,
    never the token itself."""
    server.answer(Reply(404, _placement_error(404, 'Not Found', 'Gone')))
    out, lines, code = run(server.endpoint, COMMANDS['show'][0],
                           global_argv=['--debug'])
    assert code == 1
    assert TOKEN not in out
    # osc-lib's own "START with options:" line echoes the command line and
    # its masking misses "--os-token <token>": the plugin masks it.
    assert [line for line in lines if TOKEN in line] == []
    assert any(line.startswith('START with options') and
               '--os-token ***' in line for line in lines), lines
    curl = _debug_requests(lines)
    assert len(curl) == 2, curl
    assert all('X-Auth-Token: {SHA256}' in line for line in curl), curl
    # The token did reach the server.
    assert [r.headers.get('X-Auth-Token') for r in server.requests] == [
        TOKEN, TOKEN]


def test_token_from_the_environment_never_printed_with_debug(server):
    server.answer(Reply(404, _placement_error(404, 'Not Found', 'Gone')))
    out, err, code = cli.run(
        ['--debug', '--os-auth-type', 'admin_token', '--os-endpoint',
         server.endpoint] + COMMANDS['show'][0], env={'OS_TOKEN': TOKEN})
    assert code == 1
    assert TOKEN not in out + err
    curl = _debug_requests(err.splitlines())
    assert len(curl) == 2 and all(
        'X-Auth-Token: {SHA256}' in line for line in curl), curl
    assert [r.headers.get('X-Auth-Token') for r in server.requests] == [
        TOKEN, TOKEN]


def test_token_not_printed_in_any_fault(server):
    """Every run() above checks it; this one also lets the server echo the
    request line and the URL in its error."""
    server.answer(Reply(400, 'Bad request for /placement/resource_providers',
                        'text/plain'))
    out, lines, code = run(server.endpoint, COMMANDS['list'][0])
    assert code == 1
    assert TOKEN not in out + ''.join(lines)


# Path and query injection through user-given values.

def _sent(server):
    """(method, path, decoded query) of the requests after negotiation,
    with the raw query kept for the exact encoding."""
    return [(r.method, r.path, r.raw_query) for r in server.api_requests()]


@pytest.mark.parametrize('value,raw_query', [
    ('x?y=1', 'name=x%3Fy%3D1'),
    ('../traits', 'name=..%2Ftraits'),
    ('a&uuid=b#c', 'name=a%26uuid%3Db%23c'),
    ('%2e%2e', 'name=%252e%252e'),
])
def test_provider_name_cannot_change_the_request(server, value, raw_query):
    """A provider given by name is looked up with one query parameter: its
    characters cannot add parameters, end the query or leave the path."""
    server.answer(Reply(200, {'resource_providers': []}))
    out, lines, code = run(server.endpoint,
                           ['resource', 'provider', 'show', value])
    assert (code, lines) == (
        1, ["No resource provider with name or UUID '%s' found." % value])
    assert _sent(server) == [('GET', '/placement/resource_providers',
                              raw_query)]
    assert urlparse.parse_qsl(raw_query) == [('name', value)]


def test_uuid_from_the_server_is_encoded_in_the_path(server):
    """The UUID a name lookup returns is a path segment too."""
    server.route('GET', '/resource_providers', Reply(
        200, {'resource_providers': [{'uuid': '../../traits?x=1'}]}))
    server.answer(Reply(404, _placement_error(404, 'Not Found', 'No such')))
    out, lines, code = run(server.endpoint,
                           ['resource', 'provider', 'show', 'name1'])
    assert (code, lines) == (1, ['No such (HTTP 404)'])
    assert _sent(server) == [
        ('GET', '/placement/resource_providers', 'name=name1'),
        ('GET', '/placement/resource_providers/..%2F..%2Ftraits%3Fx%3D1',
         '')]


@pytest.mark.parametrize('argv,path', [
    (['resource', 'class', 'show', 'CUSTOM_X?foo=1'],
     ('GET', '/resource_classes/CUSTOM_X%3Ffoo%3D1')),
    (['resource', 'class', 'set', 'CUSTOM_X?foo=1'],
     ('PUT', '/resource_classes/CUSTOM_X%3Ffoo%3D1')),
    (['resource', 'class', 'delete', 'CUSTOM_X?foo=1'],
     ('DELETE', '/resource_classes/CUSTOM_X%3Ffoo%3D1')),
    (['resource', 'class', 'show', '%2e%2e'],
     ('GET', '/resource_classes/%252e%252e')),
    (['resource', 'class', 'show', '../../resource_providers'],
     ('GET', '/resource_classes/..%2F..%2Fresource_providers')),
    (['trait', 'show', '../traits'], ('GET', '/traits/..%2Ftraits')),
    (['trait', 'create', '../traits'], ('PUT', '/traits/..%2Ftraits')),
    (['trait', 'delete', '../traits'], ('DELETE', '/traits/..%2Ftraits')),
    (['trait', 'show', 'CUSTOM_A#x'], ('GET', '/traits/CUSTOM_A%23x')),
    (['trait', 'show', 'CUSTOM_A&name=B'],
     ('GET', '/traits/CUSTOM_A%26name%3DB')),
], ids=lambda value: ' '.join(value) if isinstance(value, list) else None)
def test_class_and_trait_names_stay_one_path_segment(server, argv, path):
    """A resource class or trait name is one percent-encoded path segment
    (D6): no query, fragment or parent directory can be slipped in."""
    server.answer(Reply(404, _placement_error(404, 'Not Found', 'No such')))
    out, lines, code = run(server.endpoint, argv, global_argv=[
        '--os-placement-api-version', '1.7'])
    assert (code, lines) == (1, ['No such (HTTP 404)'])
    method, encoded = path
    assert _sent(server) == [(method, '/placement' + encoded, '')]
