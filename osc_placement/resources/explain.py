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

"""``allocation candidate explain``: which trees are candidates, and why not.

The command takes the request as ``allocation candidate list`` does
(``cli.candidate_options``), then asks and evaluates it against every
tree (``api.verdicts``: Placement's verdict per tree, the local
evaluation's reasons where it agrees); ``--summary`` counts the trees
again without each constraint in turn (``verdicts.relaxed()``).
"""

import functools

from osc_placement.cli import batch
from osc_placement.cli import candidate_options
from osc_placement.cli import common
from osc_placement.cli import filters
from osc_placement.cli import request_groups
from osc_placement.cli import structured
from osc_placement.model import batch_names


class Reasons(structured.Column):
    """Every failing constraint of a tree.

    A list in json and yaml; in the table, '; ' between them.
    """

    def human_readable(self):
        return '; '.join(self._value)

    def machine_readable(self):
        return list(self._value)


# The first row of ``explain --summary``: nothing dropped.
AS_GIVEN = '(none: the request as given)'


class ExplainAllocationCandidate(batch.Batched,
                                 candidate_options.CandidateRequest,
                                 common.Lister):
    """Explain which provider trees are candidates for a request, and why not

    Takes the request as ``allocation candidate list`` does (without
    ``--limit``) and prints one row per root provider, in the order of
    ``resource provider list``: ``candidate`` is Placement's own answer
    (``GET /allocation_candidates`` returns an allocation request within
    the tree); ``reason`` is empty for a candidate, else the first
    constraint that rules the tree out, with its figures, e.g. ``VCPU: 4
    requested, 2 free (capacity 16, used 14)``. The reasons come from an
    evaluation of the request against each tree's inventories, usages,
    traits and aggregates (four requests per provider); where it does not
    agree with Placement the reason is ``unexplained`` (``--debug`` says
    what the evaluation found).

    Every tree considered gets a row, also those that ``--in-tree`` or
    ``--member-of`` rule out (the question is why a tree is left out);
    ``--resource-provider`` narrows the trees considered. Where a request
    within a tree (for a tree missing from a cut answer) fails,
    ``candidate`` is empty: not known.

    ``--summary`` instead counts the trees Placement finds candidates in
    for the request as given (the first row), then drops each constraint
    of the request in turn and counts again: the "relax one at a time"
    bisection of a "No valid host". Where Placement refuses the request
    as given, the rows are printed, then the refusal, and the command
    exits 1 (as ``capacity fit`` for a flavor Placement refuses).
    """

    offers_limit = False
    narrows_to_hosts = True
    # Not a command of the reference plugin: its usage shows every option.
    in_reference = False
    FIELDS = ('resource_provider', 'name', 'candidate', 'reason')
    SUMMARY_FIELDS = ('constraint', 'candidates_without_it')

    def add_output_options(self, parser):
        filters.add_resource_provider(
            parser, 'Consider only the tree of this provider (UUID or name): '
                    'the other trees get no row. May be repeated.')
        group = parser.add_mutually_exclusive_group()
        group.add_argument(
            '--long', action='store_true',
            help='Also show ``reasons``: every constraint that fails for '
                 'the tree, not only the first.')
        group.add_argument(
            '--summary', action='store_true',
            help='One row per constraint of the request instead: '
                 '``constraint`` (as given) and ``candidates_without_it``, '
                 'how many of the trees Placement finds candidates in '
                 'when only that constraint is dropped (one candidates '
                 'request per constraint), after a first row for the '
                 'request as given.')

    def run(self, parsed_args):
        self._refusal = None
        try:
            result = super().run(parsed_args)
        finally:
            # The request as given has no count: the question asked has
            # no answer. As capacity fit for a flavor Placement refuses,
            # the counts made are printed, then the refusal, and exit 1
            # (also said where other requests failed).
            if self._refusal is not None:
                self.log.error('The request as given is refused: %s',
                               self._refusal)
        return 1 if self._refusal is not None else result

    def take_action(self, parsed_args):
        # explain only: the local evaluation (see osc_placement.resources).
        from osc_placement.api import verdicts
        http, params, hosts = self.narrowed_request(parsed_args)
        runner = common.runner(self)
        trees = verdicts.Trees(runner, http, parsed_args.resource_provider,
                               hosts=hosts)
        if parsed_args.summary:
            dropped, params_of = self._constraints(http, parsed_args, params)
            rows, self._refusal = verdicts.relaxed(
                runner, http, trees, [(AS_GIVEN, None)] + dropped, params_of)
            return self.SUMMARY_FIELDS, rows
        trees.read()
        self.require_complete(batch_names.ROWS, batch_names.PROVIDERS)
        local, placement = verdicts.candidate_roots(runner, http, trees,
                                                    params)
        fields = self.FIELDS + (('reasons',) if parsed_args.long else ())
        rows = []
        for root in trees.roots:
            candidate = placement[root['uuid']]
            found = verdicts.reasons(local[root['uuid']], candidate)
            row = [root['uuid'], root['name'], candidate,
                   found[0] if found else '']
            if parsed_args.long:
                row.append(Reasons.column(found, parsed_args.formatter))
            rows.append(row)
        return fields, rows

    def _constraints(self, http, parsed_args, params):
        """([(label, drop)], params_of(drop)) of --summary.

        With --flavor, the constraints of the flavor's query, dropped
        from it; else those of the options, the query made again without
        each.
        """
        # The runs of candidates requests only: the --flavor options and
        # the rows of the answers (see osc_placement.resources).
        from osc_placement.cli import flavor_requests
        from osc_placement.model import candidates
        if flavor_requests.given(parsed_args):
            return (candidates.constraints(params),
                    functools.partial(candidates.without, params))
        return (request_groups.constraints(parsed_args),
                functools.partial(self.params_without, http, parsed_args))
