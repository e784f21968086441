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


"""The session client (osc_placement/http/client.py).

On its own: a keystoneauth session with the ``admin_token`` plugin, as
OpenStackClient makes it for ``--os-endpoint``/``--os-token``, and
requests-mock behind it. Through the shell: the negotiation in --debug,
an endpoint that is not a URL, answers of the wrong shape, and the
environment of the requests of a batch.
"""

import base64
from concurrent import futures
import http.client as http_client
import json
import logging
import os
import ssl
import threading

import fixtures
import hypothesis
from keystoneauth1 import loading
from keystoneauth1 import session as ks_session
from osc_lib import exceptions
import requests
import testscenarios
from urllib3 import exceptions as urllib3_exceptions

from osc_placement.cli import batch
from osc_placement import errors
from osc_placement.http import client as http
from osc_placement.tests import cli
from osc_placement.tests.unit import base
from osc_placement.tests.unit import strategies
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


# Failures below HTTP.

class TestTransportErrors(HTTPTestCase):

    scenarios = [
        ('connect-timeout', {
            'exc': requests.exceptions.ConnectTimeout('slow'),
            'reason': 'no answer before the timeout'}),
        # The server reached, its answer not whole: said so.
        ('read-timeout', {
            'exc': requests.exceptions.ReadTimeout('slow'),
            'reason': 'no complete answer within the timeout',
            'reached': True}),
        ('body-read-timeout', {
            'exc': requests.exceptions.ConnectionError(
                urllib3_exceptions.ReadTimeoutError(None, '', 'slow')),
            'reason': 'no complete answer within the timeout',
            'reached': True}),
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
        self.assertEqual('%s the Placement API at %s/traits: %s.'
                         % ('Reached' if getattr(self, 'reached', False)
                            else 'Unable to reach', ENDPOINT, self.reason),
                         str(raised))


class TestPastTheDeadline(HTTPTestCase):
    """An answer that does not come whole before the timeout's deadline."""

    def test_a_read_says_the_answer_was_not_complete(self):
        release = threading.Event()
        self.addCleanup(release.set)

        def slow(request, context):
            release.wait(30)
            return {'traits': []}
        self.requests_mock.get(ENDPOINT + '/traits', json=slow)
        slow_client = client()
        slow_client.timeout = 0.1
        raised = self.assertRaises(errors.ConnectionFailed,
                                   slow_client.request, 'GET', '/traits')
        self.assertEqual('Reached the Placement API at %s/traits: no '
                         'complete answer within the timeout.' % ENDPOINT,
                         str(raised))


class TestResponseHooks(HTTPTestCase):

    def test_the_sessions_own_hooks_still_run_once(self):
        self.requests_mock.get(ENDPOINT + '/traits', json={'traits': []})
        seen = []
        timed = client()
        timed.timeout = 5
        timed.session.session.hooks['response'].append(
            lambda answer, **kwargs: seen.append(answer.url))
        timed.request('GET', '/traits')
        self.assertEqual([ENDPOINT + '/traits'], seen)


def as_requests_raises(kind, reason):
    """requests' exception for ``reason``, naming the request as it does.

    As ``requests.adapters.HTTPAdapter.send`` builds it: urllib3's
    MaxRetryError (its reason), or the ProtocolError of a connection
    cut, and the request sent.
    """
    def raises(request, context):
        raise kind(reason, request=request)
    return raises


def max_retry(reason):
    return urllib3_exceptions.MaxRetryError(None, ENDPOINT, reason)


CONSUMER = 'cccccccc-cccc-4ccc-8ccc-000000000001'


class TestTransportErrorsOfAWrite(HTTPTestCase):
    """A write's answer lost after it may have left: outcome unknown.

    One certainly not sent (no connection made) keeps the message of a
    read.
    """

    scenarios = [
        ('read-timeout', {
            'kind': requests.exceptions.ReadTimeout,
            'reason': urllib3_exceptions.ReadTimeoutError(None, '', 'slow'),
            'unknown': 'no complete answer within the timeout'}),
        ('reset', {
            'kind': requests.exceptions.ConnectionError,
            'reason': urllib3_exceptions.ProtocolError(
                'Connection aborted.', ConnectionResetError(104, 'reset')),
            'unknown': 'the connection was closed before an answer came'}),
        ('closed', {
            'kind': requests.exceptions.ConnectionError,
            'reason': urllib3_exceptions.ProtocolError(
                'Connection aborted.', http_client.RemoteDisconnected('')),
            'unknown': 'the connection was closed before an answer came'}),
        ('refused', {
            'kind': requests.exceptions.ConnectionError,
            'reason': max_retry(urllib3_exceptions.NewConnectionError(
                None, 'Failed to establish a new connection: [Errno 111] '
                'Connection refused')),
            'unknown': None}),
        ('connect-timeout', {
            'kind': requests.exceptions.ConnectTimeout,
            'reason': max_retry(urllib3_exceptions.ConnectTimeoutError(
                None, 'timed out')),
            'unknown': None}),
    ]

    def test_outcome_unknown_only_once_connected(self):
        url = '/allocations/' + CONSUMER
        self.requests_mock.put(ENDPOINT + url, json=as_requests_raises(
            self.kind, self.reason))
        raised = self.assertRaises(
            errors.ConnectionFailed, client().request, 'PUT', url,
            json={'allocations': {}})
        if self.unknown is None:
            self.assertNotIsInstance(raised, errors.OutcomeUnknown)
            self.assertTrue(str(raised).startswith(
                'Unable to reach the Placement API at %s%s: '
                % (ENDPOINT, url)), str(raised))
            return
        self.assertEqual(
            'Outcome unknown: PUT %s%s: it may have reached the Placement '
            'API, but its answer was lost (%s): the write may or may not '
            'have happened; check with openstack resource provider '
            'allocation show %s.' % (ENDPOINT, url, self.unknown, CONSUMER),
            str(raised))

    def test_a_read_keeps_saying_unable_to_reach(self):
        self.requests_mock.get(ENDPOINT + '/traits', json=as_requests_raises(
            self.kind, self.reason))
        raised = self.assertRaises(errors.ConnectionFailed, client().request,
                                   'GET', '/traits')
        self.assertNotIsInstance(raised, errors.OutcomeUnknown)

    def test_another_request_failing_sent_nothing_of_the_write(self):
        # keystoneauth's own request (a token) failed: the write never
        # started, whatever the failure.
        def raises(request, context):
            other = requests.Request('POST', 'http://keystone.test/v3/auth/'
                                     'tokens').prepare()
            raise self.kind(self.reason, request=other)
        self.requests_mock.put(ENDPOINT + '/traits/CUSTOM_A', json=raises)
        raised = self.assertRaises(errors.ConnectionFailed, client().request,
                                   'PUT', '/traits/CUSTOM_A')
        self.assertNotIsInstance(raised, errors.OutcomeUnknown)


class TestWriteChecks(base.TestCase):
    """How to check what a write whose answer was lost did."""

    scenarios = [
        ('consumer', {'args': ('PUT', '/allocations/c1', {}),
                      'checks': ['openstack resource provider allocation '
                                 'show c1']}),
        ('several', {'args': ('POST', '/allocations', {'c1': {}, 'c2': {}}),
                     'checks': [
                         'openstack resource provider allocation show c1',
                         'openstack resource provider allocation show c2',
                         'after a restore, openstack resource provider '
                         'allocation restore --dry-run with the same file']}),
        ('many', {'args': ('POST', '/allocations',
                           {'c%d' % n: {} for n in range(5)}),
                  'checks': [
                      'openstack resource provider allocation show '
                      '<consumer> for each of the 5 consumers written (c0, '
                      'c1, c2, ...)',
                      'after a restore, openstack resource provider '
                      'allocation restore --dry-run with the same file']}),
        ('reshape', {'args': ('POST', '/reshaper', {
            'inventories': {'r1': {}}, 'allocations': {'c1': {}}}),
            'checks': ['openstack resource provider inventory list r1',
                       'openstack resource provider allocation show c1']}),
        ('inventory', {'args': ('DELETE', '/resource_providers/r1/'
                                'inventories/VCPU', None),
                       'checks': ['openstack resource provider inventory '
                                  'list r1']}),
        ('provider', {'args': ('DELETE', '/resource_providers/r1', None),
                      'checks': ['openstack resource provider show r1']}),
        ('created', {'args': ('POST', '/resource_providers',
                              {'name': 'n1'}),
                     'checks': ['openstack resource provider list --name '
                                'n1']}),
        ('trait', {'args': ('PUT', '/traits/CUSTOM_%0A', None),
                   'checks': ['openstack trait show CUSTOM_\\n']}),
        ('class', {'args': ('PUT', '/resource_classes/CUSTOM_A', None),
                   'checks': ['openstack resource class show CUSTOM_A']}),
    ]

    def test_write_checks(self):
        self.assertEqual(self.checks, errors.write_checks(*self.args))


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


# An answer of the wrong shape is the server's fault; our own bugs are not.
# The shape of a successful answer is checked where the command reads it:
# one line names the request and the key that was missing. An exception
# raised by the plugin itself (a bug) is never disguised as an invalid
# response from the Placement API.

INVALID = 'Invalid response from the Placement API'


class TestInvalidBody(base.TestCase):
    """Each answer lacks what the command reads: one line says so."""

    api_version = '1.39'
    method = 'GET'
    status = 200
    scenarios = [
        ('list_without_its_key', {
            'argv': ['resource', 'provider', 'list'],
            'path': '/resource_providers', 'body': {'providers': []},
            'what': "JSON without the 'resource_providers' key"}),
        ('list_of_the_wrong_type', {
            'argv': ['resource', 'provider', 'list'],
            'path': '/resource_providers', 'body': {'resource_providers': 5},
            'what': "JSON whose 'resource_providers' is not a list"}),
        ('body_that_is_a_list', {
            'argv': ['trait', 'list'], 'path': '/traits', 'body': [],
            'what': "JSON without the 'traits' key"}),
        ('usages_that_are_not_an_object', {
            'argv': ['resource', 'provider', 'usage', 'show', base.RP1],
            'path': '/resource_providers/%s/usages' % base.RP1,
            'body': {'usages': [1]},
            'what': "JSON whose 'usages' is not an object"}),
        ('record_that_is_not_an_object', {
            'argv': ['resource', 'class', 'show', 'CUSTOM_GOLD'],
            'path': '/resource_classes/CUSTOM_GOLD', 'body': ['CUSTOM_GOLD'],
            'what': 'JSON that is not an object'}),
        ('candidates_without_provider_summaries', {
            'argv': ['allocation', 'candidate', 'list', '--resource',
                     'VCPU=1'],
            'path': '/allocation_candidates',
            'body': {'allocation_requests': []},
            'what': "JSON without the 'provider_summaries' key"}),
        ('created_without_a_location', {
            'argv': ['resource', 'provider', 'create', 'rp1'],
            'path': '/resource_providers', 'body': None, 'method': 'POST',
            'status': 201, 'what': 'no Location header'}),
    ]

    def test_one_line_names_the_request_and_what_was_wrong(self):
        url = base.ENDPOINT + self.path
        kwargs = {'status_code': self.status}
        if self.body is not None:
            kwargs['json'] = self.body
        self.requests_mock.register_uri(self.method, url, **kwargs)
        out, err, code = self.openstack(*self.argv)
        self.assertEqual(1, code)
        self.assertEqual('', out)
        query = self.requests_mock.last_request.url[len(url):]
        self.assertEqual(
            '%s: %s %s%s answered HTTP %d with %s\n'
            % (INVALID, self.method, url, query, self.status, self.what),
            err)


class TestOwnBugs(base.TestCase):
    """An exception of the plugin's own code is reported as what it is."""

    api_version = '1.39'

    def setUp(self):
        super().setUp()
        self.requests_mock.get(base.ENDPOINT + '/traits',
                               json={'traits': ['CUSTOM_GOLD']})
        self.requests_mock.get(base.ENDPOINT + '/resource_providers', json={
            'resource_providers': [base.provider('u', 'n')]})

    def _break(self, target):
        def broken(*args, **kwargs):
            raise TypeError('bug in the formatting of the rows')
        self.useFixture(fixtures.MonkeyPatch(target, broken))

    def assert_reported_as_a_bug(self, out, err, code):
        self.assertEqual(1, code)
        self.assertIn('bug in the formatting of the rows', err)
        self.assertNotIn(INVALID, err)

    def test_bug_in_take_action(self):
        self._break('osc_placement.resources.trait.trait_rows')
        self.assert_reported_as_a_bug(*self.openstack('trait', 'list'))
        self.assertEqual([('GET', '/traits')], self.sent())

    def test_bug_while_cliff_formats_the_rows(self):
        # The rows of provider list are a generator: this runs in cliff's
        # formatting, after take_action has returned.
        self._break('osc_lib.utils.get_dict_properties')
        self.assert_reported_as_a_bug(
            *self.openstack('resource', 'provider', 'list'))

    def test_the_same_command_works_unbroken(self):
        """The control: without the break, the same run succeeds."""
        out, err, code = self.openstack('trait', 'list', '-f', 'value')
        self.assertEqual(('CUSTOM_GOLD\n', '', 0), (out, err, code))


# The connection pools of the session.

class TestPoolSize(base.TestCase):
    """The session keeps as many connections as requests in flight."""

    def test_pools_grow_to_the_parallelism(self):
        session = ks_session.Session()
        client = http.SessionClient(session, {'service_type': 'placement'},
                                    api_version='1.39')
        client.allow_parallel(4)
        sizes = {prefix: adapter.poolmanager.connection_pool_kw['maxsize']
                 for prefix, adapter in session.adapters.items()}
        self.assertEqual({requests.adapters.DEFAULT_POOLSIZE}, set(
            sizes.values()))
        client.allow_parallel(32)
        self.assertEqual({32}, {
            adapter.poolmanager.connection_pool_kw['maxsize']
            for adapter in session.adapters.values()})

    def test_bigger_pools_keep_the_settings_of_the_session(self):
        session = ks_session.Session(tls_min_version='1.3',
                                     tls_ciphers='ECDHE+AESGCM')
        originals = dict(session.adapters)
        before = {prefix: dict(adapter.poolmanager.connection_pool_kw)
                  for prefix, adapter in originals.items()}
        closed = []
        for adapter in set(originals.values()):
            def close(adapter=adapter, close=adapter.close):
                closed.append(adapter)
                close()
            adapter.close = close
        client = http.SessionClient(session, {'service_type': 'placement'},
                                    api_version='1.39')
        client.allow_parallel(32)
        self.assertEqual(set(originals), set(session.adapters))
        for prefix, adapter in session.adapters.items():
            old = originals[prefix]
            self.assertIsNot(old, adapter)
            self.assertIs(type(old), type(adapter))
            self.assertEqual(('1.3', 'ECDHE+AESGCM'),
                             (adapter.tls_min_version, adapter.tls_ciphers))
            self.assertEqual(old.max_retries, adapter.max_retries)
            kw = adapter.poolmanager.connection_pool_kw
            self.assertEqual(ssl.TLSVersion.TLSv1_3,
                             kw['ssl_context'].minimum_version)
            self.assertEqual(before[prefix]['socket_options'],
                             kw['socket_options'])
            self.assertEqual(before[prefix]['block'], kw['block'])
            self.assertEqual(32, kw['maxsize'])
        # The schemes share one adapter, as keystoneauth mounts them; the
        # one it replaces is closed, once.
        self.assertEqual(1, len(set(session.adapters.values())))
        self.assertEqual(list(set(originals.values())), closed)


# The environment and the debug lines with the per-request work cut. The
# client reads the environment once per batch (proxies, CA bundle,
# ``.netrc``) and asks keystoneauth for its debug lines only when a handler
# writes them (issue 33). These tests pin what a user sees: the proxy, the
# ``no_proxy`` exception, the CA bundle and the ``.netrc`` credentials of
# the environment are used by the requests of a batch and by a single
# request alike; the requests of a batch are those of single requests; the
# session trusts the environment again after a batch; ``--debug`` still
# prints keystoneauth's request lines.

PROXY = 'http://proxy.test:3128'
PROVIDERS = [base.provider('aaaaaaaa-aaaa-4aaa-8aaa-%012d' % i, 'rp-%d' % i)
             for i in range(12)]
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


class TestEnvironmentReadOnce(EnvironmentTestCase):

    def test_a_batch_reads_the_proxies_once(self):
        read = []
        environ_proxies = requests.sessions.get_environ_proxies

        def counted(*args, **kwargs):
            read.append(args[0])
            return environ_proxies(*args, **kwargs)
        self.useFixture(fixtures.MonkeyPatch(
            'requests.sessions.get_environ_proxies', counted))
        out, err, code = self.openstack(*BATCH, env={'http_proxy': PROXY})
        self.assertEqual(0, code, err)
        reads = [r for r in self.requests_mock.request_history
                 if r.path.endswith(('/inventories', '/usages'))]
        self.assertEqual(2 * len(PROVIDERS), len(reads))
        # Once for the batch (its endpoint), once for the list before it:
        # not once per request.
        self.assertEqual([ENDPOINT + '/', ENDPOINT + '/resource_providers'],
                         sorted(read))


class TestSameRequests(EnvironmentTestCase):

    def test_a_batch_sends_the_headers_of_a_single_request(self):
        reads, single = self.run_both({'http_proxy': PROXY})
        headers = dict(single[-1].headers)
        for request in reads:
            self.assertEqual(headers, dict(request.headers), request.url)
            self.assertEqual(single[-1].timeout, request.timeout)
            self.assertEqual(single[-1].cert, request.cert)
            self.assertEqual(single[-1].verify, request.verify)


COMPUTE = 'http://compute.test/v2.1/servers/detail'


class TestSessionDuringABatch(EnvironmentTestCase):
    """The session given is left as it is while a batch runs.

    Other threads send through it meanwhile (the audit reads Nova through
    OpenStackClient's connection, which shares it): the environment's
    proxy and CA bundle still apply to them.
    """

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.EnvironmentVariable('http_proxy', PROXY))
        self.requests_mock.get(COMPUTE, json={'servers': []})

    def client(self, **session_args):
        auth = loading.get_plugin_loader('admin_token').load_from_options(
            endpoint=ENDPOINT, token='the-token')
        self.session = ks_session.Session(auth=auth, **session_args)
        return http.SessionClient(
            self.session, {'service_type': 'placement', 'region_name': None,
                           'interface': 'public'}, api_version='1.39',
            parallel=4)

    def test_other_threads_keep_the_environment(self):
        client = self.client()
        trusted = []

        def work(rp):
            trusted.append(self.session.session.trust_env)
            # A request of another kind through the session given, from
            # its own thread, as the audit's compute reads are sent.
            other = futures.ThreadPoolExecutor(max_workers=1)
            self.addCleanup(other.shutdown)
            other.submit(self.session.request, COMPUTE, 'GET').result()
            return client.request('GET', '/resource_providers/%s/usages'
                                  % rp['uuid'])
        done = batch.run(client, work, PROVIDERS)
        self.assertEqual(len(PROVIDERS), len(done.done()))
        self.assertEqual([True] * len(PROVIDERS), trusted)
        history = self.requests_mock.request_history
        compute = [r for r in history if r.url == COMPUTE]
        placement = [r for r in history if r.url.startswith(ENDPOINT)]
        self.assertEqual(len(PROVIDERS), len(compute))
        self.assertEqual(len(PROVIDERS), len(placement))
        # The proxy of the environment, to Nova and to Placement alike.
        for request in compute + placement:
            self.assertEqual(PROXY, request.proxies.get('http'),
                             request.url)

    def test_the_batch_requests_are_timed_with_the_session(self):
        client = self.client(collect_timing=True)
        batch.run(client, lambda rp: client.request(
            'GET', '/resource_providers/%s/usages' % rp['uuid']), PROVIDERS)
        self.assertEqual(
            sorted(ENDPOINT + '/resource_providers/%s/usages' % rp['uuid']
                   for rp in PROVIDERS),
            sorted(timing.url for timing in self.session.get_timings()))


class TestDebugLines(EnvironmentTestCase):

    def test_debug_prints_the_request_lines(self):
        out, err, code = self.openstack('--debug', *BATCH)
        self.assertEqual(0, code, err)
        for rp in PROVIDERS:
            self.assertIn('REQ: curl -g -i -X GET %s/resource_providers/%s/'
                          'inventories' % (ENDPOINT, rp['uuid']), err)
        self.assertIn('RESP BODY: ', err)

    def test_no_debug_lines_are_built_without_a_handler_for_them(self):
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


# Any value, property-based (see the strategies module).

class TestAnyJSONBody(base.TestCase):
    """The JSON of a response, whatever its body: data, or one line."""

    @strategies.SETTINGS
    @hypothesis.given(strategies.BODIES)
    def test_json_of_any_body_is_data_or_an_invalid_response(self, body):
        response = strategies.read_response(200, body)
        data, error = strategies.outcome(response.json,
                                         errors=errors.InvalidResponse)
        try:
            expected = json.loads(body.decode('utf-8'))
        except ValueError:
            # Not UTF-8 JSON; requests may still read it in the encoding it
            # guesses (a lone b'\xf0' is '0' in EBCDIC).
            expected = json.loads(response.text) if error is None else None
        if error is None:
            # Compared as JSON text: a body of NaN is a float that equals
            # no other, itself included.
            self.assertEqual(json.dumps(expected, sort_keys=True),
                             json.dumps(data, sort_keys=True))
        else:
            self.assertIsNone(expected)
            self.assertOneLine(str(error))
            self.assertTrue(
                str(error).startswith('Invalid response from the Placement '
                                      'API: GET http://placement.test/'))
