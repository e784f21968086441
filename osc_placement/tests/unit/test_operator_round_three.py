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

"""Issue 26: dry runs checked (warnings since rule D20), amounts in range,
conflicts that say what to do, the negotiated microversion in --debug,
endpoint errors worded."""

import testscenarios

from osc_placement.tests import cli
from osc_placement.tests.unit import base

URL = base.ENDPOINT
RP1 = base.RP1
RP2 = base.RP2
RP3 = base.RP3
RP4 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000004'
AGG = base.AGG1

load_tests = testscenarios.load_tests_apply_scenarios

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


class TestAmountsOutOfRange(base.TestCase):
    """Rule D18: one line naming the value and range, and no request."""

    scenarios = [
        ('candidates-negative', {
            'argv': ('allocation', 'candidate', 'list', '--resource',
                     'VCPU=-3'),
            'error': "--resource 'VCPU=-3': amount: -3 is out of range "
                     "(1 to 2147483647)."}),
        ('candidates-huge', {
            'argv': ('allocation', 'candidate', 'list', '--resource',
                     'VCPU=99999999999999999999'),
            'error': "--resource 'VCPU=99999999999999999999': amount: "
                     "99999999999999999999 is out of range (1 to "
                     "2147483647)."}),
        ('candidates-limit', {
            'argv': ('allocation', 'candidate', 'list', '--resource',
                     'VCPU=1', '--limit', '-1'),
            'error': "--limit: '-1' must be an integer of at least 1."}),
        ('allocation-set', {
            'argv': ('resource', 'provider', 'allocation', 'set', base.C1,
                     '--allocation', 'rp=%s,VCPU=-3' % RP1,
                     '--consumer-type', 'INSTANCE') + tuple(base.OWNER),
            'error': "--allocation 'rp=%s,VCPU=-3': amount of VCPU: -3 is "
                     "out of range (1 to 2147483647)." % RP1}),
        ('provider-list', {
            'argv': ('resource', 'provider', 'list', '--resource',
                     'VCPU=2147483648'),
            'error': "--resource 'VCPU=2147483648': amount: 2147483648 is "
                     "out of range (1 to 2147483647)."}),
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

    def test_refused_before_any_request(self):
        out, err, code = self.openstack(*self.argv, version='1.39')
        self.assertEqual(('', self.error + '\n', 1), (out, err, code))
        self.assertEqual([], self.sent())


class TestZeroAmountsStayServerJudged(base.TestCase):

    def test_zero_is_sent(self):
        self.requests_mock.get(
            URL + '/allocation_candidates',
            **base.error_reply(400, 'JSON does not validate: 0 is less '
                               'than the minimum of 1'))
        out, err, code = self.openstack(
            'allocation', 'candidate', 'list', '--resource', 'VCPU=0',
            version='1.39')
        self.assertEqual(1, code)
        self.assertEqual(
            [('GET', '/allocation_candidates?resources=VCPU%3A0')],
            self.sent())


class TestConflictGuidance(base.TestCase):
    """A generation conflict says who changed and how to go on."""

    def test_consumer_generation_conflict(self):
        consumer = URL + '/allocations/' + base.C1
        self.requests_mock.get(consumer, json={
            'allocations': {}, 'consumer_generation': 11})
        self.requests_mock.put(consumer, **base.error_reply(
            409, base.webob_detail(
                'consumer generation conflict - expected 12 but got 11'),
            code='placement.concurrent_update'))
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'set', base.C1,
            '--allocation', 'rp=%s,VCPU=1' % RP1, *base.OWNER,
            version='1.28')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            'consumer generation conflict - expected 12 but got 11. '
            'Consumer %s changed since it was read: read it again with '
            '"openstack resource provider allocation show %s", then retry '
            '(HTTP 409)\n' % (base.C1, base.C1), err)

    def test_provider_generation_conflict(self):
        self.requests_mock.get(URL + '/resource_providers/' + RP1,
                               json=base.provider(RP1, generation=4))
        self.requests_mock.put(
            URL + '/resource_providers/%s/inventories' % RP1,
            **base.error_reply(409, base.webob_detail(
                'resource provider generation conflict'),
                code='placement.concurrent_update'))
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'set', RP1, '--resource',
            'VCPU=8', version='1.26')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            'resource provider generation conflict. Resource provider %s '
            'changed since it was read: read it again with "openstack '
            'resource provider show %s", then run the command again (HTTP '
            '409)\n' % (RP1, RP1), err)

    def test_other_conflicts_keep_the_server_words(self):
        self.requests_mock.get(URL + '/resource_providers/' + RP1,
                               json=base.provider(RP1, generation=4))
        self.requests_mock.put(
            URL + '/resource_providers/%s/inventories' % RP1,
            **base.error_reply(409, base.webob_detail(
                "update conflict: Inventory for 'VCPU' on resource provider "
                "'%s' in use." % RP1), code='placement.inventory.inuse'))
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'set', RP1, '--resource',
            'DISK_GB=8', version='1.26')
        self.assertEqual(
            ('', "update conflict: Inventory for 'VCPU' on resource provider "
             "'%s' in use. (HTTP 409)\n" % RP1, 1), (out, err, code))


class TestInUseIsNotAGenerationConflict(base.TestCase):
    """Placement codes a class in use as a concurrent update too."""

    def test_delete_of_a_class_in_use_keeps_the_server_words(self):
        detail = ("Unable to delete inventory of class VCPU: Inventory for "
                  "'VCPU' on resource provider '%s' in use." % RP1)
        self.requests_mock.delete(
            URL + '/resource_providers/%s/inventories/VCPU' % RP1,
            **base.error_reply(409, base.webob_detail(detail),
                               code='placement.concurrent_update'))
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'delete', RP1,
            '--resource-class', 'VCPU', version='1.39')
        self.assertEqual(('', detail + ' (HTTP 409)\n', 1), (out, err, code))


class TestNegotiationInDebug(base.TestCase):

    def debug_lines(self):
        out, err, code = cli.run(
            ['--debug'] + cli.auth_argv() + ['resource', 'class', 'list'])
        self.assertEqual(0, code, err)
        return [line for line in err.splitlines() if 'Negotiated' in line]

    def test_the_negotiated_version_and_the_server_maximum(self):
        self.requests_mock.get(URL + '/', json=base.VERSIONS)
        self.requests_mock.get(URL + '/resource_classes',
                               json={'resource_classes': []})
        lines = self.debug_lines()
        self.assertEqual(1, len(lines), lines)
        self.assertTrue(lines[0].endswith(
            'Negotiated Placement API microversion 1.29 (server maximum '
            '1.39)'), lines[0])

    def test_an_older_server(self):
        self.requests_mock.get(URL + '/', status_code=406, json={
            'errors': [{'status': 406, 'title': 'Not Acceptable',
                        'detail': 'Unacceptable version header: 1.29',
                        'max_version': '1.17', 'min_version': '1.0'}]})
        self.requests_mock.get(URL + '/resource_classes',
                               json={'resource_classes': []})
        lines = self.debug_lines()
        self.assertEqual(1, len(lines), lines)
        self.assertTrue(lines[0].endswith(
            'Negotiated Placement API microversion 1.17 (server maximum '
            '1.17)'), lines[0])


class TestEndpointThatIsNotAURL(base.TestCase):

    # (requests-mock serves every scheme: only a URL without one can be
    # tested here.)
    scenarios = [(e, {'endpoint': e})
                 for e in ('not-a-url', 'controller.example/placement')]

    def test_says_what_an_endpoint_looks_like(self):
        out, err, code = cli.run(cli.auth_argv(self.endpoint) + [
            'resource', 'class', 'list'])
        self.assertEqual(
            ('', "The Placement endpoint '%s' is not an HTTP(S) URL: give "
             "one such as http://controller:8778/placement.\n"
             % self.endpoint, 1), (out, err, code))
        self.assertEqual([], self.sent())
