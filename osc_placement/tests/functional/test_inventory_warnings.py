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

"""The warnings of ``inventory set`` against a real Placement.

Rule D19: what a write does to the usages (a usage above the new
capacity, a class in use that a full replace removes); rule D20: a dry
run warns of each record Placement would refuse, and keeps its rows and
exit 0. Each test also asks the server whether the warning was right.
"""

import requests

from osc_placement import tests
from osc_placement.tests.functional import base

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
RP2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
RP3 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000003'
AGG = 'dddddddd-dddd-4ddd-8ddd-000000000001'


def consumer(n):
    return 'cccccccc-cccc-4ccc-8ccc-%012d' % n


def over(uuid, resource_class, used, capacity):
    return ('Warning: resource provider %s: %s has %d in use, more than its '
            'new capacity %d ((total - reserved) * allocation_ratio): '
            'Placement accepts the inventory, but no new allocation of %s '
            'fits until the usage is below it.' % (
                uuid, resource_class, used, capacity, resource_class))


class WarningsTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.requests = []

        def record(method, url, kwargs):
            # All but the version negotiation.
            if url != '/':
                self.requests.append((method, url.split('?')[0]))

        self.before_request(record)

    def host(self, uuid, vcpu_used, memory_used=0, n=1):
        """A provider of 8 VCPU and 4096 MEMORY_MB, in AGG, with usage."""
        tests.create_provider(self, uuid, 'host-%s' % uuid[-1], inventories={
            'VCPU': 8, 'MEMORY_MB': 4096}, aggregates=[AGG])
        resources = {'VCPU': vcpu_used}
        if memory_used:
            resources['MEMORY_MB'] = memory_used
        tests.allocate(self, consumer(n), {uuid: resources})

    def inventory(self, uuid):
        return self.api('GET', '/resource_providers/%s/inventories'
                        % uuid)['inventories']

    def allocation_of_one_vcpu_status(self, uuid):
        """The status of Placement's answer to one more VCPU on ``uuid``."""
        # A new consumer per provider: its generation (None) stays right.
        return requests.put(
            self.endpoint + '/allocations/' + consumer(100 + int(uuid[-1])),
            json={'allocations': {uuid: {'resources': {'VCPU': 1}}},
                  'project_id': 'p', 'user_id': 'u',
                  'consumer_generation': None},
            headers={'x-auth-token': 'admin',
                     'OpenStack-API-Version': 'placement 1.28'}).status_code

    def command(self, *argv, version=None):
        """(stdout, our warnings, exit code, the server's log lines).

        The server runs in this process: what it logs at WARNING reaches
        the same stderr.
        """
        out, err, code = self.openstack(*argv, version=version)
        lines = err.splitlines()
        return (out, [line for line in lines if line.startswith('Warning:')],
                code, [line for line in lines
                       if not line.startswith('Warning:')])

    def usages_read(self):
        return [path for method, path in self.requests
                if path.endswith('/usages')]


class TestUsageAboveNewCapacity(WarningsTestCase):

    ARGV = ('resource', 'provider', 'inventory', 'set', RP1, '--amend',
            '--resource', 'VCPU:allocation_ratio=0.5', '-f', 'value', '-c',
            'resource_class', '-c', 'allocation_ratio')

    def test_dry_run_then_real_run_warn_of_6_above_4(self):
        self.host(RP1, vcpu_used=6)
        before = self.inventory(RP1)
        dry = self.command(*(self.ARGV + ('--dry-run',)))
        self.assertEqual(('VCPU 0.5\nMEMORY_MB 1.0\n',
                          [over(RP1, 'VCPU', 6, 4)], 0, []), dry)
        self.assertEqual(before, self.inventory(RP1))

        real = self.command(*self.ARGV)
        self.assertEqual(dry[:3], real[:3])
        # What the warning says: Placement took the write (and logged it),
        # and now refuses any new VCPU on the provider.
        self.assertEqual(0.5, self.inventory(RP1)['VCPU']['allocation_ratio'])
        self.assertEqual(['Resource provider %s is now over-capacity for '
                          'VCPU' % RP1], real[3])
        self.assertEqual(409, self.allocation_of_one_vcpu_status(RP1))
        # The usages, read after the inventory and before the write.
        self.assertEqual([
            ('GET', '/resource_providers/' + RP1),
            ('GET', '/resource_providers/%s/inventories' % RP1),
            ('GET', '/resource_providers/%s/usages' % RP1),
            ('PUT', '/resource_providers/%s/inventories' % RP1)],
            self.requests[-4:])

    def test_through_the_aggregate_each_provider_concerned(self):
        self.host(RP1, vcpu_used=6, n=1)
        self.host(RP2, vcpu_used=2, n=2)
        self.host(RP3, vcpu_used=5, n=3)
        argv = ('resource', 'provider', 'inventory', 'set', AGG,
                '--aggregate', '--amend', '--resource',
                'VCPU:allocation_ratio=0.5', '-f', 'value', '-c',
                'resource_provider', '-c', 'resource_class')
        rows = ''.join('%s %s\n' % (uuid, rc) for uuid in (RP1, RP2, RP3)
                       for rc in ('VCPU', 'MEMORY_MB'))
        warnings = [over(RP1, 'VCPU', 6, 4), over(RP3, 'VCPU', 5, 4)]
        dry = self.command(*(argv + ('--dry-run',)), version='1.3')
        self.assertEqual((rows, warnings, 0), dry[:3])
        self.assertEqual((rows, warnings, 0),
                         self.command(*argv, version='1.3')[:3])
        self.assertEqual([409, 204, 409], [
            self.allocation_of_one_vcpu_status(uuid)
            for uuid in (RP1, RP2, RP3)])

    def test_a_change_that_raises_capacity_reads_no_usages(self):
        self.host(RP1, vcpu_used=6)
        self.assertEqual(([], 0, []), self.command(
            'resource', 'provider', 'inventory', 'set', RP1, '--amend',
            '--resource', 'VCPU=16', '--resource', 'DISK_GB=100')[1:])
        self.assertEqual(['GET', 'GET', 'PUT'],
                         [method for method, _ in self.requests])
        self.assertEqual([], self.usages_read())
        self.assertEqual(16, self.inventory(RP1)['VCPU']['total'])

    def test_a_full_replace_reads_no_usages(self):
        self.host(RP1, vcpu_used=6)
        # Placement logs the usage above capacity; the plugin, which did
        # not read the inventory, says nothing.
        self.assertEqual(([], 0), self.command(
            'resource', 'provider', 'inventory', 'set', RP1, '--resource',
            'VCPU=4')[1:3])
        self.assertEqual([], self.usages_read())
        self.assertEqual(['VCPU'], list(self.inventory(RP1)))


class TestFullReplaceDryRun(WarningsTestCase):

    def test_a_class_in_use_that_the_write_removes(self):
        self.host(RP1, vcpu_used=2, memory_used=512)
        argv = ('resource', 'provider', 'inventory', 'set', 'host-1',
                '--resource', 'VCPU=16', '-f', 'value', '-c',
                'resource_class', '-c', 'total')
        out, err, code = self.openstack(*(argv + ('--dry-run',)))
        self.assertEqual(('VCPU 16\n', 0), (out, code))
        self.assertEqual(
            'Warning: resource provider %s: MEMORY_MB has 512 in use and '
            'the write would remove it: Placement refuses that (HTTP 409); '
            '--amend keeps the classes not given.\n' % RP1, err)
        # What the warning says: the real run is refused.
        out, err, code = self.openstack(*argv)
        self.assertEqual(1, code)
        self.assertIn("Inventory for 'MEMORY_MB' on resource provider '%s' "
                      "in use" % RP1, err)
        self.assertIn('(HTTP 409)', err)


class TestDryRunOfRecordsPlacementRefuses(WarningsTestCase):
    """Rule D20, in the reference suite's own scenario (test_with_aggregate).

    A full replace of two providers with records without a total: the rows
    and exit 0 of the reference, one warning per record; the real run is
    refused for both providers.
    """

    def test_rows_exit_0_and_a_warning_per_record(self):
        tests.create_provider(self, RP1, 'c1', inventories={'VCPU': 8},
                              aggregates=[AGG])
        tests.create_provider(self, RP2, 'c2', inventories={'VCPU': 4},
                              aggregates=[AGG])
        argv = ('resource', 'provider', 'inventory', 'set', AGG,
                '--aggregate', '--resource', 'VCPU:allocation_ratio=5.0',
                '--resource', 'DISK_GB:allocation_ratio=7.0', '-f', 'value',
                '-c', 'resource_provider', '-c', 'resource_class', '-c',
                'allocation_ratio', '-c', 'total')
        out, err, code = self.openstack(*(argv + ('--dry-run',)),
                                        version='1.3')
        self.assertEqual(0, code)
        self.assertEqual(['%s %s %s ' % (uuid, rc, ratio)
                          for uuid in (RP1, RP2)
                          for rc, ratio in (('VCPU', '5.0'),
                                            ('DISK_GB', '7.0'))],
                         out.splitlines())
        self.assertEqual([
            'Warning: resource provider %s: Placement would refuse the %s '
            'record: no total (Placement requires one).' % (uuid, rc)
            for uuid in (RP1, RP2) for rc in ('VCPU', 'DISK_GB')],
            err.splitlines())
        self.assertEqual({'VCPU'}, set(self.inventory(RP1)))

        out, err, code = self.openstack(*argv, version='1.3')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ['Failed to set inventory for resource provider %s' % uuid
             for uuid in (RP1, RP2)],
            [line.split(':')[0] for line in err.splitlines()[:2]])
