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

"""Concurrency against the production-like server (PostgreSQL, 4 workers).

Several real ``openstack`` processes write the same provider or consumer
at once, and the batch commands run with ``--os-placement-parallel 8``;
the server handles their requests truly at the same time. What must hold:

* every command that exits 0 has its change on the server at the end, and
  every command that fails says so in one line;
* a batch run in parallel prints, exits and leaves the server exactly as
  the same batch run one request at a time.
"""

import uuid as uuidlib

from osc_placement.tests.e2e import base
from osc_placement.tests.support import processes
from osc_placement.tests.support import relay

# Commands started at once: enough for races, few enough for two cores.
WRITERS = 3


def rp_uuids(sandbox):
    return {rp['uuid'] for rp in sandbox.api(
        'GET', '/resource_providers')['resource_providers']}


class TestProductionServer(base.ProductionTestCase):

    def run_together(self, argvs, version=None):
        """Start every command at once; (exit code, stdout, stderr) each."""
        procs = [self.cli.start(*argv, version=version) for argv in argvs]
        results = []
        for proc in procs:
            out, err = proc.communicate(timeout=base.COMMAND_TIMEOUT)
            results.append((proc.returncode, out, err))
        return results

    def assertFailedInOneLine(self, code, err, status):
        self.assertEqual(1, code)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertTrue(err.endswith('(HTTP %d)\n' % status), err)

    # -- two writers, one loses: the race made deterministic ---------------

    def race_allocation_set(self, existing):
        # Two real "openstack" processes set the allocations of one
        # consumer at 1.28, both from the same consumer generation. Writer
        # A talks to the server through a relay that holds A's PUT until
        # writer B has read the generation and written. A's PUT then
        # carries a stale generation: the server refuses it (409), A exits
        # 1 with the server's message, and B's allocations stay.
        rp = base.make_provider(self.sandbox, 'race', {
            'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096}})
        consumer = base.new_uuid('cccccccc')
        path = '/allocations/%s' % consumer
        if existing:
            base.allocate(self.sandbox, consumer, rp, {'VCPU': 1})
        common = ['resource', 'provider', 'allocation', 'set', consumer,
                  '--project-id', 'project-9', '--user-id', 'user-9']

        between = self.useFixture(relay.Relay(self.sandbox.endpoint,
                                              timeout=base.COMMAND_TIMEOUT))
        held = between.hold('PUT', path)
        with self.sandbox.count_requests() as seen:
            writer_a = self.cli.start(
                *common + ['--allocation', 'rp=%s,VCPU=2' % rp],
                version='1.28', endpoint=between.endpoint)
            try:
                while not held.wait(0.1):
                    if writer_a.poll() is not None:
                        self.fail('writer A ended before its PUT: %r'
                                  % (writer_a.communicate(),))
                writer_b = self.cli.run(
                    *common + ['--allocation',
                               'rp=%s,VCPU=3,MEMORY_MB=256' % rp],
                    version='1.28')
            finally:
                between.release()
            out_a, err_a = writer_a.communicate(timeout=60)

        # The order the server saw: A read, B read-wrote-read, A wrote.
        self.assertEqual([
            ('GET', path), ('GET', path), ('PUT', path), ('GET', path),
            ('PUT', path)], [(r.method, r.uri) for r in seen])
        self.assertEqual((0, ''), (writer_b.returncode, writer_b.stderr))
        self.assertEqual(1, writer_a.returncode)
        self.assertEqual('', out_a)
        # B's write moved the generation from what A read (1 after the
        # first allocation, or none for a new consumer) to the next one.
        # The server's words, then which consumer changed and what to do.
        self.assertEqual(
            'consumer generation conflict - expected %s. Consumer %s changed '
            'since it was read: read it again with "openstack resource '
            'provider allocation show %s", then retry (HTTP 409)\n'
            % ('2 but got 1' if existing else '1 but got None', consumer,
               consumer), err_a)
        self.assertEqual({rp: {'VCPU': 3, 'MEMORY_MB': 256}},
                         base.allocations_of(self.sandbox, consumer))

    def test_allocation_set_race_on_an_existing_consumer_one_loses(self):
        self.race_allocation_set(existing=True)

    def test_allocation_set_race_on_a_new_consumer_one_loses(self):
        self.race_allocation_set(existing=False)

    # -- writers let loose: whoever wins, the invariant holds --------------

    def test_inventory_amend_by_concurrent_writers(self):
        # Each writer adds a class of its own to the same provider, all at
        # once. The losers of a generation race fail with 409; every
        # winner read the inventory after the writes before its own, so
        # the provider ends up with exactly the winners' classes.
        rp = base.make_provider(self.sandbox, 'amend',
                                {'DISK_GB': {'total': 100}})
        classes = ['VCPU', 'MEMORY_MB', 'SRIOV_NET_VF', 'IPV4_ADDRESS'][
            :WRITERS]
        results = self.run_together(
            ['resource', 'provider', 'inventory', 'set', rp, '--amend',
             '--resource', '%s=%d' % (rc, n + 1), '-f', 'value']
            for n, rc in enumerate(classes))

        winners = {}
        for (code, out, err), (n, rc) in zip(results, enumerate(classes)):
            if code == 0:
                self.assertEqual('', err)
                winners[rc] = n + 1
            elif 'deadlock detected' in err:
                # Placement 16.0.0 on PostgreSQL: two writers of one
                # provider's inventory may deadlock in the database (seen
                # once on a loaded machine); the server answers 500 with
                # PostgreSQL's words, which the command shows in one line.
                self.assertFailedInOneLine(code, err, 500)
            else:
                self.assertFailedInOneLine(code, err, 409)
        self.assertTrue(winners)
        totals = {rc: inv['total'] for rc, inv in
                  base.inventories_of(self.sandbox, rp).items()}
        self.assertEqual(dict(winners, DISK_GB=100), totals)

    def test_allocation_set_by_concurrent_consumers_of_one_provider(self):
        # Four consumers claim one VCPU each on a provider that has two.
        # Every writer that exits 0 holds its VCPU at the end; every other
        # one failed in one line (no room, or a race lost) and holds none.
        rp = base.make_provider(self.sandbox, 'claim', {
            'VCPU': {'total': 2, 'allocation_ratio': 1.0}})
        consumers = [base.new_uuid('cccccccc') for _ in range(4)]
        results = self.run_together(
            (['resource', 'provider', 'allocation', 'set', consumer,
              '--allocation', 'rp=%s,VCPU=1' % rp, '--project-id',
              'project-9', '--user-id', 'user-9'] for consumer in consumers),
            version='1.28')

        winners = 0
        for (code, out, err), consumer in zip(results, consumers):
            held = base.allocations_of(self.sandbox, consumer)
            if code == 0:
                self.assertEqual('', err)
                self.assertEqual({rp: {'VCPU': 1}}, held)
                winners += 1
            else:
                self.assertFailedInOneLine(code, err, 409)
                self.assertEqual({}, held)
        self.assertGreaterEqual(winners, 1)
        # (Not "at most two": under such a race Placement on PostgreSQL
        # has been seen to accept three claims on two VCPU. The server's
        # capacity check is not what this test is about.)
        usages = self.sandbox.api('GET', '/resource_providers/%s/usages'
                                  % rp)['usages']
        self.assertEqual({'VCPU': winners}, usages)

    # -- batches in parallel: the same as one at a time ---------------------

    def test_multi_delete_in_parallel_as_serial(self):
        # Twenty providers; one is in use (409) and one never existed
        # (404): both are reported, the others deleted.
        rps = [base.new_uuid('eeeeeeee') for _ in range(20)]
        missing = base.new_uuid('eeeeeeee')
        busy = rps[7]
        argv = ['resource', 'provider', 'delete'] + rps[:12] + [missing] + \
            rps[12:]

        def setup():
            for rp in rps:
                if rp not in rp_uuids(self.sandbox):
                    base.make_provider(self.sandbox, 'del', {
                        'VCPU': {'total': 4}}, uuid=rp)
            if not base.allocations_of(self.sandbox, busy.replace(
                    'eeeeeeee', 'cccccccc')):
                base.allocate(self.sandbox, busy.replace(
                    'eeeeeeee', 'cccccccc'), busy, {'VCPU': 1})

        runs = []
        for parallel in ('1', '8'):
            setup()
            res = self.cli.run('--os-placement-parallel', parallel, *argv)
            runs.append(((res.returncode, res.stdout, res.stderr),
                         sorted(rp_uuids(self.sandbox) & set(rps))))
        self.assertEqual(runs[0], runs[1])
        (code, out, err), left = runs[0]
        self.assertEqual((1, '', [busy]), (code, out, left))
        lines = err.splitlines()
        self.assertEqual(3, len(lines), err)
        self.assertTrue(lines[0].startswith(
            'Failed to delete resource provider %s: ' % busy), err)
        self.assertTrue(lines[1].startswith(
            'Failed to delete resource provider %s: ' % missing), err)
        self.assertEqual('Failed to delete 2 of 21 resource providers.',
                         lines[2])

    def test_inventory_set_aggregate_amend_in_parallel_as_serial(self):
        # Fifty providers of an aggregate; every tenth has 8 VCPU, too few
        # to reserve 12 (400), the others 16.
        aggregate = str(uuidlib.uuid4())
        rps = [base.make_provider(self.sandbox, 'agg', {
            'VCPU': {'total': 8 if n % 10 == 3 else 16},
            'MEMORY_MB': {'total': 2048}}, aggregate) for n in range(50)]
        before = {rp: base.inventories_of(self.sandbox, rp) for rp in rps}
        argv = ['resource', 'provider', 'inventory', 'set', aggregate,
                '--aggregate', '--amend', '--resource', 'VCPU:reserved=12',
                '-f', 'value']

        failed = [rp for n, rp in enumerate(rps) if n % 10 == 3]
        # The lines are compared in any order: PostgreSQL lists the members
        # of the aggregate in an order that changes as rows are written and
        # statistics are updated (the order of the output is the order of
        # the list the command got, whatever the parallelism: unit tests
        # check that).
        runs = []
        for parallel in ('1', '8'):
            for rp, inventories in before.items():
                generation = self.sandbox.api(
                    'GET', '/resource_providers/%s' % rp)['generation']
                self.sandbox.api(
                    'PUT', '/resource_providers/%s/inventories' % rp,
                    {'inventories': inventories,
                     'resource_provider_generation': generation})
            res = self.cli.run('--os-placement-parallel', parallel, *argv)
            rows = res.stdout.splitlines()
            errors = res.stderr.splitlines()
            # The failures, then their count, last.
            self.assertEqual('Failed to set inventory for 5 of 50 resource '
                             'providers.', errors[-1])
            after = {rp: base.inventories_of(self.sandbox, rp)
                     for rp in rps}
            runs.append((res.returncode, sorted(rows), sorted(errors),
                         after))
        self.assertEqual(runs[0], runs[1])

        code, rows, errors, after = runs[0]
        self.assertEqual(1, code)
        self.assertEqual(2 * 45, len(rows))
        self.assertEqual(5 + 1, len(errors))
        self.assertEqual(
            sorted(failed),
            sorted(line.split()[7].rstrip(':') for line in errors
                   if 'of 50' not in line))
        self.assertTrue(all(line.endswith('reserved value is greater than '
                                          'total. (HTTP 400).')
                            for line in errors if 'of 50' not in line),
                        errors)
        self.assertEqual(sorted(set(rps) - set(failed)),
                         sorted({row.split()[0] for row in rows}))
        for rp in rps:
            reserved = after[rp]['VCPU']['reserved']
            self.assertEqual(0 if rp in failed else 12, reserved, rp)
            self.assertEqual(before[rp]['MEMORY_MB'],
                             after[rp]['MEMORY_MB'])

    # -- what the benchmark reads of the server ----------------------------

    def test_cpu_seconds_grow_with_the_requests_served(self):
        # The benchmark divides a run's CPU time (client, server, relay)
        # by the machine's CPUs for the best ratio a target can reach: the
        # server's share must count the workers and PostgreSQL.
        # The counters tick by 10 ms: 40 requests at a time until each
        # has grown (PostgreSQL's own share of a few requests may round
        # to nothing), ten times at the most.
        gunicorn = self.sandbox.server_pids[0]
        postgres = self.sandbox.postgres.pids[0]
        counters = [self.sandbox.cpu_seconds,
                    lambda: processes.cpu_seconds([gunicorn]),
                    lambda: processes.cpu_seconds([postgres])]
        before = [counter() for counter in counters]
        for _ in range(10):
            for _ in range(40):
                rp_uuids(self.sandbox)
            grown = [counter() > was
                     for counter, was in zip(counters, before)]
            if all(grown):
                break
        self.assertEqual([True, True, True], grown)

    def test_analyze_gives_the_planner_statistics_of_every_table(self):
        # The benchmark and the sandbox analyze a cloud just seeded: a
        # table PostgreSQL has no statistics of is planned blind.
        self.sandbox.analyze()
        conn = self.sandbox.postgres.connect()
        try:
            with conn.cursor() as cursor:
                cursor.execute('SELECT relname FROM pg_stat_user_tables '
                               'WHERE last_analyze IS NULL')
                blind = [row[0] for row in cursor.fetchall()]
                cursor.execute("SELECT last_analyze IS NOT NULL FROM "
                               "pg_stat_user_tables WHERE relname = "
                               "'resource_providers'")
                analyzed = cursor.fetchone()[0]
        finally:
            conn.close()
        self.assertEqual([], blind)
        self.assertTrue(analyzed)
