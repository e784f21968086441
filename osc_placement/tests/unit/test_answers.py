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

Against requests-mock: bad shapes are refused before any request, a
``--resource-provider`` that names no provider is refused as ``capacity
list`` refuses it, and a tree missing from a cut candidates answer is
asked about again within that tree before it is called "not a
candidate" (by ``explain --summary`` too); where that request fails, the
verdict is not known.
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


class TestUnknownProvider(TwoTrees):
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


class TestNamedProvider(TwoTrees):
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
        self.assertEqual(('%s two 8 VCPU\n' % RP2, '', 0), (out, err, code))


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
        self.assertEqual(
            ['/allocation_candidates?resources=VCPU%3A1'
             '&required=CUSTOM_GOLD',
             '/allocation_candidates?resources=VCPU%3A1',
             '/allocation_candidates?resources=VCPU%3A1&in_tree=' + RP2],
            self.candidates_sent())


class TestFailedReask(TwoTrees):
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


class TestReasonsAsText(TwoTrees):
    """explain --long: a list in json and yaml, text elsewhere."""

    def setUp(self):
        super().setUp()
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [], 'provider_summaries': {}})

    def explain(self, *argv):
        out, err, code = self.openstack(
            'allocation', 'candidate', 'explain', '--resource', 'VCPU=9',
            '--required', 'CUSTOM_GOLD', '--long', '-c', 'reasons', *argv)
        self.assertEqual((0, ''), (code, err))
        return out

    def test_value_and_csv_print_the_text(self):
        reasons = [row['reasons'] for row in json.loads(
            self.explain('-f', 'json'))]
        self.assertLess(1, len(reasons[0]))
        self.assertEqual(
            ''.join('%s\n' % '; '.join(found) for found in reasons),
            self.explain('-f', 'value'))
        self.assertEqual(
            '"reasons"\n' + ''.join('"%s"\n' % '; '.join(found)
                                    for found in reasons),
            self.explain('-f', 'csv'))


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


class TestOpenMetricsColumns(TwoTrees):
    """-f openmetrics writes every metric: -c and --sort-column refused.

    One line, exit 1, before any request (the formatter used to guess its
    metrics from the columns it was handed, and failed on a KeyError).
    """

    scenarios = [
        ('%s %s %s' % (command, flag, column),
         {'argv': argv + [flag, column], 'flag': flag})
        for command, argv in (
            ('list', ['resource', 'provider', 'capacity', 'list']),
            ('list-summary', ['resource', 'provider', 'capacity', 'list',
                              '--summary']),
            ('fit', ['resource', 'provider', 'capacity', 'fit',
                     '--resource', 'VCPU=1']))
        for flag, column in (('-c', 'free'), ('-c', 'fits'),
                             ('--sort-column', 'name'))]

    def test_refused(self):
        out, err, code = self.openstack(*self.argv, '-f', 'openmetrics')
        self.assertEqual(
            ('', '%s cannot be used with -f openmetrics: it writes every '
             'metric of the command.\n' % self.flag, 1), (out, err, code))
        self.assertEqual([], self.sent())


class TestOpenMetricsShape(TwoTrees):
    """The shape label: the whole request, one canonical text.

    The same request typed in another order or spelling gives the same
    series; traits, aggregates and the tree are part of it.
    """

    scenarios = [
        ('plain', {'argv': [['--resource', 'VCPU=1', '--resource',
                             'MEMORY_MB=64'],
                            ['--resource', 'MEMORY_MB=064', '--resource',
                             'VCPU=01']],
                   'label': 'MEMORY_MB=64,VCPU=1'}),
        ('traits', {'argv': [['--resource', 'VCPU=1', '--required',
                              'CUSTOM_B', '--required', 'CUSTOM_A',
                              '--forbidden', 'CUSTOM_Z,CUSTOM_Y'],
                             ['--resource', 'VCPU=1', '--forbidden',
                              'CUSTOM_Y', '--required', 'CUSTOM_A',
                              '--forbidden', 'CUSTOM_Z', '--required',
                              'CUSTOM_B']],
                    'label': 'VCPU=1;required=CUSTOM_A,CUSTOM_B;'
                             'forbidden=CUSTOM_Y,CUSTOM_Z'}),
        ('any-of', {'argv': [['--resource', 'VCPU=1', '--required',
                              'CUSTOM_B,CUSTOM_A'],
                             ['--required', 'CUSTOM_A,CUSTOM_B',
                              '--resource', 'VCPU=1']],
                    'label': 'VCPU=1;required=in:CUSTOM_A,CUSTOM_B'}),
        ('aggregates', {'argv': [['--resource', 'VCPU=1', '--member-of',
                                  base.AGG2 + ',' + base.AGG1],
                                 ['--member-of', base.AGG1 + ',' + base.AGG2,
                                  '--resource', 'VCPU=1']],
                        'label': 'VCPU=1;member_of=in:%s,%s'
                                 % (base.AGG1, base.AGG2)}),
        ('root-required', {'argv': [['--resource', 'VCPU=1',
                                     '--root-required', 'CUSTOM_B,!CUSTOM_Z',
                                     '--root-required', 'CUSTOM_A'],
                                    ['--root-required', 'CUSTOM_A,CUSTOM_B',
                                     '--resource', 'VCPU=1',
                                     '--root-required', '!CUSTOM_Z']],
                           'label': 'VCPU=1;root_required=!CUSTOM_Z,CUSTOM_A,'
                                    'CUSTOM_B'}),
    ]

    def setUp(self):
        super().setUp()
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [], 'provider_summaries': {}})
        # Every provider is in both aggregates.
        providers = {'resource_providers': [base.provider(RP1, 'one'),
                                            base.provider(RP2, 'two')]}
        for argv in self.argv:
            if '--member-of' in argv:
                self.requests_mock.get(
                    URL + '/resource_providers?member_of=in:%s' % argv[
                        argv.index('--member-of') + 1],
                    complete_qs=True, json=providers)

    def test_one_label(self):
        found = []
        for argv in self.argv:
            out, err, code = self.openstack(
                'resource', 'provider', 'capacity', 'fit', *argv, '-f',
                'openmetrics')
            self.assertEqual((0, ''), (code, err))
            found.append(out)
        self.assertEqual(found[0], found[1])
        self.assertIn('openstack_placement_cloud_fit{shape="%s"} 0\n'
                      % self.label, found[0])


class TestFitSelection(TwoTrees):
    """--in-tree and --member-of choose the trees that get a row.

    The trees of the providers that the provider list returns with the
    same filters, as capacity list selects providers; the others are not
    read. --required shapes only: every tree keeps its row.
    """

    scenarios = [
        ('in-tree', {'argv': ['--in-tree', RP2],
                     'query': 'in_tree=' + RP2}),
        ('member-of', {'argv': ['--member-of', base.AGG1],
                       'query': 'member_of=in%3A' + base.AGG1}),
    ]

    def setUp(self):
        super().setUp()
        self.requests_mock.get(
            URL + '/resource_providers?' + self.query, complete_qs=True,
            json={'resource_providers': [base.provider(RP2, 'two')]})
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [{'allocations': {
                RP2: {'resources': {'VCPU': 1}}}}],
            'provider_summaries': {}})
        self.requests_mock.get(URL + '/resource_providers/%s/aggregates'
                               % RP2, json={'aggregates': [base.AGG1]})

    def test_rows(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'capacity', 'fit', '--resource',
            'VCPU=1', *self.argv, '-f', 'value')
        self.assertEqual(('%s two 8 VCPU\n' % RP2, '', 0), (out, err, code))
        self.assertIn(('GET', '/resource_providers?' + self.query),
                      self.sent())
        self.assertFalse([path for _method, path in self.sent()
                          if path.startswith('/resource_providers/' + RP1)])

    def test_summary_and_metrics(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'capacity', 'fit', '--resource',
            'VCPU=1', *self.argv, '--summary', '-f', 'value')
        self.assertEqual(('8 1 VCPU\n', '', 0), (out, err, code))
        out, err, code = self.openstack(
            'resource', 'provider', 'capacity', 'fit', '--resource',
            'VCPU=1', *self.argv, '-f', 'openmetrics')
        self.assertEqual(1, out.count('openstack_placement_fit{'), out)


class TestFitShapeKeepsRows(TwoTrees):
    """--required and --forbidden shape the request: every row stays.

    A tree without the trait keeps its row, with fits 0 and the reason.
    """

    def setUp(self):
        super().setUp()
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [], 'provider_summaries': {}})

    def test_rows(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'capacity', 'fit', '--resource',
            'VCPU=1', '--required', 'CUSTOM_GOLD', '-f', 'json')
        self.assertEqual((0, ''), (code, err))
        self.assertEqual(
            [('one', 0), ('two', 0)],
            [(row['name'], row['fits']) for row in json.loads(out)])
        self.assertEqual(2, len([row for row in json.loads(out)
                                 if 'CUSTOM_GOLD' in row['limited_by']]))


class TestProviderListShape(TwoTrees):
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
