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

"""``inventory set --dry-run`` checks each record as Placement would.

The reference's rows and exit code stay (rule D20); each record Placement
would refuse is named on stderr with the rule it breaks, one line per
provider and class with ``--aggregate``, and nothing is written.
"""

from osc_placement.tests.unit import base

URL = base.ENDPOINT
RP1 = base.RP1
RP2 = base.RP2
RP3 = base.RP3
RP4 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000004'
AGG = base.AGG1

DISK = {'total': 1000, 'reserved': 0, 'min_unit': 1, 'max_unit': 1000,
        'step_size': 1, 'allocation_ratio': 1.0}


class TestDryRunChecksRecords(base.TestCase):
    """Rule D20: a dry run warns of what Placement would refuse.

    The rows and the exit code stay the reference's (0); each refused
    record is one warning line naming the provider, the class and the
    rule.
    """

    api_version = '1.26'

    def inventories(self, uuid, inventories):
        self.requests_mock.get(
            URL + '/resource_providers/%s/inventories' % uuid,
            json={'resource_provider_generation': 1,
                  'inventories': inventories})

    def usages(self, uuid, usages=None):
        self.requests_mock.get(
            URL + '/resource_providers/%s/usages' % uuid,
            json={'resource_provider_generation': 1,
                  'usages': usages or {}})

    def test_aggregate_amend_reserved_above_total(self):
        self.requests_mock.get(
            URL + '/resource_providers?member_of=' + AGG, complete_qs=True,
            json={'resource_providers': [
                base.provider(uuid, generation=1)
                for uuid in (RP1, RP2, RP3, RP4)]})
        self.inventories(RP1, {'DISK_GB': DISK})
        self.inventories(RP2, {})
        self.inventories(RP3, {'VCPU': dict(DISK, total=8)})
        self.inventories(RP4, {'DISK_GB': dict(DISK, total=2000)})
        for uuid in (RP1, RP2, RP3, RP4):
            self.usages(uuid)
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'set', AGG, '--aggregate',
            '--amend', '--resource', 'DISK_GB:reserved=1500', '--dry-run',
            '-f', 'value', '-c', 'resource_provider', '-c', 'resource_class',
            '-c', 'reserved', '-c', 'total')
        self.assertEqual(0, code)
        self.assertEqual([
            '%s DISK_GB 1500 1000' % RP1,
            '%s DISK_GB 1500 ' % RP2,
            '%s VCPU 0 8' % RP3,
            '%s DISK_GB 1500 ' % RP3,
            '%s DISK_GB 1500 2000' % RP4], out.splitlines())
        self.assertEqual([
            'Warning: resource provider %s: Placement would refuse the '
            'DISK_GB record: capacity (total - reserved) * allocation_ratio '
            '= (1000 - 1500) * 1.0 is below 0.' % RP1,
            'Warning: resource provider %s: Placement would refuse the '
            'DISK_GB record: no total (Placement requires one).' % RP2,
            'Warning: resource provider %s: Placement would refuse the '
            'DISK_GB record: no total (Placement requires one).' % RP3],
            err.splitlines())
        # The members; then the inventory and the usages of each.
        self.assertEqual(['GET'] * 9, [m for m, _ in self.sent()])

    def check_one(self, version, *resources):
        self.requests_mock.get(URL + '/resource_providers/' + RP1,
                               json=base.provider(RP1, generation=1))
        self.usages(RP1)
        return self.openstack(
            'resource', 'provider', 'inventory', 'set', RP1, '--dry-run',
            '-f', 'value', '-c', 'resource_class', '-c', 'reserved',
            *resources, version=version)

    def test_reserved_equal_to_total_is_refused_below_1_26(self):
        out, err, code = self.check_one(
            '1.25', '--resource', 'VCPU=8', '--resource', 'VCPU:reserved=8')
        self.assertEqual(('VCPU 8\n', 0), (out, code))
        self.assertEqual(
            'Warning: resource provider %s: Placement would refuse the VCPU '
            'record: capacity (total - reserved) * allocation_ratio = (8 - '
            '8) * 1.0 is below 1 (0 is accepted from '
            '--os-placement-api-version 1.26).\n' % RP1, err)
        self.assertEqual([
            ('GET', '/resource_providers/' + RP1),
            ('GET', '/resource_providers/%s/usages' % RP1)], self.sent())

    def test_reserved_equal_to_total_passes_from_1_26(self):
        out, err, code = self.check_one(
            '1.26', '--resource', 'VCPU=8', '--resource', 'VCPU:reserved=8')
        self.assertEqual(('VCPU 8\n', '', 0), (out, err, code))

    def test_every_refused_record_and_field_is_named(self):
        out, err, code = self.check_one(
            '1.26', '--resource', 'VCPU=8', '--resource', 'VCPU:step_size=0',
            '--resource', 'VCPU:max_unit=0', '--resource', 'DISK_GB=0',
            '--resource', 'MEMORY_MB=64')
        self.assertEqual(('VCPU \nDISK_GB \nMEMORY_MB \n', 0), (out, code))
        self.assertEqual([
            'Warning: resource provider %s: Placement would refuse the VCPU '
            'record: max_unit 0 is out of range (1 to 2147483647); '
            'step_size 0 is out of range (1 to 2147483647).' % RP1,
            'Warning: resource provider %s: Placement would refuse the '
            'DISK_GB record: total 0 is out of range (1 to 2147483647).'
            % RP1], err.splitlines())

    def test_min_unit_above_max_unit_is_left_to_placement(self):
        # Placement stores it (a recorded case shows it): no warning.
        out, err, code = self.check_one(
            '1.26', '--resource', 'VCPU=8', '--resource', 'VCPU:min_unit=4',
            '--resource', 'VCPU:max_unit=2')
        self.assertEqual(('VCPU \n', '', 0), (out, err, code))
