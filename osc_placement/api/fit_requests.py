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

"""What ``capacity fit`` asks Placement, and the count of each tree.

The requests of a run (``fit_rows.Asked``: the shape given, or each
flavor's) are sent as one batch of candidates requests
(:func:`ask_each`), each answer cut down as it arrives
(``verdicts.ask()``); once the trees are read, :func:`count_each` takes
one request at a time, as the output asks for it: settles its answer
(``verdicts.settle()``), gives
each tree its ``fit_rows.Fit`` (Placement's verdict, the reason of the
local evaluation where it agrees, and the range of the count:
``evaluation.fit()``) and reduces them to what the output needs before
the next request is evaluated.
"""

import threading

from osc_lib import exceptions

from osc_placement.api import verdicts
from osc_placement.model import batch_names
from osc_placement.model import evaluation
from osc_placement.model import fit_rows

# What the report of a failed request says was done to its flavor.
ASKED = 'ask Placement for'

# The trees of the candidates answers in flight at once, together. The
# bound was set when each answer was parsed whole (some 10 KB per tree it
# names, on Placement 1.39); answers are now cut down as they arrive
# (verdicts.Answer.read()), and it is kept: on 2,000 trees (10,000
# providers) one answer at a time; on 100 trees, the batch's own
# parallelism.
ANSWERS_TREES_IN_FLIGHT = 1000

# The filters of capacity fit that select the trees (the others shape the
# request only).
SELECTING = ('member_of', 'in_tree')


def selection(asked):
    """The query of the provider list that selects the trees to count.

    The ``member_of`` and ``in_tree`` of the first request that can be
    asked for (from ``--member-of``, ``--availability-zone`` and
    ``--in-tree``), as the provider list selects providers in ``capacity
    list``: the same for every flavor.
    """
    first = next((one.params for one in asked if one.params is not None),
                 [])
    return [(name, value) for name, value in first if name in SELECTING]


def failed(exc):
    """The limited_by of a candidates request that failed with ``exc``."""
    if isinstance(exc, exceptions.ClientException):
        return fit_rows.REFUSED % exc
    return fit_rows.NOT_ANSWERED % exc


def ask_each(runner, http, trees, asked):
    """({index: verdicts.Answer}, {index: limited_by}) of the requests.

    One candidates request per request that can be asked for, several in
    flight (``runner.each()``, the batch of ``'flavor'``), as few as
    ``ANSWERS_TREES_IN_FLIGHT`` allows for the number of trees: a big
    cloud's answers are asked for one at a time. With one request,
    its failure is the command's error; with several, each failure is
    reported after the rows. The second dict holds why each request
    without an answer has none (not asked for, refused, no answer).
    """
    failures = {index: fit_rows.NOT_ASKED % one.refused
                for index, one in enumerate(asked)
                if one.refused is not None}

    def ask(index):
        one = asked[index]
        if one.refused is not None:
            # Reported with the others; its line names the flavor once.
            raise exceptions.CommandError(one.refused)
        try:
            return verdicts.ask(http, trees, one.params)
        except (exceptions.ClientException,
                exceptions.CommandError) as exc:
            # Kept for the row; the batch reports it.
            failures[index] = failed(exc)
            raise

    answers = dict(runner.each(
        http, bounded(ask, len(trees.roots)), list(range(len(asked))),
        batch_names.FLAVORS,
        key=lambda index: (asked[index].name if asked[index].flavored
                           else 'request'),
        lone_failure_raises=len(asked) == 1,
        # The flavors were read: what failed is Placement's answer.
        verb=ASKED))
    return answers, failures


def bounded(ask, trees):
    """``ask``, with at most so many answers in flight as ``trees`` allow.

    ANSWERS_TREES_IN_FLIGHT // trees of them at once (at least one): the
    batch keeps its own parallelism and its one report; a request waits
    for its turn before it is sent.
    """
    turns = threading.BoundedSemaphore(
        max(1, ANSWERS_TREES_IN_FLIGHT // max(1, trees)))

    def one_at_its_turn(index):
        with turns:
            return ask(index)
    return one_at_its_turn


def count_each(runner, http, trees, asked, answers, reduce=list):
    """Yield (index, reduce([fit_rows.Fit])): each answered request's rows.

    ``trees`` read; answers: {index: verdicts.Answer}, emptied as each
    request is counted. One request at a time, in the order asked, as
    the caller takes them: its local evaluation, its verdicts settled
    (the re-asks within trees that its answer needs, in one batch), a
    row per tree, and ``reduce`` of those rows (what the output needs of
    them) before the next request is evaluated: with many flavors on a
    big cloud, the verdicts and typed rows of one flavor are held at a
    time, and a caller that writes each flavor's rows as they come holds
    no more than those.
    """
    trees.read_sharing(list(answers.values()))
    for index in range(len(asked)):
        if index not in answers:
            continue
        one = asked[index]
        request, local = verdicts.local_verdicts(one.params,
                                                 http.api_version, trees)
        placement = verdicts.settle(runner, http, trees, [
            (one.params, answers.pop(index), local)])[0]
        yield index, reduce(tree_fits(trees, request, local, placement,
                                      one.incomplete))


def tree_fits(trees, request, local, placement, incomplete=False):
    """[fit_rows.Fit], one per tree, for one request.

    request, local: the local evaluation (``verdicts.local_verdicts()``);
    placement: {root: Placement's verdict}; incomplete: the request lacks
    a part of Nova's, so that a count is an upper bound.
    """
    rows = []
    for root in trees.roots:
        uuid = root['uuid']
        verdict = local[uuid]
        found = verdicts.reasons(verdict, placement[uuid])
        if placement[uuid] is None:
            # The request within the tree failed: no verdict, no count.
            row = (None, None, found[0], fit_rows.Counted.NONE)
        elif found:
            row = (0, 0, found[0], fit_rows.Counted.EXACT)
        elif verdict is None or verdict.reasons:
            # A candidate for Placement that the evaluation cannot
            # explain: no count is better than a wrong one.
            row = (None, None, verdicts.UNEXPLAINED, fit_rows.Counted.NONE)
        else:
            counted = evaluation.fit(request, trees.evaluated(uuid))
            if incomplete:
                # Both at most that many where the request lacks a part
                # of Nova's.
                kind = fit_rows.Counted.UPPER_BOUND
            elif counted.exact:
                kind = fit_rows.Counted.EXACT
            else:
                kind = fit_rows.Counted.RANGE
            rows.append(fit_rows.Fit(
                uuid, root['name'], counted.fits, counted.at_most,
                counted.limited_by, kind, counted.gap, counted.draws))
            continue
        rows.append(fit_rows.Fit(uuid, root['name'], *row))
    return rows
