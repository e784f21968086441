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
import testscenarios

from osc_placement.tests.unit import base

load_tests = testscenarios.load_tests_apply_scenarios

INVALID = 'Invalid response from the Placement API'


class TestInvalidBody(base.TestCase):
    """Each answer lacks what the command reads: one line says so."""

    api_version = '1.39'
    method = 'GET'
    status = 200
    scenarios = [
        ('list_without_its_key', {
            'argv': ['resource', 'provider', 'list'],
            'path': '/resource_providers', 'body': {'providers': []},
            'what': "JSON without the 'resource_providers' key"}),
        ('list_of_the_wrong_type', {
            'argv': ['resource', 'provider', 'list'],
            'path': '/resource_providers', 'body': {'resource_providers': 5},
            'what': "JSON whose 'resource_providers' is not a list"}),
        ('body_that_is_a_list', {
            'argv': ['trait', 'list'], 'path': '/traits', 'body': [],
            'what': "JSON without the 'traits' key"}),
        ('usages_that_are_not_an_object', {
            'argv': ['resource', 'provider', 'usage', 'show', base.RP1],
            'path': '/resource_providers/%s/usages' % base.RP1,
            'body': {'usages': [1]},
            'what': "JSON whose 'usages' is not an object"}),
        ('record_that_is_not_an_object', {
            'argv': ['resource', 'class', 'show', 'CUSTOM_GOLD'],
            'path': '/resource_classes/CUSTOM_GOLD', 'body': ['CUSTOM_GOLD'],
            'what': 'JSON that is not an object'}),
        ('candidates_without_provider_summaries', {
            'argv': ['allocation', 'candidate', 'list', '--resource',
                     'VCPU=1'],
            'path': '/allocation_candidates',
            'body': {'allocation_requests': []},
            'what': "JSON without the 'provider_summaries' key"}),
        ('created_without_a_location', {
            'argv': ['resource', 'provider', 'create', 'rp1'],
            'path': '/resource_providers', 'body': None, 'method': 'POST',
            'status': 201, 'what': 'no Location header'}),
    ]

    def test_one_line_names_the_request_and_what_was_wrong(self):
        url = base.ENDPOINT + self.path
        kwargs = {'status_code': self.status}
        if self.body is not None:
            kwargs['json'] = self.body
        self.requests_mock.register_uri(self.method, url, **kwargs)
        out, err, code = self.openstack(*self.argv)
        self.assertEqual(1, code)
        self.assertEqual('', out)
        query = self.requests_mock.last_request.url[len(url):]
        self.assertEqual(
            '%s: %s %s%s answered HTTP %d with %s\n'
            % (INVALID, self.method, url, query, self.status, self.what),
            err)


class TestOwnBugs(base.TestCase):
    """An exception of the plugin's own code is reported as what it is."""

    api_version = '1.39'

    def setUp(self):
        super().setUp()
        self.requests_mock.get(base.ENDPOINT + '/traits',
                               json={'traits': ['CUSTOM_GOLD']})
        self.requests_mock.get(base.ENDPOINT + '/resource_providers', json={
            'resource_providers': [base.provider('u', 'n')]})

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
        self.assert_reported_as_a_bug(*self.openstack('trait', 'list'))
        self.assertEqual([('GET', '/traits')], self.sent())

    def test_bug_while_cliff_formats_the_rows(self):
        # The rows of provider list are a generator: this runs in cliff's
        # formatting, after take_action has returned.
        self._break('osc_lib.utils.get_dict_properties')
        self.assert_reported_as_a_bug(
            *self.openstack('resource', 'provider', 'list'))

    def test_the_same_command_works_unbroken(self):
        """The control: without the break, the same run succeeds."""
        out, err, code = self.openstack('trait', 'list', '-f', 'value')
        self.assertEqual(('CUSTOM_GOLD\n', '', 0), (out, err, code))
