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


"""``--only scale``: the cloud-wide commands on 10,000 providers.

Seeds a big cloud on PostgreSQL, times the cloud-wide commands on it
(ours alone, at 0 ms through the relay), and sets the performance page's
model beside them for openstack-exporter's pattern of requests.
"""

import statistics
import time

from osc_placement import plugin
from osc_placement.tests.support import client
from osc_placement.tests.support import cloud
from osc_placement.tests.support import placement
from osc_placement.tests.support import relay

import common
import measure
import targets
import venvs

# The cloud-wide commands on the big cloud, at 0 ms, ours alone.
SCALE_COMMANDS = (
    ('resource provider capacity list --summary',
     targets.RP + ['capacity', 'list', '--summary']),
    ('resource provider allocation list', targets.RP + ['allocation', 'list']),
    ('resource provider capacity fit',
     targets.RP + ['capacity', 'fit', '--resource', 'VCPU=2',
                   '--resource', 'MEMORY_MB=4096']),
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
# The parallelism of the model's figures: the views' default.
MODEL_PARALLEL = plugin.PARALLEL_NEW_COMMANDS


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
        common.log('scale: populating %d providers' % n)
        started = time.monotonic()
        cloud.populate(sb.server_endpoint, n, parallel=sb.requests_in_flight)
        sb.analyze()
        seeded = time.monotonic() - started
        common.log('scale: seeded and analyzed in %.0f s' % seeded)
        with relay.Relay(sb.server_endpoint, delay_ms=0) as proxy:
            env = venvs.clean_env(client.client_env(proxy.endpoint))
            for name, argv in SCALE_COMMANDS:
                common.log('scale: ' + name)
                runs = []
                for _ in range(args.rounds):
                    startup = measure.check_run([ours, '--version'], env,
                                                sb, None)
                    run = measure.check_run([ours] + argv, env, sb, None)
                    if run['code']:
                        raise SystemExit('%s exited with %d: %s' % (
                            name, run['code'], run['err'].strip()[-300:]))
                    runs.append((run, startup))
                rows.append(scale_row(name, runs))
                common.log('  %s' % rows[-1]['detail'])
        model = _scale_model(rows, n, sb.workers)
    return {'providers': n, 'seed_s': round(seeded), 'workers': sb.workers,
            'rows': rows, 'model': model}


def scale_row(name, runs):
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
