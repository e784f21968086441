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

"""``resource provider capacity fit`` against the truth of a real Placement.

The truth: fill the cloud with the shape, one allocation at a time, each
one a candidate that Placement gives (``allocation candidate list --limit
1`` within the tree), until none is left; count them per tree. Where the
count is exact the tree takes exactly ``fits`` of them; where the row says
``(upper bound)``, never more.
"""

import itertools
import json
import uuid as uuid_lib

from prometheus_client.openmetrics import parser

from osc_placement.model import evaluation
from osc_placement import tests
from osc_placement.tests import cli
from osc_placement.tests.functional import base

HOST1 = '22222222-2222-4222-8222-000000000001'
HOST2 = '22222222-2222-4222-8222-000000000002'
HOST3 = '22222222-2222-4222-8222-000000000003'
NUMA0 = '22222222-2222-4222-8222-000000000004'
NUMA1 = '22222222-2222-4222-8222-000000000005'
AGG = 'dddddddd-dddd-4ddd-8ddd-000000000002'


class FitCloud(base.TestCase):
    """Three trees: bound by VCPU, by memory, and a nested one."""

    def setUp(self):
        super().setUp()
        # Bound by VCPU: (8 - 1 reserved) * 2.0 = 14 VCPU.
        tests.create_provider(
            self, HOST1, 'host1',
            inventories={'VCPU': {'total': 8, 'reserved': 1,
                                  'allocation_ratio': 2.0},
                         'MEMORY_MB': 65536},
            aggregates=[AGG])
        # Bound by memory, and max_unit.
        tests.create_provider(
            self, HOST2, 'host2',
            inventories={'VCPU': 64, 'MEMORY_MB': {'total': 10000,
                                                   'max_unit': 4096}},
            traits=['HW_CPU_X86_AVX2'])
        # A nested tree: the VCPU on two NUMA nodes, memory on the root.
        tests.create_provider(self, HOST3, 'host3',
                              inventories={'MEMORY_MB': 40960})
        tests.create_provider(self, NUMA0, 'host3_numa0', parent=HOST3,
                              inventories={'VCPU': 6})
        tests.create_provider(self, NUMA1, 'host3_numa1', parent=HOST3,
                              inventories={'VCPU': 5})

    def fit(self, *argv):
        return self.ok('resource', 'provider', 'capacity', 'fit', *argv,
                       '-f', 'json', version='1.39')

    def fill(self, root, shape):
        """Allocations of the shape placed in one tree until none fits."""
        return fill(self, shape, '--in-tree', root)


def fill(test, shape, *options, version='1.39'):
    """Allocations placed until Placement has no candidate left.

    Each one is the first candidate of ``allocation candidate list`` for
    the shape with ``options``, allocated as Placement gives it.
    """
    placed = 0
    while True:
        rows = test.ok('allocation', 'candidate', 'list', '--limit', '1',
                       '-f', 'json', *options,
                       *[arg for rc, amount in shape
                         for arg in ('--resource', '%s=%d' % (rc, amount))],
                       version=version)
        if not rows:
            return placed
        held = {}
        for row in rows:
            for item in row['allocation'].split(','):
                rc, amount = item.split('=')
                held.setdefault(row['resource provider'], {})[rc] = \
                    int(amount)
        tests.allocate(test, str(uuid_lib.uuid4()), held)
        placed += 1


class TestFit(FitCloud):

    def test_fits_equal_what_placement_then_places(self):
        shape = [('VCPU', 2), ('MEMORY_MB', 2048)]
        rows = self.fit('--resource', 'VCPU=2', '--resource',
                        'MEMORY_MB=2048')
        fits = {r['resource_provider']: (r['fits'], r['limited_by'])
                for r in rows}
        self.assertEqual({HOST1: (7, 'VCPU'), HOST2: (4, 'MEMORY_MB'),
                          HOST3: (5, 'VCPU')}, fits)
        placed = {root: self.fill(root, shape)
                  for root in (HOST1, HOST2, HOST3)}
        self.assertEqual(fits[HOST1][0], placed[HOST1])
        self.assertEqual(fits[HOST2][0], placed[HOST2])
        self.assertLessEqual(placed[HOST3], fits[HOST3][0])
        # Here the nested tree's bound is reached too.
        self.assertEqual(fits[HOST3][0], placed[HOST3])
        after = self.fit('--resource', 'VCPU=2', '--resource',
                         'MEMORY_MB=2048')
        self.assertEqual([0, 0, 0], [r['fits'] for r in after])
        self.assertEqual(
            'VCPU: 2 requested, 0 free (capacity 14, used 14)',
            after[0]['limited_by'])

    def test_traits_and_aggregates_select_trees(self):
        rows = self.fit('--resource', 'VCPU=1', '--required',
                        'HW_CPU_X86_AVX2')
        self.assertEqual([0, 64, 0], [r['fits'] for r in rows])
        self.assertEqual('lacks required trait HW_CPU_X86_AVX2',
                         rows[0]['limited_by'])
        # The aggregate selects the trees: one row.
        rows = self.fit('--resource', 'VCPU=1', '--member-of', AGG)
        self.assertEqual([(HOST1, 14)], [(r['resource_provider'], r['fits'])
                                         for r in rows])

    def test_in_tree_selects_one_tree(self):
        for value in (HOST3, 'host3_numa0'):
            rows = self.fit('--resource', 'VCPU=2', '--resource',
                            'MEMORY_MB=2048', '--in-tree', value)
            self.assertEqual([(HOST3, 5, 'VCPU')],
                             [(r['resource_provider'], r['fits'],
                               r['limited_by']) for r in rows])
        self.assertEqual(
            [{'fits': 5, 'at_most': 5, 'trees': 1, 'limited_by': 'VCPU'}],
            self.fit('--resource', 'VCPU=2', '--resource', 'MEMORY_MB=2048',
                     '--in-tree', HOST3, '--summary'))

    def test_selections_add_up(self):
        # --member-of and --resource-provider together: the trees both
        # select (none here).
        self.assertEqual([], self.fit('--resource', 'VCPU=1', '--member-of',
                                      AGG, '--resource-provider', 'host2'))
        self.assertEqual(
            [{'fits': 14, 'at_most': 14, 'trees': 1, 'limited_by': 'VCPU'}],
            self.fit('--resource', 'VCPU=1', '--member-of', AGG,
                     '--summary'))

    def test_summary(self):
        self.assertEqual(
            [{'fits': 16, 'at_most': 16, 'trees': 3, 'limited_by': 'VCPU'}],
            self.fit('--resource', 'VCPU=2', '--resource', 'MEMORY_MB=2048',
                     '--summary'))

    def test_summary_of_a_shape_that_fits_nowhere(self):
        # Every tree gives its reason: the one most trees give is said.
        per_tree = self.fit('--resource', 'VCPU=1', '--resource',
                            'MEMORY_MB=70000')
        self.assertEqual([0, 0, 0], [row['fits'] for row in per_tree])
        reasons = [row['limited_by'] for row in per_tree]
        commonest = max(sorted(set(reasons)), key=reasons.count)
        self.assertTrue(commonest)
        self.assertEqual(
            [{'fits': 0, 'at_most': 0, 'trees': 0, 'limited_by': commonest}],
            self.fit('--resource', 'VCPU=1', '--resource',
                     'MEMORY_MB=70000', '--summary'))

    def test_resource_provider_selects_trees(self):
        rows = self.fit('--resource', 'VCPU=2', '--resource-provider',
                        'host3_numa1')
        self.assertEqual([(HOST3, 5)], [(r['resource_provider'], r['fits'])
                                        for r in rows])


class TestExactOrBound(base.TestCase):
    """One provider per allocation, or classes apart: exact; else a bound.

    Each test builds one tree, asks ``capacity fit``, then fills the tree
    with the shape until Placement has no candidate left.
    """

    def fit(self, shape, *options, version='1.39'):
        rows = self.ok('resource', 'provider', 'capacity', 'fit',
                       *[arg for rc, amount in shape
                         for arg in ('--resource', '%s=%d' % (rc, amount))],
                       *options, '-f', 'json', version=version)
        self.assertEqual([HOST1], [r['resource_provider'] for r in rows])
        return rows[0]['fits'], rows[0]['limited_by']

    def test_one_provider_before_1_29(self):
        """The child's memory is no use to the host's VCPU before 1.29."""
        tests.create_provider(self, HOST1, 'host1',
                              inventories={'VCPU': 8, 'MEMORY_MB': 1024})
        tests.create_provider(self, NUMA0, 'host1_mem', parent=HOST1,
                              inventories={'MEMORY_MB': 8192})
        shape = [('VCPU', 2), ('MEMORY_MB', 1024)]
        self.assertEqual((1, 'MEMORY_MB'), self.fit(shape, version='1.28'))
        self.assertEqual(1, fill(self, shape, version='1.28'))

    def test_trait_on_a_small_child(self):
        """Only the small child has the trait: it alone serves."""
        tests.create_provider(self, HOST1, 'host1')
        tests.create_provider(self, NUMA0, 'host1_numa0', parent=HOST1,
                              inventories={'VCPU': 2},
                              traits=['CUSTOM_GOLD'])
        tests.create_provider(self, NUMA1, 'host1_numa1', parent=HOST1,
                              inventories={'VCPU': 8})
        shape = [('VCPU', 2)]
        self.assertEqual((1, 'VCPU'),
                         self.fit(shape, '--required', 'CUSTOM_GOLD'))
        self.assertEqual(1, fill(self, shape, '--required', 'CUSTOM_GOLD'))

    def test_classes_from_any_provider(self):
        """From 1.29 each class comes from any provider: exact."""
        tests.create_provider(self, HOST1, 'host1',
                              inventories={'MEMORY_MB': 4096})
        tests.create_provider(self, NUMA0, 'host1_numa0', parent=HOST1,
                              inventories={'VCPU': 3, 'MEMORY_MB': 2048})
        tests.create_provider(self, NUMA1, 'host1_numa1', parent=HOST1,
                              inventories={'VCPU': 5})
        shape = [('VCPU', 2), ('MEMORY_MB', 1024)]
        self.assertEqual((3, 'VCPU'), self.fit(shape))
        self.assertEqual(3, fill(self, shape))

    def test_traits_held_together(self):
        """The trait on some providers of two classes: placed to the bound.

        Each allocation takes the gold node's VCPU or its memory: one
        with its VCPU, two with its memory, three in all, which is also
        the bound. Placement's own first candidates may place fewer.
        """
        tests.create_provider(self, HOST1, 'host1',
                              inventories={'MEMORY_MB': 1024})
        tests.create_provider(self, NUMA0, 'host1_numa0', parent=HOST1,
                              inventories={'VCPU': 1, 'MEMORY_MB': 1024},
                              traits=['CUSTOM_GOLD'])
        tests.create_provider(self, NUMA1, 'host1_numa1', parent=HOST1,
                              inventories={'VCPU': 4})
        shape = [('VCPU', 1), ('MEMORY_MB', 512)]
        self.assertEqual((3, 'MEMORY_MB'),
                         self.fit(shape, '--required', 'CUSTOM_GOLD'))
        placed = fill(self, shape, '--required', 'CUSTOM_GOLD')
        self.assertGreaterEqual(3, placed)
        self.assertGreater(placed, 0)


class TestOpenMetrics(FitCloud):
    """-f openmetrics, read back by a real parser, equals the json rows."""

    def metrics(self, *argv):
        text = self.ok(*argv, '-f', 'openmetrics', version='1.39')
        self.assertTrue(text.endswith('# EOF\n'))
        return {family.name: family for family in
                parser.text_string_to_metric_families(text)}

    def samples(self, family):
        return {tuple(sorted(s.labels.items())): s.value
                for s in family.samples}

    def test_capacity_list(self):
        tests.allocate(self, str(uuid_lib.uuid4()), {HOST1: {'VCPU': 3}})
        rows = self.ok('resource', 'provider', 'capacity', 'list', '-f',
                       'json', version='1.39')
        found = self.metrics('resource', 'provider', 'capacity', 'list')
        for column, metric in (
                ('total', 'openstack_placement_resource_total'),
                ('reserved', 'openstack_placement_resource_reserved'),
                ('allocation_ratio',
                 'openstack_placement_resource_allocation_ratio'),
                ('used', 'openstack_placement_resource_usage'),
                ('capacity', 'openstack_placement_resource_capacity'),
                ('free', 'openstack_placement_resource_free')):
            self.assertEqual('gauge', found[metric].type)
            self.assertEqual(
                {(('hostname', r['name']),
                  ('resourcetype', r['resource_class'])): r[column]
                 for r in rows}, self.samples(found[metric]), metric)

    def test_capacity_list_summary(self):
        rows = self.ok('resource', 'provider', 'capacity', 'list',
                       '--summary', '-f', 'json', version='1.39')
        found = self.metrics('resource', 'provider', 'capacity', 'list',
                             '--summary')
        self.assertEqual(
            {(('resourcetype', r['resource_class']),): r['providers']
             for r in rows},
            self.samples(found['openstack_placement_resource_providers']))
        self.assertEqual(
            {(('resourcetype', r['resource_class']),): r['free']
             for r in rows},
            self.samples(found['openstack_placement_resource_free']))

    def test_fit(self):
        argv = ('resource', 'provider', 'capacity', 'fit', '--resource',
                'VCPU=2', '--resource', 'MEMORY_MB=2048')
        rows = self.ok(*argv, '-f', 'json', version='1.39')
        found = self.metrics(*argv)
        shape = 'MEMORY_MB=2048,VCPU=2'
        self.assertEqual(
            {(('hostname', r['name']), ('shape', shape)): r['fits']
             for r in rows},
            self.samples(found['openstack_placement_fit']))
        self.assertEqual(
            {(('shape', shape),): sum(r['fits'] for r in rows)},
            self.samples(found['openstack_placement_cloud_fit']))

    def test_fit_writes_the_trees_without_summary(self):
        argv = ('resource', 'provider', 'capacity', 'fit', '--resource',
                'VCPU=2')
        summary = self.ok(*argv, '--summary', '-f', 'json', version='1.39')
        for options in ((), ('--summary',)):
            found = self.metrics(*argv, *options)
            self.assertEqual(
                {(('shape', 'VCPU=2'),): summary[0]['trees']},
                self.samples(found['openstack_placement_cloud_fit_trees']),
                options)

    def test_fit_of_a_selection(self):
        found = self.metrics('resource', 'provider', 'capacity', 'fit',
                             '--resource', 'VCPU=2', '--in-tree', HOST3,
                             '--required', 'HW_CPU_X86_AVX2')
        shape = 'VCPU=2;required=HW_CPU_X86_AVX2;in_tree=' + HOST3
        self.assertEqual(
            {(('hostname', 'host3'), ('shape', shape)): 0},
            self.samples(found['openstack_placement_fit']))
        self.assertEqual(
            {(('shape', shape),): 0},
            self.samples(found['openstack_placement_cloud_fit']))

    def test_columns_refused(self):
        err, code = self.fails('resource', 'provider', 'capacity', 'list',
                               '-f', 'openmetrics', '-c', 'free')
        self.assertEqual(('-c cannot be used with -f openmetrics: it writes '
                          'every metric of the command.\n', 1), (err, code))

    def test_label_values_are_escaped(self):
        tests.create_provider(self, '22222222-2222-4222-8222-000000000009',
                              'odd "name" \\ here',
                              inventories={'VCPU': 1})
        found = self.metrics('resource', 'provider', 'capacity', 'list')
        totals = self.samples(found['openstack_placement_resource_total'])
        self.assertIn((('hostname', 'odd "name" \\ here'),
                       ('resourcetype', 'VCPU')), totals)

    def test_other_lists_do_not_offer_it(self):
        err, code = self.fails('resource', 'provider', 'list', '-f',
                               'openmetrics')
        self.assertEqual(2, code)
        self.assertIn("invalid choice: 'openmetrics'", err)


POOL = '22222222-2222-4222-8222-000000000006'
POOL_AGG = 'dddddddd-dddd-4ddd-8ddd-000000000003'


class TestSharingPool(base.TestCase):
    """Two hosts without disk take DISK_GB from a pool of their aggregate.

    Placement returns each host as a candidate, its disk from the pool
    (``MISC_SHARES_VIA_AGGREGATE``); a third host outside the aggregate
    has no disk at all.
    """

    def setUp(self):
        super().setUp()
        tests.create_provider(self, HOST1, 'host1',
                              inventories={'VCPU': 8}, aggregates=[POOL_AGG])
        tests.create_provider(self, HOST2, 'host2',
                              inventories={'VCPU': 2}, aggregates=[POOL_AGG])
        tests.create_provider(self, HOST3, 'host3', inventories={'VCPU': 8})
        tests.create_provider(self, POOL, 'pool',
                              inventories={'DISK_GB': 100},
                              traits=['MISC_SHARES_VIA_AGGREGATE'],
                              aggregates=[POOL_AGG])

    def fit(self, *argv):
        return {r['name']: r for r in self.ok(
            'resource', 'provider', 'capacity', 'fit', '--resource',
            'VCPU=1', '--resource', 'DISK_GB=30', *argv, '-f', 'json',
            version='1.39')}

    def test_a_tree_takes_its_disk_from_the_pool(self):
        candidates = self.ok('allocation', 'candidate', 'list', '--resource',
                             'VCPU=1', '--resource', 'DISK_GB=30', '-f',
                             'json', version='1.39')
        self.assertIn(POOL, {r['resource provider'] for r in candidates})
        rows = self.fit()
        # As if each alone drew from the pool: 3 of 30 GB from 100.
        self.assertEqual(3, rows['host1']['fits'])
        self.assertEqual(2, rows['host2']['fits'])
        self.assertEqual(0, rows['host3']['fits'])
        self.assertEqual('no provider in the tree has DISK_GB',
                         rows['host3']['limited_by'])
        self.assertIn('pool', rows['host1']['limited_by'])
        self.assertIn('2 trees', rows['host1']['limited_by'])
        self.assertEqual('VCPU', rows['host2']['limited_by'])

    def test_summary_counts_the_pool_once(self):
        summary = self.ok('resource', 'provider', 'capacity', 'fit',
                          '--resource', 'VCPU=1', '--resource', 'DISK_GB=30',
                          '--summary', '-f', 'json', version='1.39')
        # host1 alone 3, host2 alone 2: together the pool's 3.
        self.assertEqual([{'fits': 3, 'at_most': 3, 'trees': 2,
                           'limited_by': 'pool pool (shared by 2 trees)'}],
                         summary)

    def test_the_pool_itself_is_not_counted_twice(self):
        placed = fill(self, [('VCPU', 1), ('DISK_GB', 30)],
                      '--member-of', POOL_AGG)
        self.assertEqual(3, placed)


def gpu(index):
    return '22222222-2222-4222-8222-0000000001%02d' % index


class TestReachable(base.TestCase):
    """fits copies written as one POST /allocations; then none more.

    A host with four GPUs of two VGPU each, and a request of three
    isolated groups of one VGPU: each copy on three distinct GPUs, 8
    VGPU in all, so 2 copies and no more. The test deals the copies
    round the GPUs itself, writes them at once, and asks Placement for
    one more.
    """

    QUERY = ('resources_g1=VGPU:1&resources_g2=VGPU:1&resources_g3=VGPU:1'
             '&group_policy=isolate')

    def setUp(self):
        super().setUp()
        tests.create_provider(self, HOST1, 'host1', inventories={'VCPU': 8})
        for index in range(4):
            tests.create_provider(self, gpu(index), 'gpu%d' % index,
                                  parent=HOST1, inventories={'VGPU': 2})

    def test_fits_is_placed_and_nothing_more(self):
        answer = self.api('GET', '/allocation_candidates?' + self.QUERY)
        self.assertTrue(answer['allocation_requests'])
        found = self.count()
        self.assertEqual((2, 2), (found['fits'], found['at_most']))
        body = {}
        slots = itertools.cycle(range(4))
        for _copy in range(found['fits']):
            used = {}
            for _group in range(3):
                used[gpu(next(slots))] = {'resources': {'VGPU': 1}}
            body[str(uuid_lib.uuid4())] = {
                'allocations': used, 'project_id': 'p', 'user_id': 'u',
                'consumer_generation': None}
        self.api('POST', '/allocations', version='1.28', body=body)
        answer = self.api('GET', '/allocation_candidates?' + self.QUERY)
        self.assertEqual([], answer['allocation_requests'])

    def count(self):
        """The evaluation's range for the tree, as read from Placement."""
        records = []
        providers = self.api('GET', '/resource_providers?in_tree=' + HOST1,
                             version='1.14')['resource_providers']
        for provider in providers:
            path = '/resource_providers/%s/' % provider['uuid']
            records.append(evaluation.provider_record(provider, {
                what: self.api('GET', path + what)[what]
                for what, _kind in evaluation.READS}))
        request = evaluation.Request.from_query(
            dict(item.split('=', 1) for item in self.QUERY.split('&')),
            '1.39')
        found = evaluation.fit(request, records)
        return {'fits': found.fits, 'at_most': found.at_most}


def numa(index):
    return '22222222-2222-4222-8222-0000000002%02d' % index


class TestReachableGroups(base.TestCase):
    """Request groups typed as for allocation candidate list, reached.

    A host with memory, two identical NUMA nodes of 8 VCPU, each with a
    GPU of 3 VGPU below it; a request of memory on any provider and two
    groups, isolated, within one NUMA node's subtree (``same_subtree``):
    2 VCPU and 1 VGPU. Three per NUMA node (its GPU), six in all. The
    test writes ``fits`` copies as one POST /allocations, three on each
    node, and asks Placement for one more.
    """

    GROUPS = ('--resource', 'MEMORY_MB=1024', '--group', '_CPU',
              '--resource', 'VCPU=2', '--group', '_GPU', '--resource',
              'VGPU=1', '--group-policy', 'isolate', '--same-subtree',
              '_CPU,_GPU')
    QUERY = ('resources=MEMORY_MB:1024&resources_CPU=VCPU:2'
             '&resources_GPU=VGPU:1&group_policy=isolate'
             '&same_subtree=_CPU,_GPU')

    def setUp(self):
        super().setUp()
        tests.create_provider(self, HOST1, 'host1',
                              inventories={'MEMORY_MB': 16384})
        for index in range(2):
            tests.create_provider(self, numa(index), 'numa%d' % index,
                                  parent=HOST1, inventories={'VCPU': 8})
            tests.create_provider(self, gpu(index), 'gpu%d' % index,
                                  parent=numa(index),
                                  inventories={'VGPU': 3})

    def fit(self, version='1.39'):
        return self.ok('resource', 'provider', 'capacity', 'fit',
                       *self.GROUPS, '-f', 'json', version=version)

    def test_fits_is_placed_and_nothing_more(self):
        rows = self.fit()
        self.assertEqual(
            [{'resource_provider': HOST1, 'name': 'host1', 'fits': 6,
              'at_most': 6, 'limited_by': 'VGPU'}], rows)
        # The default version is negotiated up to what the request needs.
        self.assertEqual(rows, self.fit(version=None))
        self.assertTrue(self.api('GET', '/allocation_candidates?'
                                 + self.QUERY)['allocation_requests'])
        body = {}
        for copy in range(rows[0]['fits']):
            node = copy % 2
            body[str(uuid_lib.uuid4())] = {
                'allocations': {
                    HOST1: {'resources': {'MEMORY_MB': 1024}},
                    numa(node): {'resources': {'VCPU': 2}},
                    gpu(node): {'resources': {'VGPU': 1}}},
                'project_id': 'p', 'user_id': 'u',
                'consumer_generation': None}
        self.api('POST', '/allocations', version='1.28', body=body)
        answer = self.api('GET', '/allocation_candidates?' + self.QUERY)
        self.assertEqual([], answer['allocation_requests'])
        after = self.fit()
        self.assertEqual((0, 0), (after[0]['fits'], after[0]['at_most']))

    def test_same_subtree_bounds_the_count(self):
        # numa1's VCPU all used: gpu1's VGPU has no VCPU in its subtree.
        # Without --same-subtree the copies would take numa0's VCPU with
        # either GPU's VGPU: four, not three.
        tests.allocate(self, str(uuid_lib.uuid4()), {numa(1): {'VCPU': 8}})
        rows = self.fit()
        # The true count is 3 (written below, then no more); at_most is a
        # bound that does not see the subtrees.
        self.assertEqual(3, rows[0]['fits'])
        self.assertGreaterEqual(rows[0]['at_most'], 3)
        loose = self.ok('resource', 'provider', 'capacity', 'fit',
                        *self.GROUPS[:-2], '-f', 'json', version='1.39')
        self.assertEqual((4, 4), (loose[0]['fits'], loose[0]['at_most']))
        body = {}
        for _copy in range(3):
            body[str(uuid_lib.uuid4())] = {
                'allocations': {
                    HOST1: {'resources': {'MEMORY_MB': 1024}},
                    numa(0): {'resources': {'VCPU': 2}},
                    gpu(0): {'resources': {'VGPU': 1}}},
                'project_id': 'p', 'user_id': 'u',
                'consumer_generation': None}
        self.api('POST', '/allocations', version='1.28', body=body)
        answer = self.api('GET', '/allocation_candidates?' + self.QUERY)
        self.assertEqual([], answer['allocation_requests'])


NOVA = 'http://nova.test/v2.1'
# A Nova aggregate of zone az-lost that Placement has never been told of.
LOST = 'dddddddd-dddd-4ddd-8ddd-000000000009'
SMALL = {'id': 'f-small', 'name': 'small', 'vcpus': 2, 'ram': 1024,
         'disk': 0, 'swap': 0, 'OS-FLV-EXT-DATA:ephemeral': 0,
         'os-flavor-access:is_public': True, 'extra_specs': {}}


class TestFitZone(FitCloud):
    """--availability-zone on the real Placement, the compute API mocked.

    Zone az1 is AGG (host1's, mirrored in Placement); zone az-lost is
    LOST, an aggregate that no provider is a member of.
    """

    def setUp(self):
        super().setUp()
        mock = cli.mock_compute(self, NOVA)
        cli.flavors_at(mock, NOVA, SMALL)
        mock.get(NOVA + '/os-aggregates', json={'aggregates': [
            {'id': n, 'name': zone + '-hosts', 'uuid': uuid,
             'availability_zone': zone, 'hosts': [],
             'metadata': {'availability_zone': zone}}
            for n, (zone, uuid) in enumerate(
                [('az1', AGG), ('az-lost', LOST)], 1)]})

    def zone_fit(self, zone, *argv):
        return self.openstack('resource', 'provider', 'capacity', 'fit',
                              '--flavor', 'small', '--availability-zone',
                              zone, *argv, '-f', 'json', version='1.39')

    def test_zone_of_mirrored_aggregates_says_nothing(self):
        out, err, code = self.zone_fit('az1')
        self.assertEqual((0, ''), (code, err))
        self.assertEqual(['host1'], [row['name'] for row in
                                     json.loads(out)])

    def test_zone_whose_aggregates_hold_no_provider_is_said(self):
        line = ("Availability zone 'az-lost': its host aggregates (%s) hold "
                "no resource provider in Placement, so no tree is in the "
                "zone (nova-manage placement sync_aggregates mirrors them)."
                % LOST)
        out, err, code = self.zone_fit('az-lost')
        self.assertEqual((0, [line], []),
                         (code, err.splitlines(), json.loads(out)))
        out, err, code = self.zone_fit('az-lost', '--summary')
        self.assertEqual((0, [line]), (code, err.splitlines()))
        self.assertEqual([(0, 0, 0)], [
            (row['fits'], row['at_most'], row['trees'])
            for row in json.loads(out)])
        # As the same selection without a zone: no tree, exit 0.
        self.assertEqual([], self.fit('--resource', 'VCPU=2',
                                      '--member-of', LOST))
