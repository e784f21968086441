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

"""What an audit finds: typed findings, their fix, their rows.

A :class:`Finding` has a :class:`Kind`, the provider and consumer it is
about, the server (or None), one sentence of evidence and a :class:`Fix`
(an :class:`Action` and what it needs, or why there is none). The
command's rows (:func:`rows`) are derived from them in a stable order:
kind, then provider list order, then consumer.
"""

import collections
import enum

from osc_placement.model import amounts as amounts_lib


class Kind(enum.Enum):
    """The kinds of finding, in the order of the rows."""

    MIGRATION = 'migration'
    EVACUATED = 'evacuated'
    WRONG_HOST = 'wrong-host'
    ORPHAN = 'orphan'
    MISSING = 'missing'
    OWNER = 'owner'
    FLAVOR = 'flavor'
    AGGREGATE = 'aggregate'
    PROVIDER = 'provider'


KINDS = tuple(kind.value for kind in Kind)

# The kinds whose rules need the hypervisors' list.
NEED_HYPERVISORS = frozenset((Kind.EVACUATED, Kind.WRONG_HOST, Kind.MISSING,
                              Kind.AGGREGATE, Kind.PROVIDER))


class Action(enum.Enum):
    """What ``--fix`` does about a finding."""

    NONE = 'none'
    REMOVE = 'remove'              # every allocation of the consumer
    REMOVE_PROVIDERS = 'remove-providers'   # its part on ``providers``
    CREATE = 'create'              # ``allocations`` for a new consumer
    SET_OWNER = 'set-owner'        # its project and user: ``owner``
    ADD_AGGREGATE = 'add-aggregate'
    REMOVE_AGGREGATE = 'remove-aggregate'


class Fix(collections.namedtuple('Fix', (
        'action reason providers allocations owner aggregate'))):
    """A fix: an :class:`Action` and what it needs, or why none."""

    __slots__ = ()

    @property
    def writes(self):
        return self.action is not Action.NONE

    @property
    def of_aggregates(self):
        return self.action in (Action.ADD_AGGREGATE, Action.REMOVE_AGGREGATE)


def fix(action, reason=None, providers=(), allocations=None, owner=None,
        aggregate=None):
    return Fix(action, reason, tuple(providers), allocations, owner,
               aggregate)


def none(reason):
    """No fix, and why."""
    return fix(Action.NONE, reason=reason)


class Finding(collections.namedtuple('Finding', (
        'kind provider consumer server detail fix'))):
    """One row: ``provider`` a UUID (or None), ``server`` a Server."""

    __slots__ = ()


def fix_text(found, name):
    """The ``fix`` column: what ``--fix`` does, or 'none: <why>'.

    ``name(rp)``: a provider's name.
    """
    f = found.fix
    if f.action is Action.NONE:
        return 'none: %s' % f.reason
    if f.action is Action.REMOVE:
        return 'remove its allocations'
    if f.action is Action.REMOVE_PROVIDERS:
        return 'remove its allocations on %s' % ', '.join(
            name(rp) for rp in f.providers)
    if f.action is Action.CREATE:
        return 'allocate %s' % '; '.join(
            '%s on %s' % (amounts_lib.text(amounts), name(rp))
            for rp, amounts in sorted(f.allocations.items()))
    if f.action is Action.SET_OWNER:
        return 'set project %s and user %s' % f.owner
    if f.action is Action.ADD_AGGREGATE:
        return 'add aggregate %s' % f.aggregate
    return 'remove aggregate %s' % f.aggregate


FIELDS = ('problem', 'resource_provider', 'consumer', 'server', 'detail',
          'fix')


def ordered(found, order):
    """``found`` sorted: kind, provider order (``order(rp)``), consumer."""
    ranks = {kind: i for i, kind in enumerate(Kind)}
    return sorted(found, key=lambda f: (
        ranks[f.kind], order(f.provider), f.consumer or '',
        f.fix.aggregate or ''))


def rows(found, name, done=False):
    """The rows of ``found`` (ordered already), as ``FIELDS``.

    ``name(rp)``: a provider's name; ``done``: the fixes were written,
    and the ``fix`` column says so.
    """
    result = []
    for f in found:
        text = fix_text(f, name)
        if done and f.fix.writes:
            text = 'done: ' + text
        result.append((f.kind.value, name(f.provider) if f.provider else '',
                       f.consumer or '', f.server.shown() if f.server else '',
                       f.detail, text))
    return result
