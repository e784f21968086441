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

"""The one place that talks HTTP to Placement.

Headers, microversion negotiation, and the translation of every error (an
HTTP status, a body that is not what Placement sends, a network failure)
into one line that names what happened.
"""

from concurrent import futures
import errno
import html
import http.client
import json
import logging
import re
import socket
import ssl

from keystoneauth1 import exceptions as ks_exceptions
from osc_lib import exceptions
import requests

from osc_placement.text import printable
from osc_placement import version

LOG = logging.getLogger(__name__)

_http_error_to_exc = {
    cls.http_status: cls
    for cls in exceptions.ClientException.__subclasses__()
}

# Error text taken from a body that is not Placement's JSON (an HTML page
# from a proxy, say) is cut to this many characters.
MAX_TEXT_ERROR = 300

# Patterns, compiled by re (and cached) the first time an error needs them.
_TAG_RE = r'(?is)<(script|style|head)\b.*?</\1\s*>|<[^>]*>'
_BLANKS_RE = r'\s+'
# A JSON-schema error of a request body: the reason, then the schema dump.
# (Errors of the query string keep the reference's text.)
_BODY_SCHEMA_ERROR = 'JSON does not validate:'
_SCHEMA_DUMP_RE = r'\s+Failed validating\b.*$'
_INSTANCE_RE = r'\bOn instance((?:\[[^\]]*\])+)'
_INDEX_RE = r"\['((?:[^'\\]|\\.)*)'\]|\[(\d+)\]"


class InvalidResponse(exceptions.CommandError):
    """A successful response whose body is not the JSON Placement sends."""


class ConnectionFailed(exceptions.CommandError):
    """The request never got an HTTP answer."""


def _text_of(body):
    """Plain text of an HTML or text body, on one line."""
    text = re.sub(_TAG_RE, ' ', body)
    text = printable(re.sub(_BLANKS_RE, ' ', html.unescape(text)).strip())
    if len(text) > MAX_TEXT_ERROR:
        text = text[:MAX_TEXT_ERROR - 3].rstrip() + '...'
    return text


def _detail_from_json(body):
    """Placement's own error detail, or None if the body is not its shape.

    Also reads the ``{"error": {"message": ...}}`` body of keystonemiddleware
    (what an invalid token gets).
    """
    if not isinstance(body, dict):
        return None
    error = body.get('error')
    if isinstance(error, dict) and isinstance(error.get('message'), str):
        return printable(re.sub(_BLANKS_RE, ' ', error['message']).strip()) \
            or None
    errors = body.get('errors')
    if not isinstance(errors, list) or not errors:
        return None
    first = errors[0]
    if not isinstance(first, dict):
        return None
    detail = first.get('detail') or first.get('title')
    if not isinstance(detail, str):
        return None
    # Placement puts a generic headline first and the useful sentence on the
    # last line: keep the last line, as the reference does.
    lines = [printable(line.strip()) for line in detail.split('\n')]
    non_empty = [line for line in lines if line]
    return _without_schema(non_empty[-1]) if non_empty else None


def _without_schema(detail):
    """A JSON-schema error cut to its reason and the field it is about.

    ``... 0 is less than the minimum of 1  Failed validating 'minimum' in
    schema[...]: {...}  On instance['inventories']['VCPU']['total']: 0``
    becomes ``... 0 is less than the minimum of 1 (field
    inventories/VCPU/total)``. Any other detail is returned as it is.
    """
    if not detail.startswith(_BODY_SCHEMA_ERROR):
        return detail
    reason = re.sub(_SCHEMA_DUMP_RE, '', detail, flags=re.S)
    instance = re.search(_INSTANCE_RE, detail)
    if instance:
        path = [key or index for key, index
                in re.findall(_INDEX_RE, instance.group(1))]
        reason = '%s (field %s)' % (reason, '/'.join(path))
    return reason


def error_message(response):
    """One line describing a failed response, without the status suffix."""
    try:
        body = json.loads(response.content) if response.content else None
    except ValueError:
        body = None
    detail = _detail_from_json(body)
    if detail is None and response.content:
        detail = _text_of(response.text)
    if not detail:
        detail = response.reason or http.client.responses.get(
            response.status_code, 'Error')
    return detail


def error_code(response):
    """Placement's machine-readable error code (1.23+), or None.

    For example ``placement.concurrent_update``.
    """
    try:
        return response.json()['errors'][0].get('code')
    except (exceptions.CommandError, LookupError, TypeError,
            AttributeError, ValueError):
        return None


def exception_for(response):
    """The osc-lib exception for an HTTP error response.

    Its text is ``<message> (HTTP <status>)``, as the reference prints it.
    ``.response`` is the response and ``.error_code`` Placement's code.
    """
    status = response.status_code
    message = error_message(response)
    exc_class = _http_error_to_exc.get(status, exceptions.ClientException)
    exc = exc_class(status, message)
    exc.response = response
    exc.error_code = error_code(response)
    return exc


_KINDS = {list: 'a list', dict: 'an object'}
_UNSET = object()


class Response(object):
    """The answer to one request: status, headers, and the body as JSON.

    Wraps the ``requests.Response`` without changing it. ``json()``,
    ``json_object()`` and ``field()`` read the body and raise
    :class:`InvalidResponse`, one line naming the request and what was
    wrong, when it is not what Placement sends.
    """

    def __init__(self, method, response):
        self.method = method
        self.status_code = response.status_code
        self.url = response.url
        self.reason = response.reason
        self.headers = response.headers
        self._response = response
        self._body = _UNSET

    @property
    def content(self):
        return self._response.content

    @property
    def text(self):
        return self._response.text

    def json(self):
        """The body parsed as JSON (once)."""
        if self._body is _UNSET:
            try:
                self._body = self._response.json()
            except ValueError:
                raise self.invalid('a body that is not JSON: %r'
                                   % _text_of(self.text or '')[:80])
        return self._body

    def json_object(self):
        """The body, which must be a JSON object: a dict."""
        body = self.json()
        if not isinstance(body, dict):
            raise self.invalid('JSON that is not an object')
        return body

    def field(self, key, kind=None, default=_UNSET):
        """``body[key]``, checked to be of type ``kind`` if given.

        Without ``default`` a missing key is an invalid response; with it,
        only a body that is not an object is.
        """
        body = self.json()
        if not isinstance(body, dict) or key not in body:
            if default is not _UNSET and isinstance(body, dict):
                return default
            raise self.invalid('JSON without the %r key' % key)
        value = body[key]
        if kind is not None and not isinstance(value, kind):
            raise self.invalid('JSON whose %r is not %s'
                               % (key, _KINDS.get(kind, kind.__name__)))
        return value

    def header(self, name):
        """The value of a header that the answer must carry."""
        value = self.headers.get(name)
        if not value:
            raise self.invalid('no %s header' % name)
        return value

    def invalid(self, what):
        """The error for a body this client cannot use."""
        return InvalidResponse(
            'Invalid response from the Placement API: %s %s answered HTTP '
            '%s with %s' % (self.method, self.url, self.status_code, what))


def _walk_causes(exc):
    seen = set()
    stack = [exc]
    while stack:
        current = stack.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        stack.append(current.__cause__)
        stack.append(current.__context__)
        stack.extend(a for a in getattr(current, 'args', ())
                     if isinstance(a, BaseException))
        stack.append(getattr(current, 'reason', None)
                     if isinstance(getattr(current, 'reason', None),
                                   BaseException) else None)


def _describe_transport_error(exc):
    """A short reason for a failure below HTTP, from the exception chain."""
    causes = list(_walk_causes(exc))
    for cause in causes:
        if isinstance(cause, socket.gaierror) or \
                type(cause).__name__ == 'NameResolutionError':
            return 'the host name could not be resolved'
    for cause in causes:
        if isinstance(cause, ConnectionRefusedError) or (
                isinstance(cause, OSError)
                and cause.errno == errno.ECONNREFUSED):
            return 'connection refused'
    tls = [c for c in causes if isinstance(c, ssl.SSLError)]
    if tls or any(isinstance(c, ks_exceptions.SSLError) for c in causes):
        # The innermost ssl error says why; keystoneauth's wrapper does not.
        reason = ''
        for cause in tls:
            if isinstance(cause, ssl.SSLCertVerificationError):
                reason = cause.verify_message or cause.reason or ''
                break
            reason = reason or cause.reason or ''
        return 'TLS handshake failed%s' % (
            ' (%s)' % str(reason).lower().replace('_', ' ')
            if reason else '')
    for cause in causes:
        if isinstance(cause, (socket.timeout, TimeoutError,
                              requests.exceptions.Timeout,
                              ks_exceptions.ConnectTimeout)):
            return 'no answer before the timeout'
    for cause in causes:
        if isinstance(cause, (ConnectionResetError, BrokenPipeError)):
            return 'the connection was closed by the server'
        if type(cause).__name__ in ('RemoteDisconnected',
                                    'ProtocolError'):
            return 'the connection was closed before an answer came'
    return str(exc).split('\n')[0]


def _is_version_document(resp):
    """Whether a response carries the version document of Placement's root.

    ``{"versions": [{"id": "v1.0", "min_version": ..., "max_version":
    ...}]}``; other services' roots name no ``max_version``.
    """
    try:
        body = resp.json()
    except InvalidResponse:
        return False
    versions = body.get('versions') if isinstance(body, dict) else None
    return isinstance(versions, list) and any(
        isinstance(v, dict) and isinstance(v.get('max_version'), str)
        for v in versions)


class SessionClient(object):
    """Placement requests through a keystoneauth session.

    ``api_version`` is the microversion every request carries; when the user
    asked for a negotiation value ('1' or 'latest') it is set by asking the
    server once, here.
    """

    def __init__(self, session, ks_filter, api_version='1.0', timeout=None,
                 parallel=None):
        self.session = session
        self.ks_filter = ks_filter
        self.timeout = timeout
        # Requests in flight at once for batches (see each()); None: the
        # command's own default.
        self.parallel = parallel
        self.negotiate_api_version(api_version)

    def each(self, work, items, default=1):
        """``work(item)`` for every item, up to N at a time, in item order.

        N is the ``--os-placement-parallel`` value, else ``default``. With
        N = 1 the items are done one after another, in order. Returns a
        list with one ``(result, error)`` pair per item, in the order of
        ``items`` whatever order they finished in: ``error`` is the
        osc-lib exception an item failed with (an HTTP error, a network
        failure, an invalid answer), else None. Any other exception is a
        bug and propagates.
        """
        items = list(items)

        def one(item):
            try:
                return work(item), None
            except (exceptions.ClientException,
                    exceptions.CommandError) as exc:
                return None, exc

        workers = min(self.parallel or default, len(items))
        if workers <= 1:
            return [one(item) for item in items]
        self._prepare_for(workers)
        with futures.ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(one, items))

    def _prepare_for(self, workers):
        """Authenticate once, and let the pool keep ``workers`` connections.

        Without this, each thread could ask for its own token, and
        connections beyond the pool's size would be opened and dropped for
        every request.
        """
        if self.session.auth is not None:
            try:
                self.session.get_auth_headers()
            except ks_exceptions.ClientException as exc:
                # Each request then meets the same failure and reports it
                # in one line, as it would have without the batch.
                LOG.debug('Authentication before a batch failed: %s', exc)
        transport = getattr(self.session, 'session', None)
        for prefix, adapter in list(getattr(transport, 'adapters',
                                            {}).items()):
            if getattr(adapter, '_pool_maxsize', workers) < workers:
                transport.mount(prefix, type(adapter)(
                    pool_connections=workers, pool_maxsize=workers,
                    max_retries=adapter.max_retries))

    def request(self, method, url, **kwargs):
        """Send one request; return its :class:`Response`.

        An error status raises the osc-lib exception of
        :func:`exception_for`, unless ``raise_exc=False``; a failure below
        HTTP raises :class:`ConnectionFailed`.
        """
        version_override = kwargs.pop('version', None)
        raise_exc = kwargs.pop('raise_exc', True)
        headers = kwargs.pop('headers', {})
        headers.setdefault(
            'OpenStack-API-Version',
            '%s %s' % (self.ks_filter['service_type'],
                       version_override or self.api_version))
        headers.setdefault('Accept', 'application/json')
        if self.timeout:
            kwargs.setdefault('timeout', self.timeout)
        try:
            response = self.session.request(
                url, method, headers=headers,
                endpoint_filter=self.ks_filter, raise_exc=False, **kwargs)
        except (ks_exceptions.ConnectionError,
                requests.exceptions.RequestException) as exc:
            raise ConnectionFailed(
                'Unable to reach the Placement API%s: %s.'
                % (self._where(url), _describe_transport_error(exc))
            ) from exc
        response = Response(method, response)
        if raise_exc and response.status_code >= 400:
            raise exception_for(response)
        return response

    def _endpoint(self):
        """The Placement endpoint without a trailing '/', or '' if unknown."""
        try:
            endpoint = self.session.get_endpoint(**self.ks_filter)
        except Exception:
            return ''
        return endpoint.rstrip('/') if endpoint else ''

    def _where(self, url):
        """' at <endpoint><url>' for error messages, or '' if unknown."""
        endpoint = self._endpoint()
        return ' at %s%s' % (endpoint, url) if endpoint else ''

    def _check_root(self, resp):
        """Refuse an endpoint whose ``GET /`` is not Placement's root.

        A 404, or a success without Placement's version document (a
        ``versions`` list naming a ``max_version``), means the endpoint
        points elsewhere: every command would meet a 404 there, and a
        delete would look like "already gone". Other errors are left to
        the command's own request.
        """
        if resp.status_code == 404:
            what = 'HTTP 404 (%s)' % error_message(resp)
        elif 200 <= resp.status_code < 300 and not _is_version_document(
                resp):
            what = ('HTTP %d without the version document of Placement'
                    % resp.status_code)
        else:
            return
        raise exceptions.CommandError(
            'No Placement API at %s: GET / answered %s.'
            % (self._endpoint() or resp.url, what))

    def negotiate_api_version(self, api_version):
        """Set ``self.api_version``, asking the server if needed.

        An explicit microversion is used as is, without a request. A
        negotiation value sends ``GET /`` with its ceiling (1.29 for '1',
        1.39 for 'latest'); a 406 answer names the server's maximum.
        """
        api_version = version.validate(api_version)
        if api_version not in version.NEGOTIATE_VERSIONS:
            self.api_version = api_version
            return
        ceiling = version.NEGOTIATION_CEILING[api_version]
        self.api_version = ceiling
        resp = self.request('GET', '/', raise_exc=False)
        self._check_root(resp)
        if resp.status_code != 406:
            return
        server_max = None
        try:
            server_max = resp.json()['errors'][0]['max_version']
            version.parse(server_max)
        except (exceptions.CommandError, LookupError, TypeError, ValueError):
            raise exceptions.CommandError(
                'Placement API version negotiation failed: the server '
                'refused version %s (HTTP 406) without saying which '
                'versions it supports (%s). Pass an explicit '
                '--os-placement-api-version.'
                % (ceiling, error_message(resp)))
        if version.parse(server_max) < version.parse(ceiling):
            self.api_version = server_max
        LOG.debug('Microversion %s not supported in server. '
                  'Falling back to microversion %s', ceiling,
                  self.api_version)
