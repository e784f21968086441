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

"""How one request group can be served within a tree, or why it cannot.

``options(tree, group, nested)`` gives every ``Option`` (the provider of
each requested class) that meets the group's own constraints, and when
there is none, the reasons. A numbered or named group, and the unnamed
one before 1.29, take everything from one provider
(``research_context.get_provider_ids_matching``); from 1.29 the unnamed
group takes each class from some provider of the tree and holds its
required traits on those providers together
(``research_context.get_trees_matching_all``,
``allocation_candidate._check_traits_for_alloc_request``).
"""

import itertools

from osc_placement import microversions
from osc_placement.model.evaluation import tree as trees


class Option(object):
    """One way to serve a group: providers per class, and all providers."""

    def __init__(self, amounts, providers):
        self.amounts = amounts        # [(provider uuid, rc, amount)]
        self.providers = providers    # set of uuids (the group's mapping)


def join(words):
    """'a', 'a and b', 'a, b and c'."""
    words = list(words)
    if len(words) == 1:
        return words[0]
    return '%s and %s' % (', '.join(words[:-1]), words[-1])


def options(tree, group, nested):
    """([Option], reasons): how ``group`` can be served in ``tree``."""
    # Before 1.29 too, the unnamed group takes a class from a sharing
    # provider (allocation_candidate._get_by_one_request), one provider
    # per tree (combine's 'nested' check).
    if not group.granular and (nested or tree.shared):
        return _spread_options(tree, group)
    return _single_provider_options(tree, group)


def _single_provider_options(tree, group):
    """Options with the whole group on one provider."""
    constraints = trees.group_constraints(
        tree, group, root_aggs=not group.granular)
    if not group.resources and not (group.required or group.member_of):
        # research_context.get_provider_ids_matching: without resources
        # the providers are those that passed a positive trait or
        # aggregate filter ("filtered_rps"); with none given, none.
        return [], ['a group without resources matches providers only '
                    'by a required trait or aggregate']
    found = []
    for rp in tree.providers:
        if all(c.holds(rp) for c in constraints):
            found.append(Option(
                [(rp['uuid'], rc, amount)
                 for rc, amount in group.resources.items()],
                {rp['uuid']}))
    if found:
        return found, []
    reasons = _resource_failures(tree, group)
    for c in constraints:
        if c.failure and not any(c.holds(rp) for rp in tree.providers):
            reasons.append(c.failure)
    if not reasons:
        text = 'no single provider has %s' % join(
            c.words for c in _conflict(constraints, tree.providers))
        if not group.granular and len(tree.providers) > 1:
            text += (' (before microversion %s one provider serves '
                     'all the resources)' % microversions.NESTED_CANDIDATES)
        reasons.append(text)
    return [], reasons


def _spread_options(tree, group):
    """The unnamed group from 1.29: each class from some provider."""
    constraints = trees.group_constraints(tree, group, root_aggs=True)
    amount_checks = constraints[:len(group.resources)]
    agg_checks = [c for c in constraints if c.kind == 'aggregate']
    forbidden = set(group.forbidden)
    amount_ok, serving = {}, {}
    for c, rc in zip(amount_checks, group.resources):
        amount_ok[rc] = [rp for rp in tree.providers if c.holds(rp)]
        serving[rc] = [rp for rp in amount_ok[rc]
                       if all(a.holds(rp) for a in agg_checks)]
    found = []
    for choice in itertools.product(*serving.values()):
        used = {rp['uuid']: rp for rp in choice}
        held = set()
        for rp in used.values():
            held |= trees.traits(rp)
        if any(trees.traits(rp) & forbidden for rp in used.values()):
            continue
        if not all(any_of & held for any_of in group.required):
            continue
        found.append(Option(
            [(rp['uuid'], rc, amount) for rp, (rc, amount)
             in zip(choice, group.resources.items())],
            set(used)))
    if found:
        return found, []
    reasons = _resource_failures(tree, group)
    for a in agg_checks:
        if not any(a.holds(rp) for rp in tree.providers):
            reasons.append(a.failure)
    for c, rc in zip(amount_checks, group.resources):
        if amount_ok[rc] and not serving[rc] and all(
                any(a.holds(rp) for rp in tree.providers)
                for a in agg_checks):
            reasons.append('no single provider has %s' % join(
                [c.words] + [a.words for a in _conflict(
                    agg_checks, amount_ok[rc])]))
    # The providers each class could come from, at best.
    pool = {rc: serving[rc] or amount_ok[rc] or tree.with_class(rc)
            for rc in group.resources}
    for rc, rps in pool.items():
        if rps and all(trees.traits(rp) & forbidden for rp in rps):
            for trait in group.forbidden:
                text = 'has forbidden trait %s' % trait
                if text not in reasons and any(
                        trait in trees.traits(rp) for rp in rps):
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
            join('%s:%d' % item for item in group.resources.items()),
            join(c.words for c in constraints
                 if c.kind in ('required', 'forbidden'))))
    return [], reasons


def _resource_failures(tree, group):
    """Reasons for the classes of ``group`` no provider can serve alone."""
    reasons = []
    for rc, amount in group.resources.items():
        having = tree.with_class(rc)
        if not having:
            reasons.append('no provider in the tree has %s' % rc)
            continue
        # The closest provider (most free) first: it gives the one reason
        # that explain shows.
        problems = [(rp, trees.amount_problems(rp, rc, amount))
                    for rp in sorted(having,
                                     key=lambda rp: -trees.free(rp, rc))]
        if all(found for _, found in problems):
            for rp, found in problems:
                for text in found:
                    reasons.append(text if len(having) == 1 else
                                   '%s on %s' % (text, rp['name']))
    return reasons


def _conflict(constraints, providers):
    """A smallest set of ``constraints`` no single provider holds at once.

    Pairs first; all of them when no pair conflicts.
    """
    for a, b in itertools.combinations(constraints, 2):
        if not any(a.holds(rp) and b.holds(rp) for rp in providers):
            return [a, b]
    return constraints
