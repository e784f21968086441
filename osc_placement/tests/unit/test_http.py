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


"""The HTTP layer (osc_placement/http.py) on its own.

A keystoneauth session with the ``admin_token`` plugin, as OpenStackClient
makes it for ``--os-endpoint``/``--os-token``, and requests-mock behind it.
"""

from keystoneauth1 import loading
from keystoneauth1 import session as ks_session
from osc_lib import exceptions
import requests
import testscenarios

from osc_placement import errors
from osc_placement import http
from osc_placement.tests import cli
from osc_placement.tests.unit import base
from osc_placement import version

load_tests = testscenarios.load_tests_apply_scenarios

ENDPOINT = base.ENDPOINT
KS_FILTER = {'service_type': 'placement', 'region_name': None,
             'interface': 'public'}
ROOT = {'versions': [{'id': 'v1.0', 'min_version': '1.0',
                      'max_version': '1.39', 'status': 'CURRENT'}]}


def client(api_version='1.14'):
    auth = loading.get_plugin_loader('admin_token').load_from_options(
        endpoint=ENDPOINT, token='the-token')
    return http.SessionClient(ks_session.Session(auth=auth), KS_FILTER,
                              api_version=api_version)


class HTTPTestCase(base.TestCase):

    def sent_versions(self):
        return [(r.method, r.url, r.headers.get('OpenStack-API-Version'))
                for r in self.requests_mock.request_history]


# Negotiation.

class TestNegotiationAccepted(HTTPTestCase):

    scenarios = [('1', {'requested': '1', 'ceiling': '1.29'}),
                 ('latest', {'requested': version.LATEST_OPTION_VALUE,
                             'ceiling': '1.39'})]

    def test_negotiation_accepted(self):
        self.requests_mock.get(ENDPOINT + '/', json=ROOT)
        self.assertEqual(self.ceiling, client(self.requested).api_version)
        self.assertEqual(
            [('GET', ENDPOINT + '/', 'placement ' + self.ceiling)],
            self.sent_versions())
        self.assertEqual('application/json',
                         self.requests_mock.last_request.headers['Accept'])


class TestNegotiationFallback(HTTPTestCase):
    """An older server refuses the ceiling and names its maximum.

    The client never goes above its own ceiling.
    """

    scenarios = [
        ('%s-server-%s' % (requested, server_max),
         {'requested': requested, 'server_max': server_max,
          'result': result})
        for requested, server_max, result in [
            ('1', '1.17', '1.17'),
            ('1', '1.0', '1.0'),
            ('1', '1.39', '1.29'),
            (version.LATEST_OPTION_VALUE, '1.36', '1.36'),
            (version.LATEST_OPTION_VALUE, '1.45', '1.39')]]

    def test_negotiation_406_falls_back_to_max_version(self):
        self.requests_mock.get(
            ENDPOINT + '/', status_code=406, json={'errors': [{
                'status': 406, 'title': 'Not Acceptable',
                'detail': 'Unacceptable version header', 'min_version': '1.0',
                'max_version': self.server_max}]})
        self.assertEqual(self.result, client(self.requested).api_version)
        # One request; the fallback costs nothing more.
        self.assertEqual(1, len(self.requests_mock.request_history))


class TestNegotiationRefused(HTTPTestCase):

    scenarios = [
        ('no-max-version', {
            'kwargs': {'json': {'errors': [{
                'status': 406, 'title': 'Not Acceptable',
                'detail': 'Unacceptable version header'}]}},
            'message': 'Unacceptable version header'}),
        ('bad-max-version', {
            'kwargs': {'json': {'errors': [{'title': 'Not Acceptable',
                                            'max_version': '1.x'}]}},
            'message': 'Not Acceptable'}),
        ('null-max-version', {
            'kwargs': {'json': {'errors': [{'title': 'Not Acceptable',
                                            'max_version': None}]}},
            'message': 'Not Acceptable'}),
        ('empty-errors', {'kwargs': {'json': {'errors': []}},
                          'message': '{"errors": []}'}),
        ('html', {'kwargs': {'text': '<html><body><h1>No</h1></body></html>',
                             'headers': {'Content-Type': 'text/html'}},
                  'message': 'No'}),
        ('empty', {'kwargs': {'text': ''}, 'message': 'Not Acceptable'}),
        ('empty-custom-reason', {'kwargs': {'text': '', 'reason': 'Nope'},
                                 'message': 'Nope'}),
    ]

    def test_negotiation_406_without_max_version(self):
        self.requests_mock.get(ENDPOINT + '/', status_code=406, **self.kwargs)
        raised = self.assertRaises(exceptions.CommandError, client, '1')
        self.assertEqual(
            'Placement API version negotiation failed: the server refused '
            'version 1.29 (HTTP 406) without saying which versions it '
            'supports (%s). Pass an explicit --os-placement-api-version.'
            % self.message, str(raised))
        self.assertEqual(1, len(self.requests_mock.request_history))


class TestNegotiationOtherAnswers(HTTPTestCase):
    """Only a 406 changes the version.

    Any other error but a 404 is left for the command's own request to
    meet.
    """

    scenarios = [(str(status), {'status': status})
                 for status in (300, 401, 500, 503)]

    def test_negotiation_other_answers_keep_the_ceiling(self):
        self.requests_mock.get(ENDPOINT + '/', status_code=self.status,
                               text='whatever')
        self.assertEqual('1.29', client('1').api_version)


# The roots of other services, found at a wrong endpoint path.
KEYSTONE_ROOT = {'versions': {'values': [{'id': 'v3.14', 'status': 'stable',
                                          'links': []}]}}
NOVA_ROOT = {'versions': [{'id': 'v2.1', 'status': 'CURRENT',
                           'version': '2.95', 'min_version': '2.1',
                           'links': []}]}


class TestNoPlacementAPI(HTTPTestCase):
    """A negotiation that finds no Placement names the endpoint, in one line.

    Without that, every command met a 404, and a delete looked like "the
    object is already gone". No other request is sent.
    """

    scenarios = testscenarios.multiply_scenarios(
        [('1', {'requested': base.NEGOTIATE}),
         ('latest', {'requested': 'latest'})],
        [('404-placement', {
            'reply': base.error_reply(404, 'The resource could not be '
                                      'found.', 'Not Found'),
            'what': 'HTTP 404 (The resource could not be found.)'}),
         ('404-html', {
             'reply': {'status_code': 404, 'reason': 'Not Found',
                       'text': '<html><h1>Not Found</h1></html>',
                       'headers': {'Content-Type': 'text/html'}},
             'what': 'HTTP 404 (Not Found)'}),
         ('404-empty', {'reply': {'status_code': 404, 'text': ''},
                        'what': 'HTTP 404 (Not Found)'})]
        + [(name, {'reply': reply, 'what': 'HTTP 200 without the version '
                   'document of Placement'})
           for name, reply in [
               ('html', {'text': '<html>It works!</html>',
                         'headers': {'Content-Type': 'text/html'}}),
               ('empty', {'text': ''}),
               ('json-list', {'json': [base.VERSIONS]}),
               ('no-versions', {'json': {}}),
               ('empty-versions', {'json': {'versions': []}}),
               ('keystone', {'json': KEYSTONE_ROOT}),
               ('nova', {'json': NOVA_ROOT})]])

    def test_negotiation_without_placement(self):
        self.requests_mock.get(ENDPOINT + '/', **self.reply)
        self.requests_mock.delete(ENDPOINT + '/resource_providers/' + base.RP1,
                                  **base.error_reply(404, 'Gone'))
        out, err, code = self.openstack('resource', 'provider', 'delete',
                                        base.RP1, version=self.requested)
        self.assertEqual(
            (1, '', 'No Placement API at %s: GET %s/ answered %s.\n'
                % (ENDPOINT, ENDPOINT, self.what)), (code, out, err))
        self.assertEqual([('GET', ENDPOINT + '/')], [
            (r.method, r.url) for r in self.requests_mock.request_history])


class TestExplicitVersion(HTTPTestCase):

    scenarios = [(v, {'requested': v})
                 for v in version.SUPPORTED_MICROVERSIONS]

    def test_explicit_version_sends_no_request(self):
        self.assertEqual(self.requested, client(self.requested).api_version)
        self.assertEqual([], self.requests_mock.request_history)


class TestUnsupportedVersion(HTTPTestCase):

    scenarios = [(repr(v), {'requested': v})
                 for v in ('1.40', '2.0', 'abc', '', '1.05', 'latest', '1.')]

    def test_unsupported_version_sends_no_request(self):
        raised = self.assertRaises(version.UnsupportedVersion, client,
                                   self.requested)
        self.assertEqual(
            "Placement API version '%s' is not supported; accepted values: "
            "1.0 to 1.39, '1' (negotiate up to 1.29) or 'latest'."
            % self.requested, str(raised))
        self.assertEqual([], self.requests_mock.request_history)


# Requests.

class TestRequests(HTTPTestCase):

    def test_headers_on_every_request(self):
        self.requests_mock.get(ENDPOINT + '/', json=ROOT)
        self.requests_mock.get(ENDPOINT + '/resource_providers', json={})
        self.requests_mock.put(ENDPOINT + '/resource_providers/x', json={})
        self.requests_mock.delete(ENDPOINT + '/resource_providers/x',
                                  status_code=204)
        placement = client('1')
        placement.request('GET', '/resource_providers')
        placement.request('PUT', '/resource_providers/x', json={'name': 'n'})
        placement.request('DELETE', '/resource_providers/x')
        history = self.requests_mock.request_history
        for request in history:
            self.assertEqual('placement 1.29',
                             request.headers['OpenStack-API-Version'])
            self.assertEqual('application/json', request.headers['Accept'])
            self.assertEqual('the-token', request.headers['X-Auth-Token'])
        put = history[2]
        self.assertEqual('application/json', put.headers['Content-Type'])
        self.assertEqual({'name': 'n'}, put.json())
        self.assertEqual(['GET', 'GET', 'PUT', 'DELETE'],
                         [r.method for r in history])

    def test_version_override_and_caller_headers(self):
        self.requests_mock.get(ENDPOINT + '/traits', json={})
        placement = client('1.14')
        placement.request('GET', '/traits', version='1.6')
        placement.request('GET', '/traits', headers={
            'OpenStack-API-Version': 'placement 1.2', 'Accept': 'text/plain',
            'X-Extra': 'yes'})
        first, second = self.requests_mock.request_history
        self.assertEqual('placement 1.6',
                         first.headers['OpenStack-API-Version'])
        self.assertEqual('placement 1.2',
                         second.headers['OpenStack-API-Version'])
        self.assertEqual('text/plain', second.headers['Accept'])
        self.assertEqual('yes', second.headers['X-Extra'])
        # The override is for one request only.
        self.assertEqual('1.14', placement.api_version)

    def test_query_parameters_in_order(self):
        self.requests_mock.get(ENDPOINT + '/resource_providers', json={})
        client().request('GET', '/resource_providers', params=[
            ('resources', 'VCPU:1'), ('member_of', 'in:a,b'),
            ('member_of', '!c')])
        self.assertEqual(
            'resources=VCPU%3A1&member_of=in%3Aa%2Cb&member_of=%21c',
            self.requests_mock.last_request.url.split('?')[1])

    def test_success_returns_the_response(self):
        self.requests_mock.get(ENDPOINT + '/traits', json={'traits': ['A']},
                               headers={'X-Thing': '1'})
        response = client().request('GET', '/traits')
        self.assertEqual(200, response.status_code)
        self.assertEqual({'traits': ['A']}, response.json())
        self.assertEqual('1', response.headers['X-Thing'])

    def test_raise_exc_false_returns_the_error(self):
        self.requests_mock.get(ENDPOINT + '/traits/X', status_code=404,
                               text='')
        response = client().request('GET', '/traits/X', raise_exc=False)
        self.assertEqual(404, response.status_code)

    def test_exception_for_keeps_the_response(self):
        response = base.response(409, {'errors': [{'detail': 'x\n\n gen'}]})
        exc = errors.exception_for(response)
        self.assertIsInstance(exc, exceptions.Conflict)
        self.assertIs(response, exc.response)
        self.assertEqual('gen (HTTP 409)', str(exc))

    def test_unrecognised_transport_error_in_one_line(self):
        self.requests_mock.get(
            ENDPOINT + '/traits', exc=requests.exceptions.ConnectionError(
                'something odd\nsecond line'))
        raised = self.assertRaises(errors.ConnectionFailed, client().request,
                                   'GET', '/traits')
        message = str(raised)
        self.assertTrue(message.startswith(
            'Unable to reach the Placement API at %s/traits: ' % ENDPOINT),
            message)
        self.assertIn('something odd', message)
        self.assertOneLine(message)


class TestBodyNotJSON(HTTPTestCase):

    scenarios = [(repr(body), {'body': body})
                 for body in ('not json', '', '<html>x</html>')]

    def test_json_of_a_body_that_is_not_json(self):
        self.requests_mock.get(ENDPOINT + '/traits', text=self.body)
        response = client().request('GET', '/traits')
        raised = self.assertRaises(errors.InvalidResponse, response.json)
        self.assertIsInstance(raised, exceptions.CommandError)
        self.assertEqual(
            'Invalid response from the Placement API: GET %s/traits answered '
            'HTTP 200 with a body that is not JSON: %r'
            % (ENDPOINT, errors.text_of(self.body)), str(raised))


# Error mapping.

class TestErrorStatus(HTTPTestCase):

    scenarios = [(str(status), {'status': status, 'exc_class': exc_class})
                 for status, exc_class in [
                     (400, exceptions.BadRequest),
                     (401, exceptions.Unauthorized),
                     (403, exceptions.Forbidden),
                     (404, exceptions.NotFound),
                     (409, exceptions.Conflict),
                     (413, exceptions.OverLimit),
                     (501, exceptions.HTTPNotImplemented),
                     (405, exceptions.ClientException),
                     (500, exceptions.ClientException),
                     (502, exceptions.ClientException),
                     (503, exceptions.ClientException)]]

    def test_error_status_to_exception(self):
        self.requests_mock.get(
            ENDPOINT + '/traits', status_code=self.status,
            json=base.placement_error(self.status, base.webob_detail(
                'The useful sentence.'), title='T'))
        exc = self.assertRaises(exceptions.ClientException,
                                client().request, 'GET', '/traits')
        self.assertIs(self.exc_class, type(exc))
        self.assertEqual(self.status, exc.code)
        self.assertEqual('The useful sentence. (HTTP %d)' % self.status,
                         str(exc))
        self.assertEqual(self.status, exc.response.status_code)


class TestErrorMessage(base.TestCase):

    scenarios = [(name, {'body': body, 'expected': expected})
                 for name, body, expected in [
        # Placement's JSON: the last line of the detail.
        ('detail-last-line', {'errors': [{'detail': 'A\n\n B '}]}, 'B'),
        ('detail-one-line', {'errors': [{'detail': 'One line'}]},
         'One line'),
        ('detail-trailing-lines', {'errors': [{'detail': 'A\n\n B\n\n'}]},
         'B'),
        ('title-only', {'errors': [{'title': 'Only a title'}]},
         'Only a title'),
        ('first-error', {'errors': [{'detail': 'first'},
                                    {'detail': 'second'}]}, 'first'),
        # A JSON-schema error of the body: the reason and the field, not
        # the schema.
        ('schema-error', {'errors': [{'detail': (
            "Headline.\n\n JSON does not validate: 0 is less than the "
            "minimum of 1  Failed validating 'minimum' in schema['properties']"
            "['inventories']['patternProperties']['^[A-Z0-9_]+$']"
            "['properties']['total']:     {'type': 'integer', 'minimum': 1}"
            "  On instance['inventories']['VCPU']['total']:     0  ")}]},
         'JSON does not validate: 0 is less than the minimum of 1 (field '
         'inventories/VCPU/total)'),
        ('schema-error-list-item', {'errors': [{'detail': (
            "JSON does not validate: 'agg-one' is not a 'uuid'  Failed "
            "validating 'format' in schema['items']:     {'type': 'string', "
            "'format': 'uuid'}  On instance[0]:     'agg-one'  ")}]},
         "JSON does not validate: 'agg-one' is not a 'uuid' (field 0)"),
        ('schema-error-of-the-root', {'errors': [{'detail': (
            "JSON does not validate: 'x' is not of type 'object'  Failed "
            "validating 'type' in schema:     {'type': 'object'}  On "
            "instance:     'x'")}]},
         "JSON does not validate: 'x' is not of type 'object'"),
        # A query string error keeps the server's text, as the reference.
        ('query-schema-error', {'errors': [{'detail': (
            "Invalid query string parameters: '0' does not match '^[1-9]'"
            "  Failed validating 'pattern' in schema['properties']['limit']"
            ":     {}  On instance['limit']:     '0'")}]},
         "Invalid query string parameters: '0' does not match '^[1-9]'"
         "  Failed validating 'pattern' in schema['properties']['limit']:"
         "     {}  On instance['limit']:     '0'"),
        # Anything else: the body as text.
        ('detail-not-text', {'errors': [{'detail': ['x']}]},
         '{"errors": [{"detail": ["x"]}]}'),
        ('error-not-object', {'errors': ['x']}, '{"errors": ["x"]}'),
        ('errors-not-list', {'errors': {}}, '{"errors": {}}'),
        ('other-json', {'message': 'm'}, '{"message": "m"}'),
        ('html', '<p>A &amp; <b>B</b></p>', 'A & B'),
        ('script-and-style',
         '<script>var x = "<p>";</script><style>p{}</style>text', 'text'),
        ('spaces', '  several\n\n lines\t here ', 'several lines here'),
        ('long', 'y' * 400, 'y' * 297 + '...'),
        # No body: the reason phrase, or the standard one.
        ('empty', '', 'Reason Given'),
    ]]

    def test_error_message(self):
        response = base.response(418, self.body, reason='Reason Given')
        self.assertEqual(self.expected, errors.error_message(response))


class TestErrorMessageWithoutBody(base.TestCase):

    scenarios = [
        ('503', {'status': 503, 'reason': None,
                 'expected': 'Service Unavailable'}),
        ('404-empty-reason', {'status': 404, 'reason': '',
                              'expected': 'Not Found'}),
        ('599', {'status': 599, 'reason': None, 'expected': 'Error'}),
    ]

    def test_error_message_without_body_or_reason(self):
        self.assertEqual(self.expected, errors.error_message(
            base.response(self.status, reason=self.reason)))


# Failures below HTTP.

class TestTransportErrors(HTTPTestCase):

    scenarios = [
        ('connect-timeout', {
            'exc': requests.exceptions.ConnectTimeout('slow'),
            'reason': 'no answer before the timeout'}),
        ('read-timeout', {
            'exc': requests.exceptions.ReadTimeout('slow'),
            'reason': 'no answer before the timeout'}),
        ('ssl', {'exc': requests.exceptions.SSLError('bad cert'),
                 'reason': 'TLS handshake failed'}),
        ('reset', {
            'exc': requests.exceptions.ConnectionError(
                ConnectionResetError(104, 'reset')),
            'reason': 'the connection was closed by the server'}),
        ('refused', {
            'exc': requests.exceptions.ConnectionError(
                ConnectionRefusedError(111, 'refused')),
            'reason': 'connection refused'}),
        # A reason that is a sentence of its own: one period, not two.
        ('sentence', {
            'exc': requests.exceptions.ConnectionError('Network is down.'),
            'reason': 'Unable to establish connection to %s/traits: '
                      'Network is down' % ENDPOINT}),
    ]

    def test_transport_errors(self):
        self.requests_mock.get(ENDPOINT + '/traits', exc=self.exc)
        raised = self.assertRaises(errors.ConnectionFailed, client().request,
                                   'GET', '/traits')
        self.assertIsInstance(raised, exceptions.CommandError)
        self.assertEqual('Unable to reach the Placement API at %s/traits: %s.'
                         % (ENDPOINT, self.reason), str(raised))


# Through the shell: the negotiated version in --debug, an endpoint that
# is not a URL.

class TestNegotiationInDebug(base.TestCase):

    def debug_lines(self):
        out, err, code = cli.run(
            ['--debug'] + cli.auth_argv() + ['resource', 'class', 'list'])
        self.assertEqual(0, code, err)
        return [line for line in err.splitlines() if 'Negotiated' in line]

    def test_the_negotiated_version_and_the_server_maximum(self):
        self.requests_mock.get(ENDPOINT + '/', json=base.VERSIONS)
        self.requests_mock.get(ENDPOINT + '/resource_classes',
                               json={'resource_classes': []})
        lines = self.debug_lines()
        self.assertEqual(1, len(lines), lines)
        self.assertTrue(lines[0].endswith(
            'Negotiated Placement API microversion 1.29 (server maximum '
            '1.39)'), lines[0])

    def test_an_older_server(self):
        self.requests_mock.get(ENDPOINT + '/', status_code=406, json={
            'errors': [{'status': 406, 'title': 'Not Acceptable',
                        'detail': 'Unacceptable version header: 1.29',
                        'max_version': '1.17', 'min_version': '1.0'}]})
        self.requests_mock.get(ENDPOINT + '/resource_classes',
                               json={'resource_classes': []})
        lines = self.debug_lines()
        self.assertEqual(1, len(lines), lines)
        self.assertTrue(lines[0].endswith(
            'Negotiated Placement API microversion 1.17 (server maximum '
            '1.17)'), lines[0])


class TestEndpointThatIsNotAURL(base.TestCase):

    # (requests-mock serves every scheme: only a URL without one can be
    # tested here.)
    scenarios = [(e, {'endpoint': e})
                 for e in ('not-a-url', 'controller.example/placement')]

    def test_says_what_an_endpoint_looks_like(self):
        out, err, code = cli.run(cli.auth_argv(self.endpoint) + [
            'resource', 'class', 'list'])
        self.assertEqual(
            ('', "The Placement endpoint '%s' is not an HTTP(S) URL: give "
             "one such as http://controller:8778/placement.\n"
             % self.endpoint, 1), (out, err, code))
        self.assertEqual([], self.sent())
