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

"""A real Keystone: the ``keystone`` package's WSGI application, SQLite.

Set up as a deployment does it, with ``keystone-manage`` (``db_sync``,
``fernet_setup``, ``credential_setup``, and ``bootstrap``: the admin user,
project and role, the region and the identity endpoints), then served by
gunicorn (:class:`~.service.Service`). What a cloud adds next goes
through the identity API as the admin: the ``service`` project, a user
per service with the ``service`` role (what keystonemiddleware needs to
validate tokens), regions, and the catalog entries of the other services
(:meth:`Keystone.add_service`).

The passwords are fixed: the server listens on 127.0.0.1 only and lives
as long as a test or a sandbox.
"""

import os

from osc_placement.tests.support import SandboxError
from osc_placement.tests.support import service

ADMIN = 'admin'
ADMIN_PASSWORD = 'sandbox-admin-password'
SERVICE_PASSWORD = 'sandbox-service-password'
SERVICE_PROJECT = 'service'
SERVICE_ROLE = 'service'
DOMAIN = 'Default'
REGION = 'RegionOne'
INTERFACES = ('public', 'internal', 'admin')

CONFIG = """\
[DEFAULT]
debug = False

[database]
connection = sqlite:///{workdir}/keystone.sqlite

[token]
provider = fernet

[fernet_tokens]
key_repository = {workdir}/fernet-keys

[fernet_receipts]
key_repository = {workdir}/fernet-keys

[credential]
key_repository = {workdir}/credential-keys
"""

# What a service's keystonemiddleware needs: the service user's password
# credentials, with which it validates the tokens it receives.
AUTHTOKEN = """
[keystone_authtoken]
www_authenticate_uri = {url}
auth_url = {url}
auth_type = password
username = {user}
password = {password}
project_name = {project}
user_domain_name = {domain}
project_domain_name = {domain}
"""


class Keystone(service.Service):
    """A Keystone server process, from set-up to clean-up.

    :attr:`url` is its identity endpoint (``.../v3``), in the catalog for
    every interface of region :data:`REGION`. The admin is
    :data:`ADMIN`/:data:`ADMIN_PASSWORD` in project :data:`ADMIN`.
    """

    title = 'Keystone'
    application = 'keystone.server.wsgi:initialize_public_application()'
    modules = (('keystone', 'keystone'), ('gunicorn', 'gunicorn'))
    prefix = 'keystone-sandbox-'
    ready_path = '/v3'
    installed_by = 'tox -e sandbox'

    def __init__(self, host='127.0.0.1', port=0, timeout=90):
        super().__init__(host=host, port=port, timeout=timeout, workers=1)
        self.url = None
        self._admin_token = None
        self._service_project = None
        self._roles = {}

    def configure(self):
        """keystone.conf, then keystone-manage as a deployment runs it."""
        self.url = self.server_endpoint + '/v3'
        config = os.path.join(self.workdir, 'keystone.conf')
        with open(config, 'w') as f:
            f.write(CONFIG.format(workdir=self.workdir))
        # The keys belong to whoever runs the server: this user.
        owner = ['--keystone-user', str(os.getuid()),
                 '--keystone-group', str(os.getgid())]
        for step in (['db_sync'], ['fernet_setup'] + owner,
                     ['credential_setup'] + owner,
                     ['bootstrap', '--bootstrap-password', ADMIN_PASSWORD,
                      '--bootstrap-username', ADMIN,
                      '--bootstrap-project-name', ADMIN,
                      '--bootstrap-role-name', ADMIN,
                      '--bootstrap-service-name', 'keystone',
                      '--bootstrap-region-id', REGION,
                      '--bootstrap-admin-url', self.url,
                      '--bootstrap-internal-url', self.url,
                      '--bootstrap-public-url', self.url]):
            service.manage(['keystone-manage', '--config-file', config]
                           + step, self.workdir,
                           what='keystone-manage %s' % step[0])
        return {'OS_KEYSTONE_CONFIG_DIR': self.workdir}

    # -- tokens and the identity API ------------------------------------------

    def token(self, user=ADMIN, password=ADMIN_PASSWORD, project=ADMIN):
        """A new project-scoped token of ``user``."""
        body = {'auth': {
            'identity': {'methods': ['password'], 'password': {'user': {
                'name': user, 'password': password,
                'domain': {'name': DOMAIN}}}},
            'scope': {'project': {'name': project,
                                  'domain': {'name': DOMAIN}}}}}
        headers, _ = service.request(self.url + '/auth/tokens', 'POST',
                                     body)
        return headers['X-Subject-Token']

    def admin_token(self):
        """The admin's token (one for the life of the server)."""
        if self._admin_token is None:
            self._admin_token = self.token()
        return self._admin_token

    def api(self, method, path, body=None):
        """One identity API request as the admin; returns the body."""
        return service.request(self.url + path, method, body,
                               token=self.admin_token())[1]

    def _role_id(self, name):
        if name not in self._roles:
            roles = self.api('GET', '/roles?name=%s' % name)['roles']
            if not roles:
                raise SandboxError('Keystone has no role %r' % name)
            self._roles[name] = roles[0]['id']
        return self._roles[name]

    def service_project(self):
        """The ID of the ``service`` project (created the first time)."""
        if self._service_project is None:
            self._service_project = self.api('POST', '/projects', {
                'project': {'name': SERVICE_PROJECT, 'domain_id': 'default',
                            'description': 'The services\' own users'}}
            )['project']['id']
        return self._service_project

    def add_service_user(self, name):
        """User ``name`` with the ``service`` role in project ``service``.

        The role is what lets a service's keystonemiddleware validate
        the tokens it receives.
        """
        user = self.api('POST', '/users', {'user': {
            'name': name, 'password': SERVICE_PASSWORD,
            'domain_id': 'default'}})['user']['id']
        self.api('PUT', '/projects/%s/users/%s/roles/%s' % (
            self.service_project(), user, self._role_id(SERVICE_ROLE)))
        return user

    def add_region(self, region):
        self.api('POST', '/regions', {'region': {'id': region}})

    def add_service(self, service_type, name, endpoints):
        """A catalog entry: ``endpoints`` maps (region, interface) to URL."""
        service_id = self.api('POST', '/services', {'service': {
            'type': service_type, 'name': name}})['service']['id']
        for (region, interface), url in sorted(endpoints.items()):
            self.api('POST', '/endpoints', {'endpoint': {
                'service_id': service_id, 'interface': interface,
                'region_id': region, 'url': url}})
        return service_id

    def authtoken_config(self, user):
        """The ``[keystone_authtoken]`` section for service user ``user``.

        Creates the user on its first call.
        """
        self.add_service_user(user)
        return AUTHTOKEN.format(url=self.server_endpoint, user=user,
                                password=SERVICE_PASSWORD,
                                project=SERVICE_PROJECT, domain=DOMAIN)

    def client_env(self, region=REGION, interface='public'):
        """The OS_* variables of an ``openstack`` logged in as the admin.

        ``region`` or ``interface`` None: no variable for it.
        """
        env = {
            'OS_AUTH_TYPE': 'password',
            'OS_AUTH_URL': self.url,
            'OS_IDENTITY_API_VERSION': '3',
            'OS_USERNAME': ADMIN,
            'OS_PASSWORD': ADMIN_PASSWORD,
            'OS_PROJECT_NAME': ADMIN,
            'OS_USER_DOMAIN_NAME': DOMAIN,
            'OS_PROJECT_DOMAIN_NAME': DOMAIN,
        }
        if region:
            env['OS_REGION_NAME'] = region
        if interface:
            env['OS_INTERFACE'] = interface
        return env
