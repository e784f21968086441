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

"""Why a provider tree is, or is not, a candidate for a request.

Pure: no HTTP. ``Request.from_query`` reads the query parameters of
``GET /allocation_candidates``; ``evaluate(request, tree)`` says whether
Placement would return an allocation request within that tree, and if not,
every constraint that fails; ``fit(request, tree)`` counts how many more
allocations of the request's shape the tree can take.

The rules are Placement's own (openstack-placement 16.0.0), and each is
named below with the server code it follows:

- ``research_context._capacity_check_clause``: a provider serves ``amount``
  of a class when ``min_unit <= amount <= max_unit``, ``amount`` is a
  multiple of ``step_size`` and ``used + amount <= (total - reserved) *
  allocation_ratio``.
- ``research_context.get_provider_ids_matching``: a numbered or named group
  is served by one provider, which has the group's traits and aggregates
  itself.
- ``research_context.get_trees_matching_all`` and
  ``allocation_candidate._check_traits_for_alloc_request``: the unnamed
  group takes each resource class from one provider of the tree; a provider
  counts for ``member_of`` when it or its root is in the aggregate
  (``filter_by_rp_or_tree``), for a forbidden aggregate when neither is;
  the required traits must be held together by the providers that serve
  the resources, and none of them may have a forbidden trait.
- ``RequestWideSearchContext.exclude_nested_providers``: before 1.29 an
  allocation request that uses two providers of one tree is dropped.
- ``allocation_candidate._merge_candidates``: the groups are combined per
  tree; ``_satisfies_group_policy`` (isolate: the numbered and named groups
  on as many providers as there are such groups), ``_satisfies_same_subtree``
  (one of the groups' providers is an ancestor, or itself, of all of them)
  and ``exceeds_capacity`` (amounts of one class summed over the groups on
  one provider: within capacity and ``max_unit``; ``min_unit`` and
  ``step_size`` apply to each group's amount only).
- ``research_context._get_roots_with_traits``: ``root_required`` concerns
  the root of the tree.

Sharing providers (``MISC_SHARES_VIA_AGGREGATE``) are out of scope: a
candidate that takes resources from another tree is not a candidate
"within" a tree.
"""

import itertools
import re

from osc_placement import amounts

UNNAMED = ''

# Microversions at which the rules change.
NESTED = (1, 29)           # nested providers are combined
FORBIDDEN_TRAITS = (1, 22)
MULTI_MEMBER_OF = (1, 24)
FORBIDDEN_AGGREGATES = (1, 32)
NAMED_GROUPS = (1, 33)
RESOURCELESS = (1, 36)
ANY_TRAITS = (1, 39)

_KEY = {
    False: re.compile(r'^(resources|required|member_of|in_tree)'
                      r'([1-9][0-9]*)?$'),
    True: re.compile(r'^(resources|required|member_of|in_tree)'
                     r'([a-zA-Z0-9_-]{1,64})?$'),
}


def _version(microversion):
    if isinstance(microversion, tuple):
        return microversion
    major, minor = str(microversion).split('.')
    return int(major), int(minor)


def _values(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


class Group(object):
    """One request group: ``suffix`` '' for the unnamed one."""

    def __init__(self, suffix):
        self.suffix = suffix
        self.resources = {}        # class -> amount, in request order
        self.required = []         # [frozenset of traits, any of which]
        self.forbidden = []        # traits
        self.member_of = []        # [frozenset of aggregates, any of which]
        self.forbidden_aggs = []   # aggregates
        self.in_tree = None

    @property
    def granular(self):
        return self.suffix != UNNAMED

    @property
    def label(self):
        return 'group %s' % self.suffix if self.suffix else 'unnamed group'


class Request(object):
    """A parsed ``GET /allocation_candidates`` request."""

    def __init__(self, groups, microversion, group_policy='none',
                 root_required=(), root_forbidden=(), same_subtrees=()):
        self.groups = groups
        self.microversion = _version(microversion)
        self.group_policy = group_policy or 'none'
        self.root_required = list(root_required)
        self.root_forbidden = list(root_forbidden)
        self.same_subtrees = [list(names) for names in same_subtrees]

    def at_least(self, version):
        return self.microversion >= version

    @property
    def granular(self):
        return [g for g in self.groups.values() if g.granular]

    @classmethod
    def from_query(cls, params, microversion):
        """Parse the query parameters as Placement does.

        ``params``: parameter name -> value, or list of values when
        repeated. Raises ValueError where Placement answers 400 for the
        form of a value (unknown trait or class names are the server's
        business).
        """
        version = _version(microversion)
        key = _KEY[version >= NAMED_GROUPS]
        groups = {}
        for name, value in params.items():
            match = key.match(name)
            if not match:
                continue
            prefix, suffix = match.group(1), match.group(2) or ''
            group = groups.setdefault(suffix, Group(suffix))
            values = _values(value)
            if prefix == 'resources':
                # lib.RequestGroup._parse_request_items: the last one wins.
                group.resources = _parse_resources(values[-1])
            elif prefix == 'required':
                if version < ANY_TRAITS:
                    values = values[-1:]
                for text in values:
                    _parse_traits(group, text, version)
            elif prefix == 'member_of':
                if version < MULTI_MEMBER_OF and len(values) > 1:
                    raise ValueError('Multiple %s parameters are not '
                                     'supported' % name)
                for text in values:
                    _parse_member_of(group, text, version)
            else:
                group.in_tree = values[-1]
        if not any(g.resources for g in groups.values()):
            raise ValueError('At least one resources parameter is needed.')
        root_required, root_forbidden = [], []
        for text in _values(params.get('root_required', [])):
            for trait in text.split(','):
                trait = trait.strip()
                if trait.startswith('!'):
                    root_forbidden.append(trait.lstrip('!'))
                else:
                    root_required.append(trait)
        same_subtrees = [
            [name.strip() for name in text.split(',')]
            for text in _values(params.get('same_subtree', []))]
        for names in same_subtrees:
            for name in names:
                if name not in groups:
                    raise ValueError('same_subtree: no group %r' % name)
        in_subtree = set(itertools.chain(*same_subtrees))
        for group in groups.values():
            if group.resources:
                continue
            if version < RESOURCELESS or group.suffix not in in_subtree:
                raise ValueError('%s has no resources' % group.label)
        policy = _values(params.get('group_policy', ['none']))[0]
        return cls(groups, version, policy, root_required, root_forbidden,
                   same_subtrees)


def _parse_resources(text):
    resources = {}
    for item in text.split(','):
        rc, sep, amount = item.partition(':')
        if not sep or int(amount) < 1:
            raise ValueError('Badly formed resources: %r' % text)
        resources[rc] = int(amount)
    return resources


def _parse_traits(group, text, version):
    if text.startswith('in:'):
        if version < ANY_TRAITS:
            raise ValueError('in: traits need 1.39: %r' % text)
        group.required.append(frozenset(
            t.strip() for t in text[3:].split(',')))
        return
    for trait in (t.strip() for t in text.split(',')):
        if trait.startswith('!'):
            if version < FORBIDDEN_TRAITS:
                raise ValueError('forbidden traits need 1.22: %r' % text)
            # util.normalize_traits_qs_param strips every leading '!'.
            if trait.lstrip('!') not in group.forbidden:
                group.forbidden.append(trait.lstrip('!'))
        else:
            group.required.append(frozenset([trait]))


def _parse_member_of(group, text, version):
    forbidden = text.startswith('!')
    if forbidden and version < FORBIDDEN_AGGREGATES:
        raise ValueError('forbidden aggregates need 1.32: %r' % text)
    body = text.lstrip('!')
    if body.startswith('in:'):
        aggs = body[3:].split(',')
    elif ',' in body:
        raise ValueError('several aggregates need "in:": %r' % text)
    else:
        aggs = [body]
    if forbidden:
        group.forbidden_aggs.extend(
            a for a in aggs if a not in group.forbidden_aggs)
    else:
        group.member_of.append(frozenset(aggs))


def provider_record(provider, inventories, usages, traits, aggregates):
    """One provider of a tree from the bodies of its GET requests.

    ``provider``: an item of ``GET /resource_providers``; the others the
    bodies of ``.../inventories``, ``.../usages``, ``.../traits`` and
    ``.../aggregates``.
    """
    return {
        'uuid': provider['uuid'],
        'name': provider['name'],
        'parent_provider_uuid': provider.get('parent_provider_uuid'),
        'root_provider_uuid': provider.get('root_provider_uuid')
        or provider['uuid'],
        'inventories': inventories['inventories'],
        'usages': usages['usages'],
        'traits': traits['traits'],
        'aggregates': aggregates['aggregates'],
    }


class Verdict(object):
    """``reasons``: every failing constraint; empty for a candidate."""

    def __init__(self, reasons):
        self.reasons = reasons

    @property
    def reason(self):
        return self.reasons[0] if self.reasons else ''

    def __repr__(self):
        return 'Verdict(%r)' % self.reasons


def _join(words):
    words = list(words)
    if len(words) == 1:
        return words[0]
    return '%s and %s' % (', '.join(words[:-1]), words[-1])


class _Tree(object):

    def __init__(self, providers):
        self.providers = list(providers)
        self.by_uuid = {p['uuid']: p for p in self.providers}
        roots = [p for p in self.providers
                 if not p.get('parent_provider_uuid')]
        self.root = roots[0] if roots else self.providers[0]

    def traits(self, rp):
        return set(rp.get('traits', []))

    def aggregates(self, rp):
        return set(rp.get('aggregates', []))

    def ancestors(self, uuid):
        """The provider and its ancestors."""
        seen = []
        while uuid in self.by_uuid and uuid not in seen:
            seen.append(uuid)
            uuid = self.by_uuid[uuid].get('parent_provider_uuid')
        return seen

    def with_class(self, rc):
        return [p for p in self.providers if rc in p.get('inventories', {})]

    def used(self, rp, rc):
        return rp.get('usages', {}).get(rc, 0)

    def amount_problems(self, rp, rc, amount):
        """What stops ``rp`` from serving ``amount`` of ``rc``."""
        inv = rp['inventories'][rc]
        problems = []
        if amount < inv.get('min_unit', 1):
            problems.append('%s: %d requested, below min_unit %d'
                            % (rc, amount, inv['min_unit']))
        if amount > inv.get('max_unit', inv['total']):
            problems.append('%s: %d requested, above max_unit %d'
                            % (rc, amount, inv['max_unit']))
        if amount % inv.get('step_size', 1):
            problems.append('%s: %d requested, not a multiple of '
                            'step_size %d' % (rc, amount, inv['step_size']))
        cap, used = amounts.capacity(inv), self.used(rp, rc)
        if used + amount > cap:
            problems.append('%s: %d requested, %d free (capacity %d, used '
                            '%d)' % (rc, amount, max(cap - used, 0), cap,
                                     used))
        return problems


class _Constraint(object):
    """One requirement of a group that a provider holds or not."""

    def __init__(self, kind, words, failure, holds):
        self.kind = kind          # resource, required, forbidden, aggregate
        self.words = words        # for "no single provider has ..."
        self.failure = failure    # when no provider holds it
        self.holds = holds        # provider -> bool


def _group_constraints(tree, group, root_aggs):
    """The per-provider constraints of ``group``, resources first.

    ``root_aggs``: a provider is in an aggregate when its root is (the
    unnamed group's rule).
    """
    def aggs(rp):
        found = tree.aggregates(rp)
        if root_aggs:
            found |= tree.aggregates(tree.by_uuid.get(
                rp.get('root_provider_uuid'), rp))
        return found

    out = []
    for rc, amount in group.resources.items():
        out.append(_Constraint(
            'resource', '%s:%d' % (rc, amount), None,
            lambda rp, rc=rc, amount=amount: (
                rc in rp.get('inventories', {})
                and not tree.amount_problems(rp, rc, amount))))
    for any_of in group.required:
        names = sorted(any_of)
        if len(names) == 1:
            words, failure = names[0], 'lacks required trait %s' % names[0]
        else:
            words = 'any of %s' % ', '.join(names)
            failure = 'lacks any of %s' % ', '.join(names)
        out.append(_Constraint(
            'required', words, failure,
            lambda rp, any_of=any_of: bool(any_of & tree.traits(rp))))
    for trait in group.forbidden:
        out.append(_Constraint(
            'forbidden', 'no trait %s' % trait,
            'has forbidden trait %s' % trait,
            lambda rp, trait=trait: trait not in tree.traits(rp)))
    for any_of in group.member_of:
        names = sorted(any_of)
        if len(names) == 1:
            words = 'aggregate %s' % names[0]
            failure = 'not in aggregate %s' % names[0]
        else:
            words = 'any of aggregates %s' % ', '.join(names)
            failure = 'not in any of aggregates %s' % ', '.join(names)
        out.append(_Constraint(
            'aggregate', words, failure,
            lambda rp, any_of=any_of: bool(any_of & aggs(rp))))
    for agg in group.forbidden_aggs:
        out.append(_Constraint(
            'aggregate', 'no aggregate %s' % agg,
            'in forbidden aggregate %s' % agg,
            lambda rp, agg=agg: agg not in aggs(rp)))
    return out


def _resource_failures(tree, group):
    """Reasons for the classes of ``group`` no provider can serve alone."""
    reasons = []
    for rc, amount in group.resources.items():
        having = tree.with_class(rc)
        if not having:
            reasons.append('no provider in the tree has %s' % rc)
            continue
        problems = [(rp, tree.amount_problems(rp, rc, amount))
                    for rp in having]
        if all(found for _, found in problems):
            for rp, found in problems:
                for text in found:
                    reasons.append(text if len(having) == 1 else
                                   '%s on %s' % (text, rp['name']))
    return reasons


class _Option(object):
    """One way to serve a group: providers per class, and all providers."""

    def __init__(self, amounts, providers):
        self.amounts = amounts        # [(provider uuid, rc, amount)]
        self.providers = providers    # set of uuids (the group's mapping)


class _Evaluation(object):

    def __init__(self, request, tree):
        self.request = request
        self.tree = tree
        self.nested = request.at_least(NESTED)
        self.prefixed = bool(request.granular)

    def _say(self, group, text):
        return '%s: %s' % (group.label, text) if self.prefixed else text

    def _in_tree(self, group):
        # research_context.RequestGroupSearchContext: in_tree restricts
        # get_providers_with_resource only; a group without resources goes
        # through get_providers_with_root, which ignores it.
        return (group.in_tree is None or not group.resources
                or group.in_tree in self.tree.by_uuid)

    def single_provider_options(self, group):
        """Options with the whole group on one provider."""
        constraints = _group_constraints(
            self.tree, group, root_aggs=not group.granular)
        if not group.resources and not (group.required or group.member_of):
            # research_context.get_provider_ids_matching: without resources
            # the providers are those that passed a positive trait or
            # aggregate filter ("filtered_rps"); with none given, none.
            return [], ['a group without resources matches providers only '
                        'by a required trait or aggregate']
        options = []
        for rp in self.tree.providers:
            if all(c.holds(rp) for c in constraints):
                options.append(_Option(
                    [(rp['uuid'], rc, amount)
                     for rc, amount in group.resources.items()],
                    {rp['uuid']}))
        if options:
            return options, []
        reasons = _resource_failures(self.tree, group)
        for c in constraints:
            if c.failure and not any(c.holds(rp)
                                     for rp in self.tree.providers):
                reasons.append(c.failure)
        if not reasons:
            text = 'no single provider has %s' % _join(
                c.words for c in _conflict(constraints,
                                           self.tree.providers))
            if not group.granular and len(self.tree.providers) > 1:
                text += (' (before microversion 1.29 one provider serves '
                         'all the resources)')
            reasons.append(text)
        return [], reasons

    def spread_options(self, group):
        """The unnamed group from 1.29: each class from some provider."""
        tree = self.tree
        constraints = _group_constraints(tree, group, root_aggs=True)
        amount_checks = constraints[:len(group.resources)]
        agg_checks = [c for c in constraints if c.kind == 'aggregate']
        forbidden = set(group.forbidden)
        amount_ok, serving = {}, {}
        for c, rc in zip(amount_checks, group.resources):
            amount_ok[rc] = [rp for rp in tree.providers if c.holds(rp)]
            serving[rc] = [rp for rp in amount_ok[rc]
                           if all(a.holds(rp) for a in agg_checks)]
        options = []
        for choice in itertools.product(*serving.values()):
            used = {rp['uuid']: rp for rp in choice}
            held = set()
            for rp in used.values():
                held |= tree.traits(rp)
            if any(tree.traits(rp) & forbidden for rp in used.values()):
                continue
            if not all(any_of & held for any_of in group.required):
                continue
            options.append(_Option(
                [(rp['uuid'], rc, amount) for rp, (rc, amount)
                 in zip(choice, group.resources.items())],
                set(used)))
        if options:
            return options, []
        reasons = _resource_failures(tree, group)
        for a in agg_checks:
            if not any(a.holds(rp) for rp in tree.providers):
                reasons.append(a.failure)
        for c, rc in zip(amount_checks, group.resources):
            if amount_ok[rc] and not serving[rc] and all(
                    any(a.holds(rp) for rp in tree.providers)
                    for a in agg_checks):
                reasons.append('no single provider has %s' % _join(
                    [c.words] + [a.words for a in _conflict(
                        agg_checks, amount_ok[rc])]))
        # The providers each class could come from, at best.
        pool = {rc: serving[rc] or amount_ok[rc] or tree.with_class(rc)
                for rc in group.resources}
        for rc, rps in pool.items():
            if rps and all(tree.traits(rp) & forbidden for rp in rps):
                for trait in group.forbidden:
                    text = 'has forbidden trait %s' % trait
                    if text not in reasons and any(
                            trait in tree.traits(rp) for rp in rps):
                        reasons.append(text)
        # A required trait fails only where no provider that could serve
        # has it (a provider ruled out by a forbidden trait is named by
        # that reason, not by this one).
        candidates = list(itertools.chain(*pool.values()))
        for c in constraints:
            if c.kind == 'required' and not any(c.holds(rp)
                                                for rp in candidates):
                reasons.append(c.failure)
        if not reasons:
            reasons.append('no set of providers serving %s has %s' % (
                _join('%s:%d' % item for item in group.resources.items()),
                _join(c.words for c in constraints
                      if c.kind in ('required', 'forbidden'))))
        return [], reasons

    def group_options(self, group):
        if self.nested and not group.granular:
            return self.spread_options(group)
        return self.single_provider_options(group)

    # The request as a whole.

    def checks(self):
        """The checks of a combination, one per request-wide rule."""
        request = self.request
        checks = []
        if not self.nested:
            checks.append(('nested', self._one_provider))
        if request.group_policy == 'isolate' and len(request.granular) > 1:
            checks.append(('isolate', self._isolated))
        for names in request.same_subtrees:
            checks.append((('subtree', tuple(names)),
                           lambda combo, names=names:
                           self._same_subtree(combo, names)))
        checks.append(('capacity', self._fits))
        return checks

    def _one_provider(self, combo):
        # exclude_nested_providers: one provider per tree.
        return len(set(uuid for option in combo.values()
                       for uuid, _, _ in option.amounts)) <= 1

    def _isolated(self, combo):
        used = set()
        for suffix, option in combo.items():
            if suffix:
                used |= option.providers
        return len(used) == len(self.request.granular)

    def _same_subtree(self, combo, names):
        uuids = set()
        for name in names:
            uuids |= combo[name].providers
        if len(uuids) <= 1:
            return True
        common = set.intersection(*(set(self.tree.ancestors(u))
                                    for u in uuids))
        return bool(common & uuids)

    def _totals(self, combo):
        totals = {}
        for option in combo.values():
            for uuid, rc, amount in option.amounts:
                totals[uuid, rc] = totals.get((uuid, rc), 0) + amount
        return totals

    def _fits(self, combo):
        for (uuid, rc), amount in self._totals(combo).items():
            inv = self.tree.by_uuid[uuid]['inventories'][rc]
            used = self.tree.used(self.tree.by_uuid[uuid], rc)
            if amount + used > amounts.capacity(inv) \
                    or amount > inv['max_unit']:
                return False
        return True

    def combine(self, options):
        """Reasons why no combination of the groups' options works."""
        suffixes = list(options)
        combos = [dict(zip(suffixes, choice)) for choice
                  in itertools.product(*(options[s] for s in suffixes))]
        checks = self.checks()
        if any(all(check(c) for _, check in checks) for c in combos):
            return []
        reasons = []
        for name, check in checks:
            others = [c for n, c in checks if n != name]
            if any(all(o(c) for o in others) for c in combos):
                reasons.extend(self._combination_reasons(name))
        if not reasons:
            reasons.append('no combination of providers meets %s together'
                           % _join(self._rule_words(name)
                                   for name, _ in checks))
        return reasons

    def _rule_words(self, name):
        if name == 'nested':
            return 'one provider for all resources (before 1.29)'
        if name == 'isolate':
            return 'group_policy isolate'
        if name == 'capacity':
            return 'the free capacity of each provider'
        return 'same_subtree %s' % ','.join(name[1])

    def _combination_reasons(self, name):
        if name == 'capacity':
            return self._capacity_reasons()
        return [self._combination_reason(name)]

    def _combination_reason(self, name):
        request = self.request
        if name == 'nested':
            amounts = {}
            for group in request.groups.values():
                for rc, amount in group.resources.items():
                    amounts[rc] = amounts.get(rc, 0) + amount
            return ('no single provider has %s (before microversion 1.29 '
                    'one provider serves all the resources)'
                    % _join('%s:%d' % item for item in amounts.items()))
        if name == 'isolate':
            names = [g.suffix for g in request.granular]
            if len(names) == 2:
                return ('group %s and group %s need separate providers '
                        '(group_policy isolate)' % tuple(names))
            return ('groups %s need separate providers (group_policy '
                    'isolate)' % _join(names))
        return ('groups %s not under one provider (same_subtree)'
                % ', '.join(name[1]))

    def _capacity_reasons(self):
        """The class whose amounts summed over the groups do not fit."""
        totals = {}
        for group in self.request.groups.values():
            for rc, amount in group.resources.items():
                totals[rc] = totals.get(rc, 0) + amount
        reasons = []
        for rc, amount in totals.items():
            having = self.tree.with_class(rc)
            if len(having) == 1:
                rp = having[0]
                inv = rp['inventories'][rc]
                cap, used = amounts.capacity(inv), self.tree.used(rp, rc)
                if amount > inv['max_unit']:
                    reasons.append('%s: %d requested, above max_unit %d'
                                   % (rc, amount, inv['max_unit']))
                if amount + used > cap:
                    reasons.append(
                        '%s: %d requested, %d free (capacity %d, used %d)'
                        % (rc, amount, max(cap - used, 0), cap, used))
        return reasons or [
            '%s requested by the groups together: more than the providers '
            'they can use have free'
            % _join('%s:%d' % item for item in totals.items())]

    def run(self):
        request, tree = self.request, self.tree
        reasons = []
        root_traits = tree.traits(tree.root)
        for trait in request.root_required:
            if trait not in root_traits:
                reasons.append('root lacks required trait %s' % trait)
        for trait in request.root_forbidden:
            if trait in root_traits:
                reasons.append('root has forbidden trait %s' % trait)
        options = {}
        for suffix, group in request.groups.items():
            if not self._in_tree(group):
                reasons.append(self._say(
                    group, 'not in tree %s' % group.in_tree))
                continue
            found, why = self.group_options(group)
            reasons.extend(self._say(group, text) for text in why)
            options[suffix] = found
        if reasons:
            return reasons
        return self.combine(options)


def _conflict(constraints, providers):
    """A smallest set of ``constraints`` no single provider holds at once.

    Pairs first; all of them when no pair conflicts.
    """
    for a, b in itertools.combinations(constraints, 2):
        if not any(a.holds(rp) and b.holds(rp) for rp in providers):
            return [a, b]
    return constraints


def evaluate(request, tree):
    """The Verdict of Placement's rules for ``request`` on ``tree``.

    ``tree``: the provider dicts of one provider tree (see
    ``provider_record``).
    """
    return Verdict(_Evaluation(request, _Tree(tree)).run())


def fit(request, tree):
    """(count, limited_by): more allocations of the request's shape.

    For a request of one group: per requested class, the sum over the
    providers that may serve it (the group's traits and aggregates) of
    ``free // amount`` (0 where the amount breaks min_unit, max_unit or
    step_size); the smallest over the classes, and that class. Exact for a
    tree of one provider, an upper bound for a nested tree. When the tree
    is no candidate now, (0, the first reason).
    """
    if len(request.groups) != 1:
        raise ValueError('fit() takes a request of one group, not %d'
                         % len(request.groups))
    verdict = evaluate(request, tree)
    group = list(request.groups.values())[0]
    shape = _Tree(tree)
    constraints = _group_constraints(
        shape, group, root_aggs=not group.granular)[len(group.resources):]
    spread = not group.granular and request.at_least(NESTED)
    if spread:
        # The unnamed group's required traits are held by its providers
        # together: they limit which trees, not which providers.
        constraints = [c for c in constraints if c.kind != 'required']
    eligible = [rp for rp in shape.providers
                if all(c.holds(rp) for c in constraints)]
    count, limited_by = None, ''
    for rc, amount in group.resources.items():
        room = 0
        for rp in eligible:
            if rc not in rp.get('inventories', {}):
                continue
            inv = rp['inventories'][rc]
            if (amount < inv.get('min_unit', 1)
                    or amount > inv.get('max_unit', inv['total'])
                    or amount % inv.get('step_size', 1)):
                continue
            free = amounts.capacity(inv) - shape.used(rp, rc)
            room += max(free, 0) // amount
        if count is None or room < count:
            count, limited_by = room, rc
    if verdict.reasons:
        return 0, verdict.reason
    return count, limited_by
