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

"""The options of a candidates request, and the query they make.

``CandidateRequest`` is the mixin of ``allocation candidate list`` and
``allocation candidate explain``: it declares the options of the request
(the request groups of ``request_groups``, ``--group-policy``,
``--root-required``, ``--same-subtree``, ``--limit`` and the
``--flavor`` options), checks every value before the first request and
turns them into the query (``request()``), in the order the reference
sends it. ``capacity fit`` takes the same request (without ``--limit``,
with several flavors): its notes on what the options select are added
to their help (``CandidateRequest.option_notes``).
"""

import argparse

from osc_lib import exceptions

from osc_placement.api import providers
from osc_placement.cli import filters
from osc_placement.cli import parsers
from osc_placement.cli import request_groups as groups_lib
from osc_placement import microversions
from osc_placement import version


def _help(cmd, dest, text):
    """The help of an option of the request, with the command's note."""
    note = cmd.option_notes.get(dest)
    return '%s %s' % (text, note) if note else text


def _add_resource_options(cmd, parser):
    """--resource, --limit, --required, --forbidden and --member-of."""
    cmd.add_option(
        parser, '--resource', metavar='<resource_class>=<value>',
        dest='resource', action=groups_lib.AddToGroup,
        help=_help(cmd, 'resource',
                   'An amount of a resource class that the providers of '
                   'each candidate (or the provider of the current '
                   '--group) must be able to serve, e.g. ``--resource '
                   'VCPU=4 --resource MEMORY_MB=2048``. May be repeated.'))
    if cmd.offers_limit:
        cmd.add_option(
            parser, '--limit', metavar='<limit>',
            since=microversions.CANDIDATES_LIMIT,
            help='Return at most this many candidates: an integer of at '
                 'least 1.')
    cmd.add_option(
        parser, '--required', metavar='<required>', dest='required',
        type=parsers.name_list, action=groups_lib.AddToGroup,
        since=microversions.CANDIDATES_REQUIRED,
        value_gates=filters.REQUIRED_TRAIT_GATES,
        help=_help(cmd, 'required',
                   'A trait the candidate (or the provider of the current '
                   '--group) must have. May be repeated: all are '
                   'required.'))
    cmd.add_option(
        parser, '--forbidden', metavar='<forbidden>', dest='forbidden',
        type=parsers.name_list, action=groups_lib.AddToGroup,
        since=microversions.FORBIDDEN_TRAITS,
        help=_help(cmd, 'forbidden',
                   'A trait the candidate (or the provider of the current '
                   '--group) must not have. May be repeated.'))
    aggregates = parser.add_mutually_exclusive_group()
    cmd.add_option(
        aggregates, '--member-of', metavar='<member_of>',
        type=parsers.name_list, dest='member_of',
        action=groups_lib.AddToGroup,
        since=microversions.CANDIDATES_MEMBER_OF,
        value_gates=filters.MEMBER_OF_GATES,
        help=_help(cmd, 'member_of',
                   'Comma-separated aggregate UUIDs: the candidate (or the '
                   'provider of the current --group) must be in at least '
                   'one of them. For example ``--member-of <agg1>,<agg2> '
                   '--member-of <agg3>`` means in agg1 or agg2, and in '
                   'agg3.'))
    cmd.add_option(
        aggregates, '--aggregate-uuid', metavar='<aggregate_uuid>',
        type=parsers.name_list, dest='aggregate_uuid',
        action=groups_lib.AddToGroup,
        since=microversions.CANDIDATES_MEMBER_OF, help=argparse.SUPPRESS)


def _add_group_options(cmd, parser):
    """--group, --group-policy, --in-tree, --root-required, --same-subtree."""
    cmd.add_option(
        parser, '--group', metavar='<group>', action=groups_lib.StartGroup,
        type=parsers.non_empty, since=microversions.GRANULAR_GROUPS,
        help='Start a request group: the --resource, --required, '
             '--forbidden, --member-of and --in-tree options that '
             'follow must be satisfied by a single provider. A name '
             'given twice continues the same group. Before '
             '``--os-placement-api-version %s`` a name is a positive '
             'integer; from %s it is 1 to 64 characters among A-Z, '
             'a-z, 0-9, _ and -. Use at least %s for the server to '
             'consider nested providers.'
             % (microversions.NAMED_GROUPS, microversions.NAMED_GROUPS,
                microversions.NESTED_CANDIDATES))
    parser.add_argument(
        '--group-policy', choices=['none', 'isolate'], default='none',
        metavar='<group_policy>',
        help='How named groups relate when there are several: '
             '``none`` (default) lets one provider serve several '
             'groups, ``isolate`` requires a different provider for '
             'each group.')
    cmd.add_option(
        parser, '--in-tree', metavar='<in_tree>', dest='in_tree',
        type=parsers.non_empty, action=groups_lib.AddToGroup,
        since=microversions.IN_TREE_CANDIDATES, extended=True,
        help=_help(cmd, 'in_tree',
                   'Only providers in the tree of this resource provider '
                   '(UUID or name), for the candidate or the current '
                   '--group.'))
    cmd.add_option(
        parser, '--root-required', metavar='<trait>[,!<trait>...]',
        action='append', default=[], since=microversions.ROOT_REQUIRED,
        extended=True,
        help='Traits the root provider of the candidate\'s tree must '
             'have, or, with a leading ``!``, must not have. Applies '
             'to the whole request, not to a --group. May be repeated.')
    cmd.add_option(
        parser, '--same-subtree', metavar='<group>,<group>[,...]',
        action='append', default=[], since=microversions.SAME_SUBTREE,
        extended=True,
        help='Named groups whose providers must all be in the subtree '
             'of one of them. May be repeated. A group named here may '
             'have no --resource (only traits, aggregates or tree).')


def query(cmd, http, parsed_args, groups, resources, subtrees,
          root_required, limit):
    """The query parameters, in the order the reference sends them.

    groups, resources, subtrees, root_required: the values checked by
    ``request_groups``; limit: the ``--limit`` parsed, or None.
    """
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
            cmd.deprecated_option_warning('--aggregate-uuid', '--member-of')
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


def _parse_limit(parsed_args):
    """The --limit given, parsed; None without it."""
    limit = getattr(parsed_args, 'limit', None)
    if limit is None:
        return None
    return parsers.parse_int(limit, '--limit', minimum=1)


class CandidateRequest(object):
    """Mixin of the commands that take a candidates request as options.

    ``offers_limit``: False for the commands that take the request
    without ``--limit``; ``several_flavors``: True for a command that
    takes several flavors (``--flavor`` repeated, ``--all-flavors``),
    each its own request; ``option_notes``: {dest: a sentence} added to
    the help of an option of the request, where the command gives it a
    further meaning; ``add_output_options()``: the options of the
    command's output, declared after those of the request.
    """

    min_version = microversions.ALLOCATION_CANDIDATES
    # True for a command that narrows its trees to the hosts of Nova's
    # default zone (the Flavored's hosts, from flavor_request()).
    narrows_to_hosts = False
    # The reference checks --limit, then --group, then the options of the
    # groups.
    gates_first = ('limit', 'group')
    offers_limit = True
    several_flavors = False
    option_notes = {}

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _add_resource_options(self, parser)
        _add_group_options(self, parser)
        # The commands of candidates requests only (see
        # osc_placement.resources): the --flavor options.
        from osc_placement.cli import flavor_requests
        flavor_requests.add_options(self, parser,
                                    with_all=self.several_flavors)
        self.add_output_options(parser)
        return parser

    def add_output_options(self, parser):
        """The options of this command's output (not of the request)."""

    def check_option_gates(self, parsed_args):
        """Gate the grouped options on their values across all groups."""
        super().check_option_gates(parsed_args,
                                   groups_lib.gated_values(parsed_args))

    def request(self, parsed_args):
        """(client, query): ``narrowed_request()`` without the hosts."""
        http, params, _hosts = self.narrowed_request(parsed_args)
        return http, params

    def narrowed_request(self, parsed_args):
        """The client, the query of the request and the zone's hosts.

        The hosts: those of Nova's default zone whose trees alone count
        (``narrows_to_hosts``), None for any tree.

        With ``--flavor``, the flavor's request (``flavor_request()``);
        else that of the request groups (``groups_request()``).
        """
        # Only the runs of these commands (see osc_placement.resources).
        from osc_placement.cli import flavor_requests
        flavor_requests.check(parsed_args, replaced=())
        if flavor_requests.given(parsed_args):
            http, flavored = self.flavor_request(parsed_args)
            return http, flavored.params, flavored.hosts
        http, params = self.groups_request(parsed_args)
        return http, params, None

    def groups_request(self, parsed_args):
        """(client, query) of the request groups given.

        Every value first, with the version known without a request (the
        negotiation's ceiling), so that a mistake is reported before
        anything is sent; then the gates at the live version.
        """
        groups = groups_lib.request_groups(parsed_args)
        limit = _parse_limit(parsed_args)
        # A command the reference never had negotiates the version its
        # group names need: their syntax now, the version once known.
        groups_lib.check_group_names(groups, self._parser_at_least(
            microversions.NAMED_GROUPS) or not self.in_reference)
        subtrees = groups_lib.same_subtrees(parsed_args, groups)
        root_required = groups_lib.root_required(parsed_args)
        resources = groups_lib.check_resources(groups, subtrees)
        self.check_request_values(groups)
        http = self.prepare(parsed_args)
        groups_lib.require_resources(groups)
        if not self.in_reference and groups_lib.named_groups(groups):
            http.raise_for(microversions.NAMED_GROUPS, 'a named --group')
        # 'latest' against a server below 1.33: integers only.
        groups_lib.check_group_names(groups, self.compare_version(
            version.ge(microversions.NAMED_GROUPS)))
        return http, query(self, http, parsed_args, groups, resources,
                           subtrees, root_required, limit)

    def check_request_values(self, groups):
        """The command's own checks of the groups' values, if any.

        Called before any request, after those of every candidates
        request.
        """

    def params_without(self, http, parsed_args, drop):
        """The query of the request without one constraint (None: none).

        drop: as ``request_groups.constraints()`` gives it. A
        CommandError where the request is then not one Placement takes (a
        group left without resources, say).
        """
        relaxed = parsed_args if drop is None \
            else groups_lib.without(parsed_args, drop)
        groups = groups_lib.request_groups(relaxed)
        # The checks of the values; no request.
        subtrees = groups_lib.same_subtrees(relaxed, groups)
        resources = groups_lib.check_resources(groups, subtrees)
        groups_lib.require_resources(groups)
        return query(self, http, relaxed, groups, resources, subtrees,
                     groups_lib.root_required(relaxed), None)

    def flavor_request(self, parsed_args):
        """(client, flavor_requests.Flavored) of ``--flavor``, one flavor.

        As ``flavor_requests()``, then ``--limit``.
        """
        http, flavored = self.flavor_requests(parsed_args)
        flavored = flavored[0]
        limit = _parse_limit(parsed_args)
        if limit is not None:
            flavored.translation.params = [
                ('limit', limit)] + flavored.params
        return http, flavored

    def flavor_requests(self, parsed_args):
        """(client, [flavor_requests.Flavored]) of the flavors given.

        They replace ``--resource`` and ``--group`` (refused in one line
        before any request); the --required, --forbidden, --member-of,
        --in-tree and --root-required given add to each. With several
        flavors (``several_flavors``), one that cannot be asked for is a
        Flavored saying why, and the others go on.
        """
        # Only the runs of these commands (see osc_placement.resources).
        from osc_placement.cli import flavor_requests
        unnamed = self._check_flavor_options(parsed_args)
        roots = [trait for value in parsed_args.root_required
                 for trait in groups_lib.split_names(value,
                                                     '--root-required')]
        member_of = list(unnamed.get('member_of', []))
        if unnamed.get('aggregate_uuid'):
            self.deprecated_option_warning('--aggregate-uuid', '--member-of')
            member_of.append(','.join(unnamed['aggregate_uuid']))
        http = self.prepare(parsed_args)
        in_tree = None
        if unnamed.get('in_tree'):
            in_tree = providers.find_provider(http, unnamed['in_tree'][0])
        found, zone = flavor_requests.read(
            self, parsed_args, hosts_ok=self.narrows_to_hosts)
        return http, flavor_requests.translated(
            self, http, parsed_args, found, zone,
            required=unnamed.get('required', []),
            forbidden=unnamed.get('forbidden', []), member_of=member_of,
            in_tree=in_tree, root_required=roots,
            keep_going=self.several_flavors and len(found) > 1)

    def flavor_replaces(self, groups):
        """The line that refuses ``--resource`` or ``--group`` with a flavor.

        groups: True where a --group is given.
        """
        return ('--flavor replaces --resource and --group: give one or the '
                'other.')

    def _check_flavor_options(self, parsed_args):
        """The unnamed group's options, refusing what --flavor replaces."""
        groups = groups_lib.request_groups(parsed_args)
        unnamed = groups.get('', {})
        if len(parsed_args.flavor) > 1 and not self.several_flavors:
            raise exceptions.CommandError(
                '--flavor: give one flavor (capacity fit takes several).')
        if any(groups) or unnamed.get('resource'):
            raise exceptions.CommandError(
                self.flavor_replaces(any(groups)))
        if parsed_args.group_policy != 'none' or parsed_args.same_subtree:
            raise exceptions.CommandError(
                '--flavor: the flavor\'s request has its own group policy '
                'and groups; --group-policy and --same-subtree do not go '
                'with it.')
        if len(unnamed.get('in_tree', [])) > 1:
            raise exceptions.CommandError(
                '--flavor: give --in-tree once.')
        filters.check_aggregate_uuids(unnamed.get('member_of', []))
        return unnamed
