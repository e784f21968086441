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

"""Resource provider aggregate commands."""

from osc_placement.api import providers
from osc_placement.cli import common
from osc_placement import microversions

FIELDS = ('uuid',)


def _rows(aggregates):
    return [(aggregate,) for aggregate in aggregates]


class ListAggregate(common.ProviderCommand, common.Lister):
    """List the aggregates of a resource provider"""

    min_version = microversions.PROVIDER_AGGREGATES

    def take_action(self, parsed_args):
        http, rp_uuid = self.prepare_provider(parsed_args)
        aggregates, _generation = providers.aggregates_of(http, rp_uuid)
        return FIELDS, _rows(aggregates)


class SetAggregate(common.ProviderCommand, common.Lister):
    """Replace the aggregates of a resource provider.

    The provider ends up in exactly the aggregates given: it leaves the
    others. With no ``--aggregate`` it leaves all of them.

    From ``--os-placement-api-version 1.19`` the provider generation must
    be given with ``--generation``; the server refuses the change if the
    provider changed since that generation was read.
    """

    min_version = microversions.PROVIDER_AGGREGATES

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--aggregate', metavar='<aggregate_uuid>', action='append',
            default=[],
            help='UUID of an aggregate. May be repeated to put the provider '
                 'in several aggregates.')
        self.add_option(
            parser, '--generation',
            metavar='<resource_provider_generation>', type=int,
            since=microversions.AGGREGATES_GENERATION,
            required_since=microversions.AGGREGATES_GENERATION,
            missing_error='A generation must be specified.',
            help='The generation of the resource provider, as last read. '
                 'The change is refused if it does not match the server\'s.')
        return parser

    def take_action(self, parsed_args):
        http, rp_uuid = self.prepare_provider(parsed_args)
        # From 1.19 the aggregates are written with the provider
        # generation (and the server refuses a stale one).
        aggregates, _generation = providers.set_aggregates(
            http, rp_uuid, parsed_args.aggregate, parsed_args.generation)
        return FIELDS, _rows(aggregates)
