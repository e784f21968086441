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

"""OpenStackClient plugin hooks for the Placement service.

OpenStackClient imports this module on every invocation, even for commands
of other services: it imports nothing that OpenStackClient has not already
imported, and changes nothing when imported. The HTTP client and the
commands are loaded only when a placement command runs.
"""

import argparse
import logging
import os
import re

from osc_lib import exceptions
from osc_lib import utils

from osc_placement import version

LOG = logging.getLogger(__name__)

_TOKEN_RE = r'(--os-token[= ])(\S+)'


def _mask_token(record):
    """Hide the value of ``--os-token`` in a log record's arguments.

    osc-lib logs the whole command line at start-up ("START with options",
    shown with --debug) and its password masking misses that value.
    """
    if record.args and isinstance(record.args, tuple):
        record.args = tuple(re.sub(_TOKEN_RE, r'\1***', a)
                            if isinstance(a, str) and '--os-token' in a
                            else a for a in record.args)
    return True


# --os-placement-parallel: the range, and the default of the commands that
# the original plugin does not have (its own commands default to 1).
MIN_PARALLEL = 1
MAX_PARALLEL = 64
PARALLEL_NEW_COMMANDS = 8

API_NAME = 'placement'
TIMEOUT_ENV = 'OS_PLACEMENT_TIMEOUT'
TIMEOUT_DEST = 'os_placement_timeout_seconds'
# The key under which the loader stores the option: without "os_".
TIMEOUT_CONFIG_KEY = TIMEOUT_DEST[len('os_'):]
# Set when the deprecated --timeout was used.
TIMEOUT_DEPRECATED_DEST = 'os_placement_old_timeout_option'
TIMEOUT_DEPRECATED_KEY = TIMEOUT_DEPRECATED_DEST[len('os_'):]
API_VERSION_OPTION = 'os_placement_api_version'
API_VERSION_ENV = 'OS_PLACEMENT_API_VERSION'
# OpenStackClient's default when neither the option, the environment nor
# the cloud's placement_api_version (clouds.yaml) gives a version.
DEFAULT_API_VERSION = version.NEGOTIATE_VERSION
API_VERSIONS = {v: 'osc_placement.http.SessionClient'
                for v in version.SUPPORTED_VERSIONS}


def check_api_version(check_version):
    """OpenStackClient hook: skip its own "not in supported versions" check.

    That check prints a long list as a warning and lets the command go on to
    a second, different error. A bad value is reported once, in one line,
    when a placement command makes its client (see ``make_client``), so
    that a stray OS_PLACEMENT_API_VERSION never breaks other services'
    commands.
    """
    return True


def make_client(instance):
    """Return the placement client for an OpenStackClient ClientManager."""
    requested = version.validate(instance._api_version[API_NAME])
    client_class = utils.get_client_class(API_NAME, requested, API_VERSIONS)
    ks_filter = {'service_type': API_NAME,
                 'region_name': instance.region_name,
                 'interface': instance.interface}
    LOG.debug('Instantiating placement client: %s', client_class)
    config = instance.get_configuration() or {}
    # The option (or the environment variable, its default) under a name
    # that openstacksdk's config loader does not take for the timeout of
    # the whole session (it does so with any key ending in "timeout").
    timeout = config.get(TIMEOUT_CONFIG_KEY)
    if config.get(TIMEOUT_DEPRECATED_KEY):
        LOG.warning('The --timeout option is deprecated and will be removed '
                    'in a future release: use --os-placement-timeout.')
    if timeout is None:
        timeout = config.get('api_timeout')
    parallel = (config.get('placement_parallel')
                or os.environ.get('OS_PLACEMENT_PARALLEL'))
    return client_class(session=instance.session,
                        ks_filter=ks_filter,
                        api_version=requested,
                        timeout=_timeout_seconds(timeout),
                        parallel=_parallel_requests(parallel))


def _timeout_seconds(value):
    """The timeout option as seconds, or a one-line CommandError.

    Checked here rather than by argparse so that a bad OS_PLACEMENT_TIMEOUT
    fails placement commands only, not every openstack command.
    """
    if value is None:
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = 0
    if not 0 < seconds < float('inf'):
        raise exceptions.CommandError(
            "--os-placement-timeout (or --timeout, OS_PLACEMENT_TIMEOUT): "
            "%r is not a positive number of seconds." % (value,))
    return seconds


def _parallel_requests(value):
    """The parallel option as a number of requests, or a CommandError.

    Checked here rather than by argparse so that a bad OS_PLACEMENT_PARALLEL
    fails placement commands only, not every openstack command.
    """
    if value is None:
        return None
    text = str(value).strip()
    if not (text.isascii() and text.isdigit()
            and MIN_PARALLEL <= int(text) <= MAX_PARALLEL):
        raise exceptions.CommandError(
            '--os-placement-parallel (or OS_PLACEMENT_PARALLEL): %r is not '
            'a whole number from %d to %d.'
            % (value, MIN_PARALLEL, MAX_PARALLEL))
    return int(text)


class _DeprecatedTimeout(argparse.Action):
    """``--timeout``: ``--os-placement-timeout`` under its old name.

    Notes that it was used, so that ``make_client`` warns.
    """

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        setattr(namespace, TIMEOUT_DEPRECATED_DEST, True)


def build_option_parser(parser):
    """Add the global options of placement commands.

    Called while OpenStackClient builds its parser, before osc-lib logs the
    command line: the token filter is installed here, for this run, rather
    than by importing this module.
    """
    logging.getLogger('osc_lib.shell').addFilter(_mask_token)
    default = DEFAULT_API_VERSION
    # No default of its own: OpenStackClient then takes the cloud's
    # placement_api_version from clouds.yaml, else DEFAULT_API_VERSION.
    parser.add_argument(
        '--os-placement-api-version',
        metavar='<placement-api-version>',
        type=version.normalize_option,
        default=os.environ.get(API_VERSION_ENV),
        help='Placement API version, default=%s (Env: '
             'OS_PLACEMENT_API_VERSION). A microversion from 1.0 to %s, '
             "'%s' to negotiate up to %s with the server, or 'latest' to "
             'negotiate up to %s. A cloud of clouds.yaml may set it as '
             'placement_api_version.'
             % (default, version.MAX_VERSION, default,
                version.MAX_VERSION_NO_GAP, version.MAX_VERSION))
    # openstacksdk's config loader turns OS_PLACEMENT_TIMEOUT into the
    # timeout of the whole session (Keystone and every service), and fails
    # every command on a bad value: take the variable out of its sight, for
    # this run, as the default of the option. The value is checked by
    # make_client, so that only placement commands can fail on it. (No
    # public setting of the loader keeps an OS_* variable out of it.)
    timeout = parser.add_argument(
        '--os-placement-timeout', metavar='<seconds>', dest=TIMEOUT_DEST,
        default=os.environ.pop(TIMEOUT_ENV, None),
        help='Seconds to wait for each request to the Placement API, '
             'connection and whole answer, before giving up (default: no '
             'limit; Env: %s)' % TIMEOUT_ENV)
    # The old spelling, for one more release, unless OpenStackClient
    # itself defines a --timeout some day.
    try:
        parser.add_argument(
            '--timeout', metavar='<seconds>', dest=TIMEOUT_DEST,
            action=_DeprecatedTimeout, default=timeout.default,
            help='Deprecated: use --os-placement-timeout.')
    except argparse.ArgumentError:
        LOG.debug('OpenStackClient has a --timeout of its own: the '
                  'placement timeout is --os-placement-timeout only.')
    parser.add_argument(
        '--os-placement-parallel', metavar='<count>',
        dest='os_placement_parallel',
        help='How many Placement requests a command that sends one request '
             'per item (a multiple delete, inventory set --aggregate, the '
             'cloud-wide lists) may have in flight at once, from %d to %d. '
             'Default: 1 for the commands of the original plugin, which '
             'then send their requests in the same order as ever; %d for '
             'the commands only this plugin has. The output is the same '
             'whatever the value (Env: OS_PLACEMENT_PARALLEL)'
             % (MIN_PARALLEL, MAX_PARALLEL, PARALLEL_NEW_COMMANDS))
    return parser
