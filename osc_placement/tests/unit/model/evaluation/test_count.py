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

"""How many more allocations of a request's shape a tree can take.

``fit()`` of ``evaluation/count.py``, on the trees of the core review.
"""

from oslotest import base
import testscenarios

from osc_placement.model import evaluation
from osc_placement.tests.unit.model.evaluation.trees import AGG1
from osc_placement.tests.unit.model.evaluation.trees import host
from osc_placement.tests.unit.model.evaluation.trees import inv
from osc_placement.tests.unit.model.evaluation.trees import NUMA0
from osc_placement.tests.unit.model.evaluation.trees import numa_tree
from osc_placement.tests.unit.model.evaluation.trees import OTHER
from osc_placement.tests.unit.model.evaluation.trees import ROOT
from osc_placement.tests.unit.model.evaluation.trees import rp
from osc_placement.tests.unit.model.evaluation.trees import VCPU16

load_tests = testscenarios.load_tests_apply_scenarios


def fit(count, limited_by, fits=None, gap=''):
    """An exact Fit, or fits below the bound ``count``."""
    return evaluation.Fit(count if fits is None else fits, count,
                          limited_by, gap)


# The trees of the core review: a host whose child has the memory...
MEMORY_CHILD = [
    rp(ROOT, 'cn1', inventories={'VCPU': inv(8), 'MEMORY_MB': inv(1024)}),
    rp(NUMA0, 'cn1_mem', parent=ROOT,
       inventories={'MEMORY_MB': inv(8192)})]
# ...and a small child with the trait beside a big one without.
SMALL_GOLD = numa_tree(numa0={'inventories': {'VCPU': inv(2)},
                              'traits': ['CUSTOM_GOLD']},
                       numa1={'inventories': {'VCPU': inv(8)}})
# Memory on the root and the gold NUMA node, VCPU on both NUMA nodes.
GOLD_SPLIT = numa_tree(root={'inventories': {'MEMORY_MB': inv(1024)}},
                       numa0={'inventories': {'VCPU': inv(4),
                                              'MEMORY_MB': inv(1024)},
                              'traits': ['CUSTOM_GOLD']},
                       numa1={'inventories': {'VCPU': inv(4)}})
# A host without disk, and a pool of its aggregate (a sharing provider
# of another tree).
POOLED = [rp(ROOT, 'cn1', inventories={'VCPU': inv(8)}, aggregates=[AGG1]),
          dict(rp(OTHER, 'pool1', inventories={'DISK_GB': inv(100)},
                  traits=['MISC_SHARES_VIA_AGGREGATE'], aggregates=[AGG1]),
               shared=True, anchors=4)]


class TestFit(base.BaseTestCase):

    scenarios = [
        ('one_class', dict(
            tree=host(inventories={'VCPU': inv(16)}, usages={'VCPU': 4}),
            query={'resources': 'VCPU:4'}, version='1.10',
            fit=fit(3, 'VCPU'))),
        ('smallest_class', dict(
            tree=host(inventories={'VCPU': inv(16), 'MEMORY_MB': inv(2048)}),
            query={'resources': 'VCPU:4,MEMORY_MB:1024'}, version='1.10',
            fit=fit(2, 'MEMORY_MB'))),
        ('ratio', dict(
            tree=host(inventories={'VCPU': inv(10, reserved=1, ratio=1.5)}),
            query={'resources': 'VCPU:2'}, version='1.10',
            fit=fit(6, 'VCPU'))),
        ('step_size', dict(
            tree=host(inventories={'DISK_GB': inv(100, step=20)}),
            query={'resources': 'DISK_GB:30'}, version='1.10',
            fit=fit(0, 'DISK_GB: 30 requested, not a multiple of step_size '
                       '20'))),
        ('full', dict(
            tree=host(**VCPU16), query={'resources': 'VCPU:4'},
            version='1.10',
            fit=fit(0, 'VCPU: 4 requested, 2 free (capacity 16, used 14)'))),
        ('over_committed', dict(
            tree=host(inventories={'VCPU': inv(4), 'MEMORY_MB': inv(64)},
                      usages={'VCPU': 6}),
            query={'resources': 'MEMORY_MB:1'}, version='1.10',
            fit=fit(64, 'MEMORY_MB'))),
        ('numa_nodes_summed', dict(
            tree=numa_tree(numa0={'inventories': {'VCPU': inv(4)}},
                           numa1={'inventories': {'VCPU': inv(5)}}),
            query={'resources': 'VCPU:2'}, version='1.29',
            fit=fit(4, 'VCPU'))),
        # From 1.29 the classes come from any provider: independent.
        ('classes_apart', dict(
            tree=numa_tree(root={'inventories': {'MEMORY_MB': inv(4096)}},
                           numa0={'inventories': {'VCPU': inv(4)}},
                           numa1={'inventories': {'VCPU': inv(6)}}),
            query={'resources': 'VCPU:2,MEMORY_MB:1024'}, version='1.29',
            fit=fit(4, 'MEMORY_MB'))),
        ('group_traits', dict(
            tree=numa_tree(numa0={'inventories': {'VCPU': inv(4)},
                                  'traits': ['CUSTOM_FAST']},
                           numa1={'inventories': {'VCPU': inv(8)}}),
            query={'resources1': 'VCPU:2', 'required1': 'CUSTOM_FAST',
                   'group_policy': 'none'},
            version='1.29', fit=fit(2, 'VCPU'))),
        ('group_aggregates', dict(
            tree=numa_tree(numa0={'inventories': {'VCPU': inv(4)}},
                           numa1={'inventories': {'VCPU': inv(8)},
                                  'aggregates': [AGG1]}),
            query={'resources1': 'VCPU:2', 'member_of1': '!' + AGG1,
                   'group_policy': 'none'},
            version='1.32', fit=fit(2, 'VCPU'))),
        # Before 1.29 one provider serves the whole allocation: the
        # child's memory is no use to the host's VCPU.
        ('one_provider_before_1_29', dict(
            tree=MEMORY_CHILD,
            query={'resources': 'VCPU:2,MEMORY_MB:1024'}, version='1.28',
            fit=fit(1, 'MEMORY_MB'))),
        # A numbered group too: per provider, the smallest over the
        # classes.
        ('one_provider_group', dict(
            tree=MEMORY_CHILD,
            query={'resources1': 'VCPU:2,MEMORY_MB:1024'}, version='1.29',
            fit=fit(1, 'MEMORY_MB'))),
        ('one_provider_each_summed', dict(
            tree=numa_tree(numa0={'inventories': {'VCPU': inv(4),
                                                  'MEMORY_MB': inv(4096)}},
                           numa1={'inventories': {'VCPU': inv(8),
                                                  'MEMORY_MB': inv(1024)}}),
            query={'resources1': 'VCPU:2,MEMORY_MB:1024'}, version='1.29',
            fit=fit(3, 'VCPU'))),
        # One class: the provider that serves it holds the trait itself.
        ('trait_on_the_small_child', dict(
            tree=SMALL_GOLD,
            query={'resources': 'VCPU:2', 'required': 'CUSTOM_GOLD'},
            version='1.29', fit=fit(1, 'VCPU'))),
        # A trait that one class's providers all have holds whatever the
        # other classes choose: still exact.
        ('trait_on_every_provider_of_a_class', dict(
            tree=numa_tree(root={'inventories': {'MEMORY_MB': inv(4096)},
                                 'traits': ['CUSTOM_GOLD']},
                           numa0={'inventories': {'VCPU': inv(4)}},
                           numa1={'inventories': {'VCPU': inv(6)}}),
            query={'resources': 'VCPU:2,MEMORY_MB:1024',
                   'required': 'CUSTOM_GOLD'},
            version='1.29', fit=fit(4, 'MEMORY_MB'))),
        # A trait held by some providers of two classes: a bound, at most
        # the slots on providers with the trait.
        ('trait_held_together', dict(
            tree=GOLD_SPLIT,
            query={'resources': 'VCPU:1,MEMORY_MB:512',
                   'required': 'CUSTOM_GOLD'},
            version='1.29', fit=fit(4, 'MEMORY_MB'))),
        ('trait_held_together_tightened', dict(
            tree=numa_tree(root={'inventories': {'MEMORY_MB': inv(4096)}},
                           numa0={'inventories': {'VCPU': inv(2)},
                                  'traits': ['CUSTOM_GOLD']},
                           numa1={'inventories': {'VCPU': inv(8)}}),
            query={'resources': 'VCPU:2,MEMORY_MB:512',
                   'required': 'CUSTOM_GOLD'},
            version='1.29', fit=fit(1, 'VCPU'))),
        # A pool of the host's aggregate serves its disk, counted as if
        # the host alone drew from it, and named where it bounds.
        ('sharing_pool_bounds', dict(
            tree=POOLED, query={'resources': 'VCPU:1,DISK_GB:30'},
            version='1.29',
            fit=fit(3, 'DISK_GB from pool pool1 (shared by 4 trees)'))),
        ('sharing_pool_before_1_29', dict(
            tree=POOLED, query={'resources': 'VCPU:1,DISK_GB:30'},
            version='1.28',
            fit=fit(3, 'DISK_GB from pool pool1 (shared by 4 trees)'))),
        ('sharing_pool_not_bounding', dict(
            tree=POOLED, query={'resources': 'VCPU:4,DISK_GB:10'},
            version='1.29', fit=fit(2, 'VCPU'))),
    ]

    def test_fit(self):
        request = evaluation.Request.from_query(self.query, self.version)
        self.assertEqual(self.fit, evaluation.fit(
            request, self.tree)._replace(draws=()))


class TestDraws(base.BaseTestCase):
    """What a tree's copies take from a pool, for the cloud's sum."""

    def test_a_pool_the_tree_depends_on(self):
        request = evaluation.Request.from_query(
            {'resources': 'VCPU:1,DISK_GB:30'}, '1.29')
        found = evaluation.fit(request, POOLED)
        self.assertEqual([('pool1', 'DISK_GB', 100, 30, True, 4)], [
            (d.name, d.rc, d.free, d.per_copy, d.sole, d.trees)
            for d in found.draws])

    def test_no_pool_no_draw(self):
        request = evaluation.Request.from_query({'resources': 'VCPU:1'},
                                                '1.29')
        self.assertEqual((), evaluation.fit(request, POOLED[:1]).draws)
