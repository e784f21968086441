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

"""``capacity list --resource-class`` on a real Placement: a class that
does not exist is an error, one that no provider has an empty table."""

import json

from osc_placement import tests
from osc_placement.tests.functional import base

HOST = '33333333-3333-4333-8333-000000000001'
LIST = ('resource', 'provider', 'capacity', 'list')


class TestResourceClassOption(base.TestCase):

    def setUp(self):
        super().setUp()
        tests.create_provider(self, HOST, 'host1', inventories={'VCPU': 8})

    def test_unknown_class_is_refused(self):
        for options in ((), ('--summary',)):
            out, err, code = self.openstack(
                *LIST, '--resource-class', 'VCPU', '--resource-class',
                'VCPUS', *options)
            self.assertEqual(
                ('', "No resource class 'VCPUS' found (resource class list "
                 "shows those that exist).\n", 1), (out, err, code))

    def test_class_no_provider_has_gives_an_empty_table(self):
        self.api('PUT', '/resource_classes/CUSTOM_GPU')
        for options in ((), ('--summary',)):
            out, err, code = self.openstack(
                *LIST, '--resource-class', 'CUSTOM_GPU', '--resource-class',
                'VCPU', '-f', 'json', *options)
            self.assertEqual(
                ('No resource provider selected has an inventory of '
                 'CUSTOM_GPU.\n', 0), (err, code))
            self.assertEqual(['VCPU'], [row['resource_class']
                                        for row in json.loads(out)])
        # The table of no row, as cliff prints it.
        self.assertEqual(('\n', 'No resource provider selected has an '
                          'inventory of CUSTOM_GPU.\n', 0), self.openstack(
                              *LIST, '--resource-class', 'CUSTOM_GPU'))
