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

"""The facts of one provider tree that the evaluation reads.

``provider_record()`` builds a provider of a tree from what is read of it
(the one builder: the commands and the property tests use it), ``Tree``
answers questions about the providers (root, ancestors, traits,
aggregates), ``amount_problems()`` is the one check of an amount against
an inventory, and ``group_constraints()`` turns a request group into the
conditions each provider meets or not.
"""

from osc_placement.model import amounts

# What is read of each provider besides its item of the provider list:
# GET /resource_providers/{uuid}/<what>, whose field <what> has that type.
READS = (('inventories', dict), ('usages', dict), ('traits', list),
         ('aggregates', list))

# The values Placement gives a field of an inventory not written
# (placement/handlers/inventory.py); what it returns always has them all.
_INVENTORY_DEFAULTS = {'reserved': 0, 'allocation_ratio': 1.0,
                       'min_unit': 1, 'max_unit': 2147483647,
                       'step_size': 1}


def provider_record(provider, read):
    """One provider of a tree, as the evaluation takes it.

    ``provider``: its item of ``GET /resource_providers``; ``read``: {what:
    the field ``what`` of ``GET /resource_providers/{uuid}/<what>``} for
    each ``what`` of ``READS``.
    """
    record = {
        'uuid': provider['uuid'],
        'name': provider['name'],
        'parent_provider_uuid': provider.get('parent_provider_uuid'),
        'root_provider_uuid': provider.get('root_provider_uuid')
        or provider['uuid'],
    }
    for what, _kind in READS:
        record[what] = read[what]
    return record


def inventory(rp, rc):
    """The inventory of ``rc`` on ``rp``, every field present."""
    return dict(_INVENTORY_DEFAULTS, **rp['inventories'][rc])


def used(rp, rc):
    return rp.get('usages', {}).get(rc, 0)


def free(rp, rc):
    """What ``rp`` can still allocate of ``rc`` (negative when over)."""
    return amounts.capacity(inventory(rp, rc)) - used(rp, rc)


def amount_problems(rp, rc, amount, one_group=True, by=''):
    """What stops ``rp`` from serving ``amount`` of ``rc``: the texts.

    research_context._capacity_check_clause for the amount of one group
    (``min_unit <= amount <= max_unit``, a multiple of ``step_size``,
    within the free capacity). ``one_group=False``: the amounts of several
    groups summed on one provider, which only the capacity and
    ``max_unit`` limit (allocation_candidate's ``exceeds_capacity``).
    ``by`` follows "<amount> requested" (who asked for it).
    """
    inv = inventory(rp, rc)
    said = '%s: %d requested%s' % (rc, amount, by)
    problems = []
    if one_group and amount < inv['min_unit']:
        problems.append('%s, below min_unit %d' % (said, inv['min_unit']))
    if amount > inv['max_unit']:
        problems.append('%s, above max_unit %d' % (said, inv['max_unit']))
    if one_group and amount % inv['step_size']:
        problems.append('%s, not a multiple of step_size %d'
                        % (said, inv['step_size']))
    if amount > free(rp, rc):
        problems.append('%s, %d free (capacity %d, used %d)'
                        % (said, max(free(rp, rc), 0),
                           amounts.capacity(inv), used(rp, rc)))
    return problems


def serves(rp, rc, amount):
    """Whether ``rp`` can serve ``amount`` of ``rc`` for one group."""
    return (rc in rp.get('inventories', {})
            and not amount_problems(rp, rc, amount))


def traits(rp):
    return set(rp.get('traits', []))


def aggregates(rp):
    return set(rp.get('aggregates', []))


class Tree(object):
    """The providers of one tree, by UUID, with their root.

    A record with ``shared`` True is a sharing provider of another tree
    (``MISC_SHARES_VIA_AGGREGATE``) in an aggregate of this one: it serves
    the tree's groups as research_context's ``anchors_for_sharing_providers``
    lets it, never the groups with ``in_tree`` (``own()``), and is in no
    subtree of this tree. ``anchors`` on it: how many trees it shares with.
    """

    def __init__(self, providers):
        self.providers = list(providers)
        self.by_uuid = {p['uuid']: p for p in self.providers}
        self.shared = set(p['uuid'] for p in self.providers
                          if p.get('shared'))
        roots = [p for p in self.providers
                 if not p.get('parent_provider_uuid')
                 and p['uuid'] not in self.shared]
        self.root = roots[0] if roots else self.providers[0]

    def own(self):
        """The tree without the sharing providers of other trees."""
        if not self.shared:
            return self
        return Tree([p for p in self.providers
                     if p['uuid'] not in self.shared])

    def tree_of(self, uuid):
        """The root a provider's allocation counts under (its own tree's)."""
        if uuid in self.shared:
            return self.by_uuid[uuid]['root_provider_uuid']
        return self.root['uuid']

    def name(self, uuid):
        return self.by_uuid[uuid]['name']

    def ancestors(self, uuid):
        """The provider and its ancestors."""
        seen = []
        while uuid in self.by_uuid and uuid not in seen:
            seen.append(uuid)
            uuid = self.by_uuid[uuid].get('parent_provider_uuid')
        return seen

    def with_class(self, rc):
        return [p for p in self.providers if rc in p.get('inventories', {})]

    def root_of(self, rp):
        """The root of ``rp``; of a sharing provider, its anchor's."""
        if rp['uuid'] in self.shared:
            return self.root
        return self.by_uuid.get(rp.get('root_provider_uuid'), rp)


class Constraint(object):
    """One requirement of a group that a provider holds or not."""

    def __init__(self, kind, words, failure, holds):
        self.kind = kind          # resource, required, forbidden, aggregate
        self.words = words        # for "no single provider has ..."
        self.failure = failure    # when no provider holds it
        self.holds = holds        # provider -> bool


def _any_of(kind, any_of, found, one, several):
    """The constraint met by a provider whose ``found(rp)`` meets ``any_of``.

    ``one`` and ``several``: the (words, failure) patterns for a set of
    one name and of more, each filled with the sorted names.
    """
    names = ', '.join(sorted(any_of))
    words, failure = one if len(any_of) == 1 else several
    return Constraint(kind, words % names, failure % names,
                      lambda rp: bool(any_of & found(rp)))


def group_constraints(tree, group, root_aggs):
    """The per-provider constraints of ``group``, resources first.

    ``root_aggs``: a provider is in an aggregate when its root is (the
    unnamed group's rule, research_context's ``filter_by_rp_or_tree``).
    """
    def aggs(rp):
        found = aggregates(rp)
        if root_aggs:
            found |= aggregates(tree.root_of(rp))
        return found

    def member_aggs(rp):
        # research_context.get_rps_with_shared_capacity: a sharing
        # provider is itself in the aggregates asked for.
        if rp['uuid'] in tree.shared:
            return aggregates(rp)
        return aggs(rp)

    out = []
    for rc, amount in group.resources.items():
        out.append(Constraint(
            'resource', '%s:%d' % (rc, amount), None,
            lambda rp, rc=rc, amount=amount: serves(rp, rc, amount)))
    for any_of in group.required:
        out.append(_any_of('required', any_of, traits,
                           ('%s', 'lacks required trait %s'),
                           ('any of %s', 'lacks any of %s')))
    for trait in group.forbidden:
        out.append(Constraint(
            'forbidden', 'no trait %s' % trait,
            'has forbidden trait %s' % trait,
            lambda rp, trait=trait: trait not in traits(rp)))
    for any_of in group.member_of:
        out.append(_any_of('aggregate', any_of, member_aggs,
                           ('aggregate %s', 'not in aggregate %s'),
                           ('any of aggregates %s',
                            'not in any of aggregates %s')))
    for agg in group.forbidden_aggs:
        out.append(Constraint(
            'aggregate', 'no aggregate %s' % agg,
            'in forbidden aggregate %s' % agg,
            lambda rp, agg=agg: agg not in aggs(rp)))
    return out
