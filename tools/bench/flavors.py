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


"""``--only flavors``: capacity fit --all-flavors over the bench cloud.

Starts Keystone, the Nova API and Placement, seeds the cloud and 20
flavors (BENCH_FLAVORS; ``--flavors-count N`` for more, variants of
them), checks one answer, times ``capacity fit --all-flavors`` (and
``--summary``) with its peak RSS, and counts the Placement requests of
each: the trees read once, one candidates request per flavor, the
re-asks within trees within their bound.
"""

import collections
import json
import time
from urllib import parse as urlparse

from osc_placement import microversions
from osc_placement.tests.support import cloud

import common
import measure
import report
import scale
import targets
import venvs

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
# How many flavors by default; issue 41's memory case asks for 100
# (--flavors-count 100), each past BENCH_FLAVORS a variant of one of them.
FLAVORS_COUNT = len(BENCH_FLAVORS)


def bench_flavors(count=FLAVORS_COUNT):
    """``count`` flavors: BENCH_FLAVORS, then variants of them in turn.

    The k-th variant of a flavor (k = 1, 2, ...) is named ``<name>.v<k>``
    and asks for k x 256 MiB more memory, so that each flavor is its own
    candidates request, as a cloud's many similar flavors are.
    """
    flavors = list(BENCH_FLAVORS[:count])
    for number in range(len(flavors), count):
        k, base = divmod(number, len(BENCH_FLAVORS))
        name, vcpus, ram, disk, ephemeral, swap, specs = BENCH_FLAVORS[base]
        flavors.append(('%s.v%d' % (name, k), vcpus, ram + 256 * k, disk,
                        ephemeral, swap, specs))
    return flavors


# Flavors with several groups need named groups' and root_required's
# microversions: the session asks for this one.
FLAVORS_VERSION = microversions.LATEST
# The rows as a script takes them at this scale: -f csv writes each
# flavor's rows as they are counted, where a table (cliff lays it out
# whole: 200,000 rows for 100 flavors over 2,000 trees) holds them all.
FLAVORS_COMMANDS = (
    ('resource provider capacity fit --all-flavors -f csv',
     targets.RP + ['capacity', 'fit', '--all-flavors', '-f', 'csv']),
    ('resource provider capacity fit --all-flavors --summary',
     targets.RP + ['capacity', 'fit', '--all-flavors', '--summary']),
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
    once), 'other', 'most_reasks' (the most times one request within a
    tree was sent: 1 when each flavor asks again about a tree at most
    once)}.
    """
    found = collections.Counter()
    per_path = collections.Counter()
    per_reask = collections.Counter()
    providers = set()
    for request in requests:
        method, uri = request.split(' ', 1)
        parts = urlparse.urlsplit(uri)
        path = parts.path.rstrip('/')
        query = urlparse.parse_qs(parts.query)
        if path.endswith('/allocation_candidates'):
            found['reasks' if 'in_tree' in query else 'candidates'] += 1
            if 'in_tree' in query:
                per_reask[uri] += 1
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
            'other': found['other'],
            'most_reasks': max(per_reask.values(), default=0)}


def reask_bound(flavors, trees):
    """The most re-asks within a tree a run may send.

    One per flavor and tree at most: only a tree that the local
    evaluation takes for a candidate and a non-empty (so perhaps cut)
    answer lacks is asked about again (``verdicts.settle()``).
    """
    return flavors * trees


def flavors_holds(reads, flavors, trees=None):
    """Whether one run read the trees once and asked once per flavor.

    And, given the number of trees, asked again within a tree at most
    :func:`reask_bound` times, each tree at most once per flavor.
    """
    bounded = trees is None or (
        reads['reasks'] <= reask_bound(flavors, trees)
        and reads.get('most_reasks', 0) <= 1)
    return reads['most_reads'] == 1 and reads['candidates'] == flavors \
        and bounded


def run_flavors(args, ours, n, count=FLAVORS_COUNT):
    """A NovaCloud, ``n`` providers, ``count`` flavors; FLAVORS_COMMANDS.

    The flavors: bench_flavors(count).
    """
    made = bench_flavors(count)
    trees = -(-n // cloud.TREE)
    # Only here: the default bench never starts Keystone nor Nova.
    from osc_placement.tests.support import stack
    rows = []
    common.log('flavors: starting Keystone, Placement (PostgreSQL) and Nova')
    started = time.monotonic()
    with stack.NovaCloud(placement_options={'db': 'postgresql'}) as box:
        sb = box.placement
        common.log('flavors: populating %d providers, creating %d flavors' % (
            n, len(made)))
        cloud.populate(sb.server_endpoint, n, parallel=sb.requests_in_flight,
                       token=box.token)
        sb.analyze()
        create_flavors(box, made)
        ready = time.monotonic() - started
        common.log('flavors: ready in %.0f s' % ready)
        env = box.client_env(venvs.clean_env())
        base = [ours, '--os-placement-api-version', FLAVORS_VERSION]
        check = measure.check_run(
            base + FLAVORS_COMMANDS[1][1] + ['-f', 'json'], env, sb, None)
        if check['code'] or check['err']:
            raise SystemExit('capacity fit --all-flavors exited with %d: %s'
                             % (check['code'], check['err'].strip()[-300:]))
        answers = json.loads(check['out'])
        names = sorted(flavor[0] for flavor in made)
        if [row['flavor'] for row in answers] != names:
            raise SystemExit('capacity fit --all-flavors --summary: the '
                             'flavors %s, not %s' % (
                                 [row['flavor'] for row in answers], names))
        for name, argv in FLAVORS_COMMANDS:
            common.log('flavors: ' + name)
            runs = []
            for _ in range(args.rounds):
                startup = measure.check_run([ours, '--version'], env, sb, None)
                run = measure.check_run(base + argv, env, sb, None)
                if run['code'] or run['err']:
                    raise SystemExit('%s exited with %d: %s' % (
                        name, run['code'], run['err'].strip()[-300:]))
                runs.append((run, startup))
            row = scale.scale_row(name, runs)
            row['placement'] = placement_reads(runs[0][0]['requests'])
            row['holds'] = row['holds'] and flavors_holds(
                row['placement'], len(made), trees)
            row['detail'] += (
                '; Placement: %(provider_lists)d provider list(s), '
                '%(provider_reads)d reads of %(providers)d providers (each '
                'path at most %(most_reads)d time(s)), %(candidates)d '
                'candidates requests, %(reasks)d re-asks within a tree'
                % row['placement'] + ' (at most %d: one per flavor and '
                'tree; each sent at most once: %s)' % (
                    reask_bound(len(made), trees),
                    'yes' if row['placement']['most_reasks'] <= 1
                    else 'no'))
            rows.append(row)
            common.log('  %s' % row['detail'])
    return {'providers': n, 'flavors': len(made), 'trees': trees,
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
        detail = report.clauses(row['detail'])
        lines.append('      %s' % detail[0])
        lines.extend('        %s' % clause for clause in detail[1:])
    return '\n'.join(lines)
