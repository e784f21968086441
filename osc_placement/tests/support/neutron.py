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

"""A stand-in for Neutron: a network API with nothing in it.

NOT a Neutron. The Nova API asks the network service for each server
list it shows (``GET /servers/detail`` reads the ports of the servers,
then their security groups), and ``nova-manage placement
heal_allocations`` reads the ports of each server it heals; without a
network endpoint in the catalog both fail. The sandbox's servers have no
port, so an empty answer is the true one: this WSGI application answers
every ``GET /v2.0/<collection>`` (``ports``, ``security-groups``,
``extensions``...) with an empty list, ``GET /`` with the one version,
and anything else with 404. It validates no token and keeps no state.
What it received is logged as for every server here
(:meth:`~.service.Service.requests`), so a test can see that Nova did
ask it.

A real ``neutron-server`` would be better, and was tried (neutron
29.0.0, see doc/source/contributor/testing.rst): its migrations cannot
build its schema on SQLite, and with a schema made from its models its
API answered ``GET /v2.0/ports`` with 500 here. ``resource provider
audit`` itself never reads Neutron.

:class:`NeutronStandIn` serves it under gunicorn like the other servers
of this package; :func:`register` puts it in Keystone's catalog as the
``network`` service.
"""

import json

from osc_placement.tests.support import keystone as identity
from osc_placement.tests.support import server
from osc_placement.tests.support import service

PREFIX = '/v2.0/'


def _reply(start_response, status, body):
    data = json.dumps(body).encode()
    start_response(status, [('Content-Type', 'application/json'),
                            ('Content-Length', str(len(data)))])
    return [data]


def application(environ, start_response):
    """The WSGI application: empty collections, nothing else."""
    path = environ.get('PATH_INFO', '')
    if environ.get('REQUEST_METHOD') != 'GET':
        return _reply(start_response, '404 Not Found',
                      {'NeutronError': {'message': 'stand-in: read only'}})
    if path in ('', '/'):
        return _reply(start_response, '200 OK', {'versions': [
            {'id': 'v2.0', 'status': 'CURRENT', 'links': [
                {'rel': 'self', 'href': PREFIX}]}]})
    if path.startswith(PREFIX):
        collection = path[len(PREFIX):]
        if collection.endswith('.json'):
            collection = collection[:-len('.json')]
        if collection and '/' not in collection:
            return _reply(start_response, '200 OK',
                          {collection.replace('-', '_'): []})
    return _reply(start_response, '404 Not Found',
                  {'NeutronError': {'message': 'stand-in: no %s' % path}})


class NeutronStandIn(service.Service):
    """The stand-in under gunicorn, from set-up to clean-up."""

    title = 'Neutron stand-in'
    application = 'osc_placement.tests.support.neutron:application'
    prefix = 'neutron-standin-'
    installed_by = 'tox -e sandbox'

    def configure(self):
        # The Nova API asks the ports of up to 150 servers in one request
        # line (``device_id=<uuid>`` each, about 7,000 characters), longer
        # than gunicorn's default limit of 4,094: a page of more than
        # about 80 servers failed. Neutron's own server has no such
        # limit; the stand-in neither.
        return {server.ENV_LIMIT_REQUEST_LINE: '0'}


def register(keystone, url):
    """Put ``url`` in the catalog as the ``network`` service (RegionOne)."""
    return keystone.add_service(
        'network', 'neutron', {(identity.REGION, interface): url
                               for interface in identity.INTERFACES})
