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

"""How a command declares its metrics for ``-f openmetrics``.

``Gauge``: one metric (a name, a help text, the column of the value and
the columns of the labels); the ``Metrics`` mixin hands the formatter
(``osc_placement.cli.openmetrics``, the text format alone, which cliff
loads from the commands' own formatter namespace ``FORMATTERS``) the
metric families the command makes of what its ``take_action`` returned:
its rows and, where the rows do not say it all, the facts beside them
(``Rows``). ``-c`` and ``--sort-column`` do not apply to the format and
are refused in one line, before any request.
"""

import abc
import dataclasses
import typing

from osc_lib import exceptions

# The output formats of the capacity commands: cliff's, and openmetrics.
FORMATTERS = 'osc_placement.formatter.capacity'
# The name of the OpenMetrics formatter in FORMATTERS (setup.cfg).
OPENMETRICS = 'openmetrics'


class Gauge(object):
    """One metric a command declares for ``-f openmetrics``.

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


@dataclasses.dataclass(frozen=True)
class Rows(object):
    """The rows a ``take_action`` returns, with the facts beside them.

    A value the command returns, read by ``metric_families()``: nothing
    of it is kept on the command. Iterating it gives the rows, as cliff's
    formatters take them. ``facts``: what the command's
    ``metric_families()`` needs that the rows shown do not hold (None:
    nothing).
    """

    rows: typing.Iterable = ()
    facts: typing.Any = None

    def __post_init__(self):
        # Each metric reads every row: the rows are held, once.
        object.__setattr__(self, 'rows', tuple(self.rows))

    def __iter__(self):
        return iter(self.rows)


class Metrics(object, metaclass=abc.ABCMeta):
    """Mixin of the commands that offer ``-f openmetrics``.

    The command declares its metrics in ``metric_families(parsed_args,
    column_names, rows)``: [(name, help, samples)], most simply
    ``Gauge.family()`` of its rows; ``rows`` is what its ``take_action``
    returned, as :class:`Rows`. With ``-f openmetrics`` these are
    written, every column of every row (``-c`` and ``--sort-column``
    are refused before any request); the other formats are cliff's.
    """

    def run(self, parsed_args):
        if parsed_args.formatter == OPENMETRICS:
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
        if parsed_args.formatter != OPENMETRICS:
            return super().produce_output(parsed_args, column_names, data)
        rows = data if isinstance(data, Rows) else Rows(data)
        # The formatter cliff made from FORMATTERS: the text format.
        self.formatter.emit_families(
            self.metric_families(parsed_args, column_names, rows),
            self.app.stdout)
        return 0
