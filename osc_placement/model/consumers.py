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

"""Consumers written together: the records, their sums and differences.

The commands that write several consumers in one request (``allocation
move``, ``allocation restore``, ``resource provider reshape``) share what
is here, all of it pure (no request):

* a consumer *record* is the entry of one consumer in the body of ``POST
  /allocations`` (and of ``POST /reshaper``): ``allocations`` ({provider:
  {'resources': {class: amount}}}), ``project_id``, ``user_id``,
  ``consumer_generation`` (from 1.28) and ``consumer_type`` (from 1.38).
  :func:`record` makes one from the answer to ``GET /allocations/<c>``;
* :func:`held`, :func:`added` and :func:`taken` compute amounts;
  :func:`diff` says, per provider, what a write changes;
* :func:`body` writes the entries of one request at a microversion, and
  says when a consumer type cannot be written (``unknown``, or none):
  the request is then sent at 1.37, where the types stay as they are.
"""

# Placement's type of a consumer written before 1.38; it cannot be written
# back (the type pattern is upper case).
UNKNOWN_TYPE = 'unknown'

# The fields of a record besides its allocations, in the order of the body.
OWNER = ('project_id', 'user_id')
GENERATION = 'consumer_generation'
TYPE = 'consumer_type'


def record(payload):
    """The record of a consumer from its ``GET /allocations/<c>`` body.

    The providers' generations that the answer carries are left out; a
    consumer without allocations has the generation None (Placement forgets
    a consumer with its last allocation).
    """
    result = {'allocations': {
        rp: {'resources': dict(held['resources'])}
        for rp, held in payload['allocations'].items()}}
    for name in OWNER:
        if name in payload:
            result[name] = payload[name]
    if GENERATION in payload:
        result[GENERATION] = payload[GENERATION] if result[
            'allocations'] else None
    if TYPE in payload:
        result[TYPE] = payload[TYPE]
    return result


def exists(rec):
    """Whether the consumer holds anything (Placement knows it)."""
    return bool(rec and rec['allocations'])


def held(rec):
    """{provider: {class: amount}} of a record (empty for None)."""
    if not rec:
        return {}
    return {rp: dict(alloc['resources'])
            for rp, alloc in rec['allocations'].items()}


def as_allocations(amounts):
    """{provider: {class: amount}} as the ``allocations`` of a record."""
    return {rp: {'resources': dict(resources)}
            for rp, resources in amounts.items() if resources}


def added(first, second):
    """``first`` plus ``second``, summed per provider and class."""
    total = {rp: dict(resources) for rp, resources in first.items()}
    for rp, resources in second.items():
        into = total.setdefault(rp, {})
        for rc, amount in resources.items():
            into[rc] = into.get(rc, 0) + amount
    return total


def taken(amounts, rps):
    """(the amounts on the providers ``rps``, what is left elsewhere)."""
    chosen = {rp: dict(res) for rp, res in amounts.items() if rp in rps}
    rest = {rp: dict(res) for rp, res in amounts.items() if rp not in rps}
    return chosen, rest


def diff(before, after):
    """[(provider, change, resources before, resources after)].

    ``before`` and ``after``: {provider: {class: amount}}. ``change`` is
    ``added``, ``removed`` or ``changed``; providers whose amounts stay
    are left out. In provider order of ``before``, then the new ones.
    """
    rows = []
    for rp in list(before) + [rp for rp in after if rp not in before]:
        old, new = before.get(rp), after.get(rp)
        if old == new:
            continue
        change = 'added' if not old else 'removed' if not new else 'changed'
        rows.append((rp, change, old or {}, new or {}))
    return rows


def same(first, second):
    """Whether two records hold the same allocations for the same owner."""
    return held(first) == held(second) and all(
        (first or {}).get(name) == (second or {}).get(name)
        for name in OWNER)


def typed(rec):
    """Whether the record's consumer type can be written (1.38+)."""
    value = rec.get(TYPE)
    return isinstance(value, str) and value != UNKNOWN_TYPE


def body(records, with_generation, with_type):
    """The ``{consumer: entry}`` of one write, and whether types went in.

    ``records``: {consumer: record with the generation to send}.
    ``with_generation``: the write is at 1.28 or later; ``with_type``: at
    1.38 or later. A 1.38 write needs a type for every consumer: when one
    has none that can be written, no type is sent (``types_sent`` False)
    and the caller sends the request at 1.37, which leaves every type as it
    is.
    """
    types_sent = with_type and all(typed(rec) for rec in records.values())
    entries = {}
    for consumer, rec in records.items():
        entry = {'allocations': {rp: {'resources': dict(a['resources'])}
                                 for rp, a in rec['allocations'].items()}}
        for name in OWNER:
            entry[name] = rec.get(name)
        if with_generation:
            entry[GENERATION] = rec.get(GENERATION)
        if types_sent:
            entry[TYPE] = rec[TYPE]
        entries[consumer] = entry
    return entries, types_sent


def untyped(records):
    """The consumers whose type cannot be written, in record order."""
    return [consumer for consumer, rec in records.items()
            if not typed(rec)]
