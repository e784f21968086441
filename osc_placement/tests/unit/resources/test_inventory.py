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

"""Inventory commands beyond the recorded contract.

And what ``inventory set`` adds to the reference's: the checks of each
record of a dry run (rule D20), the warnings of what a write does to
usage (rule D19), ``--aggregate`` run in parallel; and the properties of
the module's parsers, ``parse_resource()`` and ``finite_float()``.
"""

import json
import math
import time

import hypothesis
from hypothesis import strategies as st
import testscenarios

from osc_placement.model import inventories
from osc_placement.resources import inventory
from osc_placement.tests.unit import base
from osc_placement.tests.unit import strategies

URL = base.ENDPOINT
RP1 = base.RP1
RP2 = base.RP2
RP3 = base.RP3
RP4 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000004'
AGG = base.AGG1

load_tests = testscenarios.load_tests_apply_scenarios

FULL = {'total': 8, 'reserved': 0, 'min_unit': 1, 'max_unit': 8,
        'step_size': 1, 'allocation_ratio': 16.0}
DISK = {'total': 1000, 'reserved': 0, 'min_unit': 1, 'max_unit': 1000,
        'step_size': 1, 'allocation_ratio': 1.0}
VCPU = {'total': 8, 'reserved': 0, 'min_unit': 1, 'max_unit': 8,
        'step_size': 1, 'allocation_ratio': 1.0}
MEMORY = {'total': 4096, 'reserved': 0, 'min_unit': 1, 'max_unit': 4096,
          'step_size': 1, 'allocation_ratio': 1.0}
# The members of the aggregate of TestSetAggregateInParallel.
PROVIDERS = ['aaaaaaaa-aaaa-4aaa-8aaa-00000000002%d' % i for i in range(8)]


# inventory set --resource <class>[:<field>]=<value>, and what a successful
# parse returns.
RATIOS = st.one_of(st.floats(allow_nan=False).map(repr), strategies.AMOUNTS)
INVENTORY_VALUES = st.one_of(
    strategies.TEXT,
    strategies.built_from(strategies.CLASSES + list(inventories.FIELDS)
                          + strategies.NUMBERS + strategies.SEPARATORS
                          + ['Total', 'foo']),
    st.builds('{}:{}={}'.format, st.sampled_from(strategies.CLASSES),
              st.sampled_from(inventories.FIELDS),
              st.sampled_from(strategies.NUMBERS)),
    st.builds('{}={}'.format, strategies.GOOD_CLASSES, strategies.AMOUNTS),
    st.builds('{}:{}={}'.format, strategies.GOOD_CLASSES,
              st.sampled_from(inventories.FIELDS), strategies.AMOUNTS),
    st.builds('{}:allocation_ratio={}'.format, strategies.GOOD_CLASSES,
              RATIOS),
)


rp = base.provider


def record(**values):
    result = dict(FULL)
    result.update(values)
    return result


def conflict(detail):
    return base.error_reply(409, detail, title='Conflict')


def inventories_path(uuid):
    return '/resource_providers/%s/inventories' % uuid


def usages_path(uuid):
    return '/resource_providers/%s/usages' % uuid


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


class InventoryTestCase(base.TestCase):

    api_version = '1.3'

    def aggregate_of(self, *providers):
        self.requests_mock.get(
            URL + '/resource_providers?member_of=' + AGG,
            json={'resource_providers': list(providers)}, complete_qs=True)

    def provider_with_vcpu(self, generation):
        """RP1 at ``generation``, with ``record()`` as its VCPU inventory."""
        self.requests_mock.get(
            URL + '/resource_providers/' + RP1, json=rp(RP1, 'c', generation))
        self.requests_mock.get(
            URL + '/resource_providers/%s/inventories' % RP1,
            json={'resource_provider_generation': generation,
                  'inventories': {'VCPU': record()}})

    def inventory_of(self, inventories, usages):
        self.requests_mock.get(
            URL + '/resource_providers/%s/inventories' % RP1,
            json={'resource_provider_generation': 1,
                  'inventories': inventories})
        self.requests_mock.get(
            URL + '/resource_providers/%s/usages' % RP1,
            json={'resource_provider_generation': 1, 'usages': usages})


class TestInventory(InventoryTestCase):

    def test_set_by_name_resolves_then_reads_generation(self):
        self.by_name('compute-1', RP1, generation=5)
        self.requests_mock.get(URL + '/resource_providers/' + RP1,
                               json=rp(RP1, 'compute-1', 5))
        self.requests_mock.put(
            URL + '/resource_providers/%s/inventories' % RP1,
            json={'resource_provider_generation': 6,
                  'inventories': {'VCPU': record()}})
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'set', 'compute-1',
            '--resource', 'VCPU=8', '-f', 'json')
        self.assertEqual((0, ''), (code, err))
        self.assertEqual(
            [('GET', '/resource_providers?name=compute-1'),
             ('GET', '/resource_providers/' + RP1),
             ('PUT', '/resource_providers/%s/inventories' % RP1)],
            self.sent())
        put = self.requests_mock.request_history[-1]
        self.assertEqual('placement 1.3', put.headers['OpenStack-API-Version'])
        self.assertEqual(
            {'resource_provider_generation': 5,
             'inventories': {'VCPU': {'total': 8}}},
            put.json())
        self.assertEqual(
            [dict(record(), resource_class='VCPU')],
            json.loads(out))

    def test_set_fields_of_one_class_are_merged(self):
        self.requests_mock.get(
            URL + '/resource_providers/' + RP1, json=rp(RP1))
        self.requests_mock.put(
            URL + '/resource_providers/%s/inventories' % RP1,
            json={'resource_provider_generation': 1, 'inventories': {}})
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'set', RP1,
            '--resource', 'VCPU=8', '--resource', 'VCPU:allocation_ratio=2.5',
            '--resource', 'VCPU:reserved=1', '--resource', 'DISK_GB=10')
        self.assertEqual(0, code, err)
        self.assertEqual(
            {'VCPU': {'total': 8, 'allocation_ratio': 2.5, 'reserved': 1},
             'DISK_GB': {'total': 10}},
            self.requests_mock.request_history[-1].json()['inventories'])

    def test_set_bad_resource_is_refused_before_the_version_gate(self):
        # --aggregate needs 1.3, but the malformed value is reported first,
        # without any request.
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'set', AGG, '--aggregate',
            '--resource', 'VCPU', version='1.2')
        self.assertEqual(
            ('Resource argument must have "name=value" format\n', 1),
            (err, code))
        self.assertEqual([], self.sent())

    def test_set_aggregate_below_1_3_is_a_gate_error(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'set', AGG, '--aggregate',
            '--resource', 'VCPU=1', version='1.2')
        self.assertEqual(
            ('Operation or argument is not supported with version 1.2; '
             'requires at least version 1.3\n', 1),
            (err, code))
        self.assertEqual([], self.sent())

    def test_set_empty_uuid_is_a_usage_error(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'set', '', '--resource',
            'VCPU=1')
        self.assertEqual(2, code)
        self.assertIn('must not be empty', err)
        self.assertEqual([], self.sent())

    def test_set_amend_dry_run_reads_but_never_writes(self):
        self.provider_with_vcpu(generation=3)
        self.requests_mock.get(
            URL + '/resource_providers/%s/usages' % RP1,
            json={'resource_provider_generation': 3, 'usages': {'VCPU': 2}})
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'set', RP1, '--amend',
            '--dry-run', '--resource', 'VCPU:reserved=2', '--resource',
            'DISK_GB=5', '-f', 'json')
        self.assertEqual((0, ''), (code, err))
        # The provider, its inventory, its usages (rule D19); no write.
        self.assertEqual([
            ('GET', '/resource_providers/' + RP1),
            ('GET', '/resource_providers/%s/inventories' % RP1),
            ('GET', '/resource_providers/%s/usages' % RP1)], self.sent())
        self.assertEqual(
            [dict(record(reserved=2), resource_class='VCPU'),
             {'resource_class': 'DISK_GB', 'allocation_ratio': '',
              'min_unit': '', 'max_unit': '', 'reserved': '',
              'step_size': '', 'total': 5}],
            json.loads(out))

    def test_set_amend_conflict_is_not_retried(self):
        self.provider_with_vcpu(generation=3)
        self.requests_mock.put(
            URL + '/resource_providers/%s/inventories' % RP1,
            **conflict("resource provider generation conflict"))
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'set', RP1, '--amend',
            '--resource', 'VCPU=16')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            'resource provider generation conflict (HTTP 409)\n',
            err)
        self.assertEqual(['GET', 'GET', 'PUT'], [m for m, _ in self.sent()])
        self.assertEqual(
            {'resource_provider_generation': 3,
             'inventories': {'VCPU': record(total=16)}},
            self.requests_mock.request_history[-1].json())

    def test_set_aggregate_partial_failure_table_then_errors(self):
        self.aggregate_of(rp(RP1, 'a', 1), rp(RP2, 'b', 2), rp(RP3, 'c', 3))
        self.requests_mock.put(
            URL + '/resource_providers/%s/inventories' % RP1,
            json={'resource_provider_generation': 2,
                  'inventories': {'VCPU': record(total=4)}})
        self.requests_mock.put(
            URL + '/resource_providers/%s/inventories' % RP2,
            **conflict(
                "Inventory for 'VCPU' on resource provider '%s' in use."
                % RP2))
        self.requests_mock.put(
            URL + '/resource_providers/%s/inventories' % RP3,
            json={'resource_provider_generation': 4,
                  'inventories': {'VCPU': record(total=4)}})
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'set', AGG, '--aggregate',
            '--resource', 'VCPU=4', '-f', 'value')
        self.assertEqual(1, code)
        # The providers that were updated, before and after the failure.
        self.assertEqual(
            ['%s VCPU 16.0 1 8 0 1 4' % RP1,
             '%s VCPU 16.0 1 8 0 1 4' % RP3],
            out.splitlines())
        self.assertEqual(
            ["Failed to set inventory for resource provider %s: Inventory "
             "for 'VCPU' on resource provider '%s' in use. (HTTP 409)."
             % (RP2, RP2),
             'Failed to set inventory for 1 of 3 resource providers.'],
            err.splitlines())
        self.assertEqual(
            ['GET', 'PUT', 'PUT', 'PUT'],
            [m for m, _ in self.sent()])

    def test_set_aggregate_amend_read_failure_goes_on(self):
        # A provider deleted between the listing and its read is one failure;
        # the others are still updated.
        self.aggregate_of(rp(RP1, 'a', 1), rp(RP2, 'b', 2))
        self.requests_mock.get(
            URL + '/resource_providers/%s/inventories' % RP1, status_code=404,
            json=base.placement_error(
                404, 'No resource provider with uuid %s found' % RP1))
        self.requests_mock.get(
            URL + '/resource_providers/%s/inventories' % RP2,
            json={'resource_provider_generation': 2, 'inventories': {}})
        self.requests_mock.put(
            URL + '/resource_providers/%s/inventories' % RP2,
            json={'resource_provider_generation': 3,
                  'inventories': {'VCPU': record(total=2)}})
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'set', AGG, '--aggregate',
            '--amend', '--resource', 'VCPU=2', '-f', 'json')
        self.assertEqual(1, code)
        self.assertEqual(
            [RP2],
            [row['resource_provider'] for row in json.loads(out)])
        self.assertEqual(
            ['Failed to set inventory for resource provider %s: No resource '
             'provider with uuid %s found (HTTP 404).' % (RP1, RP1),
             'Failed to set inventory for 1 of 2 resource providers.'],
            err.splitlines())

    def test_set_aggregate_without_members(self):
        self.aggregate_of()
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'set', AGG, '--aggregate',
            '--resource', 'VCPU=2')
        self.assertEqual(
            ('', 'No resource providers found in aggregate with uuid %s.\n'
             % AGG, 1),
            (out, err, code))

    def test_set_aggregate_value_is_not_resolved_as_a_provider_name(self):
        self.requests_mock.get(
            URL + '/resource_providers?member_of=my-agg',
            json={'resource_providers': []}, complete_qs=True)
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'set', 'my-agg',
            '--aggregate', '--resource', 'VCPU=2')
        self.assertEqual(1, code)
        self.assertEqual(
            [('GET', '/resource_providers?member_of=my-agg')],
            self.sent())

    # inventory class set

    def test_class_set_by_name_encodes_the_class(self):
        self.by_name('compute-1', RP1, generation=7)
        self.requests_mock.get(URL + '/resource_providers/' + RP1,
                               json=rp(RP1, 'compute-1', 7))
        self.requests_mock.put(
            URL + '/resource_providers/%s/inventories/CUSTOM_X%%3Fa%%3D1'
            % RP1,
            json=dict(record(), resource_provider_generation=8))
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'class', 'set', 'compute-1',
            'CUSTOM_X?a=1', '--total', '8', '--allocation_ratio', '16', '-f',
            'json')
        self.assertEqual(0, code, err)
        self.assertEqual(
            [
                ('GET', '/resource_providers/' + RP1),
                ('PUT', '/resource_providers/%s/inventories/CUSTOM_X%%3Fa%%3D1'
                 % RP1)],
            self.sent()[1:])
        self.assertEqual(
            {'resource_provider_generation': 7, 'total': 8,
             'allocation_ratio': 16.0},
            self.requests_mock.request_history[-1].json())
        self.assertEqual(record(), json.loads(out))

    def test_list_long_adds_capacity_and_free(self):
        self.inventory_of({
            'VCPU': record(total=8, reserved=1, allocation_ratio=16.0),
            'MEMORY_MB': record(total=1000, reserved=1, allocation_ratio=1.5),
            'DISK_GB': record(total=10, reserved=0, allocation_ratio=1.0)},
            {'VCPU': 100, 'MEMORY_MB': 0, 'DISK_GB': 10})
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'list', RP1, '--long', '-f',
            'json')
        self.assertEqual(0, code, err)
        rows = {row['resource_class']: row for row in json.loads(out)}
        # int((8 - 1) * 16.0) = 112; int(999 * 1.5) = 1498 (truncated).
        self.assertEqual(
            (112, 12),
            (rows['VCPU']['capacity'], rows['VCPU']['free']))
        self.assertEqual(
            (1498, 1498),
            (rows['MEMORY_MB']['capacity'],
             rows['MEMORY_MB']['free']))
        self.assertEqual(
            (10, 0),
            (rows['DISK_GB']['capacity'], rows['DISK_GB']['free']))
        self.assertEqual(
            ['resource_class', 'allocation_ratio', 'min_unit', 'max_unit',
             'reserved', 'step_size', 'total', 'used', 'capacity', 'free'],
            list(json.loads(out)[0]))

    def test_list_without_long_has_the_reference_columns(self):
        self.inventory_of({'VCPU': record()}, {'VCPU': 3})
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'list', RP1, '-f', 'value')
        self.assertEqual(('VCPU 16.0 1 8 0 1 8 3\n', '', 0), (out, err, code))

    def test_list_long_is_in_help_not_in_usage(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'list', '--help')
        self.assertEqual(0, code)
        self.assertIn('--long', out)
        self.assertIn('capacity', out)
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'list')
        self.assertEqual(2, code)
        self.assertNotIn('--long', err)

    def test_list_by_name(self):
        self.by_name('compute-1', RP1, generation=0)
        self.inventory_of({}, {})
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'list', 'compute-1', '-f',
            'json')
        self.assertEqual(('[]\n', 0), (out, code))
        self.assertEqual(
            ['/resource_providers?name=compute-1',
             '/resource_providers/%s/inventories' % RP1,
             '/resource_providers/%s/usages' % RP1],
            [path for _, path in self.sent()])

    def test_list_unknown_name(self):
        self.assertNoSuchProvider(
            'nope', 'resource', 'provider', 'inventory', 'list', 'nope')

    def test_show_encodes_the_class(self):
        self.requests_mock.get(
            URL + '/resource_providers/%s/inventories/CUSTOM_A%%2FB' % RP1,
            json=dict(record(), resource_provider_generation=1))
        self.requests_mock.get(URL + '/resource_providers/%s/usages' % RP1,
                               json={'resource_provider_generation': 1,
                                     'usages': {'CUSTOM_A/B': 2}})
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'show', RP1, 'CUSTOM_A/B',
            '-f', 'json')
        self.assertEqual(0, code, err)
        self.assertEqual(dict(record(), used=2), json.loads(out))

    # inventory delete

    def test_delete_by_name_one_class(self):
        self.by_name('compute-1', RP1, generation=0)
        self.requests_mock.delete(
            URL + '/resource_providers/%s/inventories/VCPU' % RP1,
            status_code=204)
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'delete', 'compute-1',
            '--resource-class', 'VCPU', version='1.0')
        self.assertEqual(('', '', 0), (out, err, code))
        self.assertEqual(
            ('DELETE', '/resource_providers/%s/inventories/VCPU' % RP1),
            self.sent()[-1])

    def test_delete_all_when_the_server_negotiates_below_1_5(self):
        # The parser could not know the server's maximum; the gate catches it
        # before the DELETE.
        self.requests_mock.get(
            URL + '/', status_code=406,
            json={'errors': [{'status': 406, 'detail': 'not acceptable',
                              'max_version': '1.4', 'min_version': '1.0'}]})
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'delete', RP1,
            version=base.NEGOTIATE)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            'Operation or argument is not supported with version '
            '1.4; requires at least version 1.5\n',
            err)
        self.assertEqual([('GET', '/')], self.sent())

    def test_delete_class_is_optional_in_usage_from_1_5(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'delete', version='1.5')
        self.assertEqual(2, code)
        self.assertIn('[--resource-class <resource_class>]', err)


class TestBadResource(InventoryTestCase):

    scenarios = [(value, {'value': value, 'message': message})
                 for value, message in [
                     ('VCPU=nan',
                      "total of --resource VCPU=nan: 'nan' is not an "
                      "integer."),
                     ('VCPU:allocation_ratio=inf',
                      "allocation_ratio of --resource "
                      "VCPU:allocation_ratio=inf: 'inf' is not a number."),
                     ('VCPU:allocation_ratio=nan',
                      "allocation_ratio of --resource "
                      "VCPU:allocation_ratio=nan: 'nan' is not a number."),
                     ('VCPU:total:x=1',
                      'Resource argument can contain only one colon'),
                     ('=1', 'Name, field and value must be not empty'),
                     ('VCPU:step_size=1.5',
                      "step_size of --resource VCPU:step_size=1.5: '1.5' is "
                      "not an integer.")]]

    def test_set_bad_resource_is_refused_before_any_request(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'set', RP1, '--resource',
            self.value)
        self.assertEqual(('', self.message + '\n', 1), (out, err, code))
        self.assertEqual([], self.sent())


class TestClassSetRatio(InventoryTestCase):

    scenarios = [(value, {'value': value}) for value in ('nan', 'inf', 'x')]

    def test_class_set_ratio_must_be_a_finite_number(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'class', 'set', RP1, 'VCPU',
            '--total', '8', '--allocation_ratio', self.value)
        self.assertEqual(2, code)
        self.assertTrue(err.splitlines()[-1].endswith(
            "error: argument --allocation-ratio/--allocation_ratio: invalid "
            "float value: %r"
            % self.value))
        self.assertEqual([], self.sent())


class TestClassSetHyphens(InventoryTestCase):
    """--max-unit as well as --max_unit: the same request.

    The help shows the hyphenated spelling first; the usage line keeps the
    reference's (the contract replay checks it byte for byte).
    """

    command = ('resource', 'provider', 'inventory', 'class', 'set', RP1,
               'VCPU', '--total', '8')
    scenarios = [
        ('%s-%s' % (field, spelling), {'field': field, 'flag': flag,
                                       'value': value})
        for field, value in (('allocation_ratio', '2.5'), ('min_unit', '2'),
                             ('max_unit', '4'), ('step_size', '2'))
        for spelling, flag in (
            ('underscore', '--' + field),
            ('hyphen', '--' + field.replace('_', '-')))]

    def test_both_spellings_send_the_field(self):
        self.requests_mock.get(URL + '/resource_providers/' + RP1,
                               json=rp(RP1, generation=3))
        self.requests_mock.put(
            URL + '/resource_providers/%s/inventories/VCPU' % RP1,
            json=dict(record(), resource_provider_generation=4))
        out, err, code = self.openstack(self.flag, self.value)
        self.assertEqual(('', 0), (err, code))
        number = float(self.value) if '.' in self.value else int(self.value)
        self.assertEqual(
            {'resource_provider_generation': 3, 'total': 8,
             self.field: number}, self.requests_sent()[-1].body)


class TestClassSetHelp(InventoryTestCase):

    command = ('resource', 'provider', 'inventory', 'class', 'set')
    scenarios = [(field, {'field': field}) for field in (
        'allocation_ratio', 'min_unit', 'max_unit', 'step_size')]

    def test_help_shows_the_hyphenated_spelling_first(self):
        out, err, code = self.openstack('--help')
        self.assertEqual(0, code)
        hyphen = self.field.replace('_', '-')
        self.assertIn('--%s <%s>, --%s <%s>' % (hyphen, self.field,
                                                self.field, self.field),
                      out)
        usage = out.split('\n\n')[0]
        self.assertIn('[--%s <%s>]' % (self.field, self.field), usage)
        self.assertNotIn('--' + hyphen, usage)


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


class TestSetAggregateInParallel(base.TestCase):
    """``inventory set --aggregate`` in parallel: as serially.

    The command runs with ``--os-placement-parallel`` left out, 1, 2 and 8
    against an aggregate of eight providers whose answers come back slowest
    first, so that with several threads the last providers finish before
    the first. The output, the exit code and the set of requests must be
    those of the serial run, partial failures included; serially (the
    default) the requests keep the order of the original plugin: the list
    of members, then each provider in turn.
    """

    api_version = '1.3'
    scenarios = testscenarios.multiply_scenarios(
        [('replace', {'options': [], 'reads': False, 'writes': True,
                      'usages': False}),
         ('amend', {'options': ['--amend'], 'reads': True, 'writes': True,
                    'usages': False}),
         # A dry run also reads the usages (rule D19).
         ('amend_dry_run', {'options': ['--amend', '--dry-run'],
                            'reads': True, 'writes': False,
                            'usages': True})],
        [('all_succeed', {'failing_reads': (), 'failing_writes': ()}),
         # Providers 1 and 4 refuse the write; provider 6 is gone when its
         # inventory is read (when it is read).
         ('some_fail', {'failing_reads': (6,), 'failing_writes': (1, 4)})])

    def setUp(self):
        super().setUp()
        self.requests_mock.get(
            base.ENDPOINT + '/resource_providers?member_of=' + AGG,
            complete_qs=True, json={'resource_providers': [
                base.provider(uuid, 'rp%d' % n, n)
                for n, uuid in enumerate(PROVIDERS)]})
        for n, uuid in enumerate(PROVIDERS):
            url = base.ENDPOINT + inventories_path(uuid)
            self.requests_mock.get(url, json=self.answer(n, 'read'))
            self.requests_mock.put(url, json=self.answer(n, 'write'))
            self.requests_mock.get(
                base.ENDPOINT + '/resource_providers/%s/usages' % uuid,
                json=self.answer(n, 'usages'))

    def answer(self, n, step):
        """The answer of provider n: the first ones are the slowest."""
        failing = {'read': self.failing_reads, 'write': self.failing_writes,
                   'usages': ()}[step]
        uuid = PROVIDERS[n]

        def reply(request, context):
            time.sleep((len(PROVIDERS) - n) * 0.002)
            if n in failing:
                context.status_code = 404 if step == 'read' else 409
                return base.placement_error(
                    context.status_code, '%s of %s refused.' % (step, uuid))
            if step == 'read':
                return {'resource_provider_generation': n,
                        'inventories': {'DISK_GB': dict(FULL, total=n + 1)}}
            if step == 'usages':
                return {'resource_provider_generation': n,
                        'usages': {'DISK_GB': n}}
            return {'resource_provider_generation': n + 1,
                    'inventories': request.json()['inventories']}

        return reply

    def set_inventory(self, parallel=None):
        options = []
        if parallel is not None:
            options = ['--os-placement-parallel', str(parallel)]
        before = len(self.requests_mock.request_history)
        printed = self.openstack(*(
            options + ['resource', 'provider', 'inventory', 'set', AGG,
                       '--aggregate', '--resource', 'VCPU=4', '-f', 'json']
            + self.options))
        return printed, self.requests_sent()[before:]

    def failed(self):
        """Index of each provider that fails, in provider order."""
        return sorted(set(self.failing_reads if self.reads else ()) | set(
            self.failing_writes if self.writes else ()))

    def test_same_output_and_requests_at_any_parallelism(self):
        serial, serial_sent = self.set_inventory(1)
        for parallel in (None, 2, 8):
            printed, sent = self.set_inventory(parallel)
            self.assertEqual(serial, printed, parallel)
            self.assertEqual(sorted(serial_sent, key=repr),
                             sorted(sent, key=repr), parallel)

    def test_serial_order_of_requests_and_of_the_report(self):
        (out, err, code), sent = self.set_inventory()
        expected = [('GET', '/resource_providers')]
        for n, uuid in enumerate(PROVIDERS):
            if self.reads:
                expected.append(('GET', inventories_path(uuid)))
            if self.usages and not (self.reads and n in self.failing_reads):
                expected.append(
                    ('GET', '/resource_providers/%s/usages' % uuid))
            if self.writes and not (self.reads and n in self.failing_reads):
                expected.append(('PUT', inventories_path(uuid)))
        self.assertEqual(expected, [(r.method, r.path) for r in sent])

        failed = self.failed()
        self.assertEqual(
            [uuid for n, uuid in enumerate(PROVIDERS) if n not in failed],
            [row['resource_provider'] for row in json.loads(out)
             if row['resource_class'] == 'VCPU'])
        lines = ['Failed to set inventory for resource provider %s: %s of '
                 '%s refused. (HTTP %d).' % (
                     PROVIDERS[n], 'read' if n in self.failing_reads
                     and self.reads else 'write', PROVIDERS[n],
                     404 if n in self.failing_reads and self.reads
                     else 409)
                 for n in failed]
        if failed:
            lines.append('Failed to set inventory for %d of %d resource '
                         'providers.' % (len(failed), len(PROVIDERS)))
        self.assertEqual(lines, err.splitlines())
        self.assertEqual(1 if failed else 0, code)


class UsageTestCase(base.TestCase):
    """Rule D19: ``inventory set`` warns of what a write does to usage.

    The usages are read (one request per provider, after its inventory
    read and before its write) in every dry run, and in an ``--amend``
    write that lowers the capacity of a class the provider has; never
    otherwise. The rows, the exit code and the other requests are those of
    a run without the warning.
    """

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


class TestUsageOfOneProvider(UsageTestCase):

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


class TestUsageInAnAggregate(UsageTestCase):

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


class TestParsers(base.TestCase):
    """The parsers of inventory set and class set: a value or one line.

    The property of :mod:`osc_placement.tests.unit.strategies`.
    """

    @strategies.SETTINGS
    @hypothesis.given(INVENTORY_VALUES)
    def test_inventory_resource_is_a_typed_field_or_a_command_error(
            self, argument):
        parsed, error = strategies.outcome(inventory.parse_resource, argument)
        if error is not None:
            if '\n' not in argument and '\r' not in argument:
                self.assertOneLine(str(error))
            return
        resource_class, field, number = parsed
        name, value = argument.split('=')
        self.assertTrue(
            resource_class and resource_class == name.split(':')[0])
        self.assertIn(field, inventories.FIELDS)
        if field == 'allocation_ratio':
            self.assertTrue(
                isinstance(number, float) and math.isfinite(number))
            self.assertEqual(float(value), number)
        else:
            self.assertIs(int, type(number))
            self.assertEqual(int(value), number)

    @strategies.SETTINGS
    @hypothesis.given(st.one_of(strategies.TEXT,
                                st.sampled_from(strategies.NUMBERS)))
    def test_inventory_ratio_type_is_a_finite_float_or_a_value_error(
            self, text):
        # argparse turns the ValueError into "invalid float value: '<text>'".
        number, error = strategies.outcome(inventory.finite_float, text,
                                           errors=ValueError)
        if error is None:
            self.assertTrue(
                isinstance(number, float) and math.isfinite(number))
            self.assertEqual(float(text), number)
        else:
            self.assertEqual('float', inventory.finite_float.__name__)


# Bad values, refused before any request (see base.RefusedLocallyTestCase).

def _inventory_set(value, *more, version='1.39', **kw):
    return base.bad_value(
        'inventory-set-resource-%r%s' % (value, ' '.join(more)),
        ['resource', 'provider', 'inventory', 'set', RP1, '--resource',
         value] + list(more), version=version, **kw)


INT_WORDS = ['integer']
FORMAT = 'name=value'
NOT_EMPTY = 'must be not empty'

INVENTORY_SET = [
    # The messages of the reference are kept word for word where the
    # contract records them (D2b: the same message, without the GET).
    _inventory_set('VCPU', code=1, words=[FORMAT]),
    _inventory_set('VCPU=1=2', code=1, words=[FORMAT]),
    _inventory_set('VCPU==2', code=1, words=[FORMAT]),
    _inventory_set('', code=1, words=[FORMAT]),
    _inventory_set('=4', code=1, words=[NOT_EMPTY]),
    _inventory_set(':total=4', code=1, words=[NOT_EMPTY]),
    _inventory_set('VCPU:=4', code=1, words=[NOT_EMPTY]),
    _inventory_set('VCPU=', code=1, words=[NOT_EMPTY]),
    _inventory_set('VCPU:total=', code=1, words=[NOT_EMPTY]),
    _inventory_set('VCPU:total:x=1', code=1, words=['one colon']),
    _inventory_set('VCPU:foo=1', code=1, words=['foo']),
    _inventory_set('VCPU:Total=1', code=1, words=['Total']),
    _inventory_set('VCPU=abc', code=1, words=["'abc'", 'total'] + INT_WORDS),
    _inventory_set('VCPU=2.0', code=1, words=["'2.0'"] + INT_WORDS),
    _inventory_set('VCPU=1e3', code=1, words=["'1e3'"] + INT_WORDS),
    _inventory_set('VCPU=0x10', code=1, words=["'0x10'"] + INT_WORDS),
    _inventory_set('VCPU:max_unit=1.5', code=1,
                   words=["'1.5'", 'max_unit'] + INT_WORDS),
    _inventory_set('VCPU:reserved=x', code=1,
                   words=["'x'", 'reserved'] + INT_WORDS),
    _inventory_set('VCPU:min_unit=one', code=1,
                   words=["'one'", 'min_unit'] + INT_WORDS),
    _inventory_set('VCPU:step_size=1/2', code=1,
                   words=["'1/2'", 'step_size'] + INT_WORDS),
] + [
    _inventory_set('VCPU:allocation_ratio=%s' % value, code=1,
                   words=["'%s'" % value, 'allocation_ratio', 'number'])
    for value in ('x', 'nan', 'NaN', 'inf', '-inf', 'infinity', '1,5')
] + [
    _inventory_set(' =4', code=1, words=[NOT_EMPTY]),
    base.bad_value('inventory-set-bad-after-good',
                   ['resource', 'provider', 'inventory', 'set', RP1,
                    '--resource', 'VCPU=4', '--resource', 'MEMORY_MB'], 1,
                   [FORMAT]),
    _inventory_set('VCPU=abc', '--amend', code=1, words=["'abc'"]),
    _inventory_set('VCPU=abc', '--dry-run', code=1, words=["'abc'"]),
    base.bad_value('inventory-set-aggregate-bad-resource',
                   ['resource', 'provider', 'inventory', 'set', AGG,
                    '--aggregate', '--resource', 'VCPU=abc'], 1,
                   ["'abc'", 'integer']),
    base.bad_value('inventory-set-negotiated-bad-resource',
                   ['resource', 'provider', 'inventory', 'set', RP1,
                    '--resource', 'VCPU=abc'], 1, ["'abc'", 'integer'],
                   version=None),
]


def _class_set(*more, code=2, words=()):
    return base.bad_value('inventory-class-set-%s' % ' '.join(more),
                          ['resource', 'provider', 'inventory', 'class',
                           'set', RP1, 'VCPU'] + list(more), code,
                          list(words))


INVENTORY_CLASS_SET = [
    _class_set('--total', 'abc', words=['--total', "'abc'", 'int']),
    _class_set('--total', '', words=['--total', "''", 'int']),
    _class_set('--total', '1.5', words=['--total', "'1.5'", 'int']),
    # The digits inventory set takes, no more: not 1_000, not other scripts.
    _class_set('--total', '1_000', words=['--total', "'1_000'", 'int']),
    _class_set('--total', '\u0663', words=['--total', 'int']),
    _class_set('--total', '4', '--max_unit', '1_0',
               words=['--max_unit', "'1_0'", 'int']),
    _class_set('--total', '4', '--max_unit', 'x',
               words=['--max_unit', "'x'", 'int']),
    _class_set('--total', '4', '--min_unit', '1e3',
               words=['--min_unit', "'1e3'", 'int']),
    _class_set('--total', '4', '--reserved', 'none',
               words=['--reserved', "'none'", 'int']),
    _class_set('--total', '4', '--step_size', '2.5',
               words=['--step_size', "'2.5'", 'int']),
] + [
    _class_set('--total', '4', '--allocation_ratio=' + value,
               words=['--allocation_ratio', "'%s'" % value, 'float'])
    for value in ('x', 'nan', 'inf', '-inf', '')
]

EMPTY_VALUES = base.empty_positionals([
    ('resource provider inventory set', (), ('--resource', 'VCPU=1')),
    ('resource provider inventory class set', (), ('VCPU', '--total', '1')),
    ('resource provider inventory class set', (RP1,), ('--total', '1')),
    ('resource provider inventory list', (), ()),
    ('resource provider inventory show', (), ('VCPU',)),
    ('resource provider inventory show', (RP1,), ()),
    ('resource provider inventory delete', (), ('--resource-class',
                                                'VCPU')),
    ('resource provider inventory delete', (RP1, '--resource-class'), ()),
]) + [
    base.empty_value('resource provider inventory delete', RP1,
                     '--resource-class', version='1.0'),
    base.empty_value('resource provider inventory set', '--aggregate',
                     after=('--resource', 'VCPU=1'), version='1.3'),
]

# A value holding a line break (pasted from a file, say) must not break
# the error line.
LINE_BREAKS = [
    base.bad_value('line-break-inventory-amount',
                   ['resource', 'provider', 'inventory', 'set', RP1,
                    '--resource', 'VCPU=4\n4'], 1, ['integer']),
    base.bad_value('line-break-inventory-field',
                   ['resource', 'provider', 'inventory', 'set', RP1,
                    '--resource', 'VCPU:total\n=4'], 1, ['field']),
]

BAD_VALUES = INVENTORY_SET + INVENTORY_CLASS_SET + EMPTY_VALUES + LINE_BREAKS

# Malformed values that the server judges (see
# base.JudgedByTheServerTestCase).
ROUND_TRIPS = [
    ('inventory-set-total-zero-recorded',
     ['--os-placement-api-version', '1.0', 'resource', 'provider',
      'inventory', 'set', RP1, '--resource', 'VCPU=0'],
     ('PUT', inventories_path(RP1), []), '"total": 0'),
    ('inventory-set-ratio-negative',
     ['--os-placement-api-version', '1.0', 'resource', 'provider',
      'inventory', 'set', RP1, '--resource', 'VCPU=4', '--resource',
      'VCPU:allocation_ratio=-1'],
     ('PUT', inventories_path(RP1), []), '"allocation_ratio": -1.0'),
    ('inventory-class-set-total-zero-recorded',
     ['--os-placement-api-version', '1.0', 'resource', 'provider',
      'inventory', 'class', 'set', RP1, 'VCPU', '--total', '0'],
     ('PUT', inventories_path(RP1) + '/VCPU', []), '"total": 0'),
]


class TestRefusedLocally(base.RefusedLocallyTestCase):

    scenarios = BAD_VALUES


class TestJudgedByTheServer(base.JudgedByTheServerTestCase):

    scenarios = base.round_trips(ROUND_TRIPS)


class TestCaseIds(base.CaseIdsTestCase):

    tables = (BAD_VALUES, ROUND_TRIPS)


class TestRefusedWithTheServerDown(base.ServerDownTestCase):

    scenarios = base.server_down([
        ('inventory-set-amount',
         ['resource', 'provider', 'inventory', 'set', RP1, '--resource',
          'VCPU=abc'],
         "total of --resource VCPU=abc: 'abc' is not an integer."),
    ])


class TestAmountsOutOfRange(base.OutOfRangeTestCase):

    scenarios = [
        ('inventory-set-total', {
            'argv': ('resource', 'provider', 'inventory', 'set', RP1,
                     '--resource', 'VCPU=-3'),
            'error': 'total of --resource VCPU=-3: -3 is out of range (1 to '
                     '2147483647).'}),
        ('inventory-set-reserved', {
            'argv': ('resource', 'provider', 'inventory', 'set', RP1,
                     '--resource', 'VCPU:reserved=3000000000'),
            'error': 'reserved of --resource VCPU:reserved=3000000000: '
                     '3000000000 is out of range (0 to 2147483647).'}),
        ('inventory-class-set', {
            'argv': ('resource', 'provider', 'inventory', 'class', 'set',
                     RP1, 'VCPU', '--total', '8', '--max-unit=-1'),
            'error': '--max-unit: -1 is out of range (1 to 2147483647).'}),
    ]
