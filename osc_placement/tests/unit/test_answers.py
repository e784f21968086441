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

"""``allocation candidate explain`` and ``capacity fit``: the requests.

Against requests-mock: bad shapes are refused before any request, and a
tree missing from a cut candidates answer is asked about again within
that tree before it is called "not a candidate".
"""

import json

import testscenarios

from osc_placement.tests.unit import base

load_tests = testscenarios.load_tests_apply_scenarios

URL = base.ENDPOINT
RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
RP2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
INVENTORY = {'VCPU': {'total': 8, 'reserved': 0, 'allocation_ratio': 1.0,
                      'min_unit': 1, 'max_unit': 8, 'step_size': 1}}


class TestBadShape(base.TestCase):
    """capacity fit refuses a bad shape in one line, sending nothing."""

    api_version = '1.39'
    scenarios = [
        ('zero', {'argv': ['--resource', 'VCPU=0'],
                  'error': "--resource 'VCPU=0': amount: '0' must be an "
                           "integer of at least 1."}),
        ('negative', {'argv': ['--resource', 'VCPU=-1']}),
        ('not-a-number', {'argv': ['--resource', 'VCPU=x']}),
        ('twice', {'argv': ['--resource', 'VCPU=1', '--resource', 'VCPU=2'],
                   'error': "--resource 'VCPU=2': VCPU is given twice; "
                            "give each resource class once."}),
        ('none', {'argv': [],
                  'error': 'At least one --resource must be specified.'}),
        ('no-class', {'argv': ['--resource', '=4']}),
    ]
    error = None

    def test_bad_shape(self):
        out, err, code = self.openstack('resource', 'provider', 'capacity',
                                        'fit', *self.argv)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(1, len(err.splitlines()), err)
        if self.error:
            self.assertEqual(self.error + '\n', err)
        self.assertEqual([], self.sent())


class TwoTrees(base.TestCase):
    """Two trees of one provider each, 8 VCPU, nothing used."""

    api_version = '1.39'

    def setUp(self):
        super().setUp()
        providers = [{'uuid': rp, 'name': name, 'generation': 1,
                      'root_provider_uuid': rp,
                      'parent_provider_uuid': None}
                     for rp, name in ((RP1, 'one'), (RP2, 'two'))]
        self.requests_mock.get(URL + '/resource_providers', complete_qs=True,
                               json={'resource_providers': providers})
        for rp in (RP1, RP2):
            path = URL + '/resource_providers/' + rp
            self.requests_mock.get(path + '/inventories',
                                   json={'inventories': INVENTORY})
            self.requests_mock.get(path + '/usages', json={'usages': {}})
            self.requests_mock.get(path + '/traits', json={'traits': []})
            self.requests_mock.get(path + '/aggregates',
                                   json={'aggregates': []})

    def candidates_sent(self):
        return [path for method, path in self.sent()
                if path.startswith('/allocation_candidates')]


class TestCutAnswer(TwoTrees):
    """A tree the answer lacks is asked about again, within the tree.

    The same output and candidates requests one read at a time or eight.
    """

    scenarios = [(parallel, {'parallel': parallel}) for parallel in
                 ('1', '8')]

    def openstack(self, *argv):
        return super().openstack('--os-placement-parallel', self.parallel,
                                 *argv)

    def setUp(self):
        super().setUp()

        def answer(request, context):
            # As with max_allocation_candidates = 1: the first tree only,
            # unless the request names a tree.
            tree = request.qs.get('in_tree', [RP1.lower()])[0]
            return {'allocation_requests': [{'allocations': {
                tree.lower(): {'resources': {'VCPU': 1}}}}],
                'provider_summaries': {}}
        self.requests_mock.get(URL + '/allocation_candidates', json=answer)

    def test_explain_asks_again(self):
        out, err, code = self.openstack(
            'allocation', 'candidate', 'explain', '--resource', 'VCPU=1',
            '-f', 'value', '-c', 'name', '-c', 'candidate')
        self.assertEqual((0, ''), (code, err))
        self.assertEqual('one True\ntwo True\n', out)
        self.assertEqual(
            ['/allocation_candidates?resources=VCPU%3A1',
             '/allocation_candidates?resources=VCPU%3A1&in_tree=' + RP2],
            self.candidates_sent())

    def test_fit_asks_again(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'capacity', 'fit', '--resource',
            'VCPU=2', '-f', 'value')
        self.assertEqual((0, ''), (code, err))
        self.assertEqual('%s one 4 VCPU\n%s two 4 VCPU\n' % (RP1, RP2), out)
        self.assertEqual(2, len(self.candidates_sent()))


class TestDisagreement(TwoTrees):
    """Placement takes a tree the evaluation rules out: never a guess.

    The second tree has too little VCPU for the request, yet the answer
    gives it a candidate: explain shows Placement's verdict with no
    reason, and fit no count, but ``unexplained``.
    """

    def setUp(self):
        super().setUp()
        small = dict(INVENTORY['VCPU'], total=1, max_unit=1)
        self.requests_mock.get(
            URL + '/resource_providers/%s/inventories' % RP2,
            json={'inventories': {'VCPU': small}})
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [
                {'allocations': {rp: {'resources': {'VCPU': 2}}}}
                for rp in (RP1, RP2)],
            'provider_summaries': {}})

    def test_explain_gives_placements_verdict(self):
        out, err, code = self.openstack(
            'allocation', 'candidate', 'explain', '--resource', 'VCPU=2',
            '--long', '-f', 'json')
        self.assertEqual((0, ''), (code, err))
        self.assertEqual(
            [(RP1, True, '', []), (RP2, True, '', [])],
            [(row['resource_provider'], row['candidate'], row['reason'],
              row['reasons']) for row in json.loads(out)])

    def test_fit_gives_no_count(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'capacity', 'fit', '--resource',
            'VCPU=2', '-f', 'json')
        self.assertEqual((0, ''), (code, err))
        self.assertEqual(
            [(RP1, 4, 'VCPU'), (RP2, None, 'unexplained')],
            [(row['resource_provider'], row['fits'], row['limited_by'])
             for row in json.loads(out)])
