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
3. Prints each target and whether it holds, and writes a JSON summary
   beside the pyperf files.
"""

import argparse
import collections
import importlib.metadata
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import pyperf

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

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
Target = collections.namedtuple(
    'Target', 'name argv items cloud shape latency_ms parallel baseline '
              'speedup restore loop busy batch', defaults=(None, None, False))

# What a client controls, whatever the server costs (issue 23): the
# targets of the batches and views, restated against the machine.
BUSY = 0.80
CLIENT_CPU_RATIO = 1.15
LATENCY_HIDDEN = 1.30


def _reference(name, argv, sizes=((10, 10), (300, 2000))):
    """Targets within noise of the reference, one per (quick, full) size."""
    return [Target(name, lambda n, a=argv: a,
                   (quick, full), lambda n: n, 'default', 0, None,
                   'reference', None, None)
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


def restore_cloud(endpoint, what):
    """Put the cloud back before a run of a command that changes it.

    ``what`` is None (nothing to do) or ``['extra', count]``: the
    providers EXTRA % 0..count-1, without data, which a multi-delete
    removes; those missing are created.
    """
    if not what:
        return
    kind, count = what
    if kind != 'extra':
        raise ValueError('unknown restore %r' % kind)
    there = cloud.provider_uuids(endpoint)
    for i in range(count):
        if EXTRA % i not in there:
            cloud.api(endpoint, 'POST', '/resource_providers',
                      {'name': 'bench-extra-%05d' % i, 'uuid': EXTRA % i})


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

TARGETS = (
    _reference('resource provider list', ['resource', 'provider', 'list'])
    + _reference('resource provider list -f json',
                 ['resource', 'provider', 'list', '-f', 'json'])
    + _reference('resource provider show',
                 ['resource', 'provider', 'show', cloud.provider_uuid(1)],
                 sizes=((10, 10),))
    + _reference('trait list', ['trait', 'list'], sizes=((10, 10),))
    + _reference('allocation candidate list --resource VCPU=1',
                 ['--os-placement-api-version', '1.29', 'allocation',
                  'candidate', 'list', '--resource', 'VCPU=1'])
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
              _multi_delete, latency, 0.0, 'serial', (50, 200),
              lambda n: 10, lambda n: ['extra', n])
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

def check_run(argv, env, sb, restore):
    """Run once: {code, out, err, requests, rss_kib}."""
    restore_cloud(sb.server_endpoint, restore)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        with sb.count_requests() as seen:
            proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=err)
            _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        err.seek(0)
        return {'code': os.waitstatus_to_exitcode(status),
                'out': out.read().decode('utf-8', 'replace'),
                'err': err.read().decode('utf-8', 'replace'),
                'requests': ['%s %s' % (r.method, r.uri) for r in seen],
                'rss_kib': usage.ru_maxrss}


def time_sides(name, sides, env, sb, restore, paths, pyperf_args, rounds):
    """Time each ``(side, argv)`` of ``sides`` with pyperf, in rounds.

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
                           'server': sb.server_endpoint, 'restore': restore,
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
    checks = {side: check_run(argv, env, sb, restore)
              for side, argv in (('ours', measured), ('baseline', base))}
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
    paths = {side: os.path.join(out_dir, '%s-%s.json' % (slug, side))
             for side, _ in timed_sides}
    # One name on both sides: compare_to pairs benchmarks by name.
    timed = time_sides('%s (%d items)' % (target.name, n), timed_sides, env,
                       sb, restore, paths, args.pyperf, args.rounds)
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
        _client_controls(target, summary, timed['ours'][1],
                         timed['serial' if 'serial' in timed
                               else 'baseline'][1])
    if target.loop and args.loop:
        summary['loop_s_per_provider'] = round(time_loop(
            target.loop,
            [cloud.provider_uuid(p) for p in range(min(args.loop, n))],
            upstream, env), 3)
    return summary


def _client_controls(target, summary, ours, serial):
    """The restated targets of a batch: CPUs busy, client CPU.

    ``ours`` and ``serial``: the timed runs (time_sides()) of the
    parallel run and of ours at parallelism 1. The client CPU ratio is
    paired round by round.
    """
    summary['busy'] = cpu_medians(ours)['busy']
    summary['client_cpu_ratio'], summary['client_cpu_ratios'] = \
        paired_ratio(ours, serial, 'client')
    met = summary['client_cpu_ratio'] <= CLIENT_CPU_RATIO
    words = ['client CPU %.2fx the serial run\'s (<= %.2fx; rounds: %s)' % (
        summary['client_cpu_ratio'], CLIENT_CPU_RATIO,
        ', '.join('%.2f' % x for x in summary['client_cpu_ratios']))]
    if target.busy is not None:
        met = met and summary['busy'] >= target.busy
        words.append('CPUs busy %.0f%% of the run (>= %.0f%%)' % (
            100 * summary['busy'], 100 * target.busy))
    summary['holds'] = summary['holds'] and met
    summary['detail'] += '; ' + '; '.join(words)


def latency_hidden(results):
    """Each 20 ms batch run against its 0 ms run: within LATENCY_HIDDEN."""
    at_zero = {r['target'].rsplit(', ', 1)[0]: r for r in results
               if r.get('latency_ms') == 0 and 'median_s' in r}
    for r in results:
        base = at_zero.get(r['target'].rsplit(', ', 1)[0])
        if r.get('latency_ms') != 20 or 'busy' not in r or base is None \
                or base['items'] != r['items']:
            continue
        r['vs_0ms'] = round(r['median_s']['ours']
                            / base['median_s']['ours'], 3)
        r['holds'] = r['holds'] and r['vs_0ms'] <= LATENCY_HIDDEN
        r['detail'] += '; %.2fx its run at 0 ms (<= %.2fx)' % (
            r['vs_0ms'], LATENCY_HIDDEN)


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
    latency_hidden(results)
    report = {
        'ours': '%s, %s' % (_version_in(ours), installed),
        'upstream': args.upstream,
        'python-openstackclient': _version('python-openstackclient'),
        'openstack-placement': _version('openstack-placement'),
        'date': time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
        'pyperf': args.pyperf, 'rounds': args.rounds,
        'duration_s': round(time.monotonic() - started),
        'machine': _machine(out_dir), 'results': results,
        'load_average': [load_at_start, os.getloadavg()[0]]}
    with open(args.json, 'w') as f:
        json.dump(report, f, indent=1, sort_keys=True)
    print(render(report))
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
    return {}


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
        detail = r['detail']
        lines.append('      %s' % (detail if len(detail) <= 240
                                   else detail[:237] + '...'))
    return '\n'.join(lines)


def _cpu(seconds):
    return '%.1f + %.1f + %.1f' % (seconds['client'], seconds['server'],
                                   seconds['relay'])


if __name__ == '__main__':
    sys.exit(main())
