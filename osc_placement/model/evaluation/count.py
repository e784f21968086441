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

"""How many more allocations of a request a tree takes: a range.

``fit(request, tree)`` gives a ``Fit``: ``fits``, a count that can be
placed at once, ``at_most``, a bound no placement beats, the thing that
bounds it (``limited_by``; when the tree takes none, the first reason of
the evaluation) and, where the two differ, what keeps them apart
(``gap``). ``exact``: they meet.

One group: where one provider takes each allocation (a numbered or named
group, and the unnamed group before 1.29: ``research_context.
get_provider_ids_matching``), every provider that meets the group's
constraints takes ``min(free // amount)`` over the classes, and the sum
over the providers is exact. From 1.29 the unnamed group takes each class
from any provider of the tree; the classes are independent, so the
smallest over the classes of the sum of ``free // amount`` is exact,
unless required traits must be held together by providers of different
classes (``allocation_candidate._check_traits_for_alloc_request``): then
it is the bound, and ``fits`` what the copies placed one at a time reach
(``copies``). Several groups: ``copies.count()``.
"""

import collections

from osc_placement.model.evaluation import copies
from osc_placement.model.evaluation import request as requests
from osc_placement.model.evaluation import search
from osc_placement.model.evaluation import tree as trees

# What keeps fits below at_most for one group whose traits are held
# together by the providers of different classes.
TRAITS_APART = 'required traits held by providers of different classes'


class Fit(collections.namedtuple('Fit', ['fits', 'at_most', 'limited_by',
                                         'gap', 'draws'])):
    """A range of copies: ``fits`` reachable, ``at_most`` a bound.

    ``draws``: the sharing pools the copies may draw on (``Draw``).
    """

    __slots__ = ()

    def __new__(cls, fits, at_most, limited_by, gap='', draws=()):
        return super().__new__(cls, fits, at_most, limited_by, gap, draws)

    @property
    def exact(self):
        return self.fits == self.at_most


# A sharing pool a tree's copies may take ``rc`` from: what it has free,
# what a copy takes of the class at most, and whether every copy takes it
# there (``sole``: no provider of the tree itself has the class, and no
# other pool).
Draw = collections.namedtuple('Draw', ['pool', 'name', 'rc', 'free',
                                       'per_copy', 'sole', 'trees'])


def exact(count, limited_by):
    """The Fit of an exact count."""
    return Fit(count, count, limited_by, '')


def fit(request, tree):
    """The Fit of the request in ``tree`` (provider records)."""
    verdict = search.evaluate(request, tree)
    if verdict.reasons:
        return exact(0, verdict.reason)
    tree = trees.Tree(tree)
    return _counted(request, tree)._replace(draws=draws(request, tree))


def draws(request, tree):
    """The Draws of the request's classes on the pools of ``tree``."""
    per_copy = collections.Counter()
    for group in request.groups.values():
        for rc, amount in group.resources.items():
            per_copy[rc] += amount
    found = []
    for rc, amount in per_copy.items():
        having = tree.with_class(rc)
        pools = [rp for rp in having if rp['uuid'] in tree.shared]
        for rp in pools:
            found.append(Draw(rp['uuid'], rp['name'], rc,
                              max(trees.free(rp, rc), 0), amount,
                              len(pools) == len(having) == 1,
                              rp.get('anchors', 1)))
    return tuple(found)


def _counted(request, tree):
    """The Fit of a candidate request in ``tree`` (a trees.Tree)."""
    if len(request.groups) != 1:
        found = copies.count(request, tree)
        limited_by = found.limited_by
        if limited_by in tree_classes(tree):
            limited_by += pool_words(tree, tree.with_class(limited_by))
        return Fit(found.fits, found.at_most, limited_by, found.gap)
    group = list(request.groups.values())[0]
    nested = request.at_least(requests.NESTED)
    if group.granular or not (nested or tree.shared):
        return _one_provider_each(tree, group)
    found = _class_by_class(tree, group)
    if found.exact and (nested or len(tree.own().providers) == 1):
        return found
    # A bound: the copies placed one at a time give what is reachable.
    reached = copies.count(request, tree)
    return Fit(min(reached.fits, found.at_most),
               min(found.at_most, reached.at_most), found.limited_by,
               '' if reached.fits >= found.at_most else TRAITS_APART)


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
    return exact(count, limited_by + pool_words(tree, [
        rp for rp in tree.providers if all(c.holds(rp) for c in constraints)
    ]))


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
    bounded = False
    for any_of in required:
        if any(all(any_of & trees.traits(rp) for rp in rps)
               for rps in serving.values()):
            # Whatever the choice, that class's provider has one.
            continue
        bounded = True
        # Each allocation takes at least one class from a provider with
        # one of the traits.
        count = min(count, sum(
            room(rc, [rp for rp in rps if any_of & trees.traits(rp)])
            for rc, rps in serving.items()))
    limited_by += pool_words(tree, serving[limited_by])
    if bounded:
        return Fit(None, count, limited_by, TRAITS_APART)
    return exact(count, limited_by)


def tree_classes(tree):
    """Every class some provider of ``tree`` has."""
    return set(rc for rp in tree.providers
               for rc in rp.get('inventories', {}))


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
