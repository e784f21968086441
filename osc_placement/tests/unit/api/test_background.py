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

"""osc_placement.api.background: an executor whose threads never hold the exit.

Its calls in order and at most ``max_workers`` at once, their results and
errors through ``concurrent.futures`` futures, the calls not started
cancelled, and threads that are daemons: a call that never returns holds
up neither ``shutdown(wait=False)`` nor the interpreter's exit (which
joins ``ThreadPoolExecutor``'s threads).
"""

from concurrent import futures
import threading

from oslotest import base

from osc_placement.api import background


class TestExecutor(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.release = threading.Event()
        # Never leave a call blocked behind a failed test.
        self.addCleanup(self.release.set)

    def test_results_and_errors_through_futures(self):
        pool = background.Executor(max_workers=2)
        ok = pool.submit(lambda x, y=0: x + y, 1, y=2)
        bad = pool.submit(lambda: {}['missing'])
        self.assertEqual(3, ok.result(10))
        self.assertIsInstance(bad.exception(10), KeyError)
        pool.shutdown()

    def test_in_order_never_more_than_max_workers_at_once(self):
        lock = threading.Lock()
        running, most, order = [0], [0], []

        def call(n):
            with lock:
                running[0] += 1
                most[0] = max(most[0], running[0])
                order.append(n)
            self.release.wait(0.01)
            with lock:
                running[0] -= 1
            return n

        pool = background.Executor(max_workers=3)
        self.assertEqual(list(range(20)), list(pool.map(call, range(20))))
        pool.shutdown()
        self.assertEqual(3, most[0])
        # Started in the order submitted.
        self.assertEqual(list(range(20)), order)

    def test_its_threads_are_daemons_and_shutdown_does_not_wait(self):
        pool = background.Executor(max_workers=1, name='test-background')
        stuck = pool.submit(self.release.wait)
        queued = pool.submit(lambda: 'never')
        pool.shutdown(wait=False, cancel_futures=True)
        self.assertTrue(queued.cancelled())
        self.assertFalse(stuck.done())
        threads = [t for t in threading.enumerate()
                   if t.name == 'test-background']
        self.assertEqual([True], [t.daemon for t in threads])
        self.release.set()
        self.assertTrue(stuck.result(10))

    def test_no_call_after_shutdown(self):
        pool = background.Executor()
        pool.shutdown()
        self.assertRaises(RuntimeError, pool.submit, print)

    def test_a_call_cancelled_before_it_starts_is_not_run(self):
        ran = []
        pool = background.Executor(max_workers=1)
        first = pool.submit(self.release.wait)
        second = pool.submit(ran.append, 'ran')
        self.assertTrue(second.cancel())
        self.release.set()
        self.assertTrue(first.result(10))
        pool.shutdown(wait=True)
        self.assertEqual([], ran)
        self.assertIsInstance(second, futures.Future)


class TestStart(base.BaseTestCase):

    def test_a_call_of_its_own_in_a_daemon_thread(self):
        release = threading.Event()
        self.addCleanup(release.set)
        seen = []

        def call(x, y=0):
            seen.append(threading.current_thread())
            release.wait(10)
            return x + y

        future = background.start(call, 1, y=2)
        # start() returned while the call runs.
        self.assertFalse(future.done())
        release.set()
        self.assertEqual(3, future.result(10))
        self.assertEqual([True], [t.daemon for t in seen])
        self.assertIsNot(threading.main_thread(), seen[0])

    def test_its_error_through_the_future(self):
        self.assertIsInstance(
            background.start(lambda: {}['missing']).exception(10), KeyError)
