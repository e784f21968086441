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


"""Running and timing one command, and the figures taken from its runs.

``check_run()`` runs a command once (exit code, output, requests, peak
RSS, CPU); ``time_sides()`` times the sides of a target with pyperf, in
rounds; the rest reduces the runs (medians, start-up taken off, paired
ratios) and measures this package's own import time.
"""

import collections
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import pyperf

import common
import targets


def own_cpu():
    """CPU seconds of this process: the relay's threads, mostly."""
    times = os.times()
    return times.user + times.system


def check_run(argv, env, sb, restore):
    """Run once and measure it.

    Returns {code, out, err, requests, rss_kib, wall, client, server,
    relay}: seconds; the relay's are this process's.
    """
    targets.restore_cloud(sb.server_endpoint, restore)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        with sb.count_requests() as seen:
            server, relayed = sb.cpu_seconds(), own_cpu()
            started = time.perf_counter()
            proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=err)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - started
            relayed = own_cpu() - relayed
            server = sb.cpu_seconds() - server
        out.seek(0)
        err.seek(0)
        return {'code': os.waitstatus_to_exitcode(status),
                'out': out.read().decode('utf-8', 'replace'),
                'err': err.read().decode('utf-8', 'replace'),
                'requests': ['%s %s' % (r.method, r.uri) for r in seen],
                'rss_kib': usage.ru_maxrss, 'wall': wall,
                'client': usage.ru_utime + usage.ru_stime,
                'server': server, 'relay': relayed}


def time_sides(name, sides, env, sb, restores, paths, pyperf_args, rounds):
    """Time each ``(side, argv)`` of ``sides`` with pyperf, in rounds.

    ``restores``: {side: how targets.restore_cloud() puts the cloud back
    before each of its runs} (a side not there: nothing to put back).

    In each of ``rounds`` rounds every side runs timer.py once with
    ``pyperf_args``, one side after the other, and appends its values
    to ``paths[side]``: the sides take turns, so that a machine whose
    speed drifts over minutes weighs on each alike. Returns {side: (the
    Benchmark, its runs)}: the runs are the lines of timer.py's log that
    pyperf kept (warm-ups left out), each with its round, wall time and
    CPU times, and ``busy``: their CPU time over the machine's CPUs
    times the wall time.
    """
    cpus = os.cpu_count() or 1
    logs, specs = {}, {}
    for side, _ in sides:
        stem = paths[side][:-len('.json')]
        logs[side], specs[side] = stem + '.cpu.jsonl', stem + '.spec.json'
        for old in (paths[side], logs[side]):
            if os.path.exists(old):
                os.remove(old)
    for turn in range(rounds):
        for side, argv in sides:
            with open(specs[side], 'w') as f:
                json.dump({'name': name, 'argv': argv, 'env': env,
                           'server': sb.server_endpoint,
                           'restore': restores.get(side),
                           'server_pids': sb.cpu_roots,
                           'relay_pid': os.getpid(), 'round': turn,
                           'cpu_log': logs[side]}, f)
            subprocess.check_call(
                [sys.executable, os.path.join(common.HERE, 'timer.py'),
                 '--spec', specs[side], '--quiet', '--append', paths[side]]
                + pyperf_args)
    timed = {}
    for side, _ in sides:
        with open(logs[side]) as f:
            runs = [r for r in map(json.loads, f) if not r['warmup']]
        for r in runs:
            r['busy'] = (r['client'] + r['server'] + r['relay']) / (
                cpus * r['wall'])
        timed[side] = (pyperf.Benchmark.load(paths[side]), runs)
    return timed


def cpu_medians(runs):
    """The median of each CPU figure over ``runs`` (see time_sides())."""
    cpu = {key: round(statistics.median(r[key] for r in runs), 3)
           for key in ('wall', 'client', 'server', 'relay', 'busy')}
    cpu['values'] = len(runs)
    return cpu


def after_startup(runs, startups):
    """``runs`` without the start-up (see time_sides()).

    Each run's figures less the medians of the ``openstack --version``
    runs (``startups``) of its round, with ``busy`` over what is left.
    """
    cpus = os.cpu_count() or 1
    keys = ('wall', 'client', 'server', 'relay')
    start = {}
    for turn in {r['round'] for r in startups}:
        mine = [r for r in startups if r['round'] == turn]
        start[turn] = {key: statistics.median(r[key] for r in mine)
                       for key in keys}
    left = []
    for r in runs:
        if r['round'] not in start:
            continue
        each = {key: r[key] - start[r['round']][key] for key in keys}
        each['round'] = r['round']
        each['busy'] = (each['client'] + each['server'] + each['relay']) / (
            cpus * max(each['wall'], 1e-3))
        left.append(each)
    return left


def paired_ratio(ours, baseline, key):
    """Median over the rounds of ours' ``key`` over the baseline's.

    Each round compares the medians of the two sides' runs of that
    round, which ran minutes apart at most. Returns (median, [each
    round's ratio]).
    """
    each = []
    for turn in sorted({r['round'] for r in ours}):
        mine = [r[key] for r in ours if r['round'] == turn]
        theirs = [r[key] for r in baseline if r['round'] == turn]
        if mine and theirs:
            each.append(statistics.median(mine)
                        / max(statistics.median(theirs), 0.01))
    return round(statistics.median(each), 3), [round(x, 3) for x in each]


def time_loop(loop, providers, upstream, env):
    """Seconds per provider of a shell loop of the reference's commands.

    Runs the commands of ``loop`` for each of ``providers``, one process
    after another as the loop would (the provider's UUID is the last
    argument), and checks that each exits 0.
    """
    started = time.monotonic()
    for uuid in providers:
        for argv in loop:
            subprocess.run([upstream] + targets.LOOP_VERSION + argv
                           + [uuid], env=env, check=True,
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    return (time.monotonic() - started) / len(providers)


def import_ms(openstack, argv, env, runs=targets.IMPORT_RUNS):
    """This package's own import time in a run of ``openstack argv``.

    ``python -X importtime`` (the Python of ``openstack``'s virtualenv),
    through ``visible_imports.py`` so that the command modules that
    stevedore loads are in the report: the sum of the self times of the
    modules osc_placement and osc_placement.*, in milliseconds; the median
    of ``runs`` processes.
    """
    python = os.path.join(os.path.dirname(openstack), 'python')
    totals = []
    for _ in range(runs):
        proc = subprocess.run(
            [python, '-X', 'importtime',
             os.path.join(common.HERE, 'visible_imports.py'), openstack]
            + argv,
            env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True)
        totals.append(own_import_ms(proc.stderr))
    return round(statistics.median(totals), 2)


def own_import_ms(report, package='osc_placement'):
    """The self times of ``package`` and its modules, in ms.

    ``report``: what ``python -X importtime`` wrote on standard error.
    """
    total = 0
    for line in report.splitlines():
        fields = line.partition('import time:')[2].split('|')
        if len(fields) != 3 or not fields[0].strip().isdigit():
            continue
        module = fields[2].strip()
        if module == package or module.startswith(package + '.'):
            total += int(fields[0])
    return total / 1000.0


# The drain command's --debug lines: its search's CPU seconds, and the
# wall seconds of its reads of the compute API.
SEARCH_LINE = re.compile(r'The plan of \d+ consumers over \d+ target trees '
                         r'took (\d+\.\d+) s of CPU\.')
NOVA_READS_LINE = re.compile(r"The compute API's reads took (\d+\.\d+) s\.")


def with_debug(argv):
    """The ``openstack`` command line ``argv`` with its global --debug."""
    return argv[:1] + ['--debug'] + argv[1:]


def said_seconds(stderr, line):
    """The seconds a --debug ``line`` (a pattern) says in ``stderr``."""
    found = line.search(stderr)
    if found is None:
        raise SystemExit('no line %r in the --debug run: %s' % (
            line.pattern, stderr.strip()[-600:]))
    return float(found.group(1))


def repeats(requests):
    """{"METHOD uri": times} of the requests sent more than once."""
    return {request: times for request, times
            in collections.Counter(requests).items() if times > 1}
