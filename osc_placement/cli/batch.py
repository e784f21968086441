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
"""Batches: one request per item, several in flight, reported in order.

Every command that sends one request per item goes through :func:`run`:
a bounded thread pool over the one HTTP client (``--os-placement-parallel``
requests at a time, or the command's default), whose outcomes come back in
item order whatever order they finished in. The batch

* stops on SIGINT or SIGTERM: no request starts after the signal, those in
  flight finish, and the batch says which items completed; a second
  signal ends the process at once, naming the items whose outcome is
  unknown (those in flight). The signal handler only notes the signal:
  what is written, is written by the batch's own loop, never from inside
  a write of the progress line;
* stops when the endpoint is gone: after a few consecutive failures below
  HTTP (connection refused, reset, timeout, keystoneauth's failures to
  authenticate or to find the endpoint), no new request starts;
* draws its progress on stderr when stderr is a terminal (never with
  ``-q``), and clears it at the end.

:class:`Report` says what the batches of a command did, the one way every
command says it: each failed item on a line of its own, in item order;
after a dead endpoint how many items were not tried; then the count of
the failures (``Failed to <verb> N of M <things>.``), or the interruption
(``Interrupted: N of M <things> <done>; the other K <not done>.``, the
others said only when there are some). The commands print the rows of
the items that completed first.
"""

from concurrent import futures
import os
import sys
import time

from osc_lib import exceptions

from osc_placement import errors
from osc_placement.http import inflight
from osc_placement.model import batch_names
from osc_placement.model.text import printable

from osc_placement import plugin

# Exit codes after a signal: 128 + its number, as shells report them.
EXIT_SIGNAL = inflight.EXIT_SIGNAL
# Progress is drawn for batches of more items than this, or longer than
# PROGRESS_AFTER seconds; at most every PROGRESS_EVERY seconds.
PROGRESS_ITEMS = 36
PROGRESS_AFTER = 1.0
PROGRESS_EVERY = 0.1
# How often the main thread looks at the signals while it waits.
POLL_SECONDS = inflight.POLL_SECONDS


def dead_endpoint_threshold(workers):
    """Consecutive failures below HTTP after which a batch stops."""
    return max(3, workers)


class Batch(object):
    """One fan-out: its items, their outcomes in item order, how it ended.

    ``outcomes[i]`` is ``(result, None)``, ``(None, error)`` (an osc-lib
    exception) or None for an item that was never started. ``interrupted``
    is the signal that stopped the batch, ``stopped`` the message of the
    failure after which a dead endpoint stopped it, ``threshold`` how many
    of them in a row stop it.
    """

    def __init__(self, items):
        self.items = list(items)
        self.outcomes = [None] * len(self.items)
        self.interrupted = None
        self.stopped = None
        self.threshold = None

    def done(self):
        """[(item, result)] of the items that succeeded, in item order."""
        return [(item, outcome[0]) for item, outcome
                in zip(self.items, self.outcomes)
                if outcome is not None and outcome[1] is None]

    def failed(self):
        """[(item, error)] of the items that failed, in item order.

        Those whose answer was lost (:meth:`lost`) among them.
        """
        return [(item, outcome[1]) for item, outcome
                in zip(self.items, self.outcomes)
                if outcome is not None and outcome[1] is not None]

    def lost(self):
        """[item] of the writes whose answer was lost: outcome unknown."""
        return [item for item, exc in self.failed()
                if isinstance(exc, errors.OutcomeUnknown)]

    def not_tried(self):
        return [item for item, outcome in zip(self.items, self.outcomes)
                if outcome is None]

    def complete(self):
        """Whether every item was done: none failed, none left out."""
        return self.interrupted is None and all(
            outcome is not None and outcome[1] is None
            for outcome in self.outcomes)


class Progress(object):
    """The line ``<label>: <done>/<total> <things>`` on a terminal."""

    def __init__(self, stream, label, things, enabled):
        self.stream = stream
        self.label = label
        self.things = things
        self.enabled = enabled
        self.started = time.monotonic()
        self.drawn = 0.0
        self.shown = False

    @classmethod
    def of(cls, cmd, things):
        """The progress of a command's batch: on its stderr, if a tty."""
        app = getattr(cmd, 'app', None)
        stream = getattr(app, 'stderr', None)
        options = getattr(app, 'options', None)
        quiet = getattr(options, 'verbose_level', 1) == 0
        tty = bool(getattr(stream, 'isatty', lambda: False)())
        label = getattr(cmd, 'cmd_name', None) or 'batch'
        return cls(stream, label, things, tty and not quiet)

    def update(self, done, total):
        if not self.enabled:
            return
        now = time.monotonic()
        if total <= PROGRESS_ITEMS and now - self.started < PROGRESS_AFTER:
            return
        if self.shown and now - self.drawn < PROGRESS_EVERY \
                and done < total:
            return
        self.stream.write('\r\x1b[K%s: %d/%d %s'
                          % (self.label, done, total, self.things))
        self.stream.flush()
        self.drawn = now
        self.shown = True

    def clear(self):
        if self.shown:
            self.stream.write('\r\x1b[K')
            self.stream.flush()
            self.shown = False


def _end_at_once(signum, batch, unknown, stream, progress):
    """After a second signal: say what was done, exit at once.

    The items done and failed, those never tried, and by name those in
    flight, whose outcome is unknown.
    """
    progress.clear()
    things = (' ' + progress.things) if progress.things else ''
    lost = len(batch.lost())
    # The others, each said only when there are some.
    others = ['%d %s' % (count, words) for count, words in (
        (len(batch.failed()) - lost, 'failed'),
        (lost, 'whose answer was lost'),
        (len(batch.not_tried()) - len(unknown), 'never tried')) if count]
    stream.write(
        'Interrupted again: stopped at once; %d of %d%s done%s%s\n' % (
            len(batch.done()), len(batch.items), things,
            ''.join(', ' + other for other in others),
            '; the outcome of %d in flight is unknown: %s' % (
                len(unknown), ', '.join(unknown)) if unknown else '.'))
    stream.flush()
    os._exit(EXIT_SIGNAL[signum])


def _is_transport_failure(exc):
    return isinstance(exc, errors.ConnectionFailed)


def run(http, work, items, default=1, progress=None, name=str,
        stderr=None):
    """``work(item)`` for every item, up to N at a time; a :class:`Batch`.

    N is the ``--os-placement-parallel`` value, else ``default``. The
    items are started in order, N at most in flight; with N = 1 one after
    another, as a loop would. An item fails with the osc-lib exception
    ``work`` raised (an HTTP error, a network failure, an invalid
    answer); any other exception is a bug and propagates. ``name(item)``
    names an item in messages.
    """
    batch = Batch(items)
    total = len(batch.items)
    if not total:
        return batch
    workers = min(http.parallel or default, total)
    if workers > 1:
        http.allow_parallel(workers)
    progress = progress or Progress(None, '', '', False)
    stderr = stderr or sys.stderr
    threshold = batch.threshold = dead_endpoint_threshold(workers)
    pending = {}
    signals = inflight.Signals()
    consecutive = 0
    finished = 0
    started = 0
    pool = futures.ThreadPoolExecutor(max_workers=workers)
    try:
        with signals, http.batch_environment():
            while True:
                if signals.again is not None:
                    _end_at_once(signals.again, batch, [
                        name(batch.items[i]) for i in sorted(
                            pending.values())], stderr, progress)
                stopping = signals.caught is not None \
                    or batch.stopped is not None
                while not stopping and started < total \
                        and len(pending) < workers:
                    pending[pool.submit(work, batch.items[started])] = started
                    started += 1
                if not pending:
                    break
                done, _ = futures.wait(pending, timeout=POLL_SECONDS,
                                       return_when=futures.FIRST_COMPLETED)
                for future in sorted(done, key=pending.get):
                    index = pending.pop(future)
                    try:
                        batch.outcomes[index] = (future.result(), None)
                        consecutive = 0
                    except (exceptions.ClientException,
                            exceptions.CommandError) as exc:
                        batch.outcomes[index] = (None, exc)
                        consecutive = consecutive + 1 \
                            if _is_transport_failure(exc) else 0
                        if consecutive >= threshold and \
                                batch.stopped is None:
                            batch.stopped = str(exc)
                    finished += 1
                progress.update(finished, total)
            batch.interrupted = signals.caught
    finally:
        pool.shutdown(wait=True)
        progress.clear()
    return batch


def run_for(cmd, http, work, items, things, name=str):
    """:func:`run` for a command.

    With the command's default parallelism, its progress (counting
    ``things``) and its stderr.
    """
    return run(http, work, items, default=cmd.default_parallel,
               progress=Progress.of(cmd, things), name=name,
               stderr=getattr(cmd.app, 'stderr', None))


def _sentence(message, period):
    """``message`` ending in ``period`` once, however it ended."""
    if period and message.endswith(period):
        return message
    return message + period


def _reason(message):
    """The reason of a ConnectionFailed line: after its last ': '."""
    return message.rstrip('.').rsplit(': ', 1)[-1]


class Report(object):
    """What the batches of one command did, said one way.

    ``verb`` is what was done to each item (``read``, ``delete``, ``set
    inventory for``), ``done_word`` and ``undone_words`` how an
    interruption names the items done and the others (``deleted``, ``were
    not deleted``). ``period`` ends each failure line (once, whatever the
    error's own message ends with). :meth:`add` takes each batch with the
    names of its items; :meth:`finish` logs the failures and returns the
    command's exit code, or raises the count of the failures.
    """

    def __init__(self, log, verb, done_word, undone_words, period=''):
        self.log = log
        self.verb = verb
        self.done_word = done_word
        self.undone_words = undone_words
        self.period = period
        self.batches = []   # (batch, batch_names.Things, key, verb)

    def add(self, batch, things, key=str, verb=None):
        """Report ``batch`` of ``things`` too; ``key(item)`` names an item.

        ``verb``: what was done to its items, where it is not the report's
        (flavors read from the compute API, then asked Placement for).
        """
        self.batches.append((batch, things, key, verb or self.verb))
        return batch

    def discard(self, batch):
        """Leave ``batch`` out: the command reports it in its own way."""
        self.batches = [entry for entry in self.batches
                        if entry[0] is not batch]

    def interrupted(self):
        """The signal that stopped one of the batches, or None."""
        for batch, _things, _key, _verb in self.batches:
            if batch.interrupted is not None:
                return batch.interrupted
        return None

    def complete(self, things):
        """Whether every item of the batches of ``things`` was done.

        ``things``: the names of the batches concerned, as given
        to :meth:`add`.
        """
        return all(batch.complete()
                   for batch, named, _key, _verb in self.batches
                   if named in things)

    def _log_failure(self, verb, things, name, exc):
        """The line of one failed item; one whose answer was lost apart."""
        if isinstance(exc, errors.OutcomeUnknown):
            line = 'Outcome unknown for %s %s %s: %s' % (
                verb, things.one, name, exc.detail)
        else:
            line = 'Failed to %s %s %s: %s' % (verb, things.one, name, exc)
        self.log.error(_sentence(line, self.period))

    def finish(self, result=0, suffix=''):
        """Log what the batches did; the command's exit code.

        Each failure is one line ``Failed to <verb> <thing> <key>:
        <error>``, in item order (an item in two batches once), or
        ``Outcome unknown for <verb> <thing> <key>: ...`` for a write whose
        answer was lost; after a dead endpoint, a line saying why the batch
        stopped and how many items were not tried. Then, after a signal,
        ``Interrupted: N of M <things> <done_word>; the other K
        <undone_words><suffix>.`` (the others only when K is not 0; exit
        128 + the signal's number); after
        failures, ``Failed to <verb> N of M <things><suffix>.`` raised, N
        counting the items that failed (those not tried are said on the
        line before), and those whose answer was lost counted apart
        (:meth:`_count_line`). Otherwise ``result``.
        """
        logged = set()
        # (verb, things) -> (keys, keys failed, keys not tried, keys lost)
        counts = {}
        stopped_by = None
        for batch, things, key, verb in self.batches:
            keys, failed, not_tried, lost = counts.setdefault(
                (verb, things.many), (set(), set(), set(), set()))
            for item, exc in batch.failed():
                if (things, key(item)) not in logged:
                    logged.add((things, key(item)))
                    self._log_failure(verb, things, printable(key(item)),
                                      exc)
            keys.update(key(item) for item in batch.items)
            lost.update(key(item) for item in batch.lost())
            failed.update(key(item) for item, _exc in batch.failed()
                          if key(item) not in lost)
            not_tried.update(key(item) for item in batch.not_tried())
            if batch.interrupted is not None:
                stopped_by = stopped_by or (batch, things)
            elif batch.stopped is not None:
                self.log.error(
                    'Stopped: %d requests in a row could not reach the '
                    'Placement API (%s); %d of %d %s were not tried.',
                    batch.threshold, _reason(batch.stopped),
                    len(batch.not_tried()), len(batch.items), things.many)
        if stopped_by is not None:
            batch, things = stopped_by
            total = len(batch.items)
            done = len(batch.done())
            lost = len(batch.lost())
            left = total - done - lost
            self.log.error('Interrupted: %d of %d %s %s%s%s%s.',
                           done, total, things.many, self.done_word,
                           ', unknown whether %d %s' % (
                               lost, 'was' if lost == 1 else 'were')
                           if lost else '',
                           '; the other %d %s' % (left, self._undone(left))
                           if left else '', suffix)
            return EXIT_SIGNAL[batch.interrupted]
        line = self._count_line(counts)
        if line:
            raise exceptions.CommandError(line + suffix + '.')
        return result

    def _undone(self, count):
        """``undone_words`` ('were not read') for ``count`` items."""
        if count == 1 and self.undone_words.startswith('were '):
            return 'was' + self.undone_words[len('were'):]
        return self.undone_words

    def _count_line(self, counts):
        """The count of the failures, without its period; '' if none.

        ``Failed to <verb> N of M <things>`` (for each verb), then, for
        writes whose answer was lost, ``; unknown whether K were
        <done_word>`` (``Unknown whether K of M <things> were <done_word>``
        when none failed).
        """
        lines = {}    # verb -> ['N of M things']
        lost = []     # 'K of M things'
        for (verb, things), (keys, failed, not_tried, gone) in counts.items():
            if failed or not_tried:
                lines.setdefault(verb, []).append(
                    '%d of %d %s' % (len(failed), len(keys), things))
            if gone:
                lost.append((len(gone), '%d of %d %s' % (
                    len(gone), len(keys), things)))
        count = sum(n for n, _counted in lost)
        were = 'was' if count == 1 else 'were'
        if lines:
            line = 'Failed to %s' % ' and to '.join(
                '%s %s' % (verb, ', '.join(counted))
                for verb, counted in lines.items())
            if lost:
                line += '; unknown whether %d %s %s' % (count, were,
                                                        self.done_word)
            return line
        if lost:
            return 'Unknown whether %s %s %s' % (
                ', '.join(counted for _n, counted in lost), were,
                self.done_word)
        return ''


def report(cmd, batch, verb, things, done_word, undone_words, key=str,
           period=''):
    """:class:`Report` of one batch; the exit code of the command.

    0 if every item was done; 128 + the signal's number after one;
    otherwise the count is raised.
    """
    one = Report(cmd.log, verb, done_word, undone_words, period=period)
    one.add(batch, things, key)
    return one.finish()


def delete_each(cmd, http, values, delete, things):
    """Call ``delete(value)`` for each value; report failures at the end.

    One value behaves as a single delete: its error is the command's error.
    With several, the deletes go through :func:`run` (in parallel with
    ``--os-placement-parallel``); each failure is logged on its own line,
    in the order of the values, and the command fails with ``Failed to
    delete N of M <things>.`` Returns the command's exit code.
    """
    if len(values) == 1:
        delete(values[0])
        return 0
    batch = run_for(cmd, http, delete, values, things.many, name=printable)
    return report(cmd, batch, 'delete', things, 'deleted',
                  'were not deleted')


class Incomplete(Exception):
    """Raised by a command that must not print what it read in part."""

    def __init__(self, what):
        super().__init__(what)
        self.what = what


class Batched(object):
    """Mixin of the commands that read many items (providers, consumers).

    Their reads go through :meth:`each`, by default
    ``PARALLEL_NEW_COMMANDS`` at a time. An item that cannot be read does
    not stop the others: what was read is printed, then each failure on a
    line of its own and a count, and the command exits with 1. After a
    signal, no more reads start and the rows read are printed. A command
    that adds figures up calls :meth:`require_complete` first, naming the
    batches its figures come from: it then prints nothing unless every
    item of them was read. ``batch_report`` is the :class:`Report` of the
    command's reads.
    """

    default_parallel = plugin.PARALLEL_NEW_COMMANDS

    def run(self, parsed_args):
        self.batch_report = Report(self.log, 'read', 'read', 'were not read')
        try:
            result = super().run(parsed_args)
            suffix = ''
        except Incomplete as incomplete:
            result = 1
            suffix = '; no %s printed' % incomplete.what
        return self.batch_report.finish(result, suffix)

    def wait_beside(self, reads):
        """Wait for the reads of another service started beside these.

        Called when a read of the command failed meanwhile: a failure of
        ``reads`` (a future, or None for none) is then the command's
        error, whichever ended first. After a signal, nothing is waited
        for.
        """
        if reads is not None and self.batch_report.interrupted() is None:
            reads.result()

    def each(self, http, work, items, things, key=None,
             lone_failure_raises=False, verb=None):
        """[(item, result)] of the items ``work`` succeeded for.

        ``things``: what the items are, a constant of
        ``osc_placement.model.batch_names`` (``PROVIDERS``...), which names
        the batch in the report and in :meth:`require_complete`. The
        failures are kept, in item order, for the report at the end;
        ``key(item)`` names an item in it (default: the item itself). An
        item read twice (two passes over the same providers) counts once.
        After a signal, nothing more is read. With
        ``lone_failure_raises``, a batch in which one item failed (and no
        signal came) raises that item's error as the command's own.
        ``verb``: what its failures say was done to each item, where it
        is not ``read``.
        """
        key = key or (lambda item: item)
        if self.batch_report.interrupted() is not None:
            # Not tried: for require_complete(), its items were not read.
            batch = Batch(items)
        else:
            batch = run_for(self, http, work, items, things.many,
                            name=lambda item: printable(key(item)))
        self.batch_report.add(batch, things, key, verb)
        failed = batch.failed()
        if lone_failure_raises and len(failed) == 1 and \
                batch.interrupted is None:
            self.batch_report.discard(batch)
            raise failed[0][1]
        return batch.done()

    def each_whole(self, http):
        """``each(work, items, things)`` for reads an error is made of.

        As :meth:`each` (``--os-placement-parallel`` at a time, the
        results in item order whatever order they came in), but every
        item or none: the first failure, in item order, is raised, as the
        reads one at a time did. Used for
        the reads again that say what changed after a write was refused
        (``api.allocations.changes``), which end the command with its
        own error and no batch report. After a signal, one line saying
        the write was refused and the reads were cut short.
        """
        def each(work, items, things):
            batch = run_for(self, http, work, items, things.many,
                            name=printable)
            if batch.interrupted is not None:
                # What was read would make a wrong account of what
                # changed: say what is known instead, and exit as
                # after any signal.
                raise errors.Interrupted(
                    'Interrupted while reading the %s again after '
                    'Placement refused the write: nothing was written.'
                    % things.many, batch.interrupted,
                    write='%s (the %s read again were cut short)' % (
                        errors.WRITE_REFUSED, things.many))
            failed = batch.failed()
            if failed:
                raise failed[0][1]
            return batch.done()
        return each

    def each_provider(self, http, work, providers):
        """``each`` over provider records, ``work(uuid)`` for each."""
        return self.each(http, lambda p: work(p['uuid']), providers,
                         batch_names.PROVIDERS, key=lambda p: p['uuid'])

    def require_complete(self, what, things, *others):
        """Stop the command, printing nothing, unless these items were read.

        ``things``, ``others``: the names of the batches whose items must
        all have been read, as given to :meth:`each` (``PROVIDERS``,
        ``CONSUMERS``): those the output is made of. For an output that
        adds figures up (a partial total would look complete) or that is
        written whole or not at all (a save file); the items of the
        command's other batches may fail, each reported in its own
        way. After a signal, the batches not started count as not read.
        ``what``: what is then not printed (``ROWS``, ``TOTALS``,
        ``SAVE_FILE``).
        """
        if not self.batch_report.complete((things,) + others):
            raise Incomplete(what)
