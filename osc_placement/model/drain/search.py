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

"""The drain plan: where each consumer goes, the most of them at once.

Pure. :func:`plan` takes a :class:`~cloud.Cloud` and returns a
:class:`Plan`: a branch-and-bound search over the consumers that may
move, largest first. For each, in turn: one of the target trees it fits
(emptiest first: most free ``MEMORY_MB`` on the root, then by name and
UUID), with each of its child parts on a distinct child of that tree,
or not moved. Its first plan is the greedy one (each consumer on the
emptiest tree it fits, in that order); it then looks for plans that move
more, pruning a branch when the consumers moved on it plus those left
that could still fit somewhere (per shape, as many as the free capacity
holds copies of it) cannot beat the best. Among plans that move as many,
the first found is kept: the one that prefers the emptiest targets.
The same greedy plan taken smallest first (it moves more where not
everyone fits) is kept unless the search finds one moving as many.

Consumers of one shape (same amounts, needs and aggregates) are alike:
what they can do is computed once, and a plan that skips one of them
to move the next is never tried (one moving the first instead was).

The search stops after ``budget`` units of work (one unit: one target
looked at for one consumer or shape, or one shape counted): then the
plan is not proven the best (``exact`` is False) and ``might_improve``
says how many more consumers at most any plan could move.
"""

import bisect
import collections
import dataclasses
import itertools
import typing

from osc_placement.model.drain import cloud as clouds
from osc_placement.model.drain import parts
from osc_placement.model.drain import reasons

# Units of work (targets looked at) before the search stops improving
# its plan: about a second of CPU (4,000 consumers of 20 hosts over
# 2,000 providers plan in 1 to 2 s). The first plan is always complete.
DEFAULT_BUDGET = 300000

# The option of a consumer that is not moved.
SKIP = 'skip'


@dataclasses.dataclass(frozen=True)
class Row:
    """One consumer of the drained trees in the plan.

    ``consumer``: its UUID; ``server``: the consumer's ``server`` text;
    ``source_root``: the drained root it is on; ``target_root``: the
    root of the tree it goes to, None when it is not moved;
    ``resources``: {class: amount}, what it holds on the drained trees
    (what moves); ``reason``: why it is not moved ('' when it is);
    ``allocations``: when it moves, all it would hold, {provider: {class:
    amount}}, as ``POST /allocations`` takes it (the parts that stay
    included); None when it is not moved.
    """

    consumer: str
    server: str
    source_root: typing.Optional[str]
    target_root: typing.Optional[str]
    resources: typing.Mapping[str, int]
    reason: str
    allocations: typing.Optional[typing.Mapping[str, typing.Mapping]]


@dataclasses.dataclass(frozen=True)
class Plan:
    """The plan: its rows and how good it is.

    ``rows``: one :class:`Row` per consumer, by the drained root's name
    then consumer UUID; ``moved``: how many move; ``total``: how many
    rows; ``exact``: whether no plan moves more (the search ended, or the
    plan reached its bound); ``might_improve``: 0 when exact, else how
    many more consumers at most a plan could move.
    """

    rows: typing.Sequence[Row]
    moved: int
    total: int
    exact: bool
    might_improve: int


class Free:
    """What is free on the target trees, and the targets by emptiness.

    ``left``: {provider UUID: {class: amount free}} for every provider
    of the target trees; ``ranked``: [(-free MEMORY_MB of the root,
    target index)], sorted: the emptiest target first, ties in the
    targets' stable order.
    """

    def __init__(self, targets):
        self.targets = targets
        self.left = {}
        for target in targets:
            for provider in [target.root] + target.children:
                self.left[provider.uuid] = {
                    rc: provider.free(rc) for rc in provider.inventories}
        self.ranked = sorted(self._key(target) for target in targets)

    def _key(self, target):
        return (-self.left[target.uuid].get(clouds.MEMORY_MB, 0),
                target.index)

    def fits(self, shape, target, options):
        """A child placement (tuple) if the shape fits now, else None."""
        left = self.left[target.uuid]
        for rc, amount in shape.root:
            if left[rc] < amount:
                return None
        if not shape.children:
            return ()
        return parts.match(options, self._usable(shape, target))

    def _usable(self, shape, target):
        children = target.children
        left = self.left

        def usable(part, child):
            free = left[children[child].uuid]
            return all(free[rc] >= amount
                       for rc, amount in shape.children[part][0])
        return usable

    def placements(self, shape, target, options):
        """Every child placement of the shape on the target now, in order.

        Distinct children per part; with one child part, one child of
        each kind (children alike in traits, inventory and what is free
        are interchangeable).
        """
        usable = self._usable(shape, target)
        per_part = [[c for c in candidates if usable(part, c)]
                    for part, candidates in enumerate(options)]
        if len(per_part) == 1:
            seen, kinds = set(), []
            for child in per_part[0]:
                kind = self._kind(target.children[child])
                if kind not in seen:
                    seen.add(kind)
                    kinds.append((child,))
            return kinds
        found = []
        self._product(per_part, 0, (), found)
        return found

    def _kind(self, provider):
        return (provider.traits, tuple(sorted(provider.inventories.items())),
                tuple(sorted(self.left[provider.uuid].items())))

    def _product(self, per_part, part, chosen, found):
        if part == len(per_part):
            found.append(chosen)
            return
        for child in per_part[part]:
            if child not in chosen:
                self._product(per_part, part + 1, chosen + (child,), found)

    def take(self, shape, target, children, sign=-1):
        """Take (``sign`` -1) or give back (+1) a shape's amounts."""
        memory = target.uuid
        key = self._key(target)
        left = self.left[memory]
        for rc, amount in shape.root:
            left[rc] += sign * amount
        for part, child in zip(shape.children, children):
            free = self.left[target.children[child].uuid]
            for rc, amount in part[0]:
                free[rc] += sign * amount
        new = self._key(target)
        if new != key:
            del self.ranked[bisect.bisect_left(self.ranked, key)]
            bisect.insort(self.ranked, new)

    def copies(self, shape, target, options, cap):
        """How many copies of the shape the target holds now, at most cap.

        An upper bound: the root's free capacity over the root's
        amounts, and each child part's over the children that could
        take it (a copy's parts on distinct children is not counted).
        """
        count = _copies(self.left[target.uuid], shape.root, cap)
        for part, candidates in enumerate(options):
            resources = shape.children[part][0]
            count = min(count, sum(
                _copies(self.left[target.children[c].uuid], resources, cap)
                for c in candidates))
        return count


def _copies(free, resources, cap):
    count = cap
    for rc, amount in resources:
        count = min(count, max(free[rc], 0) // amount)
    return count


class Search:
    """The branch and bound over the consumers that may move.

    ``moving``: the :class:`~parts.Moving` of each, in search order;
    ``feasible``: {shape: {target index: child options}}, where each
    shape fits alone. ``best``: per consumer, its option in the best
    plan found ((target, children) or SKIP); ``moved``: how many it
    moves; ``cut``: whether the budget stopped the search.
    """

    def __init__(self, free, moving, feasible, budget, incumbent=None):
        self.free = free
        self.moving = moving
        self.shapes = [m.shape for m in moving]
        self.feasible = feasible
        self.budget = budget
        self.spent = 0
        self.best, self.moved = incumbent or (None, -1)
        if incumbent:
            # A plan found otherwise: one as good found here replaces it.
            self.moved -= 1
        self.cut = False
        self.ceiling = min(len(moving), _class_ceiling(self.shapes, free),
                           _tree_ceiling(self.shapes, free))
        self._chosen = [None] * len(moving)
        where = collections.defaultdict(list)
        for position, shape in enumerate(self.shapes):
            where[shape].append(position)
        self.where = where

    def options(self, position):
        """The options of one consumer now: each placement, then SKIP."""
        shape = self.shapes[position]
        previous = self.shapes[position - 1] if position else None
        if previous == shape and self._chosen[position - 1] is SKIP:
            # Alike consumers: a plan moving this one and not the one
            # before moves as many as one found earlier.
            yield SKIP
            return
        feasible = self.feasible[shape]
        targets = self.free.targets
        for _key, index in list(self.free.ranked):
            options = feasible.get(index)
            if options is None:
                continue
            self.spent += 1
            target = targets[index]
            if self.free.fits(shape, target, options) is None:
                continue
            if not shape.children:
                yield (target, ())
                continue
            for children in self.free.placements(shape, target, options):
                yield (target, children)
        yield SKIP

    def bound(self, position, moved, best=None):
        """At most how many a plan from here moves (stops at ``best``).

        ``moved`` plus, per shape of the consumers left, the fewest of
        how many are left and how many copies the free capacity holds.
        When ``best`` is given, stops once the bound is no more than it.
        """
        left = {}
        self.spent += len(self.where)
        for shape, positions in self.where.items():
            count = len(positions) - bisect.bisect_left(positions, position)
            if count:
                left[shape] = count
        bound = moved + sum(left.values())
        for shape in sorted(left, key=lambda s: self.where[s][-1]):
            if best is not None and bound <= best:
                break
            cap, copies = left[shape], 0
            for index, options in self.feasible[shape].items():
                self.spent += 1
                copies += self.free.copies(
                    shape, self.free.targets[index], options, cap - copies)
                if copies >= cap:
                    break
            bound -= cap - min(cap, copies)
        return bound

    def run(self):
        """Search; ``best`` and ``moved`` hold the best plan found."""
        count = len(self.moving)
        self.ceiling = ceiling = min(self.ceiling, self.bound(0, 0))
        frames, moved, first = [], 0, True
        while True:
            depth = len(frames)
            if depth == count:
                if moved > self.moved:
                    self.moved, self.best = moved, list(self._chosen)
                opened = first = False
            elif first:
                opened = True
            elif self.moved >= ceiling:
                return
            elif self.spent > self.budget:
                self.cut = True
                return
            else:
                opened = (moved + count - depth > self.moved
                          and self.bound(depth, moved, self.moved)
                          > self.moved)
            if opened:
                frames.append(self.options(depth))
            moved = self._step(frames, moved)
            if not frames:
                return

    def clear(self):
        """Give back what the search holds: ``free`` as it was."""
        for depth in reversed(range(len(self._chosen))):
            chosen = self._chosen[depth]
            if chosen is not None and chosen is not SKIP:
                self.free.take(self.shapes[depth], *chosen, sign=1)
            self._chosen[depth] = None

    def settle(self):
        """Leave ``free`` as the best plan leaves it."""
        self.clear()
        for shape, chosen in zip(self.shapes, self.best):
            if chosen is not SKIP:
                self.free.take(shape, *chosen)

    def _step(self, frames, moved):
        """Undo the top frame's option and apply its next one."""
        while frames:
            depth = len(frames) - 1
            chosen = self._chosen[depth]
            if chosen is not None and chosen is not SKIP:
                self.free.take(self.shapes[depth], *chosen, sign=1)
                moved -= 1
            self._chosen[depth] = None
            option = next(frames[-1], None)
            if option is None:
                frames.pop()
                continue
            if option is not SKIP:
                self.free.take(self.shapes[depth], *option)
                moved += 1
            self._chosen[depth] = option
            return moved
        return moved


def _tree_ceiling(shapes, free):
    """At most how many of these shapes the target trees hold, tree by tree.

    A tree holds at most, for each class, as many consumers as the
    smallest amounts of it (0 for those without it) fit in what its
    providers have free of it; summed over the trees.
    """
    sums = {}
    for rc in {rc for shape in shapes for rc in shape.amounts()}:
        amounts = sorted(shape.amounts().get(rc, 0) for shape in shapes)
        sums[rc] = list(itertools.accumulate(amounts))
    ceiling = 0
    for target in free.targets:
        room = collections.Counter()
        for provider in [target.root] + target.children:
            room.update({rc: max(amount, 0) for rc, amount
                         in free.left[provider.uuid].items()})
        ceiling += min([bisect.bisect_right(prefix, room[rc])
                        for rc, prefix in sums.items()] + [len(shapes)])
    return ceiling


def _class_ceiling(shapes, free):
    """At most how many of these shapes the free capacity holds, by class.

    Per class: the most consumers whose amounts of it, smallest first,
    fit in what is free of it on every target provider (a provider with
    less free than the smallest amount counts for nothing), plus those
    without that class; the fewest over the classes.
    """
    needs = collections.defaultdict(list)
    for shape in shapes:
        for rc, amount in shape.amounts().items():
            needs[rc].append(amount)
    ceiling = len(shapes)
    for rc, amounts in needs.items():
        amounts.sort()
        room = sum(left[rc] for left in free.left.values()
                   if left.get(rc, 0) >= amounts[0])
        count = 0
        for amount in amounts:
            if amount > room:
                break
            room -= amount
            count += 1
        ceiling = min(ceiling, count + len(shapes) - len(amounts))
    return ceiling


def _size(shape, room):
    """How big a shape is: its amounts over the room of their classes."""
    return sum(amount / max(room.get(rc, 0), 1)
               for rc, amount in shape.amounts().items())


def plan(cloud, budget=DEFAULT_BUDGET):
    """The :class:`Plan` of draining ``cloud.drained`` to its targets."""
    drained = frozenset(cloud.drained)
    everyone = [parts.split(c, cloud, drained) for c in cloud.consumers]
    targets = parts.targets(cloud)
    free = Free(targets)
    feasible = {}
    for moving in everyone:
        if moving.shape not in feasible:
            feasible[moving.shape] = {
                t.index: options for t in targets
                for options in [parts.alone(moving.shape, t, free.left)]
                if options is not None}
    room = collections.Counter()
    for provider_free in free.left.values():
        room.update({rc: max(amount, 0)
                     for rc, amount in provider_free.items()})
    candidates = sorted(
        (m for m in everyone if m.consumer.stays is None
         and m.source_root is not None and feasible[m.shape]),
        key=lambda m: (-_size(m.shape, room), m.shape.key(),
                       m.consumer.uuid))
    search = Search(free, candidates[::-1], feasible, 0)
    search.run()
    search.clear()
    smallest = (search.best[::-1], search.moved)
    search = Search(free, candidates, feasible, budget, smallest)
    search.run()
    search.settle()
    moved = sum(1 for option in search.best if option is not SKIP)
    exact = not search.cut or moved >= search.ceiling
    chosen = dict(zip((m.consumer.uuid for m in candidates), search.best))
    return _plan(cloud, everyone, chosen, free, targets, feasible,
                 exact, 0 if exact else search.ceiling - moved)


def _allocations(moving, option):
    """All a moved consumer would hold: {provider: {class: amount}}."""
    target, children = option
    shape = moving.shape
    found = collections.defaultdict(collections.Counter)
    if shape.root:
        found[target.uuid].update(dict(shape.root))
    for (resources, _need), child in zip(shape.children, children):
        found[target.children[child].uuid].update(dict(resources))
    for rp_uuid, allocation in moving.stays.items():
        found[rp_uuid].update(allocation)
    return {rp_uuid: dict(amounts) for rp_uuid, amounts in found.items()}


def _plan(cloud, everyone, chosen, free, targets, feasible, exact,
          might_improve):
    rows = []
    explain = reasons.Reasons(targets, feasible, free.left, cloud.providers,
                              cloud.aggregate_names)
    for moving in everyone:
        consumer = moving.consumer
        option = chosen.get(consumer.uuid, SKIP)
        moved = option is not SKIP
        rows.append(Row(
            consumer=consumer.uuid, server=consumer.server,
            source_root=moving.source_root,
            target_root=option[0].uuid if moved else None,
            resources=moving.shape.amounts(),
            reason='' if moved else explain.why(moving),
            allocations=_allocations(moving, option) if moved else None))
    names = {uuid: cloud.providers[uuid].name for uuid in cloud.drained
             if uuid in cloud.providers}
    rows.sort(key=lambda row: (names.get(row.source_root, ''),
                               row.source_root or '', row.consumer))
    count = sum(1 for row in rows if row.target_root is not None)
    return Plan(rows=rows, moved=count, total=len(rows), exact=exact,
                might_improve=might_improve)
