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

"""What a drain plan starts from, as typed values: a cloud's trees.

Pure: the command reads Placement (and Nova, when in the catalog) and
builds these values; ``search.plan()`` takes a :class:`Cloud` and says
where each consumer of the drained trees would go. Amounts are ints, as
Placement's; a provider's capacity of a class is Placement's
``(total - reserved) * allocation_ratio`` rounded down
(``model/amounts.py``).
"""

import dataclasses
import typing

from osc_placement.model import amounts

# Placement's largest integer (max_unit's default).
MAX_INT = 2147483647

# Traits that decide what a provider is.
COMPUTE_NODE = 'COMPUTE_NODE'
SHARING = 'MISC_SHARES_VIA_AGGREGATE'
DISABLED = 'COMPUTE_STATUS_DISABLED'

# The class the targets are sorted by, emptiest first (Nova's RAM weigher).
MEMORY_MB = 'MEMORY_MB'


@dataclasses.dataclass(frozen=True)
class Inventory:
    """One class of inventory of a provider, as Placement holds it.

    ``total``, ``reserved``: the amounts of the record; an allocation of
    this class is an amount within ``min_unit``..``max_unit`` and a
    multiple of ``step_size``; ``allocation_ratio``: the overcommit
    factor of ``total - reserved``.
    """

    total: int
    reserved: int = 0
    min_unit: int = 1
    max_unit: int = MAX_INT
    step_size: int = 1
    allocation_ratio: float = 1.0

    @property
    def capacity(self):
        """What every consumer together may hold: Placement's formula."""
        return amounts.capacity({'total': self.total,
                                 'reserved': self.reserved,
                                 'allocation_ratio': self.allocation_ratio})

    def accepts(self, amount):
        """Whether one allocation of ``amount`` obeys the unit rules."""
        return (self.min_unit <= amount <= self.max_unit
                and amount % self.step_size == 0)


@dataclasses.dataclass(frozen=True)
class Provider:
    """A resource provider and what it holds now.

    ``root``: the UUID of its tree's root (its own for a root);
    ``parent``: its parent's UUID, None for a root; ``traits``,
    ``aggregates``: frozensets of names and UUIDs; ``inventories``:
    {class: :class:`Inventory`}; ``used``: {class: amount allocated now,
    by every consumer} (a class absent is 0).
    """

    uuid: str
    name: str
    root: str
    parent: typing.Optional[str]
    traits: frozenset = frozenset()
    aggregates: frozenset = frozenset()
    inventories: typing.Mapping[str, Inventory] = dataclasses.field(
        default_factory=dict)
    used: typing.Mapping[str, int] = dataclasses.field(default_factory=dict)

    @property
    def sharing(self):
        """Whether it shares its inventory with its aggregates' trees."""
        return SHARING in self.traits

    def free(self, resource_class):
        """Capacity left of a class now: 0 where it has no inventory."""
        inventory = self.inventories.get(resource_class)
        if inventory is None:
            return 0
        return inventory.capacity - self.used.get(resource_class, 0)


@dataclasses.dataclass(frozen=True)
class Need:
    """What the provider a part of a consumer lands on must have.

    ``required``: traits it must have; ``forbidden``: traits it must not
    have (frozensets of names).
    """

    required: frozenset = frozenset()
    forbidden: frozenset = frozenset()

    def met_by(self, traits):
        """Whether a provider with these traits satisfies the need."""
        return self.required <= traits and not (self.forbidden & traits)


@dataclasses.dataclass(frozen=True)
class Consumer:
    """A consumer holding allocations on a drained tree.

    ``allocations``: ALL it holds, {provider UUID: {class: amount}} (as
    ``GET /allocations/{uuid}``, drained trees or not); ``generation``,
    ``project_id``, ``user_id``, ``consumer_type``: what a
    ``POST /allocations`` of it sends back; ``needs``: {source provider
    UUID: :class:`Need`}, the traits the provider its part on that source
    lands on must have or not have; ``member_of``: a tuple of frozensets
    of aggregate UUIDs, the target root must be in one of each (an AND of
    ORs, as Placement's ``member_of``); ``stays``: why the command leaves
    it as it is (a task state, a migration in progress, an orphan...),
    None when it may move: the plan moves none that stays and shows this
    text as its reason; ``server``: the ``server`` column ('name
    (STATUS)', or '').
    """

    uuid: str
    allocations: typing.Mapping[str, typing.Mapping[str, int]]
    generation: typing.Optional[int] = None
    project_id: typing.Optional[str] = None
    user_id: typing.Optional[str] = None
    consumer_type: typing.Optional[str] = None
    needs: typing.Mapping[str, Need] = dataclasses.field(
        default_factory=dict)
    member_of: typing.Tuple[frozenset, ...] = ()
    stays: typing.Optional[str] = None
    server: str = ''

    def in_aggregates(self, aggregates):
        """Whether a root in these aggregates meets ``member_of``."""
        return all(group & aggregates for group in self.member_of)


@dataclasses.dataclass(frozen=True)
class Cloud:
    """Everything a plan reads.

    ``providers``: {UUID: :class:`Provider`}, every provider of the
    drained trees, of the candidate target trees, and every sharing
    provider a consumer holds; ``drained``: the UUIDs of the roots being
    emptied; ``targets``: the UUIDs of the roots that may receive (the
    command has left out the drained, the disabled and the ones
    ``--target`` and ``--target-aggregate`` exclude); ``consumers``: each
    consumer holding allocations on a drained tree, once;
    ``aggregate_names``: {aggregate UUID: the name reasons show for it
    (an availability zone's, a host aggregate's)}, optional: an aggregate
    without one is shown by its UUID.
    """

    providers: typing.Mapping[str, Provider]
    drained: typing.Sequence[str]
    targets: typing.Sequence[str]
    consumers: typing.Sequence[Consumer]
    aggregate_names: typing.Mapping[str, str] = dataclasses.field(
        default_factory=dict)

    def tree(self, root):
        """The providers of the tree of ``root``, the root first."""
        found = [p for p in self.providers.values()
                 if p.root == root and p.uuid != root]
        return [self.providers[root]] + sorted(found, key=_name_order)


def _name_order(provider):
    return (provider.name, provider.uuid)
