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

"""The rows of a candidates answer (``model/candidates.py``)."""

from oslotest import base

from osc_placement.model import candidates

CN = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'


class TestRows(base.BaseTestCase):

    def test_each_summary_is_formatted_once_not_once_per_row(self):
        """1,000 candidates of 20 providers each: 20,000 rows.

        A provider's inventory text is built once, however many rows show
        it, so building the rows grows with the rows, not with rows times
        providers. (How fast it is belongs to the benchmark.)
        """
        reads = []

        class CountedResources(dict):
            def items(self):
                reads.append(1)
                return super().items()

        providers = ['aaaaaaaa-aaaa-4aaa-8aaa-%012d' % i for i in range(200)]
        summaries = {}
        for rp in providers:
            summaries[rp] = {
                'resources': CountedResources({
                    'VCPU': {'capacity': 8, 'used': 0},
                    'MEMORY_MB': {'capacity': 4096, 'used': 0}}),
                'traits': ['HW_CPU_X86_AVX'], 'root_provider_uuid': CN,
                'parent_provider_uuid': CN}
        requests_ = [{'allocations': {providers[(i + j) % 200]:
                                      {'resources': {'VCPU': 1}}
                                      for j in range(20)},
                      'mappings': {'': providers[i % 200:i % 200 + 1]}}
                     for i in range(1000)]
        rows = candidates.rows(summaries, requests_, dict_shaped=True,
                               traits=True, long=True, mappings=True)
        self.assertEqual(20000, len(rows))
        self.assertEqual('VCPU=0/8,MEMORY_MB=0/4096', rows[0][3])
        self.assertEqual(len(providers), len(reads))
