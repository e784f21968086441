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

"""``inventory set --aggregate`` in parallel prints what it prints serially.

The command runs with ``--os-placement-parallel`` left out, 1, 2 and 8
against an aggregate of eight providers whose answers come back slowest
first, so that with several threads the last providers finish before the
first. The output, the exit code and the set of requests must be those of
the serial run, partial failures included; serially (the default) the
requests keep the order of the original plugin: the list of members, then
each provider in turn.
"""

import json
import time

import testscenarios

from osc_placement.tests.unit import base

load_tests = testscenarios.load_tests_apply_scenarios

AGG = 'dddddddd-dddd-4ddd-8ddd-000000000001'
PROVIDERS = ['aaaaaaaa-aaaa-4aaa-8aaa-00000000002%d' % i for i in range(8)]
FULL = {'total': 8, 'reserved': 0, 'min_unit': 1, 'max_unit': 8,
        'step_size': 1, 'allocation_ratio': 16.0}


def inventories_path(uuid):
    return '/resource_providers/%s/inventories' % uuid


class TestSetAggregateInParallel(base.TestCase):

    api_version = '1.3'
    scenarios = testscenarios.multiply_scenarios(
        [('replace', {'options': [], 'reads': False, 'writes': True,
                      'usages': False}),
         ('amend', {'options': ['--amend'], 'reads': True, 'writes': True,
                    'usages': False}),
         # A dry run also reads the usages (rule D19).
         ('amend_dry_run', {'options': ['--amend', '--dry-run'],
                            'reads': True, 'writes': False,
                            'usages': True})],
        [('all_succeed', {'failing_reads': (), 'failing_writes': ()}),
         # Providers 1 and 4 refuse the write; provider 6 is gone when its
         # inventory is read (when it is read).
         ('some_fail', {'failing_reads': (6,), 'failing_writes': (1, 4)})])

    def setUp(self):
        super().setUp()
        self.requests_mock.get(
            base.ENDPOINT + '/resource_providers?member_of=' + AGG,
            complete_qs=True, json={'resource_providers': [
                base.provider(uuid, 'rp%d' % n, n)
                for n, uuid in enumerate(PROVIDERS)]})
        for n, uuid in enumerate(PROVIDERS):
            url = base.ENDPOINT + inventories_path(uuid)
            self.requests_mock.get(url, json=self.answer(n, 'read'))
            self.requests_mock.put(url, json=self.answer(n, 'write'))
            self.requests_mock.get(
                base.ENDPOINT + '/resource_providers/%s/usages' % uuid,
                json=self.answer(n, 'usages'))

    def answer(self, n, step):
        """The answer of provider n: the first ones are the slowest."""
        failing = {'read': self.failing_reads, 'write': self.failing_writes,
                   'usages': ()}[step]
        uuid = PROVIDERS[n]

        def reply(request, context):
            time.sleep((len(PROVIDERS) - n) * 0.002)
            if n in failing:
                context.status_code = 404 if step == 'read' else 409
                return base.placement_error(
                    context.status_code, '%s of %s refused.' % (step, uuid))
            if step == 'read':
                return {'resource_provider_generation': n,
                        'inventories': {'DISK_GB': dict(FULL, total=n + 1)}}
            if step == 'usages':
                return {'resource_provider_generation': n,
                        'usages': {'DISK_GB': n}}
            return {'resource_provider_generation': n + 1,
                    'inventories': request.json()['inventories']}

        return reply

    def set_inventory(self, parallel=None):
        options = []
        if parallel is not None:
            options = ['--os-placement-parallel', str(parallel)]
        before = len(self.requests_mock.request_history)
        printed = self.openstack(*(
            options + ['resource', 'provider', 'inventory', 'set', AGG,
                       '--aggregate', '--resource', 'VCPU=4', '-f', 'json']
            + self.options))
        return printed, self.requests_sent()[before:]

    def failed(self):
        """Index of each provider that fails, in provider order."""
        return sorted(set(self.failing_reads if self.reads else ()) | set(
            self.failing_writes if self.writes else ()))

    def test_same_output_and_requests_at_any_parallelism(self):
        serial, serial_sent = self.set_inventory(1)
        for parallel in (None, 2, 8):
            printed, sent = self.set_inventory(parallel)
            self.assertEqual(serial, printed, parallel)
            self.assertEqual(sorted(serial_sent, key=repr),
                             sorted(sent, key=repr), parallel)

    def test_serial_order_of_requests_and_of_the_report(self):
        (out, err, code), sent = self.set_inventory()
        expected = [('GET', '/resource_providers')]
        for n, uuid in enumerate(PROVIDERS):
            if self.reads:
                expected.append(('GET', inventories_path(uuid)))
            if self.usages and not (self.reads and n in self.failing_reads):
                expected.append(
                    ('GET', '/resource_providers/%s/usages' % uuid))
            if self.writes and not (self.reads and n in self.failing_reads):
                expected.append(('PUT', inventories_path(uuid)))
        self.assertEqual(expected, [(r.method, r.path) for r in sent])

        failed = self.failed()
        self.assertEqual(
            [uuid for n, uuid in enumerate(PROVIDERS) if n not in failed],
            [row['resource_provider'] for row in json.loads(out)
             if row['resource_class'] == 'VCPU'])
        lines = ['Failed to set inventory for resource provider %s: %s of '
                 '%s refused. (HTTP %d).' % (
                     PROVIDERS[n], 'read' if n in self.failing_reads
                     and self.reads else 'write', PROVIDERS[n],
                     404 if n in self.failing_reads and self.reads
                     else 409)
                 for n in failed]
        if failed:
            lines.append('Failed to set inventory for %d of %d resource '
                         'providers.' % (len(failed), len(PROVIDERS)))
        self.assertEqual(lines, err.splitlines())
        self.assertEqual(1 if failed else 0, code)
