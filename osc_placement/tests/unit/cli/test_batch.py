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

"""The batch engine (``cli/batch.py``) as a user meets it.

Parallelism, signals, dead ends, the reports of partial failures and the
multi-deletes. The commands run in this process against requests-mock.
The mock's callbacks count the requests in flight (so that a test sees
whether the batch ran in parallel), send this process a signal in the
middle of a batch, or fail every request below HTTP as a dead endpoint
does.
"""

from concurrent import futures
import contextlib
import datetime
import io
import os
import signal
import threading

import fixtures
import requests
import testscenarios

from osc_placement.cli import batch
from osc_placement.model import batch_names
from osc_placement.tests import cli
from osc_placement.tests.unit import base
from osc_placement.tests.unit import clouds

load_tests = testscenarios.load_tests_apply_scenarios

URL = base.ENDPOINT
COUNT = 24
PROVIDERS = [{'uuid': 'aaaaaaaa-aaaa-4aaa-8aaa-%012d' % n,
              'name': 'rp-%02d' % n, 'generation': 1,
              'root_provider_uuid': 'aaaaaaaa-aaaa-4aaa-8aaa-%012d' % n,
              'parent_provider_uuid': None} for n in range(COUNT)]
INVENTORY = {'VCPU': {'total': 8, 'reserved': 0, 'allocation_ratio': 1.0,
                      'min_unit': 1, 'max_unit': 8, 'step_size': 1}}


class InFlight(object):
    """A work function that counts the items in flight.

    The first ``meet`` items wait for each other (a barrier): they can only
    all return if that many were in flight at once.
    """

    def __init__(self, meet=None):
        self.lock = threading.Lock()
        self.now = 0
        self.most = 0
        self.seen = 0
        self.barrier = threading.Barrier(meet, timeout=10) if meet else None

    def __call__(self, item):
        with self.lock:
            self.now += 1
            self.seen += 1
            first = self.barrier is not None and \
                self.seen <= self.barrier.parties
            self.most = max(self.most, self.now)
        try:
            if first:
                self.barrier.wait()
            return item * 2
        finally:
            with self.lock:
                self.now -= 1


class Client(object):
    """What the engine uses of the HTTP client.

    The parallelism asked for, and the call that readies the session.
    """

    def __init__(self, parallel=None):
        self.parallel = parallel
        self.readied = []

    def allow_parallel(self, workers):
        self.readied.append(workers)

    @contextlib.contextmanager
    def batch_environment(self):
        yield


class BatchTestCase(base.TestCase):

    api_version = '1.39'

    def mock_cloud(self, reads):
        self.requests_mock.get(URL + '/resource_providers', complete_qs=True,
                               json={'resource_providers': PROVIDERS})
        for rp in PROVIDERS:
            path = URL + '/resource_providers/' + rp['uuid']
            self.requests_mock.get(path + '/inventories', json=reads)
            self.requests_mock.get(path + '/usages', json=reads)


class TestParallelism(base.TestCase):
    """At N, N items in flight at once and never more; at 1, one at a time.

    (requests-mock sends one request at a time, whatever the threads: the
    engine is tested here on its own, and end to end through the relay of
    the e2e tests.)
    """

    scenarios = [
        ('default-one', {'parallel': None, 'default': 1, 'meet': None,
                         'most': 1}),
        ('one', {'parallel': 1, 'default': 8, 'meet': None, 'most': 1}),
        ('two', {'parallel': 2, 'default': 1, 'meet': 2, 'most': 2}),
        ('eight', {'parallel': 8, 'default': 1, 'meet': 8, 'most': 8}),
        ('default-eight', {'parallel': None, 'default': 8, 'meet': 8,
                           'most': 8}),
    ]

    def test_items_in_flight(self):
        work = InFlight(self.meet)
        client = Client(self.parallel)
        result = batch.run(client, work, range(40), default=self.default)
        self.assertEqual([(n, 2 * n) for n in range(40)], result.done())
        self.assertEqual(self.most, work.most)
        self.assertEqual(40, work.seen)
        self.assertEqual([self.most] if self.most > 1 else [],
                         client.readied)


class TestInterrupted(BatchTestCase):
    """A signal in the middle of a write: it says what it changed."""

    scenarios = [
        ('sigint', {'signum': signal.SIGINT, 'code': 130}),
        ('sigterm', {'signum': signal.SIGTERM, 'code': 143}),
    ]

    def test_write_interrupted_after_the_third_provider(self):
        self.requests_mock.get(
            URL + '/resource_providers?member_of=' + base.AGG1,
            complete_qs=True, json={'resource_providers': PROVIDERS})
        puts = []

        def put(request, context):
            puts.append(request.path)
            if len(puts) == 3:
                os.kill(os.getpid(), self.signum)
            return {'inventories': INVENTORY,
                    'resource_provider_generation': 2}
        for rp in PROVIDERS:
            self.requests_mock.put(
                URL + '/resource_providers/%s/inventories' % rp['uuid'],
                json=put)
        out, err, code = self.openstack(
            '--os-placement-parallel', '1', 'resource', 'provider',
            'inventory', 'set', base.AGG1, '--aggregate', '--resource',
            'VCPU=8', '-f', 'value', '-c', 'resource_provider')
        self.assertEqual(self.code, code)
        self.assertEqual([rp['uuid'] for rp in PROVIDERS[:3]],
                         out.split())
        self.assertEqual(
            ['Interrupted: 3 of %d resource providers updated; the other %d '
             'were not changed.' % (COUNT, COUNT - 3)], err.splitlines())
        self.assertEqual(3, len(puts))

    def test_read_interrupted_prints_no_totals(self):
        reads = []

        def body(request, context):
            reads.append(request.path)
            if len(reads) == 10:
                os.kill(os.getpid(), self.signum)
            if request.path.endswith('/usages'):
                return {'usages': {}}
            return {'inventories': INVENTORY}
        self.mock_cloud(body)
        out, err, code = self.openstack(
            '--os-placement-parallel', '1', 'resource', 'provider',
            'capacity', 'list', '--summary')
        self.assertEqual(('', self.code), (out, code))
        self.assertEqual(
            # Worded as the interrupted write is.
            ['Interrupted: 5 of %d resource providers read; the other %d '
             'were not read; no totals printed.' % (COUNT, COUNT - 5)],
            err.splitlines())
        self.assertEqual(10, len(reads))

    def test_read_interrupted_at_the_last_item_names_no_others(self):
        reads = []

        def body(request, context):
            reads.append(request.path)
            if len(reads) == 2 * COUNT:
                os.kill(os.getpid(), self.signum)
            if request.path.endswith('/usages'):
                return {'usages': {}}
            return {'inventories': INVENTORY}
        self.mock_cloud(body)
        out, err, code = self.openstack(
            '--os-placement-parallel', '1', 'resource', 'provider',
            'capacity', 'list', '--summary')
        self.assertEqual(('', self.code), (out, code))
        # Every provider was read: no "the other 0 were not read".
        self.assertEqual(
            ['Interrupted: %d of %d resource providers read; no totals '
             'printed.' % (COUNT, COUNT)], err.splitlines())


class Exited(Exception):
    """What the test's os._exit raises instead of ending the process."""


class TestSecondSignal(base.TestCase):
    """A second signal ends the batch at once, written outside the handler.

    The progress line's write is where the second Ctrl-C lands: a handler
    that wrote to the same stream would enter the write again (Python's
    buffered streams refuse that: ``RuntimeError: reentrant call``).
    """

    def test_second_signal_inside_the_progress_write(self):
        release = threading.Event()
        exits = []

        def exit_now(code):
            exits.append(code)
            release.set()
            raise Exited()
        self.useFixture(fixtures.MonkeyPatch('os._exit', exit_now))

        class Stream(Terminal):
            writing = False
            interrupted = False

            def write(self, text):
                if self.writing:
                    raise RuntimeError('reentrant call')
                self.writing = True
                try:
                    if not self.interrupted and text.startswith('\r') \
                            and ':' in text:
                        # The second Ctrl-C, in the middle of the write.
                        self.interrupted = True
                        os.kill(os.getpid(), signal.SIGINT)
                    return super().write(text)
                finally:
                    self.writing = False

        stream = Stream()

        def work(item):
            if item == 0:
                os.kill(os.getpid(), signal.SIGINT)
                return item
            release.wait(10)
            return item
        progress = batch.Progress(stream, 'capacity list',
                                  'resource providers', True)
        self.assertRaises(Exited, batch.run, Client(2), work, range(40),
                          progress=progress, stderr=stream)
        self.assertEqual([130], exits)
        self.assertEqual(
            '\r\x1b[Kcapacity list: 1/40 resource providers\r\x1b[K'
            'Interrupted again: stopped at once; 1 of 40 resource providers '
            'done, 38 never tried; the outcome of 1 in flight is '
            'unknown: 1\n', stream.getvalue())


class TestDeadEndpoint(BatchTestCase):
    """Connection refused, again and again: the batch stops trying."""

    scenarios = [
        ('serial', {'parallel': '1', 'threshold': 3}),
        ('parallel', {'parallel': '4', 'threshold': 4}),
    ]

    def test_stops_after_consecutive_failures_below_http(self):
        self.requests_mock.get(URL + '/resource_providers', complete_qs=True,
                               json={'resource_providers': PROVIDERS})
        for rp in PROVIDERS:
            self.requests_mock.get(
                URL + '/resource_providers/%s/inventories' % rp['uuid'],
                exc=requests.exceptions.ConnectionError(
                    ConnectionRefusedError(111, 'refused')))
        out, err, code = self.openstack(
            '--os-placement-parallel', self.parallel, 'resource', 'provider',
            'capacity', 'list')
        self.assertEqual(('', 1), (out.strip(), code))
        lines = err.splitlines()
        tried = len(self.requests_mock.request_history) - 1
        # Those in flight when the batch stopped finish.
        self.assertGreaterEqual(tried, self.threshold)
        self.assertLess(tried, 2 * self.threshold)
        failed = [line for line in lines if line.startswith(
            'Failed to read resource provider ')]
        self.assertEqual(tried, len(failed))
        self.assertIn('connection refused', failed[0])
        self.assertEqual(
            ['Stopped: %d requests in a row could not reach the Placement '
             'API (connection refused); %d of %d resource providers were '
             'not tried.' % (self.threshold, COUNT - tried, COUNT),
             # The count is of the failures: those not tried are not.
             'Failed to read %d of %d resource providers.' % (tried, COUNT)],
            lines[-2:])

    def test_write_stops_and_counts_what_failed(self):
        self.requests_mock.get(
            URL + '/resource_providers?member_of=' + base.AGG1,
            complete_qs=True, json={'resource_providers': PROVIDERS})
        for rp in PROVIDERS:
            self.requests_mock.put(
                URL + '/resource_providers/%s/inventories' % rp['uuid'],
                exc=requests.exceptions.ConnectionError(
                    ConnectionRefusedError(111, 'refused')))
        out, err, code = self.openstack(
            '--os-placement-parallel', self.parallel, 'resource', 'provider',
            'inventory', 'set', base.AGG1, '--aggregate', '--resource',
            'VCPU=8')
        self.assertEqual(('', 1), (out, code))
        lines = err.splitlines()
        tried = len(self.requests_mock.request_history) - 1
        self.assertGreaterEqual(tried, self.threshold)
        self.assertEqual(tried + 2, len(lines), err)
        for rp, line in zip(PROVIDERS, lines[:tried]):
            # The error's own period ends the line: one, not two.
            self.assertEqual(
                'Failed to set inventory for resource provider %s: Unable '
                'to reach the Placement API at %s/resource_providers/%s/'
                'inventories: connection refused.' % (rp['uuid'], URL,
                                                      rp['uuid']), line)
        self.assertEqual(
            ['Stopped: %d requests in a row could not reach the Placement '
             'API (connection refused); %d of %d resource providers were '
             'not tried.' % (self.threshold, COUNT - tried, COUNT),
             'Failed to set inventory for %d of %d resource providers.'
             % (tried, COUNT)], lines[-2:])


KEYSTONE = 'http://keystone.test/v3'


def token_reply(catalog):
    """Keystone's answer to a password: a token of a minute.

    keystoneauth asks for a new one before every request (it renews a
    token that expires within two minutes), as it does when a long batch
    outlives the token.
    """
    soon = (datetime.datetime.now(datetime.timezone.utc)
            + datetime.timedelta(seconds=60)).strftime(
                '%Y-%m-%dT%H:%M:%S.000000Z')
    scope = {'id': 'p1', 'name': 'admin',
             'domain': {'id': 'default', 'name': 'Default'}}
    return {'status_code': 201, 'headers': {'X-Subject-Token': 'tok'},
            'json': {'token': {
                'expires_at': soon, 'issued_at': soon,
                'methods': ['password'], 'user': scope, 'project': scope,
                'catalog': [{'type': service, 'id': service, 'endpoints': [
                    {'interface': 'public', 'region': 'RegionOne',
                     'region_id': 'RegionOne', 'url': URL, 'id': service}]}
                    for service in catalog]}}}


class TestKeystoneFailsInTheBatch(BatchTestCase):
    """keystoneauth's own errors in a batch: per item, then the batch stops.

    Keystone gives tokens for the first reads, then refuses the password,
    or leaves Placement out of the catalog.
    """

    scenarios = [
        ('unauthorized', {
            'refusal': {'status_code': 401, 'json': {'error': {
                'code': 401, 'title': 'Unauthorized',
                'message': 'The request you have made requires '
                           'authentication.'}}},
            'error': 'Unauthorized (HTTP 401)'}),
        ('no_endpoint', {
            'refusal': token_reply(['compute']),
            'error': 'public endpoint for placement service not found'}),
    ]

    def test_items_fail_and_the_batch_stops(self):
        self.mock_cloud({'inventories': INVENTORY, 'usages': {}})
        first = []

        def read_first(request, context):
            first.append(request.path)
            return {'inventories': INVENTORY, 'usages': {}}
        for what in ('inventories', 'usages'):
            self.requests_mock.get(URL + '/resource_providers/%s/%s' % (
                PROVIDERS[0]['uuid'], what), json=read_first)

        def keystone(request, context):
            # Tokens until the first provider has been read.
            reply = self.refusal if len(first) == 2 else token_reply(
                ['placement'])
            context.status_code = reply['status_code']
            context.headers.update(reply.get('headers', {}))
            return reply['json']
        self.requests_mock.post(KEYSTONE + '/auth/tokens', json=keystone)
        out, err, code = cli.run([
            '--os-auth-type', 'v3password', '--os-auth-url', KEYSTONE,
            '--os-username', 'admin', '--os-password', 'secret',
            '--os-project-name', 'admin', '--os-user-domain-id', 'default',
            '--os-project-domain-id', 'default',
            '--os-placement-api-version', '1.39',
            '--os-placement-parallel', '1', 'resource', 'provider',
            'capacity', 'list', '-f', 'value', '-c', 'name'])
        self.assertEqual(1, code, err)
        self.assertEqual(['rp-00'], out.split())
        self.assertEqual(
            ['Failed to read resource provider %s: %s'
             % (rp['uuid'], self.error) for rp in PROVIDERS[1:4]] +
            ['Stopped: 3 requests in a row could not reach the Placement '
             'API (%s); %d of %d resource providers were not tried.'
             % (self.error, COUNT - 4, COUNT),
             'Failed to read 3 of %d resource providers.' % COUNT],
            err.splitlines())


class TestPartialTotals(BatchTestCase):
    """A provider that cannot be read: no totals, and the count."""

    def test_summary_needs_every_provider(self):
        self.mock_cloud({'inventories': INVENTORY, 'usages': {}})
        self.requests_mock.get(
            URL + '/resource_providers/%s/usages' % PROVIDERS[5]['uuid'],
            **base.error_reply(500, 'Boom.'))
        out, err, code = self.openstack('resource', 'provider', 'capacity',
                                        'list', '--summary')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ['Failed to read resource provider %s: Boom. (HTTP 500)'
             % PROVIDERS[5]['uuid'],
             'Failed to read 1 of %d resource providers; no totals printed.'
             % COUNT], err.splitlines())

    def test_rows_are_printed_then_the_failure(self):
        self.mock_cloud({'inventories': INVENTORY, 'usages': {}})
        self.requests_mock.get(
            URL + '/resource_providers/%s/usages' % PROVIDERS[5]['uuid'],
            **base.error_reply(500, 'Boom.'))
        out, err, code = self.openstack('resource', 'provider', 'capacity',
                                        'list', '-f', 'value', '-c', 'name')
        self.assertEqual(1, code)
        self.assertEqual([rp['name'] for rp in PROVIDERS if rp is not
                          PROVIDERS[5]], out.split())
        self.assertEqual('Failed to read 1 of %d resource providers.'
                         % COUNT, err.splitlines()[-1])


class Terminal(io.StringIO):
    def isatty(self):
        return True


class TestProgress(base.TestCase):
    """The progress line: on a terminal, over enough items, cleared."""

    scenarios = [
        ('terminal', {'stream': Terminal, 'quiet': False, 'items': 40,
                      'drawn': True}),
        ('quiet', {'stream': Terminal, 'quiet': True, 'items': 40,
                   'drawn': False}),
        ('pipe', {'stream': io.StringIO, 'quiet': False, 'items': 40,
                  'drawn': False}),
        ('few', {'stream': Terminal, 'quiet': False, 'items': 5,
                 'drawn': False}),
    ]

    def test_progress(self):
        stream = self.stream()
        progress = batch.Progress(stream, 'capacity list',
                                  'resource providers', not self.quiet and
                                  stream.isatty())

        result = batch.run(Client(1), lambda item: item * 2,
                           range(self.items), progress=progress)
        self.assertEqual([(n, n * 2) for n in range(self.items)],
                         result.done())
        text = stream.getvalue()
        if self.drawn:
            self.assertIn('\rcapacity list: %d/%d resource providers'
                          % (self.items, self.items),
                          text.replace('\x1b[K', ''))
            self.assertTrue(text.endswith('\r\x1b[K'))
        else:
            self.assertEqual('', text)


# The items of the multi-deletes.
CLASS_NAMES = ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C', 'CUSTOM_D', 'CUSTOM_E']
TRAIT_NAMES = ['CUSTOM_T%d' % i for i in range(5)]
PROVIDER_UUIDS = ['aaaaaaaa-aaaa-4aaa-8aaa-00000000001%d' % i
                  for i in range(5)]
CONSUMER_UUIDS = ['cccccccc-cccc-4ccc-8ccc-00000000001%d' % i
                  for i in range(5)]


class TestMultiDelete(base.TestCase):
    """The multi-deletes, every second item failing or all succeeding.

    Each runs with ``--os-placement-parallel`` left out, 1, 2 and 8:
    stdout, stderr, the exit code and the set of requests must be those
    of the run with 1, partial failures included. With 1 (and by default,
    for the commands of the original plugin) the requests keep their
    order.
    """

    api_version = '1.39'
    scenarios = testscenarios.multiply_scenarios(
        [('provider', {'argv': ['resource', 'provider', 'delete'],
                       'items': PROVIDER_UUIDS, 'path': '/resource_providers/',
                       'thing': 'resource provider',
                       'things': 'resource providers'}),
         ('class', {'argv': ['resource', 'class', 'delete'],
                    'items': CLASS_NAMES, 'path': '/resource_classes/',
                    'thing': 'resource class', 'things': 'resource classes'}),
         ('trait', {'argv': ['trait', 'delete'], 'items': TRAIT_NAMES,
                    'path': '/traits/', 'thing': 'trait',
                    'things': 'traits'}),
         ('allocation', {'argv': ['resource', 'provider', 'allocation',
                                  'delete'],
                         'items': CONSUMER_UUIDS, 'path': '/allocations/',
                         'thing': 'allocations of consumer',
                         'things': 'allocations'})],
        [('all_succeed', {'failing': ()}),
         ('some_fail', {'failing': (1, 3)})])

    def setUp(self):
        super().setUp()
        for number, item in enumerate(self.items):
            if number in self.failing:
                reply = base.error_reply(404, 'No such thing %s.' % item)
            else:
                reply = {'status_code': 204}
            self.requests_mock.delete(base.ENDPOINT + self.path + item,
                                      **reply)

    def delete(self, parallel=None):
        options = []
        if parallel is not None:
            options = ['--os-placement-parallel', str(parallel)]
        before = len(self.sent())
        out, err, code = self.openstack(*(options + self.argv + self.items))
        return (out, err, code), self.sent()[before:]

    def test_same_output_and_requests_at_any_parallelism(self):
        (serial, serial_sent) = self.delete(1)
        for parallel in (None, 2, 8):
            printed, sent = self.delete(parallel)
            self.assertEqual(serial, printed, parallel)
            self.assertEqual(sorted(serial_sent), sorted(sent), parallel)

    def test_serial_keeps_the_order_and_reports_in_item_order(self):
        (out, err, code), sent = self.delete()
        self.assertEqual([('DELETE', self.path + item)
                          for item in self.items], sent)
        expected = ['Failed to delete %s %s: No such thing %s. (HTTP 404)'
                    % (self.thing, self.items[n], self.items[n])
                    for n in self.failing]
        if self.failing:
            expected.append('Failed to delete %d of %d %s.' % (
                len(self.failing), len(self.items), self.things))
        self.assertEqual(('', 1 if self.failing else 0), (out, code))
        self.assertEqual(expected, err.splitlines())


class TestLostAnswers(base.TestCase):
    """Writes whose answer was lost are counted apart from the failures.

    Their outcome is unknown: they are neither done nor failed, in the
    count and after a signal alike.
    """

    api_version = '1.39'

    def setUp(self):
        super().setUp()
        lost, refused = PROVIDER_UUIDS[1], PROVIDER_UUIDS[3]

        def read_timeout(request, context):
            raise requests.exceptions.ReadTimeout('slow', request=request)
        for item in PROVIDER_UUIDS:
            path = base.ENDPOINT + '/resource_providers/' + item
            if item == lost:
                self.requests_mock.delete(path, json=read_timeout)
            elif item == refused:
                self.requests_mock.delete(path, **base.error_reply(
                    404, 'No such thing.'))
            else:
                self.requests_mock.delete(path, status_code=204)
        self.lost = lost
        self.refused = refused

    def test_failed_and_lost_counted_apart(self):
        out, err, code = self.openstack('resource', 'provider', 'delete',
                                        *PROVIDER_UUIDS)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual([
            'Outcome unknown for delete resource provider %s: it may have '
            'reached the Placement API, but its answer was lost (no '
            'complete answer within the timeout): the write may or may not '
            'have happened; check with openstack resource provider show %s.'
            % (self.lost, self.lost),
            'Failed to delete resource provider %s: No such thing. '
            '(HTTP 404)' % self.refused,
            'Failed to delete 1 of %d resource providers; unknown whether 1 '
            'was deleted.' % len(PROVIDER_UUIDS)], err.splitlines())

    def test_an_interruption_does_not_count_them_as_not_done(self):
        last = PROVIDER_UUIDS[-1]

        def interrupted(request, context):
            os.kill(os.getpid(), signal.SIGINT)
            context.status_code = 204
        self.requests_mock.delete(
            base.ENDPOINT + '/resource_providers/' + last, json=interrupted)
        out, err, code = self.openstack('resource', 'provider', 'delete',
                                        *PROVIDER_UUIDS)
        total = len(PROVIDER_UUIDS)
        self.assertEqual(130, code, err)
        self.assertEqual(
            'Interrupted: %d of %d resource providers deleted, unknown '
            'whether 1 was; the other 1 was not deleted.'
            % (total - 2, total), err.splitlines()[-1])


class TestPartialFailure(clouds.CloudTestCase):
    """A provider that cannot be read: the rest is printed, exit 1.

    The output is the same at any parallelism.
    """

    failing = (clouds.RP2,)
    scenarios = [
        ('capacity', {'argv': ['resource', 'provider', 'capacity', 'list'],
                      'shown': 2}),
        ('allocations', {'argv': ['resource', 'provider', 'allocation',
                                  'list', '--long'],
                         'shown': 2}),
        ('tree_long', {'argv': ['resource', 'provider', 'tree', 'list',
                                '--long'],
                       'shown': 4}),
        ('tree_dot', {'argv': ['resource', 'provider', 'tree', 'list',
                               '--dot', '--long', '--consumers'],
                      'shown': None}),
    ]

    def run_at(self, parallel):
        options = [] if parallel is None else [
            '--os-placement-parallel', str(parallel)]
        formats = [] if '--dot' in self.argv else ['-f', 'value']
        return self.openstack(*(options + self.argv + formats))

    def test_same_output_at_any_parallelism(self):
        serial = self.run_at(1)
        out, err, code = serial
        self.assertEqual(1, code)
        self.assertEqual(
            ['Failed to read resource provider %s: Boom on %s. (HTTP 500)'
             % (clouds.RP2, clouds.RP2),
             'Failed to read 1 of 4 resource providers.'],
            err.splitlines())
        if self.shown is not None:
            self.assertEqual(self.shown, len(out.splitlines()))
        for parallel in (None, 2, 8):
            self.assertEqual(serial, self.run_at(parallel), parallel)


class TestWaitBeside(base.TestCase):
    """Batched.wait_beside(): the reads of another service, after a failure.

    Their failure is the command's error; after a signal they are not
    waited for.
    """

    def command(self, signum=None):
        cmd = batch.Batched()
        cmd.batch_report = batch.Report(None, 'read', 'read',
                                        'were not read')
        stopped = batch.Batch(['x'])
        stopped.interrupted = signum
        cmd.batch_report.add(stopped, batch_names.PROVIDERS)
        return cmd

    def test_their_failure_is_raised(self):
        reads = futures.Future()
        reads.set_exception(RuntimeError('Nova failed'))
        self.assertRaisesRegex(RuntimeError, 'Nova failed',
                               self.command().wait_beside, reads)

    def test_nothing_is_waited_for_after_a_signal(self):
        # A future never done: waiting would not return.
        self.assertIsNone(self.command(signal.SIGINT).wait_beside(
            futures.Future()))

    def test_no_reads(self):
        self.assertIsNone(self.command().wait_beside(None))
