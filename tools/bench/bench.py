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
   They are kept under ``--work-dir`` and reused while those versions do
   not change (this tree is reinstalled on every run).
2. For each N, starts the real local Placement (``osc_placement.tests.
   sandbox``) on a copy of a database holding N providers (see
   ``populate.py``; built once through the API and cached).
3. Times whole ``openstack`` processes of both sides, alternating (paired
   runs: ours then upstream, upstream then ours, ...), after one warm-up
   run each that also checks that both print the same thing. Each run
   records its wall time, its peak RSS (``wait4``) and the requests the
   server received.
4. Measures the import cost of the plugin in each ``openstack`` process
   (``python -X importtime``, see ``importtrace.py``).
5. Prints a table and the targets of issue 9, and writes a JSON file.
"""

import argparse
import datetime
import filecmp
import importlib.metadata
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import populate  # noqa: E402
from osc_placement.tests import sandbox  # noqa: E402

UPSTREAM = 'osc-placement==4.9.1'
# Bump when populate.py lays the cloud out differently (cache key).
LAYOUT = 1
DEFAULT_SIZES = (10, 2000, 10000)
QUICK_SIZES = (10, 300)
API_VERSION = '1.38'  # of the direct API calls (populate, restore)

FLOOR = 'openstack --version'


class Side(object):
    def __init__(self, name, bindir):
        self.name = name
        self.python = os.path.join(bindir, 'python')
        self.openstack = os.path.join(bindir, 'openstack')


def log(message):
    print('[bench %s] %s' % (time.strftime('%H:%M:%S'), message),
          file=sys.stderr, flush=True)


# -- the machine --------------------------------------------------------------

def machine():
    cpu = platform.processor() or ''
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    cpu = line.split(':', 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        with open('/proc/meminfo') as f:
            mem_kib = int(f.readline().split()[1])
    except (OSError, ValueError, IndexError):
        mem_kib = 0
    return {
        'nproc': os.cpu_count(),
        'cpu': cpu,
        'memory_gib': round(mem_kib / 2 ** 20, 1),
        'python': platform.python_version(),
        'platform': platform.platform(),
        'load_average_at_start': os.getloadavg(),
        'python-openstackclient': _version('python-openstackclient'),
        'openstack-placement': _version('openstack-placement'),
        'date': datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec='seconds'),
    }


def _version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


# -- the client virtualenvs ---------------------------------------------------

def _constraints():
    """name==version of every distribution of this environment, but ours
    and the packaging tools: both client virtualenvs get these versions."""
    skip = {'osc-placement', 'pip', 'setuptools', 'wheel'}
    pins = {}
    for dist in importlib.metadata.distributions():
        name = (dist.metadata['Name'] or '').lower().replace('_', '-')
        if name and name not in skip:
            pins[name] = dist.version
    return ['%s==%s' % item for item in sorted(pins.items())]


def client_venv(work_dir, name, requirements):
    """The bin directory of a virtualenv holding python-openstackclient (the
    version of this environment) and ``requirements``.

    Every shared dependency gets the version installed here, so that the
    two sides differ by the plugin only: same distributions, same entry
    points to scan at start-up. Kept and reused while nothing changes.
    """
    venv = os.path.join(work_dir, '%s-venv' % name)
    osc = _version('python-openstackclient')
    if not osc:
        raise SystemExit('python-openstackclient is not installed here')
    requirements = list(requirements) + [
        'python-openstackclient==%s' % osc]
    constraints = _constraints()
    key = '\n'.join([sys.version] + requirements + constraints) + '\n'
    stamp = os.path.join(venv, 'bench-stamp')
    bindir = os.path.join(venv, 'bin')
    try:
        with open(stamp) as f:
            if f.read() == key:
                return bindir
    except OSError:
        pass
    log('creating the %s virtualenv in %s (%s)'
        % (name, venv, ', '.join(requirements)))
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.check_call([sys.executable, '-m', 'venv', venv])
    constraints_file = os.path.join(venv, 'constraints.txt')
    with open(constraints_file, 'w') as f:
        f.write('\n'.join(constraints) + '\n')
    _pip(bindir, ['-c', constraints_file] + requirements)
    with open(stamp, 'w') as f:
        f.write(key)
    return bindir


def _pip(bindir, args):
    subprocess.check_call(
        [os.path.join(bindir, 'python'), '-m', 'pip', 'install', '-q',
         '--disable-pip-version-check'] + args, env=_clean_env())


def install_ours(bindir, ref=None):
    """(Re)install this working tree, or the commit ``ref`` of this
    repository, as a wheel in a client venv."""
    constraints_file = os.path.join(os.path.dirname(bindir),
                                    'constraints.txt')
    if not ref:
        log('installing this working tree in %s' % os.path.dirname(bindir))
        _pip(bindir, ['-c', constraints_file, '--force-reinstall',
                      '--no-deps', REPO])
        head = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'],
                              cwd=REPO, stdout=subprocess.PIPE,
                              text=True).stdout.strip()
        dirty = subprocess.run(['git', 'status', '--porcelain',
                                '--untracked-files=no', '--', 'osc_placement',
                                'setup.cfg'], cwd=REPO,
                               stdout=subprocess.PIPE, text=True).stdout
        return 'working tree at %s%s' % (
            head, ' with uncommitted changes' if dirty.strip() else '')
    sha = subprocess.check_output(['git', 'rev-parse', '--short', ref],
                                  cwd=REPO, text=True).strip()
    log('installing commit %s in %s' % (sha, os.path.dirname(bindir)))
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(['git', 'archive', sha], cwd=REPO,
                                 stdout=subprocess.PIPE, check=True).stdout
        subprocess.run(['tar', '-x', '-C', tmp], input=archive, check=True)
        # No .git in an archive: pbr takes the version from here.
        env = _clean_env()
        env['PBR_VERSION'] = '0.0.0+g%s' % sha
        subprocess.check_call(
            [os.path.join(bindir, 'python'), '-m', 'pip', 'install', '-q',
             '--disable-pip-version-check', '-c', constraints_file,
             '--force-reinstall', '--no-deps', tmp], env=env)
    return 'commit %s' % sha


def installed_version(side):
    return subprocess.run(
        [side.python, '-c', 'import importlib.metadata as m; '
         'print(m.version("osc-placement"))'], stdout=subprocess.PIPE,
        text=True, env=_clean_env()).stdout.strip()


def _clean_env(base=None):
    env = dict(os.environ if base is None else base)
    # Both sides must run with their .pyc files, as users do.
    env.pop('PYTHONDONTWRITEBYTECODE', None)
    for name in ('PYTHONPATH', 'PYTHONHOME', 'VIRTUAL_ENV'):
        env.pop(name, None)
    return env


# -- the databases ------------------------------------------------------------

def _scratch_dir():
    """A directory on tmpfs when there is one: no disk syncs in SQLite."""
    base = '/dev/shm' if os.path.isdir('/dev/shm') and os.access(
        '/dev/shm', os.W_OK) else None
    return tempfile.mkdtemp(prefix='osc-placement-bench-', dir=base)


def _db_prefix():
    return 'placement-%s-layout%d-n' % (_version('openstack-placement'),
                                        LAYOUT)


def database(work_dir, n, scratch):
    """Path of a cached database with n providers, built if needed."""
    cache = os.path.join(work_dir, 'db')
    os.makedirs(cache, exist_ok=True)
    prefix = _db_prefix()
    path = os.path.join(cache, '%s%d.sqlite' % (prefix, n))
    if os.path.exists(path):
        return path
    # Start from the largest cached smaller cloud: the layout of provider p
    # does not depend on N.
    base = 0
    for name in os.listdir(cache):
        if name.startswith(prefix) and name.endswith('.sqlite'):
            size = name[len(prefix):-len('.sqlite')]
            if size.isdigit() and base < int(size) < n \
                    and int(size) % populate.TREE == 0:
                base = int(size)
    building = os.path.join(scratch, 'building.sqlite')
    if base:
        shutil.copyfile(os.path.join(cache, '%s%d.sqlite' % (prefix, base)),
                        building)
    log('populating %d providers (from %d, through the API; cached '
        'afterwards in %s)' % (n, base, cache))
    started = time.monotonic()
    with sandbox.Sandbox(db_path=building) as sb:
        populate.populate(
            lambda method, url, body: sb.api(method, url, body,
                                             version=API_VERSION),
            n, start=base, progress=log)
    log('populated in %.0f s' % (time.monotonic() - started))
    shutil.copyfile(building, path + '.part')
    os.rename(path + '.part', path)
    os.remove(building)
    return path


# -- the commands -------------------------------------------------------------

def _restore_aggregate(aggregate):
    """After an ``inventory set --aggregate``: VCPU of its providers back
    to what populate wrote, so that every run does the same work."""
    def restore(sb, n):
        providers = sb.api('GET', '/resource_providers?member_of=%s'
                           % aggregate, version=API_VERSION)
        for rp in providers['resource_providers']:
            sb.api('PUT', '/resource_providers/%s/inventories/VCPU'
                   % rp['uuid'],
                   dict(populate.NUMA_VCPU,
                        resource_provider_generation=rp['generation']),
                   version=API_VERSION)
    return restore


class Bench(object):
    def __init__(self, name, argv, min_n=0, restore=None, slow=False,
                 server_query=None):
        self.name = name
        self.argv = argv
        self.min_n = min_n
        self.restore = restore
        self.slow = slow
        # The request whose server time is measured alone (linearity).
        self.server_query = server_query


BENCHES = (
    Bench(FLOOR, ['--version']),
    Bench('resource provider list', ['resource', 'provider', 'list'],
          server_query=('/resource_providers', '1.29')),
    Bench('resource provider list -f json',
          ['resource', 'provider', 'list', '-f', 'json'],
          server_query=('/resource_providers', '1.29')),
    Bench('resource provider show',
          ['resource', 'provider', 'show', populate.rp_uuid(1)]),
    Bench('resource provider inventory list',
          ['resource', 'provider', 'inventory', 'list', populate.rp_uuid(1)]),
    Bench('trait list', ['trait', 'list']),
    Bench('resource class list', ['resource', 'class', 'list']),
    Bench('resource provider allocation show',
          ['resource', 'provider', 'allocation', 'show',
           populate.consumer_uuid(0)], min_n=populate.TREE),
    Bench('allocation candidate list --resource VCPU=1 (1.29)',
          ['--os-placement-api-version', '1.29', 'allocation', 'candidate',
           'list', '--resource', 'VCPU=1'],
          server_query=('/allocation_candidates?resources=VCPU:1', '1.29')),
    Bench('inventory set --aggregate --amend (100 providers)',
          ['resource', 'provider', 'inventory', 'set', populate.AGG_100,
           '--aggregate', '--amend', '--resource', 'VCPU:reserved=1'],
          min_n=50 * populate.TREE,
          restore=_restore_aggregate(populate.AGG_100), slow=True),
    Bench('inventory set --aggregate --amend (500 providers)',
          ['resource', 'provider', 'inventory', 'set', populate.AGG_500,
           '--aggregate', '--amend', '--resource', 'VCPU:reserved=1'],
          min_n=300 * populate.TREE,
          restore=_restore_aggregate(populate.AGG_500), slow=True),
)


def run_process(argv, env, out_path):
    """Run argv to completion: (wall seconds, CPU seconds, peak RSS in KiB,
    exit code)."""
    with open(out_path, 'wb') as out, open(out_path + '.err', 'wb') as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    # Linux reports ru_maxrss in KiB.
    return (elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss,
            proc.returncode)


def _read(path):
    with open(path, 'rb') as f:
        return f.read()


def _first_difference(a, b):
    for number, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if x != y:
            return 'line %d: %r != %r' % (number, x[:120], y[:120])
    return 'one output has %d lines, the other %d' % (
        len(a.splitlines()), len(b.splitlines()))


def instructions(side, bench, env, sb, n, scratch):
    """Instructions executed by one run of the command (valgrind).

    Unlike times, this count does not depend on the load of the machine:
    it tells which side does more work in its own process.
    """
    env = dict(env, PYTHONHASHSEED='0')
    out = os.path.join(scratch, 'callgrind.out')
    proc = subprocess.run(
        ['valgrind', '--tool=callgrind', '--callgrind-out-file=' + out,
         side.openstack] + bench.argv, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    if bench.restore:
        bench.restore(sb, n)
    os.remove(out)
    match = re.search(r'Collected : (\d+)', proc.stderr)
    if proc.returncode or not match:
        raise SystemExit('valgrind failed on the %s side:\n%s'
                         % (side.name, proc.stderr[-2000:]))
    return int(match.group(1))


def server_time(sb, path, version, times=3):
    """Median seconds for the server to answer ``path`` alone (a fresh
    connection, as each ``openstack`` process makes)."""
    samples = []
    for _ in range(times):
        req = urllib.request.Request(
            sb.endpoint + path,
            headers={'X-Auth-Token': sandbox.TOKEN,
                     'Accept': 'application/json',
                     'OpenStack-API-Version': 'placement %s' % version})
        started = time.perf_counter()
        with urllib.request.urlopen(req, timeout=600) as resp:
            body = resp.read()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples), body


_COUNT = """
import json, sys
data = json.load(sys.stdin.buffer)
if 'allocation_requests' in data:
    counts = {'candidates': len(data['allocation_requests']),
              'candidate_provider_pairs': sum(
                  len(r['allocations']) for r in data['allocation_requests'])}
else:
    counts = {'providers': len(data['resource_providers'])}
print(json.dumps(counts))
"""


def _count_items(body):
    """Providers or candidates in a response body, counted in a child.

    Not here: a child starts with the RSS its parent had when it forked
    (Linux counts the pages of the forked copy in the child's peak RSS),
    so this process must stay small for the peak RSS of the measured
    processes to be theirs; decoding 10,000 providers here would make it
    over 100 MiB.
    """
    return json.loads(subprocess.run(
        [sys.executable, '-c', _COUNT], input=body, stdout=subprocess.PIPE,
        check=True).stdout)


def bench_size(sb, n, sides, args, scratch):
    env = _clean_env(sandbox.client_env(sb.endpoint))
    results = []
    for bench in BENCHES:
        if n < bench.min_n or (args.only and not any(
                word in bench.name for word in args.only)
                and bench.name != FLOOR):
            continue
        repeat = args.repeat_slow if bench.slow else args.repeat
        log('N=%d: %s (%d paired runs)' % (n, bench.name, repeat))
        record = {'command': bench.name, 'n': n,
                  'argv': ['openstack'] + bench.argv, 'sides': {}}
        samples = {side.name: {'seconds': [], 'cpu': [], 'rss_kib': [],
                               'requests': []}
                   for side in sides}
        outputs = {}

        def once(side, keep):
            out_path = os.path.join(scratch, '%s-%s' % (
                'out' if keep else 'warmup', side.name))
            with sb.count_requests() as seen:
                seconds, cpu, rss, code = run_process(
                    [side.openstack] + bench.argv, env, out_path)
            if code != 0:
                raise SystemExit(
                    '%s side: %s exited with %d:\n%s' % (
                        side.name, ' '.join(bench.argv), code,
                        _read(out_path + '.err').decode(errors='replace')))
            if bench.restore:
                bench.restore(sb, n)
            if keep:
                samples[side.name]['seconds'].append(seconds)
                samples[side.name]['cpu'].append(cpu)
                samples[side.name]['rss_kib'].append(rss)
                samples[side.name]['requests'].append(len(seen))
            else:
                outputs[side.name] = out_path
                samples[side.name]['warmup_requests'] = [
                    '%s %s' % (r.method, r.uri) for r in seen]

        for side in sides:
            once(side, keep=False)
        for i in range(repeat):
            for side in (sides if i % 2 == 0 else sides[::-1]):
                once(side, keep=True)

        ours, upstream = (outputs[s.name] for s in sides)
        # Compared on disk, in chunks: see _count_items() on memory.
        record['same_output'] = filecmp.cmp(ours, upstream, shallow=False)
        if not record['same_output']:
            record['output_difference'] = _first_difference(
                _read(ours).decode(errors='replace'),
                _read(upstream).decode(errors='replace'))
        record['output_bytes'] = os.path.getsize(ours)
        for side in sides:
            s = samples[side.name]
            record['sides'][side.name] = {
                'median_s': statistics.median(s['seconds']),
                'seconds': s['seconds'],
                'median_cpu_s': statistics.median(s['cpu']),
                'cpu_seconds': s['cpu'],
                'peak_rss_kib': max(s['rss_kib']),
                'median_rss_kib': statistics.median(s['rss_kib']),
                'requests': s['requests'][0],
                'requests_constant': len(set(s['requests'])) == 1,
                'request_lines': s['warmup_requests'],
            }
        if args.instructions == 'all' or (
                args.instructions == 'growth' and any(
                    bench.name == command for command, _, _ in GROWTH)):
            for side in sides:
                record['sides'][side.name]['instructions'] = instructions(
                    side, bench, env, sb, n, scratch)
        pairs = list(zip(*(samples[s.name]['seconds'] for s in sides)))
        record['paired_ratio_median'] = statistics.median(
            a / b for a, b in pairs)
        if bench.server_query:
            seconds, body = server_time(sb, *bench.server_query)
            record['server_alone_s'] = seconds
            record.update(_count_items(body))
            del body
        results.append(record)
    return results


# -- import cost --------------------------------------------------------------

def parse_importtime(text):
    """Top-level entries of a ``-X importtime`` report, as trees:
    {'name', 'self_us', 'cumulative_us', 'children'}."""
    pending = []
    for line in text.splitlines():
        if not line.startswith('import time:') or 'imported package' in line:
            continue
        self_us, cumulative_us, field = line[len('import time:'):].split(
            '|', 2)
        field = field[1:]
        name = field.lstrip(' ')
        level = (len(field) - len(name)) // 2
        entry = {'name': name, 'level': level, 'self_us': int(self_us),
                 'cumulative_us': int(cumulative_us), 'children': []}
        # The report is post-order: an entry's children precede it.
        while pending and pending[-1]['level'] > level:
            entry['children'].insert(0, pending.pop())
        pending.append(entry)
    return pending


def _walk(entries):
    for entry in entries:
        yield entry
        yield from _walk(entry['children'])


def plugin_imports(text, package='osc_placement'):
    """What the plugin's modules cost and brought in first."""
    tops = []

    def find(entries):
        for entry in entries:
            if entry['name'] == package or entry['name'].startswith(
                    package + '.'):
                tops.append(entry)
            else:
                find(entry['children'])
    roots = parse_importtime(text)
    find(roots)
    modules = {}
    foreign = {}
    for top in tops:
        for entry in _walk([top]):
            if entry['name'] == package or entry['name'].startswith(
                    package + '.'):
                modules[entry['name']] = entry['self_us']
            else:
                foreign[entry['name']] = entry['cumulative_us'] if \
                    entry['level'] == 0 else entry['self_us']
    return {
        'plugin_cumulative_us': sum(t['cumulative_us'] for t in tops),
        'total_us': sum(r['cumulative_us'] for r in roots),
        'modules_self_us': modules,
        # Modules first imported by the plugin (not yet imported by
        # OpenStackClient when the plugin asked for them).
        'foreign_modules': sorted(foreign),
    }


def import_cost(sides, env, argv, repeat):
    trace = os.path.join(HERE, 'importtrace.py')
    runs = {side.name: [] for side in sides}
    for i in range(repeat):
        for side in (sides if i % 2 == 0 else sides[::-1]):
            proc = subprocess.run(
                [side.python, '-X', 'importtime', trace, side.openstack]
                + argv, env=env, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, text=True)
            if proc.returncode:
                raise SystemExit('import trace of %s failed:\n%s' % (
                    side.name, proc.stderr[-2000:]))
            runs[side.name].append(plugin_imports(proc.stderr))
    result = {}
    for side in sides:
        r = runs[side.name]
        modules = {}
        for name in r[-1]['modules_self_us']:
            modules[name] = statistics.median(
                x['modules_self_us'].get(name, 0) for x in r)
        result[side.name] = {
            'plugin_ms': statistics.median(
                x['plugin_cumulative_us'] for x in r) / 1000,
            'all_imports_ms': statistics.median(
                x['total_us'] for x in r) / 1000,
            'modules_self_ms': {k: v / 1000 for k, v in sorted(
                modules.items(), key=lambda kv: -kv[1])},
            'foreign_modules': r[-1]['foreign_modules'],
        }
    return result


# -- the report ---------------------------------------------------------------

def _num(value):
    return '%.0f' % value if abs(value) >= 100 else '%.2f' % value


def _ms(seconds):
    return '%.0f' % (seconds * 1000)


def table(results, floors):
    header = ('N', 'command', 'ours ms', 'ref ms', 'ratio', 'paired',
              'ours share', 'ref share', 'CPU ms ours/ref', 'requests',
              'RSS MiB ours/ref', 'same out')
    counted = any('instructions' in r['sides']['ours'] for r in results)
    if counted:
        header += ('Minstr ours/ref',)
    rows = []
    for r in results:
        o, u = r['sides']['ours'], r['sides']['upstream']
        floor = floors[r['n']]
        if r['command'] == FLOOR:
            shares = ('-', '-')
        else:
            shares = (_ms(o['median_s'] - floor['ours']),
                      _ms(u['median_s'] - floor['upstream']))
        rows.append((
            str(r['n']), r['command'], _ms(o['median_s']),
            _ms(u['median_s']), '%.3f' % (o['median_s'] / u['median_s']),
            '%.3f' % r['paired_ratio_median'], shares[0], shares[1],
            '%s/%s' % (_ms(o['median_cpu_s']), _ms(u['median_cpu_s'])),
            '%d/%d' % (o['requests'], u['requests']),
            '%.1f/%.1f' % (o['median_rss_kib'] / 1024,
                           u['median_rss_kib'] / 1024),
            'yes' if r['same_output'] else 'NO')
            + (('%.0f/%.0f' % (o['instructions'] / 1e6,
                               u['instructions'] / 1e6)
                if 'instructions' in o else '-',)
               if counted else ()))
    widths = [max(len(row[i]) for row in rows + [header])
              for i in range(len(header))]
    lines = []
    for row in [header] + rows:
        lines.append('  '.join(
            cell.ljust(w) if i == 1 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths))))
    lines.insert(1, '-' * len(lines[0]))
    return '\n'.join(lines)


def _floors(results):
    return {r['n']: {side: r['sides'][side]['median_s']
                     for side in ('ours', 'upstream')}
            for r in results if r['command'] == FLOOR}


GROWTH = (('resource provider list -f json', 'providers', 'provider'),
          ('allocation candidate list --resource VCPU=1 (1.29)',
           'candidate_provider_pairs', '(candidate, provider) pair'))

# name, how to read it from a record's side, unit shown, scale to the unit
METRICS = (
    ('instructions', lambda r, s: s.get('instructions'), 'instr', 1),
    ('cpu', lambda r, s: s['median_cpu_s'], 'us', 1e6),
    ('wall - server', lambda r, s: s['median_s'] - r['server_alone_s'],
     'us', 1e6),
    ('peak RSS', lambda r, s: s['median_rss_kib'], 'KiB', 1),
)


def growth(results, command, count_key, side):
    """How the client's cost grows with the number of items.

    For each metric, the marginal cost of one more item between
    consecutive sizes: (cost(N2) - cost(N1)) / (items(N2) - items(N1)). The
    fixed cost of a command (start-up, imports, parser) cancels out, and
    so does the server's time for the CPU, instructions and RSS metrics
    (they are the client process's own). Linear growth keeps the marginal
    cost flat: ``ratio`` is the last interval's over the one before.
    """
    records = sorted((r for r in results
                      if r['command'] == command and r.get(count_key)),
                     key=lambda r: r['n'])
    out = {'sizes': [r['n'] for r in records],
           'items': [r[count_key] for r in records], 'metrics': {}}
    for name, read, unit, scale in METRICS:
        values = [read(r, r['sides'][side]) for r in records]
        if len(values) < 2 or any(v is None for v in values):
            continue
        slopes = [(values[i] - values[i - 1]) * scale
                  / (out['items'][i] - out['items'][i - 1])
                  for i in range(1, len(values))]
        out['metrics'][name] = {
            'unit': unit, 'per_item': slopes,
            'ratio': (slopes[-1] / slopes[-2]
                      if len(slopes) >= 2 and slopes[-2] > 0 else None)}
    return out


def targets(results, imports):
    """The targets of issue 9, each with its verdict."""
    floors = _floors(results)
    verdicts = []

    def add(name, ok, detail):
        verdicts.append({'target': name,
                         'holds': None if ok is None else bool(ok),
                         'detail': detail})

    slower = ['%s N=%d (%.3f)' % (r['command'], r['n'],
                                  r['sides']['ours']['median_s']
                                  / r['sides']['upstream']['median_s'])
              for r in results
              if r['sides']['ours']['median_s']
              > r['sides']['upstream']['median_s']]
    add('median time <= 1.00x the reference for every command',
        not slower, 'slower: ' + ', '.join(slower) if slower else
        'every command')
    bigger_share = []
    for r in results:
        if r['command'] == FLOOR:
            continue
        f = floors[r['n']]
        ours = r['sides']['ours']['median_s'] - f['ours']
        ref = r['sides']['upstream']['median_s'] - f['upstream']
        if ours > ref:
            bigger_share.append('%s N=%d (%+.0f ms)' % (
                r['command'], r['n'], (ours - ref) * 1000))
    add("plugin's share (command - floor) <= the reference's",
        not bigger_share, 'larger: ' + ', '.join(bigger_share)
        if bigger_share else 'every command')
    counted = [r for r in results if 'instructions' in r['sides']['ours']]
    if counted:
        more = ['%s N=%d (%+.1f%%)' % (
            r['command'], r['n'],
            (r['sides']['ours']['instructions']
             / r['sides']['upstream']['instructions'] - 1) * 100)
            for r in counted if r['sides']['ours']['instructions']
            > r['sides']['upstream']['instructions']]
        add('instructions per command <= the reference (valgrind, '
            'independent of the load)', not more,
            'more: ' + ', '.join(more) if more else 'every command')
    extra = ['%s N=%d (%d vs %d)' % (r['command'], r['n'],
                                     r['sides']['ours']['requests'],
                                     r['sides']['upstream']['requests'])
             for r in results if r['sides']['ours']['requests']
             != r['sides']['upstream']['requests']]
    add('requests per command = the reference', not extra,
        'different: ' + ', '.join(extra) if extra else 'every command')
    unlike = ['%s N=%d' % (r['command'], r['n']) for r in results
              if r['sides']['ours'].get('request_lines')
              != r['sides']['upstream'].get('request_lines')]
    add('same requests (method, path and query, in order) as the '
        'reference', not unlike,
        'different: ' + ', '.join(unlike) if unlike else 'every command')
    if imports:
        plugin_only = imports['--version']['ours']['foreign_modules']
        add('importing osc_placement.plugin adds no module OSC has not '
            'imported', not plugin_only,
            'new modules: %s' % ', '.join(plugin_only) if plugin_only
            else 'none (openstack --version)')
        cmd = imports['placement command']
        add('import cost of the plugin <= the reference (placement '
            'command)', cmd['ours']['plugin_ms']
            <= cmd['upstream']['plugin_ms'],
            'ours %.1f ms, reference %.1f ms; modules first imported by '
            'ours: %s' % (cmd['ours']['plugin_ms'],
                          cmd['upstream']['plugin_ms'],
                          ', '.join(cmd['ours']['foreign_modules'])
                          or 'none'))
    big = [r for r in results
           if r['command'] == 'resource provider list -f json']
    if big:
        top = max(big, key=lambda r: r['n'])
        o, u = top['sides']['ours'], top['sides']['upstream']
        add('list -f json at N=%d: time <= reference' % top['n'],
            o['median_s'] <= u['median_s'],
            '%.0f vs %.0f ms' % (o['median_s'] * 1000,
                                 u['median_s'] * 1000))
        add('list -f json at N=%d: peak RSS <= reference' % top['n'],
            o['median_rss_kib'] <= u['median_rss_kib'],
            '%d vs %d KiB (medians of the runs)' % (
                o['median_rss_kib'], u['median_rss_kib']))
    for command, key, item in GROWTH:
        g = growth(results, command, key, 'ours')
        name = ('%s grows linearly: marginal cost per %s within 1.2 from '
                'one interval of N to the next' % (command, item))
        m = g['metrics'].get('instructions')
        if len(g['sizes']) < 3:
            continue
        if not m or m['ratio'] is None:
            # The marginal time per item is a few microseconds: far below
            # what wall or CPU times measure on a shared machine.
            add(name, None, 'not measured: needs instruction counts '
                '(--instructions growth, valgrind)')
            continue
        add(name, m['ratio'] <= 1.2,
            'instructions per item %s (N=%s; ratio %.2f)' % (
                ' -> '.join(_num(v) for v in m['per_item']),
                ','.join(map(str, g['sizes'])), m['ratio']))
    return verdicts


def merge(reports):
    """The first report, with the instruction counts (and the commands
    or sizes it lacks) of the others."""
    base = reports[0]
    index = {(r['command'], r['n']): r for r in base['results']}
    for other in reports[1:]:
        if other['ours'] != base['ours']:
            log('warning: merging figures of %s into %s'
                % (other['ours'], base['ours']))
        for r in other['results']:
            key = (r['command'], r['n'])
            if key not in index:
                index[key] = r
                base['results'].append(r)
                continue
            for side in ('ours', 'upstream'):
                if 'instructions' in r['sides'][side]:
                    index[key]['sides'][side]['instructions'] = \
                        r['sides'][side]['instructions']
        base['imports'] = base.get('imports') or other.get('imports')
    order = {b.name: i for i, b in enumerate(BENCHES)}
    base['results'].sort(key=lambda r: (r['n'], order.get(r['command'])))
    return base


def conclude(report):
    report['targets'] = targets(report['results'], report['imports'])
    report['growth'] = {
        command: {side: growth(report['results'], command, key, side)
                  for side in ('ours', 'upstream')}
        for command, key, item in GROWTH}


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='tools/bench/bench.py', description=__doc__.split('\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        '--sizes', metavar='N[,N...]',
        type=lambda v: tuple(int(x) for x in v.split(',')),
        help='numbers of providers (default: %s; --quick: %s)' % (
            ','.join(map(str, DEFAULT_SIZES)),
            ','.join(map(str, QUICK_SIZES))))
    parser.add_argument('--quick', action='store_true',
                        help='smoke run: small clouds, 3 paired runs')
    parser.add_argument('--repeat', type=int,
                        help='paired runs per command (default: 7; '
                             '--quick: 3)')
    parser.add_argument('--repeat-slow', type=int,
                        help='paired runs of the inventory set commands '
                             '(default: 3; --quick: 1)')
    parser.add_argument('--only', action='append', default=[],
                        metavar='TEXT',
                        help='only the commands whose name contains TEXT '
                             '(repeatable; the floor always runs)')
    parser.add_argument(
        '--instructions', choices=('all', 'growth', 'none'),
        help='also count the instructions of one run of each command on '
             'each side with valgrind: slow, but independent of the load. '
             '"growth": only the two commands whose growth with N is a '
             'target (the default when valgrind is installed, except with '
             '--quick); "all": every command')
    parser.add_argument('--no-imports', action='store_true',
                        help='skip the import cost measurement')
    parser.add_argument('--upstream', default=UPSTREAM, metavar='SPEC',
                        help='the reference to install (default: '
                             '%(default)s)')
    parser.add_argument(
        '--ours-here', action='store_true',
        help='measure the plugin installed in this environment instead of '
             'installing this working tree in a virtualenv made like the '
             "upstream one (this environment also holds Placement's own "
             'packages, which every openstack start-up then scans)')
    parser.add_argument(
        '--ours-ref', metavar='GIT_REF',
        help='measure this commit of the repository instead of the working '
             'tree (e.g. HEAD, to leave uncommitted changes out)')
    parser.add_argument('--work-dir', metavar='DIR',
                        default=os.path.join(REPO, '.tox', 'bench-work'),
                        help='where the upstream virtualenv and the cached '
                             'databases live (default: %(default)s)')
    parser.add_argument('--json', metavar='FILE',
                        default=os.path.join(REPO, '.tox', 'bench-work',
                                             'results.json'),
                        help='where to write the results (default: '
                             '%(default)s)')
    parser.add_argument('--render', metavar='FILE', nargs='+',
                        help='print the report of earlier JSON files '
                             '(targets recomputed), run nothing; the '
                             'instruction counts of the later files are '
                             'added to the first one')
    args = parser.parse_args(argv)
    if args.render:
        reports = []
        for path in args.render:
            with open(path) as f:
                reports.append(json.load(f))
        report = merge(reports)
        conclude(report)
        print(render(report))
        return 0
    args.sizes = args.sizes or (QUICK_SIZES if args.quick else
                                DEFAULT_SIZES)
    args.repeat = args.repeat or (3 if args.quick else 7)
    args.repeat_slow = args.repeat_slow or (1 if args.quick else 3)
    if args.instructions is None:
        args.instructions = 'growth' if shutil.which('valgrind') and \
            not args.quick else 'none'
    elif args.instructions != 'none' and not shutil.which('valgrind'):
        parser.error('--instructions needs valgrind')

    if sys.flags.dont_write_bytecode:
        log('note: this Python does not write .pyc files '
            '(PYTHONDONTWRITEBYTECODE); the openstack processes measured '
            'do, as it is removed from their environment')
    os.makedirs(args.work_dir, exist_ok=True)
    info = machine()
    log('machine: %(nproc)s CPUs, %(cpu)s, Python %(python)s' % info)
    if args.ours_here:
        ours = Side('ours', os.path.dirname(sys.executable))
        ours_source = 'installed in %s' % sys.prefix
    else:
        ours = Side('ours', client_venv(
            args.work_dir, 'ours', ['-r', os.path.join(REPO,
                                                       'requirements.txt')]))
        ours_source = install_ours(os.path.dirname(ours.python),
                                   args.ours_ref)
    upstream = Side('upstream', client_venv(args.work_dir, 'upstream',
                                            [args.upstream]))
    sides = (ours, upstream)
    report = {'machine': info, 'upstream': args.upstream,
              'ours': '%s, %s' % (installed_version(ours), ours_source),
              'options': {'sizes': args.sizes, 'repeat': args.repeat,
                          'repeat_slow': args.repeat_slow},
              'results': [], 'imports': None}
    scratch = _scratch_dir()
    started = time.monotonic()
    try:
        for n in args.sizes:
            cached = database(args.work_dir, n, scratch)
            working = os.path.join(scratch, 'placement.sqlite')
            shutil.copyfile(cached, working)
            with sandbox.Sandbox(db_path=working) as sb:
                report['results'].extend(
                    bench_size(sb, n, sides, args, scratch))
                if not args.no_imports and report['imports'] is None:
                    log('import cost (python -X importtime)')
                    env = _clean_env(sandbox.client_env(sb.endpoint))
                    report['imports'] = {
                        '--version': import_cost(
                            sides, env, ['--version'], args.repeat),
                        'placement command': import_cost(
                            sides, env, ['resource', 'class', 'list'],
                            args.repeat)}
            os.remove(working)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report['duration_s'] = round(time.monotonic() - started)
    # Must stay below the peak RSS of the processes measured (a child's
    # peak RSS starts at its parent's RSS): see _count_items().
    report['bench_process_peak_rss_kib'] = resource.getrusage(
        resource.RUSAGE_SELF).ru_maxrss
    report['machine']['load_average_at_end'] = os.getloadavg()
    conclude(report)

    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, 'w') as f:
        json.dump(report, f, indent=1, sort_keys=True)
    print(render(report))
    print('\nJSON: %s' % args.json)
    return 0


def render(report):
    """The terminal report (also used to write the docs page)."""
    m = report['machine']
    lines = ['osc-placement (ours, %s) vs %s; python-openstackclient %s, '
             'Placement %s' % (report['ours'], report['upstream'],
                               m['python-openstackclient'],
                               m['openstack-placement']),
             'Machine: %s CPUs (%s), %s GiB, Python %s, %s; load average '
             '%.2f at start' % (m['nproc'], m['cpu'], m['memory_gib'],
                                m['python'], m['platform'],
                                m['load_average_at_start'][0]),
             'Medians of %d paired runs (%d for inventory set); ratio = '
             'ours/ref of the medians, paired = median of the per-pair '
             'ratios; share = command - its side\'s "%s".' % (
                 report['options']['repeat'],
                 report['options']['repeat_slow'], FLOOR),
             '']
    lines.append(table(report['results'], _floors(report['results'])))
    if report.get('imports'):
        lines.append('')
        for what, sides in report['imports'].items():
            lines.append('Import cost of osc_placement (%s): ours %.1f ms, '
                         'reference %.1f ms (all imports: %.0f / %.0f ms)'
                         % (what, sides['ours']['plugin_ms'],
                            sides['upstream']['plugin_ms'],
                            sides['ours']['all_imports_ms'],
                            sides['upstream']['all_imports_ms']))
            for side in ('ours', 'upstream'):
                lines.append('  %s: modules first imported by the plugin: %s'
                             % (side, ', '.join(
                                 sides[side]['foreign_modules']) or 'none'))
    for command, sides in report.get('growth', {}).items():
        if len(sides['ours']['sizes']) < 2:
            continue
        lines.append('')
        lines.append('Marginal client cost per item of "%s", between sizes '
                     '%s (items: %s):' % (
                         command, ', '.join(map(str, sides['ours']['sizes'])),
                         ', '.join(map(str, sides['ours']['items']))))
        for side in ('ours', 'upstream'):
            for name, m in sides[side]['metrics'].items():
                lines.append('  %-8s %-13s %s %s' % (
                    side, name, ' -> '.join(_num(v) for v in m['per_item']),
                    m['unit']))
    lines.append('')
    lines.append('Targets (issue 9):')
    for t in report['targets']:
        lines.append('  [%s] %s: %s' % (
            {True: 'ok', False: 'NO', None: '--'}[t['holds']],
            t['target'], t['detail']))
    return '\n'.join(lines)


if __name__ == '__main__':
    sys.exit(main())
