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

"""The write of an audit's fixes, checked against what is read just before.

:func:`consumer_writes`: the records of the one ``POST /allocations``
and those of the undo file, from the findings and the consumers read
again; a consumer that no longer needs its fix is left out and said.
:func:`aggregate_writes`: the new aggregates of each provider.
:func:`owner_suspects`: which servers' owners are worth reading, from
the usages of their project and user.
"""

import collections

from osc_placement import microversions
from osc_placement.model.audit import findings
from osc_placement.model import consumers

Action = findings.Action

# The consumer type of a server's allocations (Placement 1.38).
INSTANCE = 'INSTANCE'


def _nothing(rec):
    return {'allocations': {}} if not consumers.exists(rec) else rec


def _fixed(found, rec):
    """(the record to write for a finding, or None and why not)."""
    f = found.fix
    held = consumers.held(rec)
    if f.action is Action.CREATE:
        if held:
            return None, 'it holds allocations now'
        new = {'allocations': consumers.as_allocations(f.allocations),
               'project_id': f.owner[0], 'user_id': f.owner[1],
               consumers.GENERATION: None, consumers.TYPE: INSTANCE}
        return new, None
    if not held:
        return None, 'it holds nothing now'
    new = dict(rec)
    if f.action is Action.REMOVE:
        new['allocations'] = {}
    elif f.action is Action.REMOVE_PROVIDERS:
        if not set(f.providers) & set(held):
            return None, 'it holds nothing there now'
        new['allocations'] = consumers.as_allocations(
            {rp: amounts for rp, amounts in held.items()
             if rp not in f.providers})
    elif f.action is Action.SET_OWNER:
        new['project_id'], new['user_id'] = f.owner
    return new, None


def consumer_writes(found, now):
    """(writes, before, stale) of the consumer fixes among ``found``.

    ``now``: {consumer: record} read just before the write. ``writes``:
    {consumer: record to write, with the generation read};
    ``before``: {consumer: record now} (``{"allocations": {}}`` for one
    that holds nothing), what the undo file keeps; ``stale``:
    [(finding, why)] of fixes no longer needed.
    """
    writes, before, stale = {}, {}, []
    for f in found:
        if not f.fix.writes or f.fix.of_aggregates:
            continue
        rec = now[f.consumer]
        new, why = _fixed(f, rec)
        if new is None:
            stale.append((f, why))
            continue
        writes[f.consumer] = new
        before[f.consumer] = _nothing(rec)
    return writes, before, stale


def aggregate_writes(found, now):
    """{provider: (aggregates now, aggregates to write)}.

    ``now``: {provider: [aggregate]} read just before the write; only
    the providers whose aggregates change.
    """
    changes = collections.defaultdict(lambda: (set(), set()))
    for f in found:
        if f.fix.action is Action.ADD_AGGREGATE:
            changes[f.provider][0].add(f.fix.aggregate)
        elif f.fix.action is Action.REMOVE_AGGREGATE:
            changes[f.provider][1].add(f.fix.aggregate)
    result = {}
    for rp, (add, remove) in changes.items():
        current = list(now[rp])
        new = [agg for agg in current if agg not in remove] + sorted(
            add - set(current))
        if new != current:
            result[rp] = (current, new)
    return result


def aggregate_undo(writes, names):
    """The lines of the aggregates' undo: the commands that put them back.

    ``writes``: as :func:`aggregate_writes`; ``names``: {rp: name}.
    """
    lines = ['# The aggregates of these resource providers before '
             '"resource provider audit --fix"; each command puts them back',
             '# (give the generation that "resource provider aggregate '
             'list <uuid>" shows).']
    for rp, (current, _new) in sorted(writes.items()):
        lines.append('# %s' % names.get(rp, rp))
        lines.append(
            'openstack --os-placement-api-version %s resource provider '
            'aggregate set %s--generation <generation> %s' % (
                microversions.AGGREGATES_GENERATION, ''.join(
                    '--aggregate %s ' % agg for agg in current), rp))
    return '\n'.join(lines) + '\n'


def owner_suspects(cloud, usages):
    """The servers whose owner is worth reading: [uuid].

    ``usages``: {(project, user): {class: amount}} as Placement sums
    them (``GET /usages``). The servers of a pair whose usages differ
    from what their servers hold on the providers read: one of them may
    be held in another name (or an orphan in theirs, or allocations
    elsewhere; reading them tells).
    """
    expected = owner_pairs(cloud)
    suspects = []
    for pair, (held, servers) in sorted(expected.items(),
                                        key=lambda kv: str(kv[0])):
        used = {rc: amount for rc, amount in usages.get(pair, {}).items()
                if amount}
        if used != {rc: amount for rc, amount in held.items() if amount}:
            suspects.extend(servers)
    return suspects


def owner_pairs(cloud):
    """{(project, user): (their live servers' held sums, [server])}."""
    pairs = {}
    for uuid, found in cloud.servers.items():
        if found.deleted or found.unknown or uuid not in cloud.allocations:
            continue
        held, servers = pairs.setdefault(
            (found.project_id, found.user_id), (collections.Counter(), []))
        for amounts in cloud.allocations[uuid].values():
            held.update(amounts)
        servers.append(uuid)
    return pairs
