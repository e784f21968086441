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

"""What a reshape changes, and why Placement would refuse it: pure.

``resource provider reshape`` sends a file in the shape of ``POST
/reshaper`` (``savefile.read_reshape``). A :class:`Plan` compares it with
the state read before it (the providers' inventories, generations and
usages, the consumers' records): ``rows()`` (``used/capacity`` per
provider and class before and after, then the amounts per consumer that
change), ``problems()`` (Placement's rules, in its order: what the dry run
refuses) and ``warnings()`` (what Placement accepts but should be said).
The inventory records are judged by the rules of ``inventory set``
(``model.inventories``).
"""

from osc_placement.model import amounts
from osc_placement.model import consumers
from osc_placement.model import inventories
from osc_placement.model.text import printable

# The columns of a reshape's rows.
FIELDS = ('resource_provider', 'resource_class', 'consumer_uuid', 'before',
          'after')


def full_record(record):
    """An inventory record with Placement's defaults for what it omits."""
    return {field.name: record.get(field.name, field.default)
            for field in inventories.FIELDS_SPEC}


def _capacity(record):
    """The capacity of a record, the fields it omits taking the defaults."""
    return amounts.capacity(full_record(record))


def _used_of(used, record):
    """``used/capacity`` of a class (the one text form), '' if absent."""
    if record is None:
        return ''
    return amounts.used_of_capacity(
        {'': {'used': used, 'capacity': _capacity(record)}}, sep='')[0]


class Plan(object):
    """What a reshape file changes, from the state read before it.

    ``inventories``: {rp: {class: record}} now, of every provider
    concerned; ``generations``: {rp: generation now}; ``usages``: {rp:
    {class: used}} now; ``now``: {consumer: record} now; ``missing``: the
    providers concerned that do not exist (none of the dicts has them).
    """

    @classmethod
    def of_states(cls, data, states, now):
        """The Plan of ``data`` from the states of the providers.

        ``states``: {rp: (generation, inventories, usages), or None for a
        provider that does not exist}, as
        ``api.allocations.read_provider_state`` reads them.
        """
        found = {rp: state for rp, state in states.items()
                 if state is not None}
        return cls(data, {rp: state[1] for rp, state in found.items()},
                   {rp: state[0] for rp, state in found.items()},
                   {rp: state[2] for rp, state in found.items()}, now,
                   [rp for rp, state in states.items() if state is None])

    def __init__(self, data, inventories, generations, usages, now,
                 missing=()):
        self.data = data
        self.missing = list(missing)
        self.file_inventories = {rp: entry['inventories'] for rp, entry
                                 in data['inventories'].items()}
        # A provider that does not exist has nothing yet: its rows show
        # the file's side only.
        self.inventories = dict({rp: {} for rp in missing}, **inventories)
        self.generations = dict({rp: None for rp in missing}, **generations)
        self.usages = dict({rp: {} for rp in missing}, **usages)
        self.now = now
        self.new_inventories = dict(self.inventories,
                                    **self.file_inventories)
        old = {}
        new = {}
        for consumer, entry in data['allocations'].items():
            old = consumers.added(old, consumers.held(now[consumer]))
            new = consumers.added(new, consumers.held(entry))
        self.old_amounts, self.new_amounts = old, new
        self.used_after = {}
        for rp in self.inventories:
            classes = set(self.usages[rp]) | set(old.get(rp, {})) | set(
                new.get(rp, {}))
            self.used_after[rp] = {
                rc: self.usages[rp].get(rc, 0) - old.get(rp, {}).get(rc, 0)
                + new.get(rp, {}).get(rc, 0) for rc in classes}

    def rows(self):
        """Inventory rows (used/capacity), then allocation rows."""
        rows = []
        for rp, records in self.file_inventories.items():
            before = self.inventories[rp]
            for rc in list(before) + [rc for rc in records
                                      if rc not in before]:
                old = _used_of(self.usages[rp].get(rc, 0), before.get(rc))
                new = _used_of(self.used_after[rp].get(rc, 0),
                               records.get(rc))
                if old != new or (rc in records and full_record(
                        records[rc]) != full_record(before.get(rc, {}))):
                    rows.append((rp, rc, '', old, new))
        for consumer, entry in self.data['allocations'].items():
            old, new = consumers.held(self.now[consumer]), \
                consumers.held(entry)
            for rp in list(old) + [rp for rp in new if rp not in old]:
                held_old, held_new = old.get(rp, {}), new.get(rp, {})
                for rc in list(held_old) + [rc for rc in held_new
                                            if rc not in held_old]:
                    if held_old.get(rc) != held_new.get(rc):
                        rows.append((rp, rc, consumer,
                                     held_old.get(rc, ''),
                                     held_new.get(rc, '')))
        return rows

    def problems(self):
        """Why Placement would refuse the reshape: one line each.

        Its rules, in the order it meets them: the providers (they exist,
        their generations), the inventory records (the rules of ``inventory
        set``'s dry run), the consumers' generations, then the allocations
        (:meth:`allocation_problems`).
        """
        found = ['resource provider %s does not exist' % rp
                 for rp in self.missing]
        for rp, entry in self.data['inventories'].items():
            if rp in self.missing:
                continue
            if entry['resource_provider_generation'] != self.generations[rp]:
                found.append(
                    'resource provider %s: generation %s in the file, %s now'
                    % (rp, entry['resource_provider_generation'],
                       self.generations[rp]))
            for rc, record in entry['inventories'].items():
                rules = inventories.refusals(record, True)
                if rules:
                    found.append('resource provider %s: inventory of %s: %s'
                                 % (rp, printable(rc), '; '.join(rules)))
        for consumer, entry in self.data['allocations'].items():
            now = self.now[consumer].get(consumers.GENERATION)
            if entry['consumer_generation'] != now:
                found.append('consumer %s: generation %s in the file, %s now'
                             % (consumer, _shown(entry['consumer_generation']),
                                _shown(now)))
        return found + self.allocation_problems(with_missing=False)

    def allocation_problems(self, with_missing=True):
        """Why Placement would refuse the allocations: one line each.

        A provider that does not exist (unless ``with_missing`` is False:
        :meth:`problems` said it first); each allocation against the new
        inventory (the class is there; min_unit, max_unit, step_size; the
        capacity, unless the provider was already over it and the write
        makes that no worse), and no class removed that stays allocated.
        The checks of ``allocation restore`` too.
        """
        found = ['resource provider %s does not exist' % rp
                 for rp in self.missing] if with_missing else []
        for consumer, entry in self.data['allocations'].items():
            for rp, resources in consumers.held(entry).items():
                if rp in self.missing:
                    continue
                for rc, amount in resources.items():
                    record = self.new_inventories[rp].get(rc)
                    if record is None:
                        found.append(
                            'consumer %s: resource provider %s has no %s '
                            'inventory' % (consumer, rp, printable(rc)))
                        continue
                    full = full_record(record)
                    if not (full['min_unit'] <= amount <= full['max_unit']
                            and amount % full['step_size'] == 0):
                        found.append(
                            'consumer %s: %s=%d on resource provider %s is '
                            'outside min_unit %d, max_unit %d, step_size %d'
                            % (consumer, printable(rc), amount, rp,
                               full['min_unit'], full['max_unit'],
                               full['step_size']))
        for rp, resources in self.new_amounts.items():
            if rp in self.missing:
                continue
            for rc in resources:
                record = self.new_inventories[rp].get(rc)
                if record is None:
                    continue
                used = self.used_after[rp][rc]
                if used > _capacity(record) and \
                        used > self.usages[rp].get(rc, 0):
                    found.append(
                        'resource provider %s: %s would be used %d of a '
                        'capacity of %d' % (rp, printable(rc), used,
                                            _capacity(record)))
        for rp, records in self.file_inventories.items():
            for rc in self.inventories[rp]:
                used = self.used_after[rp].get(rc, 0)
                if rc not in records and used > 0:
                    found.append(
                        'resource provider %s: %s leaves the inventory but '
                        '%d stay allocated (inventory in use)'
                        % (rp, printable(rc), used))
        return found

    def warnings(self):
        """Capacities lowered below what stays in use: Placement accepts.

        As ``inventory set`` warns (its rule D19): new allocations of
        that class then fail.
        """
        found = []
        for rp, records in self.file_inventories.items():
            for rc, record in records.items():
                used = self.used_after[rp].get(rc, 0)
                if rc not in self.new_amounts.get(rp, {}) and \
                        used > _capacity(record):
                    found.append(
                        'resource provider %s: %s stays used %d, above its '
                        'new capacity %d' % (rp, printable(rc), used,
                                             _capacity(record)))
        return found


def _shown(generation):
    """A generation as the file writes it: ``null`` for a new consumer."""
    return 'null' if generation is None else generation


def unknown_classes(data, known):
    """The resource classes of a reshape file Placement does not have.

    One line each, in the file's order: Placement refuses the whole
    reshape for the first it meets. ``known``: the names it has.
    """
    found = []
    for rp, entry in data['inventories'].items():
        for rc in entry['inventories']:
            if rc not in known:
                found.append('resource provider %s: no resource class %s '
                             '(create it with "openstack resource class '
                             'create %s")' % (rp, printable(rc),
                                              printable(rc)))
    for consumer, entry in data['allocations'].items():
        for rp, resources in consumers.held(entry).items():
            for rc in resources:
                if rc not in known:
                    found.append('consumer %s: resource provider %s: no '
                                 'resource class %s' % (consumer, rp,
                                                        printable(rc)))
    return found
