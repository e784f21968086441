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

"""``resource provider drain plan`` against a real Placement.

The cloud: ``cn1`` is drained; it has a vGPU child ``cn1_gpu``. Targets:
``cn2`` (a vGPU child ``cn2_gpu``), ``cn3`` (in the aggregate of the
sharing disk pool ``pool``), ``cn4`` (the biggest, but disabled). On
``cn1``: ``small`` (moves anywhere), ``gpu`` (a vGPU: only ``cn2``),
``pooled`` (its disk on the pool: only ``cn3``), ``big`` (12 VCPU: only
the disabled host has room). The proof of a plan is Placement's own: the
``allocations`` of every consumer the plan moves, sent as ONE ``POST
/allocations`` with the consumers' generations, are accepted; then the
consumers are written back as they were.
"""

import json
import os
import re
import signal
import threading
import urllib.parse

import fixtures
from osc_lib import exceptions

from osc_placement.api import drain as drain_api
from osc_placement import tests
from osc_placement.tests import cli
from osc_placement.tests.functional import base

NOVA = 'http://nova.test/v2.1'
DRAIN = ('resource', 'provider', 'drain', 'plan')


def _uuid(kind, n):
    return '%s0000-0000-4000-8000-%012d' % (kind, n)


CN1, CN2, CN3, CN4 = (_uuid('c0de', n) for n in (1, 2, 3, 4))
GPU1, GPU2 = (_uuid('6900', n) for n in (1, 2))
POOL = _uuid('d15c', 1)
AGG = _uuid('a99e', 1)
SMALL, GPU, POOLED, BIG, OTHER = (_uuid('5e7e', n) for n in range(1, 6))
PROJECT, USER = 'project-a', 'user-a'

HOST = {'VCPU': 16, 'MEMORY_MB': 16384, 'DISK_GB': 100}


class DrainTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        tests.create_provider(self, CN1, 'cn1', HOST,
                              traits=['COMPUTE_NODE'])
        tests.create_provider(self, GPU1, 'cn1_gpu', {'VGPU': 2}, parent=CN1)
        tests.create_provider(self, CN2, 'cn2',
                              {'VCPU': 8, 'MEMORY_MB': 8192, 'DISK_GB': 100},
                              traits=['COMPUTE_NODE'])
        tests.create_provider(self, GPU2, 'cn2_gpu', {'VGPU': 1}, parent=CN2)
        tests.create_provider(self, CN3, 'cn3',
                              {'VCPU': 4, 'MEMORY_MB': 4096, 'DISK_GB': 100},
                              traits=['COMPUTE_NODE'], aggregates=[AGG])
        tests.create_provider(self, CN4, 'cn4', HOST, traits=[
            'COMPUTE_NODE', 'COMPUTE_STATUS_DISABLED'])
        tests.create_provider(self, POOL, 'pool', {'DISK_GB': 1000},
                              traits=['MISC_SHARES_VIA_AGGREGATE'],
                              aggregates=[AGG])
        self.held = {
            SMALL: {CN1: {'VCPU': 1, 'MEMORY_MB': 1024, 'DISK_GB': 10}},
            GPU: {CN1: {'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 10},
                  GPU1: {'VGPU': 1}},
            POOLED: {CN1: {'VCPU': 1, 'MEMORY_MB': 1024},
                     POOL: {'DISK_GB': 20}},
            BIG: {CN1: {'VCPU': 12, 'MEMORY_MB': 2048, 'DISK_GB': 10}},
            OTHER: {CN2: {'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 10}},
        }
        for consumer, allocations in self.held.items():
            tests.allocate(self, consumer, allocations, project=PROJECT,
                           user=USER)

    def plan(self, *argv, version=None):
        """(rows, stderr, exit code) of a plan, ``-f json``."""
        out, err, code = self.openstack(*(DRAIN + argv + ('-f', 'json')),
                                        version=version)
        return (json.loads(out) if out.strip() else None), err, code

    def set_traits(self, rp, traits):
        path = '/resource_providers/%s/traits' % rp
        self.api('PUT', path, body={
            'traits': traits, 'resource_provider_generation': self.api(
                'GET', path)['resource_provider_generation']})

    def by_consumer(self, rows):
        return {row['consumer']: row for row in rows}

    def state(self):
        """{consumer: allocations} of every consumer of the cloud."""
        return {c: {rp: a['resources'] for rp, a in self.api(
            'GET', '/allocations/' + c)['allocations'].items()}
            for c in self.held}

    def prove(self, rows):
        """ONE POST /allocations of the plan's moves: accepted, undone."""
        before = {c: self.api('GET', '/allocations/' + c) for c in self.held}
        moved = {row['consumer']: row['allocations'] for row in rows
                 if row['to']}
        body = {c: tests.allocations_entry(
            before[c], allocations, before[c]['consumer_generation'])
            for c, allocations in moved.items()}
        self.api('POST', '/allocations', body=body)
        after = self.state()
        for consumer, allocations in moved.items():
            self.assertEqual(allocations, after[consumer])
        # Undone: each consumer as it was, with its generation now.
        undo = {c: tests.allocations_entry(
            before[c], {rp: held['resources'] for rp, held in
                        before[c]['allocations'].items()},
            self.api('GET', '/allocations/' + c)['consumer_generation'])
            for c in moved}
        self.api('POST', '/allocations', body=undo)
        return after


class TestPlacementOnly(DrainTestCase):
    """No compute API in the session: Placement's trees alone."""

    def test_plan_moves_what_fits_and_says_why_not(self):
        rows, err, code = self.plan('cn1', '--long')
        self.assertEqual(3, code, err)
        found = self.by_consumer(rows)
        # By the drained root's name, then by consumer.
        self.assertEqual([SMALL, GPU, POOLED, BIG], [r['consumer']
                                                     for r in rows])
        self.assertEqual('cn2', found[GPU]['to'])
        self.assertEqual('cn3', found[POOLED]['to'])
        self.assertEqual('', found[BIG]['to'])
        self.assertIn('VCPU', found[BIG]['reason'])
        self.assertEqual({'VGPU': 1, 'VCPU': 2, 'MEMORY_MB': 2048,
                          'DISK_GB': 10}, found[GPU]['resources'])
        self.assertEqual({CN2: {'VCPU': 2, 'MEMORY_MB': 2048,
                                'DISK_GB': 10},
                          GPU2: {'VGPU': 1}}, found[GPU]['allocations'])
        # The pool part stays where it is.
        self.assertEqual({CN3: {'VCPU': 1, 'MEMORY_MB': 1024},
                          POOL: {'DISK_GB': 20}},
                         found[POOLED]['allocations'])
        self.assertIn('3 of 4 consumers can move; 1 cannot.', err)
        self.assertIn('No compute API in this session', err)
        self.assertEqual('', found[SMALL]['command'])
        self.prove(rows)

    def test_debug_says_what_the_search_took(self):
        line = (r'The plan of 4 consumers over 2 target trees took '
                r'\d+\.\d\d s of CPU\.')
        _rows, err, code = self.plan('cn1', '--debug')
        self.assertEqual(3, code, err)
        self.assertRegex(err, line)
        _rows, err, code = self.plan('cn1')
        self.assertNotRegex(err, line)

    def test_plan_writes_nothing(self):
        methods = []
        self.before_request(lambda method, url, kwargs: methods.append(
            method))
        before = self.state()
        _rows, _err, code = self.plan('cn1')
        self.assertEqual(3, code)
        self.assertEqual({'GET'}, set(methods))
        self.assertEqual(before, self.state())

    def test_target_narrows(self):
        rows, err, code = self.plan('cn1', '--target', 'cn3', '--long')
        self.assertEqual(3, code, err)
        found = self.by_consumer(rows)
        self.assertEqual('', found[GPU]['to'])
        self.assertIn('VGPU', found[GPU]['reason'])
        self.assertEqual({'cn3', ''}, {r['to'] for r in rows})
        self.prove(rows)

    def test_a_target_that_cannot_receive_is_said(self):
        rows, err, code = self.plan('cn1', '--target', 'cn4', '--target',
                                    'pool', '--target', 'cn1', '--target',
                                    'cn2_gpu')
        self.assertEqual(3, code)
        self.assertEqual({'cn2'}, {r['to'] for r in rows} - {''})
        self.assertEqual([
            'Not a target: cn1: it is drained.',
            'Not a target: cn4: it is disabled (COMPUTE_STATUS_DISABLED).',
            'Not a target: pool: its root is no compute node '
            '(COMPUTE_NODE).'], err.splitlines()[:3])

    def test_target_aggregate_narrows(self):
        rows, _err, code = self.plan('cn1', '--target-aggregate', AGG)
        self.assertEqual(3, code)
        self.assertEqual({'cn3', ''}, {r['to'] for r in rows})

    def test_drained_by_aggregate(self):
        self.api('PUT', '/resource_providers/%s/aggregates' % CN2, body={
            'aggregates': [_uuid('a99e', 2)],
            'resource_provider_generation': self.api(
                'GET', '/resource_providers/' + CN2)['generation']})
        rows, err, code = self.plan('--aggregate', _uuid('a99e', 2))
        self.assertEqual(0, code, err)
        self.assertEqual([OTHER], [r['consumer'] for r in rows])
        self.assertIn('1 of 1 consumer can move; 0 cannot.', err)

    def test_nothing_to_move(self):
        rows, err, code = self.plan('cn4')
        self.assertEqual(0, code, err)
        self.assertEqual([], rows)
        self.assertIn('hold no allocations', err)

    def interrupted(self, url, signum=signal.SIGINT):
        """(exit code, stdout, last stderr line) of a signal before url."""
        self.before_request(lambda method, url, kwargs: os.kill(
            os.getpid(), signum), method='GET', url=url)
        out, err, code = self.openstack(*DRAIN + ('cn1',))
        return code, out, err.strip().splitlines()[-1:]

    def test_ctrl_c_in_a_read_of_its_own_is_one_line(self):
        self.assertEqual(
            (130, '', ['Interrupted: the plan was reading; no rows '
                       'printed.']),
            self.interrupted('/resource_providers'))

    def test_sigterm_in_a_read_of_its_own_is_one_line(self):
        handler = signal.getsignal(signal.SIGTERM)
        self.assertEqual(
            (143, '', ['Interrupted: the plan was reading; no rows '
                       'printed.']),
            self.interrupted('/resource_providers', signal.SIGTERM))
        # The handler of before is back.
        self.assertIs(handler, signal.getsignal(signal.SIGTERM))

    def test_ctrl_c_in_a_batch_is_its_one_line(self):
        self.assertEqual(
            (130, '', ['Interrupted: 1 of 2 resource providers read; the '
                       'other 1 was not read; no rows printed.']),
            self.interrupted('/resource_providers/%s/allocations' % CN1))

    def test_bad_input_is_one_line(self):
        err, code = self.fails(*DRAIN)
        self.assertEqual(2, code)
        self.assertIn('give the providers to drain, or --aggregate', err)
        err, code = self.fails(*(DRAIN + ('nosuch',)))
        self.assertEqual(1, code)
        self.assertEqual(
            ["No resource provider with name or UUID 'nosuch' found."],
            err.strip().splitlines())
        err, code = self.fails(*(DRAIN + ('--aggregate', 'x')))
        self.assertEqual(2, code)
        self.assertNotIn('Traceback', err)
        err, code = self.fails(*(DRAIN + ('--aggregate', AGG.replace(
            'a99e', 'ffff'))))
        self.assertEqual(1, code)
        self.assertIn('has no resource provider', err)


def _server(uuid, name, host, status='ACTIVE', task_state=None,
            extra_specs=None, zone='az1', pinned=None):
    """A server of ``GET /servers/detail`` at 2.96, flavor embedded."""
    return {'id': uuid, 'name': name, 'status': status,
            'tenant_id': PROJECT, 'user_id': USER,
            'OS-EXT-STS:task_state': task_state,
            'OS-EXT-SRV-ATTR:hypervisor_hostname': host and 'cn' + host[-1],
            'OS-EXT-SRV-ATTR:host': host,
            'OS-EXT-AZ:availability_zone': zone,
            'pinned_availability_zone': pinned,
            'image': {'id': _uuid('1a9e', 1)},
            'flavor': {'original_name': name, 'vcpus': 1, 'ram': 1024,
                       'disk': 10, 'ephemeral': 0, 'swap': 0,
                       'extra_specs': dict(extra_specs or {})}}


class TestWithNova(DrainTestCase):
    """The compute API (requests-mock) says what each consumer is."""

    def setUp(self):
        super().setUp()
        self.servers = [
            _server(SMALL, 'small', 'h1', pinned='az2'),
            _server(GPU, 'gpu', 'h1'),
            _server(POOLED, 'pooled', 'h1', task_state='migrating'),
            _server(OTHER, 'other', 'h2'),
        ]
        self.zones = {'az1': ['h1', 'h2'], 'az2': ['h3']}
        self.migrations = []
        self.seen = []
        mock = cli.mock_compute(self, NOVA)

        def servers(request, context):
            self.seen.append(request.url)
            query = urllib.parse.parse_qs(request.query)
            return {'servers': [s for s in self.servers if query.get(
                'host') == [s['OS-EXT-SRV-ATTR:host']]]}

        mock.get(NOVA + '/servers/detail', json=servers)
        mock.get(re.compile(re.escape(NOVA + '/servers/') + '[0-9a-f-]+$'),
                 json=cli.server_by_id(lambda: self.servers))
        mock.get(NOVA + '/os-migrations',
                 json=lambda r, c: {'migrations': self.migrations})
        self.nova = mock
        mock.get(NOVA + '/os-hypervisors/detail', json=lambda r, c: {
            'hypervisors': [
                {'id': uuid, 'hypervisor_hostname': 'cn%d' % n,
                 'state': 'up', 'status': 'enabled',
                 'service': {'host': 'h%d' % n, 'id': n}}
                for n, uuid in enumerate((CN1, CN2, CN3, CN4), 1)]})
        mock.get(NOVA + '/os-availability-zone/detail', json=lambda r, c: {
            'availabilityZoneInfo': [
                {'zoneName': zone, 'zoneState': {'available': True},
                 'hosts': {host: {'nova-compute': {'available': True,
                                                   'active': True}}
                           for host in hosts}}
                for zone, hosts in self.zones.items()]})

    def nova_after_a_target(self, then=None):
        """Nova's reads start once Placement reads a target's inventory.

        (requests-mock sends one request at a time: the wait is before
        Nova's first.) ``then(method, url, kwargs)`` runs after that read
        is seen. Returns the list of whether each wait ended in time.
        """
        target_read = threading.Event()

        def seen(method, url, kwargs):
            target_read.set()
            if then is not None:
                then(method, url, kwargs)
        self.before_request(seen, method='GET',
                            url='/resource_providers/%s/inventories' % CN2)
        waited = []
        read_nova = drain_api.read_nova

        def after_a_target(*args, **kwargs):
            waited.append(target_read.wait(10))
            return read_nova(*args, **kwargs)
        self.useFixture(fixtures.MonkeyPatch(
            'osc_placement.api.drain.read_nova', after_a_target))
        return waited

    def test_nova_is_read_while_the_targets_are(self):
        # Read one after the other, Nova's reads would wait in vain.
        waited = self.nova_after_a_target()
        rows, err, code = self.plan('cn1')
        self.assertEqual([True], waited)
        self.assertEqual(3, code, err)
        self.assertIn('2 of 4 consumers can move; 2 cannot.', err)

    def test_nova_s_failure_is_the_error_also_after_placement_s(self):
        # Placement's read of a target fails first, then Nova's: the
        # command ends on Nova's failure, as when Nova's reads came first.
        def fail(method, url, kwargs):
            raise exceptions.ClientException(500, 'Internal Server Error')
        waited = self.nova_after_a_target(then=fail)
        self.nova.get(NOVA + '/os-hypervisors/detail', status_code=500,
                      json={'computeFault': {'code': 500,
                                             'message': 'Nova broke'}})
        rows, err, code = self.plan('cn1')
        self.assertEqual([True], waited)
        self.assertEqual((1, None), (code, rows))
        self.assertEqual(
            ['Cannot read the servers, migrations, hypervisors and '
             'availability zones of the compute API: the compute API '
             'answered HTTP 500: {"computeFault": {"code": 500, "message": '
             '"Nova broke"}}'], err.splitlines())

    def test_ctrl_c_in_a_target_s_read_does_not_wait_for_nova(self):
        never = threading.Event()
        self.addCleanup(never.set)
        started, ended = threading.Event(), []

        def held(*args, **kwargs):
            started.set()
            never.wait(30)
            ended.append(True)
            raise RuntimeError('released by the clean-up')
        self.useFixture(fixtures.MonkeyPatch(
            'osc_placement.api.drain.read_nova', held))

        def interrupt(method, url, kwargs):
            started.wait(10)
            os.kill(os.getpid(), signal.SIGINT)
        self.before_request(interrupt, method='GET',
                            url='/resource_providers/%s/inventories' % CN2)
        out, err, code = self.openstack(*DRAIN + ('cn1',))
        # Ended while Nova's reads were still held.
        self.assertEqual([], ended)
        self.assertEqual((130, ''), (code, out))
        # The batch's line: the signal came in its first read.
        self.assertEqual(
            ['Interrupted: 1 of 3 resource providers read; the other 2 '
             'were not read; no rows printed.'], err.splitlines())

    def test_debug_says_what_the_reads_of_nova_took(self):
        line = r"The compute API's reads took \d+\.\d\d s\."
        _rows, err, code = self.plan('cn1', '--debug')
        self.assertEqual(3, code, err)
        self.assertRegex(err, line)
        self.assertRegex(err, r'The plan of 4 consumers over \d target '
                              r'trees took')
        _rows, err, code = self.plan('cn1')
        self.assertNotRegex(err, line)

    def test_nova_constraints(self):
        rows, err, code = self.plan('cn1', '--long')
        self.assertEqual(3, code, err)
        found = self.by_consumer(rows)
        # Pinned to az2: only cn3 (h3) is in it.
        self.assertEqual('cn3', found[SMALL]['to'])
        self.assertEqual('small (ACTIVE)', found[SMALL]['server'])
        self.assertEqual(
            'openstack server migrate --live-migration --host h3 ' + SMALL,
            found[SMALL]['command'])
        # Not pinned: kept to where Nova may send it, its zone or not.
        self.assertEqual('cn2', found[GPU]['to'])
        self.assertEqual('', found[POOLED]['to'])
        self.assertEqual('its server has task state migrating',
                         found[POOLED]['reason'])
        self.assertEqual('', found[BIG]['server'])
        self.assertIn('orphan', found[BIG]['reason'])
        self.assertIn('2 of 4 consumers can move; 2 cannot.', err)
        self.assertNotIn('No compute API', err)
        self.prove(rows)

    def test_required_trait_of_flavor(self):
        self.servers[1] = _server(GPU, 'gpu', 'h1', extra_specs={
            'trait:CUSTOM_GOLD': 'required'})
        rows, err, code = self.plan('cn1')
        self.assertEqual(3, code, err)
        found = self.by_consumer(rows)
        self.assertEqual('', found[GPU]['to'])
        self.assertIn('CUSTOM_GOLD', found[GPU]['reason'])

    def test_granular_group_traits_on_the_child(self):
        self.servers[1] = _server(GPU, 'gpu', 'h1', extra_specs={
            'resources1:VGPU': '1', 'trait1:CUSTOM_FAST': 'required'})
        self.api('PUT', '/traits/CUSTOM_FAST')
        self.set_traits(GPU1, ['CUSTOM_FAST'])
        rows, _err, _code = self.plan('cn1')
        self.assertEqual('needs trait CUSTOM_FAST on a child provider: 0 of '
                         '2 target trees have it',
                         self.by_consumer(rows)[GPU]['reason'])
        self.set_traits(GPU2, ['CUSTOM_FAST'])
        rows, _err, _code = self.plan('cn1', '--long')
        found = self.by_consumer(rows)[GPU]
        self.assertEqual(('cn2', {'VGPU': 1}),
                         (found['to'], found['allocations'][GPU2]))
        self.prove(rows)
