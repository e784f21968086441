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

"""Capacity: inventories and usages of many providers, side by side.

Placement has no request that returns them for many providers at once, so
the command reads the provider list once, then each provider's
inventories and usages (two requests per provider, several in flight).
"""

from osc_placement.resources import common
from osc_placement.resources import filters
from osc_placement.resources import parsers
from osc_placement.resources import providers

# One row per provider and resource class.
FIELDS = ('resource_provider', 'name', 'resource_class', 'total',
          'reserved', 'allocation_ratio', 'capacity', 'used', 'free')
# --summary: one row per resource class.
SUMMARY_FIELDS = ('resource_class', 'providers', 'total', 'reserved',
                  'capacity', 'used', 'free')
SUMMED = ('total', 'reserved', 'capacity', 'used', 'free')


class ListCapacity(filters.ManyProviders, common.Lister):
    """List the capacity, usage and free amount of resource providers

    One row per provider and resource class: the inventory (``total``,
    ``reserved``, ``allocation_ratio``), ``capacity`` (what consumers may
    allocate: ``(total - reserved) * allocation_ratio``, rounded down),
    ``used`` and ``free`` (``capacity - used``, negative on an
    over-committed provider). Providers without inventory give no rows.

    ``--summary`` adds the figures up per resource class, over the
    selected providers: the free capacity of a cloud, an aggregate or a
    host.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--resource-provider', metavar='<resource_provider>',
            action='append', default=[], type=parsers.non_empty,
            help='Only this provider (UUID or name). May be repeated.')
        self.add_selection(parser, 'in_tree', 'member_of', 'required')
        parser.add_argument(
            '--resource-class', metavar='<resource_class>', action='append',
            default=[], type=parsers.non_empty,
            help='Only this resource class. May be repeated.')
        parser.add_argument(
            '--summary', action='store_true',
            help='One row per resource class, summed over the providers: '
                 '``resource_class``, ``providers`` (how many have it), '
                 '``total``, ``reserved``, ``capacity``, ``used``, '
                 '``free``.')
        return parser

    def take_action(self, parsed_args):
        filters.check_aggregate_uuids(parsed_args.member_of)
        http = self.prepare(parsed_args)
        selected = self.select_providers(http, parsed_args)
        classes = set(parsed_args.resource_class)
        rows = []
        for provider, records in self.each_provider(
                http, lambda uuid: providers.provider_capacity(
                    http, uuid), selected):
            for rc in sorted(records):
                if classes and rc not in classes:
                    continue
                rows.append(dict(records[rc], resource_class=rc,
                                 resource_provider=provider['uuid'],
                                 name=provider['name']))
        if not parsed_args.summary:
            return FIELDS, [tuple(row[f] for f in FIELDS) for row in rows]
        # A total over the providers read would look complete.
        self.require_complete('totals')
        sums = {}
        for row in rows:
            total = sums.setdefault(row['resource_class'], dict(
                {name: 0 for name in SUMMED}, providers=0))
            total['providers'] += 1
            for name in SUMMED:
                total[name] += row[name]
        return SUMMARY_FIELDS, [
            (rc,) + tuple(sums[rc][f] for f in SUMMARY_FIELDS[1:])
            for rc in sorted(sums)]
