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

A tree's row is a :class:`Fit`: what is shown (``fits``, ``limited_by``)
and, as data, what kind of count ``fits`` is (:class:`Counted`), which
:func:`summary` reads; nothing is read back out of the text of
``limited_by``. :class:`Asked` is one request of the command (the shape
given, or a flavor's), and the ``limited_by`` texts of a request without
an answer are here too.
"""

import collections
import enum

# After the class of a count that is an upper bound, not exact.
UPPER_BOUND = ' (upper bound)'
# The limited_by of a candidate tree of a request of several groups.
NOT_COUNTED = 'a candidate; not counted (the request has %d groups)'
# The limited_by of a flavor without an answer: Placement refused its
# request, or gave no answer, or it was not asked for (not translated).
REFUSED = 'refused by Placement: %s'
NOT_ANSWERED = 'no answer from Placement: %s'
NOT_ASKED = 'not asked for: %s'


class Counted(enum.Enum):
    """What kind of count the ``fits`` of a row is."""

    # fits is the count (0 where the tree is not a candidate).
    EXACT = 'exact'
    # fits is at most that many: the evaluation's count is a bound, or a
    # flavor's request lacks a part of Nova's.
    UPPER_BOUND = 'upper bound'
    # No count (fits None), but a candidate: it takes at least one (a
    # request of several groups, which the count does not take).
    AT_LEAST_ONE = 'at least one'
    # No count (fits None): Placement's verdict is not known, or the
    # evaluation cannot explain it.
    NONE = 'none'


class Fit(collections.namedtuple('Fit', ['resource_provider', 'name',
                                         'fits', 'limited_by', 'counted'])):
    """One tree's row of ``capacity fit``.

    ``limited_by``: the class that bounds the count, or why nothing
    fits, without any mark; ``counted``: a :class:`Counted`.
    """

    __slots__ = ()

    def shown(self):
        """The row as printed: an upper bound marked after its class."""
        limited_by = self.limited_by
        if self.counted is Counted.UPPER_BOUND:
            limited_by += UPPER_BOUND
        return (self.resource_provider, self.name, self.fits, limited_by)


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


def summary(rows):
    """(fits, trees, limited_by) over the :class:`Fit` rows of the trees.

    ``fits`` is None when a tree's count is not known. ``trees`` counts
    the candidates of a request of several groups too (each takes at
    least one). ``limited_by`` is the class that bounds the most trees (a
    bounded count counts for its class), marked as an upper bound when
    the sum holds any bound; where no tree is counted but some are such
    candidates, it says they are not counted; where nothing fits at all,
    it is the reason most trees give.
    """
    counts = [row.fits for row in rows]
    bounding = []
    bounded = False
    for row in rows:
        if row.fits:
            if row.counted is Counted.UPPER_BOUND:
                bounded = True
            bounding.append(row.limited_by)
    # A candidate of a request of several groups takes at least one, not
    # counted.
    uncounted = [row.limited_by for row in rows
                 if row.counted is Counted.AT_LEAST_ONE]
    total = None if None in counts else sum(counts)
    limited_by = _commonest(bounding)
    if bounded and limited_by:
        limited_by += UPPER_BOUND
    if uncounted and not limited_by:
        limited_by = uncounted[0]
    if not limited_by:
        # Nothing fits anywhere: why, as most trees say it (the first in
        # sorted order among equals), rather than an empty column.
        limited_by = _commonest([row.limited_by for row in rows
                                 if row.fits == 0 and row.limited_by])
    return (total, sum(1 for fits in counts if fits) + len(uncounted),
            limited_by)


def _commonest(texts):
    """The text most often in ``texts``, the first sorted among equals.

    '' for none.
    """
    counts = collections.Counter(texts)
    most = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return most[0][0] if most else ''
