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

"""A body of the wrong shape is the server's fault; our own bugs are not.

The shape of a successful answer is checked where the command reads it:
one line names the request and the key that was missing. An exception
raised by the plugin itself (a bug) is never disguised as an invalid
response from the Placement API.
"""

import fixtures
from oslotest import base
from requests_mock.contrib import fixture as rm_fixture

from osc_placement.tests import cli

INVALID = 'Invalid response from the Placement API'
PROVIDER = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'


def run(*argv):
    """``openstack <auth> --os-placement-api-version 1.39 <argv>``."""
    return cli.run(cli.auth_argv() + ['--os-placement-api-version', '1.39']
                   + list(argv))


class TestInvalidBody(base.BaseTestCase):
    """Each answer lacks what the command reads: one line says so."""

    def setUp(self):
        super().setUp()
        self.mock = self.useFixture(rm_fixture.Fixture())

    def assert_invalid(self, argv, path, what, body, method='GET',
                       status=200):
        """The command fails with exactly the line naming ``what``."""
        url = cli.ENDPOINT + path
        kwargs = {'status_code': status}
        if body is not None:
            kwargs['json'] = body
        self.mock.register_uri(method, url, **kwargs)
        out, err, code = run(*argv)
        self.assertEqual(1, code)
        self.assertEqual('', out)
        query = self.mock.last_request.url[len(url):]
        self.assertEqual(
            '%s: %s %s%s answered HTTP %d with %s\n'
            % (INVALID, method, url, query, status, what), err)

    def test_list_without_its_key(self):
        self.assert_invalid(
            ['resource', 'provider', 'list'], '/resource_providers',
            "JSON without the 'resource_providers' key",
            body={'providers': []})

    def test_list_of_the_wrong_type(self):
        self.assert_invalid(
            ['resource', 'provider', 'list'], '/resource_providers',
            "JSON whose 'resource_providers' is not a list",
            body={'resource_providers': 5})

    def test_body_that_is_a_list(self):
        self.assert_invalid(['trait', 'list'], '/traits',
                            "JSON without the 'traits' key", body=[])

    def test_usages_that_are_not_an_object(self):
        self.assert_invalid(
            ['resource', 'provider', 'usage', 'show', PROVIDER],
            '/resource_providers/%s/usages' % PROVIDER,
            "JSON whose 'usages' is not an object", body={'usages': [1]})

    def test_record_that_is_not_an_object(self):
        self.assert_invalid(
            ['resource', 'class', 'show', 'CUSTOM_GOLD'],
            '/resource_classes/CUSTOM_GOLD', 'JSON that is not an object',
            body=['CUSTOM_GOLD'])

    def test_candidates_without_provider_summaries(self):
        self.assert_invalid(
            ['allocation', 'candidate', 'list', '--resource', 'VCPU=1'],
            '/allocation_candidates',
            "JSON without the 'provider_summaries' key",
            body={'allocation_requests': []})

    def test_created_without_a_location(self):
        self.assert_invalid(
            ['resource', 'provider', 'create', 'rp1'], '/resource_providers',
            'no Location header', body=None, method='POST', status=201)


class TestOwnBugs(base.BaseTestCase):
    """An exception of the plugin's own code is reported as what it is."""

    def setUp(self):
        super().setUp()
        self.mock = self.useFixture(rm_fixture.Fixture())
        self.mock.get(cli.ENDPOINT + '/traits',
                      json={'traits': ['CUSTOM_GOLD']})
        self.mock.get(cli.ENDPOINT + '/resource_providers', json={
            'resource_providers': [{'uuid': 'u', 'name': 'n',
                                    'generation': 0}]})

    def _break(self, target):
        def broken(*args, **kwargs):
            raise TypeError('bug in the formatting of the rows')
        self.useFixture(fixtures.MonkeyPatch(target, broken))

    def assert_reported_as_a_bug(self, out, err, code):
        self.assertEqual(1, code)
        self.assertIn('bug in the formatting of the rows', err)
        self.assertNotIn(INVALID, err)

    def test_bug_in_take_action(self):
        self._break('osc_placement.resources.trait.trait_rows')
        self.assert_reported_as_a_bug(*run('trait', 'list'))
        self.assertEqual(['GET'],
                         [r.method for r in self.mock.request_history])

    def test_bug_while_cliff_formats_the_rows(self):
        # The rows of provider list are a generator: this runs in cliff's
        # formatting, after take_action has returned.
        self._break('osc_lib.utils.get_dict_properties')
        self.assert_reported_as_a_bug(*run('resource', 'provider', 'list'))

    def test_the_same_command_works_unbroken(self):
        """The control: without the break, the same run succeeds."""
        out, err, code = run('trait', 'list', '-f', 'value')
        self.assertEqual(('CUSTOM_GOLD\n', '', 0), (out, err, code))
