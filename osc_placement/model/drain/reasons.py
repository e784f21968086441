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

"""Why a consumer of a drained tree is not moved: one sentence.

Pure. :func:`why` names, in the cloud's terms, the first thing that
leaves a consumer no target: an aggregate it must be in, a sharing
provider whose aggregate the target must share, a class, a trait, the
units or the free capacity of the target root or of a child provider,
each with how many of the target trees meet it; or, when it fits some
trees alone, that the other moves leave none, and which class runs out.
A consumer the command leaves as it is (``Consumer.stays``) keeps the
command's text.
"""

import collections
import dataclasses
import typing

from osc_placement.model.drain import parts

NOTHING = 'holds nothing on the drained trees'
NO_TARGET = ('no target tree: every candidate is drained, disabled or '
             'left out')


@dataclasses.dataclass(frozen=True)
class Check:
    """One thing a target tree must meet.

    ``label``: what the consumer needs ('needs trait CUSTOM_GOLD');
    ``verb``: what the trees that meet it do ('have it'); ``where``:
    the trees that meet it, after 'none of them' ('with trait
    CUSTOM_GOLD'); ``meets(target)``: whether a target meets it.
    """

    label: str
    verb: str
    where: str
    meets: typing.Callable


def _trees(count):
    return '%d target tree%s' % (count, '' if count == 1 else 's')


def _of_trees(count):
    """'N target trees' after 'M of': plural, as the verbs that follow."""
    return '%d target trees' % count


def _amounts(resources):
    return ', '.join('%s=%d' % item for item in resources)


def _aggregate_checks(moving, providers, shown):
    for group in moving.shape.member_of:
        names = ' or '.join(sorted(shown.get(a, a) for a in group))
        yield Check('must be in aggregate %s' % names, 'are in it',
                    'in aggregate %s' % names,
                    lambda t, g=group: bool(g & t.root.aggregates))
    for rp_uuid in sorted(moving.stays):
        provider = providers.get(rp_uuid)
        if provider is None or not provider.sharing:
            continue
        what = 'shares %s from %s' % (
            _amounts(sorted(moving.stays[rp_uuid].items())), provider.name)
        yield Check(what, 'are in its aggregates',
                    "in %s's aggregates" % provider.name,
                    lambda t, a=provider.aggregates: bool(
                        a & t.root.aggregates))


def _trait_checks(need, where, provider_of):
    for trait in sorted(need.required):
        yield Check('needs trait %s%s' % (trait, where), 'have it',
                    'with trait %s' % trait,
                    lambda t, x=trait: any(
                        x in p.traits for p in provider_of(t)))
    for trait in sorted(need.forbidden):
        yield Check('forbids trait %s%s' % (trait, where),
                    'are without it', 'without trait %s' % trait,
                    lambda t, x=trait: any(
                        x not in p.traits for p in provider_of(t)))


def _class_checks(resources, where, provider_of, on):
    for rc, amount in resources:
        yield Check('needs %s=%d%s' % (rc, amount, where),
                    'have %s%s' % (rc, on),
                    'with %s' % rc,
                    lambda t, c=rc: any(
                        c in p.inventories for p in provider_of(t)))


# The verbs of the checks of amounts (the units, the free capacity), not
# of what a tree is (its aggregates, traits, classes).
UNITS = 'take that amount in their units'
FREE = 'have that much free'
AMOUNT_VERBS = (UNITS, FREE)


def _unit_checks(resources, where, provider_of):
    for rc, amount in resources:
        label = 'needs %s=%d%s' % (rc, amount, where)
        yield Check(label, UNITS,
                    'taking %s=%d in their units' % (rc, amount),
                    lambda t, c=rc, a=amount: any(
                        c in p.inventories and p.inventories[c].accepts(a)
                        for p in provider_of(t)))
        yield Check(label, FREE,
                    'with %s=%d free' % (rc, amount),
                    lambda t, c=rc, a=amount: any(
                        p.free(c) >= a for p in provider_of(t)))


def checks(moving, providers, shown=None):
    """Every :class:`Check` of a consumer's shape, in the order shown.

    Per part: the classes, then the traits (of the providers with those
    classes), then the units and the free capacity (of the providers
    with the classes and the traits). ``shown``: {aggregate UUID: its
    name}, for the aggregates a consumer must be in.
    """
    shape = moving.shape
    yield from _aggregate_checks(moving, providers, shown or {})

    def root(target):
        return [target.root]
    yield from _class_checks(shape.root, '', root, ' on their root')
    yield from _trait_checks(shape.root_need, '', root)
    yield from _unit_checks(shape.root, '', root)
    for resources, need in shape.children:
        where = ' on a child provider'

        def having(target, resources=resources):
            return [c for c in target.children
                    if all(rc in c.inventories for rc, _ in resources)]

        def fitting(target, need=need, having=having):
            return [c for c in having(target) if need.met_by(c.traits)]
        yield from _class_checks(resources, where, lambda t: t.children,
                                 '')
        yield from _trait_checks(need, where, having)
        yield from _unit_checks(resources, where, fitting)


def _alone(moving, providers, targets, shown):
    """Why it fits no target tree by itself."""
    running, before = list(targets), None
    for check in checks(moving, providers, shown):
        meeting = [t for t in targets if check.meets(t)]
        if not meeting:
            return '%s: 0 of %s %s' % (
                check.label, _of_trees(len(targets)), check.verb)
        narrowed = [t for t in running if check.meets(t)]
        if not narrowed:
            return '%s: %d of %s %s, none of them %s' % (
                check.label, len(meeting), _of_trees(len(targets)),
                check.verb, before.where)
        if len(narrowed) < len(running):
            before = check
        running = narrowed
    return 'its %d parts on child providers: none of the %s has as many ' \
        'distinct child providers that can take them' % (
            len(moving.shape.children), _trees(len(running)))


def _short(shape, target, left):
    """What the target lacks for the shape after the plan, or None.

    The classes of the root part with too little free, else the first
    child part no child can take now (the class it lacks on every
    child, else its first), as 'VCPU=4, MEMORY_MB=2' (' on a child
    provider').
    """
    free = left[target.uuid]
    lacking = [(rc, amount) for rc, amount in shape.root
               if free.get(rc, 0) < amount]
    if lacking:
        return _amounts(lacking)
    for resources, need in shape.children:
        if any(parts.holds(c, resources, need, left[c.uuid])
               for c in target.children):
            continue
        lacking = [(rc, amount) for rc, amount in resources
                   if not any(left[c.uuid].get(rc, 0) >= amount
                              for c in target.children)]
        return _amounts(lacking or resources[:1]) + ' on a child provider'
    return None


class Reasons:
    """The reasons of the consumers a plan does not move.

    ``targets``: every :class:`~parts.Target`; ``feasible``: {shape:
    {target index: options}}, the trees each shape fits alone; ``left``:
    what is free on each target tree's provider once the plan's moves
    are made; ``providers``: the cloud's, to name sharing providers;
    ``shown``: the cloud's ``aggregate_names``.
    Alike consumers (same shape, same parts staying) get the same
    sentence, computed once.
    """

    def __init__(self, targets, feasible, left, providers, shown=None):
        self.targets = targets
        self.feasible = feasible
        self.left = left
        self.providers = providers
        self.shown = shown or {}
        self._known = {}

    def why(self, moving):
        """The reason a consumer is not moved: one sentence."""
        consumer = moving.consumer
        if consumer.stays is not None:
            return consumer.stays
        if moving.source_root is None:
            return NOTHING
        if not self.targets:
            return NO_TARGET
        key = (moving.shape, tuple(sorted(
            (rp, tuple(sorted(a.items())))
            for rp, a in moving.stays.items())))
        if key not in self._known:
            self._known[key] = self._why(moving)
        return self._known[key]

    def _why(self, moving):
        feasible = self.feasible.get(moving.shape, {})
        if not feasible:
            return _alone(moving, self.providers, self.targets,
                          self.shown)
        short = collections.Counter()
        for target in self.targets:
            if target.index in feasible:
                found = _short(moving.shape, target, self.left)
                if found is not None:
                    short[found] += 1
        trees = _trees(len(feasible)) + self._narrowed(moving)
        if not short:
            return 'fits %s alone, none after the other moves' % trees
        what, _count = sorted(
            short.items(), key=lambda item: (-item[1], item[0]))[0]
        return 'needs %s: %s could hold it alone, none after the other ' \
            'moves' % (what, trees)

    def _narrowed(self, moving):
        """' (with trait X)': the first check some target trees fail.

        What makes the trees it fits alone fewer than the targets: the
        aggregate, trait or class it needs that the others lack.
        """
        for check in checks(moving, self.providers, self.shown):
            if check.verb in AMOUNT_VERBS:
                continue
            if not all(check.meets(t) for t in self.targets):
                return ' (%s)' % check.where
        return ''
