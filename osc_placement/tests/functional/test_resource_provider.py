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

"""Resource provider commands against a real Placement."""

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'


def test_list_at_default_negotiated_version(placement):
    placement.api('POST', '/resource_providers',
                  body={'name': 'compute-1', 'uuid': RP1})
    rows = placement.ok('resource', 'provider', 'list', '-f', 'json')
    # Negotiation stops at 1.29: the tree columns are there.
    assert rows == [{'uuid': RP1, 'name': 'compute-1', 'generation': 0,
                     'root_provider_uuid': RP1,
                     'parent_provider_uuid': None}]
