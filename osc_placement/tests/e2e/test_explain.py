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

"""``allocation candidate explain`` through the installed ``openstack``.

On the sample cloud (compute-1, a tree with two NUMA nodes and their SR-IOV
cards; compute-2, one provider), the reasons of the request-wide rules in
their words, and Placement's verdict.
"""

import testscenarios

from osc_placement.api import verdicts
from osc_placement.tests.e2e import base
from osc_placement.tests.support import cloud

load_tests = testscenarios.load_tests_apply_scenarios

TWO_NUMA = ['--group', '1', '--resource', 'VCPU=2', '--group', '2',
            '--resource', 'VCPU=2']


class TestExplainTheSampleCloud(base.SandboxTestCase):

    scenarios = [
        ('isolate', {
            'argv': TWO_NUMA + ['--group-policy', 'isolate'],
            'reasons': {
                cloud.COMPUTE1: [],
                cloud.COMPUTE2: ['group 1 and group 2 need separate '
                                 'providers (group_policy isolate) and '
                                 'compete for compute-2']}}),
        ('any-of', {
            'argv': ['--resource', 'VCPU=1', '--required',
                     'HW_CPU_X86_AVX512F,CUSTOM_NOPE_X'],
            'reasons': {
                cloud.COMPUTE1: ['lacks any of CUSTOM_NOPE_X, '
                                 'HW_CPU_X86_AVX512F'],
                cloud.COMPUTE2: ['lacks any of CUSTOM_NOPE_X, '
                                 'HW_CPU_X86_AVX512F']}}),
        ('forbidden-aggregate', {
            'argv': ['--resource', 'VCPU=1', '--member-of',
                     '!' + cloud.AGGREGATE],
            'reasons': None}),
    ]

    def test_reasons_and_verdict(self):
        self.cli.ok('trait', 'create', 'CUSTOM_NOPE_X')
        rows = self.cli.ok('allocation', 'candidate', 'explain',
                           *self.argv, '--long', '-f', 'json',
                           version='1.39')
        listed = self.cli.ok('allocation', 'candidate', 'list', *self.argv,
                             '--long', '-f', 'json', version='1.39')
        roots = {row['root provider'] for row in listed}
        self.assertEqual(roots, {row['resource_provider'] for row in rows
                                 if row['candidate']})
        for row in rows:
            self.assertEqual(not row['reasons'], row['candidate'], row)
            self.assertNotIn('unexplained', row['reasons'])
        if self.reasons is not None:
            self.assertEqual(self.reasons, {
                row['resource_provider']: row['reasons'] for row in rows})
        else:
            members = [row for row in rows if not row['candidate']]
            self.assertTrue(members)
            for row in members:
                self.assertEqual('in forbidden aggregate ' + cloud.AGGREGATE,
                                 row['reason'])


class TestExplainOnPostgreSQL(base.ProductionTestCase):
    """The read paths of explain and capacity fit on PostgreSQL.

    Placement 16.0.0 fails there some queries SQLite takes (a forbidden
    trait in ``GET /allocation_candidates``): the commands' verdicts
    stay Placement's, or say in one line what Placement could not
    answer.
    """

    def test_explain_and_fit_agree_with_the_candidates(self):
        argv = ['--resource', 'VCPU=1', '--required', 'HW_CPU_X86_AVX512F']
        rows = self.cli.ok('allocation', 'candidate', 'explain', *argv,
                           '-f', 'json', version='1.39')
        listed = self.cli.ok('allocation', 'candidate', 'list', *argv,
                             '--long', '-f', 'json', version='1.39')
        self.assertEqual(
            {row['root provider'] for row in listed},
            {row['resource_provider'] for row in rows if row['candidate']})
        fit = self.cli.ok('resource', 'provider', 'capacity', 'fit', *argv,
                          '-f', 'json', version='1.39')
        self.assertEqual(
            {row['root provider'] for row in listed},
            {row['resource_provider'] for row in fit if row['fits']})

    def test_a_forbidden_trait(self):
        argv = ['--resource', 'VCPU=1', '--forbidden', 'HW_CPU_X86_AVX512F']
        for command in (('allocation', 'candidate', 'explain'),
                        ('resource', 'provider', 'capacity', 'fit')):
            res = self.cli.run(*command, *argv, '-f', 'json',
                               version='1.39')
            self.assertEqual(
                (1, '', [verdicts.FORBIDDEN_TRAIT_FAULT]),
                (res.returncode, res.stdout, res.stderr.splitlines()),
                command)
