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

"""``allocation candidate list``: where a request for resources could land.

The options that describe resources (``--resource``, ``--required``,
``--forbidden``, ``--member-of``, ``--in-tree``) belong to a request group:
the unnamed one until the first ``--group <name>``, then the named group.
``RequestGroups`` collects them while argparse reads the command line;
``ListAllocationCandidate._query`` turns them into the query string, in the
order the reference sends it.
"""

import argparse
import copy
import re

from cliff import columns
from osc_lib import exceptions

from osc_placement.api import providers
from osc_placement.cli import batch
from osc_placement.cli import common
from osc_placement.cli import filters
from osc_placement.cli import parsers
from osc_placement.model import amounts
from osc_placement import version

BASE_URL = '/allocation_candidates'

# Microversions at which the allocation candidates API changed.
CANDIDATES = '1.10'        # GET /allocation_candidates
DICT_REQUESTS = '1.12'     # allocation requests keyed by provider
LIMIT = '1.16'             # --limit
TRAITS_SHOWN = '1.17'      # provider summaries carry traits; --required
AGGREGATES = '1.21'        # --member-of
FORBIDDEN = '1.22'         # --forbidden
GROUPS = '1.25'            # --group
TREE_SHOWN = '1.29'        # provider summaries carry root and parent
IN_TREE = '1.31'           # --in-tree
NAMED_GROUPS = '1.33'      # group names beyond positive integers
MAPPINGS_SHOWN = '1.34'    # allocation requests carry group mappings
ROOT_REQUIRED = '1.35'     # --root-required
RESOURCELESS_GROUPS = '1.36'  # groups in --same-subtree need no resource

_INTEGER_GROUP = r'^[1-9][0-9]*$'
_NAMED_GROUP = r'^[A-Za-z0-9_-]{1,64}$'

# How the unnamed request group is shown in the ``mappings`` column.
UNNAMED_GROUP = '(unsuffixed)'

# The options read per request group, in the order of their query
# parameters.
GROUPED = ('resource', 'required', 'forbidden', 'member_of',
           'aggregate_uuid', 'in_tree')

# The output columns, each with the microversion that shows it; the
# LONG_FIELDS follow with --long.
CANDIDATE_FIELDS = (
    ('#', None),
    ('allocation', None),
    ('resource provider', None),
    ('inventory used/capacity', None),
    ('traits', TRAITS_SHOWN),
)
LONG_FIELDS = (
    ('root provider', None),
    ('parent provider', None),
    ('mappings', MAPPINGS_SHOWN),
)

GROUPS_ATTR = '_request_groups'
CURRENT_ATTR = '_current_group'


def request_groups(namespace):
    """{group name: {option dest: [values]}}, unnamed group ''."""
    groups = getattr(namespace, GROUPS_ATTR, None)
    if groups is None:
        groups = {}
        setattr(namespace, GROUPS_ATTR, groups)
    return groups


def _require_text(action, values):
    # argparse turns a lone ``--`` value (``--group=--``) into an empty list.
    if not isinstance(values, str):
        raise argparse.ArgumentError(action, 'expected one value')


class StartGroup(argparse.Action):
    """``--group <name>``: the following options go to that group.

    A name given again continues the same group.
    """

    def __call__(self, parser, namespace, values, option_string=None):
        _require_text(self, values)
        request_groups(namespace).setdefault(values, {})
        setattr(namespace, CURRENT_ATTR, values)
        names = getattr(namespace, self.dest, None) or []
        setattr(namespace, self.dest, names + [values])


class AddToGroup(argparse.Action):
    """An option of the current request group (the unnamed one at first)."""

    def __call__(self, parser, namespace, values, option_string=None):
        _require_text(self, values)
        current = getattr(namespace, CURRENT_ATTR, '')
        group = request_groups(namespace).setdefault(current, {})
        group.setdefault(self.dest, []).append(values)


def parse_resource(value):
    """'VCPU=2' -> ('VCPU', '2'), validated, before any request."""
    resource_class, sep, amount = value.partition('=')
    if not sep or '=' in amount:
        raise exceptions.CommandError(
            'Arguments to --resource must be of form '
            '<resource_class>=<value>')
    if not resource_class.strip():
        raise exceptions.CommandError(
            '--resource %r: the resource class is missing (expected '
            '<resource_class>=<value>).' % value)
    number = parsers.parse_amount(amount, '--resource %r: amount' % value)
    return resource_class.strip(), str(number)


def _split_names(value, option):
    """The comma-separated names of one option value, none empty."""
    names = [name.strip() for name in value.split(',')]
    if not all(names):
        raise exceptions.CommandError(
            '%s %r: empty name in the comma-separated list.'
            % (option, value))
    return names


def read_flavors(cmd, parsed_args):
    """(flavors, zone aggregates) of the ``--flavor`` options, from Nova.

    The flavors in the order given (one named twice is read once), or
    every flavor sorted by name with ``--all-flavors``; the UUIDs of the
    host aggregates of ``--availability-zone`` (None without it).
    """
    # Only here: a command run without these options must not load the
    # compute helpers (nor openstacksdk's compute proxy through them).
    from osc_placement.api import compute
    if getattr(parsed_args, 'all_flavors', False):
        found = sorted(compute.all_flavors(cmd),
                       key=lambda flavor: (flavor['name'], flavor['id']))
    else:
        found = []
        for value in parsed_args.flavor:
            flavor = compute.find_flavor(cmd, value)
            if flavor['id'] not in [f['id'] for f in found]:
                found.append(flavor)
    aggregates = None
    if parsed_args.availability_zone is not None:
        aggregates = compute.zone_aggregates(cmd,
                                             parsed_args.availability_zone)
    return found, aggregates


class ListAllocationCandidate(common.Lister):
    """List allocation candidates

    Asks Placement where a request for resources could be satisfied. Each
    candidate (``#``) is a set of allocations on one or more resource
    providers that together serve the request; its rows show what would be
    allocated on each provider and, to help choose, the provider's current
    usage and capacity per resource class (and its traits from
    ``--os-placement-api-version 1.17``). A candidate can be claimed with
    ``openstack resource provider allocation set``.

    For example ``allocation candidate list --resource VCPU=1`` prints
    one row per provider able to serve one VCPU, with its VCPU usage and
    capacity, e.g. ``VCPU=0/128``.

    ``--group`` starts a request group: the resources, traits, aggregates
    and tree given after it must be served by one provider. For example
    ``--resource DISK_GB=10 --group 1 --resource VCPU=2 --group 2
    --resource VCPU=2 --group-policy isolate`` asks for two NUMA nodes of
    one compute node, each with 2 VCPU.
    """

    min_version = CANDIDATES
    # The reference checks --limit, then --group, then the options of the
    # groups.
    gates_first = ('limit', 'group')
    # False for the commands that take the request without --limit.
    offers_limit = True

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.add_option(
            parser, '--resource', metavar='<resource_class>=<value>',
            dest='resource', action=AddToGroup,
            help='An amount of a resource class that the providers of each '
                 'candidate (or the provider of the current --group) must '
                 'be able to serve, e.g. ``--resource VCPU=4 --resource '
                 'MEMORY_MB=2048``. May be repeated.')
        if self.offers_limit:
            self.add_option(
                parser, '--limit', metavar='<limit>', since=LIMIT,
                help='Return at most this many candidates: an integer of at '
                     'least 1.')
        self.add_option(
            parser, '--required', metavar='<required>', dest='required',
            type=parsers.name_list, action=AddToGroup, since=TRAITS_SHOWN,
            value_gates=filters.REQUIRED_TRAIT_GATES,
            help='A trait the candidate (or the provider of the current '
                 '--group) must have. May be repeated: all are required.')
        self.add_option(
            parser, '--forbidden', metavar='<forbidden>', dest='forbidden',
            type=parsers.name_list,
            action=AddToGroup, since=FORBIDDEN,
            help='A trait the candidate (or the provider of the current '
                 '--group) must not have. May be repeated.')
        aggregates = parser.add_mutually_exclusive_group()
        self.add_option(
            aggregates, '--member-of', metavar='<member_of>',
            type=parsers.name_list,
            dest='member_of', action=AddToGroup, since=AGGREGATES,
            value_gates=filters.MEMBER_OF_GATES,
            help='Comma-separated aggregate UUIDs: the candidate (or the '
                 'provider of the current --group) must be in at least one '
                 'of them. For example ``--member-of <agg1>,<agg2> '
                 '--member-of <agg3>`` means in agg1 or agg2, and in agg3.')
        self.add_option(
            aggregates, '--aggregate-uuid', metavar='<aggregate_uuid>',
            type=parsers.name_list,
            dest='aggregate_uuid', action=AddToGroup, since=AGGREGATES,
            help=argparse.SUPPRESS)
        self.add_option(
            parser, '--group', metavar='<group>', action=StartGroup,
            type=parsers.non_empty, since=GROUPS,
            help='Start a request group: the --resource, --required, '
                 '--forbidden, --member-of and --in-tree options that '
                 'follow must be satisfied by a single provider. A name '
                 'given twice continues the same group. Before '
                 '``--os-placement-api-version %s`` a name is a positive '
                 'integer; from %s it is 1 to 64 characters among A-Z, '
                 'a-z, 0-9, _ and -. Use at least 1.29 for the server to '
                 'consider nested providers.' % (NAMED_GROUPS, NAMED_GROUPS))
        parser.add_argument(
            '--group-policy', choices=['none', 'isolate'], default='none',
            metavar='<group_policy>',
            help='How named groups relate when there are several: '
                 '``none`` (default) lets one provider serve several '
                 'groups, ``isolate`` requires a different provider for '
                 'each group.')
        self.add_option(
            parser, '--in-tree', metavar='<in_tree>', dest='in_tree',
            type=parsers.non_empty,
            action=AddToGroup, since=IN_TREE, extended=True,
            help='Only providers in the tree of this resource provider '
                 '(UUID or name), for the candidate or the current '
                 '--group.')
        self.add_option(
            parser, '--root-required', metavar='<trait>[,!<trait>...]',
            action='append', default=[], since=ROOT_REQUIRED,
            extended=True,
            help='Traits the root provider of the candidate\'s tree must '
                 'have, or, with a leading ``!``, must not have. Applies '
                 'to the whole request, not to a --group. May be repeated.')
        self.add_option(
            parser, '--same-subtree', metavar='<group>,<group>[,...]',
            action='append', default=[], since=RESOURCELESS_GROUPS,
            extended=True,
            help='Named groups whose providers must all be in the subtree '
                 'of one of them. May be repeated. A group named here may '
                 'have no --resource (only traits, aggregates or tree).')
        # The commands of candidates requests only (see
        # osc_placement.resources): the --flavor options.
        from osc_placement.cli import flavor_requests
        flavor_requests.add_options(self, parser, with_all=False)
        self.add_output_options(parser)
        return parser

    def add_output_options(self, parser):
        """The options of this command's output (not of the request)."""
        self.add_option(
            parser, '--long', action='store_true', since=TREE_SHOWN,
            extended=True,
            help='Also show each provider\'s root and parent provider, '
                 'and, from ``--os-placement-api-version %s``, the request '
                 'groups it satisfies in the candidate (mappings).'
                 % MAPPINGS_SHOWN)

    def check_option_gates(self, parsed_args):
        """Gate the grouped options on their values across all groups."""
        values = dict(vars(parsed_args))
        for group in request_groups(parsed_args).values():
            for dest in GROUPED:
                values[dest] = (values.get(dest) or []) + group.get(dest, [])
        super().check_option_gates(parsed_args, values)

    # Validation: everything the user typed, before any request.

    def _check_group_names(self, groups, named):
        """Refuse a group name that ``named`` (1.33+) or not disallows."""
        for name in groups:
            if not name:
                continue
            if named and not re.match(_NAMED_GROUP, name):
                raise exceptions.CommandError(
                    '--group %r: a group name is 1 to 64 characters among '
                    'A-Z, a-z, 0-9, _ and -.' % name)
            if not named and not re.match(_INTEGER_GROUP, name):
                raise exceptions.CommandError(
                    '--group %r: before --os-placement-api-version %s a '
                    'group name must be a positive integer (e.g. 1).'
                    % (name, NAMED_GROUPS))

    def _same_subtrees(self, parsed_args, groups):
        subtrees = []
        for value in parsed_args.same_subtree:
            names = _split_names(value, '--same-subtree')
            for name in names:
                if name not in groups:
                    raise exceptions.CommandError(
                        '--same-subtree %r: %r is not the name of a --group '
                        'of this request.' % (value, name))
            subtrees.append(names)
        return subtrees

    @staticmethod
    def _root_required(parsed_args):
        traits = []
        for value in parsed_args.root_required:
            for trait in _split_names(value, '--root-required'):
                if trait == '!':
                    raise exceptions.CommandError(
                        '--root-required %r: "!" must be followed by a '
                        'trait name.' % value)
                traits.append(trait)
        return ','.join(traits)

    @staticmethod
    def _require_resources(groups):
        """Refuse a request without any --resource."""
        if not any(group.get('resource') for group in groups.values()):
            raise exceptions.CommandError(
                'At least one --resource must be specified.')

    @staticmethod
    def _check_resources(groups, subtrees):
        """Parsed resources per group; a group needs one unless exempt.

        A request without any --resource passes: :meth:`_require_resources`
        refuses it once the version is negotiated, as the reference does.
        """
        if not any(group.get('resource') for group in groups.values()):
            return {name: [] for name in groups}
        in_subtree = set(name for names in subtrees for name in names)
        resources = {}
        for name, group in groups.items():
            resources[name] = [parse_resource(value)
                               for value in group.get('resource', [])]
            if resources[name] or name in in_subtree:
                continue
            if name:
                raise exceptions.CommandError(
                    'Group %s has no --resource: every --group needs at '
                    'least one --resource, unless it is named in '
                    '--same-subtree (--os-placement-api-version %s or '
                    'later).'
                    % (name, RESOURCELESS_GROUPS))
            raise exceptions.CommandError(
                'The options given before the first --group have no '
                '--resource: at least one --resource is needed there.')
        for name, group in groups.items():
            if len(group.get('in_tree', [])) > 1:
                raise exceptions.CommandError(
                    '--in-tree given %d times for %s: one provider tree '
                    'per group.' % (len(group['in_tree']),
                                    'group %s' % name if name
                                    else 'the unnamed group'))
        return resources

    # The request.

    def _query(self, http, parsed_args, groups, resources, subtrees,
               root_required, limit):
        """The query parameters, in the order the reference sends them."""
        params = []
        if limit is not None:
            params.append(('limit', limit))
        if any(groups):
            params.append(('group_policy', parsed_args.group_policy))
        for name, group in groups.items():
            if resources[name]:
                params.append(('resources' + name, ','.join(
                    '%s:%s' % pair for pair in resources[name])))
            for value in filters.required_traits_params(
                    group.get('required', []), group.get('forbidden', [])):
                params.append(('required' + name, value))
            if group.get('aggregate_uuid'):
                self.deprecated_option_warning('--aggregate-uuid',
                                               '--member-of')
                params.append(('member_of' + name, 'in:' + ','.join(
                    group['aggregate_uuid'])))
            for value in group.get('member_of', []):
                params.append(('member_of' + name,
                               filters.member_of_param(value)))
            for value in group.get('in_tree', []):
                params.append(('in_tree' + name,
                               providers.find_provider(http, value)))
        if root_required:
            params.append(('root_required', root_required))
        for names in subtrees:
            params.append(('same_subtree', ','.join(names)))
        return params

    def take_action(self, parsed_args):
        http, params = self.request(parsed_args)
        response = http.request('GET', BASE_URL, params=params)
        return self._table({
            'provider_summaries': response.field('provider_summaries', dict),
            'allocation_requests': response.field('allocation_requests',
                                                  list),
        }, parsed_args.long)

    def request(self, parsed_args):
        """The client and the query of the request, every value checked.

        Every value first, with the version known without a request (the
        negotiation's ceiling), so that a mistake is reported before
        anything is sent; then the gates at the live version. With
        ``--flavor``, the flavor's request (``flavor_request()``).
        """
        from osc_placement.cli import flavor_requests
        flavor_requests.check(parsed_args, replaced=())
        if flavor_requests.given(parsed_args):
            http, flavored = self.flavor_request(parsed_args)
            return http, flavored.params
        groups = request_groups(parsed_args)
        limit = None
        if getattr(parsed_args, 'limit', None) is not None:
            limit = parsers.parse_int(parsed_args.limit, '--limit',
                                      minimum=1)
        self._check_group_names(groups, self._parser_at_least(NAMED_GROUPS))
        subtrees = self._same_subtrees(parsed_args, groups)
        root_required = self._root_required(parsed_args)
        resources = self._check_resources(groups, subtrees)
        http = self.prepare(parsed_args)
        self._require_resources(groups)
        # 'latest' against a server below 1.33: integers only.
        self._check_group_names(groups, self.compare_version(
            version.ge(NAMED_GROUPS)))
        return http, self._query(http, parsed_args, groups, resources,
                                 subtrees, root_required, limit)

    def flavor_request(self, parsed_args):
        """(client, flavor_requests.Flavored) of ``--flavor``.

        It replaces ``--resource`` and ``--group`` (refused in one line
        before any request); the --required, --forbidden, --member-of,
        --in-tree and --root-required given add to it.
        """
        from osc_placement.cli import flavor_requests
        groups = request_groups(parsed_args)
        unnamed = groups.get('', {})
        if len(parsed_args.flavor) > 1:
            raise exceptions.CommandError(
                '--flavor: give one flavor (capacity fit takes several).')
        if any(groups) or unnamed.get('resource'):
            raise exceptions.CommandError(
                '--flavor replaces --resource and --group: give one or the '
                'other.')
        if parsed_args.group_policy != 'none' or parsed_args.same_subtree:
            raise exceptions.CommandError(
                '--flavor: the flavor\'s request has its own group policy '
                'and groups; --group-policy and --same-subtree do not go '
                'with it.')
        if len(unnamed.get('in_tree', [])) > 1:
            raise exceptions.CommandError(
                '--flavor: give --in-tree once.')
        filters.check_aggregate_uuids(unnamed.get('member_of', []))
        roots = [trait for value in parsed_args.root_required
                 for trait in _split_names(value, '--root-required')]
        member_of = list(unnamed.get('member_of', []))
        if unnamed.get('aggregate_uuid'):
            self.deprecated_option_warning('--aggregate-uuid', '--member-of')
            member_of.append(','.join(unnamed['aggregate_uuid']))
        http = self.prepare(parsed_args)
        in_tree = None
        if unnamed.get('in_tree'):
            in_tree = providers.find_provider(http, unnamed['in_tree'][0])
        found, aggregates = read_flavors(self, parsed_args)
        flavored = flavor_requests.translated(
            self, http, parsed_args, found, aggregates,
            required=unnamed.get('required', []),
            forbidden=unnamed.get('forbidden', []), member_of=member_of,
            in_tree=in_tree, root_required=roots)[0]
        limit = getattr(parsed_args, 'limit', None)
        if limit is not None:
            limit = parsers.parse_int(limit, '--limit', minimum=1)
            flavored.translation.params = [
                ('limit', limit)] + flavored.params
        return http, flavored

    # The output.

    def _table(self, resp, long):
        """Columns and rows, linear in the (candidate, provider) pairs.

        ``resp``: the ``provider_summaries`` and ``allocation_requests`` of
        the answer.
        """
        fields = common.columns(self, CANDIDATE_FIELDS)
        if long:
            fields += common.columns(self, LONG_FIELDS)
        with_traits = 'traits' in fields
        with_mappings = 'mappings' in fields

        summaries = resp['provider_summaries']
        inventory = {
            rp: ','.join(amounts.used_of_capacity(summary['resources']))
            for rp, summary in summaries.items()}

        def provider_columns(rp):
            summary = summaries.get(rp, {})
            columns = [rp, inventory.get(rp, '')]
            if with_traits:
                columns.append(','.join(summary.get('traits', [])))
            if long:
                columns.append(summary.get('root_provider_uuid'))
                columns.append(summary.get('parent_provider_uuid'))
            return columns

        rows = []
        dict_shaped = self.compare_version(version.ge(DICT_REQUESTS))
        for number, request in enumerate(resp['allocation_requests'], 1):
            if dict_shaped:
                held = [(rp, allocation['resources']) for rp, allocation
                        in request['allocations'].items()]
            else:
                held = [(allocation['resource_provider']['uuid'],
                         allocation['resources'])
                        for allocation in request['allocations']]
            groups_of = {}
            if with_mappings:
                for suffix, rps in request.get('mappings', {}).items():
                    for rp in rps:
                        groups_of.setdefault(rp, []).append(
                            suffix or UNNAMED_GROUP)
            for rp, resources in held:
                row = [number, ','.join('%s=%s' % item
                                        for item in resources.items())]
                row += provider_columns(rp)
                if with_mappings:
                    row.append(','.join(groups_of.pop(rp, [])))
                rows.append(row)
            # Providers that satisfy a group without resources
            # (--same-subtree) hold no allocation: show them too.
            for rp, suffixes in groups_of.items():
                rows.append([number, ''] + provider_columns(rp)
                            + [','.join(suffixes)])
        return fields, rows


class Reasons(columns.FormattableColumn):
    """Every failing constraint of a tree.

    A list in json and yaml; in the table, '; ' between them.
    """

    # The formats that keep a list as a list; the others (value, csv,
    # shell) print the text of the table.
    STRUCTURED = ('json', 'yaml')

    def human_readable(self):
        return '; '.join(self._value)

    def machine_readable(self):
        return list(self._value)

    @classmethod
    def column(cls, reasons, formatter):
        """The column for the output format: a list, or its text."""
        found = cls(reasons)
        return found if formatter in cls.STRUCTURED \
            else found.human_readable()


# The first row of ``explain --summary``: nothing dropped.
AS_GIVEN = '(none: the request as given)'


class ExplainAllocationCandidate(batch.Batched, ListAllocationCandidate):
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
    bisection of a "No valid host".
    """

    offers_limit = False
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

    def take_action(self, parsed_args):
        # explain only: the local evaluation (see osc_placement.resources).
        from osc_placement.api import verdicts
        from osc_placement.cli import flavor_requests
        http, params = self.request(parsed_args)
        trees = verdicts.Trees(self, http, parsed_args.resource_provider)
        if parsed_args.summary and flavor_requests.given(parsed_args):
            return self.SUMMARY_FIELDS, self._relaxed(
                http, trees, [(AS_GIVEN, None)] + _constraints_of(params),
                lambda drop: _dropped(params, drop))
        if parsed_args.summary:
            return self.SUMMARY_FIELDS, self._relaxed(
                http, trees,
                [(AS_GIVEN, None)] + self._constraints(parsed_args),
                lambda drop: self._params_without(http, parsed_args, drop))
        trees.read()
        self.require_complete('rows', 'resource provider')
        _request, local = verdicts.local_verdicts(params, http.api_version,
                                                  trees)
        placement = verdicts.candidate_roots(self, http, trees, params,
                                             local)
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

    # --summary: each constraint dropped in turn.

    def _constraints(self, parsed_args):
        """(label, how to drop it) of every constraint of the request."""
        found = []
        for name, group in request_groups(parsed_args).items():
            where = '--group %s ' % name if name else ''
            for dest, flag in (('resource', '--resource'),
                               ('required', '--required'),
                               ('forbidden', '--forbidden'),
                               ('member_of', '--member-of'),
                               ('aggregate_uuid', '--aggregate-uuid'),
                               ('in_tree', '--in-tree')):
                for index, value in enumerate(group.get(dest, [])):
                    found.append(('%s%s %s' % (where, flag, value),
                                  ('group', name, dest, index)))
        for index, value in enumerate(parsed_args.root_required):
            found.append(('--root-required %s' % value,
                          ('args', 'root_required', index)))
        for index, value in enumerate(parsed_args.same_subtree):
            found.append(('--same-subtree %s' % value,
                          ('args', 'same_subtree', index)))
        if parsed_args.group_policy == 'isolate':
            found.append(('--group-policy isolate',
                          ('args', 'group_policy', None)))
        return found

    def _without(self, parsed_args, drop):
        """A copy of the parsed request without one constraint."""
        relaxed = copy.copy(parsed_args)
        groups = {name: {dest: list(values) for dest, values in group.items()}
                  for name, group in request_groups(parsed_args).items()}
        setattr(relaxed, GROUPS_ATTR, groups)
        if drop[0] == 'group':
            _kind, name, dest, index = drop
            del groups[name][dest][index]
        elif drop[1] == 'group_policy':
            relaxed.group_policy = 'none'
        else:
            _kind, dest, index = drop
            values = list(getattr(parsed_args, dest))
            del values[index]
            setattr(relaxed, dest, values)
        return relaxed

    def _params_without(self, http, parsed_args, drop):
        """The query of the request without one constraint (None: none).

        A CommandError where the request is then not one Placement takes
        (a group left without resources, say).
        """
        relaxed = parsed_args if drop is None \
            else self._without(parsed_args, drop)
        groups = request_groups(relaxed)
        # The checks of the values; no request.
        subtrees = self._same_subtrees(relaxed, groups)
        resources = self._check_resources(groups, subtrees)
        self._require_resources(groups)
        return self._query(http, relaxed, groups, resources, subtrees,
                           self._root_required(relaxed), None)

    def _relaxed(self, http, trees, constraints, params_of):
        """[(constraint, trees with candidates)], the request as given first.

        constraints: [(label, drop)], the first (AS_GIVEN, None);
        params_of(drop): the query without that constraint (a
        CommandError where there is then none). Then the request without
        each constraint in turn. One candidates request each, in one
        batch. Where an answer that is not empty
        lacks a tree that the local evaluation takes for a candidate (the
        answer may have been cut), the trees are read and that tree is
        asked about again within it, as the rows of explain are settled.
        A count is None where it is not known: the request was refused or
        failed, or so did a request within a tree.
        """
        from osc_placement.api import verdicts
        label_of = {drop: label for label, drop in constraints}

        def ask(drop):
            # Without it the request may not be one Placement takes (a
            # group left without resources, say): then no count.
            try:
                params = params_of(drop)
            except exceptions.CommandError as exc:
                return refused(drop, exc)
            try:
                return params, verdicts.ask(http, trees, params)
            except exceptions.BadRequest as exc:
                return refused(drop, exc)

        def refused(drop, exc):
            self.log.warning('Without %s the request is refused: %s',
                             label_of[drop], exc)

        answered = [(item, result) for item, result in self.each(
            http, lambda item: ask(item[1]), constraints,
            'relaxed request', key=lambda item: item[0]) if result]
        considered = set(p['uuid'] for p in trees.roots)
        if any(considered - answer.roots and not answer.empty
               for _item, (_params, answer) in answered):
            # Some answer may have been cut: the evaluation says which
            # trees to ask about again.
            trees.read()
            self.require_complete('totals', 'relaxed request',
                                  'resource provider')
            asked = [(params, answer, verdicts.local_verdicts(
                params, http.api_version, trees)[1])
                for _item, (params, answer) in answered]
        else:
            asked = [(params, answer, {root: None for root in considered})
                     for _item, (params, answer) in answered]
        settled = verdicts.settle(self, http, trees, asked)
        counted = {}
        for (item, _result), found in zip(answered, settled):
            known = [found[root] for root in considered]
            counted[item] = None if None in known else sum(known)
        return [(label, counted.get((label, drop)))
                for label, drop in constraints]


def _constraints_of(params):
    """(label, drop) of every constraint of a query (``--flavor``).

    Each resource class, each trait (an ``in:`` value whole), each
    aggregate condition, the tree, ``group_policy`` and each root trait;
    labelled as the query names them (``resources1=VCPU:2``).
    """
    found = []
    for index, (name, value) in enumerate(params):
        if name == 'limit':
            continue
        if name.startswith(('resources', 'root_required')) or (
                name.startswith('required') and not value.startswith('in:')):
            for item, part in enumerate(value.split(',')):
                found.append(('%s=%s' % (name, part), (index, item)))
        else:
            found.append(('%s=%s' % (name, value), (index, None)))
    return found


def _dropped(params, drop):
    """The query without one constraint of ``_constraints_of()``."""
    if drop is None:
        return params
    index, item = drop
    kept = list(params)
    name, value = kept[index]
    if item is None:
        del kept[index]
        return kept
    parts = value.split(',')
    del parts[item]
    if parts:
        kept[index] = (name, ','.join(parts))
    else:
        del kept[index]
    return kept
