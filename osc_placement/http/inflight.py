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

"""One request in flight: a deadline on its whole wait, and the signals.

:func:`wait_for` runs one request (a call of the keystoneauth session)
so that

* with a timeout, the whole wait is bounded: connecting, sending, and
  reading the whole answer. requests and urllib3 bound each socket
  operation, so a server that trickles its answer a byte at a time is
  never timed out by them. Here the request runs in a thread of its own
  and the caller stops waiting at the deadline. What the request noted
  with :func:`on_abandon` (the client: shutting the socket its answer is
  read from) is then done, so that the thread, a daemon, ends at once
  instead of reading on for as long as the server trickles;
* while a write is in flight on the main thread, SIGINT and SIGTERM are
  noted (:class:`Signals`), not raised: the caller waits for the answer
  and then says what became of the write; a second signal stops the
  wait at once (:class:`SignalledAgain`). The batches note them the same
  way (``cli/batch.py``).

Without a timeout and without signals to note (a read, or any request of
a batch's worker thread), the request is sent in the caller's thread, as
it always was.
"""

import contextlib
import signal
import threading
import time

# Exit codes after a signal: 128 + its number, as shells report them.
EXIT_SIGNAL = {signal.SIGINT: 128 + signal.SIGINT,
               signal.SIGTERM: 128 + signal.SIGTERM}
# How often a waiting caller looks at the signals.
POLL_SECONDS = 0.05
# The deadline is the timeout and this much: requests is given the same
# timeout for connecting, so a connection that cannot be made fails in
# its words (nothing was sent), not at the deadline (unknown).
GRACE_SECONDS = 0.25


class Signals(object):
    """SIGINT and SIGTERM noted, not raised, inside the ``with`` block.

    The handler only notes them: ``caught`` is the first signal, ``again``
    a second one. Nothing is written from the handler, which can run in
    the middle of any write of this thread. Outside the main thread, where
    no handler can be set, nothing is noted.
    """

    def __init__(self):
        self.caught = None
        self.again = None
        self._previous = {}

    def __enter__(self):
        if on_main_thread():
            for signum in EXIT_SIGNAL:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc_info):
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous = {}

    def _handle(self, signum, frame):
        if self.caught is None:
            self.caught = signum
        else:
            self.again = signum


class Terminated(BaseException):
    """SIGTERM, raised as Python raises KeyboardInterrupt for SIGINT."""


@contextlib.contextmanager
def sigterm_raises():
    """Inside: SIGTERM raises :class:`Terminated` in the main thread.

    For the reads of a command that says in one line what a signal
    stopped (as it does for Ctrl-C), where Python's default would end the
    process without a word. Elsewhere, nothing changes; a
    :class:`Signals` block inside notes the signal instead, as before.
    """
    if not on_main_thread():
        yield
        return

    def handle(signum, frame):
        raise Terminated()
    previous = signal.signal(signal.SIGTERM, handle)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def signal_of(exc):
    """The signal a KeyboardInterrupt or :class:`Terminated` stands for."""
    return signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT


def on_main_thread():
    """Whether signal handlers can be set here (the main thread)."""
    return threading.current_thread() is threading.main_thread()


class PastDeadline(Exception):
    """The whole answer did not come within ``timeout`` seconds."""

    def __init__(self, timeout):
        # The words of requests' own read timeout (errors.py): which of
        # the two ends the wait first is no matter to the user.
        super().__init__('no complete answer within the timeout')
        self.timeout = timeout


class SignalledAgain(Exception):
    """A second signal came while the request was in flight."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


class _Flight(threading.Thread):
    """``call()`` in a daemon thread; its result or error once ``done``.

    ``abandon()``: the caller stopped waiting; what the call noted with
    :func:`on_abandon` is done, then or as soon as it is noted.
    """

    def __init__(self, call):
        super().__init__(daemon=True, name='placement-request')
        self.call = call
        self.done = threading.Event()
        self.result = None
        self.error = None
        self._lock = threading.Lock()
        self._on_abandon = []
        self._abandoned = False

    def note(self, action):
        with self._lock:
            if not self._abandoned:
                self._on_abandon.append(action)
                return
        action()

    def abandon(self):
        with self._lock:
            self._abandoned = True
            actions, self._on_abandon = self._on_abandon, []
        for action in actions:
            action()

    def run(self):
        try:
            self.result = self.call()
        except BaseException as exc:
            self.error = exc
        finally:
            self.done.set()


def on_abandon(action):
    """Have ``action()`` done if the caller stops waiting for this thread.

    Called by a call that :func:`wait_for` runs, in its thread, with what
    ends its wait (shutting the socket its answer is read from): done by
    the caller at the deadline, or at once if the deadline has passed.
    Anywhere else (a request sent in its caller's thread), nothing.
    """
    flight = threading.current_thread()
    if isinstance(flight, _Flight):
        flight.note(action)


def wait_for(call, timeout=None, signals=None):
    """``call()``'s result; its error, :class:`PastDeadline` or the signal.

    ``timeout`` (seconds, or None): the bound of the whole wait; past it,
    the call is abandoned (see :func:`on_abandon`). ``signals``: the
    :class:`Signals` noted meanwhile; a second one raises
    :class:`SignalledAgain` at once (the first is the caller's to read
    once the answer is in).
    """
    if not timeout and signals is None:
        return call()
    flight = _Flight(call)
    flight.start()
    deadline = time.monotonic() + timeout + GRACE_SECONDS if timeout \
        else None
    while True:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0 and not flight.done.is_set():
            flight.abandon()
            raise PastDeadline(timeout)
        step = left if signals is None else min(
            POLL_SECONDS, left if left is not None else POLL_SECONDS)
        if flight.done.wait(step):
            break
        if signals is not None and signals.again is not None:
            raise SignalledAgain(signals.again)
    if flight.error is not None:
        raise flight.error
    return flight.result
