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

"""Placement microversions: what we accept, how we compare them.

This module is imported by ``osc_placement.plugin`` on every ``openstack``
invocation, so it must stay cheap: it imports the standard library and
``osc_lib.exceptions``, which OpenStackClient has loaded already.
"""

import operator
import re

from osc_lib import exceptions

from osc_placement import microversions

# The highest microversion this client knows. Every version from 1.0 up to
# it is accepted explicitly.
MAX_VERSION = microversions.LATEST
SUPPORTED_MICROVERSIONS = ['1.%d' % minor for minor in
                           range(int(MAX_VERSION.split('.')[1]) + 1)]

# Asking for the major version only ('1') makes the client negotiate with
# the server, as the reference plugin does, but never above this ceiling:
# scripts written against the reference rely on getting 1.29 by default.
MAX_VERSION_NO_GAP = microversions.REFERENCE_DEFAULT
NEGOTIATE_VERSION = '1'
# 'latest' negotiates like '1' but up to MAX_VERSION. OpenStackClient derives
# the command group from the text before the first dot of the option value
# ('openstack.placement.v1'), so the option parser carries it as '1.latest'.
LATEST = 'latest'
LATEST_OPTION_VALUE = '1.latest'
NEGOTIATE_VERSIONS = [NEGOTIATE_VERSION, LATEST_OPTION_VALUE]
REFUSED_PREFIX = '1.refused:'
NEGOTIATION_CEILING = {
    NEGOTIATE_VERSION: MAX_VERSION_NO_GAP,
    LATEST_OPTION_VALUE: MAX_VERSION,
}
SUPPORTED_VERSIONS = SUPPORTED_MICROVERSIONS + NEGOTIATE_VERSIONS

ACCEPTED_DESCRIPTION = "1.0 to %s, '1' (negotiate up to %s) or 'latest'" % (
    MAX_VERSION, MAX_VERSION_NO_GAP)

_VERSION_RE = r'(?a)^(\d+)\.(\d+)$'


class UnsupportedVersion(exceptions.CommandError):
    """The requested microversion is outside what this client accepts."""


def normalize_option(value):
    """argparse ``type`` of ``--os-placement-api-version``.

    Maps ``latest`` (any case, surrounding blanks ignored) to the value the
    rest of the client understands; leaves anything else for
    :func:`validate` so that a bad value fails only when a placement command
    runs, never for other OpenStackClient commands.
    """
    value = value.strip()
    if value.lower() == LATEST:
        return LATEST_OPTION_VALUE
    if value == LATEST_OPTION_VALUE or value.startswith(REFUSED_PREFIX):
        # Our own markers, typed: refused as typed, never taken for them.
        return REFUSED_PREFIX + value
    if value == NEGOTIATE_VERSION or value.startswith('1.'):
        return value
    # Anything else ('2.0', 'abc', '') would send OpenStackClient to another
    # command group, where no placement command exists. Keep it under major
    # 1 so that the placement command runs and validate() names the value.
    return REFUSED_PREFIX + value


def validate(value):
    """Return the requested version if accepted, else raise one clear line."""
    if value in NEGOTIATE_VERSIONS or value in SUPPORTED_MICROVERSIONS:
        return value
    if value.startswith(REFUSED_PREFIX):
        value = value[len(REFUSED_PREFIX):]
    raise UnsupportedVersion(
        "Placement API version %r is not supported; accepted values: %s."
        % (value, ACCEPTED_DESCRIPTION))


def parse(version):
    """'1.14' -> (1, 14)."""
    match = re.match(_VERSION_RE, version)
    if not match:
        raise ValueError('invalid version number %s' % version)
    return int(match.group(1)), int(match.group(2))


def before(version):
    """The microversion just before ``version``: '1.38' -> '1.37'.

    The last one without the change that ``version`` brought. There is
    none before a '<major>.0' (ValueError).
    """
    major, minor = parse(version)
    if not minor:
        raise ValueError('no microversion before %s' % version)
    return '%d.%d' % (major, minor - 1)


def _op(func, bound, msg):
    bound_tuple = parse(bound)

    def predicate(current):
        return func(parse(current), bound_tuple) or msg
    predicate.bound = bound
    return predicate


def lt(b):
    return _op(operator.lt, b, 'requires version less than %s' % b)


def ge(b):
    return _op(operator.ge, b, 'requires at least version %s' % b)


def _compare(ver, *predicates, **kwargs):
    func = kwargs.get('op', all)
    results = [p(ver) for p in predicates]
    if func(r is True for r in results):
        return True
    logic = ', and ' if func is all else ', or '
    return ('Operation or argument is not supported with version %s; ' % ver
            + logic.join(r for r in results if r is not True))


class VersionGateError(exceptions.CommandError, ValueError):
    """An option or command needs another microversion.

    Also a ``ValueError``, which the reference's ``compare`` raised.
    """


def compare(ver, *predicates, **kwargs):
    """Check that version ``ver`` satisfies the predicates.

    ``exc`` (default True): raise :class:`VersionGateError` (a
    ``CommandError``, also a ``ValueError`` for callers of the reference
    API) instead of returning False. ``op``: ``all`` (default) or ``any``.
    """
    result = _compare(ver, *predicates, **kwargs)
    if result is True:
        return True
    if kwargs.get('exc', True):
        raise VersionGateError(result)
    return False


def requested_version(app):
    """The version the user asked for, without any network access.

    Negotiation values return their ceiling: the version the client will use
    against an up-to-date server. Used by parsers, which must not send
    requests, and by documentation builds (no app): the minimum version.
    """
    try:
        requested = app.client_manager._api_version['placement']
    except (AttributeError, KeyError, TypeError):
        return SUPPORTED_MICROVERSIONS[0]
    if requested in NEGOTIATION_CEILING:
        return NEGOTIATION_CEILING[requested]
    if requested in SUPPORTED_MICROVERSIONS:
        return requested
    # An unsupported value fails with a clear message when the client is
    # made; the parser just needs something to build with.
    return MAX_VERSION


def negotiates_latest(app):
    """True if the user asked for 'latest': the version is the server's."""
    try:
        requested = app.client_manager._api_version['placement']
    except (AttributeError, KeyError, TypeError):
        return False
    return requested == LATEST_OPTION_VALUE


def get_version(obj):
    """The live (negotiated) version used by a command object."""
    try:
        return obj.app.client_manager.placement.api_version
    except AttributeError:
        # No client: documentation builds and parser-only use.
        return requested_version(getattr(obj, 'app', None))


class CheckerMixin(object):
    def check_version(self, *predicates, **kwargs):
        return compare(get_version(self), *predicates, **kwargs)

    def compare_version(self, *predicates, **kwargs):
        return compare(get_version(self), *predicates, exc=False, **kwargs)


class ValueGate(object):
    """A microversion needed only when an option's value has some shape.

    ``applies(value)`` is called with the parsed value (a list for append
    options); ``meaning`` completes the help sentence "From
    ``--os-placement-api-version <min_version>``, <meaning>."
    """

    def __init__(self, min_version, applies, meaning):
        self.min_version = min_version
        self.applies = applies
        self.meaning = meaning
