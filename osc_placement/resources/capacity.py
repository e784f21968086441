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

"""Capacity: ``capacity list`` and ``capacity fit``.

``capacity list`` puts the inventories and usages of many providers side
by side. Placement has no request that returns them for many providers at
once, so the command reads the provider list once, then each provider's
inventories and usages (two requests per provider, several in flight).

``capacity fit`` counts how many more allocations of a shape each tree
can take: Placement says which trees take one now, the evaluation
(``evaluation.fit``) how many.

Both offer ``-f openmetrics``: each declares its metrics here (``Gauge``:
a name, a help text, the column of the value and the columns of the
labels) and, through the ``Metrics`` mixin, hands the formatter
(``osc_placement.cli.openmetrics``, the text format alone) the metric
families of its rows; ``-c`` and ``--sort-column`` do not apply to it and
are refused in one line, before any request. The names and labels are
openstack-exporter's where they mean the same
(``openstack_placement_resource_total``, ``..._reserved``,
``..._allocation_ratio``, ``..._usage``; labels ``hostname``, the
provider's name, and ``resourcetype``), so that its dashboards keep
working; ours beside them: ``..._capacity``, ``..._free``, and for
``capacity fit`` ``openstack_placement_fit`` per tree and
``openstack_placement_cloud_fit`` for all of them.
"""

import abc

from osc_lib import exceptions

from osc_placement.api import providers
from osc_placement.cli import common
from osc_placement.cli import filters
from osc_placement.cli import parsers
from osc_placement.resources import allocation_candidate

# One row per provider and resource class.
FIELDS = ('resource_provider', 'name', 'resource_class', 'total',
          'reserved', 'allocation_ratio', 'capacity', 'used', 'free')
# --summary: one row per resource class.
SUMMARY_FIELDS = ('resource_class', 'providers', 'total', 'reserved',
                  'capacity', 'used', 'free')
SUMMED = ('total', 'reserved', 'capacity', 'used', 'free')
# The output formats of the capacity commands: cliff's, and openmetrics.
FORMATTERS = 'osc_placement.formatter.capacity'
# After the class of a fit count that is an upper bound, not exact.
UPPER_BOUND = ' (upper bound)'

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


class Metrics(object, metaclass=abc.ABCMeta):
    """Mixin of the commands that offer ``-f openmetrics``.

    The command declares its metrics in ``metric_families(parsed_args,
    column_names, rows)``: [(name, help, samples)], most simply
    ``Gauge.family()`` of its rows. With ``-f openmetrics`` these are
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
        # The formatter cliff made from FORMATTERS: the text format.
        self.formatter.emit_families(
            self.metric_families(parsed_args, column_names, list(data)),
            self.app.stdout)
        return 0


# -f openmetrics of capacity list: one gauge per column.
_HOST = (('hostname', 'name'), ('resourcetype', 'resource_class'))
_TOTAL = Gauge(
    'openstack_placement_resource_total',
    'Total of the inventory of a resource class', 'total', _HOST)
_RESERVED = Gauge(
    'openstack_placement_resource_reserved',
    'Amount of the inventory kept back, never allocated', 'reserved', _HOST)
_RATIO = Gauge(
    'openstack_placement_resource_allocation_ratio',
    'Overcommit factor of the inventory', 'allocation_ratio', _HOST)
_USED = Gauge(
    'openstack_placement_resource_usage', 'Amount allocated to consumers',
    'used', _HOST)
_CAPACITY = Gauge(
    'openstack_placement_resource_capacity',
    'Amount consumers may allocate: (total - reserved) * allocation_ratio, '
    'rounded down', 'capacity', _HOST)
_FREE = Gauge(
    'openstack_placement_resource_free',
    'Capacity not allocated (negative when over-committed)', 'free', _HOST)
METRICS = (_TOTAL, _RESERVED, _RATIO, _USED, _CAPACITY, _FREE)
# --summary: the same, per class, without the ratio; and the providers.
_CLASS = (('resourcetype', 'resource_class'),)
SUMMARY_METRICS = (Gauge(
    'openstack_placement_resource_providers',
    'Resource providers with an inventory of the class', 'providers',
    _CLASS),) + tuple(
        Gauge(gauge.name, gauge.help, gauge.column, _CLASS)
        for gauge in METRICS if gauge is not _RATIO)


class ListCapacity(Metrics, filters.ManyProviders,
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

    formatter_namespace = FORMATTERS
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
        selected = self.select_providers(http, parsed_args)
        classes = set(parsed_args.resource_class)
        # Tuples, not a dict per row: on 10,000 providers the rows are
        # a good part of the command's memory.
        rows = [(provider['uuid'], provider['name'], rc)
                + tuple(records[rc][name] for name in FIELDS[3:])
                for provider, records in self.each_provider(
                    http, lambda uuid: providers.provider_capacity(
                        http, uuid), selected)
                for rc in sorted(records) if not classes or rc in classes]
        if not parsed_args.summary:
            return FIELDS, rows
        # A total over the providers read would look complete.
        self.require_complete('totals', 'resource provider')
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


def parse_shape(values):
    """The ``--resource`` values of a shape: [(class, amount)], checked.

    The syntax of ``allocation candidate list``; each amount a positive
    integer, each class named once, at least one.
    """
    if not values:
        raise exceptions.CommandError(
            'At least one --resource must be specified.')
    shape = []
    for value in values:
        rc, amount = allocation_candidate.parse_resource(value)
        amount = parsers.parse_int(amount, '--resource %r: amount' % value,
                                   minimum=1)
        if rc in dict(shape):
            raise exceptions.CommandError(
                '--resource %r: %s is given twice; give each resource '
                'class once.' % (value, rc))
        shape.append((rc, amount))
    return shape


def shape_label(params):
    """The request of a candidates query as one canonical text.

    The label of ``-f openmetrics``: the same request gives the same text
    whatever the order or the spelling of its values (``VCPU=04`` is
    ``VCPU=4``). The classes sorted (``MEMORY_MB=8192,VCPU=4``), then,
    where the request has them and each sorted, ``required=`` (the traits
    it needs), ``required=in:`` (any of these, once per value),
    ``forbidden=``, ``member_of=in:`` (once per value, ``!in:`` where
    forbidden) and ``in_tree=`` (the provider's UUID). Then each request
    group in the order of its suffix (a flavor's ``resources1``...),
    written the same way with the suffix after each name
    (``resources1=VCPU=1``, ``required1=``...); then ``root_required=``
    (sorted, ``!`` before a trait the root must not have) and
    ``group_policy=``. All joined by ``;``.
    """
    groups = {}
    roots = set()
    policy = None
    for name, value in params:
        kind = next((kind for kind in _GROUPED if name.startswith(kind)),
                    None)
        if kind:
            _add_to_group(groups.setdefault(name[len(kind):], _new_group()),
                          kind, value)
        elif name == 'root_required':
            roots.update(value.split(','))
        elif name == 'group_policy':
            policy = value
    parts = _group_parts(groups.pop('', _new_group()), '')
    for suffix in sorted(groups):
        parts.extend(_group_parts(groups[suffix], suffix))
    if roots:
        parts.append(_sorted_list('root_required=', ','.join(roots)))
    if policy:
        parts.append('group_policy=' + policy)
    return ';'.join(parts)


# The parameters of a request group, each name followed by the group's
# suffix ('' for the unnamed group).
_GROUPED = ('resources', 'required', 'member_of', 'in_tree')


def _new_group():
    return {'resources': [], 'required': set(), 'any_of': set(),
            'forbidden': set(), 'member_of': set(), 'in_tree': []}


def _add_to_group(found, kind, value):
    """Add one parameter (kind: its name without the suffix) to a group."""
    if kind == 'resources':
        found['resources'].extend(
            (rc, int(amount)) for rc, amount in
            (item.split(':') for item in value.split(',') if item))
    elif kind == 'required' and value.startswith('in:'):
        found['any_of'].add(_sorted_list('in:', value[3:]))
    elif kind == 'required':
        for trait in value.split(','):
            if trait.startswith('!'):
                found['forbidden'].add(trait[1:])
            else:
                found['required'].add(trait)
    elif kind == 'member_of':
        aggregates = value.lstrip('!')
        if aggregates.startswith('in:'):
            aggregates = aggregates[3:]
        found['member_of'].add(_sorted_list(
            '!in:' if value.startswith('!') else 'in:', aggregates))
    else:
        found['in_tree'].append(value)


def _group_parts(found, suffix):
    """The parts of one group's text (the unnamed group's classes bare)."""
    classes = ','.join('%s=%d' % pair for pair in sorted(found['resources']))
    parts = ['resources%s=%s' % (suffix, classes) if suffix else classes]
    if found['required']:
        parts.append(_sorted_list('required%s=' % suffix,
                                  ','.join(found['required'])))
    parts.extend('required%s=%s' % (suffix, value)
                 for value in sorted(found['any_of']))
    if found['forbidden']:
        parts.append(_sorted_list('forbidden%s=' % suffix,
                                  ','.join(found['forbidden'])))
    parts.extend('member_of%s=%s' % (suffix, value)
                 for value in sorted(found['member_of']))
    parts.extend('in_tree%s=%s' % (suffix, value)
                 for value in found['in_tree'])
    return parts


def _sorted_list(prefix, names):
    """prefix + the comma-separated names, sorted."""
    return prefix + ','.join(sorted(names.split(',')))


# The filters of capacity fit that select the trees (the others shape the
# request only).
SELECTING = ('member_of', 'in_tree')
# root_required is taken from this microversion.
ROOT_REQUIRED = '1.35'
# The limited_by of a candidate tree of a request of several groups.
NOT_COUNTED = 'a candidate; not counted (the request has %d groups)'


# The limited_by of a flavor without an answer: Placement refused its
# request, or gave no answer, or it was not asked for (not translated).
REFUSED = 'refused by Placement: %s'
NOT_ANSWERED = 'no answer from Placement: %s'
NOT_ASKED = 'not asked for: %s'


def _failed(exc):
    """The limited_by of a candidates request that failed with ``exc``."""
    if isinstance(exc, exceptions.ClientException):
        return REFUSED % exc
    return NOT_ANSWERED % exc


# -f openmetrics with --flavor: the labels of the flavor's series.
FLAVOR_LABELS = (('flavor', 'flavor'), ('shape', 'shape'))


def _root_traits(values):
    """The --root-required values as one list of traits (``!`` kept)."""
    return [trait for value in values for trait in value.split(',')]


class FitCapacity(Metrics, filters.ManyProviders,
                  common.Lister):
    """Count how many more allocations of a shape each provider tree takes

    The shape is a set of resources, given as ``allocation candidate list``
    takes them (``--resource VCPU=4 --resource MEMORY_MB=8192``), with the
    traits it needs or must not land on (``--required``, ``--forbidden``).
    One row per root provider, in the order of ``resource provider list``:
    ``fits``, how many more allocations of the shape the tree can take
    now, and ``limited_by``, the resource class that bounds it, or, when
    nothing fits, the reason in the words of ``allocation candidate
    explain``.

    Which trees get a row: all of them, or those that ``--member-of``,
    ``--in-tree`` and ``--resource-provider`` select, as they select
    providers in ``capacity list`` (a tree with a provider selected);
    ``--member-of`` and ``--in-tree`` are part of the request too. A tree
    outside the selection gets no row. ``--required`` and ``--forbidden``
    only shape the request: a tree without the trait keeps its row, with
    ``fits`` 0 and the reason.

    A tree counts only where Placement itself gives a candidate for one
    allocation of the shape now (``GET /allocation_candidates``). The count
    is, per resource class, the sum over the tree's providers that may
    serve it of ``floor(free / amount)`` (0 where the amount breaks
    ``min_unit``, ``max_unit`` or ``step_size``), and the smallest of
    these over the classes, with each provider's traits and aggregates
    checked where one provider takes each allocation (below
    ``--os-placement-api-version 1.29``, or a numbered or named group).
    The count is exact, except where a required trait must be held by
    providers of different classes together: then it is an upper bound,
    and ``limited_by`` says so (``VCPU (upper bound)``).

    ``--summary`` prints one row: ``fits`` summed over the trees, ``trees``
    (how many take at least one) and ``limited_by`` (the class that bounds
    the most trees). ``-f openmetrics`` writes ``openstack_placement_fit``
    per tree and ``openstack_placement_cloud_fit`` for them all, labelled
    with the whole request in one canonical text (``shape``: the classes
    sorted, then the traits, aggregates and tree).

    With several flavors (``--flavor`` repeated, ``--all-flavors``), a
    flavor whose request Placement refuses or that cannot be asked for
    gets one row in its place, ``fits`` empty and ``limited_by`` saying
    why; its error follows on stderr, and the command exits 1.
    """

    min_version = allocation_candidate.CANDIDATES
    formatter_namespace = FORMATTERS
    in_reference = False
    FIELDS = ('resource_provider', 'name', 'fits', 'limited_by')
    SUMMARY_FIELDS = ('fits', 'trees', 'limited_by')
    SHAPE_FILTERS = {
        'required': {'since': allocation_candidate.TRAITS_SHOWN,
                     'help': 'A trait the shape needs. May be repeated: all '
                             'are required. Part of the shape, not of the '
                             'selection: a tree without it keeps its row, '
                             'with fits 0 and the reason.'},
        'forbidden': {'since': allocation_candidate.FORBIDDEN,
                      'help': 'A trait the shape must not land on. May be '
                              'repeated. Part of the shape, not of the '
                              'selection: a tree with it keeps its row, '
                              'with fits 0 and the reason.'},
        'member_of': {'since': allocation_candidate.AGGREGATES,
                      'help': 'Comma-separated aggregate UUIDs: the shape '
                              'lands in one of them, and only the trees '
                              'with a provider in one of them get a row. '
                              'May be repeated: each value is one more '
                              'condition.'},
        'in_tree': {'since': allocation_candidate.IN_TREE,
                    'help': 'Only the tree of this provider (UUID or '
                            'name): the shape lands in it, and only it '
                            'gets a row.'},
    }

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--resource', metavar='<resource_class>=<amount>',
            action='append', default=[],
            help='One resource class of the shape and its amount, a '
                 'positive integer, e.g. ``VCPU=4``. Repeat for each class '
                 '(each once).')
        # The provider filters, with the microversions at which the
        # candidates request took them.
        filters.add(self, parser, 'required', 'forbidden', 'member_of',
                    'in_tree', overrides=self.SHAPE_FILTERS)
        filters.add_resource_provider(
            parser, 'Only the tree of this provider (UUID or name) gets a '
                    'row. May be repeated.')
        parser.add_argument(
            '--summary', action='store_true',
            help='One row for all the trees: ``fits`` (the sum), '
                 '``trees`` (how many take at least one) and '
                 '``limited_by`` (the class that bounds the most trees). '
                 'With several flavors, one such row per flavor, led by '
                 '``flavor``.')
        self.add_option(
            parser, '--root-required', metavar='<traits>',
            action='append', default=[], type=parsers.name_list,
            since=ROOT_REQUIRED,
            help='Comma-separated traits the root provider of the tree '
                 'must have, ``!`` before one it must not have. May be '
                 'repeated.')
        # fit only: the --flavor options (see osc_placement.resources).
        from osc_placement.cli import flavor_requests
        flavor_requests.add_options(self, parser)
        return parser

    def _params(self, http, parsed_args, shape):
        """The candidates query: the shape, then the filters given."""
        params = [('resources', ','.join('%s:%d' % pair for pair in shape))]
        for name, value in filters.query(self, http, parsed_args).items():
            values = value if isinstance(value, list) else [value]
            params.extend((name, one) for one in values)
        roots = _root_traits(parsed_args.root_required)
        if roots:
            params.append(('root_required', ','.join(roots)))
        return params

    def take_action(self, parsed_args):
        # fit only: the local evaluation (see osc_placement.resources).
        from osc_placement.api import verdicts
        from osc_placement.cli import flavor_requests
        flavor_requests.check(parsed_args)
        flavored = flavor_requests.given(parsed_args)
        if not flavored:
            shape = parse_shape(parsed_args.resource)
        filters.check_aggregate_uuids(parsed_args.member_of)
        http = self.prepare(parsed_args)
        if flavored:
            in_tree = filters.query(self, http, parsed_args).get('in_tree')
            found, aggregates = allocation_candidate.read_flavors(
                self, parsed_args)
            # With several flavors, one that cannot be asked for gets its
            # row and its error; the others go on.
            asked = flavor_requests.translated(
                self, http, parsed_args, found, aggregates,
                required=parsed_args.required,
                forbidden=parsed_args.forbidden,
                member_of=parsed_args.member_of, in_tree=in_tree,
                root_required=_root_traits(parsed_args.root_required),
                keep_going=len(found) > 1)
        else:
            asked = [None]
            params = self._params(http, parsed_args, shape)
        several = len(asked) > 1
        # The query of each request; None for a flavor not asked for.
        all_params = [params if one is None else
                      None if one.refused else one.params for one in asked]
        self.labels = [None if one is None else shape_label(one)
                       for one in all_params]
        # The trees --member-of, --availability-zone and --in-tree select,
        # as the provider list selects providers (capacity list): the
        # same for every flavor.
        first = next((one for one in all_params if one is not None), [])
        selection = [(name, value) for name, value in first
                     if name in SELECTING]
        trees = verdicts.Trees(self, http, parsed_args.resource_provider,
                               selection)
        # The limited_by of each request that failed, by index.
        failures = {index: NOT_ASKED % one.refused.reason
                    for index, one in enumerate(asked)
                    if one is not None and one.refused}

        def ask(index):
            one = asked[index]
            if one is not None and one.refused:
                # Reported with the others; its line names the flavor once.
                raise exceptions.CommandError(one.refused.reason)
            try:
                return verdicts.ask(http, trees, all_params[index])
            except (exceptions.ClientException,
                    exceptions.CommandError) as exc:
                # Kept for the row; the batch reports it.
                failures[index] = _failed(exc)
                raise

        # One candidates request per flavor, several in flight. With
        # several flavors, each failure is reported after the rows, the
        # command exits 1, and the failed flavor gets a row saying why.
        answers = dict(self.each(
            http, ask, list(range(len(all_params))), 'flavor',
            key=lambda index: (asked[index].name if asked[index]
                               else 'request'),
            lone_failure_raises=not several))
        answered = [index for index in range(len(all_params))
                    if index in answers]
        # The trees are read after the candidates requests, whose answers
        # are cut down as they arrive: on a big cloud the records of every
        # provider and a whole answer are then not held at once.
        trees.read()
        # Every provider of the trees, not every flavor: a flavor that
        # failed has its row.
        self.require_complete('totals' if parsed_args.summary else 'rows',
                              'resource provider')
        locals_ = {index: verdicts.local_verdicts(one, http.api_version,
                                                  trees)
                   for index, one in enumerate(all_params)
                   if one is not None}
        settled = dict(zip(answered, verdicts.settle(self, http, trees, [
            (all_params[index], answers[index], locals_[index][1])
            for index in answered])))
        rows = []
        # -f openmetrics: (flavor, shape, the rows of its trees), with
        # --flavor; a flavor without an answer has no samples.
        self.per_flavor = []
        for index, one in enumerate(asked):
            if index in settled:
                request, local = locals_[index]
                tree_rows = self._rows(trees, request, local,
                                       settled[index], one)
                if one is not None:
                    self.per_flavor.append(
                        (one.name, self.labels[index], tree_rows))
                if parsed_args.summary:
                    tree_rows = [summary(tree_rows)]
            elif index in failures:
                # One row: the request failed, not any tree.
                tree_rows = [(None, None, failures[index])
                             if parsed_args.summary
                             else (None, None, None, failures[index])]
            else:
                # Not tried (a signal, a dead endpoint): said on stderr.
                continue
            lead = (one.name,) if several else ()
            rows.extend(lead + row for row in tree_rows)
        fields = self.SUMMARY_FIELDS if parsed_args.summary else self.FIELDS
        return (('flavor',) if several else ()) + fields, rows

    @staticmethod
    def _rows(trees, request, local, placement, flavored):
        """(uuid, name, fits, limited_by) per tree for one request."""
        from osc_placement.api import verdicts
        from osc_placement.model import evaluation
        incomplete = flavored is not None and \
            not flavored.translation.complete
        rows = []
        for root in trees.roots:
            uuid = root['uuid']
            verdict = local[uuid]
            found = verdicts.reasons(verdict, placement[uuid])
            if placement[uuid] is None:
                # The request within the tree failed: no verdict, no count.
                fits, limited_by = None, found[0]
            elif found:
                fits, limited_by = 0, found[0]
            elif verdict is None or verdict.reasons:
                # A candidate for Placement that the evaluation cannot
                # explain: no count is better than a wrong one.
                fits, limited_by = None, verdicts.UNEXPLAINED
            elif len(request.groups) != 1:
                # fit() counts one group; no count rather than a guess.
                fits, limited_by = None, NOT_COUNTED % len(request.groups)
            else:
                fits, limited_by, exact = evaluation.fit(
                    request, trees.records[uuid])
                if not exact or incomplete:
                    # fits is at most that many (the request lacks a part
                    # of Nova's where it is incomplete).
                    limited_by += UPPER_BOUND
            rows.append((uuid, root['name'], fits, limited_by))
        return rows

    # -f openmetrics: per tree, and for all of them.
    FIT = Gauge(
        'openstack_placement_fit',
        'How many more allocations of the shape the tree takes now',
        'fits', (('hostname', 'name'),))
    CLOUD_FIT = Gauge(
        'openstack_placement_cloud_fit',
        'How many more allocations of the shape the trees take now, '
        'summed', 'fits')
    CLOUD_TREES = Gauge(
        'openstack_placement_cloud_fit_trees',
        'How many trees take at least one more allocation of the shape',
        'trees')

    # With --flavor: the flavor and its own request (shape) label them;
    # and os-capacity's names, labelled as os-capacity labels them.
    FLAVOR_COLUMNS = ('flavor', 'shape') + FIELDS
    FLAVOR_SUMMARY_COLUMNS = ('flavor', 'shape') + SUMMARY_FIELDS
    FLAVOR_FIT = Gauge(
        FIT.name, FIT.help, 'fits', (('hostname', 'name'),) + FLAVOR_LABELS)
    FLAVOR_CLOUD = tuple(Gauge(
        gauge.name, gauge.help, gauge.column, FLAVOR_LABELS)
        for gauge in (CLOUD_FIT, CLOUD_TREES))
    BY_FLAVOR_TOTAL = Gauge(
        'openstack_free_capacity_by_flavor_total',
        'How many more servers of the flavor the cloud takes now (as '
        'os-capacity names it)', 'fits', (('flavor_name', 'flavor'),))
    BY_FLAVOR_HYPERVISOR = Gauge(
        'openstack_free_capacity_hypervisor_by_flavor',
        'How many more servers of the flavor the tree takes now (as '
        'os-capacity names it)', 'fits', (('hypervisor', 'name'),
                                          ('flavor_name', 'flavor')))

    def _flavor_families(self, parsed_args):
        # Only the flavors Placement answered for: a flavor refused or not
        # asked for has no samples (OpenMetrics has no comment line to say
        # why; its line on stderr and the exit code do).
        totals = [(name, shape) + summary(tree_rows)
                  for name, shape, tree_rows in self.per_flavor]
        cloud = [gauge.family(self.FLAVOR_SUMMARY_COLUMNS, totals)
                 for gauge in self.FLAVOR_CLOUD]
        by_total = self.BY_FLAVOR_TOTAL.family(self.FLAVOR_SUMMARY_COLUMNS,
                                               totals)
        if parsed_args.summary:
            return cloud + [by_total]
        trees = [(name, shape) + row
                 for name, shape, tree_rows in self.per_flavor
                 for row in tree_rows]
        return [self.FLAVOR_FIT.family(self.FLAVOR_COLUMNS, trees),
                cloud[0], by_total,
                self.BY_FLAVOR_HYPERVISOR.family(self.FLAVOR_COLUMNS, trees)]

    def metric_families(self, parsed_args, column_names, rows):
        from osc_placement.cli import flavor_requests
        if flavor_requests.given(parsed_args):
            return self._flavor_families(parsed_args)
        label = [('shape', self.labels[0])]
        if parsed_args.summary:
            return [gauge.family(column_names, rows, label)
                    for gauge in (self.CLOUD_FIT, self.CLOUD_TREES)]
        # The cloud total is the one of --summary.
        return [self.FIT.family(column_names, rows, label),
                self.CLOUD_FIT.family(self.SUMMARY_FIELDS, [summary(rows)],
                                      label)]


def summary(rows):
    """(fits, trees, limited_by) over the rows of ``capacity fit``.

    ``fits`` is None when a tree's count is not known. ``trees`` counts
    the candidates of a request of several groups too (each takes at
    least one). ``limited_by`` is the class that bounds the most trees (a
    bounded count counts for its class), marked as an upper bound when
    the sum holds any bound; where no tree is counted but some are such
    candidates, it says they are not counted.
    """
    counts = [fits for _uuid, _name, fits, _by in rows]
    bounding = {}
    bounded = False
    for _uuid, _name, fits, limited_by in rows:
        if fits:
            if limited_by.endswith(UPPER_BOUND):
                bounded = True
                limited_by = limited_by[:-len(UPPER_BOUND)]
            bounding[limited_by] = bounding.get(limited_by, 0) + 1
    # A candidate of a request of several groups takes at least one, not
    # counted.
    uncounted = [limited_by for _uuid, _name, fits, limited_by in rows
                 if fits is None and limited_by.startswith(
                     NOT_COUNTED.split(';')[0])]
    total = None if None in counts else sum(counts)
    most = sorted(bounding.items(), key=lambda item: (-item[1], item[0]))
    limited_by = most[0][0] if most else ''
    if bounded and limited_by:
        limited_by += UPPER_BOUND
    if uncounted and not limited_by:
        limited_by = uncounted[0]
    return (total, sum(1 for fits in counts if fits) + len(uncounted),
            limited_by)
