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

"""The CPU the servers spend on a command, from ``/proc``.

A command's own CPU comes from ``wait4``; what it costs the servers it
talks to (Keystone, Placement and its PostgreSQL, the Nova API, the relay
and the network stand-in in the bench's own process) is the difference
of their processes' CPU time before and after it: :func:`snapshot` the
whole ``/proc`` before and after, then :func:`used` charges each process
to the group of servers whose process tree it is in. A process of
another group (a developer's job beside the bench) is charged to none:
the figures hold on a busy machine too, within what sharing the cores
costs each process.

When the command and the servers share the machine's cores, no command
can end before their CPU, spread over every core, is spent:
:func:`floor` is that bound.
"""

import os

HZ = os.sysconf('SC_CLK_TCK')


def _stat(root, pid):
    """(parent pid, CPU seconds) of one process, or None if it is gone."""
    try:
        with open(os.path.join(root, pid, 'stat')) as f:
            raw = f.read()
    except OSError:
        return None
    # The name in parentheses may hold spaces: the fields after it.
    fields = raw.rsplit(')', 1)[1].split()
    # state ppid ... utime (14th field of stat) stime (15th).
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / HZ


def snapshot(root='/proc'):
    """{pid: (parent pid, CPU seconds)} of every process now."""
    found = {}
    for name in os.listdir(root):
        if name.isdigit():
            stat = _stat(root, name)
            if stat is not None:
                found[int(name)] = stat
    return found


def tree(processes, roots):
    """The pids of ``roots`` and of all their descendants."""
    children = {}
    for pid, (parent, _cpu) in processes.items():
        children.setdefault(parent, []).append(pid)
    found, todo = set(), list(roots)
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found


def used(before, after, groups):
    """{group: CPU seconds spent between the snapshots}.

    groups: {name: root pids}; a process counts for the first group whose
    tree holds it (in the ``after`` snapshot), with its CPU since
    ``before`` (all of it if it started since).
    """
    trees = [(name, tree(after, roots)) for name, roots in groups.items()]
    spent = dict((name, 0.0) for name in groups)
    for pid, (_parent, cpu) in after.items():
        for name, pids in trees:
            if pid in pids:
                earlier = before.get(pid)
                spent[name] += cpu - (earlier[1] if earlier else 0.0)
                break
    return dict((name, round(max(0.0, cpu), 2))
                for name, cpu in spent.items())


def floor(client_cpu, servers_cpu, cores=None):
    """The wall seconds below which the command cannot end here.

    Its CPU and the servers' on its behalf, spread over every core.
    """
    spent = client_cpu + sum(servers_cpu.values())
    return spent / (cores or os.cpu_count())
