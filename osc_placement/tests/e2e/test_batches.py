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

"""Batches of the installed ``openstack`` an operator can stop and trust.

Against the production-like server (PostgreSQL, four workers), through a
relay that counts the requests in flight and lets a test act before a
chosen request: parallelism as the server's side sees it, SIGINT and
SIGTERM in the middle of a write checked against the server's state, a
second Ctrl-C, and the progress line on a pseudo-terminal. Against a
server of its own, stopped in the middle of a batch: the dead endpoint.
"""

import os
import pty
import select
import signal
import subprocess
import time

from oslotest import base as oslotest_base

from osc_placement.tests.e2e import base
from osc_placement.tests.support import cloud
from osc_placement.tests.support import placement
from osc_placement.tests.support import relay

WRITERS = 24


class TestBatches(base.ProductionTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.aggregate = base.new_uuid('dddddddd')
        cls.rps = [base.make_provider(cls.sandbox, 'batch', {
            'VCPU': {'total': 16}}, aggregate=cls.aggregate)
            for _ in range(WRITERS)]

    def relay(self, delay_ms=0):
        return self.useFixture(relay.Relay(self.sandbox.endpoint,
                                           delay_ms=delay_ms,
                                           timeout=base.COMMAND_TIMEOUT))

    def reserved(self):
        return [base.inventories_of(self.sandbox, rp)['VCPU']['reserved']
                for rp in self.rps]

    def reset(self):
        for rp in self.rps:
            self.sandbox.api('PUT', '/resource_providers/%s/inventories'
                             % rp, body={
                                 'resource_provider_generation':
                                 self.sandbox.api(
                                     'GET', '/resource_providers/' + rp)[
                                         'generation'],
                                 'inventories': {'VCPU': {'total': 16}}})

    def test_requests_in_flight_as_asked(self):
        for parallel, least, most in (('1', 1, 1), ('8', 2, 8)):
            between = self.relay(delay_ms=20)
            res = self.cli.run('--os-placement-parallel', parallel,
                               '--os-placement-api-version', '1.39',
                               'resource', 'provider', 'capacity', 'list',
                               '--member-of', self.aggregate,
                               endpoint=between.endpoint)
            self.assertEqual((0, ''), (res.returncode, res.stderr))
            self.assertGreaterEqual(between.most_in_flight, least, parallel)
            self.assertLessEqual(between.most_in_flight, most, parallel)

    def interrupt_write(self, signum, parallel):
        """Send signum as the 10th PUT arrives; what did the CLI say?"""
        self.reset()
        between = self.relay()
        procs = []
        arrived = between.intercept(
            'PUT', '/resource_providers/%s/inventories' % self.rps[9],
            lambda: procs[0].send_signal(signum))
        procs.append(self.cli.start(
            '--os-placement-parallel', parallel, 'resource', 'provider',
            'inventory', 'set', self.aggregate, '--aggregate', '--amend',
            '--resource', 'VCPU:reserved=2', '-f', 'value', '-c',
            'resource_provider', endpoint=between.endpoint))
        self.assertTrue(arrived.wait(base.COMMAND_TIMEOUT))
        signalled = time.monotonic()
        out, err = procs[0].communicate(timeout=base.COMMAND_TIMEOUT)
        ended = time.monotonic() - signalled
        return procs[0].returncode, out, err, ended

    def test_interrupted_write_says_exactly_what_changed(self):
        for signum, code, parallel in ((signal.SIGINT, 130, '1'),
                                       (signal.SIGTERM, 143, '4')):
            returncode, out, err, ended = self.interrupt_write(signum,
                                                               parallel)
            self.assertEqual(code, returncode, err)
            # It ends once the request in flight is answered (that the
            # rest was not sent is checked below). The bound catches a
            # command that hangs after the signal; it is not a speed
            # target and leaves room for a loaded machine (2.45 s once,
            # beside a benchmark).
            self.assertLess(ended, 10.0)
            # In the order of the provider list (the server's).
            updated = sorted(out.split())
            changed = [rp for rp, reserved in zip(self.rps, self.reserved())
                       if reserved == 2]
            # What it says it changed is what changed on the server, the
            # provider whose PUT was in flight at the signal included.
            self.assertEqual(changed, updated)
            self.assertIn(self.rps[9], updated)
            self.assertLess(len(updated), WRITERS)
            self.assertEqual(
                ['Interrupted: %d of %d resource providers updated; the '
                 'other %d were not changed.' % (
                     len(updated), WRITERS, WRITERS - len(updated))],
                err.splitlines())
            # Nothing is written after the command ended.
            time.sleep(0.5)
            self.assertEqual(changed, [
                rp for rp, reserved in zip(self.rps, self.reserved())
                if reserved == 2])

    def test_second_interrupt_ends_at_once_naming_what_is_in_flight(self):
        self.reset()
        between = self.relay()
        held = between.hold('PUT', '/resource_providers/%s/inventories'
                            % self.rps[3])
        proc = self.cli.start(
            '--os-placement-parallel', '1', 'resource', 'provider',
            'inventory', 'set', self.aggregate, '--aggregate', '--amend',
            '--resource', 'VCPU:reserved=2', endpoint=between.endpoint)
        self.assertTrue(held.wait(base.COMMAND_TIMEOUT))
        proc.send_signal(signal.SIGINT)
        time.sleep(0.3)
        self.assertIsNone(proc.poll(), 'ended before the in-flight PUT')
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        self.assertEqual(130, proc.returncode)
        # What was done is what the server holds (the one in flight
        # apart); the rest was never tried.
        done = len([rp for rp, reserved in zip(self.rps, self.reserved())
                    if reserved == 2 and rp != self.rps[3]])
        self.assertEqual(
            'Interrupted again: stopped at once; %d of %d resource providers '
            'done, %d never tried; the outcome of 1 in flight is '
            'unknown: %s' % (done, WRITERS, WRITERS - done - 1, self.rps[3]),
            err.splitlines()[-1])

    def run_in_pty(self, endpoint, *argv):
        """Run with stderr on a pseudo-terminal; what the terminal got."""
        controller, terminal = pty.openpty()
        proc = subprocess.Popen(
            self.cli.argv(argv, endpoint=endpoint), env=self.cli.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=terminal)
        os.close(terminal)
        seen = b''
        while True:
            ready, _w, _x = select.select([controller], [], [], 60)
            if not ready:
                break
            try:
                chunk = os.read(controller, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        out = proc.stdout.read()
        proc.wait(timeout=base.COMMAND_TIMEOUT)
        os.close(controller)
        return proc.returncode, out.decode(), seen.decode()

    def test_progress_on_a_terminal_only(self):
        # Far enough for the batch to last over a second.
        far = self.relay(delay_ms=60).endpoint
        argv = ('--os-placement-parallel', '2', 'resource', 'provider',
                'capacity', 'list', '-f', 'value', '-c', 'resource_provider')
        code, out, terminal = self.run_in_pty(far, *argv)
        self.assertEqual(0, code, terminal)
        total = len(self.sandbox.api('GET', '/resource_providers')[
            'resource_providers'])
        self.assertIn('\rresource provider capacity list: %d/%d resource '
                      'providers' % (total, total),
                      terminal.replace('\x1b[K', ''))
        self.assertTrue(terminal.endswith('\r\x1b[K'), repr(terminal))
        # Not with -q, and not when stderr is not a terminal.
        code, _out, terminal = self.run_in_pty(far, '-q', *argv)
        self.assertEqual((0, ''), (code, terminal))
        res = self.cli.run(*argv, endpoint=far)
        self.assertEqual((0, out, ''), (res.returncode, res.stdout,
                                        res.stderr))


class TestDeadEndpoint(oslotest_base.BaseTestCase):
    """The server goes away in the middle of a batch: it stops trying."""

    def test_batch_stops_after_a_few_failures_in_a_row(self):
        own = self.useFixture(placement.Placement())
        cloud.seed(own.endpoint)
        between = self.useFixture(relay.Relay(own.endpoint, timeout=10))
        listed = own.api('GET', '/resource_providers')['resource_providers']
        first = listed[0]['uuid']

        def stop_server():
            # The whole process group of the gunicorn master: its workers
            # too, whose pids the fixture reads only when it stops them
            # (a worker whose master is gone goes on serving while
            # requests keep coming, which a loaded machine made happen).
            os.killpg(own.server_pids[0], signal.SIGKILL)
            for pid in own.alive_pids():
                os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 10
            while own.alive_pids() and time.monotonic() < deadline:
                time.sleep(0.05)

        between.intercept('GET', '/resource_providers/%s/inventories'
                          % first, stop_server)
        res = base.Cli(between.endpoint).run(
            '--os-placement-parallel', '1', 'resource', 'provider',
            'capacity', 'list')
        lines = res.stderr.splitlines()
        self.assertEqual(1, res.returncode, res.stderr)
        # The requests in flight when the server went may still have been
        # answered; then three in a row failed, and the batch stopped.
        stopped = [n for n, line in enumerate(lines)
                   if line.startswith('Stopped: ')]
        self.assertEqual(1, len(stopped), res.stderr)
        failed = lines[:stopped[0]]
        self.assertEqual(3, len(failed), res.stderr)
        for line in failed:
            self.assertTrue(line.startswith(
                'Failed to read resource provider '), line)
            self.assertIn('Unable to reach the Placement API', line)
        self.assertTrue(lines[stopped[0]].startswith(
            'Stopped: 3 requests in a row could not reach the Placement API '
            '('), lines[stopped[0]])
        not_tried = int(lines[stopped[0]].split('); ')[1].split()[0])
        self.assertGreater(not_tried, 0)
        self.assertTrue(lines[stopped[0]].endswith(
            ' of %d resource providers were not tried.' % len(listed)),
            lines[stopped[0]])
        # The count is of the failures; those not tried are said above.
        self.assertEqual(['Failed to read 3 of %d resource providers.'
                          % len(listed)],
                         lines[stopped[0] + 1:])
