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

"""Resource provider commands."""

import argparse
import math
from urllib import parse as urlparse
import uuid as uuid_lib

from osc_lib import exceptions
from osc_lib import utils

from osc_placement import plugin
from osc_placement.resources import common
from osc_placement.text import printable

BASE_URL = '/resource_providers'

# Microversions at which the provider API changed.
AGGREGATES_FILTER = '1.3'   # --member-of
RESOURCES_FILTER = '1.4'    # --resource
NESTED = '1.14'             # provider trees: parents, roots, --in-tree
REQUIRED_FILTER = '1.18'    # --required
FORBIDDEN_FILTER = '1.22'   # --forbidden
REPARENT = '1.37'           # a parent can be changed or removed

# The provider columns, each with the microversion that added it.
PROVIDER_FIELDS = (
    ('uuid', None),
    ('name', None),
    ('generation', None),
    ('root_provider_uuid', NESTED),
    ('parent_provider_uuid', NESTED),
)


def is_uuid_like(value):
    try:
        uuid_lib.UUID(value)
    except (TypeError, ValueError, AttributeError):
        return False
    return True


def find_provider(http, name_or_uuid):
    """The UUID of a provider given by UUID (as is) or by name.

    A UUID-shaped value costs no request; a name is looked up with
    ``GET /resource_providers?name=<value>``.
    """
    if is_uuid_like(name_or_uuid):
        return name_or_uuid
    providers = http.request('GET', BASE_URL, params={
        'name': name_or_uuid}).field('resource_providers', list)
    if not providers:
        raise exceptions.CommandError(
            "No resource provider with name or UUID '%s' found."
            % printable(name_or_uuid))
    # Provider names are unique in Placement.
    return providers[0]['uuid']


def created_provider_path(response):
    """The path, below the endpoint, of the provider a POST created.

    Read from the Location header, but sent to the configured endpoint:
    behind a load balancer or a TLS proxy the host Placement puts in
    Location may not be reachable from the client.
    """
    location = response.header('Location')
    _root, sep, rp_uuid = urlparse.unquote(
        urlparse.urlsplit(location).path).rpartition(BASE_URL + '/')
    if not sep or not is_uuid_like(rp_uuid):
        raise response.invalid('a Location header that does not name a '
                               'resource provider: %r' % location)
    return common.url('resource_providers', rp_uuid)


class ProviderCommand(common.NamedCommand):
    """Mixin of the commands about one resource provider.

    Adds the ``<uuid>`` positional (a UUID or a name) first, and
    ``prepare_provider()``: ``prepare()`` then the provider's UUID.
    """

    positional = ('uuid', '<uuid>', 'UUID or name of the resource provider')
    # A value that is not a UUID is looked up by name.
    positional_in_path = False

    def prepare_provider(self, parsed_args):
        http = self.prepare(parsed_args)
        return http, find_provider(http, parsed_args.uuid)


class CreateResourceProvider(common.ShowOne):
    """Create a new resource provider"""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.add_option(
            parser, '--parent-provider', metavar='<parent_provider>',
            type=common.non_empty, since=NESTED,
            help='UUID or name of the parent provider. Omit for no parent.')
        parser.add_argument(
            '--uuid', metavar='<uuid>', type=common.non_empty,
            help='UUID of the resource provider (default: chosen by the '
                 'server)')
        parser.add_argument(
            'name', metavar='<name>', type=common.non_empty,
            help='Name of the resource provider')
        return parser

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        data = {'name': parsed_args.name}
        if parsed_args.uuid:
            data['uuid'] = parsed_args.uuid
        if parsed_args.parent_provider:
            data['parent_provider_uuid'] = find_provider(
                http, parsed_args.parent_provider)
        resp = http.request('POST', BASE_URL, json=data)
        resource = http.request(
            'GET', created_provider_path(resp)).json_object()
        fields = common.columns(self, PROVIDER_FIELDS)
        return fields, utils.get_dict_properties(resource, fields)


class ListResourceProvider(common.Lister):
    """List resource providers"""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--uuid', metavar='<uuid>',
            help='Only the resource provider with this UUID')
        parser.add_argument(
            '--name', metavar='<name>',
            help='Only the resource provider with this name')
        self.add_option(
            parser, '--resource', metavar='<resource_class>=<value>',
            default=[], action='append', since=RESOURCES_FILTER,
            help='A resource class and an amount, e.g. ``VCPU=4``: only '
                 'providers with the capacity to serve it. May be repeated.')
        self.add_option(
            parser, '--in-tree', metavar='<in_tree>', since=NESTED,
            type=common.non_empty,
            help='Only providers in the same provider tree as this provider '
                 '(UUID or name).')
        self.add_option(
            parser, '--required', metavar='<required>', action='append',
            type=common.name_list,
            default=[], since=REQUIRED_FILTER,
            value_gates=common.REQUIRED_TRAIT_GATES,
            help='A required trait. May be repeated: providers must have '
                 'all of the required traits.')
        self.add_option(
            parser, '--forbidden', metavar='<forbidden>', action='append',
            type=common.name_list,
            default=[], since=FORBIDDEN_FILTER,
            help='A forbidden trait. May be repeated: providers must have '
                 'none of the forbidden traits.')
        aggregates = parser.add_mutually_exclusive_group()
        self.add_option(
            aggregates, '--member-of', metavar='<member_of>',
            type=common.name_list,
            action='append', default=[], since=AGGREGATES_FILTER,
            value_gates=common.MEMBER_OF_GATES,
            help='Comma-separated aggregate UUIDs: only providers in at '
                 'least one of them. For example, to get providers in agg1 '
                 'or agg2, and in agg3: ``--member-of <agg1>,<agg2> '
                 '--member-of <agg3>``.')
        self.add_option(
            aggregates, '--aggregate-uuid', metavar='<aggregate_uuid>',
            type=common.name_list,
            action='append', default=[], since=AGGREGATES_FILTER,
            help=argparse.SUPPRESS)
        return parser

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        filters = {}
        if parsed_args.name:
            filters['name'] = parsed_args.name
        if parsed_args.uuid:
            filters['uuid'] = parsed_args.uuid
        if parsed_args.aggregate_uuid:
            self.deprecated_option_warning('--aggregate-uuid', '--member-of')
            filters['member_of'] = 'in:' + ','.join(
                parsed_args.aggregate_uuid)
        if parsed_args.resource:
            filters['resources'] = ','.join(
                r.replace('=', ':') for r in parsed_args.resource)
        if parsed_args.in_tree:
            filters['in_tree'] = find_provider(http, parsed_args.in_tree)
        required = common.required_traits_params(parsed_args.required,
                                                 parsed_args.forbidden)
        if required:
            filters['required'] = required
        if parsed_args.member_of:
            filters['member_of'] = [common.member_of_param(v)
                                    for v in parsed_args.member_of]
        providers = http.request('GET', BASE_URL, params=filters).field(
            'resource_providers', list)
        fields = common.columns(self, PROVIDER_FIELDS)
        return fields, (utils.get_dict_properties(p, fields)
                        for p in providers)


class ShowResourceProvider(ProviderCommand, common.ShowOne):
    """Show resource provider details"""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--allocations', action='store_true',
            help='Include the allocations of the provider: a dictionary of '
                 'consumers and their resources')
        return parser

    def take_action(self, parsed_args):
        http, rp_uuid = self.prepare_provider(parsed_args)
        resource = http.request('GET', common.url(
            'resource_providers', rp_uuid)).json_object()
        fields = common.columns(self, PROVIDER_FIELDS)
        if parsed_args.allocations:
            resource['allocations'] = http.request('GET', common.url(
                'resource_providers', rp_uuid,
                'allocations')).field('allocations', dict)
            fields += ('allocations',)
        return fields, utils.get_dict_properties(resource, fields)


class SetResourceProvider(ProviderCommand, common.ShowOne):
    """Update an existing resource provider"""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--name', metavar='<name>', required=True,
            help='A new name of the resource provider')
        parents = parser.add_mutually_exclusive_group()
        self.add_option(
            parents, '--parent-provider', metavar='<parent_provider>',
            type=common.non_empty, since=NESTED,
            help='UUID or name of the parent provider. Before %s it can '
                 'only be set on a provider without a parent; from %s it '
                 'also moves the provider to another parent.'
                 % (REPARENT, REPARENT))
        self.add_option(
            parents, '--no-parent', action='store_true', since=REPARENT,
            extended=True,
            help='Make the provider a root provider (detach it from its '
                 'parent).')
        return parser

    def take_action(self, parsed_args):
        http, rp_uuid = self.prepare_provider(parsed_args)
        data = {'name': parsed_args.name}
        if parsed_args.parent_provider:
            data['parent_provider_uuid'] = find_provider(
                http, parsed_args.parent_provider)
        elif parsed_args.no_parent:
            data['parent_provider_uuid'] = None
        resource = http.request('PUT', common.url(
            'resource_providers', rp_uuid), json=data).json_object()
        fields = common.columns(self, PROVIDER_FIELDS)
        return fields, utils.get_dict_properties(resource, fields)


class DeleteResourceProvider(ProviderCommand, common.Command):
    """Delete resource providers

    Several providers can be given: each is deleted in turn, and the
    failures are reported at the end.
    """

    more_help = 'More providers (UUID or name) can follow.'

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        common.delete_each(
            self, http, self.named(parsed_args),
            lambda value: http.request('DELETE', common.url(
                'resource_providers', find_provider(http, value))),
            'resource provider', 'resource providers')


def _tree_order(providers):
    """(depth, provider) pairs, depth-first, root(s) first.

    Siblings are ordered by name. A provider whose parent is not in the list
    is shown as a root.
    """
    by_uuid = {p['uuid']: p for p in providers}
    children = {}
    roots = []
    for p in providers:
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


def provider_usages(http, rp_uuid):
    """{resource class: amount used} of a provider."""
    return http.request('GET', common.url(
        'resource_providers', rp_uuid, 'usages')).field('usages', dict)


def provider_allocations(http, rp_uuid):
    """{consumer: {'resources': {class: amount}}} on a provider."""
    return http.request('GET', common.url(
        'resource_providers', rp_uuid, 'allocations')).field(
            'allocations', dict)


def capacity_of(inventory):
    """What consumers may allocate: floor((total - reserved) * ratio)."""
    return int(math.floor((inventory['total'] - inventory['reserved'])
                          * inventory['allocation_ratio']))


def provider_capacity(http, rp_uuid):
    """{class: inventory record with ``capacity``, ``used`` and ``free``}.

    Two requests: the provider's inventories, then its usages. ``free`` is
    ``capacity - used``, negative on an over-committed provider.
    """
    inventories = http.request('GET', common.url(
        'resource_providers', rp_uuid, 'inventories')).field(
            'inventories', dict)
    usages = provider_usages(http, rp_uuid)
    records = {}
    for rc, inventory in inventories.items():
        capacity = capacity_of(inventory)
        used = usages.get(rc, 0)
        records[rc] = dict(inventory, capacity=capacity, used=used,
                           free=capacity - used)
    return records


def _inventory_summary(records):
    """'VCPU=2/16,MEMORY_MB=512/2048': used/capacity per resource class."""
    return ','.join('%s=%s/%s' % (rc, record['used'], record['capacity'])
                    for rc, record in records.items())


# Views over many providers: every provider of the cloud, or those of a
# tree, an aggregate or a trait, read with a few requests per provider.

def check_aggregate_uuids(values):
    """Refuse, before any request, a ``--member-of`` that is not UUIDs."""
    for value in values:
        for aggregate in value.lstrip('!').split(','):
            if not is_uuid_like(aggregate):
                raise exceptions.CommandError(
                    '--member-of: %r is not an aggregate UUID.'
                    % aggregate)


class ManyProviders(object):
    """Mixin of the commands that read many providers (and consumers).

    Their requests go through ``http.each``, by default
    ``plugin.PARALLEL_NEW_COMMANDS`` at a time. A provider or consumer
    that cannot be read does not stop the others: what was read is
    printed, then each failure on a line of its own and a count, and the
    command exits with 1.
    """

    default_parallel = plugin.PARALLEL_NEW_COMMANDS

    # --in-tree, --member-of, --required, --name; select_providers()
    # reads what a command declared.
    SELECTION_HELP = {
        'in_tree': 'Only the providers of the tree of this provider (UUID '
                   'or name).',
        'member_of': 'Comma-separated aggregate UUIDs: only providers in at '
                     'least one of them. May be repeated: each value is one '
                     'more condition.',
        'required': 'A trait the providers must have. May be repeated.',
    }

    def add_selection(self, parser, *which):
        """Add the provider filters named in ``which``."""
        if 'in_tree' in which:
            self.add_option(
                parser, '--in-tree', metavar='<in_tree>', since=NESTED,
                type=common.non_empty, help=self.SELECTION_HELP['in_tree'])
        if 'member_of' in which:
            self.add_option(
                parser, '--member-of', metavar='<member_of>',
                type=common.name_list, action='append', default=[],
                since=AGGREGATES_FILTER, value_gates=common.MEMBER_OF_GATES,
                help=self.SELECTION_HELP['member_of'])
        if 'required' in which:
            self.add_option(
                parser, '--required', metavar='<required>', action='append',
                type=common.name_list, default=[], since=REQUIRED_FILTER,
                value_gates=common.REQUIRED_TRAIT_GATES,
                help=self.SELECTION_HELP['required'])

    def run(self, parsed_args):
        self._failures = {}    # (thing, key) -> the first error, in order
        self._read = {}        # thing -> the keys of all items tried
        result = super().run(parsed_args)
        if self._failures:
            counts = []
            for (thing, key), exc in self._failures.items():
                self.log.error('Failed to read %s %s: %s', thing, key, exc)
            for thing, keys in self._read.items():
                failed = sum(1 for t, _key in self._failures if t == thing)
                if failed:
                    counts.append('%d of %d %ss' % (failed, len(keys), thing))
            raise exceptions.CommandError(
                'Failed to read %s.' % ', '.join(counts))
        return result

    def each(self, http, work, items, thing, key=None):
        """[(item, result)] of the items ``work`` succeeded for.

        The failures are kept, in item order, for the report at the end;
        ``key(item)`` names an item in it (default: the item itself). An
        item read twice (two passes over the same providers) counts once.
        """
        items = list(items)
        key = key or (lambda item: item)
        done = []
        outcomes = http.each(work, items, default=self.default_parallel)
        for item, (result, exc) in zip(items, outcomes):
            self._read.setdefault(thing, set()).add(key(item))
            if exc is None:
                done.append((item, result))
            else:
                self._failures.setdefault((thing, key(item)), exc)
        return done

    def each_provider(self, http, work, providers):
        """``each`` over provider records, ``work(uuid)`` for each."""
        return self.each(http, lambda p: work(p['uuid']), providers,
                         'resource provider', key=lambda p: p['uuid'])

    def select_providers(self, http, parsed_args):
        """The provider records the filters select, in provider-list order.

        ``--resource-provider`` values (where the command has it) are
        looked up one by one; with other filters too, only those of them
        that the filters select are kept.
        """
        filters = {}
        if getattr(parsed_args, 'in_tree', None):
            filters['in_tree'] = find_provider(http, parsed_args.in_tree)
        if getattr(parsed_args, 'member_of', None):
            filters['member_of'] = [common.member_of_param(v)
                                    for v in parsed_args.member_of]
        required = common.required_traits_params(
            getattr(parsed_args, 'required', []), [])
        if required:
            filters['required'] = required
        named = list(dict.fromkeys(
            getattr(parsed_args, 'resource_provider', None) or []))
        if named:
            chosen = []
            for value, (found, exc) in zip(named, http.each(
                    lambda value: _lookup(http, value), named,
                    default=self.default_parallel)):
                if exc is not None:
                    raise exc
                chosen.append(found)
            if not filters:
                return list({p['uuid']: p for p in chosen}.values())
            wanted = set(p['uuid'] for p in chosen)
        providers = http.request('GET', BASE_URL, params=filters).field(
            'resource_providers', list)
        if named:
            providers = [p for p in providers if p['uuid'] in wanted]
        return providers


def _lookup(http, value):
    """The record of a provider given by UUID or name; one request."""
    key = 'uuid' if is_uuid_like(value) else 'name'
    providers = http.request('GET', BASE_URL, params={key: value}).field(
        'resource_providers', list)
    if not providers:
        raise exceptions.CommandError(
            "No resource provider with name or UUID '%s' found." % value)
    return providers[0]


def dot_string(text):
    """``text`` as a double-quoted DOT string, shown as typed in a label.

    Backslashes are doubled (so no ``\\N``, ``\\l``... escape of Graphviz
    applies), quotes escaped and line breaks turned into ``\\n``: any
    provider name gives a valid string on one line.
    """
    text = str(text).replace('\\', '\\\\').replace('"', '\\"')
    text = text.replace('\r\n', '\n').replace('\r', '\n')
    return '"%s"' % text.replace('\n', '\\n')


def _label(*lines):
    return 'label=' + dot_string('\n'.join(lines))


def dot_graph(ordered, details, consumers):
    """The DOT text of providers, depth first, and of their consumers.

    ``ordered``: (depth, provider) pairs. ``details``: uuid -> what
    ``_details`` read (``--long``). ``consumers``: uuid -> the provider's
    allocations (``--consumers``).
    """
    lines = ['digraph "resource providers" {',
             '    rankdir=BT;',
             '    node [shape=box];']
    shown = set(p['uuid'] for _depth, p in ordered)
    for _depth, provider in ordered:
        uuid = provider['uuid']
        text = [provider['name'], uuid]
        if uuid in details:
            found = details[uuid]
            text += ['%s: %s/%s' % (rc, record['used'], record['capacity'])
                     for rc, record in found['capacity'].items()]
            if found['traits']:
                text.append('traits: ' + ', '.join(found['traits']))
            if found['aggregates']:
                text.append('aggregates: ' + ', '.join(found['aggregates']))
        lines.append('    %s [%s];' % (dot_string(uuid), _label(*text)))
        parent = provider.get('parent_provider_uuid')
        if parent in shown:
            lines.append('    %s -> %s;' % (dot_string(uuid),
                                            dot_string(parent)))
    seen = set()
    for _depth, provider in ordered:
        for consumer, held in consumers.get(provider['uuid'], {}).items():
            node = dot_string('consumer ' + consumer)
            if consumer not in seen:
                seen.add(consumer)
                lines.append('    %s [shape=ellipse, %s];'
                             % (node, _label('consumer', consumer)))
            lines.append('    %s -> %s [%s];' % (
                node, dot_string(provider['uuid']), _label(', '.join(
                    '%s=%s' % item
                    for item in held['resources'].items()))))
    lines.append('}')
    return '\n'.join(lines) + '\n'


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


class _TreeView(ManyProviders, common.Lister):
    """What ``tree show`` and ``tree list`` share: rows or DOT of trees."""

    min_version = NESTED
    TREE_FIELDS = ('name', 'uuid', 'generation', 'parent_provider_uuid')
    LONG_FIELDS = ('inventory used/capacity', 'traits')
    INDENTED_FORMATS = ('table', 'value')

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

    @staticmethod
    def check_view_options(parsed_args):
        if parsed_args.consumers and not parsed_args.dot:
            raise exceptions.CommandError('--consumers needs --dot.')

    def render(self, http, parsed_args, ordered):
        """(columns, rows), or ('dot', text) with ``--dot``."""
        providers = [provider for _depth, provider in ordered]
        details = {}
        if parsed_args.long:
            details = {p['uuid']: found for p, found in self.each_provider(
                http, lambda uuid: _details(http, uuid, parsed_args.dot),
                providers)}
        if parsed_args.dot:
            consumers = {}
            if parsed_args.consumers:
                consumers = dict(
                    (p['uuid'], held) for p, held in self.each_provider(
                        http, lambda uuid: provider_allocations(http, uuid),
                        providers))
            return 'dot', dot_graph(ordered, details, consumers)
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
                row['name'] = IndentedName(provider['name'], depth)
            found = details.get(provider['uuid'])
            if found:
                row['inventory used/capacity'] = _inventory_summary(
                    found['capacity'])
                row['traits'] = ','.join(found['traits'])
            rows.append(tuple(row.get(field) for field in fields))
        return fields, rows

    def produce_output(self, parsed_args, column_names, data):
        if parsed_args.dot:
            self.app.stdout.write(data)
            return 0
        return super().produce_output(parsed_args, column_names, data)


def _details(http, rp_uuid, aggregates):
    """Capacity and traits (and aggregates) of a provider: 3 or 4 GETs."""
    found = {'capacity': provider_capacity(http, rp_uuid),
             'traits': http.request('GET', common.url(
                 'resource_providers', rp_uuid, 'traits')).field(
                     'traits', list)}
    found['aggregates'] = http.request('GET', common.url(
        'resource_providers', rp_uuid, 'aggregates')).field(
            'aggregates', list) if aggregates else []
    return found


class ShowResourceProviderTree(ProviderCommand, _TreeView):
    """Show the whole provider tree that contains a resource provider

    One row per provider, depth first: the root, then each child under its
    parent, names indented by depth in the table and value formats. Other
    formats (json, yaml, csv) give the plain name and a ``depth`` field
    instead. ``--sort-column name`` sorts on the plain name. ``--dot``
    prints the tree as a Graphviz graph.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.add_view_options(parser)
        return parser

    def take_action(self, parsed_args):
        self.check_view_options(parsed_args)
        http, rp_uuid = self.prepare_provider(parsed_args)
        providers = http.request('GET', BASE_URL, params={
            'in_tree': rp_uuid}).field('resource_providers', list)
        if not providers:
            raise exceptions.CommandError(
                "No resource provider with UUID '%s' found." % rp_uuid)
        return self.render(http, parsed_args, _tree_order(providers))


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
        parser.add_argument(
            '--name', metavar='<name>', type=common.non_empty,
            help='Only the tree whose root provider has this name')
        self.add_selection(parser, 'member_of')
        self.add_view_options(parser)
        return parser

    def take_action(self, parsed_args):
        check_aggregate_uuids(parsed_args.member_of)
        self.check_view_options(parsed_args)
        http = self.prepare(parsed_args)
        providers = http.request('GET', BASE_URL).field(
            'resource_providers', list)
        roots = [p for p in providers
                 if p.get('root_provider_uuid', p['uuid']) == p['uuid']]
        if parsed_args.name or parsed_args.member_of:
            filters = {}
            if parsed_args.name:
                filters['name'] = parsed_args.name
            if parsed_args.member_of:
                filters['member_of'] = [common.member_of_param(v)
                                        for v in parsed_args.member_of]
            matching = set(p['uuid'] for p in http.request(
                'GET', BASE_URL, params=filters).field(
                    'resource_providers', list))
            roots = [p for p in roots if p['uuid'] in matching]
        members = {}
        for provider in providers:
            members.setdefault(provider.get('root_provider_uuid'),
                               []).append(provider)
        ordered = [item for root in roots
                   for item in _tree_order(members[root['uuid']])]
        return self.render(http, parsed_args, ordered)
