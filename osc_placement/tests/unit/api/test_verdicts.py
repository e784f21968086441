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

"""Placement's verdict per tree, and ours (``api/verdicts.py``).

What ``allocation candidate explain`` and ``capacity fit`` share, each
class run through both commands, against the two trees of
``clouds.TwoTrees``: a ``--resource-provider`` that names no provider is
refused as ``capacity list`` refuses it (``Trees``); a tree missing from
a cut candidates answer is asked about again within that tree before it
is called "not a candidate" (by ``explain --summary`` too), and where
that request fails, the verdict is not known (``settle()``); where
Placement and the evaluation disagree, Placement's verdict is shown,
without a reason (``reasons()``); an item of the provider list without
its uuid or name is refused.
"""

import json
import types

from oslotest import base as oslo_base
import testscenarios

from osc_placement.api import verdicts
from osc_placement.tests.unit import base
from osc_placement.tests.unit import clouds

load_tests = testscenarios.load_tests_apply_scenarios

URL = base.ENDPOINT
RP1, RP2 = base.RP1, base.RP2


class TestUnknownProvider(clouds.TwoTrees):
    """--resource-provider names a provider, or is refused.

    A value that names no provider of the list is looked up as
    ``capacity list`` looks it up; one Placement does not know is refused
    in its words, and nothing else is read.
    """

    scenarios = [
        ('explain-unknown', {
            'argv': ['allocation', 'candidate', 'explain', '--resource',
                     'VCPU=1'],
            'value': 'aaaaaaaa-aaaa-4aaa-8aaa-00000000000f'}),
        ('explain-name', {
            'argv': ['allocation', 'candidate', 'explain', '--resource',
                     'VCPU=1'],
            'value': 'three'}),
        ('fit-unknown', {
            'argv': ['resource', 'provider', 'capacity', 'fit',
                     '--resource', 'VCPU=1'],
            'value': 'aaaaaaaa-aaaa-4aaa-8aaa-00000000000f'}),
        ('capacity-list', {
            'argv': ['resource', 'provider', 'capacity', 'list'],
            'value': 'aaaaaaaa-aaaa-4aaa-8aaa-00000000000f'}),
    ]

    def test_refused_as_capacity_list_refuses_it(self):
        key = 'name' if self.value == 'three' else 'uuid'
        self.requests_mock.get(
            URL + '/resource_providers?%s=%s' % (key, self.value),
            complete_qs=True, json={'resource_providers': []})
        out, err, code = self.openstack(*self.argv, '--resource-provider',
                                        self.value)
        self.assertEqual(
            ('', "No resource provider with name or UUID '%s' found.\n"
             % self.value, 1), (out, err, code))
        self.assertEqual(
            [], [path for _method, path in self.sent()
                 if '/allocation_candidates' in path
                 or path.startswith('/resource_providers/')])


class TestAnswerOfTheWrongShape(clouds.TwoTrees):
    """A candidates answer of the wrong shape is one line, either command.

    The answer is read as it arrives (``Answer.read()``); what it lacks
    is said as a body read whole says it, and nothing is printed.
    """

    scenarios = testscenarios.multiply_scenarios([
        ('explain', {'argv': ['allocation', 'candidate', 'explain']}),
        ('fit', {'argv': ['resource', 'provider', 'capacity', 'fit']}),
    ], [
        ('no-requests', {'body': {'provider_summaries': {}},
                         'what': "JSON without the 'allocation_requests' "
                                 "key"}),
        ('requests-not-a-list', {
            'body': {'allocation_requests': {}, 'provider_summaries': {}},
            'what': "JSON whose 'allocation_requests' is not a list"}),
        ('summaries-not-an-object', {
            'body': {'allocation_requests': [], 'provider_summaries': []},
            'what': "JSON whose 'provider_summaries' is not an object"}),
        ('a-request-that-is-not-one', {
            'body': {'allocation_requests': [7], 'provider_summaries': {}},
            'what': 'an allocation request that is not one: 7'}),
        ('a-list', {'body': [], 'what': "JSON without the "
                                        "'allocation_requests' key"}),
    ])

    def test_one_line(self):
        self.requests_mock.get(URL + '/allocation_candidates',
                               json=self.body)
        out, err, code = self.openstack(*self.argv, '--resource', 'VCPU=1')
        self.assertEqual(
            ('', 'Invalid response from the Placement API: GET '
             '%s/allocation_candidates?resources=VCPU%%3A1 answered HTTP '
             '200 with %s\n' % (URL, self.what), 1), (out, err, code))


class TestNamedProvider(clouds.TwoTrees):
    """A provider named by name or UUID keeps its tree only.

    A UUID in capitals is not in the list: it is looked up as ``capacity
    list`` looks it up, and Placement (whose database compares UUIDs
    without case) finds the provider.
    """

    scenarios = [('name', {'value': 'two'}), ('uuid', {'value': RP2}),
                 ('upper-case', {'value': RP2.upper()})]

    def setUp(self):
        super().setUp()
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [
                {'allocations': {rp: {'resources': {'VCPU': 1}}}}
                for rp in (RP1, RP2)],
            'provider_summaries': {}})
        self.requests_mock.get(
            URL + '/resource_providers?uuid=' + RP2.upper(),
            complete_qs=True,
            json={'resource_providers': [base.provider(RP2, 'two')]})

    def test_explain(self):
        out, err, code = self.openstack(
            'allocation', 'candidate', 'explain', '--resource', 'VCPU=1',
            '--resource-provider', self.value, '-f', 'value', '-c', 'name')
        self.assertEqual(('two\n', '', 0), (out, err, code))

    def test_fit(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'capacity', 'fit', '--resource',
            'VCPU=1', '--resource-provider', self.value, '-f', 'value')
        self.assertEqual(('%s two 8 8 VCPU\n' % RP2, '', 0), (out, err, code))


class TestCutAnswer(clouds.TwoTrees):
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
        self.assertEqual('%s one 4 4 VCPU\n%s two 4 4 VCPU\n' % (RP1, RP2),
                         out)
        self.assertEqual(2, len(self.candidates_sent()))

    def test_explain_summary_asks_again(self):
        out, err, code = self.openstack(
            'allocation', 'candidate', 'explain', '--resource', 'VCPU=1',
            '--required', 'CUSTOM_GOLD', '--summary', '-f', 'json')
        self.assertEqual(0, code, err)
        # The trees lack the trait: Placement's answer (this fake ignores
        # traits) is what counts, and the evaluation decides what to ask
        # again: only the request without the trait gets a second tree.
        self.assertEqual(
            [{'constraint': '(none: the request as given)',
              'candidates_without_it': 1},
             {'constraint': '--resource VCPU=1',
              'candidates_without_it': None},
             {'constraint': '--required CUSTOM_GOLD',
              'candidates_without_it': 2}], json.loads(out))
        batch = ['/allocation_candidates?resources=VCPU%3A1'
                 '&required=CUSTOM_GOLD',
                 '/allocation_candidates?resources=VCPU%3A1']
        sent = self.candidates_sent()
        if self.parallel != '1':
            # The request as given and the relaxed ones are one batch:
            # eight in flight leave in the order the threads send them.
            batch, sent[:2] = sorted(batch), sorted(sent[:2])
        self.assertEqual(
            batch + ['/allocation_candidates?resources=VCPU%3A1&in_tree='
                     + RP2], sent)


class TestFailedReask(clouds.TwoTrees):
    """A request within a tree that fails gives no verdict, not False.

    ``candidate`` is None (json null) with the reason saying why, ``fits``
    None; the failure is reported after the rows, and the exit code is 1.
    """

    def setUp(self):
        super().setUp()

        def answer(request, context):
            if 'in_tree' in request.qs:
                context.status_code = 503
                return {'errors': [{'status': 503, 'title': 'Down',
                                    'detail': 'Service Unavailable'}]}
            return {'allocation_requests': [{'allocations': {
                RP1: {'resources': {'VCPU': 1}}}}],
                'provider_summaries': {}}
        self.requests_mock.get(URL + '/allocation_candidates', json=answer)

    def test_explain(self):
        out, err, code = self.openstack(
            'allocation', 'candidate', 'explain', '--resource', 'VCPU=1',
            '-f', 'json')
        self.assertEqual(1, code)
        self.assertEqual(
            [(RP1, True, ''),
             (RP2, None, 'not known: the candidates request within the '
              'tree failed')],
            [(row['resource_provider'], row['candidate'], row['reason'])
             for row in json.loads(out)])
        self.assertIn('Failed to read tree %s: ' % RP2, err)
        self.assertTrue(err.endswith('Failed to read 1 of 1 trees.\n'), err)

    def test_explain_value_of_candidate(self):
        out, _err, code = self.openstack(
            'allocation', 'candidate', 'explain', '--resource', 'VCPU=1',
            '-f', 'value', '-c', 'candidate')
        self.assertEqual(('True\nNone\n', 1), (out, code))

    def test_explain_summary(self):
        out, _err, code = self.openstack(
            'allocation', 'candidate', 'explain', '--resource', 'VCPU=1',
            '--summary', '-f', 'json')
        self.assertEqual(1, code)
        self.assertIsNone(json.loads(out)[0]['candidates_without_it'])

    def test_fit(self):
        out, _err, code = self.openstack(
            'resource', 'provider', 'capacity', 'fit', '--resource',
            'VCPU=2', '-f', 'json')
        self.assertEqual(1, code)
        self.assertEqual(
            [(RP1, 4), (RP2, None)],
            [(row['resource_provider'], row['fits'])
             for row in json.loads(out)])


class TestDisagreement(clouds.TwoTrees):
    """Placement takes a tree the evaluation rules out: never a guess.

    The second tree has too little VCPU for the request, yet the answer
    gives it a candidate: explain shows Placement's verdict with no
    reason, and fit no count, but ``unexplained``.
    """

    def setUp(self):
        super().setUp()
        small = dict(clouds.TREE_INVENTORY['VCPU'], total=1, max_unit=1)
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


class TestProviderListShape(clouds.TwoTrees):
    """An item of the provider list without its uuid or name is refused.

    One line naming the request; no provider is read. The links and
    other fields of an item are not needed (and not kept).
    """

    scenarios = [
        ('fit', {'argv': ['resource', 'provider', 'capacity', 'fit',
                          '--resource', 'VCPU=1']}),
        ('explain', {'argv': ['allocation', 'candidate', 'explain',
                              '--resource', 'VCPU=1']}),
    ]

    def test_item_without_uuid(self):
        self.requests_mock.get(
            URL + '/resource_providers', complete_qs=True,
            json={'resource_providers': [{'name': 'one', 'generation': 1}]})
        out, err, code = self.openstack(*self.argv)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            'Invalid response from the Placement API: GET %s/resource_'
            'providers answered HTTP 200 with a provider without its uuid '
            'or name\n' % URL, err)
        self.assertEqual(['/resource_providers'],
                         [path for _method, path in self.sent()])

    def test_links_are_not_needed(self):
        links = [{'rel': 'self', 'href': '/resource_providers/' + RP1}]
        self.requests_mock.get(
            URL + '/resource_providers', complete_qs=True,
            json={'resource_providers': [
                {'uuid': rp, 'name': name, 'generation': 1, 'links': links,
                 'root_provider_uuid': rp, 'parent_provider_uuid': None}
                for rp, name in ((RP1, 'one'), (RP2, 'two'))]})
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [], 'provider_summaries': {}})
        out, err, code = self.openstack(*self.argv, '-f', 'value', '-c',
                                        'name')
        self.assertEqual(('one\ntwo\n', '', 0), (out, err, code))


class TestAnchoredRequests(oslo_base.BaseTestCase):
    """A request of several trees counts for the tree it is anchored in.

    As research_context.anchors_for_sharing_providers: each provider of
    the request in the tree, or a sharing provider of its aggregates.
    """

    def answer(self, *spanning):
        answer = verdicts.Answer.__new__(verdicts.Answer)
        answer.roots, answer.spanning, answer.empty = set(), set(
            frozenset(rps) for rps in spanning), False
        answer.sharing = True
        # Two hosts (each its own tree) and a pool shared with both.
        trees = types.SimpleNamespace(
            root_of={'cn1': 'cn1', 'cn2': 'cn2', 'pool': 'pool'},
            anchors={'pool': ['cn1', 'cn2', 'pool']})
        answer.anchor(trees)
        return answer.roots

    def test_host_and_pool(self):
        self.assertEqual({'cn1'}, self.answer(['cn1', 'pool']))

    def test_pool_alone_counts_for_every_tree_it_shares_with(self):
        self.assertEqual({'cn1', 'cn2', 'pool'}, self.answer(['pool']))

    def test_one_host_alone_is_not_moved(self):
        self.assertEqual(set(), self.answer(['cn1']))

    def test_two_hosts_are_no_tree(self):
        self.assertEqual(set(), self.answer(['cn1', 'cn2', 'pool']))
