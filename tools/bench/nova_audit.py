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

"""``--only audit``: resource provider audit against nova-manage's audit.

Starts Keystone, the Nova API (with the stand-in network API its server
list asks), and Placement on PostgreSQL behind a relay that delays each
request by AUDIT_LATENCY_MS. Seeds the audit's scenario
(``nova_seed.audit_scenario()``: one known finding of each kind), then
in bulk N compute nodes (each a root provider with ``COMPUTE_NODE`` and
its inventories) and 2N servers on them (in a project of their own,
BULK_PROJECT), with a few more findings every
FINDING_EVERY hosts (a consumer that is no server, a server with no
allocation):

* Nova's records in ONE subprocess of ``nova.objects``
  (``nova_seed.write_nova()``, the e2e-nova seeder, unchanged);
* the providers straight to the Placement server (no relay), in
  parallel, and the allocations in POST /allocations batches of
  ALLOCATION_BATCH consumers.

Then, in ``--rounds`` rounds, taking turns on the same cloud: our
``openstack resource provider audit`` (whole command, default
parallelism) and nova-manage's ``placement audit --verbose`` (which reads
Nova's databases directly, and Placement through the same relay), with
the wall time, the peak RSS of each process and the Placement requests
each sent (the server's request log). One more run of ours with
``--debug`` counts its requests to Nova (keystoneauth's ``REQ:`` lines).
"""

from concurrent import futures
import json
import os
import re
import socketserver
import subprocess
import tempfile
import threading
import time
from urllib import parse as urlparse
from wsgiref import simple_server

from osc_placement.tests.support import cloud
from osc_placement.tests.support import processes

import common
import measure
import venvs

AUDIT_PROVIDERS = (100, 2000)
AUDIT_LATENCY_MS = 20
# The targets: ours at least this many times faster than
# nova-manage, and under this peak RSS.
AUDIT_SPEED_UP = 5.0
AUDIT_RSS_MB = 150
SERVERS_PER_HOST = 2
# Every FINDING_EVERY-th host gets an orphan consumer and a server with
# no allocation.
FINDING_EVERY = 50
ALLOCATION_BATCH = 500
SEED_PARALLEL = 8
# The project of the bulk servers and orphans, not the scenario's: its
# findings (among them a server held in another project's name) stay in
# a project of a few servers, as in a cloud of many projects, and the
# bulk is a healthy project with orphans in its own name.
BULK_PROJECT = 'project-bench'
# After the audit, the drain plan of this many of the bulk hosts (the
# first ones), with Nova's reads.
DRAINED_HOSTS = 20
# Nova's records of 2N servers in one subprocess: minutes at 4,000.
NOVA_SEED_TIMEOUT = 3600

_BENCH = 'be7c'
# keystoneauth's debug line of a request; a URL with a query is quoted.
_REQ = re.compile(r'REQ: curl -g -i (?:--insecure )?-X (\w+) "?([^"\s]+)')


def _uuid(kind, n):
    """A fixed UUID of the bench cloud (``kind``: two hex digits)."""
    return '%s%s00-0000-4000-8000-%012d' % (_BENCH, kind, n)


def host_name(n):
    return 'bench-cmp-%05d' % n


def bulk_cloud(n, flavor, inventory, resources, project, user):
    """The bulk part: (Nova spec, providers, allocations, findings).

    ``n`` hosts, SERVERS_PER_HOST servers on each. Providers are
    (name, uuid, inventory); allocations (consumer, {provider:
    resources});
    ``findings``: {'orphan': consumers, 'missing': servers} added here.
    """
    hosts, servers, providers, allocations = [], [], [], []
    findings = {'orphan': [], 'missing': []}
    for h in range(n):
        name, uuid = host_name(h), _uuid('01', h)
        hosts.append({'host': name, 'uuid': uuid, 'vcpus': 16,
                      'memory_mb': 32768, 'local_gb': 500})
        providers.append((name, uuid, inventory))
        for s in range(SERVERS_PER_HOST):
            number = h * SERVERS_PER_HOST + s
            server = _uuid('02', number)
            servers.append({
                'uuid': server, 'name': 'bench-srv-%05d' % number,
                'flavor': flavor, 'host': name, 'image': _uuid('03', 0),
                'project': project, 'user': user, 'vm_state': 'active',
                'task_state': None, 'deleted': False,
                'launched': '2026-01-01T00:00:00'})
            if h % FINDING_EVERY == 0 and s == 0:
                findings['missing'].append(server)
            else:
                allocations.append((server, {uuid: resources}))
        if h % FINDING_EVERY == 0:
            orphan = _uuid('04', h)
            findings['orphan'].append(orphan)
            allocations.append((orphan, {uuid: resources}))
    return ({'hosts': hosts, 'servers': servers}, providers, allocations,
            findings)


def allocation_batches(allocations, project, user, size=ALLOCATION_BATCH):
    """POST /allocations bodies of ``size`` consumers each.

    ``allocations``: (consumer, {provider: {class: amount}}), new
    consumers of ``project`` and ``user``.
    """
    for start in range(0, len(allocations), size):
        yield {consumer: {
            'allocations': {provider: {'resources': resources}
                            for provider, resources in held.items()},
            'project_id': project, 'user_id': user,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'}
            for consumer, held in allocations[start:start + size]}


def seed_placement(endpoint, token, providers, allocations, project, user):
    """The bulk providers (in parallel), then the allocations in batches."""
    with futures.ThreadPoolExecutor(SEED_PARALLEL) as pool:
        list(pool.map(lambda p: cloud.create_provider(
            endpoint, p[0], p[1], None, p[2], ['COMPUTE_NODE'], [],
            token=token), providers))
    for body in allocation_batches(allocations, project, user):
        cloud.api(endpoint, 'POST', '/allocations', body, token=token,
                  timeout=600)


def placement_requests(requests):
    """Placement requests of one run, counted.

    ``requests``: "METHOD URI" strings. Returns {'provider_lists' (GET
    /resource_providers), 'allocation_reads' (GET
    /resource_providers/<uuid>/allocations), 'providers' (how many
    providers' allocations were read), 'most_reads' (the most reads of
    one provider's allocations), 'other', 'total', 'shapes' ({"METHOD
    path" with UUIDs as <uuid>: count})}.
    """
    lists = reads = other = 0
    per_provider = {}
    shapes = {}
    for request in requests:
        method, uri = request.split(' ', 1)
        path = urlparse.urlsplit(uri).path.rstrip('/')
        shape = '%s %s' % (method, re.sub('[0-9a-f-]{36}', '<uuid>', path))
        shapes[shape] = shapes.get(shape, 0) + 1
        if method == 'GET' and path.endswith('/resource_providers'):
            lists += 1
        elif method == 'GET' and path.endswith('/allocations') \
                and '/resource_providers/' in path:
            reads += 1
            rp = path.split('/resource_providers/')[1].split('/')[0]
            per_provider[rp] = per_provider.get(rp, 0) + 1
        else:
            other += 1
    return {'provider_lists': lists, 'allocation_reads': reads,
            'providers': len(per_provider),
            'most_reads': max(per_provider.values(), default=0),
            'other': other, 'total': len(requests), 'shapes': shapes}


def nova_requests(debug_err, compute_url):
    """Our requests to Nova in a ``--debug`` run's stderr.

    Returns {'total', 'paths': {path: count}, 'per_server' (requests to
    one server's path, /servers/<id>: none expected)}.
    """
    paths = {}
    per_server = 0
    for method, url in _REQ.findall(debug_err):
        if not url.startswith(compute_url):
            continue
        path = urlparse.urlsplit(url).path[len(
            urlparse.urlsplit(compute_url).path):]
        key = '%s %s' % (method, path)
        paths[key] = paths.get(key, 0) + 1
        if re.match(r'/servers/[0-9a-f-]{36}', path):
            per_server += 1
    return {'total': sum(paths.values()), 'paths': paths,
            'per_server': per_server}


def nova_reads_bound(servers, hypervisors, page=1000):
    """At most how many Nova reads ours may send: paged lists.

    Two server lists (live, deleted) and the hypervisors, each paged by
    ``page`` with one look past a full last page; the migrations (two
    pages at most here) and the aggregates (one). Never per server.
    """
    return (2 * (servers // page + 1) + (hypervisors // page + 1) + 2
            + 1)


def speed_up(ours_s, nova_manage_s):
    """How many times faster ours is (None without a time of ours)."""
    return nova_manage_s / ours_s if ours_s > 0 else None


def median(values):
    values = sorted(values)
    middle = len(values) // 2
    if len(values) % 2:
        return values[middle]
    return (values[middle - 1] + values[middle]) / 2.0


def audit_holds(ours_s, nova_manage_s, rss_kib, placement, providers,
                nova, servers, hypervisors):
    """(holds, the reasons it does not) of the issue's targets."""
    why = []
    ratio = speed_up(ours_s, nova_manage_s)
    if ratio is None or ratio < AUDIT_SPEED_UP:
        why.append('speed-up %s < %.0fx' % (
            'n/a' if ratio is None else '%.1fx' % ratio, AUDIT_SPEED_UP))
    if rss_kib / 1024.0 >= AUDIT_RSS_MB:
        why.append('peak RSS %.0f MB >= %d MB' % (rss_kib / 1024.0,
                                                  AUDIT_RSS_MB))
    if placement['most_reads'] != 1 or placement['providers'] < providers:
        why.append('allocations of %d providers read, at most %d times '
                   'each (expected %d, once)' % (
                       placement['providers'], placement['most_reads'],
                       providers))
    bound = nova_reads_bound(servers, hypervisors)
    if nova['per_server'] or nova['total'] > bound:
        why.append('%d Nova requests, %d per server (at most %d expected)'
                   % (nova['total'], nova['per_server'], bound))
    return not why, why


def server_groups(box):
    """{server: the root pids of its process trees} of the stack.

    The relay and the network stand-in are threads of the bench's own
    process: their CPU is this process's (``measure.own_cpu()``).
    """
    return {'nova': box.nova.server_pids[:1],
            'placement': box.placement.server_pids[:1],
            'postgresql': box.placement.postgres.pids[:1],
            'keystone': box.keystone.server_pids[:1]}


def servers_cpu(groups):
    """{server: CPU seconds used so far}, the bench's process as relay."""
    used = {name: processes.cpu_seconds(roots)
            for name, roots in groups.items()}
    used['relay'] = measure.own_cpu()
    return used


def floor(client_cpu, servers, cores=None):
    """The wall seconds below which a run cannot end on this machine.

    Its CPU and the servers' on its behalf, spread over every core.
    """
    return (client_cpu + sum(servers.values())) / (cores or os.cpu_count())


def _run(argv, env, sb, cwd=None, groups=None):
    """Run once: {code, out, err, wall, rss_kib, cpu, servers, ...}.

    Also ``floor`` (:func:`floor`) and ``requests``. servers: the CPU
    seconds each server spent meanwhile (groups: ``server_groups()``;
    none: the relay only).
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        with sb.count_requests() as seen:
            before = servers_cpu(groups or {})
            started = time.perf_counter()
            proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=err, cwd=cwd)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - started
            servers = {name: round(cpu - before[name], 2) for name, cpu
                       in servers_cpu(groups or {}).items()}
        out.seek(0)
        err.seek(0)
        cpu = usage.ru_utime + usage.ru_stime
        return {'code': os.waitstatus_to_exitcode(status),
                'out': out.read().decode('utf-8', 'replace'),
                'err': err.read().decode('utf-8', 'replace'),
                'wall': wall, 'rss_kib': usage.ru_maxrss, 'cpu': cpu,
                'servers': servers, 'floor': floor(cpu, servers),
                'requests': ['%s %s' % (r.method, r.uri) for r in seen]}


def _expect(run, codes, what):
    if run['code'] not in codes:
        raise SystemExit('%s exited with %d: %s' % (
            what, run['code'], (run['err'] or run['out']).strip()[-600:]))


def _seed(box, n):
    """The scenario and the bulk cloud; returns (findings, seconds)."""
    from osc_placement.tests.support import nova_seed
    started = time.monotonic()
    scenario = nova_seed.seed(box)
    spec, providers, allocations, findings = bulk_cloud(
        n, nova_seed.FLAVOR['name'], nova_seed.ROOT_INVENTORY,
        nova_seed.FLAVOR_RESOURCES, BULK_PROJECT, nova_seed.USER)
    common.log('audit: writing %d hosts and %d servers with nova.objects, '
               'and %d providers and %d consumers in Placement, at once'
               % (len(spec['hosts']), len(spec['servers']), len(providers),
                  len(allocations)))
    timed = {}

    def nova_part():
        begun = time.monotonic()
        nova_seed.write_nova(os.path.join(box.nova.workdir, 'nova.conf'),
                             spec, timeout=NOVA_SEED_TIMEOUT)
        timed['nova_s'] = round(time.monotonic() - begun)

    with futures.ThreadPoolExecutor(1) as pool:
        nova_done = pool.submit(nova_part)
        begun = time.monotonic()
        seed_placement(box.placement.server_endpoint, box.token, providers,
                       allocations, BULK_PROJECT, nova_seed.USER)
        timed['placement_s'] = round(time.monotonic() - begun)
        nova_done.result()
    common.log('audit: Nova records in %(nova_s)d s, Placement in '
               '%(placement_s)d s' % timed)
    expected = {kind: len(found) for kind, found in
                scenario.expected.items()}
    for kind, found in findings.items():
        expected[kind] = expected.get(kind, 0) + len(found)
    return {'expected': expected, 'servers': len(spec['servers']) + len(
        scenario.nova['servers']),
        'providers': len(providers) + len(scenario.providers),
        'hosts': len(spec['hosts']) + len(scenario.nova['hosts']),
        'nova_s': timed['nova_s'], 'placement_s': timed['placement_s'],
        'seed_s': round(time.monotonic() - started)}


class _Server(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True


class _Quiet(simple_server.WSGIRequestHandler):
    def log_message(self, *args):
        pass


def _network_stand_in(box):
    """The stand-in network API (``support.neutron``) in a thread here.

    Not under gunicorn as ``NeutronStandIn``: Nova asks for the ports of
    150 servers in one URL of about 7,000 characters, over gunicorn's
    4,094-character request line (HTTP 400, and Nova's server list
    answers 500). Returns its endpoint; stopped with ``box``.
    """
    from osc_placement.tests.support import neutron
    server = _Server(('127.0.0.1', 0), _Quiet)
    server.set_app(neutron.application)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    box.addCleanup(server.server_close)
    box.addCleanup(server.shutdown)
    return 'http://127.0.0.1:%d' % server.server_port


def _rounds(rounds, box, env, argv, manage_argv):
    """([ours' runs], [nova-manage's runs]), taking turns."""
    ours_runs, manage_runs = [], []
    groups = server_groups(box)
    for number in range(rounds):
        common.log('audit: round %d of %d' % (number + 1, rounds))
        run = _run(argv, env, box.placement, groups=groups)
        _expect(run, (3,), 'resource provider audit')
        ours_runs.append(run)
        run = _run(manage_argv, env, box.placement, cwd=box.nova.workdir,
                   groups=groups)
        _expect(run, (3,), 'nova-manage placement audit --verbose')
        manage_runs.append(run)
        common.log('  ours %.1f s (%.0f MB, floor %.1f s), nova-manage '
                   '%.1f s (floor %.1f s)' % (
                       ours_runs[-1]['wall'],
                       ours_runs[-1]['rss_kib'] / 1024.0,
                       ours_runs[-1]['floor'], run['wall'], run['floor']))
    return ours_runs, manage_runs


def run_audit(args, ours, n):
    """Seed, check both commands once, time them side by side."""
    # Only here: the default bench never starts Keystone nor Nova.
    from osc_placement.tests.support import neutron
    from osc_placement.tests.support import nova_manage
    from osc_placement.tests.support import stack
    common.log('audit: starting Keystone, Placement (PostgreSQL, %d ms '
               'relay) and Nova' % AUDIT_LATENCY_MS)
    started = time.monotonic()
    with stack.NovaCloud(placement_options={
            'db': 'postgresql', 'latency_ms': AUDIT_LATENCY_MS}) as box:
        network = _network_stand_in(box)
        neutron.register(box.keystone, network)
        common.log('audit: seeding %d hosts, %d servers' % (
            n, n * SERVERS_PER_HOST))
        seeded = _seed(box, n)
        sb = box.placement
        sb.analyze()
        ready = time.monotonic() - started
        common.log('audit: ready in %.0f s (%s)' % (ready, seeded))
        env = box.client_env(venvs.clean_env())
        argv = [ours, 'resource', 'provider', 'audit', '-f', 'json']
        manage = nova_manage.NovaManage(box)
        manage_argv = [manage.executable]
        for config in manage.config_files:
            manage_argv += ['--config-file', config]
        manage_argv += ['placement', 'audit', '--verbose']
        debug = _run([ours, '--debug', '--timing'] + argv[1:], env, sb)
        _expect(debug, (3,), 'resource provider audit --debug')
        with open(os.path.join(args.work_dir, 'audit-debug.txt'), 'w') as f:
            f.write(debug['err'] + '\n' + debug['out'])
        # The rows, then --timing's table of each request's seconds.
        rows = json.JSONDecoder().raw_decode(debug['out'].lstrip())[0]
        found = {}
        for row in rows:
            found[row['problem']] = found.get(row['problem'], 0) + 1
        nova = nova_requests(debug['err'], box.nova.url)
        ours_runs, manage_runs = _rounds(args.rounds, box, env, argv,
                                         manage_argv)
        manage_found = sorted({m.group(1) for m in map(
            nova_manage._AUDIT_FOUND.search,
            manage_runs[0]['out'].splitlines()) if m})
        drained = drain_with_nova(box, env, ours, n)
    ours_s = median([r['wall'] for r in ours_runs])
    manage_s = median([r['wall'] for r in manage_runs])
    rss = max(r['rss_kib'] for r in ours_runs)
    placement = placement_requests(ours_runs[0]['requests'])
    manage_placement = placement_requests(manage_runs[0]['requests'])
    holds, why = audit_holds(ours_s, manage_s, rss, placement,
                             seeded['providers'], nova, seeded['servers'],
                             seeded['hosts'])
    return {'providers': seeded['providers'], 'servers': seeded['servers'],
            'latency_ms': AUDIT_LATENCY_MS, 'ready_s': round(ready),
            'seed': seeded, 'found': found, 'rows': len(rows),
            'ours_s': [round(r['wall'], 2) for r in ours_runs],
            'ours_cpu_s': [round(r['cpu'], 2) for r in ours_runs],
            'nova_manage_s': [round(r['wall'], 2) for r in manage_runs],
            'nova_manage_cpu_s': [round(r['cpu'], 2) for r in manage_runs],
            'ours_servers_cpu_s': [r['servers'] for r in ours_runs],
            'nova_manage_servers_cpu_s': [r['servers'] for r in manage_runs],
            'cores': os.cpu_count(),
            'ours_floor_s': [round(r['floor'], 2) for r in ours_runs],
            'nova_manage_floor_s': [round(r['floor'], 2)
                                    for r in manage_runs],
            'nova_manage_rss_mb': round(max(
                r['rss_kib'] for r in manage_runs) / 1024.0),
            'speed_up': round(speed_up(ours_s, manage_s), 1),
            'rss_mb': round(rss / 1024.0), 'placement': placement,
            'nova_manage_placement': manage_placement, 'nova': nova,
            'nova_manage_consumers': len(manage_found),
            'drain': drained, 'holds': holds, 'why': why}


def _shapes(requests):
    """{"METHOD path" with UUIDs as <uuid>: count} of "METHOD uri"s."""
    return placement_requests(requests)['shapes']


def drain_with_nova(box, env, ours, n):
    """One drain plan of the first DRAINED_HOSTS hosts, Nova's reads in.

    Its wall time, CPU and peak RSS, its rows, the Placement requests it
    sent (any sent twice) and its requests to Nova (the Nova API's own
    log), by path; then, from one more run with ``--debug``, how long its
    reads of the compute API and its search took.
    """
    names = [host_name(h) for h in range(min(n, DRAINED_HOSTS))]
    argv = [ours, 'resource', 'provider', 'drain', 'plan'] + names + [
        '--long', '-f', 'json']
    common.log('audit: drain plan of %d hosts' % len(names))
    with box.nova.count_requests() as seen:
        run = _run(argv, env, box.placement, groups=server_groups(box))
    _expect(run, (0, 3), 'resource provider drain plan')
    # Once more with --debug, not timed: its lines say how long the
    # compute API's reads and the search took.
    debug = _run(measure.with_debug(argv), env, box.placement)
    _expect(debug, (0, 3), 'resource provider drain plan --debug')
    rows = json.loads(run['out'])
    nova = ['%s %s' % (r.method, r.uri) for r in seen]
    return {'hosts': len(names), 'code': run['code'],
            'wall_s': round(run['wall'], 2), 'cpu_s': round(run['cpu'], 2),
            'rss_mb': round(run['rss_kib'] / 1024.0),
            'servers_cpu_s': run['servers'], 'floor_s': round(run['floor'], 2),
            'rows': len(rows), 'moved': sum(1 for r in rows if r['to']),
            'summary': run['err'].strip().splitlines()[-1:],
            'placement': len(run['requests']),
            'repeated': measure.repeats(run['requests']),
            'placement_shapes': _shapes(run['requests']),
            'nova': len(nova), 'nova_shapes': _shapes(nova),
            'nova_reads_s': measure.said_seconds(debug['err'],
                                                 measure.NOVA_READS_LINE),
            'search_cpu_s': measure.said_seconds(debug['err'],
                                                 measure.SEARCH_LINE)}


def render_drain(result, cores):
    """The lines of drain_with_nova()'s run."""
    return [
        '      drain plan of %(hosts)d hosts, with Nova: exit %(code)d, '
        '%(wall_s).1f s, peak RSS %(rss_mb)d MB; %(rows)d rows, %(moved)d '
        'move' % result,
        '      drain plan stderr: %s' % ' '.join(result['summary']),
        '      drain plan to Placement: %d requests, %d sent twice or more: '
        '%s' % (result['placement'], len(result['repeated']), ', '.join(
            '%s x%d' % item for item in sorted(
                result['placement_shapes'].items()))),
        '      drain plan to Nova: %d requests: %s' % (
            result['nova'], ', '.join('%s x%d' % item for item in sorted(
                result['nova_shapes'].items()))),
        cpu_line('drain plan', result['cpu_s'], result['servers_cpu_s'],
                 result['floor_s'], cores),
        '      drain plan --debug, once more: the compute API\'s reads took '
        '%(nova_reads_s).2f s, the search %(search_cpu_s).2f s of CPU'
        % result]


def cpu_line(who, client, servers, floor, cores):
    """One run's CPU seconds, the client's and each server's."""
    return ('      %s CPU: client %.1f s, servers %.1f s (%s): no run under '
            '%.1f s on %d cores' % (
                who, client, sum(servers.values()), ', '.join(
                    '%s %.1f' % item for item in sorted(servers.items())),
                floor, cores))


def render_audit(result):
    lines = ['', 'audit: %(providers)d providers, %(servers)d servers, '
                 'Placement (PostgreSQL) behind a %(latency_ms)d ms relay '
                 '(ready in %(ready_s)d s)' % result,
             '[%s] resource provider audit vs nova-manage placement audit '
             '--verbose' % ('ok' if result['holds'] else 'not met'),
             '      ours %.1f s (median of %s), peak RSS %d MB; nova-manage '
             '%s s, %d MB: %.1fx' % (
                 median(result['ours_s']), result['ours_s'],
                 result['rss_mb'], result['nova_manage_s'],
                 result['nova_manage_rss_mb'], result['speed_up']),
             '      ours to Placement: %(provider_lists)d provider lists, '
             '%(allocation_reads)d allocation reads of %(providers)d '
             'providers (each at most %(most_reads)d time(s)), %(other)d '
             'other' % result['placement'],
             '      ours to Placement by path: %s' % ', '.join(
                 '%s x%d' % item for item in sorted(
                     result['placement']['shapes'].items())),
             '      nova-manage to Placement: %(total)d requests '
             '(%(allocation_reads)d allocation reads)'
             % result['nova_manage_placement'],
             '      ours to Nova: %d requests, %d per server: %s' % (
                 result['nova']['total'], result['nova']['per_server'],
                 ', '.join('%s x%d' % item for item in
                           sorted(result['nova']['paths'].items()))),
             cpu_line('ours', result['ours_cpu_s'][0],
                      result['ours_servers_cpu_s'][0],
                      result['ours_floor_s'][0], result['cores']),
             cpu_line('nova-manage', result['nova_manage_cpu_s'][0],
                      result['nova_manage_servers_cpu_s'][0],
                      result['nova_manage_floor_s'][0], result['cores']),
             '      at most %.1fx here: nova-manage\'s time over our floor' % (
                 median(result['nova_manage_s'])
                 / median(result['ours_floor_s'])),
             '      found: %s; nova-manage: %d consumers' % (', '.join(
                 '%s %d' % item for item in sorted(result['found'].items())),
                 result['nova_manage_consumers'])]
    if result.get('drain'):
        lines.extend(render_drain(result['drain'], result['cores']))
    lines.extend('      not met: %s' % why for why in result['why'])
    return '\n'.join(lines)
