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

"""How many copies of a request of several groups a tree takes, as a range.

A copy is one candidate of Placement's (``combine``: an option per group,
every request-wide rule met, the amounts of one provider and class summed
within the copy against ``max_unit``, as allocation_candidate's
``_exceeds_capacity``). Copies are separate consumers: only their sum
meets the free capacity of each provider and class.

``count(request, tree)`` gives a ``Range``: ``fits``, a number of copies
that can be placed at once (the placement is built: each copy a pattern,
all of them within the free capacity), and ``at_most``, a bound no
placement beats (per class, per group and, for ``isolate``, the distinct
providers each copy needs). Where all the groups are alike and their
providers identical, a closed form gives the answer; elsewhere copies are
placed one pattern at a time, identical providers collapsed.
"""

import collections
import itertools

from osc_placement.model.evaluation import combine
from osc_placement.model.evaluation import groups
from osc_placement.model.evaluation import request as requests
from osc_placement.model.evaluation import tree as trees

# Beyond this many combinations of the groups' options the patterns are
# not enumerated: the range is then one copy (Placement's verdict) up to
# the bound.
MAX_PATTERNS = 20000
# What keeps fits below at_most when the search stopped there.
SEARCH_GAP = 'which providers each copy takes'
TOO_MANY = 'too many ways to place a copy to search'

Range = collections.namedtuple('Range', ['fits', 'at_most', 'limited_by',
                                         'gap'])


def count(request, tree, options=None):
    """The Range of copies of ``request`` in ``tree`` (a trees.Tree).

    options: {suffix: [groups.Option]} of a tree that is a candidate.
    ``limited_by``: what bounds ``at_most``; ``gap``: where ``fits`` is
    below it, what keeps them apart ('' where they meet).
    """
    if options is None:
        options = options_of(request, tree)
    free = _free(tree)
    at_most, limited_by = bound(request, tree, options, free)
    alike = _closed_form(request, tree, options, free)
    if alike is not None:
        return Range(min(alike, at_most), at_most, limited_by, '')
    apart = _apart(request, tree, options, free)
    if apart is not None:
        fits, most = apart
        at_most = min(at_most, most)
        return Range(min(fits, at_most), at_most, limited_by,
                     '' if fits >= at_most else SEARCH_GAP)
    patterns = _patterns(request, tree, options)
    if patterns is None:
        return Range(min(1, at_most), at_most, limited_by, TOO_MANY)
    fits = _place(tree, patterns, free, at_most)
    return Range(fits, at_most, limited_by,
                 '' if fits == at_most else SEARCH_GAP)


def _free(tree):
    """{(uuid, rc): free capacity} of every provider and class."""
    return {(rp['uuid'], rc): max(trees.free(rp, rc), 0)
            for rp in tree.providers for rc in rp.get('inventories', {})}


def _room(amounts, free):
    """How many times ``amounts`` [(uuid, rc, amount)] fit in ``free``."""
    need = collections.Counter()
    for uuid, rc, amount in amounts:
        need[uuid, rc] += amount
    return min(free.get(key, 0) // amount for key, amount in need.items())


def bound(request, tree, options, free):
    """(at_most, what bounds it): no placement takes more copies.

    Per class: what the providers any option takes it from have free,
    over what a copy takes of it. Per group: the copies each provider
    could take of that group alone, summed. With ``isolate``: each copy
    needs as many distinct providers as there are numbered groups, and a
    provider is in at most as many copies as it takes of any one group.
    """
    found = []
    per_copy = collections.Counter()
    usable = collections.defaultdict(set)
    for suffix, group in request.groups.items():
        for rc, amount in group.resources.items():
            per_copy[rc] += amount
        for option in options[suffix]:
            for uuid, rc, _amount in option.amounts:
                usable[rc].add(uuid)
    for rc, amount in per_copy.items():
        found.append((sum(free.get((uuid, rc), 0) for uuid in usable[rc])
                      // amount, rc))
    slots = {}
    for suffix, group in request.groups.items():
        if not group.granular or not group.resources:
            continue
        taken = {}
        for option in options[suffix]:
            uuid = next(iter(option.providers))
            taken[uuid] = max(taken.get(uuid, 0),
                              _room(option.amounts, free))
        found.append((sum(taken.values()), group.label))
        for uuid, room in taken.items():
            slots[uuid] = max(slots.get(uuid, 0), room)
    granular = [g for g in request.granular if g.resources]
    if request.group_policy == 'isolate' and len(granular) > 1:
        found.append((_isolated(len(granular), slots.values()),
                      'group_policy isolate'))
    return min(found, key=lambda item: item[0])


def _isolated(groups_per_copy, slots, per_copy=1):
    """The most copies k with groups_per_copy * k <= sum min(k * per_copy, s).

    Each copy takes ``groups_per_copy`` group slots, at most ``per_copy``
    of them on one provider; a provider has ``s`` slots in all. The
    condition is necessary, and with providers taking one group each it is
    enough (copies dealt round the providers).
    """
    slots = list(slots)
    low, high = 0, sum(slots) // groups_per_copy
    while low < high:
        k = (low + high + 1) // 2
        if groups_per_copy * k <= sum(min(k * per_copy, s) for s in slots):
            low = k
        else:
            high = k - 1
    return low


def _signature(rp):
    """What makes two providers interchangeable for a copy."""
    return (rp.get('parent_provider_uuid'), bool(rp.get('shared')),
            tuple(sorted((rc, tuple(sorted(trees.inventory(rp, rc).items())),
                          trees.used(rp, rc))
                         for rc in rp.get('inventories', {}))),
            tuple(sorted(rp.get('traits', []))),
            tuple(sorted(rp.get('aggregates', []))))


def _closed_form(request, tree, options, free):
    """Copies of alike numbered groups on identical providers, or None.

    Every group numbered or named, all asking the same and served by the
    same providers, all of them identical, no ``same_subtree``: each
    provider has ``s`` slots (the copies of one group it takes), and with
    ``none`` takes up to ``u`` groups of one copy (its ``max_unit``); the
    largest k with n * k <= sum min(k * u, s) is reached by dealing the
    copies round the providers.
    """
    suffixes = list(request.groups)
    first = request.groups[suffixes[0]]
    alike = request.groups.values()
    if not request.at_least(requests.NESTED) or request.same_subtrees or \
            any(not g.granular or not g.resources for g in alike):
        return None
    key = _group_key(first)
    if any(_group_key(g) != key for g in request.groups.values()):
        return None
    providers = [frozenset(o.providers) for o in options[suffixes[0]]]
    if any([frozenset(o.providers) for o in options[s]] != providers
           for s in suffixes):
        return None
    rps = [tree.by_uuid[next(iter(p))] for p in providers]
    if len(set(_signature(rp) for rp in rps)) != 1:
        return None
    room = _room(options[suffixes[0]][0].amounts, free)
    if request.group_policy == 'isolate':
        per_copy = 1
    else:
        per_copy = min(trees.inventory(rps[0], rc)['max_unit'] // amount
                       for rc, amount in first.resources.items())
    return _isolated(len(suffixes), [room] * len(rps), max(per_copy, 1))


def _apart(request, tree, options, free):
    """(fits, at_most) of an unnumbered group apart from alike ones, or None.

    A flavor's request: the unnumbered group (VCPU, MEMORY_MB, DISK_GB)
    and numbered groups alike on identical providers (its vGPUs or PCI
    devices). Where no provider an option of the unnumbered group takes
    is one a numbered group's option takes, no rule ties them
    (``group_policy`` and ``same_subtree`` name numbered groups only, and
    the capacity of a provider is met by one side alone): the copies of
    the request are the fewer of the copies of each part, each part
    counted on its own, the numbered ones by the closed form.
    """
    unnumbered = [s for s, g in request.groups.items() if not g.granular]
    if len(unnumbered) != 1 or len(request.groups) < 2 or \
            request.same_subtrees:
        return None
    own = unnumbered[0]
    taken = set(uuid for option in options[own]
                for uuid in option.providers)
    numbered = {s: g for s, g in request.groups.items() if s != own}
    if any(taken & set(option.providers)
           for s in numbered for option in options[s]):
        return None
    rest = requests.Request(numbered, request.microversion,
                            request.group_policy)
    alike = _closed_form(rest, tree, {s: options[s] for s in numbered}, free)
    if alike is None:
        return None
    alone = count(requests.Request({own: request.groups[own]},
                                   request.microversion),
                  tree, {own: options[own]})
    return min(alone.fits, alike), min(alone.at_most, alike)


def _group_key(group):
    return (sorted(group.resources.items()), sorted(
        sorted(any_of) for any_of in group.required),
        sorted(group.forbidden), sorted(sorted(a) for a in group.member_of),
        sorted(group.forbidden_aggs), group.in_tree)


def _patterns(request, tree, options):
    """[{(uuid, rc): amount}]: each way to place one copy, or None.

    The combinations of the groups' options that meet every rule of
    ``combine`` (the capacity within one copy too), each once.
    """
    suffixes = list(options)
    total = 1
    for suffix in suffixes:
        total *= len(options[suffix])
    if total > MAX_PATTERNS:
        return None
    checks = [check for _name, check in
              combine.Combination(request, tree, options).checks()]
    found = set()
    for choice in itertools.product(*(options[s] for s in suffixes)):
        combo = dict(zip(suffixes, choice))
        if not all(check(combo) for check in checks):
            continue
        need = collections.Counter()
        for option in choice:
            for uuid, rc, amount in option.amounts:
                need[uuid, rc] += amount
        found.add(frozenset(need.items()))
    return [dict(pattern) for pattern in found]


def _place(tree, patterns, free, at_most):
    """How many copies the patterns place at once, one choice at a time.

    Each round takes the pattern that uses the smallest share of what is
    left of the scarcest thing it touches, among patterns that differ by
    more than identical providers (collapsed by their signature and what
    they have left), and places it as often as the share allows.
    """
    left = dict(free)
    signature = {rp['uuid']: _signature(rp) for rp in tree.providers}
    placed = 0
    while placed < at_most:
        best, best_key, seen = None, None, set()
        for pattern in patterns:
            if any(left.get(key, 0) < amount
                   for key, amount in pattern.items()):
                continue
            collapsed = frozenset(
                (signature[uuid], rc, amount, left[uuid, rc])
                for (uuid, rc), amount in pattern.items())
            if collapsed in seen:
                continue
            seen.add(collapsed)
            shares = sorted((amount / left[key]
                             for key, amount in pattern.items()),
                            reverse=True)
            if best_key is None or shares < best_key:
                best, best_key = pattern, shares
        if best is None:
            break
        times = min(left[key] // amount for key, amount in best.items())
        times = max(1, min(times // max(len(seen), 2), at_most - placed))
        for key, amount in best.items():
            left[key] -= amount * times
        placed += times
    return placed


def options_of(request, tree):
    """{suffix: [groups.Option]} of every group of a candidate request."""
    found = {}
    for suffix, group in request.groups.items():
        found[suffix] = groups.options(
            tree.own() if group.in_tree else tree, group,
            request.at_least(requests.NESTED))[0]
    return found
