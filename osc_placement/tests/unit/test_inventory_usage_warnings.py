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

"""Rule D19: ``inventory set`` warns of what a write does to usage.

The usages are read (one request per provider, after its inventory read
and before its write) in every dry run, and in an ``--amend`` write that
lowers the capacity of a class the provider has; never otherwise. The
rows, the exit code and the other requests are those of a run without
the warning.
"""

import json
import time

from osc_placement.tests.unit import base

URL = base.ENDPOINT
RP1 = base.RP1
RP2 = base.RP2
RP3 = base.RP3
AGG = base.AGG1

VCPU = {'total': 8, 'reserved': 0, 'min_unit': 1, 'max_unit': 8,
        'step_size': 1, 'allocation_ratio': 1.0}
MEMORY = {'total': 4096, 'reserved': 0, 'min_unit': 1, 'max_unit': 4096,
          'step_size': 1, 'allocation_ratio': 1.0}


def over(uuid, resource_class, used, capacity):
    return ('Warning: resource provider %s: %s has %d in use, more than its '
            'new capacity %d ((total - reserved) * allocation_ratio): '
            'Placement accepts the inventory, but no new allocation of %s '
            'fits until the usage is below it.' % (
                uuid, resource_class, used, capacity, resource_class))


def removed(uuid, resource_class, used):
    return ('Warning: resource provider %s: %s has %d in use and the write '
            'would remove it: Placement refuses that (HTTP 409); --amend '
            'keeps the classes not given.' % (uuid, resource_class, used))


def inventories_path(uuid):
    return '/resource_providers/%s/inventories' % uuid


def usages_path(uuid):
    return '/resource_providers/%s/usages' % uuid


class UsageTestCase(base.TestCase):

    api_version = '1.3'

    def provider(self, uuid, inventories, usages, delay=0.0):
        """``uuid`` with ``inventories`` and ``usages``; writes succeed.

        ``delay``: seconds before each of its answers.
        """
        def answer(body):
            def reply(request, context):
                time.sleep(delay)
                if request.method == 'PUT':
                    return {'resource_provider_generation': 2,
                            'inventories': request.json()['inventories']}
                return body
            return reply

        self.requests_mock.get(URL + '/resource_providers/' + uuid,
                               json=base.provider(uuid, generation=1))
        self.requests_mock.get(URL + inventories_path(uuid), json=answer(
            {'resource_provider_generation': 1,
             'inventories': inventories}))
        self.requests_mock.put(URL + inventories_path(uuid),
                               json=answer(None))
        self.requests_mock.get(URL + usages_path(uuid), json=answer(
            {'resource_provider_generation': 1, 'usages': usages}))

    def set_inventory(self, *argv, options=()):
        before = len(self.requests_mock.request_history)
        out, err, code = self.openstack(*(
            list(options) + ['resource', 'provider', 'inventory', 'set']
            + list(argv)))
        return out, err, code, self.sent()[before:]


class TestOneProvider(UsageTestCase):

    def test_amend_lowering_capacity_warns_after_reading_usages(self):
        self.provider(RP1, {'VCPU': VCPU, 'MEMORY_MB': MEMORY},
                      {'VCPU': 6, 'MEMORY_MB': 1024})
        out, err, code, sent = self.set_inventory(
            RP1, '--amend', '--resource', 'VCPU:allocation_ratio=0.5',
            '-f', 'value', '-c', 'resource_class', '-c', 'allocation_ratio')
        self.assertEqual((0, 'VCPU 0.5\nMEMORY_MB 1.0\n'), (code, out))
        self.assertEqual([over(RP1, 'VCPU', 6, 4)], err.splitlines())
        self.assertEqual([
            ('GET', '/resource_providers/' + RP1),
            ('GET', inventories_path(RP1)),
            ('GET', usages_path(RP1)),
            ('PUT', inventories_path(RP1))], sent)
        self.assertEqual(
            dict(VCPU, allocation_ratio=0.5),
            self.requests_mock.request_history[-1].json()[
                'inventories']['VCPU'])

    def test_amend_dry_run_warns_the_same_and_writes_nothing(self):
        self.provider(RP1, {'VCPU': VCPU}, {'VCPU': 6})
        out, err, code, sent = self.set_inventory(
            RP1, '--amend', '--dry-run', '--resource',
            'VCPU:allocation_ratio=0.5', '-f', 'json')
        self.assertEqual(0, code)
        self.assertEqual([dict(VCPU, allocation_ratio=0.5,
                               resource_class='VCPU')], json.loads(out))
        self.assertEqual([over(RP1, 'VCPU', 6, 4)], err.splitlines())
        self.assertEqual([
            ('GET', '/resource_providers/' + RP1),
            ('GET', inventories_path(RP1)),
            ('GET', usages_path(RP1))], sent)

    def test_lowered_capacity_still_above_usage_warns_nothing(self):
        self.provider(RP1, {'VCPU': VCPU}, {'VCPU': 4})
        out, err, code, sent = self.set_inventory(
            RP1, '--amend', '--resource', 'VCPU:reserved=4')
        self.assertEqual((0, ''), (code, err))
        self.assertEqual(['GET', 'GET', 'GET', 'PUT'],
                         [method for method, _ in sent])

    def test_amend_raising_capacity_reads_no_usages(self):
        self.provider(RP1, {'VCPU': VCPU}, {'VCPU': 6})
        out, err, code, sent = self.set_inventory(
            RP1, '--amend', '--resource', 'VCPU=16', '--resource',
            'DISK_GB=10')
        self.assertEqual((0, ''), (code, err))
        self.assertEqual([
            ('GET', '/resource_providers/' + RP1),
            ('GET', inventories_path(RP1)),
            ('PUT', inventories_path(RP1))], sent)

    def test_real_replace_reads_no_usages(self):
        # Without --amend the inventory is not read, so nothing is known to
        # be lowered; Placement judges the classes it would remove.
        self.provider(RP1, {'VCPU': VCPU}, {'VCPU': 6})
        out, err, code, sent = self.set_inventory(RP1, '--resource', 'VCPU=2')
        self.assertEqual((0, ''), (code, err))
        self.assertEqual([
            ('GET', '/resource_providers/' + RP1),
            ('PUT', inventories_path(RP1))], sent)

    def test_replace_dry_run_warns_of_classes_in_use_it_removes(self):
        self.provider(RP1, {'VCPU': VCPU, 'MEMORY_MB': MEMORY},
                      {'VCPU': 6, 'MEMORY_MB': 512, 'DISK_GB': 0})
        out, err, code, sent = self.set_inventory(
            RP1, '--dry-run', '--resource', 'VCPU=4', '-f', 'value', '-c',
            'resource_class', '-c', 'total')
        self.assertEqual((0, 'VCPU 4\n'), (code, out))
        self.assertEqual([over(RP1, 'VCPU', 6, 4),
                          removed(RP1, 'MEMORY_MB', 512)], err.splitlines())
        self.assertEqual([
            ('GET', '/resource_providers/' + RP1),
            ('GET', usages_path(RP1))], sent)

    def test_refused_record_is_not_judged_on_usage(self):
        # No total: the refusal (rule D20) is the one warning of VCPU.
        self.provider(RP1, {'VCPU': VCPU}, {'VCPU': 6})
        out, err, code, sent = self.set_inventory(
            RP1, '--dry-run', '--resource', 'VCPU:allocation_ratio=0.5')
        self.assertEqual(0, code)
        self.assertEqual([
            'Warning: resource provider %s: Placement would refuse the '
            'VCPU record: no total (Placement requires one).' % RP1],
            err.splitlines())


class TestAggregate(UsageTestCase):

    def setUp(self):
        super().setUp()
        self.requests_mock.get(
            URL + '/resource_providers?member_of=' + AGG, complete_qs=True,
            json={'resource_providers': [
                base.provider(uuid, generation=1)
                for uuid in (RP1, RP2, RP3)]})
        # The first provider answers last when several run at once.
        self.provider(RP1, {'VCPU': VCPU}, {'VCPU': 6}, delay=0.03)
        self.provider(RP2, {'VCPU': VCPU}, {'VCPU': 2}, delay=0.01)
        self.provider(RP3, {'VCPU': VCPU}, {'VCPU': 8})

    def test_each_provider_read_then_written_warnings_in_its_order(self):
        out, err, code, sent = self.set_inventory(
            AGG, '--aggregate', '--amend', '--resource',
            'VCPU:allocation_ratio=0.5', '-f', 'value', '-c',
            'resource_provider', '-c', 'allocation_ratio')
        self.assertEqual(0, code)
        self.assertEqual(['%s 0.5' % uuid for uuid in (RP1, RP2, RP3)],
                         out.splitlines())
        self.assertEqual([over(RP1, 'VCPU', 6, 4), over(RP3, 'VCPU', 8, 4)],
                         err.splitlines())
        expected = [('GET', '/resource_providers?member_of=' + AGG)]
        for uuid in (RP1, RP2, RP3):
            expected += [('GET', inventories_path(uuid)),
                         ('GET', usages_path(uuid)),
                         ('PUT', inventories_path(uuid))]
        self.assertEqual(expected, sent)

    def test_parallel_run_prints_what_the_serial_one_does(self):
        argv = (AGG, '--aggregate', '--amend', '--dry-run', '--resource',
                'VCPU:allocation_ratio=0.5')
        serial = self.set_inventory(*argv)
        parallel = self.set_inventory(
            *argv, options=('--os-placement-parallel', '3'))
        self.assertEqual(serial[:3], parallel[:3])
        self.assertEqual(sorted(serial[3]), sorted(parallel[3]))
        self.assertEqual([over(RP1, 'VCPU', 6, 4), over(RP3, 'VCPU', 8, 4)],
                         serial[1].splitlines())
