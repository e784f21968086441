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
  :func:`diff` says, per provider, what a write changes, and
  :func:`change_rows` shows it;
* :func:`body` writes the entries of one request at a microversion, and
  says when a consumer type cannot be written (``unknown``, or none):
  the request is then sent at ``WITHOUT_TYPES`` (1.37), where the types
  stay as they are;
* :func:`moved` and :func:`restoring` decide what ``allocation move``
  and ``allocation restore`` write (:func:`allocations_text` says what a
  move replaced); :func:`shown` and :func:`without` are the rows and the
  edit of the commands about one consumer.
"""

from osc_placement import microversions
from osc_placement import version

# Placement's type of a consumer written before consumer types; it cannot
# be written back (the type pattern is upper case).
UNKNOWN_TYPE = 'unknown'
# The last microversion without consumer types: a write at it leaves the
# type of every consumer as it is (a new consumer gets none).
WITHOUT_TYPES = version.before(microversions.CONSUMER_TYPES)

# The fields of a record besides its allocations, in the order of the body.
OWNER = ('project_id', 'user_id')
GENERATION = 'consumer_generation'
TYPE = 'consumer_type'

# The consumer's owner columns, each with the microversion that shows it.
OWNER_FIELDS = (
    ('project_id', microversions.DICT_ALLOCATIONS),
    ('user_id', microversions.DICT_ALLOCATIONS),
    ('consumer_type', microversions.CONSUMER_TYPES),
)
# The columns of a consumer's allocations, one row per provider.
CONSUMER_FIELDS = (
    ('resource_provider', None),
    ('generation', None),
    ('resources', None),
) + OWNER_FIELDS
# The columns of what a write of several consumers changes.
CHANGE_FIELDS = ('consumer_uuid', 'resource_provider', 'change', 'before',
                 'after')


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
    and the caller sends the request at ``WITHOUT_TYPES``, which leaves
    every type as it is.
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


def with_type_of(rec, now):
    """``rec``, taking the type of ``now`` when it has none to write.

    A record of a file without a type (or with ``unknown``) keeps the one
    the consumer has now, if that one can be written.
    """
    rec = dict(rec)
    if not typed(rec) and typed(now):
        rec[TYPE] = now[TYPE]
    return rec


def shown(payload, fields):
    """The rows of ``allocation show`` from a ``GET /allocations/<c>`` body.

    One row per provider, the ``fields`` of each (its generation and
    resources, the consumer's owner): '' for a field the body lacks.
    """
    shared = {name: payload.get(name) for name, _since in OWNER_FIELDS}
    rows = []
    for rp, held_there in payload['allocations'].items():
        row = dict(shared, resource_provider=rp)
        row.update(held_there)
        rows.append(tuple(row[name] if name in row else ''
                          for name in fields))
    return rows


def without(allocations, rps, classes):
    """What remains of ``allocations`` once ``allocation unset`` applies.

    ``allocations``: {provider: {'resources': ..., ...}}; ``rps``: the
    providers concerned (all when empty); ``classes``: the classes removed
    from them (whole providers when empty).
    """
    if not classes:
        if not rps:
            return {}
        return {rp: kept for rp, kept in allocations.items()
                if rp not in rps}
    remaining = {}
    for rp, kept in allocations.items():
        if not rps or rp in rps:
            resources = {rc: amount
                         for rc, amount in kept['resources'].items()
                         if rc not in classes}
            if not resources:
                continue
            kept = dict(kept, resources=resources)
        remaining[rp] = kept
    return remaining


def owner_text(rec):
    """'<project>/<user>[/<type>]' of a record."""
    return '/'.join(str(rec[name]) for name in OWNER + (TYPE,)
                    if rec.get(name) is not None)


def change_rows(before, after):
    """The rows of CHANGE_FIELDS: per consumer and provider, what changes.

    ``before``, ``after``: {consumer: record or None}, in the order to
    show. A consumer whose owner (project, user, type) changes but not its
    amounts gets one row ``owner``, with the owner before and after.
    """
    rows = []
    for consumer, new in after.items():
        old = before.get(consumer)
        found = diff(held(old), held(new))
        rows.extend((consumer, rp, change, old_res, new_res)
                    for rp, change, old_res, new_res in found)
        if not found and exists(old) and owner_text(old) != owner_text(new):
            rows.append((consumer, '', 'owner', owner_text(old),
                         owner_text(new)))
    return rows


def moved(source, target, rps, given, summed=False):
    """What ``allocation move`` writes: (source's, target's, replaced).

    ``source``, ``target``: the records read; ``rps``: the providers whose
    allocations move (every one of the source's when empty); ``given``:
    the owner the user gave ({'project_id', 'user_id', 'consumer_type'},
    None where not given).

    As Nova's ``move_allocations``, the target's allocations become the
    source's: all of them (the target lets go of providers the source
    does not hold), or with ``rps`` those on these providers (the target
    keeps the others). ``replaced``: {provider: {class: amount}} the
    target held that the source's replace, for the command to say.
    ``summed`` (``--sum``) adds the source's to the target's instead, and
    replaces nothing. The target keeps its owner, or takes the source's
    when it holds nothing; each keeps its generation.

    A write at 1.38 needs a type for every consumer in it: a source left
    with nothing and none that can be written (it was written before
    1.38) is sent with the type given for the target, so that the type
    is written rather than the request sent at ``WITHOUT_TYPES``, which
    would drop it; Placement deletes that consumer in the same request.
    A source that keeps allocations keeps its type, none: the command
    refuses the type given then.
    """
    source_held, target_held = held(source), held(target)
    moving, kept = taken(source_held, set(rps) if rps else set(source_held))
    if summed:
        replaced, untouched = {}, target_held
    else:
        replaced, untouched = taken(
            target_held, set(rps) if rps else set(target_held))
    owner = target if exists(target) else source
    new_target = {
        'allocations': as_allocations(added(untouched, moving)),
        'project_id': given['project_id'] or owner.get('project_id'),
        'user_id': given['user_id'] or owner.get('user_id'),
        GENERATION: target.get(GENERATION),
    }
    if given[TYPE] or TYPE in owner:
        new_target[TYPE] = given[TYPE] or owner.get(TYPE)
    new_source = dict(source, allocations=as_allocations(kept))
    if given[TYPE] and not kept and not typed(new_source):
        new_source[TYPE] = given[TYPE]
    return new_source, new_target, replaced


def allocations_text(amounts):
    """'rp=<uuid>,<class>=<amount>,...' per provider, as ``--allocation``.

    ``amounts``: {provider: {class: amount}}; providers and classes
    sorted, so that the same amounts always read the same.
    """
    return ' '.join(
        'rp=%s,%s' % (rp, ','.join('%s=%s' % (rc, amount) for rc, amount
                                   in sorted(amounts[rp].items())))
        for rp in sorted(amounts))


def changed_since(saved, now, by_generation, written=None):
    """Why a consumer counts as changed since the save, or None.

    ``by_generation``: the file and the live version carry generations
    (1.28): a generation other than the saved one is a change; otherwise,
    other allocations (or owner) than the saved ones are. A consumer that
    holds nothing now has not changed. ``written``: what the command
    that saved it wrote just after (an undo file's): a consumer that
    holds just that, at the generation that write gave it, has changed
    by that write alone.
    """
    if not exists(now):
        return None
    if written is not None:
        expected = written.get(GENERATION)
        if same(written, now) and (not by_generation or expected is None
                                   or now.get(GENERATION) == expected):
            return None
        if by_generation and expected is not None:
            return 'generation %s after the write the file undoes, %s ' \
                'now' % (expected, now.get(GENERATION))
        return 'it holds other allocations than the write the file ' \
            'undoes left'
    if by_generation:
        was = saved.get(GENERATION)
        if now.get(GENERATION) == was:
            return None
        return 'generation %s in the file, %s now' % (
            'none' if was is None else was, now[GENERATION])
    if same(saved, now):
        return None
    return 'it holds other allocations than the file says'


def restoring(saved, now, by_generation, types_written, written=None):
    """What ``allocation restore`` writes: (records, refused, before).

    ``saved``: {consumer: entry of the file}; ``now``: {consumer: record
    read now}. ``records``: {consumer: record to write, with the
    generation read now} of the consumers that differ from the file (a
    type differs only when ``types_written``, the live version writes
    types); ``before``: their records now; ``refused``: [(consumer, why,
    record now)] of those changed since the save (:func:`changed_since`;
    ``written``: an undo file's, {consumer: the record written after the
    save}).
    """
    written = written or {}
    records, refused, before = {}, [], {}
    for consumer, entry in saved.items():
        current = now[consumer]
        rec = with_type_of(entry, current)
        if same(entry, current) and (
                rec.get(TYPE) == current.get(TYPE) or not types_written):
            continue
        why = changed_since(entry, current, by_generation,
                            written.get(consumer))
        if why:
            refused.append((consumer, why, current))
        if not rec['allocations']:
            # Saved holding nothing: what it holds now is removed, by its
            # owner now (the write needs one).
            rec.update({name: current.get(name) for name in OWNER})
        rec[GENERATION] = current.get(GENERATION)
        records[consumer] = rec
        before[consumer] = current
    return records, refused, before
