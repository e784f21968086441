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

``SessionClient`` sends every request through the keystoneauth session
(headers, microversion, timeout), negotiates the microversion when the
user asked for it, and raises the one-line exceptions of ``errors.py``
for every failure. ``responses.Response`` reads the body of an answer,
checking its shape where it is read, or as it arrives (``read=``).

What it does per request is kept to what the request needs (issue 33):
the endpoint is looked up once; keystoneauth is asked not to build its
debug lines when no log handler would write them; and during a batch
the environment (proxies, CA bundle, ``.netrc``), which requests reads
again for every request, is read once by a session of the batch's own
(:meth:`SessionClient.batch_environment`); the one OpenStackClient gave,
which other threads use, is left as it is. The requests on the wire are
the same.
"""

import contextlib
import logging
import urllib.parse

from keystoneauth1 import exceptions as ks_exceptions
from keystoneauth1 import noauth
from keystoneauth1 import session as ks_session
from keystoneauth1 import token_endpoint
from osc_lib import exceptions
import requests

from osc_placement import errors
from osc_placement.http import inflight
from osc_placement.http import responses
from osc_placement import microversions
from osc_placement.model.text import printable
from osc_placement import version

LOG = logging.getLogger(__name__)


# The loggers of keystoneauth's request and response lines: one, or one
# per part when the session splits them (split_loggers).
KEYSTONEAUTH_LOGGERS = ('keystoneauth1.session',
                        'keystoneauth1.session.request',
                        'keystoneauth1.session.response',
                        'keystoneauth1.session.body',
                        'keystoneauth1.session.request-id')
# Auth plugins of a fixed endpoint that send no request of their own (a
# fixed token, or none): the endpoint is looked up once, and while a batch
# reads the environment once no token request can miss it. With the
# others (Keystone's), both are read for every request.
_SILENT_AUTH = (token_endpoint.Token, noauth.NoAuth)


def without_catalog(session):
    """Whether the session's auth gives one fixed endpoint and no catalog.

    ``--os-auth-type admin_token`` and ``none``: no other service's
    endpoint can be looked up.
    """
    return isinstance(session.auth, _SILENT_AUTH)


def writes_debug(name):
    """Whether a DEBUG record of the logger ``name`` would be written.

    True when the logger is enabled for DEBUG and a handler on its way
    up (as far as records propagate) takes DEBUG records: ``--debug``,
    ``-v -v``, a log file at debug, a test capturing the logs. osc-lib
    enables the root logger for DEBUG and filters in its handlers, so
    the logger's own level alone does not say.
    """
    logger = logging.getLogger(name)
    if not logger.isEnabledFor(logging.DEBUG):
        return False
    while logger is not None:
        if any(handler.level <= logging.DEBUG
               for handler in logger.handlers):
            return True
        if not logger.propagate:
            break
        logger = logger.parent
    return False


class NetrcAuth(requests.auth.AuthBase):
    """The ``.netrc`` credentials of each host, looked up once per host.

    What requests does for each request when it trusts the environment
    (``requests.utils.get_netrc_auth``, then HTTP basic auth), for the
    requests of a batch, whose session does not.
    """

    def __init__(self):
        self.found = {}   # netloc -> (user, password) or None

    def __call__(self, request):
        host = urllib.parse.urlsplit(request.url).netloc
        if host not in self.found:
            self.found[host] = requests.utils.get_netrc_auth(request.url)
        if self.found[host]:
            return requests.auth.HTTPBasicAuth(*self.found[host])(request)
        return request


# The settings of a requests.Session (its documented attributes) that a
# batch's own session shares with the one it stands in for: the same
# headers, cookies and hooks, and the same transport adapters, whose
# connection pools the batch uses too.
_SHARED_SETTINGS = ('headers', 'cookies', 'auth', 'hooks', 'params',
                    'stream', 'cert', 'max_redirects', 'adapters')


def _batch_session(session, url):
    """A keystoneauth session sending as ``session`` does, for a batch.

    Its requests.Session reads the environment once, for ``url`` (the
    Placement endpoint), through requests' own
    ``merge_environment_settings()``: the proxies (``*_proxy``,
    ``no_proxy``), the CA bundle (``REQUESTS_CA_BUNDLE``,
    ``CURL_CA_BUNDLE``); and the ``.netrc`` credentials once per host
    (:class:`NetrcAuth`), unless the session has an auth of its own.
    Then it does not trust the environment: requests would read it again
    for every request. Everything else is ``session``'s: its auth plugin,
    its settings, its requests.Session's settings and transport adapters.

    None where that cannot be copied whole (a session of another kind), or
    where the environment is not trusted: then the batch sends through
    ``session`` itself.
    """
    shared = session.session
    if type(session) is not ks_session.Session or \
            type(shared) is not requests.Session or not shared.trust_env:
        return None
    settings = shared.merge_environment_settings(url, {}, None,
                                                 session.verify, None)
    own = requests.Session()
    for setting in _SHARED_SETTINGS:
        setattr(own, setting, getattr(shared, setting))
    own.trust_env = False
    own.proxies = settings['proxies']
    own.verify = settings['verify']
    if own.auth is None:
        own.auth = NetrcAuth()
    batch = ks_session.Session(
        auth=session.auth, session=own, original_ip=session.original_ip,
        verify=settings['verify'], cert=session.cert,
        timeout=session.timeout, redirect=session.redirect,
        additional_headers=session.additional_headers,
        app_name=session.app_name, app_version=session.app_version,
        additional_user_agent=session.additional_user_agent,
        collect_timing=True)
    # The whole User-Agent header the session sends, as it is.
    batch.user_agent = session.user_agent
    return batch


def _is_version_document(resp):
    """Whether a response carries the version document of Placement's root.

    ``{"versions": [{"id": "v1.0", "min_version": ..., "max_version":
    ...}]}``; other services' roots name no ``max_version``.
    """
    try:
        body = resp.json()
    except errors.InvalidResponse:
        return False
    versions = body.get('versions') if isinstance(body, dict) else None
    return isinstance(versions, list) and any(
        isinstance(v, dict) and isinstance(v.get('max_version'), str)
        for v in versions)


def _server_maximum(resp):
    """The highest ``max_version`` of a version document, or None.

    Only for the debug line: an answer that is not a version document
    has been refused by ``_check_root`` or left to the commands.
    """
    if not _is_version_document(resp):
        return None
    for entry in resp.json()['versions']:
        if isinstance(entry, dict) and isinstance(
                entry.get('max_version'), str):
            return entry['max_version']


def _parsed_or_none(text):
    """``text`` if it is a microversion, else None (a maximum unknown)."""
    try:
        version.parse(text)
    except (TypeError, ValueError):
        return None
    return text


def _with_pools(adapter, size):
    """A copy of a transport adapter whose pools keep ``size`` connections.

    requests' own adapter and keystoneauth's (which sets TCP keep-alive,
    and the session's ``tls_min_version`` and ``tls_ciphers``) are copied
    with every setting they take; None for an adapter of another kind,
    which is left as it is rather than copied without its settings.
    """
    kwargs = {'pool_connections': size, 'pool_maxsize': size,
              'max_retries': adapter.max_retries,
              'pool_block': adapter.poolmanager.connection_pool_kw.get(
                  'block', requests.adapters.DEFAULT_POOLBLOCK)}
    if type(adapter) is ks_session.TCPKeepAliveAdapter:
        for setting in ('tls_ciphers', 'tls_min_version'):
            if hasattr(adapter, setting):
                kwargs[setting] = getattr(adapter, setting)
    elif type(adapter) is not requests.adapters.HTTPAdapter:
        LOG.debug('Connection pools left at their size: %r is not an '
                  'adapter this client knows how to copy', adapter)
        return None
    return type(adapter)(**kwargs)


def _widen_pools(session, workers):
    """Mount on ``session`` adapters whose pools keep ``workers``.

    Each transport adapter is replaced by one of its own kind with the
    same settings (``_with_pools()``), the same replacement for every
    prefix it served, and then closed.
    """
    replaced = {}   # id of an adapter -> (adapter, its replacement)
    for prefix, adapter in list(session.adapters.items()):
        if id(adapter) not in replaced:
            replaced[id(adapter)] = (adapter, _with_pools(adapter, workers))
        bigger = replaced[id(adapter)][1]
        if bigger is not None:
            session.mount(prefix, bigger)
    for adapter, bigger in replaced.values():
        if bigger is not None:
            adapter.close()


class SessionClient(object):
    """Placement requests through a keystoneauth session.

    ``api_version`` is the microversion every request carries; when the user
    asked for a negotiation value ('1' or 'latest') it is set by asking the
    server once, here.
    """

    def __init__(self, session, ks_filter, api_version=microversions.BASE,
                 timeout=None, parallel=None):
        self.session = session
        self.ks_filter = ks_filter
        self.timeout = timeout
        # Requests in flight at once for batches (see batch.run()); None:
        # the command's own default.
        self.parallel = parallel
        # The connections the session's pools keep per host (requests'
        # default until allow_parallel() mounts bigger pools).
        self._pool_size = requests.adapters.DEFAULT_POOLSIZE
        # The endpoint, once known, without its trailing '/'.
        self._base_url = None
        # During a batch: the keystoneauth session that sends the
        # requests (see batch_environment()), or None.
        self._batch = None
        # Whether keystoneauth is to build its debug lines of each request
        # and response: only if a handler writes them. Logging is set up
        # (by osc-lib, from --debug, -v and --log-file) before the client
        # is made, and looking at the handlers for every request costs
        # more than the request's own work.
        self._log_http = any(writes_debug(name)
                             for name in KEYSTONEAUTH_LOGGERS)
        self.negotiate_api_version(api_version)

    def allow_parallel(self, workers):
        """Get ready for ``workers`` requests in flight at once.

        Authenticates once, so that each thread does not ask for a token
        of its own, and lets the connection pool of each scheme keep
        ``workers`` connections, so that connections beyond the pool's
        size are not opened and dropped for every request.
        """
        if self.session.auth is not None:
            try:
                self.session.get_auth_headers()
            except ks_exceptions.ClientException as exc:
                # Each request then meets the same failure and reports it
                # in one line, as it would have without the batch.
                LOG.debug('Authentication before a batch failed: %s', exc)
        if workers > self._pool_size:
            _widen_pools(self.session, workers)
            self._pool_size = workers

    @contextlib.contextmanager
    def batch_environment(self):
        """Read the environment once for the requests inside the block.

        requests merges the environment into every request when its
        session trusts it: the proxies (``*_proxy``, ``no_proxy``, read
        by scanning every environment variable, twice), the CA bundle
        (``REQUESTS_CA_BUNDLE``, ``CURL_CA_BUNDLE``) and the ``.netrc``
        credentials of the host. Inside the block, this client's requests
        are sent by a session of the batch's own (:func:`_batch_session`)
        that read them once, for the Placement endpoint. The session this
        client was given is left as it is: other threads (the compute
        reads of OpenStackClient's connection) send through it meanwhile,
        with the environment. At the end, the timings of the batch's
        requests join the session's (``--timing``).

        Only with an auth plugin of a fixed endpoint that sends no request
        of its own (``--os-auth-type admin_token`` or ``none``): a Keystone
        token requested in the middle of the batch would miss the
        environment, so with Keystone nothing changes.
        """
        batch = None
        if self._batch is None and self._base() is not None:
            batch = _batch_session(self.session, self._base() + '/')
        if batch is None:
            # Inside a batch already, Keystone's auth, or a session that
            # cannot be copied: as without a batch.
            yield
            return
        self._batch = batch
        try:
            yield
        finally:
            self._batch = None
            self.session.get_timings().extend(batch.get_timings())

    def _base(self):
        """The fixed endpoint without its trailing '/', or None.

        keystoneauth looks the endpoint up for every request given as a
        path; a request given as an absolute URL goes there as it is.
        With an auth plugin of a fixed endpoint (``--os-endpoint``), it is
        looked up once. With Keystone's, each request still looks it up
        in the catalog of the current token, which a new token can
        change.
        """
        if self._base_url is None and isinstance(self.session.auth,
                                                 _SILENT_AUTH):
            endpoint = self.session.get_endpoint(**self.ks_filter)
            # One that is not a URL is left to keystoneauth and requests,
            # which refuse it in their words.
            if endpoint and urllib.parse.urlsplit(endpoint).netloc:
                self._base_url = endpoint.rstrip('/')
        return self._base_url

    def request(self, method, url, read=None, **kwargs):
        """Send one request; return its :class:`Response`.

        An error status raises the osc-lib exception of
        :func:`exception_for`, unless ``raise_exc=False``; a failure below
        HTTP raises :class:`ConnectionFailed` (:class:`OutcomeUnknown`: a
        write that may have been sent, see :func:`_failure`); a signal
        during a write, :class:`errors.Interrupted`. With a timeout, it
        bounds the whole wait (``http/inflight.py``), the reading of the
        body by ``read(chunks)`` as it arrives too: the answer's
        ``streamed`` (``responses.read_streamed``).

        ``url`` is a path below the endpoint, sent to the endpoint's URL
        joined as keystoneauth joins them; keystoneauth still gets the
        endpoint filter (its debug lines name the service from it).
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
        kwargs.setdefault('log', self._log_http)

        send = _sender(self, method, url, read, dict(kwargs, headers=headers))
        # A write of the main thread notes signals: see inflight.Signals.
        signals = inflight.Signals() if errors.is_write(method) and \
            inflight.on_main_thread() else None
        failure = raw = streamed = None
        with signals or contextlib.nullcontext():
            try:
                raw, streamed = inflight.wait_for(
                    send, self.timeout or getattr(self.session, 'timeout',
                                                  None), signals)
            except inflight.SignalledAgain as again:
                raise errors.write_left_in_flight(
                    again.signum, method, url, kwargs.get('json')) from None
            except Exception as exc:
                failure = _failure(self, exc, method, url,
                                   kwargs.get('json'))
                if failure is None:
                    raise
                failure.__cause__ = exc
        if signals is not None and signals.caught is not None:
            raise errors.write_interrupted(signals.caught, raw, failure)
        if failure is not None:
            raise failure
        response = responses.Response(method, raw, streamed)
        if raise_exc and response.status_code >= 400:
            raise errors.exception_for(response)
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
            what = 'HTTP 404 (%s)' % errors.error_message(resp)
        elif 200 <= resp.status_code < 300 and not _is_version_document(
                resp):
            what = ('HTTP %d without the version document of Placement'
                    % resp.status_code)
        else:
            return
        raise exceptions.CommandError(
            'No Placement API at %s: GET %s answered %s.'
            % (self._endpoint() or resp.url, resp.url, what))

    def raise_for(self, needed, what):
        """``needed`` where the default negotiation may: see raise_for()."""
        raise_for(self, needed, what)

    def negotiate_api_version(self, api_version):
        """Set ``self.api_version``, asking the server if needed.

        An explicit microversion is used as is, without a request. A
        negotiation value sends ``GET /`` with its ceiling (1.29 for '1',
        1.39 for 'latest'); a 406 answer names the server's maximum.
        """
        api_version = version.validate(api_version)
        # Only the default ('1') may go above its ceiling: raise_for().
        self.may_raise = api_version == version.NEGOTIATE_VERSION
        self.server_maximum = None
        if api_version not in version.NEGOTIATE_VERSIONS:
            self.api_version = api_version
            return
        ceiling = version.NEGOTIATION_CEILING[api_version]
        self.api_version = ceiling
        resp = self.request('GET', '/', raise_exc=False)
        self._check_root(resp)
        if resp.status_code != 406:
            self.server_maximum = _parsed_or_none(_server_maximum(resp))
            _log_negotiated(self, self.server_maximum)
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
                % (ceiling, errors.error_message(resp)))
        self.server_maximum = server_max
        if version.parse(server_max) < version.parse(ceiling):
            self.api_version = server_max
        LOG.debug('Microversion %s not supported in server. '
                  'Falling back to microversion %s', ceiling,
                  self.api_version)
        _log_negotiated(self, server_max)


def _sender(client, method, url, read, kwargs):
    """The call that sends one request of ``client``: (raw, streamed).

    The answer of requests, and what ``read`` made of its body as it
    arrived (None: no reader, or an error status).
    """
    session = client._batch or client.session
    # requests' response hooks, run once the status and headers are in,
    # before the body is read: the session's own, then ours.
    hooks = getattr(getattr(session, 'session', None), 'hooks', None) or {}
    own = hooks.get('response') or []
    hooks = dict(hooks, response=([own] if callable(own) else list(own))
                 + [responses.shut_if_abandoned])

    def send():
        raw = session.request(
            _joined(client._base(), url), method,
            endpoint_filter=client.ks_filter, raise_exc=False,
            stream=read is not None, hooks=hooks, **kwargs)
        return raw, responses.read_streamed(method, raw, read)
    return send


def _joined(base_url, url):
    """``url`` below ``base_url`` (None: as it is, for keystoneauth)."""
    if base_url is not None and not urllib.parse.urlsplit(url).netloc:
        return '%s/%s' % (base_url, url.lstrip('/'))
    return url


def _failure(client, exc, method, url, body):
    """The errors.py exception of ``client``'s failure below HTTP, or None.

    None: ``exc`` is no failure of the transport (a bug: it propagates).
    A write that may have reached the server before its answer was lost
    (or the deadline passed) is :class:`errors.OutcomeUnknown`; one
    certainly not sent, as any read, :class:`errors.ConnectionFailed`.
    """
    # Whether the server was reached and its answer did not come whole:
    # the deadline passed (requests, given the same timeout to connect,
    # fails first when no connection is made), or a read timed out.
    incomplete = False
    if isinstance(exc, inflight.PastDeadline):
        reason = errors.INCOMPLETE_ANSWER
        incomplete = True
        # Left in flight: it may still reach the server.
        unknown = errors.is_write(method)
    elif isinstance(exc, (ks_exceptions.ConnectionError,
                          requests.exceptions.RequestException)):
        if errors.is_not_a_url(exc):
            return errors.ConnectionFailed(
                'The Placement endpoint %r is not an HTTP(S) URL: give '
                'one such as %s.' % (printable(client._endpoint() or url),
                                     errors.ENDPOINT_EXAMPLE))
        reason = errors.describe_transport_error(exc).rstrip('.')
        incomplete = errors.answer_incomplete(exc)
        unknown = errors.is_write(method) and not errors.nothing_sent(
            exc, method, url)
    elif isinstance(exc, ks_exceptions.ClientException):
        # keystoneauth's own failures before the request is sent: a
        # token it could not get (authentication, discovery of the
        # identity API), an endpoint missing from the catalog. In the
        # words keystoneauth gives, as one request of a batch that
        # could not reach Placement.
        return errors.ConnectionFailed(
            printable(str(exc) or type(exc).__name__))
    else:
        return None
    if unknown:
        return errors.outcome_unknown(
            method, (client._endpoint() or '') + url, reason,
            errors.write_checks(method, url, body))
    return errors.ConnectionFailed(
        '%s the Placement API%s: %s.'
        % ('Reached' if incomplete else 'Unable to reach',
           client._where(url), reason))


def raise_for(client, needed, what):
    """Use ``needed`` if the default negotiation may and the server can.

    Where the user did not pin a version ('1'), a command or option that
    the reference plugin never had gets the microversion its request
    needs instead of the reference's default, up to the server's maximum
    (``client``: a :class:`SessionClient`); the reference's own commands
    and options never ask. A pinned version, 'latest' (already the
    server's maximum) or a version at least ``needed`` is left as it is.
    ``what`` names the need in the --debug line.
    """
    current = client.api_version
    if not client.may_raise or \
            client.server_maximum is None or \
            version.parse(needed) <= version.parse(current):
        return
    chosen = min(needed, client.server_maximum, key=version.parse)
    if version.parse(chosen) <= version.parse(current):
        return
    LOG.debug('Placement API microversion %s instead of %s: %s needs %s '
              '(server maximum %s)', chosen, current, what, needed,
              client.server_maximum)
    client.api_version = chosen


def _log_negotiated(client, server_max):
    """The --debug line of the microversion a negotiation chose."""
    LOG.debug('Negotiated Placement API microversion %s (server maximum %s)',
              client.api_version, server_max or 'unknown')
