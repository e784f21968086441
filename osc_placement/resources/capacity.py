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

"""``capacity list``: the capacity, usage and free amount of providers.

The command puts the inventories and usages of many providers side by
side. Placement has no request that returns them for many providers at
once, so the command reads the provider list once, then each provider's
inventories and usages (two requests per provider, several in flight).

It offers ``-f openmetrics`` (``cli.metrics``): it declares its metrics
here (``Gauge``: a name, a help text, the column of the value and the
columns of the labels). The names and labels are openstack-exporter's
where they mean the same (``openstack_placement_resource_total``,
``..._reserved``, ``..._allocation_ratio``, ``..._usage``; labels
``hostname``, the provider's name, and ``resourcetype``), so that its
dashboards keep working; ours beside them: ``..._capacity`` and
``..._free``.
"""

from osc_lib import exceptions

from osc_placement.api import providers
from osc_placement.cli import common
from osc_placement.cli import filters
from osc_placement.cli import metrics
from osc_placement.cli import parsers
from osc_placement import microversions
from osc_placement.model import batch_names
from osc_placement.model.text import printable
from osc_placement import version

# One row per provider and resource class.
FIELDS = ('resource_provider', 'name', 'resource_class', 'total',
          'reserved', 'allocation_ratio', 'capacity', 'used', 'free')
# --summary: one row per resource class.
SUMMARY_FIELDS = ('resource_class', 'providers', 'total', 'reserved',
                  'capacity', 'used', 'free')
SUMMED = ('total', 'reserved', 'capacity', 'used', 'free')


# -f openmetrics of capacity list: one gauge per column.
_HOST = (('hostname', 'name'), ('resourcetype', 'resource_class'))
_TOTAL = metrics.Gauge(
    'openstack_placement_resource_total',
    'Total of the inventory of a resource class', 'total', _HOST)
_RESERVED = metrics.Gauge(
    'openstack_placement_resource_reserved',
    'Amount of the inventory kept back, never allocated', 'reserved', _HOST)
_RATIO = metrics.Gauge(
    'openstack_placement_resource_allocation_ratio',
    'Overcommit factor of the inventory', 'allocation_ratio', _HOST)
_USED = metrics.Gauge(
    'openstack_placement_resource_usage', 'Amount allocated to consumers',
    'used', _HOST)
_CAPACITY = metrics.Gauge(
    'openstack_placement_resource_capacity',
    'Amount consumers may allocate: (total - reserved) * allocation_ratio, '
    'rounded down', 'capacity', _HOST)
_FREE = metrics.Gauge(
    'openstack_placement_resource_free',
    'Capacity not allocated (negative when over-committed)', 'free', _HOST)
METRICS = (_TOTAL, _RESERVED, _RATIO, _USED, _CAPACITY, _FREE)
# --summary: the same, per class, without the ratio; and the providers.
_CLASS = (('resourcetype', 'resource_class'),)
SUMMARY_METRICS = (metrics.Gauge(
    'openstack_placement_resource_providers',
    'Resource providers with an inventory of the class', 'providers',
    _CLASS),) + tuple(
        metrics.Gauge(gauge.name, gauge.help, gauge.column, _CLASS)
        for gauge in METRICS if gauge is not _RATIO)


def check_classes_exist(http, names):
    """Refuse in one line the resource classes Placement does not know.

    A mistyped class (``VCPUS``) would otherwise select no row, the empty
    table of a class that no provider has. One request, the list of every
    class (``/resource_classes`` exists from 1.2, which it is asked at
    where the session is below it).
    """
    at = http.api_version
    if not version.compare(at, version.ge(microversions.RESOURCE_CLASSES),
                           exc=False):
        at = microversions.RESOURCE_CLASSES
    known = providers.class_names(http, at)
    unknown = [name for name in dict.fromkeys(names) if name not in known]
    if unknown:
        raise exceptions.CommandError(
            'No resource class %s found (resource class list shows those '
            'that exist).' % ', '.join(
                "'%s'" % printable(name) for name in unknown))


class ListCapacity(metrics.Metrics, filters.ManyProviders,
                   common.Lister):
    """List the capacity, usage and free amount of resource providers

    One row per provider and resource class: the inventory (``total``,
    ``reserved``, ``allocation_ratio``), ``capacity`` (what consumers may
    allocate: ``(total - reserved) * allocation_ratio``, rounded down),
    ``used`` and ``free`` (``capacity - used``, negative on an
    over-committed provider). Providers without inventory give no rows.

    ``--summary`` adds the figures up per resource class, over the
    selected providers: the free capacity of a cloud, an aggregate or a
    host.

    ``-f openmetrics`` writes the figures in the OpenMetrics text format
    (the names of openstack-exporter's Placement metrics where they mean
    the same), for node_exporter's textfile collector.
    """

    formatter_namespace = metrics.FORMATTERS
    in_reference = False

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        filters.add_resource_provider(
            parser, 'Only this provider (UUID or name). May be repeated.')
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
        classes = set(parsed_args.resource_class)
        if classes:
            check_classes_exist(http, parsed_args.resource_class)
        selected = self.select_providers(http, parsed_args)
        # Tuples, not a dict per row: on 10,000 providers the rows are
        # a good part of the command's memory.
        rows = [(provider['uuid'], provider['name'], rc)
                + tuple(records[rc][name] for name in FIELDS[3:])
                for provider, records in self.each_provider(
                    http, lambda uuid: providers.provider_capacity(
                        http, uuid), selected)
                for rc in sorted(records) if not classes or rc in classes]
        held = set(row[2] for row in rows)
        for rc in dict.fromkeys(parsed_args.resource_class):
            if rc not in held:
                # An empty table is the answer; the line says it was no
                # typo (that one is refused above).
                self.log.warning('No resource provider selected has an '
                                 'inventory of %s.', printable(rc))
        if not parsed_args.summary:
            return FIELDS, rows
        # A total over the providers read would look complete.
        self.require_complete(batch_names.TOTALS, batch_names.PROVIDERS)
        at = [(name, FIELDS.index(name)) for name in SUMMED]
        sums = {}
        for row in rows:
            total = sums.setdefault(row[2], dict(
                {name: 0 for name in SUMMED}, providers=0))
            total['providers'] += 1
            for name, index in at:
                total[name] += row[index]
        return SUMMARY_FIELDS, [
            (rc,) + tuple(sums[rc][f] for f in SUMMARY_FIELDS[1:])
            for rc in sorted(sums)]

    def metric_families(self, parsed_args, column_names, rows):
        declared = SUMMARY_METRICS if parsed_args.summary else METRICS
        return [gauge.family(column_names, rows) for gauge in declared]
