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

"""Trait commands beyond the recorded contract."""

import json

import requests_mock
import testscenarios

from osc_placement.tests.unit import base

URL = base.ENDPOINT
RP1 = base.RP1
TRAITS = URL + '/resource_providers/' + RP1 + '/traits'
CONFLICT_DETAIL = ("Resource provider's generation already changed. Please "
                   "update the generation and try again.")
# The same, with the guidance a generation conflict gets (issue 26).
CONFLICT_GUIDED = (
    CONFLICT_DETAIL + ' Resource provider %s changed since it was read: '
    'read it again with "openstack resource provider show %s", then run '
    'the command again' % (RP1, RP1))

load_tests = testscenarios.load_tests_apply_scenarios


def error(status, detail, code=None):
    return base.error_reply(status, base.webob_detail(detail), code=code)


def conflict(code='placement.concurrent_update'):
    return error(409, CONFLICT_DETAIL, code)


def traits(names, generation):
    return {'json': {'traits': names,
                     'resource_provider_generation': generation}}


# trait list|show|create|delete


class TraitTestCase(base.TestCase):

    api_version = '1.29'

    def put_bodies(self):
        return [r.json() for r in self.requests_mock.request_history
                if r.method == 'PUT']


class TestTrait(TraitTestCase):

    def test_list_sends_name_then_associated_true(self):
        self.requests_mock.get(
            URL + '/traits', json={'traits': ['HW_CPU_X86_SSE']})
        out, err, code = self.openstack(
            'trait', 'list', '--associated', '--name', 'startswith:HW_', '-f',
            'value')
        self.assertEqual(('HW_CPU_X86_SSE\n', '', 0), (out, err, code))
        self.assertEqual(
            [('GET', '/traits?name=startswith%3AHW_&associated=True')],
            self.sent())

    def test_list_without_filters_sends_no_query(self):
        self.requests_mock.get(URL + '/traits', json={'traits': []})
        out, err, code = self.openstack('trait', 'list', '-f', 'json')
        self.assertEqual(([], 0), (json.loads(out), code))
        self.assertEqual([('GET', '/traits')], self.sent())

    def test_delete_several_traits_reports_each_failure(self):
        self.requests_mock.delete(URL + '/traits/CUSTOM_A', status_code=204)
        self.requests_mock.delete(
            URL + '/traits/CUSTOM_B',
            **error(
                409, 'The trait CUSTOM_B is in use by a resource provider.'))
        self.requests_mock.delete(URL + '/traits/HW_CPU_X86_SSE', **error(
                        400, 'Cannot delete standard trait HW_CPU_X86_SSE.'))
        self.requests_mock.delete(URL + '/traits/CUSTOM_D', status_code=204)
        out, err, code = self.openstack(
            'trait', 'delete', 'CUSTOM_A', 'CUSTOM_B', 'HW_CPU_X86_SSE',
            'CUSTOM_D')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ['Failed to delete trait CUSTOM_B: The trait CUSTOM_B is in use '
             'by a resource provider. (HTTP 409)',
             'Failed to delete trait HW_CPU_X86_SSE: Cannot delete standard '
             'trait HW_CPU_X86_SSE. (HTTP 400)',
             'Failed to delete 2 of 4 traits.'],
            err.splitlines())
        self.assertEqual(
            [('DELETE', '/traits/CUSTOM_A'),
             ('DELETE', '/traits/CUSTOM_B'),
             ('DELETE', '/traits/HW_CPU_X86_SSE'),
             ('DELETE', '/traits/CUSTOM_D')],
            self.sent())

    def test_delete_several_traits_all_deleted(self):
        self.requests_mock.delete(requests_mock.ANY, status_code=204)
        out, err, code = self.openstack(
            'trait', 'delete', 'CUSTOM_A', 'CUSTOM_B')
        self.assertEqual(('', '', 0), (out, err, code))
        self.assertEqual(2, len(self.requests_mock.request_history))

    def test_delete_usage_synopsis_is_the_reference_one(self):
        out, err, code = self.openstack('trait', 'delete')
        self.assertEqual(2, code)
        self.assertEqual(
            'usage: openstack trait delete [-h] <name>',
            err.splitlines()[0])

    # resource provider trait list|set|delete

    def test_provider_name_not_found(self):
        self.assertNoSuchProvider(
            'nope', 'resource', 'provider', 'trait', 'add', 'nope',
            '--trait', 'CUSTOM_A')

    def test_set_reads_generation_then_puts(self):
        self.by_name('compute-1', RP1)
        self.requests_mock.get(URL + '/resource_providers/' + RP1,
                               json=base.provider(RP1, generation=7))
        self.requests_mock.put(TRAITS, **traits(['CUSTOM_A', 'CUSTOM_B'], 8))
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', 'set', 'compute-1', '--trait',
            'CUSTOM_B', '--trait', 'CUSTOM_A', '-f', 'value')
        self.assertEqual(('CUSTOM_A\nCUSTOM_B\n', '', 0), (out, err, code))
        self.assertEqual(
            [('GET', '/resource_providers/' + RP1),
             ('PUT', '/resource_providers/%s/traits' % RP1)],
            self.sent()[1:])
        self.assertEqual(
            [{'resource_provider_generation': 7,
              'traits': ['CUSTOM_B', 'CUSTOM_A']}],
            self.put_bodies())

    def test_set_never_retries_a_conflict(self):
        self.requests_mock.get(URL + '/resource_providers/' + RP1,
                               json=base.provider(RP1, generation=7))
        self.requests_mock.put(TRAITS, **conflict())
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', 'set', RP1, '--trait', 'CUSTOM_A')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(CONFLICT_GUIDED + ' (HTTP 409)\n', err)
        self.assertEqual(['GET', 'PUT'], [m for m, _ in self.sent()])

    def test_set_without_trait_removes_all(self):
        self.requests_mock.get(URL + '/resource_providers/' + RP1,
                               json=base.provider(RP1, generation=2))
        self.requests_mock.put(TRAITS, **traits([], 3))
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', 'set', RP1, '-f', 'json')
        self.assertEqual(([], 0), (json.loads(out), code))
        self.assertEqual(
            [{'resource_provider_generation': 2,
              'traits': []}],
            self.put_bodies())

    # resource provider trait add|remove

    def test_add_puts_the_union_with_the_generation_read(self):
        self.requests_mock.get(
            TRAITS, **traits(['CUSTOM_A', 'HW_CPU_X86_SSE'], 4))
        self.requests_mock.put(
            TRAITS, **traits(['CUSTOM_A', 'CUSTOM_B', 'HW_CPU_X86_SSE'], 5))
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', 'add', RP1, '--trait', 'CUSTOM_B',
            '--trait', 'CUSTOM_A', '--trait', 'CUSTOM_B', '-f', 'json')
        self.assertEqual(0, code, err)
        self.assertEqual(
            [{'name': 'CUSTOM_A'}, {'name': 'CUSTOM_B'},
             {'name': 'HW_CPU_X86_SSE'}],
            json.loads(out))
        self.assertEqual(
            [('GET', '/resource_providers/%s/traits' % RP1),
             ('PUT', '/resource_providers/%s/traits' % RP1)],
            self.sent())
        self.assertEqual(
            [{'resource_provider_generation': 4,
             'traits': ['CUSTOM_A', 'HW_CPU_X86_SSE', 'CUSTOM_B']}],
            self.put_bodies())
        put = self.requests_mock.request_history[1]
        self.assertEqual(
            'placement 1.29',
            put.headers['OpenStack-API-Version'])
        self.assertEqual('application/json', put.headers['Content-Type'])

    def test_add_by_provider_name(self):
        self.by_name('compute-1', RP1)
        self.requests_mock.get(TRAITS, **traits([], 0))
        self.requests_mock.put(TRAITS, **traits(['CUSTOM_A'], 1))
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', 'add', 'compute-1', '--trait',
            'CUSTOM_A', '-f', 'value')
        self.assertEqual(('CUSTOM_A\n', '', 0), (out, err, code))
        self.assertEqual(['GET', 'GET', 'PUT'], [m for m, _ in self.sent()])

    def test_add_of_traits_already_set_writes_nothing(self):
        self.requests_mock.get(TRAITS, **traits(['CUSTOM_A', 'CUSTOM_B'], 4))
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', 'add', RP1, '--trait', 'CUSTOM_B',
            '-f', 'value')
        self.assertEqual(('CUSTOM_A\nCUSTOM_B\n', '', 0), (out, err, code))
        self.assertEqual(['GET'], [m for m, _ in self.sent()])

    def test_remove_puts_the_difference(self):
        self.requests_mock.get(
            TRAITS, **traits(['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C'], 9))
        self.requests_mock.put(TRAITS, **traits(['CUSTOM_B'], 10))
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', 'remove', RP1, '--trait',
            'CUSTOM_C', '--trait', 'CUSTOM_A', '--trait', 'CUSTOM_NOT_SET',
            '-f', 'value')
        self.assertEqual(('CUSTOM_B\n', '', 0), (out, err, code))
        self.assertEqual(
            [{'resource_provider_generation': 9,
              'traits': ['CUSTOM_B']}],
            self.put_bodies())

    def test_remove_of_traits_not_set_writes_nothing(self):
        self.requests_mock.get(TRAITS, **traits(['CUSTOM_A'], 4))
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', 'remove', RP1, '--trait',
            'CUSTOM_B', '-f', 'value')
        self.assertEqual(('CUSTOM_A\n', '', 0), (out, err, code))
        self.assertEqual(['GET'], [m for m, _ in self.sent()])

    def test_add_reads_again_and_retries_after_a_generation_conflict(self):
        self.requests_mock.get(TRAITS, [traits(['CUSTOM_A'], 4),
                                        traits(['CUSTOM_A', 'CUSTOM_X'], 5)])
        self.requests_mock.put(
            TRAITS,
            [conflict(), traits(['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_X'], 6)])
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', 'add', RP1, '--trait', 'CUSTOM_B',
            '-f', 'value')
        self.assertEqual(
            ('CUSTOM_A\nCUSTOM_B\nCUSTOM_X\n', '', 0),
            (out, err, code))
        self.assertEqual(
            ['GET', 'PUT', 'GET', 'PUT'],
            [m for m, _ in self.sent()])
        self.assertEqual(
            [
                {'resource_provider_generation': 4,
                 'traits': ['CUSTOM_A', 'CUSTOM_B']},
                {'resource_provider_generation': 5,
                 'traits': ['CUSTOM_A', 'CUSTOM_X', 'CUSTOM_B']}],
            self.put_bodies())

    def test_retry_finds_the_change_already_made(self):
        # Another client added the very trait: after the re-read, no write.
        self.requests_mock.get(
            TRAITS, [traits([], 4), traits(['CUSTOM_B'], 5)])
        self.requests_mock.put(TRAITS, **conflict())
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', 'add', RP1, '--trait', 'CUSTOM_B',
            '-f', 'value')
        self.assertEqual(('CUSTOM_B\n', '', 0), (out, err, code))
        self.assertEqual(['GET', 'PUT', 'GET'], [m for m, _ in self.sent()])

    def test_a_conflict_of_another_kind_is_not_retried(self):
        self.requests_mock.get(TRAITS, **traits([], 1))
        self.requests_mock.put(
            TRAITS, **conflict(code='placement.undefined_code'))
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', 'add', RP1, '--trait', 'CUSTOM_B')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(CONFLICT_DETAIL + ' (HTTP 409)\n', err)
        self.assertEqual(['GET', 'PUT'], [m for m, _ in self.sent()])

    def test_other_errors_are_not_retried(self):
        self.requests_mock.get(TRAITS, **traits([], 1))
        self.requests_mock.put(
            TRAITS,
            **error(
                400, 'No such trait CUSTOM_NOPE',
                code='placement.undefined_code'))
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', 'add', RP1, '--trait',
            'CUSTOM_NOPE')
        self.assertEqual(
            ('', 'No such trait CUSTOM_NOPE (HTTP 400)\n',
             1),
            (out, err, code))
        self.assertEqual(['GET', 'PUT'], [m for m, _ in self.sent()])

    def test_before_1_23_a_conflict_without_code_is_retried(self):
        # Placement sends error codes from 1.23 only; a 409 to this PUT can
        # only be a generation conflict.
        self.requests_mock.get(
            TRAITS, [traits([], 1), traits(['CUSTOM_X'], 2)])
        self.requests_mock.put(TRAITS, [conflict(code=None),
                                        traits(['CUSTOM_B', 'CUSTOM_X'], 3)])
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', 'add', RP1, '--trait', 'CUSTOM_B',
            '-f', 'value', version='1.6')
        self.assertEqual(('CUSTOM_B\nCUSTOM_X\n', '', 0), (out, err, code))
        self.assertEqual(
            ['GET', 'PUT', 'GET', 'PUT'],
            [m for m, _ in self.sent()])

    def test_a_conflict_with_a_body_that_is_not_json_is_retried(self):
        self.requests_mock.get(TRAITS, [traits([], 1), traits([], 2)])
        self.requests_mock.put(
            TRAITS,
            [{'status_code': 409, 'text': '<html>busy</html>'},
             traits(['CUSTOM_B'], 3)])
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', 'add', RP1, '--trait', 'CUSTOM_B',
            '-f', 'value')
        self.assertEqual(('CUSTOM_B\n', '', 0), (out, err, code))


class TestTraitName(TraitTestCase):

    scenarios = [(verb, {'verb': verb, 'method': method})
                 for verb, method in [('show', 'GET'), ('create', 'PUT'),
                                      ('delete', 'DELETE')]]

    def test_trait_name_is_one_encoded_path_segment(self):
        self.requests_mock.register_uri(
            self.method, requests_mock.ANY, status_code=204)
        out, err, code = self.openstack('trait', self.verb, 'CUSTOM_A/B?c=1')
        self.assertEqual(0, code, err)
        self.assertEqual(
            [(self.method, '/traits/CUSTOM_A%2FB%3Fc%3D1')],
            self.sent())


class TestTraitGate(TraitTestCase):

    scenarios = [(' '.join(argv), {'argv': argv}) for argv in [
        ['trait', 'list'], ['trait', 'show', 'CUSTOM_A'],
        ['trait', 'create', 'CUSTOM_A'], ['trait', 'delete', 'CUSTOM_A'],
        ['resource', 'provider', 'trait', 'list', RP1],
        ['resource', 'provider', 'trait', 'set', RP1],
        ['resource', 'provider', 'trait', 'delete', RP1],
        ['resource', 'provider', 'trait', 'add', RP1, '--trait',
         'CUSTOM_A'],
        ['resource', 'provider', 'trait', 'remove', RP1, '--trait',
         'CUSTOM_A'],
    ]]

    def test_every_trait_command_needs_1_6(self):
        out, err, code = self.openstack(*self.argv, version='1.5')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            'Operation or argument is not supported with version '
            '1.5; requires at least version 1.6\n',
            err)
        self.assertEqual([], self.sent())


class TestProviderTraitsByName(TraitTestCase):

    scenarios = [(verb, {'verb': verb, 'method': method, 'path': path})
                 for verb, method, path in [('list', 'GET', '/traits'),
                                            ('delete', 'DELETE', '/traits')]]

    def test_provider_by_name(self):
        self.by_name('compute-1', RP1)
        self.requests_mock.register_uri(
            self.method, TRAITS, **traits(['CUSTOM_A'], 1))
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', self.verb, 'compute-1')
        self.assertEqual(0, code, err)
        self.assertEqual(
            [('GET', '/resource_providers?name=compute-1'),
             (self.method, '/resource_providers/%s%s' % (RP1, self.path))],
            self.sent())


class TestTraitRetries(TraitTestCase):

    scenarios = [(verb, {'verb': verb}) for verb in ('add', 'remove')]

    def test_gives_up_after_three_attempts_with_server_message(self):
        self.requests_mock.get(
            TRAITS,
            [traits(['CUSTOM_A'], 1), traits(['CUSTOM_A'], 2),
             traits(['CUSTOM_A'], 3)])
        self.requests_mock.put(TRAITS, **conflict())
        trait = 'CUSTOM_B' if self.verb == 'add' else 'CUSTOM_A'
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', self.verb, RP1, '--trait', trait)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(CONFLICT_GUIDED + ' (HTTP 409)\n', err)
        self.assertEqual(['GET', 'PUT'] * 3, [m for m, _ in self.sent()])
        self.assertEqual(
            [1, 2, 3],
            [b['resource_provider_generation']
             for b in self.put_bodies()])


class TestTraitOption(TraitTestCase):

    scenarios = [(verb, {'verb': verb}) for verb in ('add', 'remove')]

    def test_trait_option_is_required_and_not_empty(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', self.verb, RP1)
        self.assertEqual(2, code)
        self.assertIn('the following arguments are required: --trait', err)
        out, err, code = self.openstack(
            'resource', 'provider', 'trait', self.verb, RP1, '--trait', '')
        self.assertEqual(2, code)
        self.assertIn('must not be empty', err)
        self.assertEqual([], self.sent())


# Bad values, refused before any request (see base.RefusedLocallyTestCase).

BAD_VALUES = base.empty_positionals([
    ('resource provider trait list', (), ()),
    ('resource provider trait set', (), ('--trait', 'CUSTOM_A')),
    ('resource provider trait delete', (), ()),
    ('resource provider trait add', (), ('--trait', 'CUSTOM_A')),
    ('resource provider trait remove', (), ('--trait', 'CUSTOM_A')),
    ('resource provider trait add', (RP1, '--trait'), ()),
    ('resource provider trait remove', (RP1, '--trait'), ()),
    ('trait show', (), ()),
    ('trait create', (), ()),
    ('trait delete', (), ()),
    ('trait delete', ('CUSTOM_A',), ()),
]) + [
    base.empty_value('trait show', version='1.6'),
    base.bad_value('empty-trait-set-trait',
                   ['resource', 'provider', 'trait', 'set', RP1, '--trait',
                    ''], 2, ['--trait', 'empty']),
]

# Malformed values that the server judges (see
# base.JudgedByTheServerTestCase).
ROUND_TRIPS = [
    ('trait-create-bad-name-recorded',
     ['--os-placement-api-version', '1.6', 'trait', 'create',
      'BAD_TRAIT'],
     ('PUT', '/traits/BAD_TRAIT', []), None),
]


class TestRefusedLocally(base.RefusedLocallyTestCase):

    scenarios = BAD_VALUES


class TestJudgedByTheServer(base.JudgedByTheServerTestCase):

    scenarios = base.round_trips(ROUND_TRIPS)


class TestCaseIds(base.CaseIdsTestCase):

    tables = (BAD_VALUES, ROUND_TRIPS)
