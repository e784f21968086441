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
(and ``--summary``) with the requests it sends; ``--only audit`` (``tox
-e bench-audit``) seeds a Nova and Placement of 2,000 compute nodes and
4,000 servers and times ``resource provider audit`` against
``nova-manage placement audit`` (``nova_audit.py``); ``--only drain``
seeds 2,000 compute trees holding 4,000 consumers on PostgreSQL behind a
20 ms relay and times ``resource provider drain plan`` of 20 hosts, then
writes its plan as one ``POST /allocations`` (``drain.py``); ``--only
isolate`` takes the client CPU per tree of a 4-group isolate flavor over
2,000 trees of eight identical children (``isolate.py``); ``--profile``
runs one of our batches under ``profiled.py`` instead of the targets.
See the performance page.

The parts, each in a module of its own beside this one: ``targets.py``
(the table of targets and the figures they meet), ``venvs.py`` (the two
client virtualenvs), ``measure.py`` (running and timing a command),
``runner.py`` (each target on its server and cloud), ``verdicts.py``
(whether each target holds), ``scale.py``, ``flavors.py`` and
``profiling.py`` (``--only scale``, ``--only flavors``, ``--profile``),
``report.py`` (what is printed). This module reads the command line and
runs them in turn.
"""

import argparse
import json
import os
import sys
import time

import common
import drain
import flavors
import isolate
import nova_audit
import profiling
import report
import runner
import scale
import targets
import venvs
import verdicts


def _parser():
    """The command line of the bench."""
    parser = argparse.ArgumentParser(
        prog='tools/bench/bench.py', description=__doc__.split('\n')[0])
    parser.add_argument('--quick', action='store_true',
                        help='smoke run: small clouds, few pyperf values')
    parser.add_argument('--only', action='append', default=[],
                        metavar='TEXT',
                        help='only the targets whose name contains TEXT '
                             '(repeatable)')
    parser.add_argument('--upstream', default=targets.UPSTREAM,
                        metavar='SPEC',
                        help='the reference (default: %(default)s)')
    parser.add_argument('--work-dir', metavar='DIR',
                        default=os.path.join(common.REPO, '.tox',
                                             'bench-work'),
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
    _add_cloud_sizes(parser)
    parser.add_argument('--profile', action='store_true',
                        help='instead of the targets: run one of our '
                             'batches under a profiler (tools/bench/'
                             'profiled.py) and print where its CPU goes')
    parser.add_argument('--profile-command',
                        default=profiling.PROFILE_COMMAND, metavar='ARGS',
                        help='the command of --profile (default: '
                             '"%(default)s")')
    parser.add_argument('--profile-providers', type=int, default=100,
                        metavar='N',
                        help='the cloud of --profile (default: '
                             '%(default)s providers)')
    return parser


def _size_option(parser, flag, what, sizes):
    """An option of a cloud's size N: ``sizes`` is (--quick's, the default)."""
    parser.add_argument(flag, type=int, default=None, metavar='N',
                        help='%s (default: %d, --quick: %d)' % (
                            what, sizes[1], sizes[0]))


def _add_cloud_sizes(parser):
    """The sizes of the clouds of the parts not in the default run."""
    _size_option(parser, '--scale-providers',
                 'the cloud of "--only scale" (the cloud-wide commands on a '
                 'big cloud, ours alone; not in the default run: seeding '
                 'takes a while): N providers', scale.SCALE_PROVIDERS)
    _size_option(parser, '--flavors-providers',
                 'the cloud of "--only flavors" (capacity fit --all-flavors '
                 'with %d flavors behind Keystone and Nova; not in the '
                 'default run; needs tox -e bench-flavors): N providers'
                 % len(flavors.BENCH_FLAVORS), flavors.FLAVORS_PROVIDERS)
    parser.add_argument('--flavors-count', type=int,
                        default=flavors.FLAVORS_COUNT, metavar='N',
                        help='the flavors of "--only flavors": N '
                             '(default: %(default)s; past those of the '
                             'table, variants of them)')
    _size_option(parser, '--audit-providers',
                 'the cloud of "--only audit" (resource provider audit '
                 'against nova-manage placement audit; needs tox -e '
                 'bench-audit): N compute providers and 2N servers',
                 nova_audit.AUDIT_PROVIDERS)
    _size_option(parser, '--drain-providers',
                 'the cloud of "--only drain" (resource provider drain plan '
                 'of 1 host in %d): N compute trees and 2N consumers'
                 % drain.DRAIN_ONE_IN, drain.DRAIN_PROVIDERS)
    _size_option(parser, '--isolate-trees',
                 'the trees of "--only isolate" (the client CPU per tree of '
                 'a 4-group isolate flavor over trees of 8 identical VGPU '
                 'children; no server): N', isolate.ISOLATE_TREES)


def parse_args(argv=None):
    """The options, with the defaults that depend on ``--quick``."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.rounds is None:
        args.rounds = 2 if args.quick else 3
    if args.rounds < 1:
        parser.error('--rounds: K must be 1 or more, not %d' % args.rounds)
    if args.flavors_count < 1:
        parser.error('--flavors-count: N must be 1 or more, not %d'
                     % args.flavors_count)
    if args.isolate_trees is not None and args.isolate_trees < 1:
        parser.error('--isolate-trees: N must be 1 or more, not %d'
                     % args.isolate_trees)
    if args.drain_providers is not None and args.drain_providers < 1:
        parser.error('--drain-providers: N must be 1 or more, not %d'
                     % args.drain_providers)
    if args.loop < 0:
        parser.error('--loop: K must be 0 or more, not %d' % args.loop)
    if args.pyperf is None:
        args.pyperf = ['-p', '1', '-n', '2', '-w', '1', '-l', '1'] \
            if args.quick else ['-p', '2', '-n', '3', '-w', '1', '-l', '1']
    args.json = args.json or os.path.join(args.work_dir, 'results.json')
    return args


def main(argv=None):
    """Run the bench; print its report and write it as JSON."""
    args = parse_args(argv)
    out_dir = os.path.join(args.work_dir, 'pyperf')
    os.makedirs(out_dir, exist_ok=True)

    started = time.monotonic()
    load_at_start = os.getloadavg()[0]
    ours = venvs.client_venv(
        args.work_dir, 'ours',
        ['-r', os.path.join(common.REPO, 'requirements.txt')])
    installed = venvs.install_ours(ours)
    upstream = venvs.client_venv(args.work_dir, 'upstream', [args.upstream])
    sides = (os.path.join(ours, 'openstack'),
             os.path.join(upstream, 'openstack'))
    if args.profile:
        return _profile(args, sides[0], out_dir, installed, load_at_start)
    results = runner.run_targets(args, sides, out_dir)
    scaled = None
    if 'scale' in args.only:
        scaled = scale.run_scale(
            args, sides[0], args.scale_providers
            or scale.SCALE_PROVIDERS[0 if args.quick else 1])
    fits = None
    if 'flavors' in args.only:
        fits = flavors.run_flavors(
            args, sides[0], args.flavors_providers
            or flavors.FLAVORS_PROVIDERS[0 if args.quick else 1],
            args.flavors_count)
    isolated = None
    if 'isolate' in args.only:
        isolated = isolate.run_isolate(
            args, sides[0], args.isolate_trees
            or isolate.ISOLATE_TREES[0 if args.quick else 1])
    audited = None
    if 'audit' in args.only:
        audited = nova_audit.run_audit(
            args, sides[0], args.audit_providers
            or nova_audit.AUDIT_PROVIDERS[0 if args.quick else 1])
    drained = None
    if 'drain' in args.only:
        drained = drain.run_drain(
            args, sides[0], args.drain_providers
            or drain.DRAIN_PROVIDERS[0 if args.quick else 1])
    verdicts.latency_hidden(results)
    verdicts.per_request_cpu(results)
    summary = verdicts.start_up_summary(results)
    if summary:
        results.append(summary)
    run_report = {
        'ours': '%s, %s' % (venvs.version_in(ours), installed),
        'upstream': args.upstream,
        'python-openstackclient': venvs.version('python-openstackclient'),
        'openstack-placement': venvs.version('openstack-placement'),
        'date': report.utc_date(),
        'pyperf': args.pyperf, 'rounds': args.rounds,
        'duration_s': round(time.monotonic() - started),
        'machine': report.machine(out_dir), 'results': results,
        'scale': scaled, 'flavors': fits, 'audit': audited,
        'isolate': isolated, 'drain': drained,
        'load_average': [load_at_start, os.getloadavg()[0]]}
    with open(args.json, 'w') as f:
        json.dump(run_report, f, indent=1, sort_keys=True)
    print(report.render(run_report))
    if scaled:
        print(scale.render_scale(scaled))
    if fits:
        print(flavors.render_flavors(fits))
    if audited:
        print(nova_audit.render_audit(audited))
    if isolated:
        print(isolate.render_isolate(isolated))
    if drained:
        print(drain.render_drain(drained))
    print('\nJSON: %s; pyperf files: %s' % (args.json, out_dir))
    return 0


def _profile(args, openstack, out_dir, installed, load_at_start):
    """--profile: one of our batches profiled, instead of the targets."""
    profile = profiling.run_profile(args, openstack, out_dir)
    with open(args.json, 'w') as f:
        json.dump({'ours': installed, 'profile': profile,
                   'date': report.utc_date(),
                   'load_average': [load_at_start, os.getloadavg()[0]]},
                  f, indent=1, sort_keys=True)
    print(profiling.render_profile(profile))
    return 0


if __name__ == '__main__':
    sys.exit(main())
