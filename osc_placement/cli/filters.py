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

"""Filters: which providers (and candidates) a request selects.

* The microversions that the values of traits and aggregates need
  (``MEMBER_OF_GATES``, ``REQUIRED_TRAIT_GATES``), shared by the provider
  list and the allocation candidates, as are their query values
  (``required_traits_params``, ``member_of_param``, imported from
  ``osc_placement.model.query_values``).
* The filters of ``GET /resource_providers``, declared once in
  ``PROVIDER_FILTERS`` (option, microversion, help, query parameter):
  ``add()`` puts the ones a command offers on its parser, ``query()``
  turns the values given into the query string, always in the same order.
* ``ManyProviders``, the mixin of the commands that read many providers:
  the filters above, ``--resource-provider``, and the batch report.
"""

import argparse

from osc_lib import exceptions

from osc_placement.api import providers
from osc_placement.cli import batch
from osc_placement.cli import parsers
from osc_placement import microversions
from osc_placement.model import batch_names
from osc_placement.model.query_values import member_of_param
from osc_placement.model.query_values import required_traits_params
from osc_placement.model import scalars
from osc_placement import version


def add_resource_provider(parser, help):
    """``--resource-provider``: a provider by UUID or name, repeatable.

    The option of the commands that narrow what they read to some
    providers; ``help`` says what it narrows. The values are looked up by
    the command (``providers.find_provider``), not here.
    """
    parser.add_argument(
        '--resource-provider', metavar='<resource_provider>',
        action='append', default=[], type=parsers.non_empty, help=help)


def is_forbidden_aggregate(values):
    return any(v.startswith('!') for v in values)


def is_repeated(values):
    return len(values) > 1


MEMBER_OF_GATES = (
    version.ValueGate(
        microversions.MULTI_MEMBER_OF, is_repeated,
        'the option can be repeated: each value is one more condition '
        '(all must hold)'),
    version.ValueGate(
        microversions.FORBIDDEN_AGGREGATES, is_forbidden_aggregate,
        'a value starting with ``!`` forbids the aggregates: ``!<agg>`` or '
        '``!<agg1>,<agg2>`` excludes providers in any of them'),
)


def has_comma(values):
    return any(',' in v for v in values)


REQUIRED_TRAIT_GATES = (
    version.ValueGate(
        microversions.ANY_TRAITS, has_comma,
        'a value can be a comma-separated list of traits, meaning any of '
        'them'),
)


def check_aggregate_uuids(values):
    """Refuse, before any request, a ``--member-of`` that is not UUIDs."""
    for value in values:
        for aggregate in value.lstrip('!').split(','):
            if not scalars.is_uuid_like(aggregate):
                raise exceptions.CommandError(
                    '--member-of: %r is not an aggregate UUID.'
                    % aggregate)


class ProviderFilter(object):
    """One filter of ``GET /resource_providers``, declared once.

    ``flag`` and the ``add_option`` arguments (``since``, ``value_gates``,
    ``metavar``, ``type``, ``help``...) describe the option; ``param`` is
    the query parameter its values go to, built by ``to_query(http,
    value)``.
    """

    def __init__(self, flag, param, to_query, **option):
        self.flag = flag
        self.dest = flag[2:].replace('-', '_')
        self.param = param
        self.to_query = to_query
        self.option = option

    def add(self, cmd, parser, **overrides):
        return cmd.add_option(parser, self.flag,
                              **dict(self.option, **overrides))


def _as_is(http, value):
    return value


def _in_tree(http, value):
    return providers.find_provider(http, value)


def _resources(http, values):
    # An amount out of Placement's range is refused here (rule D18); any
    # other malformed value is the server's to judge, in its own words.
    for value in values:
        _resource_class, sep, amount = value.partition('=')
        if sep and parsers.is_integer(amount):
            parsers.parse_amount(amount, '--resource %r: amount' % value)
    return ','.join(r.replace('=', ':') for r in values)


def _member_of(http, values):
    return [member_of_param(v) for v in values]


def _aggregate_uuid(http, values):
    return 'in:' + ','.join(values)


def _required(http, values):
    return values


_LISTED = dict(action='append', default=[], type=parsers.name_list)

# In the order of their query parameters.
PROVIDER_FILTERS = (
    ProviderFilter('--name', 'name', _as_is, metavar='<name>',
                   help='Only the resource provider with this name'),
    ProviderFilter('--uuid', 'uuid', _as_is, metavar='<uuid>',
                   help='Only the resource provider with this UUID'),
    ProviderFilter(
        '--aggregate-uuid', 'member_of', _aggregate_uuid,
        metavar='<aggregate_uuid>', since=microversions.PROVIDERS_MEMBER_OF,
        help=argparse.SUPPRESS, **_LISTED),
    ProviderFilter(
        '--resource', 'resources', _resources,
        metavar='<resource_class>=<value>', default=[], action='append',
        since=microversions.PROVIDERS_RESOURCES,
        help='A resource class and an amount, e.g. ``VCPU=4``: only '
             'providers with the capacity to serve it. May be repeated.'),
    ProviderFilter(
        '--in-tree', 'in_tree', _in_tree, metavar='<in_tree>',
        since=microversions.NESTED_PROVIDERS, type=parsers.non_empty,
        help='Only providers in the same provider tree as this provider '
             '(UUID or name).'),
    ProviderFilter(
        '--required', 'required', _required, metavar='<required>',
        since=microversions.PROVIDERS_REQUIRED,
        value_gates=REQUIRED_TRAIT_GATES,
        help='A required trait. May be repeated: providers must have all '
             'of the required traits.', **_LISTED),
    ProviderFilter(
        '--forbidden', 'required', _required, metavar='<forbidden>',
        since=microversions.FORBIDDEN_TRAITS,
        help='A forbidden trait. May be repeated: providers must have '
             'none of the forbidden traits.', **_LISTED),
    ProviderFilter(
        '--member-of', 'member_of', _member_of, metavar='<member_of>',
        since=microversions.PROVIDERS_MEMBER_OF, value_gates=MEMBER_OF_GATES,
        help='Comma-separated aggregate UUIDs: only providers in at least '
             'one of them. For example, to get providers in agg1 or agg2, '
             'and in agg3: ``--member-of <agg1>,<agg2> --member-of '
             '<agg3>``.', **_LISTED),
)
_BY_DEST = {f.dest: f for f in PROVIDER_FILTERS}
# Given together, these two would both set member_of.
_EXCLUSIVE = ('member_of', 'aggregate_uuid')
_FILTERS_ATTR = '_provider_filters'


def add(cmd, parser, *dests, overrides=None):
    """Add the provider filters named by ``dests``, in that order.

    ``overrides``: {dest: {option argument: value}}, for the commands whose
    filter applies to something else than the listed providers (a
    selection, the roots of trees): another help, a stricter type.
    """
    overrides = overrides or {}
    group = None
    if all(dest in dests for dest in _EXCLUSIVE):
        group = parser.add_mutually_exclusive_group()
    for dest in dests:
        target = group if group is not None and dest in _EXCLUSIVE \
            else parser
        _BY_DEST[dest].add(cmd, target, **overrides.get(dest, {}))
    setattr(cmd, _FILTERS_ATTR, getattr(cmd, _FILTERS_ATTR, ()) + dests)


def query(cmd, http, parsed_args):
    """The query parameters of the filters given, in a constant order.

    Required and forbidden traits share the ``required`` parameters;
    ``--aggregate-uuid``, deprecated, warns and stands for ``--member-of``.
    """
    declared = getattr(cmd, _FILTERS_ATTR, ())
    params = {}
    for found in PROVIDER_FILTERS:
        if found.dest not in declared:
            continue
        value = getattr(parsed_args, found.dest)
        if not value:
            continue
        if found.param == 'required':
            if 'required' in params:
                continue
            params['required'] = required_traits_params(
                getattr(parsed_args, 'required', []),
                getattr(parsed_args, 'forbidden', []))
            continue
        if found.dest == 'aggregate_uuid':
            cmd.deprecated_option_warning('--aggregate-uuid', '--member-of')
        params[found.param] = found.to_query(http, value)
    return params


class ManyProviders(batch.Batched):
    """Mixin of the commands that read many providers (and consumers).

    ``add_selection()`` offers the provider filters (help worded for a
    selection), ``select_providers()`` returns the provider records they
    select; the reads go through ``batch``.
    """

    SELECTION_HELP = {
        'in_tree': {'help': 'Only the providers of the tree of this '
                            'provider (UUID or name).'},
        'member_of': {'help': 'Comma-separated aggregate UUIDs: only '
                              'providers in at least one of them. May be '
                              'repeated: each value is one more condition.'},
        'required': {'help': 'A trait the providers must have. May be '
                             'repeated.'},
    }

    def add_selection(self, parser, *which):
        """Add the provider filters named in ``which``."""
        add(self, parser, *which, overrides=self.SELECTION_HELP)

    def select_providers(self, http, parsed_args):
        """The provider records the filters select, in provider-list order.

        ``--resource-provider`` values (where the command has it) are
        looked up one by one; with other filters too, only those of them
        that the filters select are kept.
        """
        filters = query(self, http, parsed_args)
        named = list(dict.fromkeys(
            getattr(parsed_args, 'resource_provider', None) or []))
        if named:
            # One provider not found: that is the command's error.
            chosen = [found for _value, found in self.each(
                http, lambda value: providers.lookup(http, value), named,
                batch_names.PROVIDERS, lone_failure_raises=True)]
            self.require_complete(batch_names.ROWS, batch_names.PROVIDERS)
            if not filters:
                return list({p['uuid']: p for p in chosen}.values())
            wanted = set(p['uuid'] for p in chosen)
        found = http.request('GET', providers.BASE_URL, params=filters).field(
            'resource_providers', list)
        if named:
            found = [p for p in found if p['uuid'] in wanted]
        return found
