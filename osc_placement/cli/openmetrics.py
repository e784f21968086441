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
list. The formatter guesses nothing from the columns it is handed: the
commands declare their metrics (``metrics.Gauge``) and, through their
``metrics.Metrics`` mixin, hand it the metric families of what they
returned (:meth:`OpenMetricsFormatter.emit_families`). Each figure is
written as a gauge, with ``# HELP`` and ``# TYPE`` lines, escaped label
values and the closing ``# EOF``, for node_exporter's textfile collector
or a push gateway.

Only the text: the names of the metrics and their labels are the
commands' own. This module is loaded by the capacity commands alone,
when cliff makes one of them (it loads the formatters of a command's
namespace then, and ``openstack --help`` makes every command), never by
importing a command module.
"""

import math

from cliff.formatters import base
from osc_lib import exceptions

from osc_placement.model.text import printable


def escape(value):
    """A label value as OpenMetrics writes it between double quotes.

    Control characters first escaped as the tables show them
    (``text.printable()``): a carriage return in a provider name would
    make Prometheus refuse the whole scrape, an ESC would reach the
    terminal of whoever reads the file. Then OpenMetrics' own escapes.
    """
    return printable(value).replace('\\', '\\\\').replace('"', '\\"')


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


class OpenMetricsFormatter(base.ListFormatter):
    """``-f openmetrics``: the metrics a command declares, as gauges."""

    def add_argument_group(self, parser):
        """No option of its own: the metrics are the command's."""

    def emit_families(self, found, stdout):
        stdout.write(render(found))

    def emit_list(self, column_names, data, stdout, parsed_args):
        # Reached only by a command without metrics.Metrics.
        raise exceptions.CommandError(
            '-f openmetrics: this command declares no metrics.')
