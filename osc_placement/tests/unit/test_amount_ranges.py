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

"""Amounts out of Placement's range: refused before any request (D18).

A zero amount of the candidates stays the server's to judge, as the
recorded case has it.
"""

import testscenarios

from osc_placement.tests.unit import base

load_tests = testscenarios.load_tests_apply_scenarios

URL = base.ENDPOINT
RP1 = base.RP1


class TestAmountsOutOfRange(base.TestCase):
    """Rule D18: one line naming the value and range, and no request."""

    scenarios = [
        ('candidates-negative', {
            'argv': ('allocation', 'candidate', 'list', '--resource',
                     'VCPU=-3'),
            'error': "--resource 'VCPU=-3': amount: -3 is out of range "
                     "(1 to 2147483647)."}),
        ('candidates-huge', {
            'argv': ('allocation', 'candidate', 'list', '--resource',
                     'VCPU=99999999999999999999'),
            'error': "--resource 'VCPU=99999999999999999999': amount: "
                     "99999999999999999999 is out of range (1 to "
                     "2147483647)."}),
        ('candidates-limit', {
            'argv': ('allocation', 'candidate', 'list', '--resource',
                     'VCPU=1', '--limit', '-1'),
            'error': "--limit: '-1' must be an integer of at least 1."}),
        ('allocation-set', {
            'argv': ('resource', 'provider', 'allocation', 'set', base.C1,
                     '--allocation', 'rp=%s,VCPU=-3' % RP1,
                     '--consumer-type', 'INSTANCE') + tuple(base.OWNER),
            'error': "--allocation 'rp=%s,VCPU=-3': amount of VCPU: -3 is "
                     "out of range (1 to 2147483647)." % RP1}),
        ('provider-list', {
            'argv': ('resource', 'provider', 'list', '--resource',
                     'VCPU=2147483648'),
            'error': "--resource 'VCPU=2147483648': amount: 2147483648 is "
                     "out of range (1 to 2147483647)."}),
        ('inventory-set-total', {
            'argv': ('resource', 'provider', 'inventory', 'set', RP1,
                     '--resource', 'VCPU=-3'),
            'error': 'total of --resource VCPU=-3: -3 is out of range (1 to '
                     '2147483647).'}),
        ('inventory-set-reserved', {
            'argv': ('resource', 'provider', 'inventory', 'set', RP1,
                     '--resource', 'VCPU:reserved=3000000000'),
            'error': 'reserved of --resource VCPU:reserved=3000000000: '
                     '3000000000 is out of range (0 to 2147483647).'}),
        ('inventory-class-set', {
            'argv': ('resource', 'provider', 'inventory', 'class', 'set',
                     RP1, 'VCPU', '--total', '8', '--max-unit=-1'),
            'error': '--max-unit: -1 is out of range (1 to 2147483647).'}),
    ]

    def test_refused_before_any_request(self):
        out, err, code = self.openstack(*self.argv, version='1.39')
        self.assertEqual(('', self.error + '\n', 1), (out, err, code))
        self.assertEqual([], self.sent())


class TestZeroAmountsStayServerJudged(base.TestCase):

    def test_zero_is_sent(self):
        self.requests_mock.get(
            URL + '/allocation_candidates',
            **base.error_reply(400, 'JSON does not validate: 0 is less '
                               'than the minimum of 1'))
        out, err, code = self.openstack(
            'allocation', 'candidate', 'list', '--resource', 'VCPU=0',
            version='1.39')
        self.assertEqual(1, code)
        self.assertEqual(
            [('GET', '/allocation_candidates?resources=VCPU%3A0')],
            self.sent())
