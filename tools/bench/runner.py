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


"""Running the targets: each on its server and cloud, measured and judged.

``run_targets()`` starts one server and seeds one cloud for each group of
targets that share them; ``run_target()`` runs a target's sides once
(checked), times them, and has ``verdicts.py`` judge the figures.
"""

import collections
import os

from osc_placement.tests.support import client
from osc_placement.tests.support import cloud
from osc_placement.tests.support import placement
from osc_placement.tests.support import relay

import common
import measure
import targets
import venvs
import verdicts


def run_targets(args, sides, out_dir):
    """The summaries of the targets chosen by ``--only``, in table order.

    The targets that share a server shape and a cloud size run on one
    server, seeded once.
    """
    chosen = [t for t in targets.TARGETS
              if not args.only or any(w in t.name for w in args.only)]
    groups = collections.OrderedDict()
    for target in chosen:
        n = target.items[0 if args.quick else 1]
        groups.setdefault((target.shape, target.cloud(n)), []).append(
            (target, n))
    results = []
    for (shape, size), members in groups.items():
        kwargs = {'db': 'postgresql'} if shape == 'production' else {}
        common.log('server %s, populating %d providers' % (shape, size))
        with placement.Placement(**kwargs) as sb:
            cloud.populate(sb.server_endpoint, size,
                           parallel=sb.requests_in_flight)
            sb.analyze()
            for target, n in members:
                common.log(target.name)
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
                common.log('  %s' % results[-1]['detail'])
    return results


def run_target(target, n, sb, endpoint, sides, args, out_dir):
    """Measure one target; returns its summary (a dict)."""
    ours, upstream = sides
    restore = target.restore and target.restore(n)
    parallel = ([targets.PARALLEL_OPTION, str(target.parallel)]
                if target.parallel else [])
    measured = [ours] + parallel + target.argv(n)
    if target.baseline == 'serial':
        base = [ours, targets.PARALLEL_OPTION, '1'] + target.argv(n)
    else:
        base = [upstream] + target.argv(n)
    env = venvs.clean_env(client.client_env(endpoint))
    summary = {'target': target.name, 'items': n, 'shape': target.shape,
               'latency_ms': target.latency_ms}
    # The baseline first: a command that changes the cloud (inventory set)
    # then finds it changed by the baseline, and sends the baseline's
    # requests; run first, ours would lower the capacities, and read the
    # usages before doing so (D19), which the reference never does.
    ran = {side: measure.check_run(argv, env, sb, restore)
           for side, argv in (('baseline', base), ('ours', measured))}
    checks = {side: ran[side] for side in ('ours', 'baseline')}
    summary.update(
        (side + '_' + key, checks[side][key]) for side in checks
        for key in ('code', 'rss_kib'))
    summary['requests'] = [len(checks[s]['requests']) for s in checks]
    problems, same_order = verdicts.check_problems(target, checks)
    if problems:
        summary.update(holds=False, detail='; '.join(problems))
        return summary

    slug = '%s-n%d' % (''.join(c if c.isalnum() else '-' for c in
                               target.name).strip('-')[:60], n)
    timed_sides, restores = _timed_sides(target, n, sides, measured, base,
                                         restore)
    paths = {side: os.path.join(out_dir, '%s-%s.json' % (slug, side))
             for side, _ in timed_sides}
    # One name on both sides: compare_to pairs benchmarks by name.
    timed = measure.time_sides('%s (%d items)' % (target.name, n),
                               timed_sides, env, sb, restores, paths,
                               args.pyperf, args.rounds)
    verdicts.speed(target, summary, timed, paths, same_order)
    if target.batch:
        verdicts.client_controls(target, summary, timed)
    if target.imports:
        verdicts.start_up(summary, timed, sides, target.argv(n), env)
    if target.loop and args.loop:
        summary['loop_s_per_provider'] = round(measure.time_loop(
            target.loop,
            [cloud.provider_uuid(p) for p in range(min(args.loop, n))],
            upstream, env), 3)
    return summary


def _timed_sides(target, n, sides, measured, base, restore):
    """The ``(side, argv)`` timed in each round, and their restores.

    Returns them with {side: how restore_cloud() puts the cloud back
    before each of its runs} (the start-up sides change nothing).
    """
    ours, upstream = sides
    timed_sides = [('baseline', base), ('ours', measured)]
    if target.batch and target.baseline != 'serial':
        # Ours at parallelism 1, for the client CPU of the serial run.
        timed_sides.insert(1, ('serial', [ours, targets.PARALLEL_OPTION, '1']
                               + target.argv(n)))
    restores = {side: restore for side, _ in timed_sides}
    if target.batch:
        # OpenStackClient's own start-up, in every round, taken off the
        # runs of the side with the same executable (see after_startup()).
        timed_sides.append(('startup', [ours, '--version']))
        if target.baseline == 'reference':
            timed_sides.append(('startup-reference', [upstream, '--version']))
    return timed_sides, restores
