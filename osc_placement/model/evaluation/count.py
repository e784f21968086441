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

"""How many more allocations of a one-group shape a tree takes.

``fit(request, tree)`` gives a ``Fit``: the ``count``, the class that
bounds it (``limited_by``; when the tree takes none, the first reason of
the evaluation), and whether the count is ``exact``.

Where one provider takes each allocation (a numbered or named group, and
the unnamed group before 1.29: ``research_context.
get_provider_ids_matching``), every provider that meets the group's
constraints takes ``min(free // amount)`` over the classes, and the sum
over the providers is exact. From 1.29 the unnamed group takes each class
from any provider of the tree; the classes are independent, so the
smallest over the classes of the sum of ``free // amount`` is exact,
unless required traits must be held together by providers of different
classes (``allocation_candidate._check_traits_for_alloc_request``): then
it is an upper bound (``exact`` False).
"""

import collections

from osc_placement.model.evaluation import request as requests
from osc_placement.model.evaluation import search
from osc_placement.model.evaluation import tree as trees

Fit = collections.namedtuple('Fit', ['count', 'limited_by', 'exact'])


def fit(request, tree):
    """The Fit of the request's one group in ``tree``.

    Raises ValueError for a request of several groups.
    """
    if len(request.groups) != 1:
        raise ValueError('fit() takes a request of one group, not %d'
                         % len(request.groups))
    verdict = search.evaluate(request, tree)
    if verdict.reasons:
        return Fit(0, verdict.reason, True)
    group = list(request.groups.values())[0]
    tree = trees.Tree(tree)
    nested = request.at_least(requests.NESTED)
    if group.granular or not (nested or tree.shared):
        return _one_provider_each(tree, group)
    found = _class_by_class(tree, group)
    if not nested and len(tree.own().providers) > 1:
        # Before 1.29 one provider of the tree beside the pools: the
        # classes summed over the tree's providers are a bound.
        return found._replace(exact=False)
    return found


def _one_provider_each(tree, group):
    """Every allocation on one provider that meets all the constraints."""
    constraints = trees.group_constraints(tree, group,
                                          root_aggs=not group.granular)
    count, binding = 0, {}
    for rp in tree.providers:
        if not all(c.holds(rp) for c in constraints):
            continue
        room = {rc: trees.free(rp, rc) // amount
                for rc, amount in group.resources.items()}
        rc = min(room, key=room.get)
        count += room[rc]
        binding[rc] = binding.get(rc, 0) + 1
    # The class that bounds the most providers (the first requested of
    # those that bound as many).
    limited_by = max(group.resources, key=lambda rc: binding.get(rc, 0))
    return Fit(count, limited_by + pool_words(tree, [
        rp for rp in tree.providers if all(c.holds(rp) for c in constraints)
    ]), True)


def _class_by_class(tree, group):
    """The unnamed group from 1.29: each class from some provider."""
    constraints = trees.group_constraints(tree, group, root_aggs=True)
    per_provider = [c for c in constraints
                    if c.kind in ('aggregate', 'forbidden')]
    required = list(group.required)
    if len(group.resources) == 1:
        # One provider serves the allocation: it holds the traits itself.
        per_provider += [c for c in constraints if c.kind == 'required']
        required = []
    serving = {
        rc: [rp for rp in tree.providers if trees.serves(rp, rc, amount)
             and all(c.holds(rp) for c in per_provider)]
        for rc, amount in group.resources.items()}

    def room(rc, rps):
        return sum(trees.free(rp, rc) // group.resources[rc] for rp in rps)

    counts = {rc: room(rc, rps) for rc, rps in serving.items()}
    limited_by = min(counts, key=counts.get)
    count = counts[limited_by]
    exact = True
    for any_of in required:
        if any(all(any_of & trees.traits(rp) for rp in rps)
               for rps in serving.values()):
            # Whatever the choice, that class's provider has one.
            continue
        exact = False
        # Each allocation takes at least one class from a provider with
        # one of the traits.
        count = min(count, sum(
            room(rc, [rp for rp in rps if any_of & trees.traits(rp)])
            for rc, rps in serving.items()))
    return Fit(count, limited_by + pool_words(tree, serving[limited_by]),
               exact)


def pool_words(tree, providers):
    """' from pool <name> (shared by N trees)' where a pool serves.

    A tree's count takes the sharing providers of its aggregates as if it
    alone drew from them: the words say which, and with how many trees
    they are shared.
    """
    pools = [rp for rp in providers if rp['uuid'] in tree.shared]
    if not pools:
        return ''
    return ' from %s' % ', '.join(
        'pool %s (shared by %d trees)' % (rp['name'], rp.get('anchors', 1))
        for rp in pools)
