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


"""``--only isolate``: the client CPU per tree of a 4-group isolate flavor.

Issue 41's case: a flavor of four groups of one VGPU each, ``group_policy
isolate``, over trees of eight identical VGPU children. What ``capacity
fit`` does for each tree once it is read and Placement has answered (the
local evaluation and the count) runs in ``isolate_child.py`` under the
python of the ``ours`` virtualenv, on ``--isolate-trees`` trees, once per
round; its process CPU time (user + system, which the load of a shared
machine changes far less than the wall time) over the trees is the
figure, held to ``targets.ISOLATE_CPU_MS_PER_TREE``; every tree's count
must be the closed form's. No server: the reads of a tree cost what they
cost for any tree (the client CPU per request of the other parts).
"""

import json
import os
import statistics
import subprocess
import time

import common
import targets
import venvs

ISOLATE_TREES = (100, 2000)
CHILD = os.path.join(common.HERE, 'isolate_child.py')


def run_child(python, trees):
    """One run of isolate_child.py: its JSON, with its wall and CPU."""
    started = time.perf_counter()
    proc = subprocess.Popen([python, CHILD, str(trees)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=venvs.clean_env(), cwd=common.HERE)
    out, err = proc.communicate()
    wall = time.perf_counter() - started
    if proc.returncode:
        raise SystemExit('isolate_child.py exited with %d: %s' % (
            proc.returncode, err.decode('utf-8', 'replace')[-300:]))
    found = json.loads(out)
    found['wall_s'] = wall
    return found


def isolate_row(runs, target_ms=None):
    """The figures of the runs: the median CPU per tree, and the verdict."""
    target_ms = targets.ISOLATE_CPU_MS_PER_TREE if target_ms is None \
        else target_ms
    trees = runs[0]['trees']
    cpu_ms = 1000 * statistics.median(run['cpu_s'] for run in runs) / trees
    wrong = sum(run['wrong_count'] for run in runs)
    row = {'trees': trees, 'runs': len(runs),
           'cpu_ms_per_tree': round(cpu_ms, 3),
           'wall_s': round(statistics.median(run['wall_s'] for run in runs),
                           1),
           'wrong': wrong, 'query': runs[0]['query'],
           'sample': runs[0]['sample'], 'target_ms': target_ms}
    row['holds'] = cpu_ms <= target_ms and not wrong
    row['detail'] = (
        '%d trees of %d identical VGPU children, 4 groups isolate: client '
        'CPU %.2f ms per tree (target <= %.1f ms), the median of %d run(s); '
        '%s; the child process %.1f s wall' % (
            trees, 8, cpu_ms, target_ms, len(runs),
            'every count the closed form\'s' if not wrong
            else '%d counts differ from the closed form' % wrong,
            row['wall_s']))
    return row


def run_isolate(args, ours, trees):
    """``args.rounds`` runs of isolate_child.py on ``trees`` trees."""
    python = os.path.join(os.path.dirname(ours), 'python')
    runs = []
    for number in range(args.rounds):
        common.log('isolate: run %d of %d, %d trees' % (
            number + 1, args.rounds, trees))
        runs.append(run_child(python, trees))
        common.log('  %.1f s of CPU' % runs[-1]['cpu_s'])
    return isolate_row(runs)


def render_isolate(row):
    return '\n'.join([
        '', '4 groups isolate (%s):' % row['query'],
        '[%s] capacity fit, the client\'s work per tree once read' % (
            'ok' if row['holds'] else 'not met'),
        '      %s' % row['detail']])
