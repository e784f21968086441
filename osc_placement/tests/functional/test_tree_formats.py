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

"""The tree views' formats on a real Placement: bare names, --dot alone."""

from osc_placement.tests.functional import base


class TestTreeFormats(base.TestCase):

    def test_value_and_json_give_bare_names(self):
        root = self.api('POST', '/resource_providers',
                        body={'name': 'compute-1'})['uuid']
        self.api('POST', '/resource_providers', body={
            'name': 'compute-1_NUMA0', 'parent_provider_uuid': root})
        value = self.ok('resource', 'provider', 'tree', 'show', root,
                        '-f', 'value', '-c', 'name', '-c', 'depth',
                        version='1.14')
        self.assertEqual(['compute-1 0', 'compute-1_NUMA0 1'],
                         value.splitlines())
        out, err, code = self.openstack(
            'resource', 'provider', 'tree', 'list', '--dot', '-f', 'json',
            version='1.14')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual('--dot prints Graphviz DOT: it cannot be combined '
                         'with -f/--format.\n', err)
