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

"""``capacity fit``: how many more allocations of a shape each tree takes.

Placement says which trees take one now, the evaluation
(``evaluation.fit``) how many. The command takes the shape
(``--resource``, or each flavor's request: ``cli.flavor_requests``) and
its filters, has the requests asked and each tree counted
(``api.fit_requests``) and returns a row per tree (``model.fit_rows``), or
one for all of them.

``-f openmetrics`` (``cli.metrics``): the metrics are declared here,
``openstack_placement_fit`` and ``openstack_placement_fit_at_most`` per
tree, ``openstack_placement_cloud_fit`` and its ``_at_most`` for all of
them, labelled with the request (``shape``); with
``--flavor``, os-capacity's names beside them. They are made of what
``take_action`` returns: the rows, and beside them each request with
what the output needs of the rows of its trees (``fit_rows.Reduced``).
"""

from osc_placement.cli import candidate_options
from osc_placement.cli import common
from osc_placement.cli import filters
from osc_placement.cli import metrics
from osc_placement.cli import request_groups
from osc_placement import microversions
from osc_placement.model import batch_names

FIELDS = ('resource_provider', 'name', 'fits', 'at_most', 'limited_by')
SUMMARY_FIELDS = ('fits', 'at_most', 'trees', 'limited_by')

# What the options of the request mean to fit, beside what they ask for
# (added to their help, as candidate_options declares them).
OPTION_NOTES = {
    'resource': 'The amount is a positive integer; each class once per '
                'group.',
    'required': 'Part of the shape, not of the selection: a tree without '
                'it keeps its row, with fits 0 and the reason.',
    'forbidden': 'Part of the shape, not of the selection: a tree with it '
                 'keeps its row, with fits 0 and the reason.',
    'member_of': 'Before the first --group, it also selects the trees: '
                 'only those with a provider in the aggregates get a row.',
    'in_tree': 'Before the first --group, it also selects the tree: only '
               'it gets a row.',
}

# -f openmetrics: per tree, and for all of them.
FIT = metrics.Gauge(
    'openstack_placement_fit',
    'How many more allocations of the shape the tree takes now',
    'fits', (('hostname', 'name'),))
FIT_AT_MOST = metrics.Gauge(
    'openstack_placement_fit_at_most',
    'At most how many more allocations of the shape the tree takes now',
    'at_most', (('hostname', 'name'),))
CLOUD_FIT = metrics.Gauge(
    'openstack_placement_cloud_fit',
    'How many more allocations of the shape the trees take now, '
    'together', 'fits')
CLOUD_FIT_AT_MOST = metrics.Gauge(
    'openstack_placement_cloud_fit_at_most',
    'At most how many more allocations of the shape the trees take now, '
    'together', 'at_most')
CLOUD_TREES = metrics.Gauge(
    'openstack_placement_cloud_fit_trees',
    'How many trees take at least one more allocation of the shape',
    'trees')

# With --flavor: the flavor and its own request (shape) label them;
# and os-capacity's names, labelled as os-capacity labels them.
FLAVOR_LABELS = (('flavor', 'flavor'), ('shape', 'shape'))
FLAVOR_COLUMNS = ('flavor', 'shape') + FIELDS
FLAVOR_SUMMARY_COLUMNS = ('flavor', 'shape') + SUMMARY_FIELDS
FLAVOR_FIT = tuple(metrics.Gauge(
    gauge.name, gauge.help, gauge.column,
    (('hostname', 'name'),) + FLAVOR_LABELS)
    for gauge in (FIT, FIT_AT_MOST))
FLAVOR_CLOUD = tuple(metrics.Gauge(
    gauge.name, gauge.help, gauge.column, FLAVOR_LABELS)
    for gauge in (CLOUD_FIT, CLOUD_FIT_AT_MOST, CLOUD_TREES))
BY_FLAVOR_TOTAL = metrics.Gauge(
    'openstack_free_capacity_by_flavor_total',
    'How many more servers of the flavor the cloud takes now (as '
    'os-capacity names it)', 'fits', (('flavor_name', 'flavor'),))
BY_FLAVOR_HYPERVISOR = metrics.Gauge(
    'openstack_free_capacity_hypervisor_by_flavor',
    'How many more servers of the flavor the tree takes now (as '
    'os-capacity names it)', 'fits', (('hypervisor', 'name'),
                                      ('flavor_name', 'flavor')))


class FitCapacity(metrics.Metrics, filters.ManyProviders,
                  candidate_options.CandidateRequest, common.Lister):
    """Count how many more allocations of a shape each provider tree takes

    The shape is a request as ``allocation candidate list`` takes it
    (without ``--limit``): resources (``--resource VCPU=4 --resource
    MEMORY_MB=8192``), the traits they need or must not land on
    (``--required``, ``--forbidden``), request groups (``--group``, each
    served by one provider), ``--group-policy``, ``--same-subtree`` and
    ``--root-required``; or a flavor's request (``--flavor``). For
    example ``--group 1 --resource VGPU=1 --group 2 --resource VGPU=1
    --group-policy isolate`` counts the servers of two vGPUs, each on
    its own GPU. One row per root provider, in the order of ``resource
    provider list``: ``fits``, how many more allocations of the shape the
    tree can take now, and ``limited_by``, the resource class that bounds
    it, or, when nothing fits, the reason in the words of ``allocation
    candidate explain``.

    Which trees get a row: all of them, or those that ``--member-of``,
    ``--in-tree`` and ``--resource-provider`` select, as they select
    providers in ``capacity list`` (a tree with a provider selected);
    ``--member-of`` and ``--in-tree`` are part of the request too. Only
    those given before the first ``--group`` select trees; those of a
    group only shape it. A tree outside the selection gets no row.
    ``--required`` and ``--forbidden`` only shape the request: a tree
    without the trait keeps its row, with ``fits`` 0 and the reason.

    A tree counts only where Placement itself gives a candidate for one
    allocation of the shape now (``GET /allocation_candidates``). Each
    row is a range proven at both ends: ``fits``, a number of allocations
    that can be placed at once, every rule of Placement met (per group,
    its traits, aggregates, tree, ``min_unit``, ``max_unit`` and
    ``step_size``; between the groups, ``group_policy``, ``same_subtree``
    and ``root_required``; the amounts of one provider and class summed
    against its free capacity and ``max_unit``), and ``at_most``, a bound
    no placement beats (per class, per group, and with ``isolate`` the
    distinct providers each allocation needs). Where they meet the count
    is exact and ``limited_by`` is what bounds it (a resource class, a
    group, ``group_policy isolate``); where they differ, ``limited_by``
    also says what keeps them apart. A tree that takes a class from a
    sharing provider of its aggregates (``MISC_SHARES_VIA_AGGREGATE``) is
    counted as if it alone drew from it; where the pool bounds it,
    ``limited_by`` names the pool and how many trees share it.

    ``--summary`` prints one row: ``fits`` and ``at_most`` for the trees
    together, each sharing pool counted once (``fits`` reachable,
    ``at_most`` a bound for the whole selection), ``trees`` (how many
    take at least one) and ``limited_by`` (the class that bounds the
    most trees, or the pool that bounds them together; where nothing
    fits, the reason most trees give). ``-f openmetrics`` writes
    ``openstack_placement_fit`` (``fits``) and
    ``openstack_placement_fit_at_most`` per tree,
    ``openstack_placement_cloud_fit``,
    ``openstack_placement_cloud_fit_at_most`` and
    ``openstack_placement_cloud_fit_trees`` for them all, labelled
    with the whole request in one canonical text (``shape``: the classes
    sorted, then the traits, aggregates and tree, then each group).

    With several flavors (``--flavor`` repeated, ``--all-flavors``), a
    flavor whose request Placement refuses or that cannot be asked for
    gets one row in its place, ``fits`` empty and ``limited_by`` saying
    why; its error follows on stderr, and the command exits 1.
    """

    min_version = microversions.ALLOCATION_CANDIDATES
    formatter_namespace = metrics.FORMATTERS
    in_reference = False
    # The request of allocation candidate list, without --limit, with
    # several flavors; only the trees of Nova's default zone's hosts.
    offers_limit = False
    several_flavors = True
    narrows_to_hosts = True
    option_notes = OPTION_NOTES

    def add_output_options(self, parser):
        filters.add_resource_provider(
            parser, 'Only the tree of this provider (UUID or name) gets a '
                    'row. May be repeated.')
        parser.add_argument(
            '--summary', action='store_true',
            help='One row for all the trees: ``fits`` and ``at_most`` '
                 '(the trees together, each sharing pool counted once), '
                 '``trees`` (how many take at least one) and '
                 '``limited_by`` (the class that bounds the most trees, '
                 'or, where nothing fits, the reason most trees give). '
                 'With several flavors, one such row per flavor, led by '
                 '``flavor``.')

    def check_request_values(self, groups):
        """A shape: amounts of at least 1, each class once per group.

        And aggregate UUIDs: a selection, not only a request, is made of
        ``--member-of``.
        """
        request_groups.require_resources(groups)
        for group in groups.values():
            if group.get('resource'):
                request_groups.parse_shape(group['resource'])
            filters.check_aggregate_uuids(group.get('member_of', []))

    def flavor_replaces(self, groups):
        """The line that refuses ``--resource`` or ``--group`` with a flavor.

        groups: True where a --group is given.
        """
        return ('--flavor and --all-flavors replace %s: give one or the '
                'other.' % ('--resource and --group' if groups
                            else '--resource'))

    def take_action(self, parsed_args):
        # fit only: the local evaluation and the rows of a fit (see
        # osc_placement.resources).
        from osc_placement.api import fit_requests
        from osc_placement.api import verdicts
        from osc_placement.model import fit_rows
        http, asked, hosts = self._requests(parsed_args)
        runner = common.runner(self)
        trees = verdicts.Trees(runner, http, parsed_args.resource_provider,
                               fit_requests.selection(asked), hosts=hosts)
        # One candidates request per flavor, several in flight. With
        # several flavors, each failure is reported after the rows, the
        # command exits 1, and the failed flavor gets a row saying why.
        answers, failures = fit_requests.ask_each(runner, http, trees, asked)
        # The trees are read after the candidates requests, whose answers
        # are cut down as they arrive: on a big cloud the records of every
        # provider and a whole answer are then not held at once.
        trees.read()
        # Every provider of the trees, not every flavor: a flavor that
        # failed has its row.
        self.require_complete(
            batch_names.TOTALS if parsed_args.summary else batch_names.ROWS,
            batch_names.PROVIDERS)
        # One request at a time, each request's rows reduced to what the
        # output needs as soon as they are counted, and (but for -f
        # openmetrics) written before the next is counted.
        answered = set(answers)
        counted = fit_requests.count_each(
            runner, http, trees, asked, answers,
            reduce=lambda tree_rows: fit_rows.Reduced.of(
                tree_rows, keep_rows=not parsed_args.summary))
        several = len(asked) > 1
        fields = (('flavor',) if several else ()) + (
            SUMMARY_FIELDS if parsed_args.summary else FIELDS)
        if parsed_args.formatter != metrics.OPENMETRICS:
            return fields, _shown(asked, answered, counted, failures,
                                  parsed_args.summary)
        # -f openmetrics: each request with what its output needs of the
        # rows of its trees (fit_rows.Reduced; None: no answer).
        counted = dict(counted)
        facts = [(one, counted.get(index))
                 for index, one in enumerate(asked)]
        return fields, metrics.Rows(
            _shown(asked, answered, counted.items(), failures,
                   parsed_args.summary),
            facts)

    def _requests(self, parsed_args):
        """(client, [fit_rows.Asked], hosts): the request's or each flavor's.

        hosts: those of Nova's default zone, whose trees alone count (None:
        any tree).

        Every value checked before the first request, as ``allocation
        candidate list`` checks them (``candidate_options``).
        """
        # fit only: the --flavor options and the rows of a fit (see
        # osc_placement.resources).
        from osc_placement.cli import flavor_requests
        from osc_placement.model import fit_rows
        flavor_requests.check(parsed_args, replaced=())
        if not flavor_requests.given(parsed_args):
            http, params = self.groups_request(parsed_args)
            return http, [fit_rows.Asked(None, params, None, False)], None
        http, flavored = self.flavor_requests(parsed_args)
        return (http, [_asked(one) for one in flavored],
                flavor_requests.zone_hosts(flavored))

    def metric_families(self, parsed_args, column_names, rows):
        """The metrics of the rows and of the requests beside them."""
        # fit only: the --flavor options, the rows of the answers and of
        # the fit (see osc_placement.resources).
        from osc_placement.cli import flavor_requests
        from osc_placement.model import candidates
        from osc_placement.model import fit_rows
        if flavor_requests.given(parsed_args):
            return _flavor_families(parsed_args.summary, [
                (one.name, candidates.shape_label(one.params), reduced)
                for one, reduced in rows.facts if reduced is not None])
        one, reduced = rows.facts[0]
        label = [('shape', candidates.shape_label(one.params))]
        cloud = (CLOUD_FIT, CLOUD_FIT_AT_MOST, CLOUD_TREES)
        if parsed_args.summary:
            return [gauge.family(column_names, rows, label)
                    for gauge in cloud]
        # The cloud figures are those of --summary.
        total = [reduced.summary if reduced is not None
                 else fit_rows.summary([])]
        return [gauge.family(column_names, rows, label)
                for gauge in (FIT, FIT_AT_MOST)] + [
            gauge.family(SUMMARY_FIELDS, total, label) for gauge in cloud]

    def produce_output(self, parsed_args, column_names, data):
        """The rows; in a table, no count (None) is an empty cell.

        ``-f json`` and ``-f yaml`` keep ``null``, what a script tests.
        The rows are taken as they are counted: ``-f csv`` and ``-f
        value`` write each flavor's before the next is counted.
        """
        if parsed_args.formatter in common.ESCAPED_FORMATS:
            data = (tuple('' if value is None else value for value in row)
                    for row in data)
        return super().produce_output(parsed_args, column_names, data)


def _shown(asked, answered, counted, failures, summary):
    """Yield the rows shown, request by request, in the order asked.

    answered: the indexes of the requests answered; counted: (index,
    fit_rows.Reduced) of each of them, in order, each counted only once
    the rows before it are taken (``fit_requests.count_each()``);
    failures: {index: why the request has no answer}, its one row. With
    several requests, each row is led by the flavor's name. A request
    neither answered nor failed (not tried: a signal, a dead endpoint)
    has no row: stderr says why.
    """
    several = len(asked) > 1
    counted = iter(counted)
    for index, one in enumerate(asked):
        lead = (one.name,) if several else ()
        if index in answered:
            reduced = next(counted)[1]
            shown = [reduced.summary] if summary else reduced.shown
        elif index in failures:
            # One row: the request failed, not any tree.
            shown = [(None, None, None, failures[index]) if summary
                     else (None, None, None, None, failures[index])]
        else:
            continue
        for row in shown:
            yield lead + row


def _asked(flavored):
    """The fit_rows.Asked of a flavor_requests.Flavored."""
    # Runs only: the rows of a fit (see osc_placement.resources).
    from osc_placement.model import fit_rows
    if flavored.refused:
        return fit_rows.Asked(flavored.name, None, flavored.refused.reason,
                              False)
    return fit_rows.Asked(flavored.name, flavored.params, None,
                          not flavored.translation.complete)


def _flavor_families(summary, per_flavor):
    """The metrics of --flavor: [(flavor, shape label, fit_rows.Reduced)].

    Only the flavors Placement answered for: a flavor refused or not
    asked for has no samples (OpenMetrics has no comment line to say
    why; its line on stderr and the exit code do).
    """
    totals = [(name, shape) + reduced.summary
              for name, shape, reduced in per_flavor]
    cloud = [gauge.family(FLAVOR_SUMMARY_COLUMNS, totals)
             for gauge in FLAVOR_CLOUD]
    by_total = BY_FLAVOR_TOTAL.family(FLAVOR_SUMMARY_COLUMNS, totals)
    if summary:
        return cloud + [by_total]
    trees = [(name, shape) + row
             for name, shape, reduced in per_flavor for row in reduced.shown]
    return [gauge.family(FLAVOR_COLUMNS, trees) for gauge in FLAVOR_FIT] \
        + cloud + [by_total,
                   BY_FLAVOR_HYPERVISOR.family(FLAVOR_COLUMNS, trees)]
