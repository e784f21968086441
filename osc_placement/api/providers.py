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

"""Resource providers looked up, and what is read about one provider.

* ``find_provider()`` (a UUID) and ``lookup()`` (the record) take a
  provider given by name or UUID; ``ProviderCommand`` is the mixin of the
  commands whose positional is one provider.
* ``provider_usages()``, ``provider_allocations()``,
  ``provider_capacity()`` and ``provider_details()`` are the
  per-provider reads that the commands over many providers repeat;
  ``class_names()`` the resource classes their inventories can name.
* ``aggregates_of()`` and ``set_aggregates()``, the one read and the one
  write of a provider's aggregates; ``with_trait()``, ``members()``,
  ``traits_named()`` and ``owner_usages()``, the audit's other reads.
"""

from urllib import parse as urlparse

from osc_lib import exceptions

from osc_placement.api import paths
from osc_placement import microversions
from osc_placement.model import amounts
from osc_placement.model import scalars
from osc_placement.model.text import printable
from osc_placement import version

BASE_URL = '/resource_providers'


def _not_found(value):
    return exceptions.CommandError(
        "No resource provider with name or UUID '%s' found."
        % printable(value))


def lookup(http, name_or_uuid):
    """The record of a provider given by UUID or name; one request."""
    key = 'uuid' if scalars.is_uuid_like(name_or_uuid) else 'name'
    found = http.request('GET', BASE_URL, params={
        key: name_or_uuid}).field('resource_providers', list)
    if not found:
        raise _not_found(name_or_uuid)
    return found[0]


def find_provider(http, name_or_uuid):
    """The UUID of a provider given by UUID (as is) or by name.

    A UUID-shaped value costs no request; a name is looked up with
    ``GET /resource_providers?name=<value>``.
    """
    if scalars.is_uuid_like(name_or_uuid):
        return name_or_uuid
    # Provider names are unique in Placement.
    return lookup(http, name_or_uuid)['uuid']


def created_provider_path(response):
    """The path, below the endpoint, of the provider a POST created.

    Read from the Location header, but sent to the configured endpoint:
    behind a load balancer or a TLS proxy the host Placement puts in
    Location may not be reachable from the client.
    """
    location = response.header('Location')
    _root, sep, rp_uuid = urlparse.unquote(
        urlparse.urlsplit(location).path).rpartition(BASE_URL + '/')
    if not sep or not scalars.is_uuid_like(rp_uuid):
        raise response.invalid('a Location header that does not name a '
                               'resource provider: %r' % location)
    return paths.url('resource_providers', rp_uuid)


def read(http, rp_uuid, what, kind):
    """``GET /resource_providers/<uuid>/<what>``: its ``what`` field."""
    return http.request('GET', paths.url(
        'resource_providers', rp_uuid, what)).field(what, kind)


def class_names(http, at=None):
    """The names of every resource class Placement has: one GET.

    ``at``: the microversion to ask at, where the session's is below
    the one that has ``/resource_classes``.
    """
    return {rc.get('name') for rc in http.request(
        'GET', paths.url('resource_classes'), version=at).field(
            'resource_classes', list) if isinstance(rc, dict)}


def provider_usages(http, rp_uuid):
    """{resource class: amount used} of a provider."""
    return read(http, rp_uuid, 'usages', dict)


def provider_allocations(http, rp_uuid):
    """{consumer: {'resources': {class: amount}}} on a provider."""
    return read(http, rp_uuid, 'allocations', dict)


def provider_capacity(http, rp_uuid):
    """{class: inventory record with ``capacity``, ``used`` and ``free``}.

    Two requests: the provider's inventories, then its usages. ``free`` is
    ``capacity - used``, negative on an over-committed provider.
    """
    inventories = read(http, rp_uuid, 'inventories', dict)
    usages = provider_usages(http, rp_uuid)
    records = {}
    for rc, inventory in inventories.items():
        capacity = amounts.capacity(inventory)
        used = usages.get(rc, 0)
        records[rc] = dict(inventory, capacity=capacity, used=used,
                           free=capacity - used)
    return records


def provider_details(http, rp_uuid, aggregates):
    """Capacity and traits (and aggregates) of a provider: 3 or 4 GETs."""
    found = {'capacity': provider_capacity(http, rp_uuid),
             'traits': read(http, rp_uuid, 'traits', list)}
    found['aggregates'] = read(http, rp_uuid, 'aggregates', list) \
        if aggregates else []
    return found


# What the audit reads and writes of providers besides their allocations.

def with_trait(http, trait):
    """The UUIDs of the providers that have ``trait``: one GET."""
    return [rp['uuid'] for rp in http.request(
        'GET', BASE_URL, params={'required': trait}).field(
            'resource_providers', list)]


def traits_named(http, prefix):
    """The traits Placement has whose names start with ``prefix``: one GET."""
    return http.request('GET', paths.url('traits'), params={
        'name': 'startswith:' + prefix}).field('traits', list)


def members(http, aggregate):
    """The UUIDs of the providers in an aggregate: one GET."""
    return [rp['uuid'] for rp in http.request(
        'GET', BASE_URL, params={'member_of': aggregate}).field(
            'resource_providers', list)]


def owner_usages(http, project, user):
    """{class: amount} that a project and user hold: one GET.

    Asked at ``USAGES_BY_CLASS`` at the most: a later microversion sums
    by consumer type too, in another shape, and Placement 16.0.0 fails
    that query on PostgreSQL and MySQL.
    """
    asked = http.api_version if version.compare(
        http.api_version, version.lt(microversions.CONSUMER_TYPES),
        exc=False) else microversions.USAGES_BY_CLASS
    return http.request('GET', paths.url('usages'), params={
        'project_id': project, 'user_id': user}, version=asked).field(
            'usages', dict)


def aggregates_path(rp_uuid):
    """The path of a provider's aggregates."""
    return paths.url('resource_providers', rp_uuid, 'aggregates')


def aggregates_of(http, rp_uuid):
    """(aggregates, generation) of a provider: one GET.

    The generation is None below 1.19, whose answer has none.
    """
    response = http.request('GET', aggregates_path(rp_uuid))
    return (response.field('aggregates', list),
            response.json_object().get('resource_provider_generation'))


def set_aggregates(http, rp_uuid, aggregates, generation=None):
    """Write a provider's aggregates: one PUT; (aggregates, generation).

    From 1.19 with the provider's generation (the server refuses a stale
    one); below it the body is the list alone.
    """
    if version.compare(http.api_version, version.ge(
            microversions.AGGREGATES_GENERATION), exc=False):
        body = {'aggregates': aggregates,
                'resource_provider_generation': generation}
    else:
        body = aggregates
    response = http.request('PUT', aggregates_path(rp_uuid), json=body)
    return (response.field('aggregates', list),
            response.json_object().get('resource_provider_generation'))
