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


"""Whether each target holds: the checks of its runs and its figures.

A target's own verdicts (``check_problems()``, ``speed()``,
``client_controls()``, ``start_up()``) add to its summary; those that
compare targets (``per_request_cpu()``, ``latency_hidden()``,
``start_up_summary()``) run on the whole list once every target has run.
"""

import math
import os
import statistics
import subprocess
import sys

import measure
import targets


def check_problems(target, checks):
    """What is wrong with the check runs of a target's two sides.

    ``checks``: {'ours': ..., 'baseline': ...}, measure.check_run()'s
    answers. Returns (the problems, in words; whether both sides sent the
    same requests in the same order).
    """
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
    return problems, same_order


def speed(target, summary, timed, paths, same_order):
    """The timed sides, compared: within noise, or the speed-up met.

    ``timed``: measure.time_sides()'s answer; ``paths``: its pyperf
    files, which ``pyperf compare_to`` compares.
    """
    benches = {side: timed[side][0] for side in ('baseline', 'ours')}
    cpu = {side: measure.cpu_medians(runs)
           for side, (_, runs) in timed.items()}
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


def client_controls(target, summary, timed):
    """The restated targets of a batch: CPUs busy, client CPU.

    ``timed``: measure.time_sides()'s answer, with ``ours`` (the parallel run),
    ``serial`` (ours at parallelism 1) or a serial ``baseline``, and the
    ``startup`` runs of each executable. The client CPU ratio is paired
    round by round; the CPUs busy are counted after the start-up, in
    each round (measure.after_startup()). Also records the client CPU
    per request of each side, start-up taken off, for per_request_cpu().
    """
    ours = timed['ours'][1]
    serial = timed['serial' if 'serial' in timed else 'baseline'][1]
    startups = {'ours': timed['startup'][1], 'serial': timed['startup'][1],
                'baseline': timed['startup-reference' if target.baseline
                                  == 'reference' else 'startup'][1]}
    left = {side: measure.after_startup(timed[side][1], startups[side])
            for side in ('ours', 'serial', 'baseline') if side in timed}
    summary['startup_s'] = {key: round(statistics.median(
        r[key] for r in timed['startup'][1]), 3) for key in ('wall',
                                                             'client')}
    summary['busy'] = measure.cpu_medians(ours)['busy']
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
        measure.paired_ratio(ours, serial, 'client')
    met = summary['client_cpu_ratio'] <= targets.CLIENT_CPU_RATIO
    words = ['client CPU %.2fx the serial run\'s (<= %.2fx; rounds: %s)' % (
        summary['client_cpu_ratio'], targets.CLIENT_CPU_RATIO,
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
        r['holds'] = r['holds'] and (r['client_cpu_per_request_ratio']
                                     <= targets.CLIENT_CPU_PER_REQUEST)
        r['detail'] += ('; client CPU %.2f ms per request, %.2fx the '
                        'reference\'s %.2f ms (<= %.2fx)' % (
                            mine, r['client_cpu_per_request_ratio'], theirs,
                            targets.CLIENT_CPU_PER_REQUEST))


def start_up(summary, timed, sides, argv, env):
    """A start-up target: the paired time ratio, our own imports."""
    summary['paired_ratio'], summary['paired_ratios'] = measure.paired_ratio(
        timed['ours'][1], timed['baseline'][1], 'wall')
    summary['imports_ms'] = {side: measure.import_ms(openstack, argv, env)
                             for side, openstack in zip(
                                 ('ours', 'baseline'), sides)}
    ours = summary['imports_ms']['ours']
    summary['holds'] = summary['holds'] and ours < targets.IMPORT_MS
    summary['detail'] += ('; paired ratio %.3fx; osc_placement imports '
                          '%.1f ms (< %.0f ms; the reference\'s %.1f ms)' % (
                              summary['paired_ratio'], ours,
                              targets.IMPORT_MS,
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
            'holds': mean <= targets.START_UP_RATIO,
            'detail': '%.3fx (<= %.2fx); osc_placement imports %.1f-%.1f ms '
                      'per command (< %.0f ms)' % (
                          mean, targets.START_UP_RATIO, min(imports),
                          max(imports), targets.IMPORT_MS)}


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
        r['holds'] = r['holds'] and r['vs_0ms'] <= targets.LATENCY_HIDDEN
        r['detail'] += '; %.2fx its run at 0 ms (<= %.2fx)' % (
            r['vs_0ms'], targets.LATENCY_HIDDEN)
