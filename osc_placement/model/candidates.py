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

"""Allocation candidates queries and answers, as this client reads them.

Pure (no request): a query is its ``(name, value)`` pairs, in order.

* the query as a dict (``query_dict()``), the suffixes of its request
  groups (``group_suffixes()``) and the query asked again within one tree
  (``within_tree()``);
* ``rows()``: an answer as the rows of ``allocation candidate list``;
* ``shape_label()``: the canonical text of a query, the ``shape`` label
  of ``capacity fit -f openmetrics``;
* ``constraints()`` and ``without()``: the constraints of a query one by
  one, and the query without one of them (``allocation candidate explain
  --summary --flavor``).
"""

from osc_placement.model import amounts

# The parameters of a request group, each name followed by the group's
# suffix ('' for the unnamed group).
GROUP_PARAMS = ('resources', 'required', 'member_of', 'in_tree')

# How the unnamed request group is shown in the ``mappings`` column.
UNNAMED_GROUP = '(unsuffixed)'


def query_dict(params):
    """The (name, value) pairs of a query as {name: value or [values]}."""
    found = {}
    for name, value in params:
        if name in found:
            if not isinstance(found[name], list):
                found[name] = [found[name]]
            found[name].append(value)
        else:
            found[name] = value
    return found


def group_suffixes(params):
    """The suffixes of the request groups that a query names ('' too)."""
    suffixes = []
    for name, _value in params:
        for prefix in GROUP_PARAMS:
            if name.startswith(prefix):
                suffix = name[len(prefix):]
                if suffix not in suffixes:
                    suffixes.append(suffix)
    return suffixes


def within_tree(params, root):
    """The query asked again for one tree: every group in that tree."""
    kept = [(name, value) for name, value in params
            if not name.startswith('in_tree')]
    return kept + [('in_tree' + suffix, root)
                   for suffix in group_suffixes(params)]


# The rows of ``allocation candidate list``.

def rows(summaries, requests, dict_shaped, traits, long, mappings):
    """The rows of an answer, linear in the (candidate, provider) pairs.

    summaries, requests: the ``provider_summaries`` and
    ``allocation_requests`` of the answer; dict_shaped: its allocation
    requests are keyed by provider (from 1.12). Each row: the candidate's
    number, what it allocates on the provider, the provider and its
    ``used/capacity`` per class; then, where asked for, its ``traits``,
    (``long``) its root and parent, and (``mappings``) the request groups
    it satisfies.
    """
    inventory = {
        rp: ','.join(amounts.used_of_capacity(summary['resources']))
        for rp, summary in summaries.items()}

    def provider_columns(rp):
        summary = summaries.get(rp, {})
        columns = [rp, inventory.get(rp, '')]
        if traits:
            columns.append(','.join(summary.get('traits', [])))
        if long:
            columns.append(summary.get('root_provider_uuid'))
            columns.append(summary.get('parent_provider_uuid'))
        return columns

    found = []
    for number, request in enumerate(requests, 1):
        if dict_shaped:
            held = [(rp, allocation['resources']) for rp, allocation
                    in request['allocations'].items()]
        else:
            held = [(allocation['resource_provider']['uuid'],
                     allocation['resources'])
                    for allocation in request['allocations']]
        groups_of = {}
        if mappings:
            for suffix, rps in request.get('mappings', {}).items():
                for rp in rps:
                    groups_of.setdefault(rp, []).append(
                        suffix or UNNAMED_GROUP)
        for rp, resources in held:
            row = [number, ','.join('%s=%s' % item
                                    for item in resources.items())]
            row += provider_columns(rp)
            if mappings:
                row.append(','.join(groups_of.pop(rp, [])))
            found.append(row)
        # Providers that satisfy a group without resources
        # (--same-subtree) hold no allocation: show them too.
        for rp, suffixes in groups_of.items():
            found.append([number, ''] + provider_columns(rp)
                         + [','.join(suffixes)])
    return found


# The canonical text of a query.

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
    (sorted, ``!`` before a trait the root must not have),
    ``same_subtree=`` (once per value, the groups of each sorted) and
    ``group_policy=``. All joined by ``;``.
    """
    groups = {}
    roots = set()
    subtrees = set()
    policy = None
    for name, value in params:
        kind = next((kind for kind in GROUP_PARAMS
                     if name.startswith(kind)), None)
        if kind:
            _add_to_group(groups.setdefault(name[len(kind):], _new_group()),
                          kind, value)
        elif name == 'root_required':
            roots.update(value.split(','))
        elif name == 'same_subtree':
            subtrees.add(','.join(sorted(value.split(','))))
        elif name == 'group_policy':
            policy = value
    parts = _group_parts(groups.pop('', _new_group()), '')
    for suffix in sorted(groups):
        parts.extend(_group_parts(groups[suffix], suffix))
    if roots:
        parts.append(_sorted_list('root_required=', ','.join(roots)))
    parts.extend('same_subtree=' + names for names in sorted(subtrees))
    if policy:
        parts.append('group_policy=' + policy)
    return ';'.join(parts)


def _new_group():
    """What shape_label() gathers of one request group, empty."""
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
    """The parts of one group's text (the unnamed group's classes bare).

    A group without resources (the unnamed one beside named groups, a
    group of --same-subtree) has no classes part.
    """
    classes = ','.join('%s=%d' % pair for pair in sorted(found['resources']))
    parts = []
    if classes:
        parts.append('resources%s=%s' % (suffix, classes) if suffix
                     else classes)
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


# The constraints of a query, one at a time.

def constraints(params):
    """(label, drop) of every constraint of a query.

    Each resource class, each trait (an ``in:`` value whole), each
    aggregate condition, the tree, ``group_policy`` and each root trait;
    labelled as the query names them (``resources1=VCPU:2``). ``drop``
    says which to leave out to :func:`without`.
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


def without(params, drop):
    """The query without one constraint of :func:`constraints`.

    drop None: the query as it is.
    """
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
