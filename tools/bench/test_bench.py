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

"""The bench's own arithmetic, without a server.

``tox -e py3`` runs these after the unit tests; alone::

    .tox/py3/bin/python -m unittest discover -s tools/bench -p 'test_*.py'
"""

import os
import sys
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import drain  # noqa: E402
import flavors  # noqa: E402
import isolate  # noqa: E402
import measure  # noqa: E402
import nova_audit  # noqa: E402
import profiled  # noqa: E402
import report  # noqa: E402
import scale  # noqa: E402
import targets  # noqa: E402
import verdicts  # noqa: E402


def _run(turn, wall, client, server=0.0, relay=0.0):
    return {'round': turn, 'wall': wall, 'client': client,
            'server': server, 'relay': relay}


class AfterStartupTest(unittest.TestCase):

    @mock.patch('os.cpu_count', return_value=2, autospec=True)
    def test_each_round_less_its_own_start_up(self, _):
        runs = [_run(0, 3.0, 1.8, 2.6, 0.2), _run(1, 4.0, 2.0, 3.0, 0.2)]
        startups = [_run(0, 1.0, 1.0), _run(0, 1.2, 1.2),
                    _run(1, 2.0, 1.2)]
        left = measure.after_startup(runs, startups)
        # Round 0: the median start-up is 1.1 s wall, 1.1 s of CPU.
        self.assertAlmostEqual(1.9, left[0]['wall'])
        self.assertAlmostEqual(0.7, left[0]['client'])
        self.assertAlmostEqual((0.7 + 2.6 + 0.2) / (2 * 1.9),
                               left[0]['busy'])
        self.assertAlmostEqual(2.0, left[1]['wall'])
        self.assertAlmostEqual(0.8, left[1]['client'])

    def test_a_round_without_start_up_is_left_out(self):
        left = measure.after_startup([_run(0, 3.0, 1.0),
                                      _run(1, 3.0, 1.0)],
                                     [_run(1, 1.0, 1.0)])
        self.assertEqual([1], [r['round'] for r in left])


class PerRequestCpuTest(unittest.TestCase):

    def _results(self):
        reference = {'target': 'inventory set', 'latency_ms': 20,
                     'holds': True, 'detail': 'x', 'reference_side': True,
                     'client_ms_per_request': {'ours': 1.0,
                                               'baseline': 2.2}}
        view = {'target': 'capacity list', 'latency_ms': 20, 'holds': True,
                'detail': 'y', 'client_ms_per_request': {'ours': 1.2}}
        return reference, view

    def test_at_most_half_the_reference(self):
        reference, view = self._results()
        verdicts.per_request_cpu([reference, view])
        self.assertTrue(reference['holds'])
        self.assertEqual(0.455, reference['client_cpu_per_request_ratio'])
        self.assertFalse(view['holds'])
        self.assertEqual(0.545, view['client_cpu_per_request_ratio'])
        self.assertIn('1.20 ms per request, 0.55x the reference\'s 2.20 ms',
                      view['detail'])

    def test_without_the_reference_not_checked(self):
        _, view = self._results()
        verdicts.per_request_cpu([view])
        self.assertTrue(view['holds'])
        self.assertIn('not checked', view['detail'])


class ImportTimeTest(unittest.TestCase):

    def test_own_modules_self_times(self):
        report = '\n'.join([
            'import time: self [us] | cumulative | imported package',
            'import time:       300 |        300 |   osc_lib.utils',
            'import time:      1200 |       1500 |   osc_placement.http',
            'import time:       800 |       2300 | osc_placement',
            'import time:       900 |        900 | osc_placement_extra',
            'some line of the command itself',
        ])
        self.assertEqual(2.0, measure.own_import_ms(report))


class ClausesTest(unittest.TestCase):

    def test_cut_outside_parentheses(self):
        self.assertEqual(
            ['2.01x faster', 'CPUs busy 58% (>= 80%; 53% of the run)',
             'done'],
            report.clauses('2.01x faster; CPUs busy 58% (>= 80%; 53% of '
                           'the run); done'))


class ModelTest(unittest.TestCase):

    def test_bound_by_the_slowest_term(self):
        # Latency over P: (20 + 10 + 2 + 1) ms / 8.
        self.assertAlmostEqual(
            1.0 + 1000 * 0.033 / 8,
            scale.model_seconds(1000, 1.0, 0.002, 0.010, 0.001, 0.020, 4, 8))
        # The client's CPU: 5 ms > 10 / 4 and > 16 / 8.
        self.assertAlmostEqual(
            1000 * 0.005,
            scale.model_seconds(1000, 0.0, 0.005, 0.010, 0.001, 0.0, 4, 8))


class PlacementReadsTest(unittest.TestCase):
    """The requests of one --all-flavors run, counted."""

    RP1 = 'bbbbbbbb-bbbb-4bbb-8bbb-000000000000'
    RP2 = 'bbbbbbbb-bbbb-4bbb-8bbb-000000000001'

    def requests(self, twice=False):
        reads = ['GET /resource_providers/%s/%s' % (rp, what)
                 for rp in (self.RP1, self.RP2)
                 for what in ('inventories', 'usages', 'traits')]
        return (['GET /', 'GET /resource_providers']
                + reads + (reads[:1] if twice else [])
                + ['GET /allocation_candidates?resources=VCPU:1'] * 3
                + ['GET /allocation_candidates?resources=VCPU:1&in_tree='
                   + self.RP1])

    def test_counted(self):
        self.assertEqual(
            {'candidates': 3, 'reasks': 1, 'provider_lists': 1,
             'provider_reads': 6, 'providers': 2, 'most_reads': 1,
             'other': 1, 'most_reasks': 1},
            flavors.placement_reads(self.requests()))

    def test_trees_read_once_and_one_request_per_flavor(self):
        reads = flavors.placement_reads(self.requests())
        self.assertTrue(flavors.flavors_holds(reads, 3))
        # A fourth flavor not asked for, or a provider read twice.
        self.assertFalse(flavors.flavors_holds(reads, 4))
        twice = flavors.placement_reads(self.requests(twice=True))
        self.assertEqual(2, twice['most_reads'])
        self.assertFalse(flavors.flavors_holds(twice, 3))

    def test_reasks_within_their_bound_each_once(self):
        reads = flavors.placement_reads(self.requests())
        # 3 flavors over 1 tree: at most 3 re-asks; 1 was sent.
        self.assertEqual(3, flavors.reask_bound(3, 1))
        self.assertTrue(flavors.flavors_holds(reads, 3, trees=1))
        again = flavors.placement_reads(self.requests() + [
            'GET /allocation_candidates?resources=VCPU:1&in_tree='
            + self.RP1])
        # The same tree asked about twice for the same request.
        self.assertEqual(2, again['most_reasks'])
        self.assertFalse(flavors.flavors_holds(again, 3, trees=1))
        many = dict(reads, reasks=4)
        self.assertFalse(flavors.flavors_holds(many, 3, trees=1))

    def test_a_hundred_flavors_distinct_the_table_first(self):
        made = flavors.bench_flavors(100)
        self.assertEqual(100, len(set(flavor[0] for flavor in made)))
        self.assertEqual(list(flavors.BENCH_FLAVORS), made[:20])
        # The 21st: the first flavor's first variant, 256 MiB more.
        self.assertEqual(('m1.tiny.v1', 1, 768, 1, 0, 0, {}), made[20])
        self.assertEqual(list(flavors.BENCH_FLAVORS[:5]),
                         flavors.bench_flavors(5))

    def test_the_flavors_are_twenty_distinct(self):
        names = [flavor[0] for flavor in flavors.BENCH_FLAVORS]
        self.assertEqual(20, len(set(names)))


class IsolateTest(unittest.TestCase):

    def run_of(self, cpu_s, wrong=0):
        return {'trees': 100, 'cpu_s': cpu_s, 'wall_s': 2 * cpu_s,
                'wrong_count': wrong, 'query': 'q', 'sample': []}

    def test_the_median_cpu_per_tree_against_the_target(self):
        row = isolate.isolate_row(
            [self.run_of(0.3), self.run_of(0.1), self.run_of(0.2)],
            target_ms=2.0)
        self.assertEqual(2.0, row['cpu_ms_per_tree'])
        self.assertTrue(row['holds'])
        self.assertIn('client CPU 2.00 ms per tree (target <= 2.0 ms)',
                      row['detail'])
        self.assertFalse(isolate.isolate_row(
            [self.run_of(0.3)], target_ms=2.0)['holds'])

    def test_a_count_off_the_closed_form_fails(self):
        row = isolate.isolate_row([self.run_of(0.1, wrong=3)],
                                  target_ms=2.0)
        self.assertFalse(row['holds'])
        self.assertIn('3 counts differ from the closed form', row['detail'])

    def test_the_target_is_declared(self):
        self.assertEqual(targets.ISOLATE_CPU_MS_PER_TREE,
                         isolate.isolate_row([self.run_of(0.1)])[
                             'target_ms'])


class AreasTest(unittest.TestCase):

    def _code(self, path, name):
        return mock.Mock(co_filename=path, co_name=name)

    def test_areas(self):
        site = '/venv/lib/python3.11/site-packages/'
        cases = [
            (site + 'keystoneauth1/session.py', '_http_log_request',
             'keystoneauth: request logging'),
            (site + 'keystoneauth1/session.py', 'request',
             'keystoneauth: the rest of Session.request (headers, auth)'),
            (site + 'requests/sessions.py', 'merge_environment_settings',
             'requests: merge_environment_settings (proxies, CA bundle)'),
            (site + 'requests/utils.py', 'get_netrc_auth',
             'requests: get_netrc_auth (.netrc)'),
            (site + 'requests/models.py', 'json', 'requests: the rest'),
            ('/usr/lib/python3.11/json/__init__.py', 'loads',
             'JSON decoding'),
            (site + 'osc_placement/http.py', 'request',
             'osc_placement (ours)'),
            (site + 'cliff/app.py', 'run_subcommand', profiled.REST),
            (site + 'cliff/command.py', 'get_parser', profiled.REST),
            ('<frozen importlib._bootstrap>', '_find_and_load',
             profiled.IMPORTS),
            # The callers' area.
            ('/usr/lib/python3.11/json/decoder.py', 'py_scanstring', None),
            ('/usr/lib/python3.11/logging/__init__.py', 'debug', None),
        ]
        for path, name, area in cases:
            self.assertEqual(area, profiled.area_of(self._code(path, name)),
                             (path, name))

    def test_time_charged_to_the_innermost_area(self):
        areas = profiled.Areas()
        areas.main = None   # this thread as a worker of the batch
        clock = iter([0.0, 0.0, 1.0, 1.0, 3.0, 3.0, 3.5, 3.5])
        ours = mock.Mock(f_code=self._code('/x/osc_placement/a.py', 'f'))
        helper = mock.Mock(f_code=self._code('/usr/lib/re.py', 'g'))
        with mock.patch('time.thread_time', lambda: next(clock)):
            areas.hook(ours, 'call', None)      # 0 s of start-up
            areas.hook(helper, 'call', None)    # 1 s in ours
            areas.hook(helper, 'return', None)  # 2 s in the helper: ours
            areas.hook(ours, 'return', None)    # 0.5 s in ours
        self.assertEqual({profiled.REST: 0.0,
                          'osc_placement (ours)': 3.5}, areas.seconds)

    def test_all_is_start_up_until_cliff_runs_the_command(self):
        areas = profiled.Areas()
        clock = iter([0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0, 4.5, 4.5])
        ours = mock.Mock(f_code=self._code('/x/osc_placement/a.py', 'f'))
        run = mock.Mock(f_code=self._code('/x/cliff/app.py',
                                          'run_subcommand'))
        with mock.patch('time.thread_time', lambda: next(clock)):
            areas.hook(ours, 'call', None)      # an import of ours
            areas.hook(ours, 'return', None)    # 1 s of start-up
            areas.hook(run, 'call', None)       # 1 s of start-up
            areas.hook(ours, 'call', None)      # 2 s in cliff
            areas.hook(ours, 'return', None)    # 0.5 s in ours
        self.assertEqual({profiled.START_UP: 2.0, profiled.REST: 2.0,
                          'osc_placement (ours)': 0.5}, areas.seconds)


if __name__ == '__main__':
    unittest.main()


class AuditTest(unittest.TestCase):
    """--only audit: its counts, its bulk cloud and its verdict."""

    RP = '/placement/resource_providers/'

    def test_placement_requests(self):
        a, b = 'a' * 36, 'b' * 36
        found = nova_audit.placement_requests([
            'GET /placement/resource_providers?required=COMPUTE_NODE',
            'GET /placement/resource_providers',
            'GET %s%s/allocations' % (self.RP, a),
            'GET %s%s/allocations' % (self.RP, b),
            'GET %s%s/allocations' % (self.RP, b),
            'GET /placement/usages?project_id=p'])
        shapes = found.pop('shapes')
        self.assertEqual({'provider_lists': 2, 'allocation_reads': 3,
                          'providers': 2, 'most_reads': 2, 'other': 1,
                          'total': 6}, found)
        self.assertEqual(3, shapes[
            'GET /placement/resource_providers/<uuid>/allocations'])

    def test_nova_requests(self):
        url = 'http://127.0.0.1:9/v2.1'
        err = '\n'.join([
            'REQ: curl -g -i -X GET "%s/servers/detail?all_tenants=1" -H x'
            % url,
            'REQ: curl -g -i -X GET "%s/servers/detail?all_tenants=1&'
            'marker=m" -H x' % url,
            'REQ: curl -g -i -X GET %s/os-migrations -H x' % url,
            'REQ: curl -g -i -X GET %s/servers/%s -H x' % (url, 'c' * 36),
            'REQ: curl -g -i -X GET http://127.0.0.1:8/placement/x -H x'])
        found = nova_audit.nova_requests(err, url)
        self.assertEqual(4, found['total'])
        self.assertEqual(1, found['per_server'])
        self.assertEqual(1, found['paths']['GET /os-migrations'])
        self.assertEqual(2, found['paths']['GET /servers/detail'])

    def test_bulk_cloud(self):
        spec, providers, allocations, findings = nova_audit.bulk_cloud(
            100, 'f', {'VCPU': {'total': 1}}, {'VCPU': 1}, 'p', 'u')
        self.assertEqual(100, len(spec['hosts']))
        self.assertEqual(200, len(spec['servers']))
        self.assertEqual(100, len(providers))
        # Hosts 0 and 50: one server each without allocation, one orphan.
        self.assertEqual(2, len(findings['missing']))
        self.assertEqual(2, len(findings['orphan']))
        self.assertEqual(200 - 2 + 2, len(allocations))
        self.assertEqual(len(allocations), len({a[0] for a in allocations}))

    def test_allocation_batches(self):
        allocations = [('c%d' % n, {'rp': {'VCPU': 1}}) for n in range(5)]
        batches = list(nova_audit.allocation_batches(
            allocations, 'p', 'u', size=2))
        self.assertEqual([2, 2, 1], [len(b) for b in batches])
        self.assertEqual({'rp': {'resources': {'VCPU': 1}}},
                         batches[2]['c4']['allocations'])

    def test_median_and_speed_up(self):
        self.assertEqual(2, nova_audit.median([3, 1, 2]))
        self.assertEqual(2.5, nova_audit.median([4, 1, 2, 3]))
        self.assertEqual(6.0, nova_audit.speed_up(2.0, 12.0))
        self.assertIsNone(nova_audit.speed_up(0, 12.0))

    def test_audit_holds(self):
        placement = {'most_reads': 1, 'providers': 10}
        nova = {'total': 8, 'per_server': 0}
        self.assertEqual((True, []), nova_audit.audit_holds(
            2.0, 10.0, 100 * 1024, placement, 10, nova, 4000, 2000))
        holds, why = nova_audit.audit_holds(
            2.0, 9.0, 150 * 1024, dict(placement, most_reads=2), 10,
            dict(nova, per_server=1), 4000, 2000)
        self.assertFalse(holds)
        self.assertEqual(4, len(why))
        self.assertIn('speed-up 4.5x < 5x', why[0])

    def test_nova_reads_bound(self):
        # 4,000 servers in pages of 1,000: 5 pages per server list; 2,000
        # hypervisors: 3; migrations 2 and aggregates 1.
        self.assertEqual(16, nova_audit.nova_reads_bound(4000, 2000))
        self.assertEqual(6, nova_audit.nova_reads_bound(200, 100))


class DrainTest(unittest.TestCase):
    """--only drain: its cloud, its counts and its verdict."""

    def test_drain_cloud(self):
        providers, allocations, expected = drain.drain_cloud(200)
        roots = [p for p in providers if p[2] is None]
        children = [p for p in providers if p[2] is not None]
        # The pool first, then the hosts; children after every root.
        self.assertEqual(1 + 200 + 20, len(providers))
        self.assertEqual(providers[:len(roots)], roots)
        self.assertEqual('drain-pool', roots[0][0])
        self.assertEqual(['MISC_SHARES_VIA_AGGREGATE'], roots[0][4])
        self.assertEqual(2, sum('COMPUTE_STATUS_DISABLED' in p[4]
                                for p in roots))
        self.assertEqual(50, sum(p[5] == [drain.POOL_AGGREGATE]
                                 for p in roots[1:]))
        self.assertEqual({'VGPU': {'total': 1}}, children[0][3])
        self.assertEqual(400, len(allocations))
        self.assertEqual(400, len({c for c, _ in allocations}))
        # Host 0: pooled disk, its first consumer the child's one vGPU.
        root, gpu = drain._uuid('01', 0), drain._uuid('02', 0)
        self.assertEqual({root: {'VCPU': 4, 'MEMORY_MB': 8192},
                          drain.POOL: {'DISK_GB': 40}, gpu: {'VGPU': 1}},
                         allocations[0][1])
        self.assertEqual({root: {'VCPU': 4, 'MEMORY_MB': 8192},
                          drain.POOL: {'DISK_GB': 40}}, allocations[1][1])
        # Host 1: all on its root.
        self.assertEqual({drain._uuid('01', 1): drain.RESOURCES},
                         allocations[2][1])
        # Hosts 0 and 1 drained: the vGPU consumer of host 0 stays.
        self.assertEqual({'drained': 2, 'consumers': 4, 'move': 3},
                         expected)

    def test_drained_count(self):
        self.assertEqual(20, drain.drained_count(2000))
        self.assertEqual(2, drain.drained_count(100))
        self.assertEqual(1, drain.drained_count(1))
        # At 2,000: hosts 0 and 10 have a vGPU consumer, which stays.
        self.assertEqual({'drained': 20, 'consumers': 40, 'move': 38},
                         drain.drain_cloud(2000)[2])

    def test_repeats(self):
        self.assertEqual({'GET /a': 2, 'GET /': 2}, measure.repeats(
            ['GET /', 'GET /a', 'GET /b', 'GET /a', 'GET /a?x=1', 'GET /']))

    def test_plan_counts(self):
        moved, stay = drain.plan_counts([
            {'consumer': 'a', 'to': 't', 'allocations': {'rp': {'VCPU': 1}}},
            {'consumer': 'b', 'to': '', 'allocations': {}}])
        self.assertEqual(({'a': {'rp': {'VCPU': 1}}}, 1), (moved, stay))

    def test_drain_holds(self):
        expected = {'move': 38}
        self.assertEqual((True, []), drain.drain_holds(
            100 * 1024, {}, 38, expected, None))
        holds, why = drain.drain_holds(150 * 1024, {'GET /x': 2}, 37,
                                       expected, 'HTTP 409')
        self.assertFalse(holds)
        self.assertEqual([
            'peak RSS 150 MB >= 150 MB',
            '1 requests sent more than once (GET /x)',
            '37 consumers moved, 38 expected',
            'POST /allocations of the plan refused: HTTP 409'], why)

    def test_render_drain(self):
        text = drain.render_drain({
            'drained': 20, 'hosts': 2000, 'providers': 2201,
            'consumers': 4000, 'workers': 4, 'latency_ms': 20, 'seed_s': 9,
            'holds': True, 'wall_s': [3.0, 1.0, 2.0],
            'client_cpu_s': [4.0], 'search_cpu_s': 1.0, 'rss_mb': 90,
            'server_cpu_s': [4.0],
            'relay_cpu_s': [0.5], 'rows': 40, 'moved': 38, 'stay': 2,
            'summary': ['38 of 40 consumers can move; 2 cannot.'],
            'requests': 5, 'repeated': {},
            'shapes': {'GET /resource_providers': 5}, 'proof': 'accepted',
            'why': []})
        self.assertIn('[ok] resource provider drain plan', text)
        self.assertIn('2.0 s (median of [3.0, 1.0, 2.0])', text)
        self.assertIn('stderr: 38 of 40 consumers can move; 2 cannot.',
                      text)
        self.assertIn('of the client CPU, the search 1.00 s (25% of the '
                      'median)', text)

    def test_with_debug_after_the_program(self):
        self.assertEqual(['openstack', '--debug', 'resource', 'provider'],
                         measure.with_debug(['openstack', 'resource',
                                             'provider']))

    def test_said_seconds(self):
        err = ('DEBUG osc_placement.cli.drain The compute API\'s reads took '
               '2.31 s.\nDEBUG osc_placement.resources.drain The plan of 40 '
               'consumers over 1960 target trees took 0.14 s of CPU.\n38 of '
               '40 ...')
        self.assertEqual(0.14, measure.said_seconds(err, measure.SEARCH_LINE))
        self.assertEqual(2.31, measure.said_seconds(
            err, measure.NOVA_READS_LINE))
        # Without the line (an older client, no --debug): the run stops.
        self.assertRaises(SystemExit, measure.said_seconds, '38 of 40 ...',
                          measure.SEARCH_LINE)


class DrainWithNovaTest(unittest.TestCase):

    def test_render_drain(self):
        lines = nova_audit.render_drain({
            'hosts': 20, 'code': 3, 'wall_s': 12.34, 'cpu_s': 4.0,
            'rss_mb': 110, 'servers_cpu_s': {'nova': 2.0}, 'floor_s': 3.0,
            'rows': 41, 'moved': 39, 'summary': ['39 of 41 ...'],
            'placement': 10, 'repeated': {},
            'placement_shapes': {'GET /resource_providers': 10}, 'nova': 3,
            'nova_shapes': {'GET /v2.1/os-migrations': 3},
            'nova_reads_s': 2.5, 'search_cpu_s': 0.2}, 2)
        self.assertEqual(
            '      drain plan of 20 hosts, with Nova: exit 3, 12.3 s, peak '
            'RSS 110 MB; 41 rows, 39 move', lines[0])
        self.assertEqual('      drain plan to Nova: 3 requests: GET '
                         '/v2.1/os-migrations x3', lines[3])
        self.assertIn('no run under 3.0 s on 2 cores', lines[4])
        self.assertEqual('      drain plan --debug, once more: the compute '
                         "API's reads took 2.50 s, the search 0.20 s of CPU",
                         lines[5])


class CpuFloorTest(unittest.TestCase):

    def test_floor_spreads_the_cpu_over_the_cores(self):
        self.assertEqual(25.0, nova_audit.floor(6.0, {'nova': 30.0,
                                                      'placement': 14.0}, 2))

    def test_cpu_line(self):
        self.assertEqual(
            '      ours CPU: client 6.0 s, servers 44.0 s (nova 30.0, '
            'placement 14.0): no run under 25.0 s on 2 cores',
            nova_audit.cpu_line('ours', 6.0, {'placement': 14.0,
                                              'nova': 30.0}, 25.0, 2))
