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

"""Allocation commands beyond the recorded contract.

``resource provider allocation list`` over every provider, against the
small cloud of ``clouds.CloudTestCase``.
"""

import io
import json

import fixtures
import hypothesis
from hypothesis import strategies as st
from osc_lib import exceptions
import testscenarios

from osc_placement.resources import allocation
from osc_placement.tests.unit import base
from osc_placement.tests.unit import clouds

URL = base.ENDPOINT
RP1 = base.RP1
RP2 = base.RP2
RP3 = base.RP3
C1 = base.C1
C2 = base.C2
C3 = base.C3
OWNER = base.OWNER

load_tests = testscenarios.load_tests_apply_scenarios


# allocation set

ALLOCS = {
    'allocations': {
        RP1: {'resources': {'VCPU': 2, 'MEMORY_MB': 1024}, 'generation': 3},
        RP2: {'resources': {'DISK_GB': 10}, 'generation': 2}},
    'project_id': 'project-1', 'user_id': 'user-1',
    'consumer_generation': 1}


PROVIDER_ALLOCS = {
    'allocations': {
        C1: {'resources': {'VCPU': 2, 'MEMORY_MB': 1024}},
        C2: {'resources': {'VCPU': 1}}},
    'resource_provider_generation': 5}


class TestAllocation(base.TestCase):

    api_version = '1.28'

    def test_set_conflict_is_checked_before_any_request(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'set', C1,
            '--allocation', 'rp=%s,VCPU=1' % RP1,
            '--allocation', 'rp=%s,VCPU=2' % RP1, *OWNER)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            'Conflict detected for resource provider %s resource '
            'class VCPU\n' % RP1,
            err)
        self.assertEqual([], self.sent())

    def test_set_at_1_28_sends_the_generation_it_read(self):
        self.requests_mock.get(URL + '/allocations/' + C1, [
            {'json': {'allocations': {RP2: {'resources': {'DISK_GB': 5},
                                            'generation': 3}},
                      'project_id': 'project-1', 'user_id': 'user-1',
                      'consumer_generation': 7}},
            {'json': {'allocations': {RP1: {'resources': {'VCPU': 2},
                                            'generation': 4}},
                      'project_id': 'project-1', 'user_id': 'user-1',
                      'consumer_generation': 8}}])
        self.requests_mock.put(URL + '/allocations/' + C1, status_code=204)
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'set', C1,
            '--allocation', 'rp=%s,VCPU=2' % RP1, *OWNER,
            '-f', 'json')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            [('GET', '/allocations/' + C1),
             ('PUT', '/allocations/' + C1),
             ('GET', '/allocations/' + C1)],
            self.sent())
        put = self.requests_mock.request_history[1]
        self.assertEqual(
            'placement 1.28',
            put.headers['OpenStack-API-Version'])
        self.assertEqual(
            {'allocations': {RP1: {'resources': {'VCPU': 2}}},
             'consumer_generation': 7,
             'project_id': 'project-1', 'user_id': 'user-1'},
            put.json())
        self.assertEqual(
            [{'resource_provider': RP1, 'generation': 4,
              'resources': {'VCPU': 2}, 'project_id': 'project-1',
              'user_id': 'user-1'}],
            json.loads(out))

    def test_set_generation_conflict_is_reported_once_without_retry(self):
        self.requests_mock.get(
            URL + '/allocations/' + C1,
            json={'allocations': {}})
        self.requests_mock.put(
            URL + '/allocations/' + C1, **base.error_reply(
                409, base.webob_detail(
                    'consumer generation conflict - expected null but got 1',
                    'There was a conflict when trying to complete your '
                    'request.'), code='placement.concurrent_update'))
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'set', C1,
            '--allocation', 'rp=%s,VCPU=2' % RP1, *OWNER)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            'consumer generation conflict - expected null but got 1. '
            'Consumer %s changed since it was read: read it again with '
            '"openstack resource provider allocation show %s", then retry '
            '(HTTP 409)\n' % (C1, C1),
            err)
        self.assertEqual(
            [('GET', '/allocations/' + C1),
             ('PUT', '/allocations/' + C1)],
            self.sent())

    def test_set_provider_by_name_merges_with_its_uuid(self):
        self.by_name('compute-1', RP1)
        self.requests_mock.put(URL + '/allocations/' + C1, status_code=204)
        self.requests_mock.get(URL + '/allocations/' + C1, json={
            'allocations': {RP1: {'resources': {'VCPU': 1, 'MEMORY_MB': 64},
                                  'generation': 2}},
            'project_id': 'project-1', 'user_id': 'user-1'})
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'set', C1,
            '--allocation', 'rp=compute-1,VCPU=1',
            '--allocation', 'rp=%s,MEMORY_MB=64' % RP1,
            *OWNER, version='1.12')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            ('GET', '/resource_providers?name=compute-1'),
            self.sent()[0])
        self.assertEqual(
            {RP1: {'resources': {'VCPU': 1, 'MEMORY_MB': 64}}},
            self.requests_mock.request_history[1].json()['allocations'])

    def test_set_unknown_provider_name(self):
        self.assertNoSuchProvider(
            'nope', 'resource', 'provider', 'allocation', 'set', C1,
            '--allocation', 'rp=nope,VCPU=1', *OWNER)

    def test_set_list_body_below_1_12(self):
        self.requests_mock.put(URL + '/allocations/' + C1, status_code=204)
        self.requests_mock.get(
            URL + '/allocations/' + C1, json={'allocations': {}})
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'set', C1,
            '--allocation', 'rp=%s,VCPU=1' % RP1,
            '--allocation', 'rp=%s,DISK_GB=2' % RP2,
            *OWNER, version='1.11')
        self.assertEqual(0, code, err)
        self.assertEqual(
            {
                'allocations': [
                    {'resource_provider': {'uuid': RP1},
                     'resources': {'VCPU': 1}},
                    {'resource_provider': {'uuid': RP2},
                     'resources': {'DISK_GB': 2}}],
                'project_id': 'project-1', 'user_id': 'user-1'},
            self.requests_mock.request_history[0].json())

    def test_set_consumer_is_percent_encoded(self):
        self.requests_mock.put(URL + '/allocations/a%2Fb%3Fc', status_code=204)
        self.requests_mock.get(
            URL + '/allocations/a%2Fb%3Fc', json={'allocations': {}})
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'set',
            'a/b?c', '--allocation', 'rp=%s,VCPU=1' % RP1,
            version='1.0')
        self.assertEqual(0, code, err)
        self.assertEqual(('PUT', '/allocations/a%2Fb%3Fc'), self.sent()[0])

    def test_set_negotiation_requires_the_owner_without_a_request(self):
        # The parser is built for the negotiation ceiling (1.29), so argparse
        # already requires the owner there.
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'set', C1,
            '--allocation', 'rp=%s,VCPU=1' % RP1, version=base.NEGOTIATE)
        self.assertEqual(2, code)
        self.assertIn(
            'the following arguments are required: --project-id, '
            '--user-id',
            err)
        self.assertEqual([], self.sent())

    def test_set_help_names_the_versions(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'set',
            '--help', version='1.0')
        self.assertEqual(0, code)
        self.assertIn('--os-placement-api-version 1.8', ' '.join(out.split()))
        self.assertIn('--os-placement-api-version 1.38', ' '.join(out.split()))

    # allocation unset

    def test_unset_without_allocations_at_1_28_sends_no_put(self):
        self.requests_mock.get(
            URL + '/allocations/' + C1, json={'allocations': {}})
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'unset', C1)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual("No allocations for consumer '%s'\n" % C1, err)
        self.assertEqual([('GET', '/allocations/' + C1)], self.sent())

    def test_unset_provider_by_name(self):
        self.by_name('compute-1', RP1)
        self.requests_mock.get(URL + '/allocations/' + C1, [
            {'json': ALLOCS},
            {'json': {'allocations': {RP2: {'resources': {'DISK_GB': 10},
                                            'generation': 3}},
                      'project_id': 'project-1', 'user_id': 'user-1',
                      'consumer_generation': 2}}])
        self.requests_mock.put(URL + '/allocations/' + C1, status_code=204)
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'unset', C1,
            '--provider', 'compute-1', '-f', 'value')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            [('GET', '/resource_providers?name=compute-1'),
             ('GET', '/allocations/' + C1), ('PUT', '/allocations/' + C1),
             ('GET', '/allocations/' + C1)],
            self.sent())
        self.assertEqual(
            {
                'allocations': {RP2: {'resources': {'DISK_GB': 10},
                                      'generation': 2}},
                'project_id': 'project-1', 'user_id': 'user-1',
                'consumer_generation': 1},
            self.requests_mock.request_history[2].json())
        self.assertEqual("%s 3 {'DISK_GB': 10} project-1 user-1\n" % RP2, out)

    def test_unset_class_on_one_provider_only(self):
        self.requests_mock.get(URL + '/allocations/' + C1, json=ALLOCS)
        self.requests_mock.put(URL + '/allocations/' + C1, status_code=204)
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'unset', C1,
            '--provider', RP2, '--resource-class', 'MEMORY_MB')
        self.assertEqual(0, code, err)
        # MEMORY_MB is on RP1, not RP2: nothing changes.
        self.assertEqual(
            ALLOCS['allocations'],
            self.requests_mock.request_history[1].json()['allocations'])

    def test_unset_below_1_12_is_a_gate_error(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'unset', C1,
            version='1.11')
        self.assertEqual(1, code)
        self.assertIn('requires at least version 1.12', err)
        self.assertEqual([], self.sent())

    def test_unset_empty_provider_is_rejected(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'unset', C1,
            '--provider', '')
        self.assertEqual(2, code)
        self.assertEqual([], self.sent())

    # allocation show / delete

    def test_show_empty_consumer_prints_nothing(self):
        self.requests_mock.get(
            URL + '/allocations/' + C1, json={'allocations': {}})
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'show', C1,
            '-f', 'json')
        self.assertEqual(([], '', 0), (json.loads(out), err, code))

    def test_show_empty_consumer_is_rejected_locally(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'show', '')
        self.assertEqual(2, code)
        self.assertEqual([], self.sent())

    def test_delete_one_consumer_as_before(self):
        self.requests_mock.delete(URL + '/allocations/' + C1, status_code=204)
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'delete', C1)
        self.assertEqual(('', '', 0), (out, err, code))
        self.assertEqual([('DELETE', '/allocations/' + C1)], self.sent())

    def test_delete_several_goes_on_and_counts_failures(self):
        self.requests_mock.delete(URL + '/allocations/' + C1, status_code=204)
        self.requests_mock.delete(
            URL + '/allocations/' + C2, **base.error_reply(
                404, base.webob_detail(
                    "No allocations for consumer '%s'" % C2,
                    'The resource could not be found.')))
        self.requests_mock.delete(URL + '/allocations/' + C3, status_code=204)
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'delete',
            C1, C2, C3)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ["Failed to delete allocations of consumer %s: No allocations for "
             "consumer '%s' (HTTP 404)" % (C2, C2),
             'Failed to delete 1 of 3 allocations.'],
            err.splitlines())
        self.assertEqual(
            [('DELETE', '/allocations/' + c) for c in (C1, C2, C3)],
            self.sent())

    def test_delete_usage_synopsis_is_the_reference_one(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'delete')
        self.assertEqual(2, code)
        self.assertNotIn('[<uuid> ...]', err)
        self.assertEqual(
            'openstack resource provider allocation delete: error: the '
            'following arguments are required: <uuid>',
            err.splitlines()[-1])

    # resource provider allocation list

    def test_list_by_provider_name(self):
        self.by_name('compute-1', RP1)
        self.requests_mock.get(
            URL + '/resource_providers/%s/allocations' % RP1,
            json=PROVIDER_ALLOCS)
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'list',
            'compute-1', '-f', 'json')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            [{'consumer_uuid': C1,
              'resources': {'VCPU': 2, 'MEMORY_MB': 1024}},
             {'consumer_uuid': C2, 'resources': {'VCPU': 1}}],
            json.loads(out))
        self.assertEqual(
            [('GET', '/resource_providers?name=compute-1'),
             ('GET', '/resource_providers/%s/allocations' % RP1)],
            self.sent())

    def test_list_long_reads_each_consumer(self):
        self.requests_mock.get(
            URL + '/resource_providers/%s/allocations' % RP1,
            json=PROVIDER_ALLOCS)
        self.requests_mock.get(URL + '/allocations/' + C1, json={
            'allocations': {}, 'project_id': 'p1', 'user_id': 'u1',
            'consumer_generation': 1, 'consumer_type': 'INSTANCE'})
        self.requests_mock.get(URL + '/allocations/' + C2, json={
            'allocations': {}, 'project_id': 'p2', 'user_id': 'u2',
            'consumer_generation': 1, 'consumer_type': 'MIGRATION'})
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'list', RP1,
            '--long', '-f', 'json', version='1.38')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            [(C1, 'p1', 'u1', 'INSTANCE'), (C2, 'p2', 'u2', 'MIGRATION')],
            [(r['consumer_uuid'], r['project_id'], r['user_id'],
              r['consumer_type']) for r in json.loads(out)])
        # The consumers are read in parallel: in any order.
        self.assertEqual(
            [('GET', '/resource_providers/%s/allocations' % RP1)],
            self.sent()[:1])
        self.assertEqual(
            [('GET', '/allocations/' + C1), ('GET', '/allocations/' + C2)],
            sorted(self.sent()[1:]))

    def test_list_long_before_1_38_has_no_consumer_type(self):
        self.requests_mock.get(
            URL + '/resource_providers/%s/allocations' % RP1,
            json={'allocations': {C1: {'resources': {'VCPU': 1}}}})
        self.requests_mock.get(URL + '/allocations/' + C1, json={
            'allocations': {}, 'project_id': 'p1', 'user_id': 'u1'})
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'list', RP1,
            '--long', '-f', 'json', version='1.12')
        self.assertEqual(0, code, err)
        self.assertEqual(
            [{'consumer_uuid': C1,
              'resources': {'VCPU': 1},
              'project_id': 'p1', 'user_id': 'u1'}],
            json.loads(out))

    def test_list_long_below_1_12_is_a_gate_error(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'list', RP1,
            '--long', version='1.11')
        self.assertEqual(1, code)
        self.assertEqual(
            'Operation or argument is not supported with version '
            '1.11; requires at least version 1.12\n',
            err)
        self.assertEqual([], self.sent())

    # Parsing, property-based


class TestSetWithLatest(base.TestCase):
    """``latest``: the options required are those of the version agreed."""

    api_version = 'latest'
    command = ['resource', 'provider', 'allocation', 'set', C1,
               '--allocation', 'rp=%s,VCPU=1' % RP1]

    def server_max(self, max_version):
        self.requests_mock.get(URL + '/', status_code=406, json={
            'errors': [{'status': 406, 'title': 'Not Acceptable',
                        'max_version': max_version, 'min_version': '1.0',
                        'detail': 'Unacceptable version header'}]})

    def test_below_1_38_no_consumer_type_is_needed(self):
        self.server_max('1.37')
        self.requests_mock.get(URL + '/allocations/' + C1, json={
            'allocations': {}, 'consumer_generation': None})
        self.requests_mock.put(URL + '/allocations/' + C1, status_code=204)
        out, err, code = self.openstack(*OWNER)
        self.assertEqual(('', 0), (err, code))
        put = self.requests_sent()[2]
        self.assertEqual(('PUT', 'placement 1.37'), (put.method, put.version))
        self.assertNotIn('consumer_type', put.body)

    def test_from_1_38_the_consumer_type_is_required(self):
        self.requests_mock.get(URL + '/', json=base.VERSIONS)
        out, err, code = self.openstack(*OWNER)
        self.assertEqual(
            ('', '--consumer-type is required from '
             '--os-placement-api-version 1.38.\n', 1),
            (out, err, code))
        self.assertEqual([('GET', '/')], self.sent())


class TestParseAllocations(base.TestCase):

    @hypothesis.settings(max_examples=300, deadline=None)
    @hypothesis.given(st.lists(st.text(alphabet='rp=,VCPU0123x- ',
                                       max_size=20), max_size=3))
    def test_fails_only_with_a_one_line_command_error(self, values):
        try:
            parsed = allocation.parse_allocations(values)
        except exceptions.CommandError as exc:
            self.assertOneLine(str(exc))
            self.assertNotIn('invalid literal', str(exc))
            return
        for resources in parsed.values():
            for value in resources.values():
                self.assertIsInstance(value, int)

    @hypothesis.given(st.dictionaries(
        st.sampled_from([RP1, RP2, 'compute-1']),
        st.dictionaries(st.sampled_from(['VCPU', 'MEMORY_MB', 'DISK_GB']),
                        st.integers(min_value=1, max_value=10 ** 6),
                        min_size=1), min_size=1))
    def test_round_trips(self, expected):
        values = ['rp=%s,%s' % (rp, ','.join('%s=%d' % kv
                                             for kv in res.items()))
                  for rp, res in expected.items()]
        self.assertEqual(expected, allocation.parse_allocations(values))


class TestMalformedAllocation(base.TestCase):

    scenarios = testscenarios.multiply_scenarios([
        ('two', {'value': 'rp=%s,VCPU=two' % RP1,
                 'words': ["'two'", 'VCPU', 'not an integer']}),
        ('no-amount', {'value': 'rp=%s,VCPU' % RP1,
                       'words': ["'VCPU'",
                                 'Incorrect allocation string format']}),
        ('two-equals', {'value': 'rp=%s,VCPU=1=2' % RP1,
                        'words': ["'VCPU=1=2'"]}),
        # The reference's own words.
        ('no-provider', {'value': 'VCPU=1,MEMORY_MB=2',
                         'words': ['Resource provider parameter is required '
                                   'for allocation string\n']}),
        ('empty-provider', {'value': 'rp=,VCPU=1',
                            'words': ['rp=', 'UUID or name']}),
        ('no-resource', {'value': 'rp=%s' % RP1,
                         'words': ['Incorrect allocation string format']}),
    ], [(v, {'api_version': v}) for v in ('1.12', '1.28')])

    def test_set_rejects_a_malformed_allocation_before_any_request(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'set', C1, '--allocation',
            self.value, *OWNER)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(1, len(err.splitlines()), err)
        for word in self.words:
            self.assertIn(word, err)
        self.assertNotIn('invalid literal', err)
        self.assertNotIn('dictionary', err)
        self.assertEqual([], self.sent())


# resource provider allocation list, across the small cloud

class TestAllocationListAcross(clouds.CloudTestCase):

    command = ('resource', 'provider', 'allocation', 'list')

    def test_every_provider_without_consumer_reads(self):
        rows = self.json()
        self.assertEqual([
            {'resource_provider': RP1, 'consumer_uuid': C1,
             'resources': {'DISK_GB': 10}},
            {'resource_provider': RP2, 'consumer_uuid': C1,
             'resources': {'VCPU': 2, 'MEMORY_MB': 1024}},
            {'resource_provider': RP3, 'consumer_uuid': C2,
             'resources': {'VCPU': 6}},
        ], rows)
        self.assertEqual(
            sorted(['/resource_providers']
                   + clouds.per_provider('allocations')), self.gets())

    def test_long_reads_each_consumer_once(self):
        rows = self.json('--long')
        self.assertEqual(
            [(RP1, C1, 'p1', 'u1', 'INSTANCE'),
             (RP2, C1, 'p1', 'u1', 'INSTANCE'),
             (RP3, C2, 'p2', 'u2', 'unknown')],
            [(r['resource_provider'], r['consumer_uuid'], r['project_id'],
              r['user_id'], r['consumer_type']) for r in rows])
        self.assertEqual(
            sorted(['/resource_providers', '/allocations/' + C1,
                    '/allocations/' + C2]
                   + clouds.per_provider('allocations')),
            self.gets())


class TestAllocationFilters(clouds.CloudTestCase):

    command = ('resource', 'provider', 'allocation', 'list')
    scenarios = [
        ('project', {'filter': ['--project-id', 'p2'], 'rows': [(RP3, C2)]}),
        ('user', {'filter': ['--user-id', 'u1'],
                  'rows': [(RP1, C1), (RP2, C1)]}),
        ('type', {'filter': ['--consumer-type', 'INSTANCE'],
                  'rows': [(RP1, C1), (RP2, C1)]}),
        ('type_unknown', {'filter': ['--consumer-type', 'unknown'],
                          'rows': [(RP3, C2)]}),
        ('resource_class', {'filter': ['--resource-class', 'VCPU'],
                            'rows': [(RP2, C1), (RP3, C2)]}),
    ]

    def test_filter(self):
        rows = self.json(*self.filter)
        self.assertEqual(self.rows, [(r['resource_provider'],
                                      r['consumer_uuid']) for r in rows])


class TestAllocationExclude(clouds.CloudTestCase):

    command = ('resource', 'provider', 'allocation', 'list')

    def test_exclude_consumers_from_file(self):
        path = self.useFixture(fixtures.TempDir()).join('known')
        with open(path, 'w') as f:
            f.write('# servers\n\n%s\n' % C1.upper())
        rows = self.json('--exclude-consumers-from', path)
        self.assertEqual([C2], [r['consumer_uuid'] for r in rows])

    def test_exclude_consumers_from_stdin(self):
        self.useFixture(fixtures.MonkeyPatch(
            'sys.stdin', io.StringIO(C2 + '\n')))
        rows = self.json('--exclude-consumers-from', '-')
        self.assertEqual([C1, C1], [r['consumer_uuid'] for r in rows])

    def test_malformed_line_is_named(self):
        path = self.useFixture(fixtures.TempDir()).join('known')
        with open(path, 'w') as f:
            f.write('%s\n\nnot-a-uuid\n' % C1)
        self.assertRefused(
            ['--exclude-consumers-from', path],
            "--exclude-consumers-from %s: line 3: 'not-a-uuid' is not a "
            "consumer UUID." % path)

    def test_unreadable_file_is_one_line(self):
        path = self.useFixture(fixtures.TempDir()).join('missing')
        out, err, code = self.openstack('--exclude-consumers-from', path)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(1, len(err.splitlines()))
        self.assertIn('--exclude-consumers-from %s: cannot read it: ' % path,
                      err)
        self.assertEqual([], self.sent())

    def test_consumer_type_below_1_38_is_refused(self):
        self.assertRefused(
            ['--consumer-type', 'INSTANCE'],
            'Operation or argument is not supported with version 1.37; '
            'requires at least version 1.38', version='1.37')

    def test_provider_filters_need_no_provider(self):
        self.assertRefused(
            [RP1, '--in-tree', RP1],
            '--in-tree and --member-of select the providers to read: give '
            'them without a resource provider.')

    def test_with_a_provider_filters_apply_too(self):
        rows = self.json(RP2, '--project-id', 'p1')
        self.assertEqual([{'consumer_uuid': C1,
                           'resources': {'VCPU': 2, 'MEMORY_MB': 1024}}],
                         rows)


# Bad values, refused before any request (see base.RefusedLocallyTestCase).

def _allocation_set(*values, version='1.39', code=1, words=(), owner=True,
                    id=None):
    argv = ['resource', 'provider', 'allocation', 'set', C3]
    for value in values:
        argv += ['--allocation', value]
    if owner:
        argv += OWNER
    if version in ('1.38', '1.39'):
        argv += ['--consumer-type', 'INSTANCE']
    return base.bad_value(id or 'allocation-set-%s-%r' % (version, values),
                          argv, code, list(words), version=version)


ALLOCATION_FORMAT = 'Incorrect allocation string format'
ALLOCATION_SET = [
    _allocation_set('rp=%s,VCPU=two' % RP1, version=v,
                    words=["'two'", 'VCPU', 'integer'])
    for v in ('1.0', '1.12', '1.28', '1.39')
] + [
    # Recorded messages, kept word for word.
    _allocation_set('rp=%s' % RP1, words=[ALLOCATION_FORMAT]),
    _allocation_set('VCPU,MEMORY_MB', words=[ALLOCATION_FORMAT]),
    _allocation_set('', words=[ALLOCATION_FORMAT]),
    _allocation_set(',', words=[ALLOCATION_FORMAT]),
    _allocation_set('rp=%s,VCPU' % RP1, words=[ALLOCATION_FORMAT, "'VCPU'"]),
    _allocation_set('rp=%s,VCPU=1,' % RP1, words=[ALLOCATION_FORMAT]),
    _allocation_set('rp=%s,=1' % RP1, words=[ALLOCATION_FORMAT]),
    _allocation_set('rp=%s,VCPU=1=2' % RP1,
                    words=[ALLOCATION_FORMAT, "'VCPU=1=2'"]),
    _allocation_set('VCPU=1,MEMORY_MB=2', words=[
        'Resource provider parameter is required for allocation string']),
    _allocation_set('rp=,VCPU=1', words=['rp=', 'UUID or name']),
    _allocation_set('rp=  ,VCPU=1', words=['rp=', 'UUID or name']),
    _allocation_set('rp=%s,VCPU=' % RP1, words=["''", 'VCPU', 'integer']),
    _allocation_set('rp=%s,VCPU=1.5' % RP1, words=["'1.5'", 'integer']),
    _allocation_set('rp=%s,VCPU=1' % RP1, 'rp=%s,VCPU=2' % RP1,
                    words=['Conflict detected', RP1, 'VCPU']),
    _allocation_set('rp=%s,VCPU=1' % RP1, 'rp=%s,VCPU=abc' % RP1,
                    words=["'abc'", 'integer']),
    _allocation_set('rp=%s,VCPU=1,VCPU=2' % RP1,
                    words=['VCPU', RP1]),
    _allocation_set('rp=%s,rp=%s,VCPU=1' % (RP1, RP2),
                    words=['rp=']),
    base.bad_value('allocation-set-no-allocation',
                   ['resource', 'provider', 'allocation', 'set', C3]
                   + OWNER, 1, ['At least one resource allocation'],
                   version='1.28'),
    base.bad_value('allocation-set-negotiated-bad-allocation',
                   ['resource', 'provider', 'allocation', 'set', C3,
                    '--allocation', 'rp=%s,VCPU=two' % RP1] + OWNER,
                   1, ["'two'", 'integer'], version=None),
    base.bad_value('allocation-set-empty-project',
                   ['resource', 'provider', 'allocation', 'set', C3,
                    '--allocation', 'rp=%s,VCPU=1' % RP1, '--project-id', '',
                    '--user-id', 'user-1'], 1, ['--project-id'],
                   version='1.28'),
    base.bad_value('allocation-set-empty-consumer-type',
                   ['resource', 'provider', 'allocation', 'set', C3,
                    '--allocation', 'rp=%s,VCPU=1' % RP1, '--consumer-type',
                    ''] + OWNER, 1, ['--consumer-type'], version='1.38'),
    base.bad_value('allocation-unset-empty-provider',
                   ['resource', 'provider', 'allocation', 'unset', C3,
                    '--provider', ''], 2, ['--provider', 'empty'],
                   version='1.28'),
    base.bad_value('allocation-unset-empty-class',
                   ['resource', 'provider', 'allocation', 'unset', C3,
                    '--resource-class', ' '], 2,
                   ['--resource-class', 'empty'], version='1.28'),
]

EMPTY_VALUES = base.empty_positionals([
    ('resource provider allocation set', (),
     ('--allocation', 'rp=%s,VCPU=1' % RP1, '--consumer-type', 'INSTANCE')
     + tuple(OWNER)),
    ('resource provider allocation unset', (), ()),
    ('resource provider allocation show', (), ()),
    ('resource provider allocation delete', (), ()),
    ('resource provider allocation delete', (C3,), ()),
    ('resource provider allocation list', (), ()),
])

# A value holding a line break (pasted from a file, say) must not break
# the error line.
LINE_BREAKS = [
    base.bad_value('line-break-allocation-conflict',
                   ['resource', 'provider', 'allocation', 'set', C3,
                    '--allocation', 'rp=a\nb,VCPU=1', '--allocation',
                    'rp=a\nb,VCPU=2', '--consumer-type', 'INSTANCE']
                   + OWNER, 1, ['Conflict detected']),
]

BAD_VALUES = ALLOCATION_SET + EMPTY_VALUES + LINE_BREAKS

# Malformed values that the server judges (see
# base.JudgedByTheServerTestCase).
ROUND_TRIPS = [
    ('allocation-set-zero-recorded',
     ['--os-placement-api-version', '1.12', 'resource', 'provider',
      'allocation', 'set', C3, '--allocation',
      'rp=%s,VCPU=0' % RP1] + OWNER,
     ('PUT', '/allocations/' + C3, []), '"VCPU": 0'),
    ('allocation-set-malformed-consumer-recorded',
     ['--os-placement-api-version', '1.28', 'resource', 'provider',
      'allocation', 'set', 'not-a-uuid', '--allocation',
      'rp=%s,VCPU=1' % RP1] + OWNER,
     ('PUT', '/allocations/not-a-uuid', []), '"VCPU": 1'),
    ('allocation-delete-malformed-consumer-recorded',
     ['--os-placement-api-version', '1.0', 'resource', 'provider',
      'allocation', 'delete', 'not-a-uuid'],
     ('DELETE', '/allocations/not-a-uuid', []), None),
]


class TestRefusedLocally(base.RefusedLocallyTestCase):

    scenarios = BAD_VALUES


class TestJudgedByTheServer(base.JudgedByTheServerTestCase):

    scenarios = base.round_trips(ROUND_TRIPS)


class TestCaseIds(base.CaseIdsTestCase):

    tables = (BAD_VALUES, ROUND_TRIPS)


SET = ['resource', 'provider', 'allocation', 'set', C3]


class TestRefusedWithTheServerDown(base.ServerDownTestCase):

    scenarios = base.server_down([
        ('allocation-set-amount',
         SET + ['--allocation', 'rp=R,VCPU=abc'] + OWNER,
         "--allocation 'rp=R,VCPU=abc': amount of VCPU: 'abc' is not an "
         "integer."),
        ('allocation-set-no-rp',
         SET + ['--allocation', 'VCPU=1'] + OWNER,
         'Incorrect allocation string format'),
        ('allocation-set-two-amounts',
         SET + ['--allocation', 'rp=R,VCPU=1,VCPU=2'] + OWNER,
         "--allocation 'rp=R,VCPU=1,VCPU=2': two different amounts of "
         "VCPU."),
        ('allocation-list-exclude-file',
         ['resource', 'provider', 'allocation', 'list',
          '--exclude-consumers-from', '/nonexistent/known'],
         "--exclude-consumers-from /nonexistent/known: cannot read it: "
         "No such file or directory"),
        ('allocation-member-of',
         ['resource', 'provider', 'allocation', 'list', '--member-of', 'x'],
         "--member-of: 'x' is not an aggregate UUID."),
    ])


class TestAmountsOutOfRange(base.OutOfRangeTestCase):

    scenarios = [
        ('allocation-set', {
            'argv': ('resource', 'provider', 'allocation', 'set', C1,
                     '--allocation', 'rp=%s,VCPU=-3' % RP1,
                     '--consumer-type', 'INSTANCE') + tuple(OWNER),
            'error': "--allocation 'rp=%s,VCPU=-3': amount of VCPU: -3 is "
                     "out of range (1 to 2147483647)." % RP1}),
    ]
