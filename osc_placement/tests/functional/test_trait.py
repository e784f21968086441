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

import pytest

from osc_placement import http as placement_http

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
RP2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
RP1_TRAITS = '/resource_providers/%s/traits' % RP1
GATE = ('Operation or argument is not supported with version %s; '
        'requires at least version %s\n')
CONFLICT = ("Resource provider's generation already changed. Please update "
            "the generation and try again. (HTTP 409)\n")


@pytest.fixture
def cloud(placement):
    """compute-1 with HW_CPU_X86_AVX; compute-2 with none; CUSTOM_GOLD,
    CUSTOM_SILVER and CUSTOM_BRONZE exist."""
    for name, uuid in (('compute-1', RP1), ('compute-2', RP2)):
        placement.api('POST', '/resource_providers',
                      body={'name': name, 'uuid': uuid})
    for trait in ('CUSTOM_GOLD', 'CUSTOM_SILVER', 'CUSTOM_BRONZE'):
        placement.api('PUT', '/traits/' + trait)
    placement.api('PUT', RP1_TRAITS, body={
        'resource_provider_generation': 0, 'traits': ['HW_CPU_X86_AVX']})
    return placement


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

    def __init__(self, monkeypatch, method, path, action, times=1):
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

        monkeypatch.setattr(placement_http.SessionClient, 'request', request)

    def sent(self, method=None):
        """The requests sent, without the version negotiation."""
        return [c for c in self.calls if c[1] != '/'
                and (method is None or c[0] == method)]


# trait list

@pytest.mark.parametrize('version', [None, '1.6'])
def test_list_all(cloud, version):
    rows = cloud.ok('trait', 'list', '-f', 'json', version=version)
    assert names(rows) == sorted(all_traits(cloud))
    assert {'name': 'CUSTOM_GOLD'} in rows
    assert {'name': 'HW_CPU_X86_AVX'} in rows


def test_list_name_startswith(cloud):
    rows = cloud.ok('trait', 'list', '--name', 'startswith:CUSTOM_', '-f',
                    'json')
    assert names(rows) == ['CUSTOM_BRONZE', 'CUSTOM_GOLD', 'CUSTOM_SILVER']


def test_list_name_in(cloud):
    rows = cloud.ok('trait', 'list', '--name',
                    'in:CUSTOM_GOLD,HW_CPU_X86_SSE,CUSTOM_NOPE', '-f', 'json')
    assert names(rows) == ['CUSTOM_GOLD', 'HW_CPU_X86_SSE']


def test_list_associated(cloud):
    direct_add(cloud, 'CUSTOM_GOLD', uuid=RP2)
    rows = cloud.ok('trait', 'list', '--associated', '-f', 'json')
    assert names(rows) == ['CUSTOM_GOLD', 'HW_CPU_X86_AVX']
    rows = cloud.ok('trait', 'list', '--associated', '--name',
                    'startswith:CUSTOM_', '-f', 'json')
    assert names(rows) == ['CUSTOM_GOLD']


def test_list_bad_filter(cloud):
    err, code = cloud.fail('trait', 'list', '--name', 'CUSTOM_GOLD')
    assert code == 1
    assert err.startswith('Badly formatted name parameter.')
    assert err.endswith('Got: "CUSTOM_GOLD" (HTTP 400)\n')


@pytest.mark.parametrize('argv', [
    ['trait', 'list'], ['trait', 'show', 'CUSTOM_GOLD'],
    ['trait', 'create', 'CUSTOM_NEW'], ['trait', 'delete', 'CUSTOM_GOLD'],
    ['resource', 'provider', 'trait', 'list', RP1],
    ['resource', 'provider', 'trait', 'set', RP1, '--trait', 'CUSTOM_GOLD'],
    ['resource', 'provider', 'trait', 'delete', RP1],
    ['resource', 'provider', 'trait', 'add', RP1, '--trait', 'CUSTOM_GOLD'],
    ['resource', 'provider', 'trait', 'remove', RP1, '--trait',
     'HW_CPU_X86_AVX'],
])
def test_every_command_needs_1_6(cloud, argv):
    before = (sorted(all_traits(cloud)), rp_traits(cloud))
    out, err, code = cloud.run(*argv, version='1.5')
    assert (out, err, code) == ('', GATE % ('1.5', '1.6'), 1)
    assert (sorted(all_traits(cloud)), rp_traits(cloud)) == before


# trait show|create|delete

@pytest.mark.parametrize('version', [None, '1.6'])
def test_show(cloud, version):
    row = cloud.ok('trait', 'show', 'CUSTOM_GOLD', '-f', 'json',
                   version=version)
    assert row == {'name': 'CUSTOM_GOLD'}


def test_show_missing(cloud):
    err, code = cloud.fail('trait', 'show', 'CUSTOM_NOPE')
    assert (err, code) == ('No such trait(s): CUSTOM_NOPE. (HTTP 404)\n', 1)


def test_show_name_is_one_path_segment(cloud):
    err, code = cloud.fail('trait', 'show', 'CUSTOM_GOLD/x?y=1')
    assert code == 1
    assert 'HTTP 404' in err
    err, code = cloud.fail('trait', 'show', '')
    assert code == 2
    assert 'must not be empty' in err


@pytest.mark.parametrize('version', [None, '1.6'])
def test_create(cloud, version):
    assert cloud.ok('trait', 'create', 'CUSTOM_NEW', version=version) == ''
    assert 'CUSTOM_NEW' in all_traits(cloud)
    # Creating it again succeeds.
    assert cloud.ok('trait', 'create', 'CUSTOM_NEW', version=version) == ''


def test_create_invalid_name(cloud):
    err, code = cloud.fail('trait', 'create', 'CUSTOM_lower')
    assert (err, code) == (
        'The trait is invalid. A valid trait must be no longer than 255 '
        'characters, start with the prefix "CUSTOM_" and use following '
        'characters: "A"-"Z", "0"-"9" and "_" (HTTP 400)\n', 1)
    assert 'CUSTOM_lower' not in all_traits(cloud)


@pytest.mark.parametrize('version', [None, '1.6'])
def test_delete(cloud, version):
    assert cloud.ok('trait', 'delete', 'CUSTOM_GOLD', version=version) == ''
    assert 'CUSTOM_GOLD' not in all_traits(cloud)


def test_delete_in_use(cloud):
    direct_add(cloud, 'CUSTOM_GOLD')
    err, code = cloud.fail('trait', 'delete', 'CUSTOM_GOLD')
    assert (err, code) == (
        'The trait CUSTOM_GOLD is in use by a resource provider. '
        '(HTTP 409)\n', 1)
    assert 'CUSTOM_GOLD' in all_traits(cloud)


def test_delete_missing(cloud):
    err, code = cloud.fail('trait', 'delete', 'CUSTOM_NOPE')
    assert (err, code) == ('No such trait(s): CUSTOM_NOPE. (HTTP 404)\n', 1)


def test_delete_several(cloud):
    assert cloud.ok('trait', 'delete', 'CUSTOM_GOLD', 'CUSTOM_SILVER') == ''
    left = all_traits(cloud)
    assert 'CUSTOM_GOLD' not in left and 'CUSTOM_SILVER' not in left
    assert 'CUSTOM_BRONZE' in left


def test_delete_several_goes_on_after_failures(cloud):
    direct_add(cloud, 'CUSTOM_SILVER')
    out, err, code = cloud.run('trait', 'delete', 'CUSTOM_GOLD',
                               'CUSTOM_SILVER', 'CUSTOM_NOPE',
                               'CUSTOM_BRONZE')
    assert (out, code) == ('', 1)
    assert err.splitlines() == [
        'Failed to delete trait CUSTOM_SILVER: The trait CUSTOM_SILVER is '
        'in use by a resource provider. (HTTP 409)',
        'Failed to delete trait CUSTOM_NOPE: No such trait(s): '
        'CUSTOM_NOPE. (HTTP 404)',
        'Failed to delete 2 of 4 traits.']
    left = all_traits(cloud)
    assert 'CUSTOM_SILVER' in left
    assert 'CUSTOM_GOLD' not in left and 'CUSTOM_BRONZE' not in left


# resource provider trait list|set|delete

@pytest.mark.parametrize('version', [None, '1.6'])
@pytest.mark.parametrize('rp', [RP1, 'compute-1'])
def test_provider_trait_list(cloud, version, rp):
    rows = cloud.ok('resource', 'provider', 'trait', 'list', rp, '-f',
                    'json', version=version)
    assert rows == [{'name': 'HW_CPU_X86_AVX'}]


def test_provider_trait_list_unknown_provider(cloud):
    err, code = cloud.fail('resource', 'provider', 'trait', 'list',
                           'compute-9')
    assert (err, code) == (
        "No resource provider with name or UUID 'compute-9' found.\n", 1)


@pytest.mark.parametrize('version', [None, '1.6'])
@pytest.mark.parametrize('rp', [RP1, 'compute-1'])
def test_provider_trait_set_replaces_all(cloud, version, rp):
    rows = cloud.ok('resource', 'provider', 'trait', 'set', rp, '--trait',
                    'CUSTOM_GOLD', '--trait', 'CUSTOM_SILVER', '-f', 'json',
                    version=version)
    assert names(rows) == ['CUSTOM_GOLD', 'CUSTOM_SILVER']
    assert rp_traits(cloud) == ['CUSTOM_GOLD', 'CUSTOM_SILVER']


def test_provider_trait_set_nothing_removes_all(cloud):
    assert cloud.ok('resource', 'provider', 'trait', 'set', RP1, '-f',
                    'json') == []
    assert rp_traits(cloud) == []


def test_provider_trait_set_unknown_trait(cloud):
    err, code = cloud.fail('resource', 'provider', 'trait', 'set', RP1,
                           '--trait', 'CUSTOM_NOPE')
    assert (err, code) == ('No such trait CUSTOM_NOPE (HTTP 400)\n', 1)
    assert rp_traits(cloud) == ['HW_CPU_X86_AVX']


def test_provider_trait_set_losing_a_race_fails_and_is_not_retried(
        cloud, monkeypatch):
    staged = Interleave(monkeypatch, 'GET', '/resource_providers/' + RP1,
                        lambda: direct_add(cloud, 'CUSTOM_BRONZE'))
    out, err, code = cloud.run('resource', 'provider', 'trait', 'set', RP1,
                               '--trait', 'CUSTOM_GOLD')
    assert (out, err, code) == ('', CONFLICT, 1)
    assert staged.sent('PUT') == [('PUT', RP1_TRAITS, 409)]
    # The other writer's change stands; ours was not applied.
    assert rp_traits(cloud) == ['CUSTOM_BRONZE', 'HW_CPU_X86_AVX']


@pytest.mark.parametrize('version', [None, '1.6'])
@pytest.mark.parametrize('rp', [RP1, 'compute-1'])
def test_provider_trait_delete(cloud, version, rp):
    assert cloud.ok('resource', 'provider', 'trait', 'delete', rp,
                    version=version) == ''
    assert rp_traits(cloud) == []


# resource provider trait add|remove

@pytest.mark.parametrize('version', [None, '1.6', '1.39'])
@pytest.mark.parametrize('rp', [RP1, 'compute-1'])
def test_add_keeps_the_other_traits(cloud, version, rp):
    rows = cloud.ok('resource', 'provider', 'trait', 'add', rp, '--trait',
                    'CUSTOM_GOLD', '--trait', 'CUSTOM_SILVER', '-f', 'json',
                    version=version)
    expected = ['CUSTOM_GOLD', 'CUSTOM_SILVER', 'HW_CPU_X86_AVX']
    assert names(rows) == expected
    assert rp_traits(cloud) == expected


def test_add_of_a_trait_already_set_changes_nothing(cloud):
    generation = cloud.api('GET', RP1_TRAITS)['resource_provider_generation']
    rows = cloud.ok('resource', 'provider', 'trait', 'add', RP1, '--trait',
                    'HW_CPU_X86_AVX', '-f', 'json')
    assert rows == [{'name': 'HW_CPU_X86_AVX'}]
    assert cloud.api('GET', RP1_TRAITS)[
        'resource_provider_generation'] == generation


def test_add_unknown_trait(cloud):
    err, code = cloud.fail('resource', 'provider', 'trait', 'add', RP1,
                           '--trait', 'CUSTOM_NOPE')
    assert (err, code) == ('No such trait CUSTOM_NOPE (HTTP 400)\n', 1)
    assert rp_traits(cloud) == ['HW_CPU_X86_AVX']


def test_add_unknown_provider(cloud):
    err, code = cloud.fail('resource', 'provider', 'trait', 'add',
                           'aaaaaaaa-aaaa-4aaa-8aaa-000000000999', '--trait',
                           'CUSTOM_GOLD')
    # The server's own message, as it words it for this path.
    assert (err, code) == (
        'No resource provider with uuid aaaaaaaa-aaaa-4aaa-8aaa-000000000999 '
        'found: No resource provider with uuid '
        'aaaaaaaa-aaaa-4aaa-8aaa-000000000999 found (HTTP 404)\n', 1)


@pytest.mark.parametrize('version', [None, '1.6'])
@pytest.mark.parametrize('rp', [RP1, 'compute-1'])
def test_remove_keeps_the_other_traits(cloud, version, rp):
    direct_add(cloud, 'CUSTOM_GOLD')
    direct_add(cloud, 'CUSTOM_SILVER')
    rows = cloud.ok('resource', 'provider', 'trait', 'remove', rp,
                    '--trait', 'CUSTOM_GOLD', '--trait', 'HW_CPU_X86_AVX',
                    '--trait', 'CUSTOM_BRONZE', '-f', 'json', version=version)
    assert rows == [{'name': 'CUSTOM_SILVER'}]
    assert rp_traits(cloud) == ['CUSTOM_SILVER']


@pytest.mark.parametrize('version', [None, '1.6', '1.39'])
def test_concurrent_add_both_traits_end_up_set(cloud, monkeypatch, version):
    # Another agent adds CUSTOM_SILVER between our read and our write: our
    # write is refused (generation), we read again and write the union.
    staged = Interleave(monkeypatch, 'GET', RP1_TRAITS,
                        lambda: direct_add(cloud, 'CUSTOM_SILVER'))
    rows = cloud.ok('resource', 'provider', 'trait', 'add', RP1, '--trait',
                    'CUSTOM_GOLD', '-f', 'json', version=version)
    expected = ['CUSTOM_GOLD', 'CUSTOM_SILVER', 'HW_CPU_X86_AVX']
    assert names(rows) == expected
    assert rp_traits(cloud) == expected
    assert staged.sent() == [('GET', RP1_TRAITS, 200),
                             ('PUT', RP1_TRAITS, 409),
                             ('GET', RP1_TRAITS, 200),
                             ('PUT', RP1_TRAITS, 200)]


def test_two_concurrent_trait_add_commands(cloud, monkeypatch):
    # The other writer is a second `openstack resource provider trait add`
    # that runs to completion between our read and our write.
    other = []

    def second_command():
        other.append(cloud.run('resource', 'provider', 'trait', 'add',
                               'compute-1', '--trait', 'CUSTOM_SILVER',
                               '-f', 'value'))

    staged = Interleave(monkeypatch, 'GET', RP1_TRAITS, second_command)
    rows = cloud.ok('resource', 'provider', 'trait', 'add', 'compute-1',
                    '--trait', 'CUSTOM_GOLD', '-f', 'json')
    assert other == [('CUSTOM_SILVER\nHW_CPU_X86_AVX\n', '', 0)]
    expected = ['CUSTOM_GOLD', 'CUSTOM_SILVER', 'HW_CPU_X86_AVX']
    assert names(rows) == expected
    assert rp_traits(cloud) == expected
    # Ours: lookup, read, refused write; the other command's lookup, read
    # and write; ours again: read, write.
    assert [(m, s) for m, _, s in staged.sent()] == [
        ('GET', 200), ('GET', 200),
        ('GET', 200), ('GET', 200), ('PUT', 200),
        ('PUT', 409), ('GET', 200), ('PUT', 200)]


def test_concurrent_remove_keeps_the_other_writers_trait(cloud, monkeypatch):
    staged = Interleave(monkeypatch, 'GET', RP1_TRAITS,
                        lambda: direct_add(cloud, 'CUSTOM_SILVER'))
    rows = cloud.ok('resource', 'provider', 'trait', 'remove', RP1,
                    '--trait', 'HW_CPU_X86_AVX', '-f', 'json')
    assert rows == [{'name': 'CUSTOM_SILVER'}]
    assert rp_traits(cloud) == ['CUSTOM_SILVER']
    assert len(staged.sent('PUT')) == 2


@pytest.mark.parametrize('version', [None, '1.6'])
def test_add_gives_up_after_three_attempts(cloud, monkeypatch, version):
    others = iter(['CUSTOM_SILVER', 'CUSTOM_BRONZE', 'HW_CPU_X86_SSE'])
    staged = Interleave(monkeypatch, 'GET', RP1_TRAITS,
                        lambda: direct_add(cloud, next(others)), times=3)
    out, err, code = cloud.run('resource', 'provider', 'trait', 'add', RP1,
                               '--trait', 'CUSTOM_GOLD', version=version)
    assert (out, err, code) == ('', CONFLICT, 1)
    assert [(m, s) for m, _, s in staged.sent()] == [
        ('GET', 200), ('PUT', 409)] * 3
    # Only the other writer's changes were applied.
    assert rp_traits(cloud) == ['CUSTOM_BRONZE', 'CUSTOM_SILVER',
                                'HW_CPU_X86_AVX', 'HW_CPU_X86_SSE']
