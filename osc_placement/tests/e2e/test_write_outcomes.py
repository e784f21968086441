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

"""Writes that say what happened, checked against what the server holds.

The installed ``openstack`` writes to a real Placement through a relay
that lets the write land, then loses its answer, trickles it or holds it
while the test sends signals: what the command says (its last line on
stderr, its exit code) is held against the server's state.
"""

import signal
import subprocess
import time

from osc_placement import tests
from osc_placement.tests.e2e import base
from osc_placement.tests.functional import faultserver
from osc_placement.tests.support import relay

ALLOC = ('resource', 'provider', 'allocation')
OWNER = ('--project-id', 'project-9', '--user-id', 'user-9')
# Seconds from the server's answer to the end of a command whose whole
# wait is bounded to a second: not a speed target, room for a loaded
# machine (without the bound, the trickled answers below take minutes).
BOUNDED = 10


class TestWriteOutcomes(base.SandboxTestCase):

    def setUp(self):
        super().setUp()
        self.rp = base.make_provider(self.sandbox, 'writes',
                                     {'VCPU': {'total': 8}})
        self.consumer = base.new_uuid('cccccccc')
        self.between = self.useFixture(relay.Relay(
            self.sandbox.endpoint, timeout=base.COMMAND_TIMEOUT))

    def set_allocation(self, *options, rp=None):
        return (*ALLOC, 'set', self.consumer, '--allocation',
                'rp=%s,VCPU=2' % (rp or self.rp), *OWNER, *options)

    def held(self):
        return base.allocations_of(self.sandbox, self.consumer)

    def check_line(self):
        return ('check with openstack resource provider allocation show %s'
                % self.consumer)

    def lost_line(self, why):
        return ('Outcome unknown: PUT %s/allocations/%s: it may have reached '
                'the Placement API, but its answer was lost (%s): the write '
                'may or may not have happened; %s.' % (
                    self.between.endpoint, self.consumer, why,
                    self.check_line()))

    def test_answer_lost_after_the_write_landed(self):
        self.between.lose_answer('PUT', '/allocations/' + self.consumer)
        res = self.cli.run(*self.set_allocation(), version='1.28',
                           endpoint=self.between.endpoint)
        self.assertEqual(1, res.returncode, res.stderr)
        self.assertEqual(
            [self.lost_line('the connection was closed before an answer '
                            'came')], res.stderr.splitlines())
        # It did land.
        self.assertEqual({self.rp: {'VCPU': 2}}, self.held())

    def test_connection_refused_says_nothing_was_sent(self):
        port = self.useFixture(faultserver.ClosedPort()).port
        endpoint = 'http://127.0.0.1:%d' % port
        res = self.cli.run(*self.set_allocation(), version='1.28',
                           endpoint=endpoint)
        self.assertEqual(
            (1, ['Unable to reach the Placement API at %s/allocations/%s: '
                 'connection refused.' % (endpoint, self.consumer)]),
            (res.returncode, res.stderr.splitlines()))

    def timed(self, answered, *argv):
        """Run; (result, seconds from the server's answer to the end).

        From the answer, which the relay trickles: the start of the
        ``openstack`` process is no part of the wait.
        """
        proc = self.cli.start(*argv, version='1.28',
                              endpoint=self.between.endpoint)
        self.assertTrue(answered.wait(base.COMMAND_TIMEOUT))
        started = time.monotonic()
        try:
            _out, err = proc.communicate(timeout=base.COMMAND_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            self.fail('not ended in %d s' % base.COMMAND_TIMEOUT)
        return proc.returncode, err, time.monotonic() - started

    def test_timeout_bounds_the_whole_wait_of_a_write(self):
        answered = self.between.trickle_answer(
            'PUT', '/allocations/' + self.consumer, 0.5)
        code, err, took = self.timed(answered, '--os-placement-timeout', '1',
                                     *self.set_allocation())
        self.assertLess(took, BOUNDED)
        self.assertEqual(
            (1, [self.lost_line('no complete answer within the timeout')]),
            (code, err.splitlines()))
        self.assertEqual({self.rp: {'VCPU': 2}}, self.held())

    def test_timeout_bounds_the_whole_wait_of_a_read(self):
        answered = self.between.trickle_answer(
            'GET', '/resource_providers/' + self.rp, 0.5)
        code, err, took = self.timed(answered, '--os-placement-timeout', '1',
                                     'resource', 'provider', 'show', self.rp)
        self.assertLess(took, BOUNDED)
        self.assertEqual(
            (1, ['Reached the Placement API at %s/resource_providers/%s: '
                 'no complete answer within the timeout.'
                 % (self.between.endpoint, self.rp)]),
            (code, err.splitlines()))

    def test_lost_answers_of_a_batch_are_counted_apart(self):
        rps = [base.make_provider(self.sandbox, 'gone', {}) for _ in range(3)]
        self.between.lose_answer('DELETE', '/resource_providers/' + rps[1])
        res = self.cli.run('resource', 'provider', 'delete', *rps,
                           endpoint=self.between.endpoint)
        self.assertEqual(1, res.returncode, res.stderr)
        self.assertEqual(
            ['Outcome unknown for delete resource provider %s: it may have '
             'reached the Placement API, but its answer was lost (the '
             'connection was closed before an answer came): the write may or '
             'may not have happened; check with openstack resource provider '
             'show %s.' % (rps[1], rps[1]),
             'Unknown whether 1 of 3 resource providers was deleted.'],
            res.stderr.splitlines())
        # The server deleted all three, the one whose answer was lost too.
        listed = {rp['uuid'] for rp in self.sandbox.api(
            'GET', '/resource_providers')['resource_providers']}
        self.assertEqual(set(), listed & set(rps))

    def signalled(self, argv, path, *signums, method='PUT', version='1.28'):
        """Send signums while the answer to ``method path`` is held.

        The write has landed on the server when the first is sent; the
        answer is released after them. (returncode, stderr lines).
        """
        answered = self.between.hold_answer(method, path)
        proc = self.cli.start(*argv, version=version,
                              endpoint=self.between.endpoint)
        self.assertTrue(answered.wait(base.COMMAND_TIMEOUT))
        for signum in signums:
            proc.send_signal(signum)
            time.sleep(0.3)
        if len(signums) == 1:
            # A first signal: it waits for the answer.
            self.assertIsNone(proc.poll(), 'ended before the answer')
            self.between.release()
        _out, err = proc.communicate(timeout=base.COMMAND_TIMEOUT)
        self.between.release()
        return proc.returncode, err.splitlines()

    def test_sigint_during_a_write_says_it_was_accepted(self):
        self.assertEqual(
            (130, ['Interrupted: the write was sent and accepted.']),
            self.signalled(self.set_allocation(),
                           '/allocations/' + self.consumer, signal.SIGINT))
        self.assertEqual({self.rp: {'VCPU': 2}}, self.held())

    def test_sigterm_during_a_refused_write_says_it_was_refused(self):
        unknown = base.new_uuid('eeeeeeee')
        code, lines = self.signalled(
            self.set_allocation(rp=unknown), '/allocations/' + self.consumer,
            signal.SIGTERM)
        self.assertEqual(143, code, lines)
        self.assertEqual(1, len(lines), lines)
        self.assertTrue(lines[0].startswith(
            'Interrupted: the write was sent and refused: '), lines)
        self.assertIn('(HTTP 400)', lines[0])
        self.assertEqual({}, self.held())

    def test_second_signal_ends_at_once_with_the_outcome_unknown(self):
        code, lines = self.signalled(
            self.set_allocation(), '/allocations/' + self.consumer,
            signal.SIGINT, signal.SIGINT)
        self.assertEqual(
            (130, ['Interrupted: the write was sent and its outcome is '
                   'unknown: %s.' % self.check_line()]), (code, lines))
        self.assertEqual({self.rp: {'VCPU': 2}}, self.held())

    def test_sigint_during_the_post_of_a_move(self):
        target = base.new_uuid('cccccccc')
        tests.allocate(self.sandbox, self.consumer, {self.rp: {'VCPU': 2}},
                       project='project-9', user='user-9')
        code, lines = self.signalled(
            (*ALLOC, 'move', self.consumer, target), '/allocations',
            signal.SIGINT, method='POST', version='1.39')
        self.assertEqual(
            (130, ['Interrupted: the write was sent and accepted.']),
            (code, lines))
        self.assertEqual({}, self.held())
        self.assertEqual({self.rp: {'VCPU': 2}},
                         base.allocations_of(self.sandbox, target))
