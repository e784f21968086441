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

"""Trait commands against a real Placement.

The server runs in this process (wsgi-intercept), so two clients cannot
race from two processes. The races are staged instead: the CLI's HTTP
layer is wrapped so that another writer (a direct API call, or a second
``openstack`` command) changes the provider right after the CLI has read
it and before it writes.
"""

import fixtures
import testscenarios

from osc_placement.http import client as placement_http
from osc_placement import tests
from osc_placement.tests.functional import base

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
RP2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
RP1_TRAITS = '/resource_providers/%s/traits' % RP1
GATE = ('Operation or argument is not supported with version %s; '
        'requires at least version %s\n')
PLAIN_CONFLICT = ("Resource provider's generation already changed. Please "
                  "update the generation and try again. (HTTP 409)\n")
# With what to do (issue 26).
CONFLICT = (
    "Resource provider's generation already changed. Please update the "
    "generation and try again. Resource provider %s changed since it was "
    "read: read it again with \"openstack resource provider show %s\", "
    "then run the command again (HTTP 409)\n" % (RP1, RP1))
# compute-1 named by its UUID or by its name.
PROVIDER_BY = [('uuid', {'rp': RP1}), ('name', {'rp': 'compute-1'})]

load_tests = testscenarios.load_tests_apply_scenarios


def rp_traits(placement, uuid=RP1):
    return sorted(placement.api(
        'GET', '/resource_providers/%s/traits' % uuid)['traits'])


def all_traits(placement):
    return placement.api('GET', '/traits')['traits']


def direct_add(placement, trait, uuid=RP1):
    """Another writer: add a trait with the API, bumping the generation."""
    path = '/resource_providers/%s/traits' % uuid
    current = placement.api('GET', path)
    placement.api('PUT', path, body={
        'resource_provider_generation':
            current['resource_provider_generation'],
        'traits': current['traits'] + [trait]})


def names(rows):
    return sorted(r['name'] for r in rows)


class Interleave(object):
    """Wraps the CLI's requests; runs ``action`` after matching ones.

    ``times``: how many matching requests trigger the action. Every request
    the CLI sends is recorded in ``calls`` as (method, path, status).
    """

    def __init__(self, test, method, path, action, times=1):
        self.calls = []
        self.remaining = times
        real = placement_http.SessionClient.request

        def request(client, req_method, url, **kwargs):
            try:
                resp = real(client, req_method, url, **kwargs)
            except Exception as exc:
                self.calls.append((req_method, url,
                                   getattr(exc, 'http_status', None)))
                raise
            self.calls.append((req_method, url, resp.status_code))
            if (req_method, url) == (method, path) and self.remaining:
                self.remaining -= 1
                action()
            return resp

        test.useFixture(fixtures.MonkeyPatch(
            'osc_placement.http.SessionClient.request', request))

    def sent(self, method=None):
        """The requests sent, without the version negotiation."""
        return [c for c in self.calls if c[1] != '/'
                and (method is None or c[0] == method)]


class CloudTestCase(base.TestCase):
    """Two providers, three custom traits.

    compute-1 has HW_CPU_X86_AVX, compute-2 has no trait; CUSTOM_GOLD,
    CUSTOM_SILVER and CUSTOM_BRONZE exist.
    """

    def setUp(self):
        super().setUp()
        for name, uuid in (('compute-1', RP1), ('compute-2', RP2)):
            tests.create_provider(self, uuid, name)
        for trait in ('CUSTOM_GOLD', 'CUSTOM_SILVER', 'CUSTOM_BRONZE'):
            self.api('PUT', '/traits/' + trait)
        self.api('PUT', RP1_TRAITS, body={
            'resource_provider_generation': 0, 'traits': ['HW_CPU_X86_AVX']})


class TestTraitAtEachVersion(CloudTestCase):
    scenarios = base.versions(None, '1.6')

    def test_list_all(self):
        rows = self.ok('trait', 'list', '-f', 'json', version=self.version)
        self.assertEqual(sorted(all_traits(self)), names(rows))
        self.assertIn({'name': 'CUSTOM_GOLD'}, rows)
        self.assertIn({'name': 'HW_CPU_X86_AVX'}, rows)

    def test_show(self):
        row = self.ok('trait', 'show', 'CUSTOM_GOLD', '-f', 'json',
                      version=self.version)
        self.assertEqual({'name': 'CUSTOM_GOLD'}, row)

    def test_create(self):
        out = self.ok('trait', 'create', 'CUSTOM_NEW', version=self.version)
        self.assertEqual('', out)
        self.assertIn('CUSTOM_NEW', all_traits(self))
        # Creating it again succeeds.
        out = self.ok('trait', 'create', 'CUSTOM_NEW', version=self.version)
        self.assertEqual('', out)

    def test_delete(self):
        out = self.ok('trait', 'delete', 'CUSTOM_GOLD', version=self.version)
        self.assertEqual('', out)
        self.assertNotIn('CUSTOM_GOLD', all_traits(self))

    def test_add_gives_up_after_three_attempts(self):
        others = iter(['CUSTOM_SILVER', 'CUSTOM_BRONZE', 'HW_CPU_X86_SSE'])
        staged = Interleave(self, 'GET', RP1_TRAITS,
                            lambda: direct_add(self, next(others)), times=3)
        out, err, code = self.openstack('resource', 'provider', 'trait',
                                        'add', RP1, '--trait', 'CUSTOM_GOLD',
                                        version=self.version)
        # Below 1.23 Placement gives no error code: no guidance.
        expected = CONFLICT if self.version is None else PLAIN_CONFLICT
        self.assertEqual(('', expected, 1), (out, err, code))
        self.assertEqual([('GET', 200), ('PUT', 409)] * 3,
                         [(m, s) for m, _, s in staged.sent()])
        # Only the other writer's changes were applied.
        self.assertEqual(['CUSTOM_BRONZE', 'CUSTOM_SILVER',
                          'HW_CPU_X86_AVX', 'HW_CPU_X86_SSE'], rp_traits(self))


class TestTrait(CloudTestCase):

    def test_list_name_startswith(self):
        rows = self.ok('trait', 'list', '--name', 'startswith:CUSTOM_', '-f',
                       'json')
        self.assertEqual(['CUSTOM_BRONZE', 'CUSTOM_GOLD', 'CUSTOM_SILVER'],
                         names(rows))

    def test_list_name_in(self):
        rows = self.ok('trait', 'list', '--name',
                       'in:CUSTOM_GOLD,HW_CPU_X86_SSE,CUSTOM_NOPE',
                       '-f', 'json')
        self.assertEqual(['CUSTOM_GOLD', 'HW_CPU_X86_SSE'], names(rows))

    def test_list_associated(self):
        direct_add(self, 'CUSTOM_GOLD', uuid=RP2)
        rows = self.ok('trait', 'list', '--associated', '-f', 'json')
        self.assertEqual(['CUSTOM_GOLD', 'HW_CPU_X86_AVX'], names(rows))
        rows = self.ok('trait', 'list', '--associated', '--name',
                       'startswith:CUSTOM_', '-f', 'json')
        self.assertEqual(['CUSTOM_GOLD'], names(rows))

    def test_list_bad_filter(self):
        err, code = self.fails('trait', 'list', '--name', 'CUSTOM_GOLD')
        self.assertEqual(1, code)
        self.assertTrue(err.startswith('Badly formatted name parameter.'), err)
        self.assertTrue(err.endswith('Got: "CUSTOM_GOLD" (HTTP 400)\n'), err)

    def test_show_missing(self):
        err, code = self.fails('trait', 'show', 'CUSTOM_NOPE')
        self.assertEqual(('No such trait(s): CUSTOM_NOPE. (HTTP 404)\n', 1),
                         (err, code))

    def test_show_name_is_one_path_segment(self):
        err, code = self.fails('trait', 'show', 'CUSTOM_GOLD/x?y=1')
        self.assertEqual(1, code)
        self.assertIn('HTTP 404', err)
        err, code = self.fails('trait', 'show', '')
        self.assertEqual(2, code)
        self.assertIn('must not be empty', err)

    def test_create_invalid_name(self):
        err, code = self.fails('trait', 'create', 'CUSTOM_lower')
        self.assertEqual((
            'The trait is invalid. A valid trait must be no longer than 255 '
            'characters, start with the prefix "CUSTOM_" and use following '
            'characters: "A"-"Z", "0"-"9" and "_" (HTTP 400)\n', 1),
            (err, code))
        self.assertNotIn('CUSTOM_lower', all_traits(self))

    def test_delete_in_use(self):
        direct_add(self, 'CUSTOM_GOLD')
        err, code = self.fails('trait', 'delete', 'CUSTOM_GOLD')
        self.assertEqual((
            'The trait CUSTOM_GOLD is in use by a resource provider. '
            '(HTTP 409)\n', 1), (err, code))
        self.assertIn('CUSTOM_GOLD', all_traits(self))

    def test_delete_missing(self):
        err, code = self.fails('trait', 'delete', 'CUSTOM_NOPE')
        self.assertEqual(('No such trait(s): CUSTOM_NOPE. (HTTP 404)\n', 1),
                         (err, code))

    def test_delete_several(self):
        out = self.ok('trait', 'delete', 'CUSTOM_GOLD', 'CUSTOM_SILVER')
        self.assertEqual('', out)
        left = all_traits(self)
        self.assertNotIn('CUSTOM_GOLD', left)
        self.assertNotIn('CUSTOM_SILVER', left)
        self.assertIn('CUSTOM_BRONZE', left)

    def test_delete_several_goes_on_after_failures(self):
        direct_add(self, 'CUSTOM_SILVER')
        out, err, code = self.openstack('trait', 'delete', 'CUSTOM_GOLD',
                                        'CUSTOM_SILVER', 'CUSTOM_NOPE',
                                        'CUSTOM_BRONZE')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual([
            'Failed to delete trait CUSTOM_SILVER: The trait CUSTOM_SILVER is '
            'in use by a resource provider. (HTTP 409)',
            'Failed to delete trait CUSTOM_NOPE: No such trait(s): '
            'CUSTOM_NOPE. (HTTP 404)',
            'Failed to delete 2 of 4 traits.'], err.splitlines())
        left = all_traits(self)
        self.assertIn('CUSTOM_SILVER', left)
        self.assertNotIn('CUSTOM_GOLD', left)
        self.assertNotIn('CUSTOM_BRONZE', left)

    def test_provider_trait_list_unknown_provider(self):
        err, code = self.fails('resource', 'provider', 'trait', 'list',
                               'compute-9')
        self.assertEqual((
            "No resource provider with name or UUID 'compute-9' found.\n", 1),
            (err, code))

    def test_provider_trait_set_nothing_removes_all(self):
        rows = self.ok('resource', 'provider', 'trait', 'set', RP1,
                       '-f', 'json')
        self.assertEqual([], rows)
        self.assertEqual([], rp_traits(self))

    def test_provider_trait_set_unknown_trait(self):
        err, code = self.fails('resource', 'provider', 'trait', 'set', RP1,
                               '--trait', 'CUSTOM_NOPE')
        self.assertEqual(('No such trait CUSTOM_NOPE (HTTP 400)\n', 1),
                         (err, code))
        self.assertEqual(['HW_CPU_X86_AVX'], rp_traits(self))

    def test_provider_trait_set_losing_a_race_fails_and_is_not_retried(self):
        staged = Interleave(self, 'GET', '/resource_providers/' + RP1,
                            lambda: direct_add(self, 'CUSTOM_BRONZE'))
        out, err, code = self.openstack('resource', 'provider', 'trait',
                                        'set', RP1, '--trait', 'CUSTOM_GOLD')
        self.assertEqual(('', CONFLICT, 1), (out, err, code))
        self.assertEqual([('PUT', RP1_TRAITS, 409)], staged.sent('PUT'))
        # The other writer's change stands; ours was not applied.
        self.assertEqual(['CUSTOM_BRONZE', 'HW_CPU_X86_AVX'], rp_traits(self))

    def test_add_of_a_trait_already_set_changes_nothing(self):
        generation = self.api('GET', RP1_TRAITS)[
            'resource_provider_generation']
        rows = self.ok('resource', 'provider', 'trait', 'add', RP1, '--trait',
                       'HW_CPU_X86_AVX', '-f', 'json')
        self.assertEqual([{'name': 'HW_CPU_X86_AVX'}], rows)
        self.assertEqual(generation, self.api('GET', RP1_TRAITS)[
            'resource_provider_generation'])

    def test_add_unknown_trait(self):
        err, code = self.fails('resource', 'provider', 'trait', 'add', RP1,
                               '--trait', 'CUSTOM_NOPE')
        self.assertEqual(('No such trait CUSTOM_NOPE (HTTP 400)\n', 1),
                         (err, code))
        self.assertEqual(['HW_CPU_X86_AVX'], rp_traits(self))

    def test_add_unknown_provider(self):
        missing = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000999'
        err, code = self.fails('resource', 'provider', 'trait', 'add',
                               missing, '--trait', 'CUSTOM_GOLD')
        # The server's own message, as it words it for this path.
        self.assertEqual((
            'No resource provider with uuid %s found: No resource provider '
            'with uuid %s found (HTTP 404)\n' % (missing, missing), 1),
            (err, code))

    def test_two_concurrent_trait_add_commands(self):
        # The other writer is a second `openstack resource provider trait add`
        # that runs to completion between our read and our write.
        other = []

        def second_command():
            other.append(self.openstack('resource', 'provider', 'trait',
                                        'add', 'compute-1', '--trait',
                                        'CUSTOM_SILVER', '-f', 'value'))

        staged = Interleave(self, 'GET', RP1_TRAITS, second_command)
        rows = self.ok('resource', 'provider', 'trait', 'add', 'compute-1',
                       '--trait', 'CUSTOM_GOLD', '-f', 'json')
        self.assertEqual([('CUSTOM_SILVER\nHW_CPU_X86_AVX\n', '', 0)], other)
        expected = ['CUSTOM_GOLD', 'CUSTOM_SILVER', 'HW_CPU_X86_AVX']
        self.assertEqual(expected, names(rows))
        self.assertEqual(expected, rp_traits(self))
        # Ours: lookup, read, refused write; the other command's lookup, read
        # and write; ours again: read, write.
        self.assertEqual([
            ('GET', 200), ('GET', 200),
            ('GET', 200), ('GET', 200), ('PUT', 200),
            ('PUT', 409), ('GET', 200), ('PUT', 200)],
            [(m, s) for m, _, s in staged.sent()])

    def test_concurrent_remove_keeps_the_other_writers_trait(self):
        staged = Interleave(self, 'GET', RP1_TRAITS,
                            lambda: direct_add(self, 'CUSTOM_SILVER'))
        rows = self.ok('resource', 'provider', 'trait', 'remove', RP1,
                       '--trait', 'HW_CPU_X86_AVX', '-f', 'json')
        self.assertEqual([{'name': 'CUSTOM_SILVER'}], rows)
        self.assertEqual(['CUSTOM_SILVER'], rp_traits(self))
        self.assertEqual(2, len(staged.sent('PUT')))


class TestEveryCommandNeeds16(CloudTestCase):
    scenarios = [
        ('trait-list', {'argv': ['trait', 'list']}),
        ('trait-show', {'argv': ['trait', 'show', 'CUSTOM_GOLD']}),
        ('trait-create', {'argv': ['trait', 'create', 'CUSTOM_NEW']}),
        ('trait-delete', {'argv': ['trait', 'delete', 'CUSTOM_GOLD']}),
        ('provider-trait-list', {'argv': [
            'resource', 'provider', 'trait', 'list', RP1]}),
        ('provider-trait-set', {'argv': [
            'resource', 'provider', 'trait', 'set', RP1, '--trait',
            'CUSTOM_GOLD']}),
        ('provider-trait-delete', {'argv': [
            'resource', 'provider', 'trait', 'delete', RP1]}),
        ('provider-trait-add', {'argv': [
            'resource', 'provider', 'trait', 'add', RP1, '--trait',
            'CUSTOM_GOLD']}),
        ('provider-trait-remove', {'argv': [
            'resource', 'provider', 'trait', 'remove', RP1, '--trait',
            'HW_CPU_X86_AVX']}),
    ]

    def test_every_command_needs_1_6(self):
        before = (sorted(all_traits(self)), rp_traits(self))
        out, err, code = self.openstack(*self.argv, version='1.5')
        self.assertEqual(('', GATE % ('1.5', '1.6'), 1), (out, err, code))
        self.assertEqual(before, (sorted(all_traits(self)), rp_traits(self)))


class TestProviderTraitAtEachVersion(CloudTestCase):
    scenarios = testscenarios.multiply_scenarios(
        base.versions(None, '1.6'), PROVIDER_BY)

    def test_provider_trait_list(self):
        rows = self.ok('resource', 'provider', 'trait', 'list', self.rp, '-f',
                       'json', version=self.version)
        self.assertEqual([{'name': 'HW_CPU_X86_AVX'}], rows)

    def test_provider_trait_set_replaces_all(self):
        rows = self.ok('resource', 'provider', 'trait', 'set', self.rp,
                       '--trait', 'CUSTOM_GOLD', '--trait', 'CUSTOM_SILVER',
                       '-f', 'json', version=self.version)
        self.assertEqual(['CUSTOM_GOLD', 'CUSTOM_SILVER'], names(rows))
        self.assertEqual(['CUSTOM_GOLD', 'CUSTOM_SILVER'], rp_traits(self))

    def test_provider_trait_delete(self):
        out = self.ok('resource', 'provider', 'trait', 'delete', self.rp,
                      version=self.version)
        self.assertEqual('', out)
        self.assertEqual([], rp_traits(self))

    def test_remove_keeps_the_other_traits(self):
        direct_add(self, 'CUSTOM_GOLD')
        direct_add(self, 'CUSTOM_SILVER')
        rows = self.ok('resource', 'provider', 'trait', 'remove', self.rp,
                       '--trait', 'CUSTOM_GOLD', '--trait', 'HW_CPU_X86_AVX',
                       '--trait', 'CUSTOM_BRONZE', '-f', 'json',
                       version=self.version)
        self.assertEqual([{'name': 'CUSTOM_SILVER'}], rows)
        self.assertEqual(['CUSTOM_SILVER'], rp_traits(self))


class TestTraitAddAtEachVersion(CloudTestCase):
    scenarios = testscenarios.multiply_scenarios(
        base.versions(None, '1.6', '1.39'), PROVIDER_BY)

    def test_add_keeps_the_other_traits(self):
        rows = self.ok('resource', 'provider', 'trait', 'add', self.rp,
                       '--trait', 'CUSTOM_GOLD', '--trait', 'CUSTOM_SILVER',
                       '-f', 'json', version=self.version)
        expected = ['CUSTOM_GOLD', 'CUSTOM_SILVER', 'HW_CPU_X86_AVX']
        self.assertEqual(expected, names(rows))
        self.assertEqual(expected, rp_traits(self))


class TestConcurrentTraitAddAtEachVersion(CloudTestCase):
    scenarios = base.versions(None, '1.6', '1.39')

    def test_concurrent_add_both_traits_end_up_set(self):
        # Another agent adds CUSTOM_SILVER between our read and our write: our
        # write is refused (generation), we read again and write the union.
        staged = Interleave(self, 'GET', RP1_TRAITS,
                            lambda: direct_add(self, 'CUSTOM_SILVER'))
        rows = self.ok('resource', 'provider', 'trait', 'add', RP1, '--trait',
                       'CUSTOM_GOLD', '-f', 'json', version=self.version)
        expected = ['CUSTOM_GOLD', 'CUSTOM_SILVER', 'HW_CPU_X86_AVX']
        self.assertEqual(expected, names(rows))
        self.assertEqual(expected, rp_traits(self))
        self.assertEqual([('GET', RP1_TRAITS, 200),
                          ('PUT', RP1_TRAITS, 409),
                          ('GET', RP1_TRAITS, 200),
                          ('PUT', RP1_TRAITS, 200)], staged.sent())
