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

"""Resource provider commands."""

import argparse
from urllib import parse as urlparse
import uuid as uuid_lib

from osc_lib import exceptions
from osc_lib import utils

from osc_placement.resources import common
from osc_placement.text import printable

BASE_URL = '/resource_providers'

# Microversions at which the provider API changed.
AGGREGATES_FILTER = '1.3'   # --member-of
RESOURCES_FILTER = '1.4'    # --resource
NESTED = '1.14'             # provider trees: parents, roots, --in-tree
REQUIRED_FILTER = '1.18'    # --required
FORBIDDEN_FILTER = '1.22'   # --forbidden
REPARENT = '1.37'           # a parent can be changed or removed

# The provider columns, each with the microversion that added it.
PROVIDER_FIELDS = (
    ('uuid', None),
    ('name', None),
    ('generation', None),
    ('root_provider_uuid', NESTED),
    ('parent_provider_uuid', NESTED),
)


def is_uuid_like(value):
    try:
        uuid_lib.UUID(value)
    except (TypeError, ValueError, AttributeError):
        return False
    return True


def find_provider(http, name_or_uuid):
    """The UUID of a provider given by UUID (as is) or by name.

    A UUID-shaped value costs no request; a name is looked up with
    ``GET /resource_providers?name=<value>``.
    """
    if is_uuid_like(name_or_uuid):
        return name_or_uuid
    providers = http.request('GET', BASE_URL, params={
        'name': name_or_uuid}).field('resource_providers', list)
    if not providers:
        raise exceptions.CommandError(
            "No resource provider with name or UUID '%s' found."
            % printable(name_or_uuid))
    # Provider names are unique in Placement.
    return providers[0]['uuid']


def created_provider_path(response):
    """The path, below the endpoint, of the provider a POST created.

    Read from the Location header, but sent to the configured endpoint:
    behind a load balancer or a TLS proxy the host Placement puts in
    Location may not be reachable from the client.
    """
    location = response.header('Location')
    _root, sep, rp_uuid = urlparse.unquote(
        urlparse.urlsplit(location).path).rpartition(BASE_URL + '/')
    if not sep or not is_uuid_like(rp_uuid):
        raise response.invalid('a Location header that does not name a '
                               'resource provider: %r' % location)
    return common.url('resource_providers', rp_uuid)


class ProviderCommand(common.NamedCommand):
    """Mixin of the commands about one resource provider.

    Adds the ``<uuid>`` positional (a UUID or a name) first, and
    ``prepare_provider()``: ``prepare()`` then the provider's UUID.
    """

    positional = ('uuid', '<uuid>', 'UUID or name of the resource provider')
    # A value that is not a UUID is looked up by name.
    positional_in_path = False

    def prepare_provider(self, parsed_args):
        http = self.prepare(parsed_args)
        return http, find_provider(http, parsed_args.uuid)


class CreateResourceProvider(common.ShowOne):
    """Create a new resource provider"""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.add_option(
            parser, '--parent-provider', metavar='<parent_provider>',
            type=common.non_empty, since=NESTED,
            help='UUID or name of the parent provider. Omit for no parent.')
        parser.add_argument(
            '--uuid', metavar='<uuid>', type=common.non_empty,
            help='UUID of the resource provider (default: chosen by the '
                 'server)')
        parser.add_argument(
            'name', metavar='<name>', type=common.non_empty,
            help='Name of the resource provider')
        return parser

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        data = {'name': parsed_args.name}
        if parsed_args.uuid:
            data['uuid'] = parsed_args.uuid
        if parsed_args.parent_provider:
            data['parent_provider_uuid'] = find_provider(
                http, parsed_args.parent_provider)
        resp = http.request('POST', BASE_URL, json=data)
        resource = http.request(
            'GET', created_provider_path(resp)).json_object()
        fields = common.columns(self, PROVIDER_FIELDS)
        return fields, utils.get_dict_properties(resource, fields)


class ListResourceProvider(common.Lister):
    """List resource providers"""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--uuid', metavar='<uuid>',
            help='Only the resource provider with this UUID')
        parser.add_argument(
            '--name', metavar='<name>',
            help='Only the resource provider with this name')
        self.add_option(
            parser, '--resource', metavar='<resource_class>=<value>',
            default=[], action='append', since=RESOURCES_FILTER,
            help='A resource class and an amount, e.g. ``VCPU=4``: only '
                 'providers with the capacity to serve it. May be repeated.')
        self.add_option(
            parser, '--in-tree', metavar='<in_tree>', since=NESTED,
            type=common.non_empty,
            help='Only providers in the same provider tree as this provider '
                 '(UUID or name).')
        self.add_option(
            parser, '--required', metavar='<required>', action='append',
            type=common.name_list,
            default=[], since=REQUIRED_FILTER,
            value_gates=common.REQUIRED_TRAIT_GATES,
            help='A required trait. May be repeated: providers must have '
                 'all of the required traits.')
        self.add_option(
            parser, '--forbidden', metavar='<forbidden>', action='append',
            type=common.name_list,
            default=[], since=FORBIDDEN_FILTER,
            help='A forbidden trait. May be repeated: providers must have '
                 'none of the forbidden traits.')
        aggregates = parser.add_mutually_exclusive_group()
        self.add_option(
            aggregates, '--member-of', metavar='<member_of>',
            type=common.name_list,
            action='append', default=[], since=AGGREGATES_FILTER,
            value_gates=common.MEMBER_OF_GATES,
            help='Comma-separated aggregate UUIDs: only providers in at '
                 'least one of them. For example, to get providers in agg1 '
                 'or agg2, and in agg3: ``--member-of <agg1>,<agg2> '
                 '--member-of <agg3>``.')
        self.add_option(
            aggregates, '--aggregate-uuid', metavar='<aggregate_uuid>',
            type=common.name_list,
            action='append', default=[], since=AGGREGATES_FILTER,
            help=argparse.SUPPRESS)
        return parser

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        filters = {}
        if parsed_args.name:
            filters['name'] = parsed_args.name
        if parsed_args.uuid:
            filters['uuid'] = parsed_args.uuid
        if parsed_args.aggregate_uuid:
            self.deprecated_option_warning('--aggregate-uuid', '--member-of')
            filters['member_of'] = 'in:' + ','.join(
                parsed_args.aggregate_uuid)
        if parsed_args.resource:
            filters['resources'] = ','.join(
                r.replace('=', ':') for r in parsed_args.resource)
        if parsed_args.in_tree:
            filters['in_tree'] = find_provider(http, parsed_args.in_tree)
        required = common.required_traits_params(parsed_args.required,
                                                 parsed_args.forbidden)
        if required:
            filters['required'] = required
        if parsed_args.member_of:
            filters['member_of'] = [common.member_of_param(v)
                                    for v in parsed_args.member_of]
        providers = http.request('GET', BASE_URL, params=filters).field(
            'resource_providers', list)
        fields = common.columns(self, PROVIDER_FIELDS)
        return fields, (utils.get_dict_properties(p, fields)
                        for p in providers)


class ShowResourceProvider(ProviderCommand, common.ShowOne):
    """Show resource provider details"""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--allocations', action='store_true',
            help='Include the allocations of the provider: a dictionary of '
                 'consumers and their resources')
        return parser

    def take_action(self, parsed_args):
        http, rp_uuid = self.prepare_provider(parsed_args)
        resource = http.request('GET', common.url(
            'resource_providers', rp_uuid)).json_object()
        fields = common.columns(self, PROVIDER_FIELDS)
        if parsed_args.allocations:
            resource['allocations'] = http.request('GET', common.url(
                'resource_providers', rp_uuid,
                'allocations')).field('allocations', dict)
            fields += ('allocations',)
        return fields, utils.get_dict_properties(resource, fields)


class SetResourceProvider(ProviderCommand, common.ShowOne):
    """Update an existing resource provider"""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--name', metavar='<name>', required=True,
            help='A new name of the resource provider')
        parents = parser.add_mutually_exclusive_group()
        self.add_option(
            parents, '--parent-provider', metavar='<parent_provider>',
            type=common.non_empty, since=NESTED,
            help='UUID or name of the parent provider. Before %s it can '
                 'only be set on a provider without a parent; from %s it '
                 'also moves the provider to another parent.'
                 % (REPARENT, REPARENT))
        self.add_option(
            parents, '--no-parent', action='store_true', since=REPARENT,
            extended=True,
            help='Make the provider a root provider (detach it from its '
                 'parent).')
        return parser

    def take_action(self, parsed_args):
        http, rp_uuid = self.prepare_provider(parsed_args)
        data = {'name': parsed_args.name}
        if parsed_args.parent_provider:
            data['parent_provider_uuid'] = find_provider(
                http, parsed_args.parent_provider)
        elif parsed_args.no_parent:
            data['parent_provider_uuid'] = None
        resource = http.request('PUT', common.url(
            'resource_providers', rp_uuid), json=data).json_object()
        fields = common.columns(self, PROVIDER_FIELDS)
        return fields, utils.get_dict_properties(resource, fields)


class DeleteResourceProvider(ProviderCommand, common.Command):
    """Delete resource providers

    Several providers can be given: each is deleted in turn, and the
    failures are reported at the end.
    """

    more_help = 'More resource providers (UUID or name) to delete.'

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        common.delete_each(
            self, http, self.named(parsed_args),
            lambda value: http.request('DELETE', common.url(
                'resource_providers', find_provider(http, value))),
            'resource provider', 'resource providers')


def _tree_order(providers):
    """(depth, provider) pairs, depth-first, root(s) first.

    Siblings are ordered by name. A provider whose parent is not in the list
    is shown as a root.
    """
    by_uuid = {p['uuid']: p for p in providers}
    children = {}
    roots = []
    for p in providers:
        parent = p.get('parent_provider_uuid')
        if parent in by_uuid:
            children.setdefault(parent, []).append(p)
        else:
            roots.append(p)
    ordered = []
    stack = [(0, p) for p in sorted(roots, key=lambda p: p['name'],
                                    reverse=True)]
    while stack:
        depth, provider = stack.pop()
        ordered.append((depth, provider))
        kids = sorted(children.get(provider['uuid'], ()),
                      key=lambda p: p['name'], reverse=True)
        stack.extend((depth + 1, kid) for kid in kids)
    return ordered


def provider_usages(http, rp_uuid):
    """{resource class: amount used} of a provider."""
    return http.request('GET', common.url(
        'resource_providers', rp_uuid, 'usages')).field('usages', dict)


def _inventory_summary(http, rp_uuid):
    """'VCPU=2/16,MEMORY_MB=512/2048': used/capacity per resource class."""
    inventories = http.request('GET', common.url(
        'resource_providers', rp_uuid, 'inventories')).field(
            'inventories', dict)
    usages = provider_usages(http, rp_uuid)
    return ','.join(
        '%s=%s/%s' % (rc, usages.get(rc, 0), int(
            (inv['total'] - inv['reserved']) * inv['allocation_ratio']))
        for rc, inv in inventories.items())


class ShowResourceProviderTree(ProviderCommand, common.Lister):
    """Show the whole provider tree that contains a resource provider

    One row per provider, depth first: the root, then each child under its
    parent, names indented by depth in the table and value formats. Other
    formats (json, yaml, csv, shell) give the plain name and a ``depth``
    field instead.
    """

    min_version = NESTED
    TREE_FIELDS = ('name', 'uuid', 'generation', 'parent_provider_uuid')
    INDENTED_FORMATS = ('table', 'value')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--long', action='store_true',
            help='Also show each provider\'s inventory as '
                 '``<class>=<used>/<capacity>`` and its traits (three more '
                 'requests per provider)')
        return parser

    def take_action(self, parsed_args):
        http, rp_uuid = self.prepare_provider(parsed_args)
        providers = http.request('GET', BASE_URL, params={
            'in_tree': rp_uuid}).field('resource_providers', list)
        if not providers:
            raise exceptions.CommandError(
                "No resource provider with UUID '%s' found." % rp_uuid)
        indent = parsed_args.formatter in self.INDENTED_FORMATS
        fields = self.TREE_FIELDS
        if parsed_args.long:
            fields += ('inventory used/capacity', 'traits')
        if not indent:
            fields += ('depth',)
        rows = []
        for depth, provider in _tree_order(providers):
            row = dict(provider, depth=depth)
            if indent:
                row['name'] = '  ' * depth + provider['name']
            if parsed_args.long:
                row['inventory used/capacity'] = _inventory_summary(
                    http, provider['uuid'])
                row['traits'] = ','.join(http.request('GET', common.url(
                    'resource_providers', provider['uuid'],
                    'traits')).field('traits', list))
            rows.append(tuple(row.get(field) for field in fields))
        return fields, rows
