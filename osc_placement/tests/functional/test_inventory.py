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

"""Inventory commands against a real Placement.

Each test reads the server state back with direct API calls: what the
command printed is not taken as proof of what it wrote.
"""

import requests

from osc_placement import tests
from osc_placement.tests.functional import base

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
RP2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
RP3 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000003'
AGG = 'dddddddd-dddd-4ddd-8ddd-000000000001'
CONSUMER = 'cccccccc-cccc-4ccc-8ccc-000000000001'
CONSUMER2 = 'cccccccc-cccc-4ccc-8ccc-000000000002'

# A lost race on the provider generation, with what to do (issue 26).
GENERATION_CONFLICT = (
    'resource provider generation conflict. Resource provider %s changed '
    'since it was read: read it again with "openstack resource provider '
    'show %s", then run the command again (HTTP 409)\n' % (RP1, RP1))

DEFAULTS = {'reserved': 0, 'min_unit': 1, 'max_unit': 2147483647,
            'step_size': 1, 'allocation_ratio': 1.0}


def full(**values):
    """An inventory record as the server stores it, defaults filled."""
    result = dict(DEFAULTS)
    result.update(values)
    return result


def put_inventories(placement, uuid, inventories):
    generation = placement.api(
        'GET', '/resource_providers/' + uuid)['generation']
    placement.api('PUT', '/resource_providers/%s/inventories' % uuid,
                  body={'resource_provider_generation': generation,
                        'inventories': inventories})


def inventories(placement, uuid=RP1):
    return placement.api(
        'GET', '/resource_providers/%s/inventories' % uuid)['inventories']


def rows_by_class(rows):
    return {row.pop('resource_class'): row for row in rows}


def in_aggregate(placement, *uuids):
    for uuid in uuids:
        placement.api('PUT', '/resource_providers/%s/aggregates' % uuid,
                      version='1.1', body=[AGG])


class TestInventory(base.TestCase):

    def test_set_replaces_the_inventory(self):
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {'DISK_GB': {'total': 100}})
        rows = self.ok(
            'resource', 'provider', 'inventory', 'set', RP1,
            '--resource', 'VCPU=8', '--resource', 'VCPU:allocation_ratio=16',
            '--resource', 'MEMORY_MB=4096', '--resource',
            'MEMORY_MB:reserved=512', '--resource', 'MEMORY_MB:step_size=64',
            '--resource', 'MEMORY_MB:min_unit=64', '--resource',
            'MEMORY_MB:max_unit=2048', '-f', 'json')
        expected = {
            'VCPU': full(total=8, allocation_ratio=16.0),
            'MEMORY_MB': full(total=4096, reserved=512, step_size=64,
                              min_unit=64, max_unit=2048)}
        # DISK_GB was not given: it is gone.
        self.assertEqual(expected, inventories(self))
        self.assertEqual(expected, rows_by_class(rows))

    def test_set_without_resource_empties_the_inventory(self):
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {'DISK_GB': {'total': 100}})
        rows = self.ok('resource', 'provider', 'inventory', 'set', RP1,
                       '-f', 'json', version='1.0')
        self.assertEqual([], rows)
        self.assertEqual({}, inventories(self))

    def test_set_amend_keeps_the_other_classes(self):
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {
            'DISK_GB': {'total': 100, 'reserved': 5},
            'VCPU': {'total': 4, 'allocation_ratio': 2.0}})
        self.ok('resource', 'provider', 'inventory', 'set', RP1,
                '--amend', '--resource', 'VCPU=16', '--resource',
                'MEMORY_MB=1024')
        self.assertEqual({
            'DISK_GB': full(total=100, reserved=5),
            'VCPU': full(total=16, allocation_ratio=2.0),
            'MEMORY_MB': full(total=1024)}, inventories(self))

    def test_set_dry_run_writes_nothing(self):
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {'DISK_GB': {'total': 100}})
        generation = self.api('GET', '/resource_providers/' + RP1)[
            'generation']
        rows = self.ok('resource', 'provider', 'inventory', 'set', RP1,
                       '--amend', '--dry-run', '--resource', 'VCPU=2',
                       '-f', 'json')
        self.assertEqual(['DISK_GB', 'VCPU'],
                         [row['resource_class'] for row in rows])
        self.assertEqual({'DISK_GB': full(total=100)}, inventories(self))
        self.assertEqual(generation,
                         self.api('GET', '/resource_providers/' + RP1)[
                             'generation'])

    def test_set_by_provider_name(self):
        tests.create_provider(self, RP1, 'compute-by-name')
        self.ok('resource', 'provider', 'inventory', 'set',
                'compute-by-name', '--resource', 'VCPU=3')
        self.assertEqual({'VCPU': full(total=3)}, inventories(self))

    def test_set_unknown_provider_name(self):
        err, code = self.fails('resource', 'provider', 'inventory', 'set',
                               'nowhere', '--resource', 'VCPU=3')
        self.assertEqual((
            "No resource provider with name or UUID 'nowhere' found.\n", 1),
            (err, code))

    def test_set_malformed_value_sends_nothing(self):
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {'DISK_GB': {'total': 100}})
        err, code = self.fails('resource', 'provider', 'inventory', 'set',
                               RP1, '--resource', 'VCPU=4', '--resource',
                               'DISK_GB=lots')
        self.assertEqual(1, code)
        self.assertEqual("total of --resource DISK_GB=lots: 'lots' is not "
                         "an integer.\n", err)
        self.assertEqual({'DISK_GB': full(total=100)}, inventories(self))

    def test_set_in_use_class_cannot_be_removed(self):
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {'VCPU': {'total': 8},
                                    'DISK_GB': {'total': 100}})
        tests.allocate(self, CONSUMER, {RP1: {'VCPU': 2}})
        err, code = self.fails('resource', 'provider', 'inventory', 'set',
                               RP1, '--resource', 'DISK_GB=10')
        self.assertEqual(1, code)
        self.assertEqual("update conflict: Inventory for 'VCPU' on resource "
                         "provider '%s' in use. (HTTP 409)\n" % RP1, err)
        self.assertEqual({'VCPU', 'DISK_GB'}, set(inventories(self)))

    def test_reserved_equal_to_total_from_1_26(self):
        tests.create_provider(self, RP1, 'compute-1')
        rows = self.ok('resource', 'provider', 'inventory', 'set', RP1,
                       '--resource', 'VCPU=4', '--resource',
                       'VCPU:reserved=4', '-f', 'json', version='1.26')
        self.assertEqual({'VCPU': full(total=4, reserved=4)},
                         rows_by_class(rows))
        self.assertEqual({'VCPU': full(total=4, reserved=4)},
                         inventories(self))

    def test_reserved_equal_to_total_refused_at_1_25(self):
        tests.create_provider(self, RP1, 'compute-1')
        err, code = self.fails('resource', 'provider', 'inventory', 'set',
                               RP1, '--resource', 'VCPU=4', '--resource',
                               'VCPU:reserved=4', version='1.25')
        self.assertEqual(1, code)
        # The server's reason, on one line, with the status.
        self.assertEqual(
            "Unable to update inventory for resource provider %s: Invalid "
            "inventory for 'VCPU' on resource provider '%s'. The reserved "
            "value is greater than or equal to total. (HTTP 400)\n"
            % (RP1, RP1), err)
        self.assertEqual({}, inventories(self))

    def test_set_amend_concurrent_writers(self):
        """Two --amend writers on one provider: the second to write loses.

        The loser reads the inventory; before its PUT, the winner runs a whole
        ``inventory set --amend``. The loser's PUT carries the generation it
        read, now stale: the server answers 409, the loser exits 1 with the
        server's message and does not retry; the winner's write stays.
        """
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {'VCPU': {'total': 8},
                                    'DISK_GB': {'total': 100}})
        interleaved = []

        def winner(method, url, kwargs):
            if not interleaved:
                interleaved.append(url)
                self.ok('resource', 'provider', 'inventory', 'set', RP1,
                        '--amend', '--resource', 'DISK_GB=50')

        self.before_request(winner, 'PUT',
                            '/resource_providers/%s/inventories' % RP1)
        out, err, code = self.openstack('resource', 'provider', 'inventory',
                                        'set', RP1, '--amend', '--resource',
                                        'VCPU=16')
        self.assertTrue(interleaved)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(GENERATION_CONFLICT, err)
        # The winner's write is intact and the loser's is not applied.
        self.assertEqual({'VCPU': full(total=8),
                          'DISK_GB': full(total=50)}, inventories(self))

    def test_set_aggregate_needs_1_3(self):
        tests.create_provider(self, RP1, 'compute-1')
        err, code = self.fails('resource', 'provider', 'inventory', 'set',
                               AGG, '--aggregate', '--resource', 'VCPU=2',
                               version='1.2')
        self.assertEqual((
            'Operation or argument is not supported with version 1.2; '
            'requires at least version 1.3\n', 1), (err, code))
        self.assertEqual({}, inventories(self))

    def test_set_aggregate_sets_every_member(self):
        tests.create_provider(self, RP1, 'compute-1')
        tests.create_provider(self, RP2, 'compute-2')
        tests.create_provider(self, RP3, 'outsider')
        in_aggregate(self, RP1, RP2)
        rows = self.ok('resource', 'provider', 'inventory', 'set', AGG,
                       '--aggregate', '--resource', 'VCPU=8', '-f', 'json',
                       version='1.3')
        self.assertEqual([RP1, RP2],
                         sorted(row['resource_provider'] for row in rows))
        self.assertEqual({'VCPU': full(total=8)}, inventories(self, RP1))
        self.assertEqual({'VCPU': full(total=8)}, inventories(self, RP2))
        self.assertEqual({}, inventories(self, RP3))

    def test_set_aggregate_amend(self):
        tests.create_provider(self, RP1, 'compute-1')
        tests.create_provider(self, RP2, 'compute-2')
        put_inventories(self, RP1, {'DISK_GB': {'total': 100}})
        in_aggregate(self, RP1, RP2)
        self.ok('resource', 'provider', 'inventory', 'set', AGG,
                '--aggregate', '--amend', '--resource', 'VCPU=2')
        self.assertEqual({'DISK_GB': full(total=100),
                          'VCPU': full(total=2)}, inventories(self, RP1))
        self.assertEqual({'VCPU': full(total=2)}, inventories(self, RP2))

    def test_set_aggregate_dry_run_writes_nothing(self):
        tests.create_provider(self, RP1, 'compute-1')
        tests.create_provider(self, RP2, 'compute-2')
        put_inventories(self, RP1, {'DISK_GB': {'total': 100}})
        in_aggregate(self, RP1, RP2)
        rows = self.ok('resource', 'provider', 'inventory', 'set', AGG,
                       '--aggregate', '--dry-run', '--resource', 'VCPU=2',
                       '-f', 'json')
        self.assertEqual([
            (RP1, 'VCPU', 2), (RP2, 'VCPU', 2)],
            sorted((row['resource_provider'], row['resource_class'],
                    row['total']) for row in rows))
        self.assertEqual({'DISK_GB': full(total=100)}, inventories(self, RP1))
        self.assertEqual({}, inventories(self, RP2))

    def test_set_aggregate_without_members(self):
        err, code = self.fails('resource', 'provider', 'inventory', 'set',
                               AGG, '--aggregate', '--resource', 'VCPU=2')
        self.assertEqual(
            ('No resource providers found in aggregate with uuid %s.\n'
             % AGG, 1), (err, code))

    def test_set_aggregate_partial_failure(self):
        """One provider of three refuses (a class in use): the others change.

        The rows of the two updated providers are printed; the failure and the
        count follow on stderr; the exit code is 1.
        """
        for uuid, name in ((RP1, 'compute-1'), (RP2, 'compute-2'),
                           (RP3, 'compute-3')):
            tests.create_provider(self, uuid, name)
            put_inventories(self, uuid, {'MEMORY_MB': {'total': 1024}})
        in_aggregate(self, RP1, RP2, RP3)
        tests.allocate(self, CONSUMER, {RP2: {'MEMORY_MB': 256}})
        out, err, code = self.openstack('resource', 'provider', 'inventory',
                                        'set', AGG, '--aggregate',
                                        '--resource', 'VCPU=4', '-f', 'value')
        self.assertEqual(1, code)
        updated = sorted(line.split()[0] for line in out.splitlines())
        self.assertEqual([RP1, RP3], updated)
        self.assertEqual([
            "Failed to set inventory for resource provider %s: update "
            "conflict: Inventory for 'MEMORY_MB' on resource provider '%s' in "
            "use. (HTTP 409)." % (RP2, RP2),
            'Failed to set inventory for 1 of 3 resource providers.'],
            err.splitlines())
        # Read back: the batch is not atomic.
        self.assertEqual({'VCPU': full(total=4)}, inventories(self, RP1))
        self.assertEqual({'MEMORY_MB': full(total=1024)},
                         inventories(self, RP2))
        self.assertEqual({'VCPU': full(total=4)}, inventories(self, RP3))

    def test_class_set_replaces_one_class(self):
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {
            'VCPU': {'total': 4, 'reserved': 1, 'max_unit': 2},
            'DISK_GB': {'total': 100}})
        record = self.ok(
            'resource', 'provider', 'inventory', 'class', 'set', RP1, 'VCPU',
            '--total', '16', '--reserved', '2', '--min_unit', '2',
            '--max_unit', '8', '--step_size', '2', '--allocation_ratio', '2.5',
            '-f', 'json')
        expected = full(total=16, reserved=2, min_unit=2, max_unit=8,
                        step_size=2, allocation_ratio=2.5)
        self.assertEqual(expected, record)
        self.assertEqual({'VCPU': expected,
                          'DISK_GB': full(total=100)}, inventories(self))

    def test_class_set_fields_not_given_take_defaults(self):
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {'VCPU': {'total': 4, 'reserved': 1}})
        self.ok('resource', 'provider', 'inventory', 'class', 'set',
                'compute-1', 'VCPU', '--total', '6', version='1.0')
        self.assertEqual({'VCPU': full(total=6)}, inventories(self))

    def test_class_set_class_not_in_inventory(self):
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {'VCPU': {'total': 4}})
        err, code = self.fails('resource', 'provider', 'inventory', 'class',
                               'set', RP1, 'DISK_GB', '--total', '6')
        self.assertEqual(1, code)
        self.assertEqual('No inventory record with resource class for '
                         'resource provider %s: No inventory of class DISK_GB '
                         'found. (HTTP 400)\n' % RP1, err)
        self.assertEqual({'VCPU': full(total=4)}, inventories(self))

    def test_class_set_concurrent_change_is_a_conflict(self):
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {'VCPU': {'total': 4}})
        interleaved = []

        def other_writer(method, url, kwargs):
            if not interleaved:
                interleaved.append(url)
                self.ok('resource', 'provider', 'inventory', 'class',
                        'set', RP1, 'VCPU', '--total', '10')

        self.before_request(other_writer, 'PUT')
        out, err, code = self.openstack('resource', 'provider', 'inventory',
                                        'class', 'set', RP1, 'VCPU', '--total',
                                        '20')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(GENERATION_CONFLICT, err)
        self.assertEqual({'VCPU': full(total=10)}, inventories(self))

    def test_list_with_usage_and_long(self):
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {
            'VCPU': {'total': 8, 'reserved': 1, 'allocation_ratio': 16.0},
            'MEMORY_MB': {'total': 1001, 'reserved': 0,
                          'allocation_ratio': 1.5}})
        tests.allocate(self, CONSUMER, {RP1: {'VCPU': 10, 'MEMORY_MB': 100}})
        rows = rows_by_class(self.ok(
            'resource', 'provider', 'inventory', 'list', RP1, '-f', 'json'))
        self.assertEqual({
            'VCPU': dict(full(total=8, reserved=1, allocation_ratio=16.0),
                         used=10),
            'MEMORY_MB': dict(full(total=1001, allocation_ratio=1.5),
                              used=100)}, rows)
        long_rows = rows_by_class(self.ok(
            'resource', 'provider', 'inventory', 'list', 'compute-1', '--long',
            '-f', 'json'))
        self.assertEqual((112, 102), (long_rows['VCPU']['capacity'],
                                      long_rows['VCPU']['free']))
        # int(1001 * 1.5) = 1501
        self.assertEqual((1501, 1401), (long_rows['MEMORY_MB']['capacity'],
                                        long_rows['MEMORY_MB']['free']))

    def test_long_capacity_matches_what_the_server_allows(self):
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {
            'VCPU': {'total': 3, 'reserved': 1, 'allocation_ratio': 1.5}})
        free = rows_by_class(self.ok(
            'resource', 'provider', 'inventory', 'list', RP1, '--long',
            '-f', 'json'))['VCPU']['free']
        self.assertEqual(3, free)
        # Exactly ``free`` fits; then nothing is left, and the server agrees.
        tests.allocate(self, CONSUMER, {RP1: {'VCPU': free}})
        rows = rows_by_class(self.ok(
            'resource', 'provider', 'inventory', 'list', RP1, '--long',
            '-f', 'json'))
        self.assertEqual((3, 0), (rows['VCPU']['used'], rows['VCPU']['free']))
        resp = requests.put(
            self.endpoint + '/allocations/' + CONSUMER2,
            json={'allocations': {RP1: {'resources': {'VCPU': 1}}},
                  'project_id': 'project-1', 'user_id': 'user-1',
                  'consumer_generation': None, 'consumer_type': 'INSTANCE'},
            headers={'x-auth-token': 'admin',
                     'OpenStack-API-Version': 'placement 1.39'})
        self.assertEqual(409, resp.status_code)

    def test_list_at_1_0(self):
        tests.create_provider(self, RP1, 'compute-1')
        rows = self.ok('resource', 'provider', 'inventory', 'list', RP1,
                       '-f', 'json', version='1.0')
        self.assertEqual([], rows)

    def test_show_with_usage(self):
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {'VCPU': {'total': 8}})
        tests.allocate(self, CONSUMER, {RP1: {'VCPU': 3}})
        record = self.ok('resource', 'provider', 'inventory', 'show',
                         'compute-1', 'VCPU', '-f', 'json')
        self.assertEqual(dict(full(total=8), used=3), record)

    def test_show_class_not_in_inventory(self):
        tests.create_provider(self, RP1, 'compute-1')
        err, code = self.fails('resource', 'provider', 'inventory', 'show',
                               RP1, 'VCPU')
        self.assertEqual(
            ('No inventory of class VCPU for %s (HTTP 404)\n' % RP1, 1),
            (err, code))

    def test_delete_one_class(self):
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {'VCPU': {'total': 8},
                                    'DISK_GB': {'total': 10}})
        self.ok('resource', 'provider', 'inventory', 'delete', RP1,
                '--resource-class', 'VCPU', version='1.0')
        self.assertEqual({'DISK_GB': full(total=10)}, inventories(self))

    def test_delete_all_from_1_5(self):
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {'VCPU': {'total': 8},
                                    'DISK_GB': {'total': 10}})
        out = self.ok('resource', 'provider', 'inventory', 'delete',
                      'compute-1', version='1.5')
        self.assertEqual('', out)
        self.assertEqual({}, inventories(self))

    def test_delete_all_needs_the_class_at_1_4(self):
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {'VCPU': {'total': 8}})
        err, code = self.fails('resource', 'provider', 'inventory',
                               'delete', RP1, version='1.4')
        self.assertEqual(2, code)
        self.assertTrue(err.endswith('error: the following arguments are '
                                     'required: --resource-class\n'), err)
        self.assertEqual({'VCPU': full(total=8)}, inventories(self))

    def test_delete_in_use(self):
        tests.create_provider(self, RP1, 'compute-1')
        put_inventories(self, RP1, {'VCPU': {'total': 8}})
        tests.allocate(self, CONSUMER, {RP1: {'VCPU': 1}})
        err, code = self.fails('resource', 'provider', 'inventory',
                               'delete', RP1, '--resource-class', 'VCPU')
        self.assertEqual(1, code)
        self.assertEqual("Unable to delete inventory of class VCPU: Inventory "
                         "for 'VCPU' on resource provider '%s' in use. "
                         "(HTTP 409)\n" % RP1, err)
        self.assertEqual({'VCPU': full(total=8)}, inventories(self))


class TestDryRunAgreesWithPlacement(base.TestCase):
    """What a dry run warns of (rule D20) is what the server refuses.

    The dry run keeps the rows and exit 0 of the reference; each record
    the server would refuse is a warning line.
    """

    def test_reserved_above_total_and_records_without_total(self):
        for uuid, name in ((RP1, 'c1'), (RP2, 'c2'), (RP3, 'c3')):
            tests.create_provider(self, uuid, name)
        put_inventories(self, RP1, {'DISK_GB': {'total': 1000}})
        put_inventories(self, RP3, {'DISK_GB': {'total': 2000}})
        in_aggregate(self, RP1, RP2, RP3)
        argv = ('resource', 'provider', 'inventory', 'set', AGG,
                '--aggregate', '--amend', '--resource',
                'DISK_GB:reserved=1500', '-f', 'value', '-c',
                'resource_provider')
        out, dry_err, code = self.openstack(*(argv + ('--dry-run',)),
                                            version='1.26')
        self.assertEqual(('%s\n%s\n%s\n' % (RP1, RP2, RP3), 0), (out, code))
        self.assertEqual([
            'Warning: resource provider %s: Placement would refuse the '
            'DISK_GB record: capacity (total - reserved) * allocation_ratio '
            '= (1000 - 1500) * 1.0 is below 0.' % RP1,
            'Warning: resource provider %s: Placement would refuse the '
            'DISK_GB record: no total (Placement requires one).' % RP2],
            dry_err.splitlines())
        self.assertEqual({'DISK_GB': full(total=1000)}, inventories(self, RP1))
        self.assertEqual({}, inventories(self, RP2))

        # The real run: the server refuses the same two providers.
        out, err, code = self.openstack(*argv, version='1.26')
        self.assertEqual((RP3 + '\n', 1), (out, code))
        refused = [line.split(': ')[0].rsplit(' ', 1)[1]
                   for line in err.splitlines()
                   if line.startswith('Failed to set inventory for resource')]
        self.assertEqual([RP1, RP2], refused)
        self.assertIn('Failed to set inventory for 2 of 3 resource '
                      'providers.', err)

    def test_reserved_equal_to_total_follows_the_microversion(self):
        tests.create_provider(self, RP1, 'c1')
        argv = ('resource', 'provider', 'inventory', 'set', RP1,
                '--resource', 'VCPU=8', '--resource', 'VCPU:reserved=8')
        for version, refused in (('1.25', True), ('1.26', False)):
            dry = self.openstack(*(argv + ('--dry-run',)), version=version)
            real = self.openstack(*argv, version=version)
            self.assertEqual(0, dry[2], dry)
            self.assertEqual(refused, 'Placement would refuse the VCPU '
                             'record' in dry[1], dry)
            self.assertEqual(refused, real[2] != 0, real)
