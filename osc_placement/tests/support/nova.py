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

"""A real Nova compute API: the ``nova`` package's WSGI application.

``nova.wsgi.osapi_compute:application`` under gunicorn
(:class:`~.service.Service`), its API database and its cell databases
(cell0 and cell1) on SQLite, set up with ``nova-manage`` as a deployment
does (``api_db sync``, ``cell_v2 map_cell0``, ``cell_v2 create_cell``,
``db sync``). The message bus is oslo.messaging's in-process ``fake:/``
transport: flavors and host aggregates live in the API database and need
no conductor, scheduler or compute service. Nova validates tokens with
keystonemiddleware against a :class:`~.keystone.Keystone` (Nova has no
``noauth`` pipeline any more), as its service user ``nova``.

:func:`prepare` makes the databases without a Keystone, so that
:class:`~.stack.NovaCloud` can make them while Keystone starts.

The paste pipeline is the one the ``nova`` package installs
(``<prefix>/etc/nova/api-paste.ini``).
"""

import os
import sys

from osc_placement.tests.support import keystone as identity
from osc_placement.tests.support import SandboxError
from osc_placement.tests.support import service

CONFIG = """\
[DEFAULT]
debug = False
transport_url = fake:/
state_path = {workdir}
host = nova-sandbox

[api]
auth_strategy = keystone

[api_database]
connection = sqlite:///{workdir}/nova_api.sqlite

[database]
connection = {cell1}

[oslo_concurrency]
lock_path = {workdir}/locks
"""

# Nova's service user in a section of nova.conf: [placement] (where Nova's
# own calls to Placement would go: none of what the sandbox does needs
# them, no compute service reports, no host joins an aggregate) and, for
# nova-manage, [neutron] (support/nova_manage.py).
SERVICE_USER = """
[{section}]
auth_type = password
auth_url = {{url}}
username = nova
password = {{password}}
project_name = {{project}}
user_domain_name = {{domain}}
project_domain_name = {{domain}}
region_name = {{region}}
valid_interfaces = public
"""


def service_user_section(section, keystone_endpoint):
    """The ``[section]`` of nova.conf with Nova's service user."""
    return SERVICE_USER.format(section=section).format(
        url=keystone_endpoint, password=identity.SERVICE_PASSWORD,
        project=identity.SERVICE_PROJECT, domain=identity.DOMAIN,
        region=identity.REGION)


def paste_config():
    """The api-paste.ini the nova package installed beside this Python."""
    path = os.path.join(sys.prefix, 'etc', 'nova', 'api-paste.ini')
    if not os.path.exists(path):
        raise SandboxError('no %s: the nova package is not installed in '
                           'this environment' % path)
    return path


def prepare(workdir):
    """Create Nova's API and cell databases in ``workdir`` (nova-manage).

    Needs no Keystone: :class:`~.stack.NovaCloud` runs it while Keystone
    starts. Writes the database part of the configuration (``db.conf``).
    """
    config = os.path.join(workdir, 'db.conf')
    with open(config, 'w') as f:
        f.write(CONFIG.format(workdir=workdir, cell1=_cell(workdir, 'cell1')))
    for step in (['api_db', 'sync'],
                 ['cell_v2', 'map_cell0', '--database_connection',
                  _cell(workdir, 'cell0')],
                 ['cell_v2', 'create_cell', '--name', 'cell1',
                  '--transport-url', 'fake:/', '--database_connection',
                  _cell(workdir, 'cell1')],
                 ['db', 'sync']):
        service.manage(['nova-manage', '--config-file', config] + step,
                       workdir, what='nova-manage %s' % ' '.join(step[:2]))


def _cell(workdir, name):
    return 'sqlite:///%s/nova_%s.sqlite' % (workdir, name)


class Nova(service.Service):
    """A Nova API server process, from set-up to clean-up.

    :param keystone: the running :class:`~.keystone.Keystone` whose tokens
        it validates.
    :param workdir: a directory :func:`prepare` has filled (its owner
        removes it); ``None``: a temporary one, prepared at set-up.

    :attr:`url` is the compute endpoint (``.../v2.1``) to put in the
    catalog.
    """

    title = 'Nova API'
    application = 'nova.wsgi.osapi_compute:application'
    modules = (('nova', 'nova'), ('gunicorn', 'gunicorn'))
    prefix = 'nova-sandbox-'
    installed_by = 'tox -e sandbox'

    def __init__(self, keystone, host='127.0.0.1', port=0, timeout=120,
                 workdir=None):
        super().__init__(host=host, port=port, timeout=timeout, workers=1)
        self.keystone = keystone
        self.url = None
        self.prepared = workdir is not None
        self.workdir = workdir

    def make_workdir(self):
        if not self.prepared:
            super().make_workdir()
            prepare(self.workdir)

    def configure(self):
        self.url = self.server_endpoint + '/v2.1'
        config = os.path.join(self.workdir, 'nova.conf')
        with open(config, 'w') as f:
            f.write(CONFIG.format(workdir=self.workdir,
                                  cell1=_cell(self.workdir, 'cell1')))
            f.write(self.keystone.authtoken_config('nova'))
            f.write(service_user_section(
                'placement', self.keystone.server_endpoint))
        return {'OS_NOVA_CONFIG_DIR': self.workdir,
                'OS_NOVA_CONFIG_FILES': '%s;nova.conf' % paste_config()}
