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

"""Provider trees: ``resource provider tree show`` and ``tree list``.

Both print providers depth first (``tree_order()``), as rows (in a table
the names indented by depth), or as Graphviz DOT (``dot.py``) with
``--dot``, which replaces the output formats; with
``--long`` each provider's capacity and traits are read through the batch.
"""

from osc_lib import exceptions

from osc_placement.api import providers
from osc_placement.cli import common
from osc_placement.cli import filters
from osc_placement.cli import parsers
from osc_placement import microversions
from osc_placement.model import amounts
from osc_placement.model.text import printable

# Provider trees (parents, roots, in_tree) appeared in this microversion.


def tree_order(records):
    """(depth, provider) pairs, depth-first, root(s) first.

    Siblings are ordered by name. A provider whose parent is not in the list
    is shown as a root.
    """
    by_uuid = {p['uuid']: p for p in records}
    children = {}
    roots = []
    for p in records:
        parent = p.get('parent_provider_uuid')
        if parent in by_uuid:
            children.setdefault(parent, []).append(p)
        else:
            roots.append(p)
    ordered = []
    stack = [(0, p) for p in sorted(roots, key=lambda p: p['name'],
                                    reverse=True)]
    while stack:
        depth, provider = stack.pop()
        ordered.append((depth, provider))
        kids = sorted(children.get(provider['uuid'], ()),
                      key=lambda p: p['name'], reverse=True)
        stack.extend((depth + 1, kid) for kid in kids)
    return ordered


class IndentedName(str):
    """A provider name indented by its depth, which sorts on the name.

    So that ``--sort-column name`` does not put every child (its name led
    by blanks) before the roots.
    """

    def __new__(cls, name, depth):
        self = super().__new__(cls, '  ' * depth + name)
        self.name = name
        return self

    def __lt__(self, other):
        return self.name < getattr(other, 'name', other)

    def __gt__(self, other):
        return self.name > getattr(other, 'name', other)

    def __le__(self, other):
        return self.name <= getattr(other, 'name', other)

    def __ge__(self, other):
        return self.name >= getattr(other, 'name', other)


class _TreeView(filters.ManyProviders, common.Lister):
    """What ``tree show`` and ``tree list`` share: rows or DOT of trees."""

    min_version = microversions.NESTED_PROVIDERS
    in_reference = False
    TREE_FIELDS = ('name', 'uuid', 'generation', 'parent_provider_uuid')
    LONG_FIELDS = ('inventory used/capacity', 'traits')
    # Indentation is for the eye; the other formats give the bare name and
    # the depth.
    INDENTED_FORMATS = ('table',)
    # The output options that mean nothing with --dot (DOT is the output):
    # (dest, flags); cliff's defaults are replaced by None (see run()).
    NOT_WITH_DOT = (('formatter', '-f/--format'),
                    ('columns', '-c/--column'),
                    ('sort_columns', '--sort-column'),
                    ('sort_direction', '--sort-ascending/--sort-descending'))

    def add_view_options(self, parser):
        parser.add_argument(
            '--long', action='store_true',
            help='Also show each provider\'s inventory as '
                 '``<class>=<used>/<capacity>`` and its traits (three more '
                 'requests per provider)')
        self.add_option(
            parser, '--dot', action='store_true', extended=True,
            help='Print the providers as one Graphviz ``digraph`` instead '
                 'of rows: a node per provider (name and UUID), an edge '
                 'from each child to its parent. With ``--long`` the nodes '
                 'also list ``<class>: <used>/<capacity>``, traits and '
                 'aggregates (four more requests per provider). Render it '
                 'with e.g. ``dot -Tsvg``.')
        self.add_option(
            parser, '--consumers', action='store_true', extended=True,
            help='With ``--dot``: also a node per consumer, with an edge to '
                 'each provider it holds resources on, labelled with those '
                 'resources (one more request per provider).')

        # None: given or not is known (cliff's defaults are put back by
        # run()).
        parser.set_defaults(formatter=None, columns=None, sort_columns=None)

    def run(self, parsed_args):
        given = [flags for dest, flags in self.NOT_WITH_DOT
                 if getattr(parsed_args, dest) is not None]
        if parsed_args.dot and given:
            raise exceptions.CommandError(
                '--dot prints Graphviz DOT: it cannot be combined with %s.'
                % ', '.join(given))
        if parsed_args.formatter is None:
            parsed_args.formatter = self.formatter_default
        for dest in ('columns', 'sort_columns'):
            if getattr(parsed_args, dest) is None:
                setattr(parsed_args, dest, [])
        return super().run(parsed_args)

    @staticmethod
    def check_view_options(parsed_args):
        if parsed_args.consumers and not parsed_args.dot:
            raise exceptions.CommandError('--consumers needs --dot.')

    def render(self, http, parsed_args, ordered):
        """(columns, rows), or ('dot', text) with ``--dot``."""
        shown = [provider for _depth, provider in ordered]
        details = {}
        if parsed_args.long:
            details = {p['uuid']: found for p, found in self.each_provider(
                http, lambda uuid: providers.provider_details(
                    http, uuid, parsed_args.dot),
                shown)}
        if parsed_args.dot:
            # With --dot only (see osc_placement.resources).
            from osc_placement.cli import dot
            consumers = {}
            if parsed_args.consumers:
                consumers = dict(
                    (p['uuid'], held) for p, held in self.each_provider(
                        http, lambda uuid: providers.provider_allocations(
                            http, uuid),
                        shown))
            return 'dot', dot.dot_graph(ordered, details, consumers)
        indent = parsed_args.formatter in self.INDENTED_FORMATS
        fields = self.TREE_FIELDS
        if parsed_args.long:
            fields += self.LONG_FIELDS
        if not indent:
            fields += ('depth',)
        rows = []
        for depth, provider in ordered:
            row = dict(provider, depth=depth)
            if indent:
                # Escaped here, as the table shows every name (the
                # indented name must stay one, to sort on the name).
                row['name'] = IndentedName(printable(provider['name']), depth)
            found = details.get(provider['uuid'])
            if found:
                row['inventory used/capacity'] = ','.join(
                    amounts.used_of_capacity(found['capacity']))
                row['traits'] = ','.join(found['traits'])
            rows.append(tuple(row.get(field) for field in fields))
        return fields, rows

    def produce_output(self, parsed_args, column_names, data):
        if parsed_args.dot:
            self.app.stdout.write(data)
            return 0
        return super().produce_output(parsed_args, column_names, data)


class ShowResourceProviderTree(common.ProviderCommand, _TreeView):
    """Show the whole provider tree that contains a resource provider

    One row per provider, depth first: the root, then each child under its
    parent, names indented by depth in the table format. The other formats
    (value, csv, json, yaml) give the bare name and a ``depth`` column
    instead. ``--sort-column name`` sorts on the bare name. ``--dot``
    prints the tree as a Graphviz graph instead of rows, so it cannot be
    combined with ``-f``, ``-c`` or the sort options.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.add_view_options(parser)
        return parser

    def take_action(self, parsed_args):
        self.check_view_options(parsed_args)
        http, rp_uuid = self.prepare_provider(parsed_args)
        members = http.request('GET', providers.BASE_URL, params={
            'in_tree': rp_uuid}).field('resource_providers', list)
        if not members:
            raise exceptions.CommandError(
                "No resource provider with UUID '%s' found." % rp_uuid)
        return self.render(http, parsed_args, tree_order(members))


class ListResourceProviderTree(_TreeView):
    """List every provider tree of the cloud

    Each tree as ``resource provider tree show`` shows one: roots in the
    order of ``resource provider list``, each followed by its providers
    depth first, with the same columns, ``--long`` and indentation.
    ``--name`` and ``--member-of`` keep only the trees whose root provider
    matches them. ``--dot`` prints all the trees as one Graphviz graph.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        filters.add(self, parser, 'name', overrides={'name': {
            'type': parsers.non_empty,
            'help': 'Only the tree whose root provider has this name'}})
        self.add_selection(parser, 'member_of')
        self.add_view_options(parser)
        return parser

    def take_action(self, parsed_args):
        filters.check_aggregate_uuids(parsed_args.member_of)
        self.check_view_options(parsed_args)
        http = self.prepare(parsed_args)
        everyone = http.request('GET', providers.BASE_URL).field(
            'resource_providers', list)
        roots = [p for p in everyone
                 if p.get('root_provider_uuid', p['uuid']) == p['uuid']]
        # --name and --member-of select the roots.
        params = filters.query(self, http, parsed_args)
        if params:
            matching = set(p['uuid'] for p in http.request(
                'GET', providers.BASE_URL, params=params).field(
                    'resource_providers', list))
            roots = [p for p in roots if p['uuid'] in matching]
        members = {}
        for provider in everyone:
            members.setdefault(provider.get('root_provider_uuid'),
                               []).append(provider)
        ordered = [item for root in roots
                   for item in tree_order(members[root['uuid']])]
        return self.render(http, parsed_args, ordered)
