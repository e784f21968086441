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

"""The set-up of a real Placement, shared by the functional and e2e tests.

``server`` is anything with ``api(method, path, body=..., version=...)``
that sends one request as the admin, fails on an error status and returns
the decoded body: the functional test case (``self``) for the in-process
fixture, the e2e test class's ``sandbox`` for a gunicorn server. The
requests go straight to the server, never through the plugin, so that a
test sets up what it needs without depending on the commands under test.

Nothing here imports anything: the package is imported by every test
environment and by the sandbox's command line.
"""

# The version of each set-up request, unless a value needs another.
VERSION = '1.39'


def create_provider(server, uuid, name, inventories=None, parent=None,
                    traits=(), aggregates=()):
    """Create a resource provider with its inventory, traits, aggregates.

    ``inventories`` maps a resource class to its total, or to the fields
    of its inventory (``{'total': 8, 'allocation_ratio': 4.0}``).
    ``traits`` may be standard or custom; the custom ones are created
    first. ``aggregates`` is a list of aggregate UUIDs. Returns the
    provider's generation once all is written.
    """
    body = {'name': name, 'uuid': uuid}
    if parent:
        body['parent_provider_uuid'] = parent
    path = '/resource_providers/' + uuid
    generation = server.api('POST', '/resource_providers', body=body,
                            version=VERSION)['generation']
    if inventories:
        generation = server.api('PUT', path + '/inventories', body={
            'resource_provider_generation': generation,
            'inventories': {
                rc: fields if isinstance(fields, dict) else {'total': fields}
                for rc, fields in inventories.items()}},
            version=VERSION)['resource_provider_generation']
    if traits:
        for trait in traits:
            if trait.startswith('CUSTOM_'):
                server.api('PUT', '/traits/' + trait, version=VERSION)
        generation = server.api('PUT', path + '/traits', body={
            'resource_provider_generation': generation,
            'traits': list(traits)},
            version=VERSION)['resource_provider_generation']
    if aggregates:
        generation = server.api('PUT', path + '/aggregates', body={
            'resource_provider_generation': generation,
            'aggregates': list(aggregates)},
            version=VERSION)['resource_provider_generation']
    return generation


def allocate(server, consumer, allocations, project='project-1',
             user='user-1', consumer_type='INSTANCE', generation=None):
    """Replace the allocations of ``consumer``.

    ``allocations`` maps a provider UUID to ``{resource class: amount}``.
    ``generation`` is the consumer's generation: None for a consumer that
    holds nothing yet. ``consumer_type=None`` writes at 1.28, before
    consumer types existed: Placement then reads the type back as
    ``unknown``.
    """
    body = {'allocations': {rp: {'resources': resources}
                            for rp, resources in allocations.items()},
            'project_id': project, 'user_id': user,
            'consumer_generation': generation}
    version = '1.28'
    if consumer_type is not None:
        body['consumer_type'] = consumer_type
        version = VERSION
    server.api('PUT', '/allocations/' + consumer, body=body, version=version)


def allocations_entry(record, allocations, generation):
    """A consumer's entry in the body of ``POST /allocations`` (1.38+).

    ``record``: its ``GET /allocations/{consumer}`` answer, whose owner
    and type are sent back; ``allocations``: {provider: {class: amount}};
    ``generation``: the consumer generation to send.
    """
    return {'allocations': {rp: {'resources': resources}
                            for rp, resources in allocations.items()},
            'project_id': record['project_id'],
            'user_id': record['user_id'],
            'consumer_generation': generation,
            'consumer_type': record['consumer_type']}
