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

"""resource provider reshape (``resources/reshaper.py``).

The exact requests, and the errors of a reshape file (one line, the path
inside the file, no request).
"""

import collections
import json
import threading
import time

import testscenarios

from osc_placement.tests.unit import base

URL = base.ENDPOINT
C1, RP1, RP2 = base.C1, base.RP1, base.RP2

load_tests = testscenarios.load_tests_apply_scenarios
consumer = base.consumer

RESHAPE = {'inventories': {RP2: {'resource_provider_generation': 0,
                                 'inventories': {'VGPU': {'total': 4}}}},
           'allocations': {C1: {
               'allocations': {RP2: {'resources': {'VGPU': 1}}},
               'project_id': 'p1', 'user_id': 'u1',
               'consumer_generation': 1, 'consumer_type': 'INSTANCE'}}}


def _reshape(path, value):
    """RESHAPE with the value at ``path`` (a list of keys) replaced."""
    return base.edited(RESHAPE, path, value)


class TestReshapeFileErrors(base.FileTestCase):

    scenarios = [
        ('no-inventories', {'data': _reshape(['inventories'], KeyError),
                            'expected': ': inventories: expected an object '
                            '(missing).'}),
        ('generation', {'data': _reshape(
            ['inventories', RP2, 'resource_provider_generation'], None),
            'expected': ': inventories.%s.resource_provider_generation: '
            'expected an integer.' % RP2}),
        ('field', {'data': _reshape(
            ['inventories', RP2, 'inventories', 'VGPU', 'size'], 1),
            'expected': ': inventories.%s.inventories.VGPU.size: expected '
            'no such field (known: allocation_ratio, max_unit, min_unit, '
            'reserved, step_size, total).' % RP2}),
        ('consumer-generation', {'data': _reshape(
            ['allocations', C1, 'consumer_generation'], KeyError),
            'expected': ': allocations.%s.consumer_generation: expected an '
            'integer, or null for a new consumer (missing).' % C1}),
    ]

    def test_one_line_with_the_path_and_no_request(self):
        path = self.file(self.data)
        out, err, code = self.openstack('resource', 'provider', 'reshape',
                                        path, version='1.39')
        self.assertEqual(('', path + self.expected + '\n', 1),
                         (out, err, code))
        self.assertEqual([], self.requests_mock.request_history)


class TestReshapeRequests(base.FileTestCase):

    def setUp(self):
        super().setUp()
        self.requests_mock.get(
            URL + '/resource_providers/%s/inventories' % RP2,
            json={'resource_provider_generation': 0, 'inventories': {}})
        self.requests_mock.get(
            URL + '/resource_providers/%s/usages' % RP2,
            json={'resource_provider_generation': 0, 'usages': {}})
        self.requests_mock.get(URL + '/allocations/' + C1, json=consumer(
            {RP1: {'VGPU': 1}}))
        # The classes of the file are checked against Placement's.
        self.requests_mock.get(URL + '/resource_classes', json={
            'resource_classes': [{'name': 'VGPU'}, {'name': 'VCPU'}]})
        self.requests_mock.post(URL + '/reshaper', status_code=204)

    def test_below_1_30_names_the_version_without_a_request(self):
        out, err, code = self.openstack('resource', 'provider', 'reshape',
                                        self.file({}), version='1.29')
        self.assertIn('requires at least version 1.30', err)
        self.assertEqual([], self.requests_mock.request_history)

    def test_dry_run_reads_and_sends_no_write(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'reshape', self.file(RESHAPE),
            '--dry-run', '-f', 'value', version='1.39')
        self.assertEqual(0, code, err)
        self.assertEqual(['GET'] * 4, [
            r.method for r in self.requests_mock.request_history])
        self.assertEqual(
            '%s VGPU   1/4\n%s VGPU %s 1 \n%s VGPU %s  1\n'
            % (RP2, RP1, C1, RP2, C1), out)

    def test_the_body_is_the_file_at_the_live_version(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'reshape', self.file(RESHAPE),
            version='1.39')
        self.assertEqual(0, code, err)
        post = self.requests_sent()[-1]
        self.assertEqual(('POST', '/reshaper', 'placement 1.39', RESHAPE),
                         (post.method, post.path, post.version, post.body))

    def test_dry_run_computes_the_body_the_real_run_sends(self):
        out, err, code = self.openstack(
            '--debug', 'resource', 'provider', 'reshape',
            self.file(RESHAPE), '--dry-run', version='1.39')
        self.assertEqual(0, code, err)
        line = [line for line in err.splitlines()
                if 'POST /reshaper at 1.39: ' in line]
        self.assertEqual(1, len(line), err)
        self.assertEqual(RESHAPE, json.loads(
            line[0].split('POST /reshaper at 1.39: ', 1)[1]))
        self.assertNotIn('POST', [
            r.method for r in self.requests_mock.request_history])

    def test_types_are_left_out_below_1_38_and_it_is_said(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'reshape', self.file(RESHAPE),
            version='1.30')
        self.assertEqual(0, code, err)
        self.assertIn('Consumer types are not written below '
                      '--os-placement-api-version 1.38', err)
        body = self.requests_sent()[-1].body
        self.assertNotIn('consumer_type', body['allocations'][C1])


class TestReshapeConflict(base.FileTestCase):
    """A 409 reads the consumers and providers again through the batch.

    On the batch's workers, ``--os-placement-parallel`` at a time; the
    message the same at 1 and at 4 (in item order, the consumers first).
    """

    def setUp(self):
        super().setUp()
        self.uuids = ['%08d-0000-4000-8000-000000000000' % i
                      for i in range(8)]
        self.lock = threading.Lock()
        self.reads = collections.Counter()
        self.again = []     # (consumer or provider, thread) read again
        self.requests_mock.get(
            URL + '/resource_providers/%s/inventories' % RP2,
            json={'resource_provider_generation': 0, 'inventories': {}})
        self.requests_mock.get(
            URL + '/resource_providers/%s/usages' % RP2,
            json={'resource_provider_generation': 0, 'usages': {}})
        self.requests_mock.get(URL + '/resource_providers/' + RP2,
                               json=self._provider)
        for uuid in self.uuids:
            self.requests_mock.get(URL + '/allocations/' + uuid,
                                   json=self._consumer)
        self.requests_mock.get(URL + '/resource_classes', json={
            'resource_classes': [{'name': 'VGPU'}]})
        self.requests_mock.post(URL + '/reshaper', **base.error_reply(
            409, base.webob_detail('resource provider generation '
                                   'conflict'),
            code='placement.concurrent_update'))

    def _read(self, name):
        """Whether ``name`` is read again; noted with the thread."""
        with self.lock:
            self.reads[name] += 1
            if self.reads[name] > 1 or name == RP2:
                self.again.append((name, threading.current_thread().name))
                return True
        return False

    def _provider(self, request, context):
        self._read(RP2)
        return base.provider(RP2, generation=3)

    def _consumer(self, request, context):
        """Generation 1 when read; 2 for the odd ones when read again."""
        uuid = request.path.rsplit('/', 1)[-1]
        again = self._read(uuid)
        time.sleep(0.02)
        changed = again and self.uuids.index(uuid) % 2
        return consumer({RP2: {'VGPU': 1}}, generation=2 if changed else 1)

    def test_conflict_reads_again_through_the_batch(self):
        data = dict(RESHAPE, allocations={
            uuid: RESHAPE['allocations'][C1] for uuid in self.uuids})
        path = self.file(data)
        expected = (
            'resource provider generation conflict (HTTP 409). Nothing was '
            'written. Changed since it was read: %s; resource provider %s '
            '(generation 0 when read, 3 now). ' % ('; '.join(
                'consumer %s (generation 1 when read, 2 now)' % uuid
                for uuid in self.uuids[1::2]), RP2))
        outcomes = {}
        for parallel in (1, 4):
            self.reads.clear()
            self.again = []
            out, err, code = self.openstack(
                '--os-placement-parallel', str(parallel), 'resource',
                'provider', 'reshape', path, version='1.39')
            self.assertTrue(err.startswith(expected), err)
            self.assertEqual(('', 1), (out, code))
            self.assertOneLine(err.rstrip('\n'))
            outcomes[parallel] = (out, err, code)
            self.assertEqual(sorted(self.uuids + [RP2]),
                             sorted(name for name, _ in self.again))
            threads = {thread for _, thread in self.again}
            self.assertNotIn(threading.main_thread().name, threads)
            # The consumers' batch, then the provider's (one item).
            self.assertEqual(parallel, len(
                {thread for name, thread in self.again if name != RP2}))
        self.assertEqual(outcomes[1], outcomes[4])
