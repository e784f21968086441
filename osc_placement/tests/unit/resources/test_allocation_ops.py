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

"""allocation move, save and restore (``resources/allocation_ops.py``).

The exact requests, and the errors of a save file (one line, the path
inside the file, no request).
"""

import io
import json
import os
import signal
import threading
import time

import fixtures
import testscenarios

from osc_placement.tests.unit import base

URL = base.ENDPOINT
C1, C2, RP1, RP2 = base.C1, base.C2, base.RP1, base.RP2
ALLOC = ('resource', 'provider', 'allocation')

load_tests = testscenarios.load_tests_apply_scenarios
consumer = base.consumer


class TestMove(base.FileTestCase):

    def test_move_at_1_38_one_post_with_generations_and_types(self):
        self.requests_mock.get(URL + '/allocations/' + C1, json=consumer(
            {RP1: {'VCPU': 2}, RP2: {'DISK_GB': 10}}, generation=3,
            consumer_type='MIGRATION'))
        self.requests_mock.get(URL + '/allocations/' + C2, [
            {'json': consumer({RP1: {'VCPU': 1}}, generation=7,
                              project='p2', user='u2')},
            {'json': consumer({RP1: {'VCPU': 2}, RP2: {'DISK_GB': 10}},
                              generation=8, project='p2', user='u2')}])
        self.requests_mock.post(URL + '/allocations', status_code=204)
        out, err, code = self.openstack(*ALLOC, 'move', C1, C2,
                                        version='1.38')
        self.assertEqual(0, code, err)
        sent = self.requests_sent()
        self.assertEqual(
            [('GET', '/allocations/' + C1), ('GET', '/allocations/' + C2),
             ('POST', '/allocations'), ('GET', '/allocations/' + C2)],
            [(s.method, s.path) for s in sent])
        self.assertEqual('placement 1.38', sent[2].version)
        # As Nova's move_allocations: the target's allocations become the
        # source's, each with the generation read.
        self.assertEqual({
            C1: {'allocations': {}, 'project_id': 'p1', 'user_id': 'u1',
                 'consumer_generation': 3, 'consumer_type': 'MIGRATION'},
            C2: {'allocations': {RP1: {'resources': {'VCPU': 2}},
                                 RP2: {'resources': {'DISK_GB': 10}}},
                 'project_id': 'p2', 'user_id': 'u2',
                 'consumer_generation': 7, 'consumer_type': 'INSTANCE'}},
            sent[2].body)
        self.assertIn("{'VCPU': 2}", out)
        self.assertEqual(
            'Consumer %s held rp=%s,VCPU=1 before the move: replaced by the '
            'source\'s (--sum adds to them instead).\n' % (C2, RP1), err)

    def test_move_sum_adds_to_the_targets_amounts(self):
        self.requests_mock.get(URL + '/allocations/' + C1, json=consumer(
            {RP1: {'VCPU': 2}}, generation=3))
        self.requests_mock.get(URL + '/allocations/' + C2, json=consumer(
            {RP1: {'VCPU': 1}, RP2: {'DISK_GB': 10}}, generation=7))
        self.requests_mock.post(URL + '/allocations', status_code=204)
        out, err, code = self.openstack(*ALLOC, 'move', C1, C2, '--sum',
                                        version='1.38')
        self.assertEqual((0, ''), (code, err))
        self.assertEqual({RP1: {'resources': {'VCPU': 3}},
                          RP2: {'resources': {'DISK_GB': 10}}},
                         self.requests_sent()[2].body[C2]['allocations'])

    def test_move_at_1_13_sends_no_generation_nor_type(self):
        self.requests_mock.get(URL + '/allocations/' + C1, json={
            'allocations': {RP1: {'resources': {'VCPU': 2}}},
            'project_id': 'p1', 'user_id': 'u1'})
        self.requests_mock.get(URL + '/allocations/' + C2,
                               json={'allocations': {}})
        self.requests_mock.post(URL + '/allocations', status_code=204)
        out, err, code = self.openstack(*ALLOC, 'move', C1, C2,
                                        '--user-id', 'u9', version='1.13')
        self.assertEqual(0, code, err)
        self.assertEqual({
            C1: {'allocations': {}, 'project_id': 'p1', 'user_id': 'u1'},
            C2: {'allocations': {RP1: {'resources': {'VCPU': 2}}},
                 'project_id': 'p1', 'user_id': 'u9'}},
            self.requests_sent()[2].body)

    def test_capacity_refusal_says_nothing_was_written(self):
        self.requests_mock.get(URL + '/allocations/' + C1,
                               json=consumer({RP1: {'VCPU': 2}}))
        self.requests_mock.get(URL + '/allocations/' + C2,
                               json=consumer({RP1: {'VCPU': 1}}))
        self.requests_mock.post(URL + '/allocations', **base.error_reply(
            409, base.webob_detail(
                "Unable to allocate inventory: Unable to create allocation "
                "for 'VCPU' on resource provider '%s'. The requested "
                "amount would exceed the capacity." % RP1)))
        out, err, code = self.openstack(*ALLOC, 'move', C1, C2,
                                        version='1.38')
        self.assertEqual((
            '', "Unable to allocate inventory: Unable to create allocation "
            "for 'VCPU' on resource provider '%s'. The requested amount "
            "would exceed the capacity (HTTP 409). Nothing was written.\n"
            % RP1, 1), (out, err, code))
        self.assertEqual(3, len(self.requests_mock.request_history))

    def test_source_that_holds_nothing_sends_no_write(self):
        self.requests_mock.get(URL + '/allocations/' + C1,
                               json={'allocations': {}})
        self.requests_mock.get(URL + '/allocations/' + C2,
                               json={'allocations': {}})
        out, err, code = self.openstack(*ALLOC, 'move', C1, C2,
                                        version='1.38')
        self.assertEqual(('Consumer %s holds no allocations: nothing to '
                          'move.\n' % C1, 1), (err, code))
        self.assertEqual(['GET', 'GET'], [
            r.method for r in self.requests_mock.request_history])

    def test_source_not_a_uuid_no_request(self):
        out, err, code = self.openstack(*ALLOC, 'move', 'vm-1', C2,
                                        version='1.38')
        self.assertEqual(("Source consumer 'vm-1' is not a consumer UUID.\n",
                          1), (err, code))
        self.assertEqual([], self.requests_mock.request_history)

    def test_below_1_13_names_the_version_without_a_request(self):
        for argv in ((*ALLOC, 'move', C1, C2),
                     (*ALLOC, 'restore', self.file({}))):
            out, err, code = self.openstack(*argv, version='1.12')
            self.assertEqual(1, code)
            self.assertIn('requires at least version 1.13', err)
            self.assertOneLine(err.rstrip('\n'))
        self.assertEqual([], self.requests_mock.request_history)


SAVED = {'format_version': 1, 'microversion': '1.39',
         'saved_at': '2026-12-01T00:00:00Z',
         'consumers': {C1: {'allocations': {RP1: {'resources': {'VCPU': 2}}},
                            'project_id': 'p1', 'user_id': 'u1',
                            'consumer_generation': 1,
                            'consumer_type': 'INSTANCE'}}}


def _edited(path, value):
    """SAVED with the value at ``path`` (a list of keys) replaced."""
    return base.edited(SAVED, path, value)


class TestRestoreRequests(base.FileTestCase):

    def test_a_type_changed_back_is_one_owner_row_and_one_post(self):
        self.requests_mock.get(URL + '/allocations/' + C1, json=consumer(
            {RP1: {'VCPU': 2}}, consumer_type='MIGRATION'))
        # What the restore checks the amounts against.
        self.requests_mock.get(
            URL + '/resource_providers/%s/inventories' % RP1, json={
                'resource_provider_generation': 1,
                'inventories': {'VCPU': {'total': 8}}})
        self.requests_mock.get(
            URL + '/resource_providers/%s/usages' % RP1, json={
                'resource_provider_generation': 1, 'usages': {'VCPU': 2}})
        self.requests_mock.post(URL + '/allocations', status_code=204)
        out, err, code = self.openstack(
            *ALLOC, 'restore', self.file(SAVED), '-f', 'value',
            version='1.39')
        self.assertEqual(('%s  owner p1/u1/MIGRATION p1/u1/INSTANCE\n' % C1,
                          '', 0), (out, err, code))
        post = self.requests_sent()[-1]
        self.assertEqual(('POST', '/allocations', 'placement 1.39',
                          SAVED['consumers']),
                         (post.method, post.path, post.version, post.body))

    def test_a_save_of_providers_reads_them_a_provider_gone_holds_none(
            self):
        self.requests_mock.get(URL + '/allocations/' + C1, json=consumer(
            {RP1: {'VCPU': 2}}, consumer_type='INSTANCE'))
        self.requests_mock.get(
            URL + '/resource_providers/%s/allocations' % RP1, json={
                'resource_provider_generation': 3, 'allocations': {
                    C1: {'resources': {'VCPU': 2}},
                    C2: {'resources': {'VCPU': 1}}}})
        self.requests_mock.get(
            URL + '/resource_providers/%s/allocations' % RP2,
            **base.error_reply(404, 'No resource provider with uuid %s '
                                    'found' % RP2))
        out, err, code = self.openstack(
            *ALLOC, 'restore', self.file(dict(SAVED, providers=[RP1, RP2])),
            version='1.39')
        self.assertEqual((0, [
            'Left alone: 1 consumer now on the resource providers saved, '
            'not in the file: %s.' % C2, 'Nothing to restore: every '
            'consumer of the file (1) holds what it says.']),
            (code, err.splitlines()))
        sent = [(r.method, r.path) for r in self.requests_sent()]
        # The consumers first, then the providers, read at once: in any
        # order.
        self.assertEqual(('GET', '/allocations/' + C1), sent[0])
        self.assertEqual(
            [('GET', '/resource_providers/%s/allocations' % RP1),
             ('GET', '/resource_providers/%s/allocations' % RP2)],
            sorted(sent[1:]))


class TestRestoreStdin(base.FileTestCase):

    def test_dash_reads_standard_input(self):
        self.requests_mock.get(URL + '/allocations/' + C1, json=consumer(
            {RP1: {'VCPU': 2}}, consumer_type='INSTANCE'))
        with open(self.file(SAVED), 'rb') as f:
            data = f.read()
        self.useFixture(fixtures.MonkeyPatch(
            'sys.stdin', io.TextIOWrapper(io.BytesIO(data))))
        out, err, code = self.openstack(*ALLOC, 'restore', '-', '--dry-run',
                                        version='1.39')
        self.assertEqual(0, code, err)
        self.assertEqual([('GET', '/allocations/' + C1)],
                         [(r.method, r.path) for r in self.requests_sent()])

    def test_dash_names_standard_input_in_its_errors(self):
        self.useFixture(fixtures.MonkeyPatch(
            'sys.stdin', io.TextIOWrapper(io.BytesIO(b'{"consumers": '))))
        out, err, code = self.openstack(*ALLOC, 'restore', '-',
                                        version='1.39')
        self.assertEqual(('', '-: not JSON: Expecting value: line 1 column '
                          '15 (char 14)\n', 1), (out, err, code))


class TestRestoreFileErrors(base.FileTestCase):

    scenarios = [
        ('not-json', {'data': '{"consumers": ', 'expected':
                      ': not JSON: Expecting value: line 1 column 15 '
                      '(char 14)'}),
        ('not-a-save', {'data': {'a': 1}, 'expected':
                        ': format_version: expected a value (missing: is it '
                        'a file of "resource provider allocation save"?).'}),
        ('allocations-list', {'data': _edited(
            ['consumers', C1, 'allocations'], []), 'expected':
            ': consumers.%s.allocations: expected an object of resource '
            'provider UUIDs.' % C1}),
        ('amount-zero', {'data': _edited(
            ['consumers', C1, 'allocations', RP1, 'resources', 'VCPU'], 0),
            'expected': ': consumers.%s.allocations.%s.resources.VCPU: '
            'expected an amount from 1 to 2147483647.' % (C1, RP1)}),
        ('consumer-key', {'data': _edited(['consumers'], {'vm-1': {}}),
                          'expected': ': consumers.vm-1: expected a '
                          'consumer UUID as the key.'}),
        ('no-project', {'data': _edited(['consumers', C1, 'project_id'],
                                        KeyError),
                        'expected': ': consumers.%s.project_id: expected '
                        'text of 1 to 255 characters.' % C1}),
        ('generation-text', {'data': _edited(
            ['consumers', C1, 'consumer_generation'], '1'), 'expected':
            ': consumers.%s.consumer_generation: expected an integer, or '
            'null for a new consumer.' % C1}),
        ('microversion', {'data': _edited(['microversion'], 'latest'),
                          'expected': ': microversion: expected a '
                          'microversion such as "1.39".'}),
    ]

    def test_one_line_with_the_path_and_no_request(self):
        path = self.file(self.data)
        out, err, code = self.openstack(*ALLOC, 'restore', path,
                                        version='1.39')
        self.assertEqual(('', path + self.expected + '\n', 1),
                         (out, err, code))
        self.assertEqual([], self.requests_mock.request_history)


class TestSave(base.FileTestCase):

    def test_save_one_consumer_to_stdout(self):
        self.requests_mock.get(URL + '/allocations/' + C1, json=consumer(
            {RP1: {'VCPU': 2}}))
        out, err, code = self.openstack(
            *ALLOC, 'save', '--consumer', C1, version='1.39',
            env={'SOURCE_DATE_EPOCH': '0'})
        self.assertEqual(0, code, err)
        self.assertEqual([('GET', '/allocations/' + C1)], self.sent())
        self.assertEqual(dict(SAVED, saved_at='1970-01-01T00:00:00Z'),
                         json.loads(out))

    def test_a_consumer_that_cannot_be_read_writes_no_file(self):
        self.requests_mock.get(URL + '/allocations/' + C1, json=consumer(
            {RP1: {'VCPU': 2}}))
        self.requests_mock.get(URL + '/allocations/' + C2,
                               **base.error_reply(500, 'boom'))
        path = os.path.join(self.dir, 'saved.json')
        out, err, code = self.openstack(
            *ALLOC, 'save', '--consumer', C1, '--consumer', C2, '--file',
            path, version='1.39')
        self.assertEqual(1, code)
        self.assertEqual([
            'Failed to read consumer %s: boom (HTTP 500)' % C2,
            'Failed to read 1 of 2 consumers; no save file printed.'],
            err.splitlines())
        self.assertEqual([], os.listdir(self.dir))

    def test_a_file_that_cannot_be_written_is_one_line(self):
        self.requests_mock.get(URL + '/allocations/' + C1, json=consumer(
            {RP1: {'VCPU': 2}}))
        path = os.path.join(self.dir, 'no-such-dir', 'saved.json')
        out, err, code = self.openstack(
            *ALLOC, 'save', '--consumer', C1, '--file', path,
            version='1.39')
        self.assertEqual(1, code)
        self.assertEqual(path + ': cannot write it: No such file or '
                         'directory.\n', err)


class TestRestoreConflict(base.FileTestCase):
    """A 409 re-reads the consumers through the command's batch engine.

    The reads again that say what changed are the batch's: on its
    workers, ``--os-placement-parallel`` at a time, and the message the
    same at 1 and at 4 (the results in item order, whatever order the
    answers came in).
    """

    COUNT = 8

    def setUp(self):
        super().setUp()
        self.uuids = ['%08d-0000-4000-8000-000000000000' % i
                      for i in range(self.COUNT)]
        self.lock = threading.Lock()
        self.reads = {uuid: 0 for uuid in self.uuids}
        self.again = []     # (consumer, thread) of each read again
        self.in_flight = self.most = 0
        for uuid in self.uuids:
            self.requests_mock.get(URL + '/allocations/' + uuid,
                                   json=self._consumer)
        self.requests_mock.get(
            URL + '/resource_providers/%s/inventories' % RP1, json={
                'resource_provider_generation': 1,
                'inventories': {'VCPU': {'total': 64}}})
        self.requests_mock.get(
            URL + '/resource_providers/%s/usages' % RP1, json={
                'resource_provider_generation': 1, 'usages': {'VCPU': 0}})
        self.requests_mock.post(URL + '/allocations', **base.error_reply(
            409, base.webob_detail('consumer generation conflict - '
                                   'expected 1 but got 2'),
            code='placement.concurrent_update'))

    def _consumer(self, request, context):
        """Generation 1 when read; 2 for the odd ones when read again."""
        uuid = request.path.rsplit('/', 1)[-1]
        with self.lock:
            self.reads[uuid] += 1
            again = self.reads[uuid] > 1
            if again:
                self.again.append((uuid, threading.current_thread().name))
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
        time.sleep(0.02)
        with self.lock:
            self.in_flight -= 1
        changed = again and self.uuids.index(uuid) % 2
        return consumer({RP1: {'VCPU': 1}}, generation=2 if changed else 1)

    def _restore(self, parallel):
        saved = dict(SAVED, consumers={
            uuid: dict(SAVED['consumers'][C1], consumer_generation=1)
            for uuid in self.uuids})
        return self.openstack(
            '--os-placement-parallel', str(parallel),
            *ALLOC, 'restore', self.file(saved), version='1.39')

    def test_signal_during_the_reads_again_says_what_is_known(self):
        # SIGINT while the consumers are read again: what was read would
        # make a wrong account of what changed. Exit 130, as after any
        # signal.
        read = self._consumer

        def interrupted(request, context):
            uuid = request.path.rsplit('/', 1)[-1]
            if self.reads[uuid] == 1 and uuid == self.uuids[2]:
                os.kill(os.getpid(), signal.SIGINT)
            return read(request, context)
        for uuid in self.uuids:
            self.requests_mock.get(URL + '/allocations/' + uuid,
                                   json=interrupted)
        out, err, code = self._restore(1)
        self.assertEqual(
            ('', 'Interrupted while reading the consumers again after '
             'Placement refused the write: nothing was written.\n', 130),
            (out, err, code))

    def test_conflict_reads_again_through_the_batch(self):
        odd = self.uuids[1::2]
        expected = (
            '', 'consumer generation conflict - expected 1 but got 2 '
            '(HTTP 409). Nothing was written. Changed since it was read: '
            '%s. ' % '; '.join(
                'consumer %s (generation 1 when read, 2 now)' % uuid
                for uuid in odd), 1)
        outcomes = {}
        for parallel in (1, 4):
            self.reads = {uuid: 0 for uuid in self.uuids}
            self.again = []
            self.most = 0
            start = len(self.requests_mock.request_history)
            out, err, code = self._restore(parallel)
            self.assertEqual(expected[0], out)
            self.assertTrue(err.startswith(expected[1]), err)
            self.assertEqual(expected[2], code)
            self.assertOneLine(err.rstrip('\n'))
            outcomes[parallel] = (out, err, code)
            # One GET again of each consumer, after the POST.
            sent = self.sent()[start:]
            post = sent.index(('POST', '/allocations'))
            self.assertEqual(
                sorted(('GET', '/allocations/' + uuid)
                       for uuid in self.uuids), sorted(sent[post + 1:]))
            self.assertEqual(sorted(self.uuids),
                             sorted(uuid for uuid, _ in self.again))
            # On the batch's workers, never on the command's own thread.
            threads = {thread for _, thread in self.again}
            self.assertNotIn(threading.main_thread().name, threads)
            self.assertEqual(parallel, len(threads))
            self.assertLessEqual(self.most, parallel)
        self.assertEqual(outcomes[1], outcomes[4])
