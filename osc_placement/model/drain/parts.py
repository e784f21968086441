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

"""What of a consumer moves, and where it could land alone.

Pure: :func:`split` turns a consumer into its :class:`Shape` (the parts
that move, what each needs, what its target root must share or be a
member of) and the providers they come from; :class:`Target` is a
target tree; :func:`alone` says whether a shape fits a target with the
cloud as it is (every other consumer where it is now), and on which
children each of its child parts could land.

Consumers with the same shape are interchangeable for the search: it
computes what they can do once per shape.
"""

import collections
import dataclasses
import typing

from osc_placement.model.drain import cloud as clouds


@dataclasses.dataclass(frozen=True)
class Shape:
    """What a consumer moves and what its target must have.

    ``root``: ((class, amount), ...) of its parts on drained roots (they
    go to the target root); ``root_need``: the traits the target root
    must have or not have; ``children``: ((((class, amount), ...), Need),
    ...) one per part on a drained child (each to a distinct non-root
    provider of the target tree); ``member_of``: the consumer's;
    ``shares``: the aggregates of each sharing provider it holds (the
    target root must be in one of each).
    """

    root: tuple = ()
    root_need: clouds.Need = clouds.Need()
    children: tuple = ()
    member_of: tuple = ()
    shares: tuple = ()

    def key(self):
        """A tuple that orders shapes (alike ones compare equal)."""
        def need(value):
            return (sorted(value.required), sorted(value.forbidden))
        return (self.root, need(self.root_need),
                [(resources, need(n)) for resources, n in self.children],
                [sorted(g) for g in self.member_of],
                [sorted(g) for g in self.shares])

    def amounts(self):
        """{class: amount}: everything that moves, summed."""
        total = collections.Counter()
        for rc, amount in self.root:
            total[rc] += amount
        for resources, _need in self.children:
            for rc, amount in resources:
                total[rc] += amount
        return dict(total)


@dataclasses.dataclass(frozen=True)
class Moving:
    """One consumer as the search sees it.

    ``shape``: its :class:`Shape`; ``source_root``: the drained root it
    is on (the first in ``Cloud.drained`` order), None when it holds
    nothing on the drained trees; ``roots``: the drained roots its root
    parts come from; ``children``: the drained child of each of
    ``shape.children``, in that order; ``stays``: {provider: {class:
    amount}}, its parts that stay where they are.
    """

    consumer: clouds.Consumer
    shape: Shape
    source_root: typing.Optional[str]
    roots: tuple
    children: tuple
    stays: typing.Mapping[str, typing.Mapping[str, int]]


def _resources(allocation):
    return tuple(sorted((rc, amount) for rc, amount in allocation.items()
                        if amount))


def split(consumer, cloud, drained):
    """The :class:`Moving` of a consumer; ``drained``: a set of roots."""
    providers = cloud.providers
    root_amounts = collections.Counter()
    required, forbidden = set(), set()
    roots, children, stays, shares = [], [], {}, []
    for rp_uuid in sorted(consumer.allocations):
        allocation = consumer.allocations[rp_uuid]
        provider = providers.get(rp_uuid)
        if provider is None or provider.root not in drained:
            stays[rp_uuid] = dict(allocation)
            if provider is not None and provider.sharing:
                shares.append(provider.aggregates)
            continue
        need = consumer.needs.get(rp_uuid, clouds.Need())
        if provider.parent is None:
            roots.append(rp_uuid)
            root_amounts.update(allocation)
            required |= need.required
            forbidden |= need.forbidden
        else:
            children.append((rp_uuid, (_resources(allocation), need)))
    children.sort(key=lambda item: (item[1][0], item[0]))
    shape = Shape(root=_resources(root_amounts),
                  root_need=clouds.Need(frozenset(required),
                                        frozenset(forbidden)),
                  children=tuple(part for _, part in children),
                  member_of=tuple(consumer.member_of),
                  shares=tuple(sorted(shares, key=sorted)))
    sources = [providers[rp].root for rp in roots] + [
        providers[rp].root for rp, _ in children]
    source_root = next((root for root in cloud.drained if root in sources),
                       None)
    return Moving(consumer, shape, source_root, tuple(roots),
                  tuple(rp for rp, _ in children), stays)


class Target:
    """A target tree: its root and its non-root providers.

    ``root``: the root :class:`~cloud.Provider`; ``children``: the other
    providers of its tree, by name then UUID; ``index``: its place in
    the cloud's stable order of targets (by name, then UUID).
    """

    def __init__(self, root, children, index):
        self.root = root
        self.children = children
        self.index = index

    @property
    def uuid(self):
        return self.root.uuid


def targets(cloud):
    """The :class:`Target` of each of ``cloud.targets``, in stable order.

    A target root that ``cloud.providers`` does not hold is left out.
    """
    below = collections.defaultdict(list)
    for provider in cloud.providers.values():
        if provider.parent is not None:
            below[provider.root].append(provider)
    roots = sorted((cloud.providers[uuid] for uuid in set(cloud.targets)
                    if uuid in cloud.providers),
                   key=lambda p: (p.name, p.uuid))
    return [Target(root, sorted(below[root.uuid],
                                key=lambda p: (p.name, p.uuid)), index)
            for index, root in enumerate(roots)]


def holds(provider, resources, need, free=None):
    """Whether ``provider`` can take one part alone.

    Every class in its inventory, each amount within the units, the
    ``need`` met by its traits, and each amount within what is free:
    ``free`` ({class: amount}) when given, else the provider's own.
    """
    if not need.met_by(provider.traits):
        return False
    for rc, amount in resources:
        inventory = provider.inventories.get(rc)
        if inventory is None or not inventory.accepts(amount):
            return False
        left = (provider.free(rc) if free is None
                else free.get(rc, 0))
        if amount > left:
            return False
    return True


def outside(shape, root):
    """Whether a target root fails the shape's aggregates rules."""
    aggregates = root.aggregates
    if not all(group & aggregates for group in shape.member_of):
        return True
    return not all(shared & aggregates for shared in shape.shares)


def alone(shape, target, left=None):
    """Where a shape's child parts could land on ``target``, alone.

    None when the shape does not fit the target by itself (aggregates,
    root, or no distinct child for each child part); else a tuple, per
    child part, of the indexes in ``target.children`` that could take it.
    ``left``: {provider UUID: {class: amount free}}, what is free now
    (by default, each provider's own).
    """
    root = target.root
    if (shape.member_of or shape.shares) and outside(shape, root):
        return None
    if not holds(root, shape.root, shape.root_need,
                 None if left is None else left[root.uuid]):
        return None
    if not shape.children:
        return ()
    options = tuple(
        tuple(i for i, child in enumerate(target.children)
              if holds(child, resources, need,
                       None if left is None else left[child.uuid]))
        for resources, need in shape.children)
    if match(options, lambda part, child: True) is None:
        return None
    return options


def match(options, usable):
    """One child per part, all distinct; None when there is none.

    ``options``: per part, the candidate children (indexes);
    ``usable(part, child)`` says whether the child can take the part
    now. Returns a tuple of child indexes, per part; augmenting paths,
    parts in order, candidates in order (the first such matching).
    """
    owner = {}

    def place(part, seen):
        for child in options[part]:
            if child in seen or not usable(part, child):
                continue
            seen.add(child)
            if child not in owner or place(owner[child], seen):
                owner[child] = part
                return True
        return False

    for part in range(len(options)):
        if not place(part, set()):
            return None
    found = [None] * len(options)
    for child, part in owner.items():
        found[part] = child
    return tuple(found)
