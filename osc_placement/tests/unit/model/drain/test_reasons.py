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

"""Why a consumer is not moved (``model/drain/reasons.py``).

Each case: a drained host ``old``, target hosts, one consumer; the
sentence of its row in the plan.
"""

import testscenarios

from oslotest import base

from osc_placement.model.drain import cloud
from osc_placement.model.drain import parts
from osc_placement.model.drain import reasons
from osc_placement.model.drain import search
from osc_placement.tests.unit.model.drain import clouds as c

GOLD = cloud.Need(required=frozenset(['CUSTOM_GOLD']))
OLD = [c.host('old', aggregates=['az1']),
       c.child('old-gpu', 'old', {'VGPU': c.inv(4)}),
       c.pool('nfs', 100, ['az1'])]


def _reason(targets, consumer, others=()):
    cl = c.make(OLD + targets, ['old'], [t.uuid for t in targets
                                         if t.parent is None],
                [consumer] + list(others))
    return {row.consumer: row.reason for row in search.plan(cl).rows}[
        consumer.uuid]


class TestReasons(testscenarios.WithScenarios, base.BaseTestCase):

    scenarios = [
        ('trait', dict(
            targets=[c.host('a'), c.host('b')],
            consumer=c.server('s', {'old': {'VCPU': 1}},
                              needs={'old': GOLD}),
            reason='needs trait CUSTOM_GOLD: 0 of 2 target trees have it')),
        ('forbidden trait', dict(
            targets=[c.host('a', traits=['CUSTOM_SLOW'])],
            consumer=c.server('s', {'old': {'VCPU': 1}}, needs={
                'old': cloud.Need(forbidden=frozenset(['CUSTOM_SLOW']))}),
            reason='forbids trait CUSTOM_SLOW: 0 of 1 target trees are '
                   'without it')),
        ('class on a child', dict(
            targets=[c.host('a'), c.host('b')],
            consumer=c.server('s', {'old': {'VCPU': 1},
                                    'old-gpu': {'VGPU': 1}}),
            reason='needs VGPU=1 on a child provider: 0 of 2 target trees '
                   'have VGPU')),
        ('trait on a child', dict(
            targets=[c.host('a'), c.child('a-gpu', 'a', {'VGPU': c.inv(1)})],
            consumer=c.server('s', {'old-gpu': {'VGPU': 1}},
                              needs={'old-gpu': GOLD}),
            reason='needs trait CUSTOM_GOLD on a child provider: 0 of 1 '
                   'target trees have it')),
        ('class on the root', dict(
            targets=[c.host('a', disk=0)],
            consumer=c.server('s', {'old': {'DISK_GB': 1}}),
            reason='needs DISK_GB=1: 0 of 1 target trees have DISK_GB on '
                   'their root')),
        ('units', dict(
            targets=[c.host('a', inventories={
                'VCPU': c.inv(8, step_size=2)})],
            consumer=c.server('s', {'old': {'VCPU': 3}}),
            reason='needs VCPU=3: 0 of 1 target trees take that amount in '
                   'their units')),
        ('free', dict(
            targets=[c.host('a', used={'VCPU': 7}), c.host('b', vcpu=2)],
            consumer=c.server('s', {'old': {'VCPU': 3}}),
            reason='needs VCPU=3: 0 of 2 target trees have that much free')),
        ('member_of', dict(
            targets=[c.host('a', aggregates=['az2'])],
            consumer=c.server('s', {'old': {'VCPU': 1}},
                              member_of=(frozenset(['az1']),)),
            reason='must be in aggregate az1: 0 of 1 target trees are in '
                   'it')),
        ('sharing provider', dict(
            targets=[c.host('a', aggregates=['az2'])],
            consumer=c.server('s', {'old': {'VCPU': 1},
                                    'nfs': {'DISK_GB': 10}}),
            reason='shares DISK_GB=10 from nfs: 0 of 1 target trees are in '
                   'its aggregates')),
        ('two needs on no one tree', dict(
            targets=[c.host('a', aggregates=['az1']),
                     c.host('b', traits=['CUSTOM_GOLD'])],
            consumer=c.server('s', {'old': {'VCPU': 1}},
                              needs={'old': GOLD},
                              member_of=(frozenset(['az1']),)),
            reason='needs trait CUSTOM_GOLD: 1 of 2 target trees have it, '
                   'none of them in aggregate az1')),
        ('after the other moves', dict(
            targets=[c.host('a', vcpu=4), c.host('b', vcpu=4, memory=1)],
            consumer=c.server('s', {'old': {'VCPU': 2, 'MEMORY_MB': 2}}),
            others=[c.server('big', {'old': {'VCPU': 4,
                                             'MEMORY_MB': 4}})],
            reason='needs VCPU=2: 1 target tree could hold it '
                   'alone, none after the other moves')),
        ('after the other moves, on the trees with its trait', dict(
            targets=[c.host('a', vcpu=8), c.host('g', vcpu=4,
                                                 traits=['CUSTOM_GOLD'])],
            consumer=c.server('s', {'old': {'VCPU': 2}},
                              needs={'old': GOLD}),
            others=[c.server('big', {'old': {'VCPU': 4}},
                             needs={'old': GOLD})],
            reason='needs VCPU=2: 1 target tree (with trait CUSTOM_GOLD) '
                   'could hold it alone, none after the other moves')),
        ('stays', dict(
            targets=[c.host('a')],
            consumer=c.server('s', {'old': {'VCPU': 1}},
                              stays='migration in progress'),
            reason='migration in progress')),
        ('no target', dict(
            targets=[],
            consumer=c.server('s', {'old': {'VCPU': 1}}),
            reason=reasons.NO_TARGET)),
        ('nothing on the drained trees', dict(
            targets=[c.host('a')],
            consumer=c.server('s', {'nfs': {'DISK_GB': 1}}),
            reason=reasons.NOTHING)),
    ]
    others = ()

    def test_reason(self):
        self.assertEqual(self.reason, _reason(self.targets, self.consumer,
                                              self.others))


class TestNames(base.BaseTestCase):

    def test_an_aggregate_is_shown_by_its_name_when_given(self):
        cl = c.make(OLD + [c.host('a', aggregates=['uuid-2'])], ['old'],
                    ['a'], [c.server('s', {'old': {'VCPU': 1}}, member_of=(
                        frozenset(['uuid-1', 'uuid-3']),))])
        cl = cloud.Cloud(cl.providers, cl.drained, cl.targets, cl.consumers,
                         aggregate_names={'uuid-1': 'az1'})
        self.assertEqual('must be in aggregate az1 or uuid-3: 0 of 1 target '
                         'trees are in it', search.plan(cl).rows[0].reason)


class TestAlike(base.BaseTestCase):

    def test_alike_consumers_are_explained_once(self):
        cl = c.make(OLD + [c.host('a')], ['old'], ['a'],
                    [c.server('s1', {'old': {'VCPU': 1}},
                              needs={'old': GOLD}),
                     c.server('s2', {'old': {'VCPU': 1}},
                              needs={'old': GOLD})])
        targets = parts.targets(cl)
        explain = reasons.Reasons(targets, {}, {}, cl.providers)
        one, two = [parts.split(x, cl, frozenset(['old']))
                    for x in cl.consumers]
        first = explain.why(one)
        self.assertEqual(first, explain.why(two))
        self.assertEqual(1, len(explain._known))
