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

"""What Placement's failures say, in one line.

Every failure a request can meet is turned into an osc-lib exception whose
text is one line: an HTTP error status (:func:`exception_for`, from
Placement's JSON error body, keystonemiddleware's, or the text of any other
body, HTML stripped), an answer this client cannot use
(:class:`InvalidResponse`) and a failure below HTTP
(:class:`ConnectionFailed`, with :func:`describe_transport_error` saying
why; :class:`OutcomeUnknown` for a write that may have reached the server
before its answer was lost, :func:`nothing_sent` telling them apart, with
:func:`write_checks` saying how to check), and a signal during a write
(:class:`Interrupted`). ``http.py`` sends the requests and raises these.
"""

import errno
import html
import http.client
import json
import re
import socket
import ssl
from urllib import parse as urlparse

from keystoneauth1 import exceptions as ks_exceptions
from osc_lib import exceptions
import requests
from urllib3 import exceptions as urllib3_exceptions

from osc_placement.model.text import printable

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


class OutcomeUnknown(ConnectionFailed):
    """A write whose answer was lost: it may or may not have happened.

    ``detail``: what became of it and how to check, for a line of a
    batch's report, which names the item itself.
    """

    def __init__(self, message, detail):
        super().__init__(message)
        self.detail = detail


class Interrupted(exceptions.CommandError):
    """A signal stopped the command; ``signum``: which.

    The command framework writes the message and exits with 128 + the
    signal's number. ``write``: for a write the signal came during, what
    became of it (``'sent and accepted'``, with the refusal or reason
    after a colon), else None.
    """

    def __init__(self, message, signum, write=None):
        super().__init__(message)
        self.signum = signum
        self.write = write


def text_of(body):
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
        detail = text_of(response.text)
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


# Placement's code of a write that lost a race (1.23+): the generation
# sent is no longer the consumer's or the provider's.
CONCURRENT_UPDATE = 'placement.concurrent_update'
# What to do when a consumer or a provider changed since it was read.
CHANGED_ADVICE = {
    'consumer': 'Consumer %(name)s changed since it was read: read it '
                'again with "openstack resource provider allocation show '
                '%(name)s", then retry',
    'provider': 'Resource provider %(name)s changed since it was read: '
                'read it again with "openstack resource provider show '
                '%(name)s", then run the command again',
}
# The thing a request path names: the consumer (``/allocations/<consumer>``),
# else the provider.
_GUIDANCE = (
    (r'/allocations/([^/?#]+)', 'consumer'),
    (r'/resource_providers/([^/?#]+)', 'provider'),
)


def changed_advice(kind, name):
    """What to do after ``kind`` (consumer, provider) ``name`` changed."""
    return CHANGED_ADVICE[kind] % {'name': printable(name)}


def _conflict_guidance(response):
    """What to do after a generation conflict, from the request's path.

    None for a path that names neither a consumer nor a provider.
    """
    path = urlparse.urlsplit(response.url or '').path
    for pattern, kind in _GUIDANCE:
        found = re.search(pattern, path)
        if found:
            return changed_advice(kind, urlparse.unquote(found.group(1)))
    return None


# Placement's policy rule of ``POST /reshaper`` and its default
# (placement/policies/reshaper.py: ``rule:service_api``, which is
# ``role:service``): the token of Nova's compute service may reshape, an
# admin's may not once the new defaults are enforced (oslo.policy's
# ``enforce_new_defaults``, on by default today).
RESHAPER_POLICY = 'placement:reshaper:reshape'
RESHAPER_POLICY_TEXT = (
    'Placement refuses POST /reshaper to this token (HTTP 403): its policy '
    '%s allows, by default, only the service role (rule:service_api, '
    'role:service), not admin; run it with a token of the service role (as '
    'Nova\'s compute service does) or a policy that allows it. Nothing was '
    'written.' % RESHAPER_POLICY)


def reshaper_refused():
    """The one line of a ``POST /reshaper`` that the policy refuses."""
    return exceptions.CommandError(RESHAPER_POLICY_TEXT)


def exception_for(response):
    """The osc-lib exception for an HTTP error response.

    Its text is ``<message> (HTTP <status>)``, as the reference prints it.
    ``.response`` is the response and ``.error_code`` Placement's code. A
    generation conflict (``placement.concurrent_update``) also says which
    consumer or provider changed and how to go on, after the server's
    words.
    """
    status = response.status_code
    message = error_message(response)
    code = error_code(response)
    # Placement also gives this code to a class that is in use (DELETE of
    # one inventory class): only a generation conflict gets the guidance.
    if status == 409 and code == CONCURRENT_UPDATE and \
            'generation' in message.lower():
        guidance = _conflict_guidance(response)
        if guidance:
            message = '%s. %s' % (message.rstrip('.'), guidance)
    exc_class = _http_error_to_exc.get(status, exceptions.ClientException)
    exc = exc_class(status, message)
    exc.response = response
    exc.error_code = code
    return exc


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


# What a Placement endpoint looks like, for the error of one that is not a
# URL.
ENDPOINT_EXAMPLE = 'http://controller:8778/placement'


def is_not_a_url(exc):
    """Whether a failure below HTTP says the URL itself is unusable.

    No scheme (``not-a-url``), a scheme requests cannot send to
    (``ftp://``) or no host (``http://``): no request left the client.
    """
    return any(isinstance(cause, (requests.exceptions.MissingSchema,
                                  requests.exceptions.InvalidSchema,
                                  requests.exceptions.InvalidURL))
               for cause in _walk_causes(exc))


# The reasons of a timeout: before a connection was made (connecting, or
# a wait the client cannot place), and after it, the server reached but
# its answer not whole.
NO_ANSWER = 'no answer before the timeout'
INCOMPLETE_ANSWER = 'no complete answer within the timeout'


def answer_incomplete(exc):
    """Whether ``exc`` is a timeout that came after the connection was made.

    requests' ``ReadTimeout`` (urllib3's ``ReadTimeoutError``, which
    requests also chains to the ``ConnectionError`` of a body read too
    slowly): the request had reached the server, and its answer did not
    come whole. A connect timeout is not one.
    """
    return any(isinstance(cause, (requests.exceptions.ReadTimeout,
                                  urllib3_exceptions.ReadTimeoutError))
               for cause in _walk_causes(exc))


def describe_transport_error(exc):
    """A short reason for a failure below HTTP, from the exception chain."""
    if answer_incomplete(exc):
        return INCOMPLETE_ANSWER
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
            return NO_ANSWER
    for cause in causes:
        if isinstance(cause, (ConnectionResetError, BrokenPipeError)):
            return 'the connection was closed by the server'
        if type(cause).__name__ in ('RemoteDisconnected',
                                    'ProtocolError'):
            return 'the connection was closed before an answer came'
    return str(exc).split('\n')[0]


# The methods of the requests that write.
WRITE_METHODS = ('POST', 'PUT', 'PATCH', 'DELETE')


def is_write(method):
    return method.upper() in WRITE_METHODS


def _is_the_request(prepared, method, path):
    """Whether requests' ``prepared`` request is ``method path``."""
    return prepared.method == method.upper() and urlparse.urlsplit(
        prepared.url).path.endswith(urlparse.urlsplit(path).path)


# What only connecting raises: the request was not written to a socket.
_CONNECT_FAILURES = (urllib3_exceptions.NewConnectionError,
                     urllib3_exceptions.ConnectTimeoutError,
                     requests.exceptions.ConnectTimeout,
                     ConnectionRefusedError, socket.gaierror,
                     ssl.SSLCertVerificationError)


def _never_connected(exc):
    """Whether requests' ``exc`` says no connection was made.

    A connect timeout, a connection refused, a name not resolved, a
    certificate refused in the TLS handshake: the request itself was not
    written to any socket. requests gives urllib3's MaxRetryError, whose
    reason says why (an SSLError: the ssl module's error).
    """
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return True
    reason = exc.args[0] if exc.args else None
    reason = getattr(reason, 'reason', reason)
    return isinstance(reason, _CONNECT_FAILURES) or (
        isinstance(reason, urllib3_exceptions.SSLError)
        and any(isinstance(arg, ssl.SSLCertVerificationError)
                for arg in reason.args))


def nothing_sent(exc, method, path):
    """Whether a failure below HTTP left ``method path`` certainly unsent.

    From what requests and urllib3 say (keystoneauth chains their
    exception to its own): True when every attempt of this request failed
    to connect (:func:`_never_connected`), or when only another request
    failed (keystoneauth's, for a token) and this one never started; a URL
    that is no URL sends nothing either. Where requests names no request,
    True only for a failure that only connecting raises. False when an
    attempt was connected (it may have been written, in part or whole,
    before the failure) and whenever it cannot be told: then the outcome
    is unknown.
    """
    if is_not_a_url(exc):
        return True
    ours = []
    others = False
    for cause in _walk_causes(exc):
        prepared = getattr(cause, 'request', None)
        if not isinstance(cause, requests.exceptions.RequestException) or \
                prepared is None:
            continue
        if _is_the_request(prepared, method, path):
            ours.append(cause)
        else:
            others = True
    if ours:
        return all(_never_connected(cause) for cause in ours)
    if others:
        return True
    return any(isinstance(cause, _CONNECT_FAILURES)
               for cause in _walk_causes(exc))


# What shows what a write to a path changed: (path pattern, command).
_CHECKS = (
    (r'/allocations/([^/]+)', 'openstack resource provider allocation show '
     '%s'),
    (r'/resource_providers/([^/]+)/inventories(?:/[^/]+)?',
     'openstack resource provider inventory list %s'),
    (r'/resource_providers/([^/]+)/traits',
     'openstack resource provider trait list %s'),
    (r'/resource_providers/([^/]+)/aggregates',
     'openstack resource provider aggregate list %s'),
    (r'/resource_providers/([^/]+)', 'openstack resource provider show %s'),
    (r'/traits/([^/]+)', 'openstack trait show %s'),
    (r'/resource_classes/([^/]+)', 'openstack resource class show %s'),
)
# Consumers named one by one in the advice, at most.
_CHECKS_NAMED = 3


def _consumer_checks(consumers):
    """``allocation show`` of a write's consumers (a few, then a count)."""
    consumers = [printable(str(c)) for c in consumers]
    show = 'openstack resource provider allocation show %s'
    if len(consumers) <= _CHECKS_NAMED:
        return [show % c for c in consumers]
    return [show % '<consumer> for each of the %d consumers written (%s, '
            '...)' % (len(consumers), ', '.join(consumers[:_CHECKS_NAMED]))]


def write_checks(method, path, body):
    """The commands that show what a write of ``method path`` changed.

    ``body``: its JSON body (the consumers of ``POST /allocations`` and
    ``POST /reshaper``, the name of a class or provider created).
    """
    path = urlparse.urlsplit(path).path.rstrip('/')
    body = body if isinstance(body, dict) else {}
    name = printable(str(body.get('name', '<name>')))
    if path.endswith('/allocations'):
        return _consumer_checks(body) + [
            'after a restore, openstack resource provider allocation '
            'restore --dry-run with the same file']
    if path.endswith('/reshaper'):
        inventories = body.get('inventories')
        allocations = body.get('allocations')
        return ['openstack resource provider inventory list %s'
                % printable(str(rp)) for rp in (
                    inventories if isinstance(inventories, dict) else ())
                ] + _consumer_checks(
                    allocations if isinstance(allocations, dict) else ())
    if path.endswith('/resource_providers') and method.upper() == 'POST':
        return ['openstack resource provider list --name %s' % name]
    if path.endswith('/resource_classes') and method.upper() == 'POST':
        return ['openstack resource class show %s' % name]
    for pattern, command in _CHECKS:
        found = re.search(pattern + '$', path)
        if found:
            return [command % printable(urlparse.unquote(found.group(1)))]
    return ['the show command of the object written']


def outcome_unknown(method, where, reason, checks):
    """The error of a write whose answer was lost after it may have left.

    ``where``: the URL; ``reason``: what the transport said
    (:func:`describe_transport_error`); ``checks``: :func:`write_checks`.
    """
    detail = ('it may have reached the Placement API, but its answer was '
              'lost (%s): the write may or may not have happened; check '
              'with %s.' % (reason, '; '.join(checks)))
    return OutcomeUnknown('Outcome unknown: %s %s: %s'
                          % (method.upper(), printable(where), detail),
                          detail)


# What an interrupted write says: "Interrupted: the write was <...>".
WRITE_ACCEPTED = 'sent and accepted'
WRITE_REFUSED = 'sent and refused'
WRITE_UNKNOWN = 'sent and its outcome is unknown'
WRITE_NOT_SENT = 'not sent'


def interrupted_write(signum, outcome, why=None):
    """The :class:`Interrupted` of a write a signal came during.

    ``outcome``: one of the ``WRITE_*`` above; ``why``: what follows (the
    refusal, the reason and how to check).
    """
    write = outcome + ((': ' + why.rstrip('.')) if why else '')
    return Interrupted('Interrupted: the write was %s.' % write, signum,
                       write=write)


def write_left_in_flight(signum, method, path, body):
    """The :class:`Interrupted` of a write left in flight: unknown."""
    return interrupted_write(signum, WRITE_UNKNOWN, 'check with %s' % (
        '; '.join(write_checks(method, path, body))))


def write_interrupted(signum, response, failure):
    """What became of a write that a signal came during: Interrupted.

    ``response``: its answer (requests'), or ``failure``: the exception
    of a failure below HTTP (``http.SessionClient``'s).
    """
    if response is not None and response.status_code < 400:
        return interrupted_write(signum, WRITE_ACCEPTED)
    if response is not None:
        return interrupted_write(signum, WRITE_REFUSED,
                                 str(exception_for(response)))
    if isinstance(failure, OutcomeUnknown):
        return interrupted_write(signum, WRITE_UNKNOWN, failure.detail)
    return interrupted_write(signum, WRITE_NOT_SENT, str(failure))
