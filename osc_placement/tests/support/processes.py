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

"""Child processes of the servers: how they start, stop and are measured.

A server runs in a session of its own, so that a Ctrl-C in the terminal
reaches only the program that started it, which then stops it. A server
also asks the kernel for a signal when that program dies without cleaning
up (Linux ``PR_SET_PDEATHSIG``, :func:`die_with_parent`), so it lives no
longer than the thread that started it: start servers from the main
thread. CPU times and process trees come from psutil.
"""

import os
import signal
import subprocess
import sys

import psutil

# prctl(2) option: the signal the kernel sends when the parent dies.
PR_SET_PDEATHSIG = 1


def tmpfs():
    """/dev/shm when it is there, else None (the default temporary dir).

    PostgreSQL's thousands of files are then made and removed in a moment,
    and SQLite does no disk syncs.
    """
    if os.path.isdir('/dev/shm') and os.access('/dev/shm', os.W_OK):
        return '/dev/shm'
    return None


def die_with_parent(parent_pid, signum=signal.SIGTERM):
    """Get ``signum`` when the parent dies (Linux); exit if it already has.

    Called first thing in a server subprocess.
    """
    if sys.platform.startswith('linux'):
        import ctypes
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signum)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:
        sys.exit('placement sandbox: parent process is gone')


def exec_as(uid, gid, parent_pid):
    """Become ``uid``/``gid`` and exec ``sys.argv[1:]`` (a subprocess).

    The PID stays that of the program executed, and the kernel sends it
    SIGINT (PostgreSQL's fast shutdown) when the parent dies: the
    parent-death signal is set after the change of user, which clears it.
    """
    # Before the change of user: this Python's own files may be private.
    import ctypes  # noqa: F401
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    die_with_parent(parent_pid, signal.SIGINT)
    os.execv(sys.argv[1], sys.argv[1:])


def alive(pid):
    """Whether ``pid`` is running (a zombie, exited but not reaped, is not)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:
        return True


def kill(pid):
    """SIGKILL ``pid`` if it is still there."""
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def children(pid):
    """PIDs of the direct children of ``pid`` (none if it is gone)."""
    try:
        return [child.pid for child in psutil.Process(pid).children()]
    except psutil.NoSuchProcess:
        return []


def stop(proc, sig, timeout, group=False):
    """Send ``sig`` to a running ``proc``; SIGKILL its group after timeout.

    ``proc`` (a ``subprocess.Popen``) leads a process group of its own;
    with ``group``, ``sig`` goes to every process of that group at once.
    """
    if proc.poll() is not None:
        return
    if group:
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
    else:
        proc.send_signal(sig)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()


def cpu_seconds(roots):
    """CPU time (user + system) of ``roots`` and every process under them.

    The processes still running, and those already reaped: a reaped
    child's time is in its parent's children times. One pass over the
    processes of the machine for all the roots.
    """
    procs = {}
    for proc in psutil.process_iter(['ppid', 'cpu_times']):
        if proc.info['cpu_times'] is not None:
            procs[proc.pid] = proc.info
    under = {}
    for pid, info in procs.items():
        under.setdefault(info['ppid'], []).append(pid)
    total, todo = 0.0, [pid for pid in roots if pid in procs]
    while todo:
        pid = todo.pop()
        times = procs[pid]['cpu_times']
        total += (times.user + times.system + times.children_user
                  + times.children_system)
        todo.extend(under.get(pid, ()))
    return total
