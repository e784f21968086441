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

"""One request in flight (osc_placement/http/inflight.py).

The call stands for the request: its result and its error come back as
they are; the deadline bounds the whole wait however the call spends it;
a first signal is noted and waited through, a second ends the wait.
"""

import os
import signal
import threading
import time

from osc_placement.http import inflight
from osc_placement.tests.unit import base


class TestWaitFor(base.TestCase):

    def test_result_and_error_of_the_call(self):
        self.assertEqual(3, inflight.wait_for(lambda: 3))
        self.assertEqual(4, inflight.wait_for(lambda: 4, timeout=5))

        def fails():
            raise ValueError('boom')
        for timeout in (None, 5):
            self.assertRaisesRegex(ValueError, 'boom', inflight.wait_for,
                                   fails, timeout)

    def test_the_call_runs_here_without_timeout_or_signals(self):
        self.assertIs(threading.current_thread(), inflight.wait_for(
            threading.current_thread))

    def test_deadline_bounds_the_whole_wait(self):
        # A call that never stops making progress (a trickled answer)
        # is given up at the deadline.
        release = threading.Event()
        self.addCleanup(release.set)
        started = time.monotonic()
        exc = self.assertRaises(inflight.PastDeadline, inflight.wait_for,
                                lambda: release.wait(30), 0.2)
        self.assertLess(time.monotonic() - started, 5)
        self.assertEqual('no complete answer within the timeout', str(exc))


class TestAbandon(base.TestCase):
    """What a call notes is done when its caller stops waiting, only then."""

    def test_noted_action_done_at_the_deadline(self):
        release = threading.Event()
        self.addCleanup(release.set)
        done = []

        def call():
            inflight.on_abandon(lambda: done.append('shut'))
            release.wait(30)
        self.assertRaises(inflight.PastDeadline, inflight.wait_for, call,
                          0.1)
        # Done by the caller, before it raised.
        self.assertEqual(['shut'], done)

    def test_noted_after_the_deadline_done_at_once(self):
        late = threading.Event()
        self.addCleanup(late.set)
        noted = threading.Event()
        done = []

        def call():
            late.wait(30)
            inflight.on_abandon(lambda: done.append(
                threading.current_thread()))
            noted.set()
        self.assertRaises(inflight.PastDeadline, inflight.wait_for, call,
                          0.1)
        late.set()
        self.assertTrue(noted.wait(30))
        # Done in the call's own thread, as it noted it.
        self.assertEqual(1, len(done))
        self.assertIsNot(threading.current_thread(), done[0])

    def test_not_done_when_the_answer_comes_in_time(self):
        done = []

        def call():
            inflight.on_abandon(lambda: done.append('shut'))
            return 'answer'
        self.assertEqual('answer', inflight.wait_for(call, 5))
        self.assertEqual([], done)

    def test_nothing_noted_in_the_callers_thread(self):
        done = []

        def call():
            inflight.on_abandon(lambda: done.append('shut'))
            return 'answer'
        # Without a timeout or signals the call runs here: no flight.
        self.assertEqual('answer', inflight.wait_for(call))
        self.assertEqual([], done)


class TestSignals(base.TestCase):

    def test_first_signal_noted_and_waited_through(self):
        def call():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.2)
            return 'answer'
        with inflight.Signals() as signals:
            self.assertEqual('answer', inflight.wait_for(call, None, signals))
        self.assertEqual((signal.SIGTERM, None),
                         (signals.caught, signals.again))

    def test_second_signal_ends_the_wait(self):
        release = threading.Event()
        self.addCleanup(release.set)

        def call():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)
            os.kill(os.getpid(), signal.SIGINT)
            release.wait(30)
        with inflight.Signals() as signals:
            exc = self.assertRaises(inflight.SignalledAgain,
                                    inflight.wait_for, call, None, signals)
        self.assertEqual(signal.SIGINT, exc.signum)

    def test_handlers_given_back(self):
        before = signal.getsignal(signal.SIGINT)
        with inflight.Signals():
            self.assertIsNot(before, signal.getsignal(signal.SIGINT))
        self.assertIs(before, signal.getsignal(signal.SIGINT))


class TestSigtermRaises(base.TestCase):

    def test_sigterm_raises_inside_and_the_handler_is_restored(self):
        before = signal.getsignal(signal.SIGTERM)
        with inflight.sigterm_raises():
            exc = self.assertRaises(inflight.Terminated, os.kill,
                                    os.getpid(), signal.SIGTERM)
        self.assertIs(before, signal.getsignal(signal.SIGTERM))
        self.assertEqual(signal.SIGTERM, inflight.signal_of(exc))
        self.assertEqual(signal.SIGINT,
                         inflight.signal_of(KeyboardInterrupt()))
