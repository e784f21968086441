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

"""``allocation candidate list`` beyond the recorded contract."""

import json

import testscenarios

from osc_placement.model import candidates
from osc_placement.tests.unit import base
from osc_placement.tests.unit import clouds

URL = base.ENDPOINT
CN = base.RP1
RP1, RP2 = base.RP1, base.RP2
NUMA0 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000011'
NUMA1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000012'
PF = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000021'
AGG = base.AGG1
EMPTY = {'allocation_requests': [], 'provider_summaries': {}}

load_tests = testscenarios.load_tests_apply_scenarios


def summary(resources, traits=(), root=CN, parent=None):
    return {'resources': {rc: {'capacity': c, 'used': u}
                          for rc, (u, c) in resources.items()},
            'traits': list(traits), 'root_provider_uuid': root,
            'parent_provider_uuid': parent}


NESTED = {
    'allocation_requests': [{
        'allocations': {
            NUMA0: {'resources': {'VCPU': 1}},
            PF: {'resources': {'SRIOV_NET_VF': 1}}},
        'mappings': {'_CPU': [NUMA0], '_NET': [PF]}}, {
        'allocations': {
            NUMA1: {'resources': {'VCPU': 1}},
            PF: {'resources': {'SRIOV_NET_VF': 1}}},
        'mappings': {'_CPU': [NUMA1], '_NET': [PF], '_ROOT': [CN]}}],
    'provider_summaries': {
        CN: summary({}, ['COMPUTE_STATUS_ENABLED']),
        NUMA0: summary({'VCPU': (0, 4)}, parent=CN),
        NUMA1: summary({'VCPU': (1, 4)}, parent=CN),
        PF: summary({'SRIOV_NET_VF': (0, 8)}, ['CUSTOM_PHYSNET1'],
                    parent=CN)}}


class CandidateTestCase(base.TestCase):

    api_version = '1.39'
    command = ['allocation', 'candidate', 'list']

    def query(self):
        """The query of the candidates request, decoded, in order."""
        [request] = [r for r in self.requests_sent()
                     if r.path == '/allocation_candidates']
        return request.query


class TestAllocationCandidate(CandidateTestCase):

    def test_query_order_of_every_option(self):
        self.requests_mock.get(URL + '/allocation_candidates', json=EMPTY)
        out, err, code = self.openstack(
            '--limit', '5', '--resource', 'DISK_GB=10',
            '--group', '_CPU', '--resource', 'VCPU=1', '--in-tree', CN,
            '--member-of', '!' + AGG, '--required', 'HW_CPU_X86_AVX',
            '--group', '_NET', '--forbidden', 'CUSTOM_X',
            '--required', 'CUSTOM_PHYSNET1', '--resource', 'SRIOV_NET_VF=1',
            '--group-policy', 'isolate', '--root-required', 'A,!B',
            '--root-required', 'C', '--same-subtree', '_CPU,_NET')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            [('limit', '5'), ('group_policy', 'isolate'),
             ('resources', 'DISK_GB:10'),
             ('resources_CPU', 'VCPU:1'), ('required_CPU', 'HW_CPU_X86_AVX'),
             ('member_of_CPU', '!' + AGG), ('in_tree_CPU', CN),
             ('resources_NET', 'SRIOV_NET_VF:1'),
             ('required_NET', 'CUSTOM_PHYSNET1,!CUSTOM_X'),
             ('root_required', 'A,!B,C'), ('same_subtree', '_CPU,_NET')],
            self.query())
        self.assertEqual('placement 1.39', self.requests_sent()[0].version)

    def test_forbidden_list_forbids_every_trait(self):
        self.requests_mock.get(URL + '/allocation_candidates', json=EMPTY)
        out, err, code = self.openstack(
            '--resource', 'VCPU=1', '--required', 'CUSTOM_R',
            '--forbidden', 'CUSTOM_A,CUSTOM_B')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            [('resources', 'VCPU:1'),
             ('required', 'CUSTOM_R,!CUSTOM_A,!CUSTOM_B')],
            self.query())

    def test_a_group_named_twice_adds_to_the_same_group(self):
        self.requests_mock.get(URL + '/allocation_candidates', json=EMPTY)
        out, err, code = self.openstack(
            '--group', '1', '--resource', 'VCPU=1',
            '--group', '2', '--resource', 'VCPU=2',
            '--group', '1', '--resource', 'MEMORY_MB=64',
            version='1.25')
        self.assertEqual(0, code, err)
        self.assertEqual(
            [('group_policy', 'none'), ('resources1', 'VCPU:1,MEMORY_MB:64'),
             ('resources2', 'VCPU:2')],
            self.query())

    def test_from_1_33_string_group_names_are_sent(self):
        self.requests_mock.get(URL + '/allocation_candidates', json=EMPTY)
        out, err, code = self.openstack(
            '--group', 'COMPUTE_1-a', '--resource', 'VCPU=1',
            version='1.33')
        self.assertEqual(0, code, err)
        self.assertEqual(
            [('group_policy', 'none'), ('resourcesCOMPUTE_1-a', 'VCPU:1')],
            self.query())

    def test_a_resourceless_group_is_allowed_in_same_subtree(self):
        self.requests_mock.get(URL + '/allocation_candidates', json=EMPTY)
        out, err, code = self.openstack(
            '--group', '_CN', '--resource', 'VCPU=1',
            '--group', '_NIC', '--required', 'CUSTOM_PHYSNET1',
            '--same-subtree', '_CN,_NIC', version='1.36')
        self.assertEqual(0, code, err)
        self.assertEqual(
            [('group_policy', 'none'), ('resources_CN', 'VCPU:1'),
             ('required_NIC', 'CUSTOM_PHYSNET1'),
             ('same_subtree', '_CN,_NIC')],
            self.query())

    def test_in_tree_by_name_in_a_group(self):
        self.by_name('compute-1', CN)
        self.requests_mock.get(URL + '/allocation_candidates', json=EMPTY)
        out, err, code = self.openstack(
            '--group', '1', '--resource', 'VCPU=1',
            '--in-tree', 'compute-1', version='1.31')
        self.assertEqual(0, code, err)
        self.assertIn(('in_tree1', CN), self.query())

    def test_long_shows_tree_and_mappings(self):
        self.requests_mock.get(URL + '/allocation_candidates', json=NESTED)
        out, err, code = self.openstack(
            '--group', '_CPU', '--resource', 'VCPU=1',
            '--group', '_NET', '--resource', 'SRIOV_NET_VF=1',
            '--group', '_ROOT', '--required',
            'COMPUTE_STATUS_ENABLED',
            '--same-subtree', '_ROOT,_CPU,_NET',
            '--long', '-f', 'json')
        self.assertEqual(('', 0), (err, code))
        rows = json.loads(out)
        self.assertEqual(
            [(1, 'VCPU=1', NUMA0, CN, CN, '_CPU'),
             (1, 'SRIOV_NET_VF=1', PF, CN, CN, '_NET'),
             (2, 'VCPU=1', NUMA1, CN, CN, '_CPU'),
             (2, 'SRIOV_NET_VF=1', PF, CN, CN, '_NET'),
             # The root satisfies the resourceless group: shown, no allocation.
             (2, '', CN, CN, None, '_ROOT')],
            [(r['#'], r['allocation'], r['resource provider'],
              r['root provider'], r['parent provider'], r['mappings'])
             for r in rows])
        self.assertEqual('CUSTOM_PHYSNET1', rows[1]['traits'])

    def test_without_long_columns_stay_as_recorded(self):
        self.requests_mock.get(URL + '/allocation_candidates', json=NESTED)
        out, err, code = self.openstack(
            '--group', '_CPU', '--resource', 'VCPU=1',
            '--group', '_NET', '--resource', 'SRIOV_NET_VF=1',
            '-f', 'json')
        self.assertEqual(0, code, err)
        rows = json.loads(out)
        self.assertEqual(
            ['#', 'allocation', 'resource provider',
             'inventory used/capacity', 'traits'],
            list(rows[0]))
        self.assertEqual(4, len(rows))

    def test_long_before_mappings_has_no_mappings_column(self):
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [{'allocations': {
                NUMA0: {'resources': {'VCPU': 1}}}}],
            'provider_summaries': {NUMA0: summary({'VCPU': (0, 4)},
                                                  parent=CN)}})
        out, err, code = self.openstack(
            '--resource', 'VCPU=1', '--long', '-f', 'json',
            version='1.29')
        self.assertEqual(0, code, err)
        self.assertEqual(
            [{'#': 1, 'allocation': 'VCPU=1', 'resource provider': NUMA0,
              'inventory used/capacity': 'VCPU=0/4', 'traits': '',
              'root provider': CN, 'parent provider': CN}],
            json.loads(out))

    def test_unnamed_group_in_mappings(self):
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [{
                'allocations': {CN: {'resources': {'VCPU': 1}}},
                'mappings': {'': [CN]}}],
            'provider_summaries': {CN: summary({'VCPU': (0, 4)})}})
        out, err, code = self.openstack(
            '--resource', 'VCPU=1', '--long', '-f', 'json',
            version='1.34')
        self.assertEqual(0, code, err)
        self.assertEqual(
            candidates.UNNAMED_GROUP,
            json.loads(out)[0]['mappings'])

    def test_list_shaped_requests_below_1_12(self):
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [{'allocations': [
                {'resource_provider': {'uuid': CN},
                 'resources': {'VCPU': 1, 'MEMORY_MB': 64}}]}],
            'provider_summaries': {CN: {'resources': {
                'VCPU': {'capacity': 8, 'used': 2},
                'MEMORY_MB': {'capacity': 512, 'used': 0}}}}})
        out, err, code = self.openstack(
            '--resource', 'VCPU=1', '--resource',
            'MEMORY_MB=64', '-f', 'value', version='1.11')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            '1 VCPU=1,MEMORY_MB=64 %s VCPU=2/8,MEMORY_MB=0/512\n' % CN,
            out)

    def test_usage_synopsis_does_not_list_the_extras(self):
        out, err, code = self.openstack('--group-policy', 'x')
        self.assertEqual(2, code)
        for extra in ('--in-tree', '--root-required', '--same-subtree',
                      '--long'):
            self.assertNotIn(extra, err)
        out, err, code = self.openstack('--help')
        for extra in ('--in-tree', '--root-required', '--same-subtree',
                      '--long'):
            self.assertIn(extra, out)


class TestGroupName(CandidateTestCase):

    scenarios = [(repr(name), {'name': name, 'version': '1.32'})
                 for name in ('abc', '0', '01', '-1', '1.5')] + [
        (repr(name), {'name': name, 'version': '1.33'})
        for name in ('a b', 'x' * 65, 'é')]

    def test_group_name(self):
        out, err, code = self.openstack(
            '--resource', 'VCPU=1', '--group', self.name, '--resource',
            'VCPU=1', version=self.version)
        self.assertEqual(('', 1), (out, code))
        if self.version == '1.32':
            self.assertEqual(
                "--group %r: before --os-placement-api-version 1.33 a "
                "group name must be a positive integer (e.g. 1).\n"
                % self.name, err)
        else:
            self.assertIn('--group', err)
            self.assertIn('A-Z, a-z, 0-9, _ and -', err)
        self.assertEqual([], self.requests_mock.request_history)


class TestRejectedValues(CandidateTestCase):

    scenarios = [(' '.join(argv), {'argv': argv, 'words': words})
                 for argv, words in [
                     (['--resource', 'VCPU=abc'],
                      ["'VCPU=abc'", "'abc'", 'not an integer']),
                     (['--resource', 'VCPU=1', '--limit', 'abc'],
                      ['--limit', "'abc'"]),
                     (['--resource', '=1'], ['resource class']),
                     (['--resource', 'VCPU'], ['<resource_class>=<value>']),
                     (['--resource', 'VCPU=1=2'],
                      ['<resource_class>=<value>']),
                     (['--resource', 'VCPU=1', '--root-required', 'A,,B'],
                      ['--root-required', "'A,,B'"]),
                     (['--resource', 'VCPU=1', '--root-required', '!'],
                      ['--root-required', 'trait name']),
                     (['--resource', 'VCPU=1', '--same-subtree', '_A,_B'],
                      ['--same-subtree', "'_A'", '--group']),
                     (['--resource', 'VCPU=1', '--group', '_A', '--resource',
                       'VCPU=1', '--same-subtree', '_A,'],
                      ['--same-subtree', 'empty name']),
                     (['--group', '1', '--required', 'X'],
                      ['At least one --resource']),
                     (['--resource', 'VCPU=1', '--group', '1', '--member-of',
                       AGG], ['Group 1 has no --resource']),
                     (['--required', 'X', '--group', '1', '--resource',
                       'VCPU=1'], ['before the first --group', '--resource']),
                     (['--resource', 'VCPU=1', '--in-tree', CN, '--in-tree',
                       CN], ['--in-tree given 2 times'])]]

    def test_values_are_rejected_before_any_request(self):
        out, err, code = self.openstack(*self.argv)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(1, len(err.splitlines()), err)
        for word in self.words:
            self.assertIn(word, err)
        self.assertEqual([], self.requests_mock.request_history)


class TestGates(CandidateTestCase):

    scenarios = [(' '.join(argv), {'argv': argv, 'since': since})
                 for argv, since in [
                     (['--in-tree', CN], '1.31'),
                     (['--member-of', '!' + AGG], '1.32'),
                     (['--root-required', 'HW_CPU_X86_AVX'], '1.35'),
                     (['--group', '_A', '--resource', 'VCPU=1',
                       '--same-subtree', '_A'], '1.36'),
                     (['--long'], '1.29'),
                     (['--required', 'A,B'], '1.39'),
                     (['--member-of', AGG, '--member-of', AGG], '1.24')]]

    def test_gate_one_version_below(self):
        below = '1.%d' % (int(self.since.split('.')[1]) - 1)
        out, err, code = self.openstack('--resource', 'VCPU=1', *self.argv,
                                        version=below)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual('Operation or argument is not supported with '
                         'version %s; requires at least version %s\n'
                         % (below, self.since), err)
        self.assertEqual([], self.requests_mock.request_history)


class TestNamedGroupAtTheDefaultVersion(CandidateTestCase):
    """The reference's command keeps its default: a named group is refused.

    (``capacity fit`` and ``explain``, which the reference does not have,
    ask for 1.33 instead.)
    """

    def test_refused_before_any_request(self):
        out, err, code = self.openstack('--group', '_A', '--resource',
                                        'VCPU=1', version=base.NEGOTIATE)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            "--group '_A': before --os-placement-api-version 1.33 a group "
            "name must be a positive integer (e.g. 1).\n", err)
        self.assertEqual([], self.requests_mock.request_history)


class TestCandidatesFlavor(clouds.FlavorTestCase):
    """allocation candidate list --flavor."""

    def test_list(self):
        out, err, code = self.openstack(
            'allocation', 'candidate', 'list', '--flavor', 'f-large',
            '--limit', '5', '-f', 'value', '-c', 'resource provider')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual([RP1, RP2], out.splitlines())
        self.assertEqual(
            ['/allocation_candidates?limit=5&resources=DISK_GB:80,'
             'MEMORY_MB:8192,VCPU:4&root_required=!COMPUTE_STATUS_DISABLED'],
            self.candidates_sent())

    def test_list_refuses_the_default_zone(self):
        # Placement's candidates cannot be narrowed to the zone's hosts:
        # one line, no candidates request.
        out, err, code = self.openstack(
            'allocation', 'candidate', 'list', '--flavor', 'f-large',
            '--availability-zone', 'nova')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ["Availability zone 'nova' is Nova's default one (its hosts are "
             "in no aggregate with a zone): Nova's request names no "
             "aggregate and its scheduler keeps the zone's hosts afterwards, "
             "which this command does not do; capacity fit and allocation "
             "candidate explain count only their trees."], err.splitlines())
        self.assertEqual([], self.candidates_sent())
        # Refused before the compute nodes are read.
        self.assertEqual([], [r for r in self.requests_mock.request_history
                              if 'hypervisors' in r.url])

    def test_list_refuses_group(self):
        out, err, code = self.openstack(
            'allocation', 'candidate', 'list', '--flavor', 'f-large',
            '--group', '1', '--resource', 'VCPU=1')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(['--flavor replaces --resource and --group: give '
                          'one or the other.'], err.splitlines())
        self.assertEqual([], self.requests_mock.request_history)


# Bad values, refused before any request (see base.RefusedLocallyTestCase).

def _candidates(*more, version='1.39', code=1, words=()):
    return base.bad_value('candidates-%s-%s' % (version, ' '.join(more)),
                          ['allocation', 'candidate', 'list'] + list(more),
                          code, list(words), version=version)


CANDIDATE_FORMAT = '<resource_class>=<value>'
BAD_VALUES = [
    _candidates('--resource', 'VCPU', words=[CANDIDATE_FORMAT]),
    _candidates('--resource', 'VCPU:1', words=[CANDIDATE_FORMAT]),
    _candidates('--resource', 'VCPU=1=2', words=[CANDIDATE_FORMAT]),
    _candidates('--resource', '', words=[CANDIDATE_FORMAT]),
    _candidates('--resource', '=1', words=["'=1'", 'resource class']),
    _candidates('--resource', ' =1', words=["' =1'", 'resource class']),
    _candidates('--resource', 'VCPU=', words=["'VCPU='", 'integer']),
    _candidates('--resource', 'VCPU=abc', words=["'VCPU=abc'", 'integer']),
    _candidates('--resource', 'VCPU=1.5', words=["'VCPU=1.5'", 'integer']),
    _candidates('--resource', 'VCPU=1', '--group', '1', '--resource',
                'VCPU=x', words=["'VCPU=x'", 'integer']),
    _candidates('--resource', 'VCPU=1', '--limit', 'abc',
                words=['--limit', "'abc'", 'integer'], version='1.16'),
    _candidates('--resource', 'VCPU=1', '--limit', '',
                words=['--limit', "''", 'integer'], version='1.16'),
    _candidates('--resource', 'VCPU=1', '--limit', '1.5',
                words=['--limit', "'1.5'", 'integer'], version='1.16'),
    _candidates('--resource', 'VCPU=1', '--limit', 'abc',
                words=['--limit', "'abc'", 'integer'], version=None),
] + [
    _candidates('--resource', 'VCPU=1', '--group', name, '--resource',
                'VCPU=1', version=version,
                words=['--group', repr(name), 'positive integer'])
    for version in ('1.25', '1.32')
    for name in ('a', '0', '01', '1.5', '-1', 'GPU')
] + [
    _candidates('--resource', 'VCPU=1', '--group', name, '--resource',
                'VCPU=1', words=['--group', '64 characters'])
    for name in ('x' * 65, 'a b', 'a.b', 'a/b', 'é', 'a,b', 'a:b')
] + [
    _candidates('--resource', 'VCPU=1', '--group', '', '--resource',
                'VCPU=1', code=2, words=['--group', "''"]),
    _candidates('--resource', 'VCPU=1', '--group', '', '--resource',
                'VCPU=1', code=2, words=['--group', "''"], version='1.25'),
    _candidates('--resource', 'VCPU=1', '--required', '', code=2,
                words=['--required']),
    _candidates('--resource', 'VCPU=1', '--required', 'A,,B', code=2,
                words=['--required']),
    _candidates('--resource', 'VCPU=1', '--forbidden', '', code=2,
                words=['--forbidden']),
    _candidates('--resource', 'VCPU=1', '--member-of', '', code=2,
                words=['--member-of']),
    _candidates('--resource', 'VCPU=1', '--in-tree', '', code=2,
                words=['--in-tree']),
    _candidates('--resource', 'VCPU=1', '--root-required', '',
                words=['--root-required', 'empty']),
    _candidates('--resource', 'VCPU=1', '--root-required', 'A,!',
                words=['--root-required', '!']),
    _candidates('--resource', 'VCPU=1', '--same-subtree', '',
                words=['--same-subtree']),
    _candidates('--resource', 'VCPU=1', '--group', 'a', '--resource',
                'VCPU=1', '--same-subtree', 'a,b',
                words=['--same-subtree', "'b'"]),
    _candidates('--resource', 'VCPU=1', '--group-policy', 'spread',
                code=2, words=['--group-policy', "'spread'"]),
]

# Malformed values that the server judges (see
# base.JudgedByTheServerTestCase).
ROUND_TRIPS = [
    ('candidates-resource-zero',
     ['--os-placement-api-version', '1.10', 'allocation', 'candidate',
      'list', '--resource', 'VCPU=0'],
     ('GET', '/allocation_candidates', [('resources', 'VCPU:0')]), None),
]


class TestRefusedLocally(base.RefusedLocallyTestCase):

    scenarios = BAD_VALUES


class TestJudgedByTheServer(base.JudgedByTheServerTestCase):

    scenarios = base.round_trips(ROUND_TRIPS)


class TestCaseIds(base.CaseIdsTestCase):

    tables = (BAD_VALUES, ROUND_TRIPS)


LIST = ['allocation', 'candidate', 'list']


class TestRefusedWithTheServerDown(base.ServerDownTestCase):

    scenarios = base.server_down([
        ('candidates-amount', LIST + ['--resource', 'VCPU=x'],
         "--resource 'VCPU=x': amount: 'x' is not an integer."),
        ('candidates-resource-format', LIST + ['--resource', 'VCPU'],
         'Arguments to --resource must be of form <resource_class>=<value>'),
        ('candidates-limit',
         LIST + ['--resource', 'VCPU=1', '--limit', 'abc'],
         "--limit: 'abc' is not an integer."),
        ('candidates-group-name',
         LIST + ['--resource', 'VCPU=1', '--group', 'a!', '--resource',
                 'VCPU=1'],
         "--group 'a!': before --os-placement-api-version 1.33 a group "
         "name must be a positive integer (e.g. 1)."),
        ('candidates-group-without-resource',
         LIST + ['--resource', 'VCPU=1', '--group', '1'],
         'Group 1 has no --resource: every --group needs at least one '
         '--resource, unless it is named in --same-subtree '
         '(--os-placement-api-version 1.36 or later).'),
        ('candidates-same-subtree',
         LIST + ['--resource', 'VCPU=1', '--same-subtree', '_x'],
         "--same-subtree '_x': '_x' is not the name of a --group of this "
         "request."),
        ('candidates-root-required',
         LIST + ['--resource', 'VCPU=1', '--root-required', '!'],
         '--root-required \'!\': "!" must be followed by a trait name.'),
        ('candidates-in-tree-twice',
         LIST + ['--resource', 'VCPU=1', '--in-tree', 'a', '--in-tree',
                 'b'],
         '--in-tree given 2 times for the unnamed group: one provider tree '
         'per group.'),
    ])


class TestAmountsOutOfRange(base.OutOfRangeTestCase):

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
    ]


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
