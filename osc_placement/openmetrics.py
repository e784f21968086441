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

"""The OpenMetrics text format for the capacity commands (``-f openmetrics``).

A cliff list formatter of the capacity commands' own formatter namespace
(``osc_placement.formatter.capacity``), not of every OpenStackClient
list: it knows the columns of ``capacity list``, ``capacity list
--summary`` and ``capacity fit`` and writes each figure as a gauge,
with ``# HELP`` and ``# TYPE`` lines, escaped label values and the
closing ``# EOF``, for node_exporter's textfile collector or a push
gateway.

The names and labels are openstack-exporter's where they mean the same
(``openstack_placement_resource_total``, ``..._reserved``,
``..._allocation_ratio``, ``..._usage``; labels ``hostname``, the
provider's name, and ``resourcetype``), so that its dashboards keep
working; ours beside them: ``..._capacity``, ``..._free``, and for
``capacity fit`` ``openstack_placement_fit`` per tree and
``openstack_placement_cloud_fit`` for all of them.
"""

import math

from cliff.formatters import base

# Column -> (metric, help), per shape of output.
_RESOURCE = (
    ('total', 'openstack_placement_resource_total',
     'Total of the inventory of a resource class'),
    ('reserved', 'openstack_placement_resource_reserved',
     'Amount of the inventory kept back, never allocated'),
    ('allocation_ratio', 'openstack_placement_resource_allocation_ratio',
     'Overcommit factor of the inventory'),
    ('used', 'openstack_placement_resource_usage',
     'Amount allocated to consumers'),
    ('capacity', 'openstack_placement_resource_capacity',
     'Amount consumers may allocate: (total - reserved) * '
     'allocation_ratio, rounded down'),
    ('free', 'openstack_placement_resource_free',
     'Capacity not allocated (negative when over-committed)'),
)
_SUMMARY = (('providers', 'openstack_placement_resource_providers',
             'Resource providers with an inventory of the class'),) + tuple(
    item for item in _RESOURCE if item[0] != 'allocation_ratio')


def escape(value):
    """A label value as OpenMetrics writes it between double quotes."""
    return str(value).replace('\\', '\\\\').replace(
        '"', '\\"').replace('\n', '\\n')


def number(value):
    """A sample value: integers as such, floats in full, None as NaN."""
    if value is None:
        return 'NaN'
    if isinstance(value, bool):
        return '1' if value else '0'
    if isinstance(value, int):
        return str(value)
    value = float(value)
    if math.isnan(value):
        return 'NaN'
    return repr(value)


def _labels(pairs):
    return '{%s}' % ','.join('%s="%s"' % (name, escape(value))
                             for name, value in pairs)


def families(column_names, rows, shape=None):
    """[(metric, help, [(labels, value)])] for the rows of a command."""
    columns = list(column_names)
    rows = [dict(zip(columns, row)) for row in rows]
    if 'fits' in columns and 'name' in columns:
        labels = [[('hostname', row['name']), ('shape', shape)]
                  for row in rows]
        return [
            ('openstack_placement_fit',
             'How many more allocations of the shape the tree takes now',
             [(label, row['fits']) for label, row in zip(labels, rows)]),
            ('openstack_placement_cloud_fit',
             'How many more allocations of the shape the trees take now, '
             'summed', [([('shape', shape)], _sum(row['fits']
                                                  for row in rows))]),
        ]
    if 'fits' in columns:
        return [
            ('openstack_placement_cloud_fit',
             'How many more allocations of the shape the trees take now, '
             'summed', [([('shape', shape)], row['fits']) for row in rows]),
            ('openstack_placement_cloud_fit_trees',
             'How many trees take at least one more allocation of the '
             'shape', [([('shape', shape)], row['trees']) for row in rows]),
        ]
    if 'providers' in columns:
        declared, key = _SUMMARY, lambda row: [
            ('resourcetype', row['resource_class'])]
    else:
        declared, key = _RESOURCE, lambda row: [
            ('hostname', row['name']),
            ('resourcetype', row['resource_class'])]
    return [(metric, help, [(key(row), row[column]) for row in rows])
            for column, metric, help in declared]


def _sum(values):
    values = list(values)
    return None if None in values else sum(values)


def render(found):
    """The OpenMetrics text of metric families, ending in ``# EOF``."""
    lines = []
    for metric, help, samples in found:
        lines.append('# HELP %s %s.' % (metric, help))
        lines.append('# TYPE %s gauge' % metric)
        for labels, value in samples:
            lines.append('%s%s %s' % (metric, _labels(labels),
                                      number(value)))
    lines.append('# EOF')
    return '\n'.join(lines) + '\n'


class OpenMetricsFormatter(base.ListFormatter):
    """``-f openmetrics``: the rows as OpenMetrics gauges."""

    def add_argument_group(self, parser):
        """No option of its own: the metrics follow from the columns."""

    def emit_list(self, column_names, data, stdout, parsed_args):
        shape = None
        if getattr(parsed_args, 'resource', None):
            shape = ','.join(value.replace(' ', '')
                             for value in parsed_args.resource)
        stdout.write(render(families(column_names, list(data), shape)))
