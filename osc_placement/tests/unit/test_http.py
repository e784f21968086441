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

import json

from keystoneauth1 import loading
from keystoneauth1 import session as ks_session
from osc_lib import exceptions
import pytest
import requests
import requests_mock

from osc_placement import http
from osc_placement import version

ENDPOINT = 'http://placement.test/placement'
KS_FILTER = {'service_type': 'placement', 'region_name': None,
             'interface': 'public'}


@pytest.fixture
def mock():
    with requests_mock.Mocker(case_sensitive=True) as mocker:
        yield mocker


def make_session():
    auth = loading.get_plugin_loader('admin_token').load_from_options(
        endpoint=ENDPOINT, token='the-token')
    return ks_session.Session(auth=auth)


def client(api_version='1.14'):
    return http.SessionClient(make_session(), KS_FILTER,
                              api_version=api_version)


def sent(mock):
    return [(r.method, r.url, r.headers.get('OpenStack-API-Version'))
            for r in mock.request_history]


def fake_response(status, body=b'', content_type=None, reason=None):
    """A requests.Response as the session returns it."""
    response = requests.Response()
    response.status_code = status
    if isinstance(body, (dict, list)):
        body = json.dumps(body).encode()
        content_type = 'application/json'
    response._content = body.encode() if isinstance(body, str) else body
    if content_type:
        response.headers['Content-Type'] = content_type
    response.reason = reason
    response.encoding = 'utf-8'
    return response


# Negotiation.

ROOT = {'versions': [{'id': 'v1.0', 'min_version': '1.0',
                      'max_version': '1.39', 'status': 'CURRENT'}]}


@pytest.mark.parametrize('requested,ceiling', [
    ('1', '1.29'), (version.LATEST_OPTION_VALUE, '1.39')])
def test_negotiation_accepted(mock, requested, ceiling):
    mock.get(ENDPOINT + '/', json=ROOT)
    assert client(requested).api_version == ceiling
    assert sent(mock) == [('GET', ENDPOINT + '/', 'placement ' + ceiling)]
    assert mock.last_request.headers['Accept'] == 'application/json'


@pytest.mark.parametrize('requested,server_max,result', [
    ('1', '1.17', '1.17'),
    ('1', '1.0', '1.0'),
    ('1', '1.39', '1.29'),
    (version.LATEST_OPTION_VALUE, '1.36', '1.36'),
    (version.LATEST_OPTION_VALUE, '1.45', '1.39'),
])
def test_negotiation_406_falls_back_to_max_version(
        mock, requested, server_max, result):
    """An older server refuses the ceiling and names its maximum; the
    client never goes above its own ceiling."""
    mock.get(ENDPOINT + '/', status_code=406, json={'errors': [{
        'status': 406, 'title': 'Not Acceptable',
        'detail': 'Unacceptable version header', 'min_version': '1.0',
        'max_version': server_max}]})
    placement = client(requested)
    assert placement.api_version == result
    # One request; the fallback costs nothing more.
    assert len(mock.request_history) == 1


@pytest.mark.parametrize('kwargs,message', [
    ({'json': {'errors': [{'status': 406, 'title': 'Not Acceptable',
                           'detail': 'Unacceptable version header'}]}},
     'Unacceptable version header'),
    ({'json': {'errors': [{'title': 'Not Acceptable',
                           'max_version': '1.x'}]}}, 'Not Acceptable'),
    ({'json': {'errors': [{'title': 'Not Acceptable',
                           'max_version': None}]}}, 'Not Acceptable'),
    ({'json': {'errors': []}}, '{"errors": []}'),
    ({'text': '<html><body><h1>No</h1></body></html>',
      'headers': {'Content-Type': 'text/html'}}, 'No'),
    ({'text': ''}, 'Not Acceptable'),
    ({'text': '', 'reason': 'Nope'}, 'Nope'),
], ids=['no-max-version', 'bad-max-version', 'null-max-version',
        'empty-errors', 'html', 'empty', 'empty-custom-reason'])
def test_negotiation_406_without_max_version(mock, kwargs, message):
    mock.get(ENDPOINT + '/', status_code=406, **kwargs)
    with pytest.raises(exceptions.CommandError) as raised:
        client('1')
    assert str(raised.value) == (
        'Placement API version negotiation failed: the server refused '
        'version 1.29 (HTTP 406) without saying which versions it supports '
        '(%s). Pass an explicit --os-placement-api-version.' % message)
    assert len(mock.request_history) == 1


@pytest.mark.parametrize('status', [200, 300, 404, 500, 503])
def test_negotiation_other_answers_keep_the_ceiling(mock, status):
    """Only a 406 changes the version; anything else is left for the
    command's own request to meet."""
    mock.get(ENDPOINT + '/', status_code=status, text='whatever')
    assert client('1').api_version == '1.29'


@pytest.mark.parametrize('requested', version.SUPPORTED_MICROVERSIONS)
def test_explicit_version_sends_no_request(mock, requested):
    placement = client(requested)
    assert placement.api_version == requested
    assert mock.request_history == []


@pytest.mark.parametrize('requested', ['1.40', '2.0', 'abc', '', '1.05',
                                       'latest', '1.'])
def test_unsupported_version_sends_no_request(mock, requested):
    with pytest.raises(version.UnsupportedVersion) as raised:
        client(requested)
    assert str(raised.value) == (
        "Placement API version '%s' is not supported; accepted values: 1.0 "
        "to 1.39, '1' (negotiate up to 1.29) or 'latest'." % requested)
    assert mock.request_history == []


# Requests.

def test_headers_on_every_request(mock):
    mock.get(ENDPOINT + '/', json=ROOT)
    mock.get(ENDPOINT + '/resource_providers', json={})
    mock.put(ENDPOINT + '/resource_providers/x', json={})
    mock.delete(ENDPOINT + '/resource_providers/x', status_code=204)
    placement = client('1')
    placement.request('GET', '/resource_providers')
    placement.request('PUT', '/resource_providers/x', json={'name': 'n'})
    placement.request('DELETE', '/resource_providers/x')
    for request in mock.request_history:
        assert request.headers['OpenStack-API-Version'] == 'placement 1.29'
        assert request.headers['Accept'] == 'application/json'
        assert request.headers['X-Auth-Token'] == 'the-token'
    put = mock.request_history[2]
    assert put.headers['Content-Type'] == 'application/json'
    assert put.json() == {'name': 'n'}
    assert [r.method for r in mock.request_history] == [
        'GET', 'GET', 'PUT', 'DELETE']


def test_version_override_and_caller_headers(mock):
    mock.get(ENDPOINT + '/traits', json={})
    placement = client('1.14')
    placement.request('GET', '/traits', version='1.6')
    placement.request('GET', '/traits', headers={
        'OpenStack-API-Version': 'placement 1.2', 'Accept': 'text/plain',
        'X-Extra': 'yes'})
    first, second = mock.request_history
    assert first.headers['OpenStack-API-Version'] == 'placement 1.6'
    assert second.headers['OpenStack-API-Version'] == 'placement 1.2'
    assert second.headers['Accept'] == 'text/plain'
    assert second.headers['X-Extra'] == 'yes'
    # The override is for one request only.
    assert placement.api_version == '1.14'


def test_query_parameters_in_order(mock):
    mock.get(ENDPOINT + '/resource_providers', json={})
    client().request('GET', '/resource_providers', params=[
        ('resources', 'VCPU:1'), ('member_of', 'in:a,b'),
        ('member_of', '!c')])
    assert mock.last_request.url.split('?')[1] == (
        'resources=VCPU%3A1&member_of=in%3Aa%2Cb&member_of=%21c')


def test_success_returns_the_response(mock):
    mock.get(ENDPOINT + '/traits', json={'traits': ['A']},
             headers={'X-Thing': '1'})
    response = client().request('GET', '/traits')
    assert response.status_code == 200
    assert response.json() == {'traits': ['A']}
    assert response.headers['X-Thing'] == '1'


@pytest.mark.parametrize('body', ['not json', '', '<html>x</html>'])
def test_json_of_a_body_that_is_not_json(mock, body):
    mock.get(ENDPOINT + '/traits', text=body)
    response = client().request('GET', '/traits')
    with pytest.raises(http.InvalidResponse) as raised:
        response.json()
    assert isinstance(raised.value, exceptions.CommandError)
    assert str(raised.value) == (
        'Invalid response from the Placement API: GET %s/traits answered '
        'HTTP 200 with a body that is not JSON: %r'
        % (ENDPOINT, http._text_of(body)))


def test_raise_exc_false_returns_the_error(mock):
    mock.get(ENDPOINT + '/traits/X', status_code=404, text='')
    response = client().request('GET', '/traits/X', raise_exc=False)
    assert response.status_code == 404


# Error mapping.

@pytest.mark.parametrize('status,exc_class', [
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
    (503, exceptions.ClientException),
])
def test_error_status_to_exception(mock, status, exc_class):
    mock.get(ENDPOINT + '/traits', status_code=status, json={'errors': [{
        'status': status, 'title': 'T',
        'detail': 'Headline.\n\n The useful sentence.  '}]})
    with pytest.raises(exceptions.ClientException) as raised:
        client().request('GET', '/traits')
    exc = raised.value
    assert type(exc) is exc_class
    assert exc.code == status
    assert str(exc) == 'The useful sentence. (HTTP %d)' % status
    assert exc.response.status_code == status


@pytest.mark.parametrize('body,expected', [
    # Placement's JSON: the last line of the detail.
    ({'errors': [{'detail': 'A\n\n B '}]}, 'B'),
    ({'errors': [{'detail': 'One line'}]}, 'One line'),
    ({'errors': [{'detail': 'A\n\n B\n\n'}]}, 'B'),
    ({'errors': [{'title': 'Only a title'}]}, 'Only a title'),
    ({'errors': [{'detail': 'first'}, {'detail': 'second'}]}, 'first'),
    # Anything else: the body as text.
    ({'errors': [{'detail': ['x']}]}, '{"errors": [{"detail": ["x"]}]}'),
    ({'errors': ['x']}, '{"errors": ["x"]}'),
    ({'errors': {}}, '{"errors": {}}'),
    ({'message': 'm'}, '{"message": "m"}'),
    ('<p>A &amp; <b>B</b></p>', 'A & B'),
    ('<script>var x = "<p>";</script><style>p{}</style>text', 'text'),
    ('  several\n\n lines\t here ', 'several lines here'),
    ('y' * 400, 'y' * 297 + '...'),
    # No body: the reason phrase, or the standard one.
    ('', 'Reason Given'),
])
def test_error_message(body, expected):
    response = fake_response(418, body, reason='Reason Given')
    assert http.error_message(response) == expected


@pytest.mark.parametrize('status,reason,expected', [
    (503, None, 'Service Unavailable'),
    (404, '', 'Not Found'),
    (599, None, 'Error'),
])
def test_error_message_without_body_or_reason(status, reason, expected):
    assert http.error_message(fake_response(status, reason=reason)) == \
        expected


def test_exception_for_keeps_the_response():
    response = fake_response(409, {'errors': [{'detail': 'x\n\n gen'}]})
    exc = http.exception_for(response)
    assert isinstance(exc, exceptions.Conflict)
    assert exc.response is response
    assert str(exc) == 'gen (HTTP 409)'


# Failures below HTTP.

@pytest.mark.parametrize('exc,reason', [
    (requests.exceptions.ConnectTimeout('slow'), 'no answer before the '
                                                 'timeout'),
    (requests.exceptions.ReadTimeout('slow'), 'no answer before the '
                                              'timeout'),
    (requests.exceptions.SSLError('bad cert'), 'TLS handshake failed'),
    (requests.exceptions.ConnectionError(ConnectionResetError(
        104, 'reset')), 'the connection was closed by the server'),
    (requests.exceptions.ConnectionError(ConnectionRefusedError(
        111, 'refused')), 'connection refused'),
])
def test_transport_errors(mock, exc, reason):
    mock.get(ENDPOINT + '/traits', exc=exc)
    with pytest.raises(http.ConnectionFailed) as raised:
        client().request('GET', '/traits')
    assert isinstance(raised.value, exceptions.CommandError)
    assert str(raised.value) == (
        'Unable to reach the Placement API at %s/traits: %s.'
        % (ENDPOINT, reason))


def test_unrecognised_transport_error_in_one_line(mock):
    mock.get(ENDPOINT + '/traits', exc=requests.exceptions.ConnectionError(
        'something odd\nsecond line'))
    with pytest.raises(http.ConnectionFailed) as raised:
        client().request('GET', '/traits')
    message = str(raised.value)
    assert message.startswith(
        'Unable to reach the Placement API at %s/traits: ' % ENDPOINT)
    assert 'something odd' in message
    assert '\n' not in message
