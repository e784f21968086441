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

"""The installed ``openstack`` executable, pointed at a local Placement.

The servers of this package run with ``auth_strategy = noauth2``: any
request carrying the token :data:`TOKEN` is an admin's. These helpers give
the argv and the environment of an ``openstack`` that talks to one.
"""

import os
import sys

from osc_placement.tests.support import SandboxError

TOKEN = 'admin'


def openstack_executable():
    """The ``openstack`` script installed beside this Python interpreter."""
    path = os.path.join(os.path.dirname(sys.executable), 'openstack')
    if not os.path.exists(path):
        raise SandboxError('no openstack executable next to %s: install '
                           'python-openstackclient in this environment'
                           % sys.executable)
    return path


def auth_argv(endpoint):
    """The options that point ``openstack`` at a sandbox endpoint."""
    return ['--os-auth-type', 'admin_token', '--os-endpoint', endpoint,
            '--os-token', TOKEN]


def openstack_argv(endpoint):
    """``[<openstack executable>, <auth options>...]``."""
    return [openstack_executable()] + auth_argv(endpoint)


def client_env(endpoint, base=None):
    """The environment of an ``openstack`` pointed at ``endpoint``.

    ``base`` (default: os.environ) without OS_* and CLIFF_* variables, plus
    the OS_* variables that point ``openstack`` at ``endpoint``.
    """
    env = clean_env(base)
    env.update(OS_AUTH_TYPE='admin_token', OS_ENDPOINT=endpoint,
               OS_TOKEN=TOKEN)
    return env


def clean_env(base=None):
    """``base`` (default: os.environ) without OS_* and CLIFF_* variables.

    Local requests bypass any proxy.
    """
    base = os.environ if base is None else base
    env = {key: value for key, value in base.items()
           if not key.startswith(('OS_', 'CLIFF_'))}
    # A proxy set for the outside world must not see local requests.
    for key in ('no_proxy', 'NO_PROXY'):
        hosts = [h for h in env.get(key, '').split(',') if h]
        env[key] = ','.join(hosts + [h for h in ('127.0.0.1', 'localhost')
                                     if h not in hosts])
    return env
