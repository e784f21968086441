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

"""An inventory record: its fields and Placement's rules about it, pure.

``FIELDS_SPEC`` declares the fields of a record once (meaning, range,
Placement's default); :func:`refusals` says why Placement would refuse a
record, :func:`usage_warnings` what a write does to the amounts in use.
``inventory set`` (its dry run and its warnings) and ``resource provider
reshape`` (its checks) judge records with them.
"""

from osc_placement import microversions
from osc_placement.model import amounts
from osc_placement.model import scalars
from osc_placement.model.text import printable

# Placement's largest allocation ratio (a single-precision float column).
MAX_RATIO = 3.40282e+38


class Field(object):
    """One field of an inventory record.

    ``kind``: int or float; ``lowest``: the smallest value Placement
    accepts for an integer field (its highest is ``scalars.MAX_INT``);
    ``default``: what Placement stores when a record leaves the field out.
    """

    def __init__(self, name, kind, meaning, required=False, lowest=1,
                 default=None):
        self.name = name
        self.kind = kind
        self.meaning = meaning
        self.required = required
        self.lowest = lowest
        self.default = default

    def refusal(self, value):
        """Why Placement's schema refuses ``value`` here, or None."""
        if self.kind is float:
            if value > MAX_RATIO:
                return '%s %s is above %g' % (self.name, value, MAX_RATIO)
            return None
        if not self.lowest <= value <= scalars.MAX_INT:
            return '%s %d is out of range (%d to %d)' % (
                self.name, value, self.lowest, scalars.MAX_INT)
        return None


# The fields of an inventory record, in the order of the output columns,
# with Placement's ranges and defaults (its inventory schema and handler).
FIELDS_SPEC = (
    Field('allocation_ratio', float,
          'Overcommit factor: the usable capacity is (total - reserved) '
          'times this ratio. With total 8 and ratio 16.0, 128 VCPU can be '
          'allocated.', default=1.0),
    Field('min_unit', int,
          'The smallest amount a single allocation may take.', default=1),
    Field('max_unit', int,
          'The largest amount a single allocation may take.',
          default=scalars.MAX_INT),
    Field('reserved', int,
          'The amount kept back for the provider\'s own use, never '
          'allocated.', lowest=0, default=0),
    Field('step_size', int,
          'Allocations must be a multiple of this amount (with 5: 5, 10, '
          '15, ...).', default=1),
    Field('total', int,
          'The amount of the resource the provider has.', required=True),
)
FIELDS_BY_NAME = {field.name: field for field in FIELDS_SPEC}
FIELDS = tuple(field.name for field in FIELDS_SPEC)


def complete(record):
    """The record as Placement stores it: fields left out take its defaults.

    A record without ``total`` stays without one (Placement refuses it).
    """
    full = {field.name: field.default for field in FIELDS_SPEC
            if field.default is not None}
    full.update(record)
    return full


def refusals(record, reserved_can_be_total):
    """Why Placement would refuse an inventory record: a list of rules.

    The rules of its inventory PUT: a ``total``; every field in its range
    (:meth:`Field.refusal`, the fields left out taking Placement's
    defaults); and a capacity ``int((total - reserved) *
    allocation_ratio)`` of at least 1, or from microversion
    ``RESERVED_CAN_BE_TOTAL`` (1.26) at least 0. (Placement does not
    compare ``min_unit``, ``max_unit`` and ``total``: it stores a
    ``min_unit`` above ``max_unit``.)
    """
    if 'total' not in record:
        return ['no total (Placement requires one)']
    full = complete(record)
    rules = [rule for rule in (field.refusal(full[field.name])
                               for field in FIELDS_SPEC) if rule]
    if rules:
        return rules
    # Placement truncates towards zero: int(x) < 0 is x <= -1, and
    # int(x) <= 0 is x < 1.
    product = amounts.unrounded(full)
    formula = ('capacity (total - reserved) * allocation_ratio = '
               '(%d - %d) * %s' % (full['total'], full['reserved'],
                                   full['allocation_ratio']))
    if reserved_can_be_total and product <= -1:
        rules.append(formula + ' is below 0')
    elif not reserved_can_be_total and product < 1:
        rules.append(formula + ' is below 1 (0 is accepted from '
                     '--os-placement-api-version %s)'
                     % microversions.RESERVED_CAN_BE_TOTAL)
    return rules


def lowers_capacity(current, inventories):
    """Whether the write lowers the capacity of a class already there."""
    return any(
        resource_class in current and 'total' in record
        and amounts.capacity(complete(record))
        < amounts.capacity(complete(current[resource_class]))
        for resource_class, record in inventories.items())


def usage_warnings(inventories, usages, replaces, skip=()):
    """What the write does to what is in use (rule D19): one text a class.

    A class whose usage would be above its new capacity (Placement
    accepts the write and only logs it; every new allocation of the
    class then fails), and, when the write ``replaces`` the whole
    inventory, a class in use that it leaves out (Placement refuses the
    write with HTTP 409). The classes in ``skip`` (records Placement
    refuses anyway) are not judged.
    """
    texts = []
    for resource_class, record in inventories.items():
        used = usages.get(resource_class, 0)
        if resource_class in skip or 'total' not in record or not used:
            continue
        new_capacity = amounts.capacity(complete(record))
        if used > new_capacity:
            texts.append(
                '%s has %d in use, more than its new capacity %d ((total - '
                'reserved) * allocation_ratio): Placement accepts the '
                'inventory, but no new allocation of %s fits until the '
                'usage is below it' % (
                    printable(resource_class), used, new_capacity,
                    printable(resource_class)))
    if replaces:
        for resource_class in sorted(usages):
            if usages[resource_class] and resource_class not in inventories:
                texts.append(
                    '%s has %d in use and the write would remove it: '
                    'Placement refuses that (HTTP 409); --amend keeps the '
                    'classes not given' % (printable(resource_class),
                                           usages[resource_class]))
    return texts
