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

"""``resource provider drain plan``: where each consumer of hosts would go.

The reads are ``cli/drain.py``'s, the plan ``model/drain/``'s; this
module parses, calls them and returns the rows.
"""

import time

from osc_lib import exceptions

from osc_placement.cli import batch
from osc_placement.cli import common
from osc_placement.cli import parsers
from osc_placement.cli import structured
from osc_placement import errors
from osc_placement.http import inflight
from osc_placement import microversions
from osc_placement.model import amounts

# As the audit's "found": some consumers cannot move.
STUCK = 3

FIELDS = ('consumer', 'server', 'from', 'to', 'resources', 'reason')
LONG_FIELDS = ('allocations', 'command')


class Amounts(structured.Column):
    """{class: amount}, or {provider: {class: amount}}; None: empty.

    An object in json and yaml; in the table, ``CLASS=amount`` pairs
    (after ``provider:`` and between providers, ``; ``).
    """

    def human_readable(self):
        if all(isinstance(v, dict) for v in self._value.values()):
            return '; '.join('%s: %s' % (rp, amounts.text(self._value[rp]))
                             for rp in sorted(self._value))
        return amounts.text(self._value)

    def machine_readable(self):
        return dict(self._value)

    @classmethod
    def column(cls, value, formatter):
        return '' if value is None else super().column(value, formatter)


class PlanDrain(batch.Batched, common.Lister):
    """Plan where every consumer of drained hosts would go; write nothing

    Reads the trees of the providers given (and of the members of
    ``--aggregate``), the allocations on them, each of their consumers,
    and the inventories and usages of every target tree, then prints one
    row per consumer of the drained trees: the target root it would go to
    (``to``), or why it cannot move (``reason``).

    A part of a consumer on a drained root goes to a target root; a part
    on a child provider (a vGPU, a PCI device) to a child of the same
    target tree with that class; a part on a sharing provider stays, and
    the target tree must share its aggregate. Capacity, ``min_unit``,
    ``max_unit`` and ``step_size`` hold with every move of the plan summed.
    Targets: roots with ``COMPUTE_NODE`` that are not drained and not
    ``COMPUTE_STATUS_DISABLED``, narrowed by ``--target`` and
    ``--target-aggregate``.

    With the compute API in the session: the ``server`` column, the
    traits of each server's flavor as Nova's scheduler asks for them,
    its availability zone (the pinned one, compute 2.96 and later; else
    the zone it is in), no target that no hypervisor has or whose
    compute service is disabled, and the consumers left as they are (no
    server, a deleted one, a migration, a task state, building, a
    migration in progress, a server running on another hypervisor, a
    status Nova migrates in neither way). A stopped server's command is
    a cold migration.

    The plan moves the most consumers that can move at once (proven on
    small clouds; where the search is cut, the summary says the count
    is a lower bound), on the emptiest targets first. ``--long`` adds
    ``allocations``, all the consumer would hold, as ``POST
    /allocations`` takes them, and ``command``, the ``openstack server
    migrate`` line of a server that moves. A summary on stderr: "N of M
    consumers can move; K cannot".
    """

    min_version = microversions.CONSUMER_GENERATION
    in_reference = False
    exit_codes = (
        'Exit codes: 0 every consumer can move (or there is none), 3 some '
        'cannot; 1 for an error, 2 for a usage error; 130 (143) after '
        'Ctrl-C (SIGTERM). Nothing is ever written.')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'providers', metavar='<resource_provider>', nargs='*',
            type=parsers.non_empty,
            help='Drain the trees of these providers (UUID or name).')
        parser.add_argument(
            '--aggregate', metavar='<aggregate_uuid>', type=parsers.uuid,
            help='Drain the trees of the providers in this aggregate.')
        parser.add_argument(
            '--target', metavar='<resource_provider>', action='append',
            type=parsers.non_empty, default=[],
            help='Move only to the tree of this provider (UUID or name). '
                 'May be repeated.')
        parser.add_argument(
            '--target-aggregate', metavar='<aggregate_uuid>',
            type=parsers.uuid,
            help='Move only to the trees of the providers in this '
                 'aggregate.')
        parser.add_argument(
            '--long', action='store_true',
            help='Add the allocations each consumer would hold and the '
                 'command that moves its server.')
        return parser

    def usage_errors(self, parsed_args):
        if not parsed_args.providers and not parsed_args.aggregate:
            return ['give the providers to drain, or --aggregate']
        return []

    def run(self, parsed_args):
        self._exit = 0
        result = super().run(parsed_args)
        return result or self._exit

    def take_action(self, parsed_args):
        try:
            with inflight.sigterm_raises():
                return self._plan(parsed_args)
        except (KeyboardInterrupt, inflight.Terminated) as exc:
            # Ctrl-C or SIGTERM in a read of its own (the batches say
            # theirs).
            raise errors.Interrupted(
                'Interrupted: the plan was reading; no rows printed.',
                inflight.signal_of(exc)) from None

    def _plan(self, parsed_args):
        # Runs only: the reads and the engine (see osc_placement.resources).
        from osc_placement.cli import drain
        from osc_placement.model import drain as engine
        http = self.prepare(parsed_args)
        read = drain.read(self, http, parsed_args)
        if not read.cloud.drained:
            raise exceptions.CommandError('Nothing to drain.')
        started = time.thread_time()
        plan = engine.search.plan(read.cloud)
        self.log.debug('The plan of %d consumers over %d target trees took '
                       '%.2f s of CPU.', plan.total, len(read.cloud.targets),
                       time.thread_time() - started)
        self._summary(plan)
        if plan.moved < plan.total:
            self._exit = STUCK
        names = {uuid: p.name for uuid, p in read.cloud.providers.items()}
        fields = FIELDS + (LONG_FIELDS if parsed_args.long else ())
        rows = []
        for row in plan.rows:
            found = [row.consumer, row.server,
                     names.get(row.source_root, row.source_root or ''),
                     names.get(row.target_root, '') if row.target_root
                     else '',
                     Amounts.column(row.resources, parsed_args.formatter),
                     row.reason]
            if parsed_args.long:
                found.append(Amounts.column(row.allocations,
                                            parsed_args.formatter))
                found.append(drain.command(read, row))
            rows.append(found)
        return fields, rows

    def _summary(self, plan):
        if not plan.total:
            self.log.warning('The drained trees hold no allocations: there '
                             'is nothing to move.')
            return
        cannot = plan.total - plan.moved
        self.log.warning('%d of %d consumer%s can move; %d cannot.',
                         plan.moved, plan.total,
                         '' if plan.total == 1 else 's', cannot)
        if not plan.exact:
            self.log.warning(
                'The search was cut: %d is a lower bound; a plan might '
                'move up to %d more.', plan.moved, plan.might_improve)
