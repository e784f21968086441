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

"""The resource provider commands: create, list, show, set, delete.

The filters of ``list`` are declared in ``filters.py``, the lookups by
name in ``providers.py``; the tree views live in ``tree.py``.
"""

from osc_lib import utils

from osc_placement.api import paths
from osc_placement.api import providers
from osc_placement.cli import batch
from osc_placement.cli import common
from osc_placement.cli import filters
from osc_placement.cli import parsers
from osc_placement import microversions
from osc_placement.model import batch_names

# The provider columns, each with the microversion that added it.
PROVIDER_FIELDS = (
    ('uuid', None),
    ('name', None),
    ('generation', None),
    ('root_provider_uuid', microversions.NESTED_PROVIDERS),
    ('parent_provider_uuid', microversions.NESTED_PROVIDERS),
)


class CreateResourceProvider(common.ShowOne):
    """Create a new resource provider"""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.add_option(
            parser, '--parent-provider', metavar='<parent_provider>',
            type=parsers.non_empty, since=microversions.NESTED_PROVIDERS,
            help='UUID or name of the parent provider. Omit for no parent.')
        parser.add_argument(
            '--uuid', metavar='<uuid>', type=parsers.non_empty,
            help='UUID of the resource provider (default: chosen by the '
                 'server)')
        parser.add_argument(
            'name', metavar='<name>', type=common.new_name,
            help='Name of the resource provider')
        return parser

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        data = {'name': parsed_args.name}
        if parsed_args.uuid:
            data['uuid'] = parsed_args.uuid
        if parsed_args.parent_provider:
            data['parent_provider_uuid'] = providers.find_provider(
                http, parsed_args.parent_provider)
        resp = http.request('POST', providers.BASE_URL, json=data)
        resource = http.request(
            'GET', providers.created_provider_path(resp)).json_object()
        fields = common.columns(self, PROVIDER_FIELDS)
        return fields, utils.get_dict_properties(resource, fields)


class ListResourceProvider(common.Lister):
    """List resource providers"""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        filters.add(self, parser, 'uuid', 'name', 'resource', 'in_tree',
                    'required', 'forbidden', 'member_of', 'aggregate_uuid')
        return parser

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        params = filters.query(self, http, parsed_args)
        found = http.request('GET', providers.BASE_URL, params=params).field(
            'resource_providers', list)
        fields = common.columns(self, PROVIDER_FIELDS)
        return fields, (utils.get_dict_properties(p, fields)
                        for p in found)


class ShowResourceProvider(common.ProviderCommand, common.ShowOne):
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
        resource = http.request('GET', paths.url(
            'resource_providers', rp_uuid)).json_object()
        fields = common.columns(self, PROVIDER_FIELDS)
        if parsed_args.allocations:
            resource['allocations'] = http.request('GET', paths.url(
                'resource_providers', rp_uuid,
                'allocations')).field('allocations', dict)
            fields += ('allocations',)
        return fields, utils.get_dict_properties(resource, fields)


class SetResourceProvider(common.ProviderCommand, common.ShowOne):
    """Update an existing resource provider"""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--name', metavar='<name>', required=True,
            type=common.printable_text,
            help='A new name of the resource provider')
        parents = parser.add_mutually_exclusive_group()
        self.add_option(
            parents, '--parent-provider', metavar='<parent_provider>',
            type=parsers.non_empty, since=microversions.NESTED_PROVIDERS,
            help='UUID or name of the parent provider. Before %s it can '
                 'only be set on a provider without a parent; from %s it '
                 'also moves the provider to another parent.'
                 % (microversions.REPARENT, microversions.REPARENT))
        self.add_option(
            parents, '--no-parent', action='store_true',
            since=microversions.REPARENT, extended=True,
            help='Make the provider a root provider (detach it from its '
                 'parent).')
        return parser

    def take_action(self, parsed_args):
        http, rp_uuid = self.prepare_provider(parsed_args)
        data = {'name': parsed_args.name}
        if parsed_args.parent_provider:
            data['parent_provider_uuid'] = providers.find_provider(
                http, parsed_args.parent_provider)
        elif parsed_args.no_parent:
            data['parent_provider_uuid'] = None
        resource = http.request('PUT', paths.url(
            'resource_providers', rp_uuid), json=data).json_object()
        fields = common.columns(self, PROVIDER_FIELDS)
        return fields, utils.get_dict_properties(resource, fields)


class DeleteResourceProvider(common.ProviderCommand, common.Command):
    """Delete resource providers

    Several providers can be given: each is deleted in turn, and the
    failures are reported at the end.
    """

    more_help = 'More providers (UUID or name) can follow.'

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        return batch.delete_each(
            self, http, self.named(parsed_args),
            lambda value: http.request('DELETE', paths.url(
                'resource_providers', providers.find_provider(http, value))),
            batch_names.PROVIDERS)
