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

"""Usage commands: what is allocated, per provider or per project."""

from osc_placement.api import providers
from osc_placement.cli import common
from osc_placement import microversions


FIELDS = ('resource_class', 'usage')
# The columns of GET /usages, each with the microversion that shows it.
PROJECT_FIELDS = (
    ('consumer_type', microversions.CONSUMER_TYPES),
    ('resource_class', None),
    ('usage', None),
    ('consumer_count', microversions.CONSUMER_TYPES),
)
# The key of a consumer type group that is a count, not a resource class.
CONSUMER_COUNT = 'consumer_count'


def _per_class_rows(usages):
    return [(resource_class, amount)
            for resource_class, amount in usages.items()]


def _per_consumer_type_rows(usages):
    """One row per resource class of each consumer type, in server order."""
    rows = []
    for consumer_type, group in usages.items():
        count = group.get(CONSUMER_COUNT)
        for resource_class, amount in group.items():
            if resource_class == CONSUMER_COUNT:
                continue
            rows.append((consumer_type, resource_class, amount, count))
    return rows


class ResourceShowUsage(common.NamedCommand, common.Lister):
    """Show the resources used by a project (and a user), per class.

    The usages of all the allocations of the project given as
    ``<project-uuid>``, or only of those also owned by the user given with
    ``--user-id``.

    From ``--os-placement-api-version 1.38`` the usages are grouped by
    consumer type: each row gives the consumer type, the resource class,
    the amount used and how many consumers of that type hold allocations.
    """

    min_version = microversions.PROJECT_USAGES
    positional = ('project_id', '<project-uuid>', 'ID of the project')
    positional_in_path = False

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--user-id', metavar='<user-uuid>',
            help='ID of the user: only the allocations of this user')
        self.add_option(
            parser, '--consumer-type', metavar='<consumer-type>',
            since=microversions.CONSUMER_TYPES, extended=True,
            help='Only the allocations of consumers of this type (for '
                 'example INSTANCE or MIGRATION; ``all`` for every type, '
                 '``unknown`` for consumers without a type).')
        return parser

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        params = {'project_id': parsed_args.project_id}
        if parsed_args.user_id:
            params['user_id'] = parsed_args.user_id
        if parsed_args.consumer_type:
            params['consumer_type'] = parsed_args.consumer_type
        usages = http.request('GET', '/usages', params=params).field(
            'usages', dict)
        fields = common.columns(self, PROJECT_FIELDS)
        if 'consumer_count' in fields:
            return fields, _per_consumer_type_rows(usages)
        return fields, _per_class_rows(usages)


class ShowUsage(common.ProviderCommand, common.Lister):
    """Show the resources used on a resource provider, per class"""

    def take_action(self, parsed_args):
        http, rp_uuid = self.prepare_provider(parsed_args)
        usages = providers.provider_usages(http, rp_uuid)
        return FIELDS, _per_class_rows(usages)
