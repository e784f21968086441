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
list. The formatter guesses nothing from the columns it is handed: each
command declares its metrics (``Gauge``: a name, a help text, the column
of the value and the columns of the labels) and, through the ``Metrics``
mixin, hands the formatter the metric families of its rows. Each figure
is written as a gauge, with ``# HELP`` and ``# TYPE`` lines, escaped
label values and the closing ``# EOF``, for node_exporter's textfile
collector or a push gateway. ``-c`` and ``--sort-column`` do not apply
to it: they are refused in one line, before any request.

The names and labels are openstack-exporter's where they mean the same
(``openstack_placement_resource_total``, ``..._reserved``,
``..._allocation_ratio``, ``..._usage``; labels ``hostname``, the
provider's name, and ``resourcetype``), so that its dashboards keep
working; ours beside them: ``..._capacity``, ``..._free``, and for
``capacity fit`` ``openstack_placement_fit`` per tree and
``openstack_placement_cloud_fit`` for all of them.
"""

import abc
import math

from cliff.formatters import base
from osc_lib import exceptions

NAME = 'openmetrics'


class Gauge(object):
    """One metric a command declares.

    ``column``: the column of the value; ``labels``: (label, column)
    pairs, the labels of each sample taken from its row.
    """

    def __init__(self, name, help, column, labels=()):
        self.name = name
        self.help = help
        self.column = column
        self.labels = tuple(labels)

    def family(self, column_names, rows, constant=()):
        """(name, help, [(labels, value)]): one sample per row.

        constant: (label, value) pairs added to every sample.
        """
        index = {name: number for number, name in enumerate(column_names)}
        return (self.name, self.help, [
            ([(label, row[index[column]]) for label, column in self.labels]
             + list(constant), row[index[self.column]]) for row in rows])


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


class Metrics(object, metaclass=abc.ABCMeta):
    """Mixin of the commands that offer ``-f openmetrics``.

    The command declares its metrics in ``metric_families(parsed_args,
    column_names, rows)``: [(name, help, samples)], most simply
    ``Gauge.family()`` of its rows. With ``-f openmetrics`` these are
    written, every column of every row (``-c`` and ``--sort-column``
    are refused before any request); the other formats are cliff's.
    """

    def run(self, parsed_args):
        if parsed_args.formatter == NAME:
            for given, flag in ((parsed_args.columns, '-c'),
                                (getattr(parsed_args, 'sort_columns', None),
                                 '--sort-column')):
                if given:
                    raise exceptions.CommandError(
                        '%s cannot be used with -f openmetrics: it writes '
                        'every metric of the command.' % flag)
        return super().run(parsed_args)

    @abc.abstractmethod
    def metric_families(self, parsed_args, column_names, rows):
        """[(name, help, samples)]: what ``-f openmetrics`` writes."""

    def produce_output(self, parsed_args, column_names, data):
        if parsed_args.formatter != NAME:
            return super().produce_output(parsed_args, column_names, data)
        self.formatter.emit_families(
            self.metric_families(parsed_args, column_names, list(data)),
            self.app.stdout)
        return 0


class OpenMetricsFormatter(base.ListFormatter):
    """``-f openmetrics``: the metrics a command declares, as gauges."""

    def add_argument_group(self, parser):
        """No option of its own: the metrics are the command's."""

    def emit_families(self, found, stdout):
        stdout.write(render(found))

    def emit_list(self, column_names, data, stdout, parsed_args):
        # Reached only by a command without the Metrics mixin.
        raise exceptions.CommandError(
            '-f openmetrics: this command declares no metrics.')
