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

"""Reads in the background that never hold up the command's exit.

:class:`Executor` is a ``concurrent.futures`` executor (``submit``,
``map``, ``shutdown``, its futures) whose threads are daemons. The
standard ``ThreadPoolExecutor`` joins its threads when the interpreter
exits: a command interrupted while the compute API is read would wait for
every page of every list before it ends. Here a command that stops (a
signal, an error) ends at once; the reads left in flight are abandoned,
and none of them writes anything. The batch engine keeps its own pool:
its writes are waited for, each bounded by the request deadline.
"""

import collections
from concurrent import futures
import threading


class Executor(futures.Executor):
    """Calls run in order, ``max_workers`` at a time, in daemon threads.

    A thread is started for a call submitted while fewer than
    ``max_workers`` run, and takes the next call queued when it is done.
    ``shutdown(cancel_futures=True)`` cancels the calls not started;
    ``shutdown(wait=True)`` waits for those running.
    """

    def __init__(self, max_workers=1, name='osc-placement-read'):
        self._max_workers = max(1, max_workers)
        self._name = name
        self._queue = collections.deque()
        self._lock = threading.Lock()
        self._threads = []
        self._running = 0
        self._shutdown = False

    def submit(self, fn, /, *args, **kwargs):
        future = futures.Future()
        with self._lock:
            if self._shutdown:
                raise RuntimeError('cannot submit a call after shutdown')
            self._queue.append((future, fn, args, kwargs))
            start = self._running < self._max_workers
            if start:
                self._running += 1
        if start:
            thread = threading.Thread(target=self._work, daemon=True,
                                      name=self._name)
            self._threads.append(thread)
            thread.start()
        return future

    def _work(self):
        while True:
            with self._lock:
                if not self._queue:
                    self._running -= 1
                    return
                future, fn, args, kwargs = self._queue.popleft()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:
                future.set_exception(exc)
            else:
                future.set_result(result)

    def shutdown(self, wait=True, *, cancel_futures=False):
        with self._lock:
            self._shutdown = True
            left = list(self._queue) if cancel_futures else []
            if cancel_futures:
                self._queue.clear()
        for future, _fn, _args, _kwargs in left:
            future.cancel()
        if wait:
            for thread in list(self._threads):
                thread.join()


def start(fn, /, *args, **kwargs):
    """Call ``fn`` in a daemon thread of its own; returns its future.

    The reads of one service while the command reads another: the
    command waits for ``result()`` when it needs them, and a command
    that stops before does not wait at all.
    """
    pool = Executor(max_workers=1)
    future = pool.submit(fn, *args, **kwargs)
    pool.shutdown(wait=False)
    return future
