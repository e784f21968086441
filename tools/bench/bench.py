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

"""This plugin and the upstream osc-placement, side by side.

Run with ``tox -e bench`` (``tox -e bench -- --quick`` for a smoke run,
``tox -e bench -- --help`` for the options). What it does:

1. Makes two virtualenvs, one with the upstream ``osc-placement`` from the
   package index and one with this working tree (built as a wheel), each
   with the python-openstackclient and every shared dependency at the
   versions of this environment: the two sides differ by the plugin only.
2. For each target of the table TARGETS, on the server shape it names
   (``osc_placement/tests/support/placement.py``: SQLite and one worker,
   or PostgreSQL and four workers; directly or through a ``relay.Relay``
   that delays each request) and the scaled cloud of
   ``support/cloud.py`` (``cloud.populate()``, the seeder of ``tox -e
   sandbox -- --providers N``): runs the
   command once per side, checking the exit code, the output and the
   requests the server received, and taking the peak RSS; then times the
   sides with pyperf (``timer.py``) in rounds, taking turns, with the CPU
   time of every timed run, and compares them with ``pyperf
   compare_to``.
   A batch target also times ``openstack --version`` in every round and
   takes it off its runs (the CPUs busy after the start-up, the client
   CPU per request against the reference's); a start-up target also
   takes this package's own import time (``python -X importtime``).
3. Prints each target and whether it holds, and writes a JSON summary
   beside the pyperf files.

``--only scale`` seeds a 10,000-provider cloud on PostgreSQL and times
the cloud-wide commands on it, with the model's figures for
openstack-exporter's requests; ``--only flavors`` (``tox -e
bench-flavors``) starts Keystone, the Nova API and Placement, seeds
2,000 providers and 20 flavors, and times ``capacity fit --all-flavors``
(and ``--summary``) with the requests it sends; ``--profile`` runs one
of our batches under ``profiled.py`` instead of the targets. See the
performance page.
"""

import argparse
import collections
from concurrent import futures
import importlib.metadata
import json
import math
import os
import platform
import pstats
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from urllib import parse as urlparse

import pyperf

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from osc_placement import plugin  # noqa: E402
from osc_placement.tests.support import client  # noqa: E402
from osc_placement.tests.support import cloud  # noqa: E402
from osc_placement.tests.support import placement  # noqa: E402
from osc_placement.tests.support import relay  # noqa: E402

UPSTREAM = 'osc-placement==4.9.1'
# The option of the parallel batches; unknown to the reference.
PARALLEL_OPTION = '--os-placement-parallel'

# A target: the command ``argv(items)`` on a cloud of ``cloud(items)``
# providers served by ``shape`` ('default': SQLite, one worker;
# 'production': PostgreSQL, four workers) behind ``latency_ms``;
# ``items`` is (quick, full). ``parallel``: the value given to ours with
# PARALLEL_OPTION (None: not given, the command's default). ``baseline``:
# 'reference' (the upstream plugin, never given the option) or 'serial'
# (ours with ``PARALLEL_OPTION 1``, one request at a time). ``speedup``:
# the least baseline/ours ratio of the median times that meets the target;
# None means "within noise of the baseline, same requests in the same
# order" (with a speedup, the same requests in any order). ``restore``:
# how restore_cloud() puts the cloud back before each run. ``loop``:
# the commands that a shell loop runs for each provider to get what the
# target's command prints (None: no such loop); ``--loop K`` times it.
# ``busy``: the least share of the machine's CPUs busy during the parallel
# run (its CPU time, client + server + relay, over CPUs x wall time).
# A batch target (``parallel`` set, or a view at its default) also holds
# only if its client CPU is at most CLIENT_CPU_RATIO times that of ours
# at parallelism 1, and, at 20 ms, if it takes at most LATENCY_HIDDEN
# times its run at 0 ms (the latency is hidden).
# ``imports``: a start-up target (see START_UP), whose own import time
# is measured too.
Target = collections.namedtuple(
    'Target', 'name argv items cloud shape latency_ms parallel baseline '
              'speedup restore loop busy batch imports',
    defaults=(None, None, False, False))

# What a client controls, whatever the server costs (issue 23): the
# targets of the batches and views, restated against the machine. BUSY
# is measured over the part of a run after the start-up (issue 33): the
# wall time and CPU of ``openstack --version``, timed in the same round,
# taken off the run's.
BUSY = 0.80
CLIENT_CPU_RATIO = 1.15
LATENCY_HIDDEN = 1.30
# The parallelism of the model's figures: the views' default.
MODEL_PARALLEL = plugin.PARALLEL_NEW_COMMANDS
# The client CPU per request of a batch or view (start-up taken off, as
# for BUSY) over the reference's serial ``inventory set --aggregate
# --amend`` in the same bench run.
CLIENT_CPU_PER_REQUEST = 0.50
# Start-up: this package's own import time per command (the self times
# of the osc_placement modules, ``python -X importtime``), the median of
# IMPORT_RUNS processes; and the geometric mean of the paired time ratios
# of the START_UP commands, ours over the reference's.
IMPORT_MS = 10.0
IMPORT_RUNS = 3
START_UP_RATIO = 1.00


def _reference(name, argv, sizes=((10, 10), (300, 2000)), imports=False):
    """Targets within noise of the reference, one per (quick, full) size."""
    return [Target(name, lambda n, a=argv: a,
                   (quick, full), lambda n: n, 'default', 0, None,
                   'reference', None, None, imports=imports)
            for quick, full in sizes]


def _inventory_set(n):
    aggregate = cloud.AGG_500 if n >= 500 else cloud.AGG_100
    return ['resource', 'provider', 'inventory', 'set', aggregate,
            '--aggregate', '--amend', '--resource', 'VCPU:reserved=1']


def _multi_delete(n):
    return ['resource', 'provider', 'delete'] + [
        EXTRA % i for i in range(n)]


def _batch(name, argv, latency_ms, speedup, baseline, items, cloud,
           restore=None, parallel=8, loop=None):
    """A batch or view target; at 20 ms it must keep the CPUs busy."""
    return Target('%s, %d ms latency' % (name, latency_ms), argv, items,
                  cloud, 'production', latency_ms, parallel, baseline,
                  speedup, restore, loop,
                  BUSY if latency_ms else None, True)


# Providers without data that a multi-delete removes (restore_cloud()
# puts them back).
EXTRA = 'eeeeeeee-eeee-4eee-8eee-%012d'


def restore_cloud(endpoint, what, parallel=8):
    """Put the cloud back before a run of a command that changes it.

    ``what`` is None (nothing to do) or ``['extra', count]``: the
    providers EXTRA % 0..count-1, without data, which a multi-delete
    removes; those missing are created, ``parallel`` at a time.
    """
    if not what:
        return
    kind, count = what
    if kind != 'extra':
        raise ValueError('unknown restore %r' % kind)
    there = cloud.provider_uuids(endpoint)

    def create(i):
        cloud.api(endpoint, 'POST', '/resource_providers',
                  {'name': 'bench-extra-%05d' % i, 'uuid': EXTRA % i})

    with futures.ThreadPoolExecutor(parallel) as pool:
        # list(): the first error, if any, is raised here.
        list(pool.map(create, [i for i in range(count)
                               if EXTRA % i not in there]))


def _aggregate_cloud(n):
    """Providers to populate for AGG_100 or AGG_500 (see cloud.py)."""
    return 250 if n < 500 else 1500


_RP = ['resource', 'provider']
# Traits need 1.6; every command of a shell loop takes it.
LOOP_VERSION = ['--os-placement-api-version', '1.6']
# Each view, and what operators ran for each provider before it, with
# the reference's commands (the loop then sums or draws what they print).
CLOUD_VIEWS = (
    (_RP + ['capacity', 'list', '--summary'],
     (_RP + ['inventory', 'list'], _RP + ['usage', 'show'])),
    (_RP + ['allocation', 'list'],
     (_RP + ['show', '--allocations'],)),
    (_RP + ['tree', 'list', '--dot', '--long'],
     (_RP + ['inventory', 'list'], _RP + ['usage', 'show'],
      _RP + ['trait', 'list'], _RP + ['aggregate', 'list'])),
)

# The commands of the paired start-up timings (issue 33, "--only
# start-up"), on the 10-provider cloud: each within noise of the
# reference, with this package's own import time, and together a
# geometric mean of the paired ratios at most START_UP_RATIO.
START_UP = (
    ('resource provider list', _RP + ['list']),
    ('resource provider list -f json', _RP + ['list', '-f', 'json']),
    ('resource provider show', _RP + ['show', cloud.provider_uuid(1)]),
    ('resource provider show --allocations',
     _RP + ['show', '--allocations', cloud.provider_uuid(1)]),
    ('resource provider inventory list',
     _RP + ['inventory', 'list', cloud.provider_uuid(1)]),
    ('resource provider inventory show',
     _RP + ['inventory', 'show', cloud.provider_uuid(1), 'VCPU']),
    ('resource provider usage show',
     _RP + ['usage', 'show', cloud.provider_uuid(1)]),
    ('resource provider trait list',
     LOOP_VERSION + _RP + ['trait', 'list', cloud.provider_uuid(1)]),
    ('resource provider aggregate list',
     LOOP_VERSION + _RP + ['aggregate', 'list', cloud.provider_uuid(1)]),
    ('resource class list', ['resource', 'class', 'list']),
    ('resource class show',
     ['--os-placement-api-version', '1.2', 'resource', 'class', 'show',
      'VCPU']),
    ('trait list', ['trait', 'list']),
    ('trait show', LOOP_VERSION + ['trait', 'show', 'HW_NUMA_ROOT']),
    ('resource provider allocation show',
     _RP + ['allocation', 'show', cloud.consumer_uuid(0)]),
    ('allocation candidate list --resource VCPU=1',
     ['--os-placement-api-version', '1.29', 'allocation', 'candidate',
      'list', '--resource', 'VCPU=1']),
)
# The reference targets on bigger clouds.
AT_SIZE = ('resource provider list', 'resource provider list -f json',
           'allocation candidate list --resource VCPU=1')

TARGETS = (
    [target for name, argv in START_UP
     for target in _reference('start-up: ' + name, argv, sizes=((10, 10),),
                              imports=True)]
    + [target for name, argv in START_UP if name in AT_SIZE
       for target in _reference(name, argv, sizes=((300, 2000),))]
    # A speed-up against the reference at 0 ms only: at 20 ms on two
    # shared CPUs the server's own CPU time bounds any client (see the
    # performance page); there the CPUs must be kept busy instead.
    + [_batch('inventory set --aggregate --amend: parallelism 8 vs the '
              'reference', _inventory_set, latency, speedup, 'reference',
              (100, 500), _aggregate_cloud)
       for latency, speedup in ((20, 0.0), (0, 1.5))]
    # The reference deletes one provider after another, as ours does at
    # parallelism 1 (the same requests in the same order, checked by the
    # reference targets and the contract): ours at 1 is the baseline.
    + [_batch('resource provider delete of many: parallelism 8 vs 1',
              _multi_delete, latency, 0.0, 'serial', items,
              lambda n: 10, lambda n: ['extra', n])
       for items in ((50, 200), (100, 1000))
       for latency in (20, 0)]
    # The cloud-wide views on the whole cloud, at their default
    # parallelism against PARALLEL_OPTION 1 (one request at a time).
    + [_batch('%s: default parallelism vs 1' % ' '.join(argv),
              lambda n, a=argv: a, latency, 0.0, 'serial', (300, 2000),
              lambda n: n, parallel=None, loop=loop)
       for argv, loop in CLOUD_VIEWS
       for latency in (20, 0)]
)


def log(message):
    print('[bench %s] %s' % (time.strftime('%H:%M:%S'), message),
          file=sys.stderr, flush=True)


# -- the client virtualenvs ---------------------------------------------------

def _version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _clean_env(base=None):
    env = dict(os.environ if base is None else base)
    # Both sides run with their .pyc files, as users do.
    for name in ('PYTHONDONTWRITEBYTECODE', 'PYTHONPATH', 'PYTHONHOME',
                 'VIRTUAL_ENV'):
        env.pop(name, None)
    return env


def _pip(bindir, args):
    subprocess.check_call(
        [os.path.join(bindir, 'python'), '-m', 'pip', 'install', '-q',
         '--disable-pip-version-check'] + args, env=_clean_env())


def client_venv(work_dir, name, requirements):
    """The bin directory of a virtualenv with ``requirements``.

    It holds the python-openstackclient of this environment, and every
    shared dependency at the version installed here, so that the two
    sides differ by the plugin only. Kept while nothing changes.
    """
    venv = os.path.join(work_dir, '%s-venv' % name)
    requirements = list(requirements) + [
        'python-openstackclient==%s' % _version('python-openstackclient')]
    skip = {'osc-placement', 'pip', 'setuptools', 'wheel'}
    constraints = sorted(
        '%s==%s' % (dist.metadata['Name'].lower().replace('_', '-'),
                    dist.version)
        for dist in importlib.metadata.distributions()
        if dist.metadata['Name']
        and dist.metadata['Name'].lower().replace('_', '-') not in skip)
    key = '\n'.join([sys.version] + requirements + constraints) + '\n'
    stamp = os.path.join(venv, 'bench-stamp')
    bindir = os.path.join(venv, 'bin')
    if os.path.exists(stamp) and open(stamp).read() == key:
        return bindir
    log('creating the %s virtualenv (%s)' % (name, ', '.join(requirements)))
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.check_call([sys.executable, '-m', 'venv', venv])
    with open(os.path.join(venv, 'constraints.txt'), 'w') as f:
        f.write('\n'.join(constraints) + '\n')
    _pip(bindir, ['-c', os.path.join(venv, 'constraints.txt')]
         + requirements)
    with open(stamp, 'w') as f:
        f.write(key)
    return bindir


def install_ours(bindir):
    """(Re)install this working tree; returns what was installed."""
    _pip(bindir, ['--force-reinstall', '--no-deps', REPO])
    head = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=REPO,
                          stdout=subprocess.PIPE, text=True).stdout.strip()
    dirty = subprocess.run(['git', 'status', '--porcelain',
                            '--untracked-files=no', '--', 'osc_placement',
                            'setup.cfg'], cwd=REPO, stdout=subprocess.PIPE,
                           text=True).stdout.strip()
    return 'commit %s%s' % (head, ' + uncommitted changes' if dirty else '')


# -- one target ---------------------------------------------------------------

def _own_cpu():
    """CPU seconds of this process: the relay's threads, mostly."""
    times = os.times()
    return times.user + times.system


def check_run(argv, env, sb, restore):
    """Run once and measure it.

    Returns {code, out, err, requests, rss_kib, wall, client, server,
    relay}: seconds; the relay's are this process's.
    """
    restore_cloud(sb.server_endpoint, restore)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        with sb.count_requests() as seen:
            server, relayed = sb.cpu_seconds(), _own_cpu()
            started = time.perf_counter()
            proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=err)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - started
            relayed = _own_cpu() - relayed
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

    ``restores``: {side: how restore_cloud() puts the cloud back before
    each of its runs} (a side not there: nothing to put back).

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
                [sys.executable, os.path.join(HERE, 'timer.py'), '--spec',
                 specs[side], '--quiet', '--append', paths[side]]
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
            subprocess.run([upstream] + LOOP_VERSION + argv + [uuid],
                           env=env, check=True,
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    return (time.monotonic() - started) / len(providers)


def run_target(target, n, sb, endpoint, sides, args, out_dir):
    """Measure one target; returns its summary (a dict)."""
    ours, upstream = sides
    restore = target.restore and target.restore(n)
    parallel = ([PARALLEL_OPTION, str(target.parallel)]
                if target.parallel else [])
    measured = [ours] + parallel + target.argv(n)
    if target.baseline == 'serial':
        base = [ours, PARALLEL_OPTION, '1'] + target.argv(n)
    else:
        base = [upstream] + target.argv(n)
    env = _clean_env(client.client_env(endpoint))
    summary = {'target': target.name, 'items': n, 'shape': target.shape,
               'latency_ms': target.latency_ms}
    # The baseline first: a command that changes the cloud (inventory set)
    # then finds it changed by the baseline, and sends the baseline's
    # requests; run first, ours would lower the capacities, and read the
    # usages before doing so (D19), which the reference never does.
    ran = {side: check_run(argv, env, sb, restore)
           for side, argv in (('baseline', base), ('ours', measured))}
    checks = {side: ran[side] for side in ('ours', 'baseline')}
    summary.update(
        (side + '_' + key, checks[side][key]) for side in checks
        for key in ('code', 'rss_kib'))
    summary['requests'] = [len(checks[s]['requests']) for s in checks]
    problems = []
    for side, check in checks.items():
        if check['code']:
            # cliff prints an unknown command or option on stdout.
            message = (check['err'].strip().splitlines()[-1:]
                       or check['out'].strip().splitlines()[:1]
                       or ['(no message)'])[0]
            problems.append('%s exited with %d: %s' % (
                side, check['code'], message))
    outputs = [checks[side]['out'].splitlines()
               for side in ('ours', 'baseline')]
    if target.speedup is not None:
        # PostgreSQL lists rows in the order of its tables, which the
        # writes of the previous run change: the same lines, in any order.
        outputs = [sorted(lines) for lines in outputs]
    if not problems and outputs[0] != outputs[1]:
        problems.append('the outputs differ')
    same_order = checks['ours']['requests'] == checks['baseline']['requests']
    if not problems and not same_order and (
            target.speedup is None or sorted(checks['ours']['requests'])
            != sorted(checks['baseline']['requests'])):
        problems.append('the requests differ')
    if problems:
        summary.update(holds=False, detail='; '.join(problems))
        return summary

    slug = '%s-n%d' % (''.join(c if c.isalnum() else '-' for c in
                               target.name).strip('-')[:60], n)
    timed_sides = [('baseline', base), ('ours', measured)]
    if target.batch and target.baseline != 'serial':
        # Ours at parallelism 1, for the client CPU of the serial run.
        timed_sides.insert(1, ('serial', [ours, PARALLEL_OPTION, '1']
                               + target.argv(n)))
    restores = {side: restore for side, _ in timed_sides}
    if target.batch:
        # OpenStackClient's own start-up, in every round, taken off the
        # runs of the side with the same executable (see after_startup()).
        timed_sides.append(('startup', [ours, '--version']))
        if target.baseline == 'reference':
            timed_sides.append(('startup-reference', [upstream, '--version']))
    paths = {side: os.path.join(out_dir, '%s-%s.json' % (slug, side))
             for side, _ in timed_sides}
    # One name on both sides: compare_to pairs benchmarks by name.
    timed = time_sides('%s (%d items)' % (target.name, n), timed_sides, env,
                       sb, restores, paths, args.pyperf, args.rounds)
    benches = {side: timed[side][0] for side in ('baseline', 'ours')}
    cpu = {side: cpu_medians(runs) for side, (_, runs) in timed.items()}
    for side in benches:
        # The CPU of the timed runs, not of the check run.
        summary[side + '_cpu_s'] = cpu[side]
    compared = subprocess.run(
        [sys.executable, '-m', 'pyperf', 'compare_to', paths['baseline'],
         paths['ours']], stdout=subprocess.PIPE, text=True).stdout.strip()
    ratio = benches['baseline'].median() / benches['ours'].median()
    summary.update(
        median_s={s: round(b.median(), 4) for s, b in benches.items()},
        stdev_s={s: round(b.stdev(), 4) if b.get_nvalue() > 1 else None
                 for s, b in benches.items()},
        speedup=round(ratio, 3), compare_to=compared)
    if target.speedup is None:
        noise = 'not significant' in compared.lower()
        summary['holds'] = (noise or ratio >= 1.0) and same_order
        summary['detail'] = '%s; %s' % (
            'within noise (pyperf compare_to: not significant)' if noise
            else compared.splitlines()[-1],
            'same requests in the same order' if same_order
            else 'requests in another order')
    else:
        summary['holds'] = ratio >= target.speedup
        summary['detail'] = '%.2fx faster%s' % (
            ratio, ', target >= %.1fx' % target.speedup
            if target.speedup else '')
        # However parallel the client, a run cannot take less time than
        # its CPU time shared out over every CPU of the machine.
        cpus = os.cpu_count() or 1
        summary['ceiling'] = round(
            benches['baseline'].median() / (sum(
                cpu['ours'][key] for key in ('client', 'server', 'relay'))
                / cpus), 2)
    if target.batch:
        _client_controls(target, summary, timed)
    if target.imports:
        _start_up(summary, timed, sides, target.argv(n), env)
    if target.loop and args.loop:
        summary['loop_s_per_provider'] = round(time_loop(
            target.loop,
            [cloud.provider_uuid(p) for p in range(min(args.loop, n))],
            upstream, env), 3)
    return summary


def _client_controls(target, summary, timed):
    """The restated targets of a batch: CPUs busy, client CPU.

    ``timed``: time_sides()'s answer, with ``ours`` (the parallel run),
    ``serial`` (ours at parallelism 1) or a serial ``baseline``, and the
    ``startup`` runs of each executable. The client CPU ratio is paired
    round by round; the CPUs busy are counted after the start-up, in
    each round (after_startup()). Also records the client CPU per
    request of each side, start-up taken off, for per_request_cpu().
    """
    ours = timed['ours'][1]
    serial = timed['serial' if 'serial' in timed else 'baseline'][1]
    startups = {'ours': timed['startup'][1], 'serial': timed['startup'][1],
                'baseline': timed['startup-reference' if target.baseline
                                  == 'reference' else 'startup'][1]}
    left = {side: after_startup(timed[side][1], startups[side])
            for side in ('ours', 'serial', 'baseline') if side in timed}
    summary['startup_s'] = {key: round(statistics.median(
        r[key] for r in timed['startup'][1]), 3) for key in ('wall',
                                                             'client')}
    summary['busy'] = cpu_medians(ours)['busy']
    summary['busy_after_startup'] = round(statistics.median(
        r['busy'] for r in left['ours']), 3)
    requests = {'ours': summary['requests'][0], 'serial':
                summary['requests'][0], 'baseline': summary['requests'][1]}
    summary['client_ms_per_request'] = {
        side: round(1000 * statistics.median(r['client'] for r in runs)
                    / requests[side], 3)
        for side, runs in left.items()}
    summary['reference_side'] = target.baseline == 'reference'
    summary['client_cpu_ratio'], summary['client_cpu_ratios'] = \
        paired_ratio(ours, serial, 'client')
    met = summary['client_cpu_ratio'] <= CLIENT_CPU_RATIO
    words = ['client CPU %.2fx the serial run\'s (<= %.2fx; rounds: %s)' % (
        summary['client_cpu_ratio'], CLIENT_CPU_RATIO,
        ', '.join('%.2f' % x for x in summary['client_cpu_ratios']))]
    if target.busy is not None:
        met = met and summary['busy_after_startup'] >= target.busy
        words.append('CPUs busy %.0f%% of the run after the start-up '
                     '(>= %.0f%%; %.0f%% of the whole run, start-up %.2f s '
                     'wall, %.2f s CPU)' % (
                         100 * summary['busy_after_startup'],
                         100 * target.busy, 100 * summary['busy'],
                         summary['startup_s']['wall'],
                         summary['startup_s']['client']))
    summary['holds'] = summary['holds'] and met
    summary['detail'] += '; ' + '; '.join(words)


def per_request_cpu(results):
    """Each batch's client CPU per request against the reference's.

    The reference's figure is that of its serial ``inventory set
    --aggregate --amend`` in the same bench run, at the same latency
    when there is one; the target holds at CLIENT_CPU_PER_REQUEST of it
    at most. Without the reference in the run, the figure is printed and
    said not checked.
    """
    reference = {r['latency_ms']: r['client_ms_per_request']['baseline']
                 for r in results if r.get('reference_side')
                 and 'baseline' in r.get('client_ms_per_request', {})}
    for r in results:
        if 'client_ms_per_request' not in r:
            continue
        mine = r['client_ms_per_request']['ours']
        theirs = reference.get(r['latency_ms'],
                               next(iter(reference.values()), None))
        if theirs is None:
            r['detail'] += ('; client CPU %.2f ms per request (not checked: '
                            'no reference inventory set in this run)' % mine)
            continue
        r['client_cpu_per_request_ratio'] = round(mine / theirs, 3)
        r['holds'] = r['holds'] and (
            r['client_cpu_per_request_ratio'] <= CLIENT_CPU_PER_REQUEST)
        r['detail'] += ('; client CPU %.2f ms per request, %.2fx the '
                        'reference\'s %.2f ms (<= %.2fx)' % (
                            mine, r['client_cpu_per_request_ratio'], theirs,
                            CLIENT_CPU_PER_REQUEST))


def import_ms(openstack, argv, env, runs=IMPORT_RUNS):
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
             os.path.join(HERE, 'visible_imports.py'), openstack] + argv,
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


def _start_up(summary, timed, sides, argv, env):
    """A start-up target: the paired time ratio, our own imports."""
    summary['paired_ratio'], summary['paired_ratios'] = paired_ratio(
        timed['ours'][1], timed['baseline'][1], 'wall')
    summary['imports_ms'] = {side: import_ms(openstack, argv, env)
                             for side, openstack in zip(
                                 ('ours', 'baseline'), sides)}
    ours = summary['imports_ms']['ours']
    summary['holds'] = summary['holds'] and ours < IMPORT_MS
    summary['detail'] += ('; paired ratio %.3fx; osc_placement imports '
                          '%.1f ms (< %.0f ms; the reference\'s %.1f ms)' % (
                              summary['paired_ratio'], ours, IMPORT_MS,
                              summary['imports_ms']['baseline']))


def start_up_summary(results):
    """The geometric mean of the start-up targets' paired ratios."""
    ratios = [r['paired_ratio'] for r in results if 'paired_ratio' in r]
    if not ratios:
        return None
    mean = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
    imports = [r['imports_ms']['ours'] for r in results
               if 'imports_ms' in r]
    return {'target': 'start-up: geometric mean of the paired ratios of '
                      '%d commands' % len(ratios),
            'items': next(r['items'] for r in results
                          if 'paired_ratio' in r),
            'shape': 'default', 'geometric_mean': round(mean, 4),
            'holds': mean <= START_UP_RATIO,
            'detail': '%.3fx (<= %.2fx); osc_placement imports %.1f-%.1f ms '
                      'per command (< %.0f ms)' % (
                          mean, START_UP_RATIO, min(imports), max(imports),
                          IMPORT_MS)}


def latency_hidden(results):
    """Each 20 ms batch run against its 0 ms run: within LATENCY_HIDDEN."""
    at_zero = {(r['target'].rsplit(', ', 1)[0], r['items']): r
               for r in results
               if r.get('latency_ms') == 0 and 'median_s' in r}
    for r in results:
        base = at_zero.get((r['target'].rsplit(', ', 1)[0], r['items']))
        if r.get('latency_ms') != 20 or 'busy' not in r or base is None:
            continue
        r['vs_0ms'] = round(r['median_s']['ours']
                            / base['median_s']['ours'], 3)
        r['holds'] = r['holds'] and r['vs_0ms'] <= LATENCY_HIDDEN
        r['detail'] += '; %.2fx its run at 0 ms (<= %.2fx)' % (
            r['vs_0ms'], LATENCY_HIDDEN)


# -- 10,000 providers (--only scale) ------------------------------------------

# The cloud-wide commands on the big cloud, at 0 ms, ours alone.
SCALE_COMMANDS = (
    ('resource provider capacity list --summary',
     _RP + ['capacity', 'list', '--summary']),
    ('resource provider allocation list', _RP + ['allocation', 'list']),
    ('resource provider capacity fit',
     _RP + ['capacity', 'fit', '--resource', 'VCPU=2', '--resource',
            'MEMORY_MB=4096']),
)
SCALE_PROVIDERS = (300, 10000)
# Peak RSS of the openstack process: under 150 MB.
RSS_LIMIT_KIB = 150 * 1000 * 1000 // 1024
# openstack-exporter's Placement exporter: the providers, then for each
# its inventories, its usages and its allocations; one request after
# another, and, as its current code does by default, 10 at a time.
EXPORTER_REQUESTS_PER_PROVIDER = 3
EXPORTER_PARALLEL = (1, 10)
MODEL_LATENCIES_MS = (0, 20)


def model_seconds(n, startup, c, s, r, latency, workers, parallel):
    """The performance page's model: T = T0 + N max(c, s/W, (L+s+c+r)/P).

    Times in seconds; ``latency`` in seconds too.
    """
    return startup + n * max(c, s / workers,
                             (latency + s + c + r) / parallel)


def run_scale(args, ours, n):
    """Seed ``n`` providers on PostgreSQL; time SCALE_COMMANDS on them."""
    rows = []
    with placement.Placement(db='postgresql') as sb:
        log('scale: populating %d providers' % n)
        started = time.monotonic()
        cloud.populate(sb.server_endpoint, n, parallel=sb.requests_in_flight)
        sb.analyze()
        seeded = time.monotonic() - started
        log('scale: seeded and analyzed in %.0f s' % seeded)
        with relay.Relay(sb.server_endpoint, delay_ms=0) as proxy:
            env = _clean_env(client.client_env(proxy.endpoint))
            for name, argv in SCALE_COMMANDS:
                log('scale: ' + name)
                runs = []
                for _ in range(args.rounds):
                    startup = check_run([ours, '--version'], env, sb, None)
                    run = check_run([ours] + argv, env, sb, None)
                    if run['code']:
                        raise SystemExit('%s exited with %d: %s' % (
                            name, run['code'], run['err'].strip()[-300:]))
                    runs.append((run, startup))
                rows.append(_scale_row(name, runs))
                log('  %s' % rows[-1]['detail'])
        model = _scale_model(rows, n, sb.workers)
    return {'providers': n, 'seed_s': round(seeded), 'workers': sb.workers,
            'rows': rows, 'model': model}


def _scale_row(name, runs):
    requests = len(runs[0][0]['requests'])

    def median(value):
        return statistics.median(value(run, startup)
                                 for run, startup in runs)

    row = {
        'command': name, 'requests': requests,
        'wall_s': round(median(lambda run, _: run['wall']), 2),
        'startup_s': round(median(lambda _, st: st['client']), 3),
        'client_ms_per_request': round(1000 * median(
            lambda run, st: run['client'] - st['client']) / requests, 3),
        'server_ms_per_request': round(1000 * median(
            lambda run, _: run['server']) / requests, 3),
        'relay_ms_per_request': round(1000 * median(
            lambda run, _: run['relay']) / requests, 3),
        'rss_kib': max(run['rss_kib'] for run, _ in runs)}
    row['holds'] = row['rss_kib'] < RSS_LIMIT_KIB
    row['detail'] = (
        '%.1f s, %d requests; per request: client %.2f ms (start-up %.2f s '
        'of CPU taken off), server %.2f ms, relay %.2f ms; peak RSS %.1f MiB '
        '(< 150 MB)' % (row['wall_s'], requests,
                        row['client_ms_per_request'], row['startup_s'],
                        row['server_ms_per_request'],
                        row['relay_ms_per_request'], row['rss_kib'] / 1024))
    return row


def _scale_model(rows, n, workers):
    """Ours and openstack-exporter's request pattern, by the model."""
    by_name = {row['command']: row for row in rows}
    capacity = by_name['resource provider capacity list --summary']
    allocations = by_name['resource provider allocation list']
    per = EXPORTER_REQUESTS_PER_PROVIDER
    exporter = {
        'requests': 1 + per * n,
        # Two requests like the capacity view's (inventories, usages)
        # and one like the allocation view's.
        's': ((per - 1) * capacity['server_ms_per_request']
              + allocations['server_ms_per_request']) / per / 1000,
        'c': capacity['client_ms_per_request'] / 1000,
        'r': capacity['relay_ms_per_request'] / 1000}
    model = []
    for latency_ms in MODEL_LATENCIES_MS:
        latency = latency_ms / 1000.0
        line = {'latency_ms': latency_ms, 'workers': workers,
                'exporter_s': {parallel: round(model_seconds(
                    exporter['requests'], 0.0, exporter['c'], exporter['s'],
                    exporter['r'], latency, workers, parallel), 1)
                    for parallel in EXPORTER_PARALLEL}}
        for row in (capacity, allocations):
            line[row['command']] = round(model_seconds(
                row['requests'], row['startup_s'],
                row['client_ms_per_request'] / 1000,
                row['server_ms_per_request'] / 1000,
                row['relay_ms_per_request'] / 1000, latency, workers,
                MODEL_PARALLEL), 1)
        model.append(line)
    return {'exporter_requests': exporter['requests'],
            'exporter_server_ms_per_request': round(1000 * exporter['s'], 3),
            'parallel': MODEL_PARALLEL, 'lines': model}


def render_scale(scale):
    lines = ['', 'Scale: %d providers on PostgreSQL (%d workers), seeded '
                 'and analyzed in %d s; at 0 ms through the relay' % (
                     scale['providers'], scale['workers'], scale['seed_s'])]
    for row in scale['rows']:
        lines.append('[%s] %s' % ('ok' if row['holds'] else 'not met',
                                  row['command']))
        lines.append('      %s' % row['detail'])
    model = scale['model']
    lines.append('Model T = T0 + N max(c, s/W, (L+s+c+r)/P), W = %d, with '
                 'the inputs above; openstack-exporter: %d requests (a list, '
                 'then inventories, usages, allocations per provider; T0 = '
                 '0, server %.2f ms per request, our c) at P = %s; ours at '
                 'P = %d:' % (
                     scale['workers'], model['exporter_requests'],
                     model['exporter_server_ms_per_request'],
                     ' and '.join(map(str, EXPORTER_PARALLEL)),
                     model['parallel']))
    for line in model['lines']:
        lines.append('      L = %d ms: exporter %s; %s' % (
            line['latency_ms'], ', '.join(
                '%.1f s at P = %s' % (seconds, parallel)
                for parallel, seconds in line['exporter_s'].items()),
            '; '.join('%s %.1f s' % (row['command'], line[row['command']])
                      for row in scale['rows'] if row['command'] in line)))
    return '\n'.join(lines)


# -- --all-flavors over the bench cloud (--only flavors) ----------------------

# (name, vcpus, ram MiB, disk GiB, ephemeral GiB, swap MiB, extra specs):
# plain flavors, resources: and trait: specs, CPU pinning and request
# groups, as a cloud's flavor list mixes them. The scaled cloud has no
# PCPU: the pinned flavors fit nowhere, and say why. No forbidden trait
# (trait:X=forbidden): Placement 16.0.0 on PostgreSQL answers any
# required=!X with HTTP 500 (trait names compared with trait IDs).
BENCH_FLAVORS = (
    ('m1.tiny', 1, 512, 1, 0, 0, {}),
    ('m1.small', 1, 2048, 20, 0, 0, {}),
    ('m1.medium', 2, 4096, 40, 0, 0, {}),
    ('m1.large', 4, 8192, 80, 0, 0, {}),
    ('m1.xlarge', 8, 16384, 160, 0, 0, {}),
    ('m1.2xlarge', 16, 32768, 160, 0, 0, {}),
    ('c1.large', 8, 4096, 40, 0, 0, {}),
    ('r1.large', 2, 32768, 40, 0, 0, {}),
    ('e1.medium', 2, 4096, 20, 20, 1024, {}),
    ('d1.large', 2, 4096, 500, 0, 0, {}),
    ('v1.diskless', 2, 4096, 40, 0, 0, {'resources:DISK_GB': '0'}),
    ('n1.sriov', 2, 4096, 40, 0, 0, {'resources:SRIOV_NET_VF': '1'}),
    ('g1.fpga', 4, 8192, 80, 0, 0, {'resources:CUSTOM_FPGA': '1'}),
    ('a1.avx2', 2, 4096, 40, 0, 0, {'trait:HW_CPU_X86_AVX2': 'required'}),
    ('k1.rack1', 2, 4096, 40, 0, 0, {'trait:CUSTOM_RACK01': 'required'}),
    ('n1.physnet1', 2, 4096, 40, 0, 0,
     {'resources:SRIOV_NET_VF': '1', 'trait:CUSTOM_PHYSNET1': 'required'}),
    ('p1.small', 2, 4096, 40, 0, 0, {'hw:cpu_policy': 'dedicated'}),
    ('p1.large', 8, 16384, 80, 0, 0, {'hw:cpu_policy': 'dedicated',
                                      'hw:cpu_thread_policy': 'prefer'}),
    ('t1.two-numa', 4, 8192, 40, 0, 0,
     {'resources1:VCPU': '2', 'resources1:MEMORY_MB': '4096',
      'resources2:VCPU': '2', 'resources2:MEMORY_MB': '4096',
      'group_policy': 'isolate'}),
    ('t1.physnet0', 2, 4096, 40, 0, 0,
     {'resources1:SRIOV_NET_VF': '1', 'trait1:CUSTOM_PHYSNET0': 'required',
      'group_policy': 'none'}),
)
FLAVORS_PROVIDERS = (100, 2000)
# Flavors with several groups need named groups' and root_required's
# microversions: the session asks for this one.
FLAVORS_VERSION = '1.39'
FLAVORS_COMMANDS = (
    ('resource provider capacity fit --all-flavors',
     _RP + ['capacity', 'fit', '--all-flavors']),
    ('resource provider capacity fit --all-flavors --summary',
     _RP + ['capacity', 'fit', '--all-flavors', '--summary']),
)


def create_flavors(box, flavors=BENCH_FLAVORS):
    """Create ``flavors`` through the compute API of a NovaCloud."""
    for number, (name, vcpus, ram, disk, ephemeral, swap, specs) in \
            enumerate(flavors):
        flavor_id = 'bench-%02d' % number
        box.compute('POST', '/flavors', {'flavor': {
            'id': flavor_id, 'name': name, 'vcpus': vcpus, 'ram': ram,
            'disk': disk, 'OS-FLV-EXT-DATA:ephemeral': ephemeral,
            'swap': swap}})
        if specs:
            box.compute('POST', '/flavors/%s/os-extra_specs' % flavor_id,
                        {'extra_specs': specs})


def placement_reads(requests):
    """What the Placement requests of one run were, counted.

    ``requests``: "METHOD URI" strings. Returns {'candidates' (the
    candidates requests without ``in_tree``: one per flavor), 'reasks'
    (with ``in_tree``: a tree asked about again), 'provider_lists' (GET
    /resource_providers), 'provider_reads' (the per-provider GETs),
    'providers' (how many providers were read), 'most_reads' (the most
    times one provider's same path was read: 1 when the trees are read
    once), 'other'}.
    """
    found = collections.Counter()
    per_path = collections.Counter()
    providers = set()
    for request in requests:
        method, uri = request.split(' ', 1)
        parts = urlparse.urlsplit(uri)
        path = parts.path.rstrip('/')
        query = urlparse.parse_qs(parts.query)
        if path.endswith('/allocation_candidates'):
            found['reasks' if 'in_tree' in query else 'candidates'] += 1
        elif path.endswith('/resource_providers'):
            found['provider_lists'] += 1
        elif '/resource_providers/' in path and method == 'GET':
            found['provider_reads'] += 1
            per_path[path] += 1
            providers.add(path.split('/resource_providers/')[1]
                          .split('/')[0])
        else:
            found['other'] += 1
    return {'candidates': found['candidates'], 'reasks': found['reasks'],
            'provider_lists': found['provider_lists'],
            'provider_reads': found['provider_reads'],
            'providers': len(providers),
            'most_reads': max(per_path.values(), default=0),
            'other': found['other']}


def flavors_holds(reads, flavors):
    """Whether one run read the trees once and asked once per flavor."""
    return reads['most_reads'] == 1 and reads['candidates'] == flavors


def run_flavors(args, ours, n):
    """A NovaCloud with ``n`` providers and 20 flavors; FLAVORS_COMMANDS."""
    # Only here: the default bench never starts Keystone nor Nova.
    from osc_placement.tests.support import stack
    rows = []
    log('flavors: starting Keystone, Placement (PostgreSQL) and Nova')
    started = time.monotonic()
    with stack.NovaCloud(placement_options={'db': 'postgresql'}) as box:
        sb = box.placement
        log('flavors: populating %d providers, creating %d flavors' % (
            n, len(BENCH_FLAVORS)))
        cloud.populate(sb.server_endpoint, n, parallel=sb.requests_in_flight,
                       token=box.token)
        sb.analyze()
        create_flavors(box)
        ready = time.monotonic() - started
        log('flavors: ready in %.0f s' % ready)
        env = box.client_env(_clean_env())
        base = [ours, '--os-placement-api-version', FLAVORS_VERSION]
        check = check_run(base + FLAVORS_COMMANDS[1][1] + ['-f', 'json'],
                          env, sb, None)
        if check['code'] or check['err']:
            raise SystemExit('capacity fit --all-flavors exited with %d: %s'
                             % (check['code'], check['err'].strip()[-300:]))
        answers = json.loads(check['out'])
        names = sorted(flavor[0] for flavor in BENCH_FLAVORS)
        if [row['flavor'] for row in answers] != names:
            raise SystemExit('capacity fit --all-flavors --summary: the '
                             'flavors %s, not %s' % (
                                 [row['flavor'] for row in answers], names))
        for name, argv in FLAVORS_COMMANDS:
            log('flavors: ' + name)
            runs = []
            for _ in range(args.rounds):
                startup = check_run([ours, '--version'], env, sb, None)
                run = check_run(base + argv, env, sb, None)
                if run['code'] or run['err']:
                    raise SystemExit('%s exited with %d: %s' % (
                        name, run['code'], run['err'].strip()[-300:]))
                runs.append((run, startup))
            row = _scale_row(name, runs)
            row['placement'] = placement_reads(runs[0][0]['requests'])
            row['holds'] = row['holds'] and flavors_holds(
                row['placement'], len(BENCH_FLAVORS))
            row['detail'] += (
                '; Placement: %(provider_lists)d provider list(s), '
                '%(provider_reads)d reads of %(providers)d providers (each '
                'path at most %(most_reads)d time(s)), %(candidates)d '
                'candidates requests, %(reasks)d re-asks within a tree'
                % row['placement'])
            rows.append(row)
            log('  %s' % row['detail'])
    return {'providers': n, 'flavors': len(BENCH_FLAVORS),
            'ready_s': round(ready), 'workers': sb.workers,
            'answers': answers, 'rows': rows}


def render_flavors(flavors):
    lines = ['', '--all-flavors: %d flavors over %d providers on PostgreSQL '
                 '(%d workers), behind Keystone and the Nova API (ready in '
                 '%d s)' % (flavors['flavors'], flavors['providers'],
                            flavors['workers'], flavors['ready_s'])]
    for row in flavors['rows']:
        lines.append('[%s] %s' % ('ok' if row['holds'] else 'not met',
                                  row['command']))
        detail = clauses(row['detail'])
        lines.append('      %s' % detail[0])
        lines.extend('        %s' % clause for clause in detail[1:])
    return '\n'.join(lines)


# -- the profile (--profile) --------------------------------------------------

PROFILE_COMMAND = 'resource provider capacity list --summary'
# Functions whose cumulative CPU (cProfile) --profile prints: costs that
# cut across the areas. (path ending, function name, what it is).
PROFILE_WATCH = (
    ('typing.py', '__instancecheck__',
     'isinstance() against runtime-checkable Protocols'),
    ('logging/__init__.py', '_log', 'log records made (Logger._log)'),
    ('email/feedparser.py', 'feed',
     'response headers parsed (http.client, email.feedparser)'),
    ('urllib/parse.py', 'urlparse', 'URLs parsed (urllib.parse.urlparse)'),
    ('urllib/parse.py', 'urlsplit', 'URLs split (urllib.parse.urlsplit)'),
    ('copy.py', 'deepcopy', 'copy.deepcopy'),
)


def run_profile(args, ours, out_dir):
    """One of our batches under profiled.py: areas, then cProfile."""
    argv = shlex.split(args.profile_command)
    n = args.profile_providers
    python = os.path.join(os.path.dirname(ours), 'python')
    tool = os.path.join(HERE, 'profiled.py')
    areas_file = os.path.join(out_dir, 'profile-areas.json')
    stats_file = os.path.join(out_dir, 'profile.pstats')
    with placement.Placement(db='postgresql') as sb:
        log('profile: populating %d providers' % n)
        cloud.populate(sb.server_endpoint, n, parallel=sb.requests_in_flight)
        sb.analyze()
        with relay.Relay(sb.server_endpoint, delay_ms=0) as proxy:
            env = _clean_env(client.client_env(proxy.endpoint))
            runs = {}
            for name, command in (
                    ('startup', [ours, '--version']),
                    ('plain', [ours] + argv),
                    ('areas', [python, tool, '--areas', areas_file, '--',
                               ours] + argv),
                    ('cprofile', [python, tool, '--cprofile', stats_file,
                                  '--', ours] + argv)):
                log('profile: %s run' % name)
                runs[name] = check_run(command, env, sb, None)
                if runs[name]['code']:
                    raise SystemExit('%s run exited with %d: %s' % (
                        name, runs[name]['code'],
                        runs[name]['err'].strip()[-300:]))
    with open(areas_file) as f:
        areas = json.load(f)
    stats = pstats.Stats(stats_file)
    top = sorted(stats.stats.items(), key=lambda item: -item[1][2])[:15]
    requests = len(runs['plain']['requests'])
    command_s = sum(values[2] for values in stats.stats.values())
    watched = []
    for ending, function, what in PROFILE_WATCH:
        for (path, _, name), values in stats.stats.items():
            if name == function and path.endswith(ending):
                watched.append((what, values[1], round(values[3], 4)))
    return {'command': argv, 'providers': n, 'requests': requests,
            'cprofile_s': round(command_s, 4), 'watched': watched,
            'plain_client_s': round(runs['plain']['client'], 3),
            'startup_client_s': round(runs['startup']['client'], 3),
            'areas_client_s': round(runs['areas']['client'], 3),
            'areas': {k: round(v, 4) for k, v in areas.items()},
            'top': [('%s:%d(%s)' % (_short(path), line, function),
                     round(values[2], 4), values[1])
                    for (path, line, function), values in top],
            'pstats': stats_file}


def _short(path):
    """A module's path from its package (site-packages or the stdlib)."""
    return re.sub(r'^.*/(site-packages|lib/python3\.\d+)/', '', path)


def render_profile(profile):
    areas = profile['areas']
    start_up = [k for k in areas if k.startswith('start-up')]
    command = sum(v for k, v in areas.items() if k not in start_up)
    lines = ['Profile of "openstack %s" on %d providers, PostgreSQL, '
             '0 ms relay: %d requests; client CPU %.2f s unprofiled '
             '(openstack --version: %.2f s), %.2f s under the areas '
             'profiler' % (' '.join(profile['command']),
                           profile['providers'], profile['requests'],
                           profile['plain_client_s'],
                           profile['startup_client_s'],
                           profile['areas_client_s']),
             '', 'CPU of the command after the start-up, by area '
                 '(profiled seconds; share; share without the imports; ms '
                 'per request):']
    imports = sum(v for k, v in areas.items() if k.startswith('imports'))
    for name, seconds in sorted(areas.items(), key=lambda kv: -kv[1]):
        if name in start_up:
            continue
        lines.append('  %6.1f %%  %7.3f s  %6s  %6.3f ms  %s' % (
            100 * seconds / command, seconds,
            '-' if name.startswith('imports') else '%.1f %%' % (
                100 * seconds / (command - imports)),
            1000 * seconds / profile['requests'], name))
    for name in start_up:
        lines.append('  (%s: %.3f s, left out)' % (name, areas[name]))
    lines += ['', 'cProfile, every thread, by own time (%s; %.3f s in '
              'all):' % (profile['pstats'], profile['cprofile_s'])]
    for where, seconds, calls in profile['top']:
        lines.append('  %7.3f s  %8d calls  %s' % (seconds, calls, where))
    lines += ['', 'cProfile, cumulative time of a few functions:']
    for what, calls, seconds in profile['watched']:
        lines.append('  %7.3f s  %5.1f %%  %8d calls  %s' % (
            seconds, 100 * seconds / profile['cprofile_s'], calls, what))
    return '\n'.join(lines)


# -- the run ------------------------------------------------------------------

def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='tools/bench/bench.py', description=__doc__.split('\n')[0])
    parser.add_argument('--quick', action='store_true',
                        help='smoke run: small clouds, few pyperf values')
    parser.add_argument('--only', action='append', default=[],
                        metavar='TEXT',
                        help='only the targets whose name contains TEXT '
                             '(repeatable)')
    parser.add_argument('--upstream', default=UPSTREAM, metavar='SPEC',
                        help='the reference (default: %(default)s)')
    parser.add_argument('--work-dir', metavar='DIR',
                        default=os.path.join(REPO, '.tox', 'bench-work'),
                        help='virtualenvs and pyperf files (default: '
                             '%(default)s)')
    parser.add_argument('--json', metavar='FILE',
                        help='summary (default: WORK_DIR/results.json)')
    parser.add_argument('--pyperf', nargs=argparse.REMAINDER, default=None,
                        help='pyperf options of each round of a side, '
                             'e.g. "--pyperf -p 10 -n 3" (last option; '
                             'default "-p 2 -n 3 -w 1 -l 1", --quick: '
                             '"-p 1 -n 2 -w 1 -l 1")')
    parser.add_argument('--rounds', type=int, default=None, metavar='K',
                        help='time the sides of each target in K rounds, '
                             'taking turns, each with the pyperf options; '
                             'ratios of CPU figures are paired round by '
                             'round (default: 3, --quick: 2)')
    parser.add_argument('--loop', type=int, default=0, metavar='K',
                        help='also time, on the first K providers, the '
                             'shell loop of reference commands that each '
                             'cloud-wide view replaces (default: 0, not '
                             'timed)')
    parser.add_argument('--scale-providers', type=int, default=None,
                        metavar='N',
                        help='the cloud of "--only scale" (the cloud-wide '
                             'commands on a big cloud, ours alone; not in '
                             'the default run: seeding takes a while): N '
                             'providers (default: %d, --quick: %d)' % (
                                 SCALE_PROVIDERS[1], SCALE_PROVIDERS[0]))
    parser.add_argument('--flavors-providers', type=int, default=None,
                        metavar='N',
                        help='the cloud of "--only flavors" (capacity fit '
                             '--all-flavors with %d flavors behind Keystone '
                             'and Nova; not in the default run; needs tox '
                             '-e bench-flavors): N providers (default: %d, '
                             '--quick: %d)' % (
                                 len(BENCH_FLAVORS), FLAVORS_PROVIDERS[1],
                                 FLAVORS_PROVIDERS[0]))
    parser.add_argument('--profile', action='store_true',
                        help='instead of the targets: run one of our '
                             'batches under a profiler (tools/bench/'
                             'profiled.py) and print where its CPU goes')
    parser.add_argument('--profile-command', default=PROFILE_COMMAND,
                        metavar='ARGS',
                        help='the command of --profile (default: '
                             '"%(default)s")')
    parser.add_argument('--profile-providers', type=int, default=100,
                        metavar='N',
                        help='the cloud of --profile (default: '
                             '%(default)s providers)')
    args = parser.parse_args(argv)
    if args.rounds is None:
        args.rounds = 2 if args.quick else 3
    if args.rounds < 1:
        parser.error('--rounds: K must be 1 or more, not %d' % args.rounds)
    if args.loop < 0:
        parser.error('--loop: K must be 0 or more, not %d' % args.loop)
    if args.pyperf is None:
        args.pyperf = ['-p', '1', '-n', '2', '-w', '1', '-l', '1'] \
            if args.quick else ['-p', '2', '-n', '3', '-w', '1', '-l', '1']
    args.json = args.json or os.path.join(args.work_dir, 'results.json')
    out_dir = os.path.join(args.work_dir, 'pyperf')
    os.makedirs(out_dir, exist_ok=True)

    started = time.monotonic()
    load_at_start = os.getloadavg()[0]
    ours = client_venv(args.work_dir, 'ours',
                       ['-r', os.path.join(REPO, 'requirements.txt')])
    installed = install_ours(ours)
    upstream = client_venv(args.work_dir, 'upstream', [args.upstream])
    sides = (os.path.join(ours, 'openstack'),
             os.path.join(upstream, 'openstack'))
    if args.profile:
        profile = run_profile(args, sides[0], out_dir)
        with open(args.json, 'w') as f:
            json.dump({'ours': installed, 'profile': profile,
                       'date': time.strftime('%Y-%m-%d %H:%M UTC',
                                             time.gmtime()),
                       'load_average': [load_at_start, os.getloadavg()[0]]},
                      f, indent=1, sort_keys=True)
        print(render_profile(profile))
        return 0
    chosen = [t for t in TARGETS
              if not args.only or any(w in t.name for w in args.only)]
    groups = collections.OrderedDict()
    for target in chosen:
        n = target.items[0 if args.quick else 1]
        groups.setdefault((target.shape, target.cloud(n)), []).append(
            (target, n))
    results = []
    for (shape, size), members in groups.items():
        kwargs = {'db': 'postgresql'} if shape == 'production' else {}
        log('server %s, populating %d providers' % (shape, size))
        with placement.Placement(**kwargs) as sb:
            cloud.populate(sb.server_endpoint, size,
                           parallel=sb.requests_in_flight)
            sb.analyze()
            for target, n in members:
                log(target.name)
                # Runs compared for latency go through the same relay, at
                # 0 ms too: they then differ by the latency alone.
                if target.latency_ms or target.batch:
                    with relay.Relay(sb.server_endpoint,
                                     delay_ms=target.latency_ms) as proxy:
                        results.append(run_target(
                            target, n, sb, proxy.endpoint, sides, args,
                            out_dir))
                else:
                    results.append(run_target(
                        target, n, sb, sb.endpoint, sides, args, out_dir))
                log('  %s' % results[-1]['detail'])
    scale = None
    if 'scale' in args.only:
        scale = run_scale(args, sides[0], args.scale_providers
                          or SCALE_PROVIDERS[0 if args.quick else 1])
    flavors = None
    if 'flavors' in args.only:
        flavors = run_flavors(args, sides[0], args.flavors_providers
                              or FLAVORS_PROVIDERS[0 if args.quick else 1])
    latency_hidden(results)
    per_request_cpu(results)
    summary = start_up_summary(results)
    if summary:
        results.append(summary)
    report = {
        'ours': '%s, %s' % (_version_in(ours), installed),
        'upstream': args.upstream,
        'python-openstackclient': _version('python-openstackclient'),
        'openstack-placement': _version('openstack-placement'),
        'date': time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
        'pyperf': args.pyperf, 'rounds': args.rounds,
        'duration_s': round(time.monotonic() - started),
        'machine': _machine(out_dir), 'results': results, 'scale': scale,
        'flavors': flavors,
        'load_average': [load_at_start, os.getloadavg()[0]]}
    with open(args.json, 'w') as f:
        json.dump(report, f, indent=1, sort_keys=True)
    print(render(report))
    if scale:
        print(render_scale(scale))
    if flavors:
        print(render_flavors(flavors))
    print('\nJSON: %s; pyperf files: %s' % (args.json, out_dir))
    return 0


def _version_in(bindir):
    return subprocess.run(
        [os.path.join(bindir, 'python'), '-c', 'import importlib.metadata '
         'as m; print(m.version("osc-placement"))'], stdout=subprocess.PIPE,
        text=True, env=_clean_env()).stdout.strip()


def _machine(out_dir):
    """What pyperf recorded of the machine, from one of its files."""
    for name in sorted(os.listdir(out_dir)):
        if name.endswith('-ours.json'):
            meta = pyperf.Benchmark.load(
                os.path.join(out_dir, name)).get_metadata()
            return {key: meta.get(key) for key in (
                'cpu_count', 'cpu_model_name', 'platform', 'python_version')}
    # No target timed (--only scale): this process's view.
    model = None
    if os.path.exists('/proc/cpuinfo'):
        with open('/proc/cpuinfo') as f:
            model = next((line.split(':', 1)[1].strip() for line in f
                          if line.startswith('model name')), None)
    return {'cpu_count': os.cpu_count(), 'cpu_model_name': model,
            'platform': platform.platform(),
            'python_version': platform.python_version()}


def render(report):
    m = report['machine']
    lines = ['ours: osc-placement %s; reference: %s; python-openstackclient '
             '%s; Placement %s' % (report['ours'], report['upstream'],
                                   report['python-openstackclient'],
                                   report['openstack-placement']),
             'machine: %s CPUs, %s, %s, Python %s; load average %.1f at '
             'start, %.1f at end; %s; pyperf %s, %d rounds; took %d s' % (
                 m.get('cpu_count'), m.get('cpu_model_name'),
                 m.get('platform'), m.get('python_version'),
                 report['load_average'][0], report['load_average'][1],
                 report['date'],
                 ' '.join(report['pyperf']), report['rounds'],
                 report['duration_s']),
             '']
    for r in report['results']:
        lines.append('[%s] %s (%d items, %s server)' % (
            'ok' if r['holds'] else 'not met', r['target'], r['items'],
            r['shape']))
        if 'median_s' in r:
            lines.append('      %.0f ms (baseline) -> %.0f ms (ours); '
                         'requests %s; peak RSS %.1f / %.1f MiB' % (
                             r['median_s']['baseline'] * 1000,
                             r['median_s']['ours'] * 1000,
                             '/'.join(map(str, r['requests'])),
                             r['baseline_rss_kib'] / 1024,
                             r['ours_rss_kib'] / 1024))
        if 'ceiling' in r:
            lines.append('      CPU s (client + server + relay): baseline '
                         '%s, ours %s; the most %s CPUs allow: about '
                         '%.2fx' % (
                             _cpu(r['baseline_cpu_s']), _cpu(r['ours_cpu_s']),
                             m.get('cpu_count'), r['ceiling']))
        if 'loop_s_per_provider' in r:
            per = r['loop_s_per_provider']
            lines.append('      shell loop of reference commands: %.2f s '
                         'per provider, about %.0f s for %d (%.0fx ours)' % (
                             per, per * r['items'], r['items'],
                             per * r['items'] / r['median_s']['ours']))
        # One clause a line: a batch's detail holds every target it
        # checks.
        detail = clauses(r['detail'])
        lines.append('      %s' % detail[0])
        lines.extend('        %s' % clause for clause in detail[1:])
    return '\n'.join(lines)


def clauses(text):
    """``text`` cut at each "; " outside parentheses."""
    found, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {'(': 1, ')': -1}.get(char, 0)
        if depth == 0 and text.startswith('; ', i):
            found.append(text[start:i])
            start = i + 2
    return found + [text[start:]]


def _cpu(seconds):
    return '%.1f + %.1f + %.1f' % (seconds['client'], seconds['server'],
                                   seconds['relay'])


if __name__ == '__main__':
    sys.exit(main())
