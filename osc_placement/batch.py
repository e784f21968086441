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
  unknown (those in flight);
* stops when the endpoint is gone: after a few consecutive failures below
  HTTP (connection refused, reset, timeout), no new request starts;
* draws its progress on stderr when stderr is a terminal (never with
  ``-q``), and clears it at the end.

:func:`report` says what a batch did, the one way every command says it:
each failed item on a line of its own, in item order, then the count
(``Failed to <verb> N of M <things>.``), or the interruption. The
commands print the rows of the items that completed first.
"""

from concurrent import futures
import os
import signal
import sys
import threading
import time

from osc_lib import exceptions

from osc_placement import errors
from osc_placement import plugin
from osc_placement.text import printable

# Exit codes after a signal: 128 + its number, as shells report them.
EXIT_SIGNAL = {signal.SIGINT: 128 + signal.SIGINT,
               signal.SIGTERM: 128 + signal.SIGTERM}
# Progress is drawn for batches of more items than this, or longer than
# PROGRESS_AFTER seconds; at most every PROGRESS_EVERY seconds.
PROGRESS_ITEMS = 36
PROGRESS_AFTER = 1.0
PROGRESS_EVERY = 0.1
# How often the main thread looks at the signals while it waits.
POLL_SECONDS = 0.05


def dead_endpoint_threshold(workers):
    """Consecutive failures below HTTP after which a batch stops."""
    return max(3, workers)


class Batch(object):
    """One fan-out: its items, their outcomes in item order, how it ended.

    ``outcomes[i]`` is ``(result, None)``, ``(None, error)`` (an osc-lib
    exception) or None for an item that was never started. ``interrupted``
    is the signal that stopped the batch, ``stopped`` the reason a dead
    endpoint stopped it.
    """

    def __init__(self, items):
        self.items = list(items)
        self.outcomes = [None] * len(self.items)
        self.interrupted = None
        self.stopped = None
        self.threshold = None

    def stopped_line(self, things):
        """The line that says a dead endpoint stopped the batch."""
        return ('Stopped: %d requests in a row could not reach the Placement '
                'API (%s); %d of %d %s were not tried.' % (
                    self.threshold, _reason(self.stopped),
                    len(self.not_tried()), len(self.items), things))

    def done(self):
        """[(item, result)] of the items that succeeded, in item order."""
        return [(item, outcome[0]) for item, outcome
                in zip(self.items, self.outcomes)
                if outcome is not None and outcome[1] is None]

    def failed(self):
        """[(item, error)] of the items that failed, in item order."""
        return [(item, outcome[1]) for item, outcome
                in zip(self.items, self.outcomes)
                if outcome is not None and outcome[1] is not None]

    def not_tried(self):
        return [item for item, outcome in zip(self.items, self.outcomes)
                if outcome is None]


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


class _Signals(object):
    """SIGINT and SIGTERM noted, not raised, while a batch runs.

    The first signal asks the batch to stop starting requests; a second
    one ends the process at once, naming the items still in flight.
    """

    def __init__(self, in_flight, name, stream, progress):
        self.in_flight = in_flight
        self.name = name
        self.stream = stream
        self.progress = progress
        self.caught = None
        self._previous = {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for signum in EXIT_SIGNAL:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc_info):
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)

    def _handle(self, signum, frame):
        if self.caught is None:
            self.caught = signum
            return
        self.progress.clear()
        unknown = [self.name(item) for item in self.in_flight()]
        self.stream.write(
            'Interrupted again: stopped at once; the outcome of %d in '
            'flight is unknown%s\n' % (
                len(unknown), (': ' + ', '.join(unknown)) if unknown
                else '.'))
        self.stream.flush()
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
    signals = _Signals(lambda: [batch.items[i] for i in sorted(
        pending.values())], name, stderr, progress)
    consecutive = 0
    finished = 0
    started = 0
    pool = futures.ThreadPoolExecutor(max_workers=workers)
    try:
        with signals:
            while True:
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


def report(cmd, batch, verb, thing, things, done_word, undone_words,
           key=str, period=''):
    """Log what a batch did; the exit code of the command (0 if all done).

    Each failure is one line ``Failed to <verb> <thing> <key>: <error>``,
    in item order; then, after a dead endpoint, how many items were not
    tried; then ``Failed to <verb> N of M <things>.`` (exit 1), or after
    a signal ``Interrupted: N of M <things> <done_word>; the other K
    <undone_words>.`` (exit 128 + the signal's number).
    """
    failed = batch.failed()
    for item, exc in failed:
        cmd.log.error('Failed to %s %s %s: %s%s', verb, thing,
                      printable(key(item)), exc, period)
    total = len(batch.items)
    not_tried = len(batch.not_tried())
    if batch.stopped is not None and batch.interrupted is None:
        cmd.log.error(batch.stopped_line(things))
    if batch.interrupted is not None:
        done = len(batch.done())
        cmd.log.error('Interrupted: %d of %d %s %s; the other %d %s.',
                      done, total, things, done_word, total - done,
                      undone_words)
        return EXIT_SIGNAL[batch.interrupted]
    if failed or not_tried:
        raise exceptions.CommandError('Failed to %s %d of %d %s.' % (
            verb, len(failed) + not_tried, total, things))
    return 0


def _reason(message):
    """The reason of a ConnectionFailed line: after its last ': '."""
    return message.rstrip('.').rsplit(': ', 1)[-1]


def delete_each(cmd, http, values, delete, thing, things):
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
    batch = run_for(cmd, http, delete, values, things, name=printable)
    return report(cmd, batch, 'delete', thing, things, 'deleted',
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
    that adds figures up calls :meth:`require_complete` first: it then
    prints nothing unless every item was read.
    """

    default_parallel = plugin.PARALLEL_NEW_COMMANDS

    def run(self, parsed_args):
        self._batches = []        # (batch, thing, things, key)
        self._interrupted = None
        try:
            result = super().run(parsed_args)
            suffix = ''
        except Incomplete as incomplete:
            result = 1
            suffix = '; no %s printed' % incomplete.what
        return self._report(result, suffix)

    def _report(self, result, suffix):
        logged = set()
        counts = {}    # things -> (keys tried, keys failed or not tried)
        interrupted = None
        for batch, thing, things, key in self._batches:
            keys, bad = counts.setdefault(things, (set(), set()))
            for item, exc in batch.failed():
                if (thing, key(item)) not in logged:
                    logged.add((thing, key(item)))
                    self.log.error('Failed to read %s %s: %s', thing,
                                   printable(key(item)), exc)
            keys.update(key(item) for item in batch.items)
            bad.update(key(item) for item, _exc in batch.failed())
            bad.update(key(item) for item in batch.not_tried())
            if batch.interrupted is not None:
                interrupted = (batch, things)
            elif batch.stopped is not None:
                self.log.error(batch.stopped_line(things))
        if interrupted is not None:
            batch, things = interrupted
            self.log.error('Interrupted after %d of %d %s%s.',
                           len(batch.done()), len(batch.items), things,
                           suffix)
            return EXIT_SIGNAL[batch.interrupted]
        lines = ['%d of %d %s' % (len(bad), len(keys), things)
                 for things, (keys, bad) in counts.items() if bad]
        if lines:
            raise exceptions.CommandError(
                'Failed to read %s%s.' % (', '.join(lines), suffix))
        return result

    def each(self, http, work, items, thing, key=None, things=None):
        """[(item, result)] of the items ``work`` succeeded for.

        The failures are kept, in item order, for the report at the end;
        ``key(item)`` names an item in it (default: the item itself). An
        item read twice (two passes over the same providers) counts once.
        After a signal, nothing more is read.
        """
        key = key or (lambda item: item)
        things = things or thing + 's'
        if self._interrupted is not None:
            items = []
        batch = run_for(self, http, work, items, things,
                        name=lambda item: printable(key(item)))
        self._batches.append((batch, thing, things, key))
        if batch.interrupted is not None:
            self._interrupted = batch.interrupted
        return batch.done()

    def each_provider(self, http, work, providers):
        """``each`` over provider records, ``work(uuid)`` for each."""
        return self.each(http, lambda p: work(p['uuid']), providers,
                         'resource provider', key=lambda p: p['uuid'])

    def require_complete(self, what='totals'):
        """Stop the command, printing nothing, unless every item was read.

        For an output that adds figures up: a partial total would look
        complete.
        """
        for batch, _thing, _things, _key in self._batches:
            if batch.failed() or batch.not_tried() or \
                    batch.interrupted is not None:
                raise Incomplete(what)
