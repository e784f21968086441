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

"""The rows of ``capacity fit``, typed, and their sum; pure.

A tree's row is a :class:`Fit`: what is shown (``fits``, ``at_most``,
``limited_by``) and, as data, what kind of range it is (:class:`Counted`),
what keeps its two ends apart (``gap``) and the sharing pools its copies
draw on (``draws``), which :func:`summary` reads; nothing is read back out
of the text of ``limited_by``. :class:`Reduced` is what the output needs
of a request's rows, kept in their place. :class:`Asked` is one request of the
command (the shape given, or a flavor's), and the ``limited_by`` texts of
a request without an answer are here too.
"""

import collections
import enum

# After the class of a count that is an upper bound, not exact.
UPPER_BOUND = ' (upper bound)'
# Between what bounds at_most and what keeps fits below it.
APART = '; fits below at_most: %s'
# The limited_by of a flavor without an answer: Placement refused its
# request, or gave no answer, or it was not asked for (not translated).
REFUSED = 'refused by Placement: %s'
NOT_ANSWERED = 'no answer from Placement: %s'
NOT_ASKED = 'not asked for: %s'
# limited_by of the cloud where a pool bounds the trees that share it.
POOL_BOUND = 'pool %s (shared by %d trees)'


class Counted(enum.Enum):
    """What kind of range the ``fits`` and ``at_most`` of a row are."""

    # fits == at_most: the count (0 where the tree is not a candidate).
    EXACT = 'exact'
    # fits is reachable, at_most a bound, and they differ (``gap``).
    RANGE = 'range'
    # Both are at most that many: a flavor's request lacks a part of
    # Nova's.
    UPPER_BOUND = 'upper bound'
    # No count (fits None): Placement's verdict is not known, or the
    # evaluation cannot explain it.
    NONE = 'none'


class Fit(collections.namedtuple('Fit', ['resource_provider', 'name',
                                         'fits', 'at_most', 'limited_by',
                                         'counted', 'gap', 'draws'])):
    """One tree's row of ``capacity fit``.

    ``limited_by``: what bounds ``at_most``, or why nothing fits, without
    any mark; ``counted``: a :class:`Counted`; ``gap``: what keeps
    ``fits`` below ``at_most``; ``draws``: the ``evaluation.Draw`` of
    each pool the tree's copies may take a class from.
    """

    __slots__ = ()

    def __new__(cls, resource_provider, name, fits, at_most, limited_by,
                counted, gap='', draws=()):
        return super().__new__(cls, resource_provider, name, fits, at_most,
                               limited_by, counted, gap, draws)

    def shown(self):
        """The row as printed: a bound marked, a gap said."""
        limited_by = self.limited_by
        if self.counted is Counted.UPPER_BOUND:
            limited_by += UPPER_BOUND
        elif self.counted is Counted.RANGE:
            limited_by += APART % self.gap
        return (self.resource_provider, self.name, self.fits, self.at_most,
                limited_by)


class Asked(collections.namedtuple('Asked', ['name', 'params', 'refused',
                                             'incomplete'])):
    """One request of ``capacity fit``: the shape given, or a flavor's.

    ``name``: the flavor's name (None for the shape of ``--resource``);
    ``params``: the candidates query, None where it cannot be asked for,
    and then ``refused`` says why; ``incomplete``: the request lacks a
    part of Nova's, so that a count is at most that many.
    """

    __slots__ = ()

    @property
    def flavored(self):
        """True for a flavor's request."""
        return self.name is not None


class Reduced(collections.namedtuple('Reduced', ['summary', 'shown'])):
    """What the output of one request needs of its :class:`Fit` rows.

    ``summary``: :func:`summary` of the rows; ``shown``: each row as
    printed (:meth:`Fit.shown`), or None where only the summary is
    shown. Made as soon as a request is counted, so that the typed rows
    (their gaps, draws, kinds) of many requests are never held at once.
    """

    __slots__ = ()

    @classmethod
    def of(cls, rows, keep_rows=True):
        """The :class:`Reduced` of a request's rows."""
        return cls(summary(rows),
                   [row.shown() for row in rows] if keep_rows else None)


def summary(rows):
    """(fits, at_most, trees, limited_by) over the :class:`Fit` rows.

    ``fits`` is reachable for the trees together and ``at_most`` a bound
    for them together: each sharing pool counted once. A tree whose
    copies draw on pools takes, in the order of the rows, what it
    reached alone or what the pools have left for it, whichever is less;
    the bound of the trees that every copy of which takes a class from
    one pool is at most what that pool has free for them. None when a
    tree's count is not known. ``trees``: how many take at least one.
    ``limited_by``: the class that bounds the most trees (marked where
    the sum holds a bound), or the pool that bounds them together; where
    nothing fits at all, the reason most trees give.
    """
    counts = [row.fits for row in rows]
    if None in counts:
        total = at_most = None
    else:
        total = _reachable(rows)
        at_most, pool = _bound(rows)
    bounding = [row.limited_by for row in rows if row.fits]
    limited_by = _commonest(bounding)
    if limited_by and any(row.fits and row.counted is Counted.UPPER_BOUND
                          for row in rows):
        limited_by += UPPER_BOUND
    if None not in counts and pool is not None:
        limited_by = POOL_BOUND % (pool.name, pool.trees)
    if not limited_by:
        # Nothing fits anywhere: why, as most trees say it (the first in
        # sorted order among equals), rather than an empty column.
        limited_by = _commonest([row.limited_by for row in rows
                                 if row.fits == 0 and row.limited_by])
    return (total, at_most, sum(1 for fits in counts if fits), limited_by)


def _reachable(rows):
    """The copies the trees place together, each pool shared out."""
    left = {}
    total = 0
    for row in rows:
        taken = row.fits
        for draw in row.draws:
            left.setdefault((draw.pool, draw.rc), draw.free)
            taken = min(taken, left[draw.pool, draw.rc] // draw.per_copy)
        for draw in row.draws:
            left[draw.pool, draw.rc] -= taken * draw.per_copy
        total += taken
    return total


def _bound(rows):
    """(at_most, the pool that bounds it or None) of the trees together.

    The sum of the trees' bounds; for each pool that some trees take a
    class from in every copy, those trees' part of the sum is at most
    what the pool has free for a copy's amount.
    """
    total = sum(row.at_most for row in rows)
    best, pool = total, None
    sole = {}
    for row in rows:
        for draw in row.draws:
            if draw.sole:
                sole.setdefault((draw.pool, draw.rc), (draw, []))[1].append(
                    row)
    for (_pool, _rc), (draw, sharing) in sorted(sole.items()):
        part = sum(row.at_most for row in sharing)
        capped = total - part + draw.free // draw.per_copy
        if capped < best:
            best, pool = capped, draw
    return best, pool


def _commonest(texts):
    """The text most often in ``texts``, the first sorted among equals.

    '' for none.
    """
    counts = collections.Counter(texts)
    most = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return most[0][0] if most else ''
