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

"""The OpenMetrics formatter (``cli/openmetrics.py``): the whole text.

``-f openmetrics`` of the capacity commands, exactly: what a scrape job
reads, line by line: the ``# HELP`` and ``# TYPE`` lines of each metric,
the samples in row order with their labels (escaped), the values as
written (integers bare, floats in full) and the closing ``# EOF``. The
functional tests read the text back with a real parser; these pin its bytes.
"""

from osc_placement.tests.unit import base

URL = base.ENDPOINT
RP1 = 'bbbbbbbb-bbbb-4bbb-8bbb-000000000001'
RP2 = 'bbbbbbbb-bbbb-4bbb-8bbb-000000000002'


def _inventory(total, reserved=0, ratio=1.0):
    return {'total': total, 'reserved': reserved, 'allocation_ratio': ratio,
            'min_unit': 1, 'max_unit': total, 'step_size': 1}


# Provider 'one' is over-committed on VCPU; 'two' has a quote in its name.
INVENTORIES = {
    RP1: {'VCPU': _inventory(4, reserved=1, ratio=1.5),
          'MEMORY_MB': _inventory(2048, reserved=512)},
    RP2: {'VCPU': _inventory(8)},
}
USAGES = {RP1: {'VCPU': 5, 'MEMORY_MB': 1024}, RP2: {'VCPU': 2}}
NAMES = {RP1: 'one', RP2: 'two "b"'}

LIST = '''\
# HELP openstack_placement_resource_total Total of the inventory of a \
resource class.
# TYPE openstack_placement_resource_total gauge
openstack_placement_resource_total{hostname="one",\
resourcetype="MEMORY_MB"} 2048
openstack_placement_resource_total{hostname="one",resourcetype="VCPU"} 4
openstack_placement_resource_total{hostname="two \\"b\\"",\
resourcetype="VCPU"} 8
# HELP openstack_placement_resource_reserved Amount of the inventory kept \
back, never allocated.
# TYPE openstack_placement_resource_reserved gauge
openstack_placement_resource_reserved{hostname="one",\
resourcetype="MEMORY_MB"} 512
openstack_placement_resource_reserved{hostname="one",resourcetype="VCPU"} 1
openstack_placement_resource_reserved{hostname="two \\"b\\"",\
resourcetype="VCPU"} 0
# HELP openstack_placement_resource_allocation_ratio Overcommit factor of \
the inventory.
# TYPE openstack_placement_resource_allocation_ratio gauge
openstack_placement_resource_allocation_ratio{hostname="one",\
resourcetype="MEMORY_MB"} 1.0
openstack_placement_resource_allocation_ratio{hostname="one",\
resourcetype="VCPU"} 1.5
openstack_placement_resource_allocation_ratio{hostname="two \\"b\\"",\
resourcetype="VCPU"} 1.0
# HELP openstack_placement_resource_usage Amount allocated to consumers.
# TYPE openstack_placement_resource_usage gauge
openstack_placement_resource_usage{hostname="one",\
resourcetype="MEMORY_MB"} 1024
openstack_placement_resource_usage{hostname="one",resourcetype="VCPU"} 5
openstack_placement_resource_usage{hostname="two \\"b\\"",\
resourcetype="VCPU"} 2
# HELP openstack_placement_resource_capacity Amount consumers may \
allocate: (total - reserved) * allocation_ratio, rounded down.
# TYPE openstack_placement_resource_capacity gauge
openstack_placement_resource_capacity{hostname="one",\
resourcetype="MEMORY_MB"} 1536
openstack_placement_resource_capacity{hostname="one",resourcetype="VCPU"} 4
openstack_placement_resource_capacity{hostname="two \\"b\\"",\
resourcetype="VCPU"} 8
# HELP openstack_placement_resource_free Capacity not allocated (negative \
when over-committed).
# TYPE openstack_placement_resource_free gauge
openstack_placement_resource_free{hostname="one",\
resourcetype="MEMORY_MB"} 512
openstack_placement_resource_free{hostname="one",resourcetype="VCPU"} -1
openstack_placement_resource_free{hostname="two \\"b\\"",\
resourcetype="VCPU"} 6
# EOF
'''

SUMMARY = '''\
# HELP openstack_placement_resource_providers Resource providers with an \
inventory of the class.
# TYPE openstack_placement_resource_providers gauge
openstack_placement_resource_providers{resourcetype="MEMORY_MB"} 1
openstack_placement_resource_providers{resourcetype="VCPU"} 2
# HELP openstack_placement_resource_total Total of the inventory of a \
resource class.
# TYPE openstack_placement_resource_total gauge
openstack_placement_resource_total{resourcetype="MEMORY_MB"} 2048
openstack_placement_resource_total{resourcetype="VCPU"} 12
# HELP openstack_placement_resource_reserved Amount of the inventory kept \
back, never allocated.
# TYPE openstack_placement_resource_reserved gauge
openstack_placement_resource_reserved{resourcetype="MEMORY_MB"} 512
openstack_placement_resource_reserved{resourcetype="VCPU"} 1
# HELP openstack_placement_resource_usage Amount allocated to consumers.
# TYPE openstack_placement_resource_usage gauge
openstack_placement_resource_usage{resourcetype="MEMORY_MB"} 1024
openstack_placement_resource_usage{resourcetype="VCPU"} 7
# HELP openstack_placement_resource_capacity Amount consumers may \
allocate: (total - reserved) * allocation_ratio, rounded down.
# TYPE openstack_placement_resource_capacity gauge
openstack_placement_resource_capacity{resourcetype="MEMORY_MB"} 1536
openstack_placement_resource_capacity{resourcetype="VCPU"} 12
# HELP openstack_placement_resource_free Capacity not allocated (negative \
when over-committed).
# TYPE openstack_placement_resource_free gauge
openstack_placement_resource_free{resourcetype="MEMORY_MB"} 512
openstack_placement_resource_free{resourcetype="VCPU"} 5
# EOF
'''

FIT = '''\
# HELP openstack_placement_fit How many more allocations of the shape the \
tree takes now.
# TYPE openstack_placement_fit gauge
openstack_placement_fit{hostname="one",shape="VCPU=2"} 0
openstack_placement_fit{hostname="two \\"b\\"",shape="VCPU=2"} 3
# HELP openstack_placement_fit_at_most At most how many more allocations \
of the shape the tree takes now.
# TYPE openstack_placement_fit_at_most gauge
openstack_placement_fit_at_most{hostname="one",shape="VCPU=2"} 0
openstack_placement_fit_at_most{hostname="two \\"b\\"",shape="VCPU=2"} 3
'''

CLOUD_FIT = '''\
# HELP openstack_placement_cloud_fit How many more allocations of the \
shape the trees take now, together.
# TYPE openstack_placement_cloud_fit gauge
openstack_placement_cloud_fit{shape="VCPU=2"} 3
# HELP openstack_placement_cloud_fit_at_most At most how many more \
allocations of the shape the trees take now, together.
# TYPE openstack_placement_cloud_fit_at_most gauge
openstack_placement_cloud_fit_at_most{shape="VCPU=2"} 3
# HELP openstack_placement_cloud_fit_trees How many trees take at least \
one more allocation of the shape.
# TYPE openstack_placement_cloud_fit_trees gauge
openstack_placement_cloud_fit_trees{shape="VCPU=2"} 1
# EOF
'''

FIT_SUMMARY = CLOUD_FIT
FIT += CLOUD_FIT


class TestText(base.TestCase):
    """Two providers; the text of each capacity command, whole."""

    api_version = '1.39'

    def setUp(self):
        super().setUp()
        self.requests_mock.get(
            URL + '/resource_providers', complete_qs=True,
            json={'resource_providers': [
                base.provider(rp, NAMES[rp]) for rp in (RP1, RP2)]})
        for rp in (RP1, RP2):
            path = URL + '/resource_providers/' + rp
            self.requests_mock.get(path + '/inventories', json={
                'inventories': INVENTORIES[rp],
                'resource_provider_generation': 0})
            self.requests_mock.get(path + '/usages', json={
                'usages': USAGES[rp], 'resource_provider_generation': 0})
            self.requests_mock.get(path + '/traits', json={
                'traits': [], 'resource_provider_generation': 0})
            self.requests_mock.get(path + '/aggregates', json={
                'aggregates': [], 'resource_provider_generation': 0})
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [{'allocations': {
                RP2: {'resources': {'VCPU': 2}}}}],
            'provider_summaries': {}})

    def text(self, *argv):
        out, err, code = self.openstack('resource', 'provider', 'capacity',
                                        *argv, '-f', 'openmetrics')
        self.assertEqual(('', 0), (err, code))
        return out

    def test_list(self):
        self.assertEqual(LIST, self.text('list'))

    def test_list_summary(self):
        self.assertEqual(SUMMARY, self.text('list', '--summary'))

    def test_fit(self):
        self.assertEqual(FIT, self.text('fit', '--resource', 'VCPU=2'))

    def test_fit_summary(self):
        self.assertEqual(FIT_SUMMARY, self.text('fit', '--resource',
                                                'VCPU=2', '--summary'))
