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

"""The cloud-wide views of the sample cloud, at the default parallelism.

The installed ``openstack`` against the sandbox server: the figures, the
number of requests per command, and DOT that a real parser (and Graphviz,
on a machine that has it) reads.
"""

import math
import shutil
import subprocess

import pydot

from osc_placement.tests.e2e import base
from osc_placement.tests.support import cloud

N = len(cloud.PROVIDERS)


def expected_summary():
    """{class: (providers, total, reserved, capacity, used)} of the seed."""
    used = {}
    for _consumer, _project, _user, allocations in cloud.ALLOCATIONS:
        for resources in allocations.values():
            for rc, amount in resources.items():
                used[rc] = used.get(rc, 0) + amount
    sums = {}
    for _name, _uuid, _parent, inventories, _traits in cloud.PROVIDERS:
        for rc, inv in inventories.items():
            reserved = inv.get('reserved', 0)
            capacity = math.floor((inv['total'] - reserved)
                                  * inv.get('allocation_ratio', 1.0))
            before = sums.get(rc, (0, 0, 0, 0))
            sums[rc] = (before[0] + 1, before[1] + inv['total'],
                        before[2] + reserved, before[3] + capacity)
    return {rc: s + (used.get(rc, 0),) for rc, s in sums.items()}


class TestCloudViews(base.SandboxTestCase):

    def requests_of(self, *argv):
        with self.sandbox.count_requests() as seen:
            out = self.cli.ok(*argv, version='1.39')
        return out, sorted(r.uri.split('?')[0] for r in seen)

    def test_capacity_summary_and_its_requests(self):
        rows, seen = self.requests_of(
            'resource', 'provider', 'capacity', 'list', '--summary',
            '-f', 'json')
        self.assertEqual(
            {rc: s + (s[3] - s[4],) for rc, s in expected_summary().items()},
            {r['resource_class']: (r['providers'], r['total'],
                                   r['reserved'], r['capacity'], r['used'],
                                   r['free']) for r in rows})
        # One list, then inventories and usages of each provider.
        self.assertEqual(1 + 2 * N, len(seen))

    def test_allocations_of_every_provider(self):
        rows, seen = self.requests_of(
            'resource', 'provider', 'allocation', 'list', '-f', 'json')
        self.assertEqual(
            sorted((rp, consumer, resources)
                   for consumer, _p, _u, allocations in cloud.ALLOCATIONS
                   for rp, resources in allocations.items()),
            sorted((r['resource_provider'], r['consumer_uuid'],
                    r['resources']) for r in rows))
        self.assertEqual(1 + N, len(seen))

    def test_orphans_from_stdin(self):
        known = '%s\n%s\n' % (cloud.VM1, cloud.VM2)
        res = subprocess.run(
            self.cli.argv(['resource', 'provider', 'allocation', 'list',
                           '--exclude-consumers-from', '-', '-f', 'value',
                           '-c', 'consumer_uuid']),
            env=self.cli.env, input=known, capture_output=True, text=True,
            timeout=base.COMMAND_TIMEOUT)
        self.assertEqual(('', 0), (res.stderr, res.returncode))
        self.assertEqual({cloud.VM3}, set(res.stdout.split()))

    def test_tree_list_dot_long_consumers(self):
        out, seen = self.requests_of(
            'resource', 'provider', 'tree', 'list', '--dot', '--long',
            '--consumers')
        graph, = pydot.graph_from_dot_data(out)
        self.assertEqual(
            {'"%s"' % uuid for _n, uuid, _p, _i, _t in cloud.PROVIDERS}
            | {'"consumer %s"' % c for c, _p, _u, _a in cloud.ALLOCATIONS},
            {n.get_name() for n in graph.get_nodes()} - {'node'})
        # The list, then inventories, usages, traits, aggregates and
        # allocations of each provider.
        self.assertEqual(1 + 5 * N, len(seen))
        if shutil.which('dot'):
            svg = subprocess.run(['dot', '-Tsvg'], input=out,
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(('', 0), (svg.stderr, svg.returncode))
            self.assertIn('<svg', svg.stdout)

    def test_consumer_type_below_1_38_sends_nothing(self):
        with self.sandbox.count_requests() as seen:
            res = self.cli.run('resource', 'provider', 'allocation', 'list',
                               '--consumer-type', 'INSTANCE',
                               version='1.37')
        self.assertEqual(
            (1, '', ['Operation or argument is not supported with version '
                     '1.37; requires at least version 1.38']),
            (res.returncode, res.stdout, res.stderr.splitlines()))
        self.assertEqual([], seen)
