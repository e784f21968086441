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

"""Resource class commands against a real Placement."""

import testscenarios

from osc_placement import tests
from osc_placement.tests.functional import base

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
GATE = ('Operation or argument is not supported with version %s; '
        'requires at least version %s\n')
# The server's JSON-schema error: its reason and field, not the schema.
BAD_NAME = ("JSON does not validate: 'FPGA' does not match "
            "'^CUSTOM_[A-Z0-9_]+$' (field name) (HTTP 400)\n")

load_tests = testscenarios.load_tests_apply_scenarios


def class_names(placement):
    return [c['name'] for c in
            placement.api('GET', '/resource_classes')['resource_classes']]


def make_class(placement, name):
    placement.api('PUT', '/resource_classes/' + name)


class TestAtEachVersion(base.TestCase):
    scenarios = base.versions(None, '1.2')

    def test_list(self):
        make_class(self, 'CUSTOM_FPGA')
        rows = self.ok('resource', 'class', 'list', '-f', 'json',
                       version=self.version)
        self.assertEqual([{'name': n} for n in class_names(self)], rows)
        self.assertIn({'name': 'VCPU'}, rows)
        self.assertIn({'name': 'CUSTOM_FPGA'}, rows)

    def test_create(self):
        out = self.ok('resource', 'class', 'create', 'CUSTOM_FPGA',
                      version=self.version)
        self.assertEqual('', out)
        self.assertIn('CUSTOM_FPGA', class_names(self))

    def test_show(self):
        make_class(self, 'CUSTOM_FPGA')
        row = self.ok('resource', 'class', 'show', 'CUSTOM_FPGA', '-f',
                      'json', version=self.version)
        self.assertEqual({'name': 'CUSTOM_FPGA'}, row)

    def test_delete(self):
        make_class(self, 'CUSTOM_FPGA')
        out = self.ok('resource', 'class', 'delete', 'CUSTOM_FPGA',
                      version=self.version)
        self.assertEqual('', out)
        self.assertNotIn('CUSTOM_FPGA', class_names(self))


class TestResourceClass(base.TestCase):

    def test_list_value_format(self):
        out = self.ok('resource', 'class', 'list', '-f', 'value')
        self.assertEqual(class_names(self), out.splitlines())

    def test_create_existing_is_a_conflict(self):
        make_class(self, 'CUSTOM_FPGA')
        err, code = self.fails('resource', 'class', 'create', 'CUSTOM_FPGA')
        self.assertEqual((
            'Conflicting resource class already exists: CUSTOM_FPGA '
            '(HTTP 409)\n', 1), (err, code))

    def test_create_needs_custom_prefix(self):
        err, code = self.fails('resource', 'class', 'create', 'FPGA')
        self.assertEqual((BAD_NAME, 1), (err, code))

    def test_set_needs_1_7(self):
        out, err, code = self.openstack('resource', 'class', 'set',
                                        'CUSTOM_FPGA', version='1.6')
        self.assertEqual(('', GATE % ('1.6', '1.7'), 1), (out, err, code))
        self.assertNotIn('CUSTOM_FPGA', class_names(self))

    def test_set_needs_custom_prefix(self):
        err, code = self.fails('resource', 'class', 'set', 'FPGA')
        self.assertEqual((BAD_NAME, 1), (err, code))

    def test_show_missing(self):
        err, code = self.fails('resource', 'class', 'show', 'CUSTOM_NOPE')
        self.assertEqual(
            ('No such resource class CUSTOM_NOPE. (HTTP 404)\n', 1),
            (err, code))

    def test_name_cannot_inject_a_query(self):
        # Sent as one path segment, the name reaches the server whole.
        make_class(self, 'CUSTOM_FPGA')
        err, code = self.fails('resource', 'class', 'show',
                               'CUSTOM_FPGA?x=1')
        self.assertEqual(
            ('No such resource class CUSTOM_FPGA?x=1. (HTTP 404)\n', 1),
            (err, code))

    def test_empty_name_is_refused_before_any_request(self):
        err, code = self.fails('resource', 'class', 'show', '')
        self.assertEqual(2, code)
        self.assertIn('must not be empty', err)

    def test_delete_missing(self):
        err, code = self.fails('resource', 'class', 'delete', 'CUSTOM_NOPE')
        self.assertEqual(
            ('No such resource class CUSTOM_NOPE. (HTTP 404)\n', 1),
            (err, code))

    def test_delete_in_use(self):
        make_class(self, 'CUSTOM_FPGA')
        tests.create_provider(self, RP1, 'compute-1', {'CUSTOM_FPGA': 1})
        err, code = self.fails('resource', 'class', 'delete', 'CUSTOM_FPGA')
        self.assertEqual((
            'Error in delete resource class: Cannot delete resource class '
            'CUSTOM_FPGA. Class is in use in inventory. (HTTP 409)\n', 1),
            (err, code))
        self.assertIn('CUSTOM_FPGA', class_names(self))

    def test_delete_several(self):
        for name in ('CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C'):
            make_class(self, name)
        out = self.ok('resource', 'class', 'delete', 'CUSTOM_A', 'CUSTOM_B',
                      'CUSTOM_C')
        self.assertEqual('', out)
        self.assertFalse({'CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C'} & set(
            class_names(self)))

    def test_delete_several_goes_on_after_failures(self):
        for name in ('CUSTOM_A', 'CUSTOM_B', 'CUSTOM_USED'):
            make_class(self, name)
        tests.create_provider(self, RP1, 'compute-1', {'CUSTOM_USED': 1})
        out, err, code = self.openstack(
            'resource', 'class', 'delete', 'CUSTOM_A', 'CUSTOM_NOPE',
            'CUSTOM_USED', 'VCPU', 'CUSTOM_B')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual([
            'Failed to delete resource class CUSTOM_NOPE: No such resource '
            'class CUSTOM_NOPE. (HTTP 404)',
            'Failed to delete resource class CUSTOM_USED: Error in delete '
            'resource class: Cannot delete resource class CUSTOM_USED. Class '
            'is in use in inventory. (HTTP 409)',
            'Failed to delete resource class VCPU: Error in delete resource '
            'class: Cannot delete standard resource class VCPU. (HTTP 400)',
            'Failed to delete 3 of 5 resource classes.'], err.splitlines())
        left = set(class_names(self))
        self.assertLessEqual({'CUSTOM_USED', 'VCPU'}, left)
        self.assertFalse({'CUSTOM_A', 'CUSTOM_B'} & left)


class TestEveryCommandNeeds12(base.TestCase):
    scenarios = [
        ('list', {'argv': ['list']}),
        ('create', {'argv': ['create', 'CUSTOM_FPGA']}),
        ('show', {'argv': ['show', 'VCPU']}),
        ('delete', {'argv': ['delete', 'CUSTOM_FPGA']}),
    ]

    def test_commands_need_1_2(self):
        make_class(self, 'CUSTOM_FPGA')
        out, err, code = self.openstack('resource', 'class', *self.argv,
                                        version='1.1')
        self.assertEqual(('', GATE % ('1.1', '1.2'), 1), (out, err, code))
        self.assertIn('CUSTOM_FPGA', class_names(self))


class TestSetAtEachVersion(base.TestCase):
    scenarios = base.versions(None, '1.7')

    def test_set_creates_then_accepts_existing(self):
        out = self.ok('resource', 'class', 'set', 'CUSTOM_FPGA',
                      version=self.version)
        self.assertEqual('', out)
        self.assertIn('CUSTOM_FPGA', class_names(self))
        out = self.ok('resource', 'class', 'set', 'CUSTOM_FPGA',
                      version=self.version)
        self.assertEqual('', out)
        self.assertEqual(1, class_names(self).count('CUSTOM_FPGA'))
