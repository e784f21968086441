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

"""Answers read whole or as they arrive (``http/responses.py``).

A body read as it arrives (``SessionClient.request(read=...)``) gives
the reader's result, and where it cannot be used the same one line as a
body read whole.
"""

import threading

from osc_lib import exceptions
import testscenarios

from osc_placement import errors
from osc_placement.http import inflight
from osc_placement.http import responses
from osc_placement.model import json_members
from osc_placement.tests.unit import base
from osc_placement.tests.unit import clouds
from osc_placement.tests.unit.http import test_client as test_http

load_tests = testscenarios.load_tests_apply_scenarios

URL = base.ENDPOINT + '/traits'


def names(chunks):
    """The reader of a test: the streamed items of 'traits', in a list."""
    return [value for _key, part, value in json_members.members(
        chunks, ('traits',)) if part is json_members.Part.ITEM]


class TestStreamed(base.TestCase):

    def test_the_reader_result(self):
        self.requests_mock.get(URL, json={'traits': ['A', 'B']})
        response = test_http.client().request('GET', '/traits', read=names)
        self.assertEqual(['A', 'B'], response.streamed)
        self.assertEqual(200, response.status_code)

    def test_an_error_status_is_read_whole_and_raised(self):
        self.requests_mock.get(URL, status_code=404, json={'errors': [{
            'status': 404, 'title': 'Not Found', 'detail': 'No trait.'}]})
        read = []
        self.assertRaises(exceptions.NotFound, test_http.client().request,
                          'GET', '/traits', read=read.append)
        self.assertEqual([], read)

    def test_what_the_reader_cannot_use_is_one_line(self):
        def refuse(chunks):
            raise responses.Unusable("JSON without the 'traits' key")
        self.requests_mock.get(URL, json={})
        raised = self.assertRaises(
            errors.InvalidResponse, test_http.client().request, 'GET',
            '/traits', read=refuse)
        self.assertEqual(
            'Invalid response from the Placement API: GET %s answered HTTP '
            "200 with JSON without the 'traits' key" % URL, str(raised))


class TestStreamedUnreadable(base.TestCase):
    """What the streaming reader refuses is one line; a BOM it takes."""

    def test_deep_nesting_the_same_line_either_way(self):
        self.requests_mock.get(URL, text='{"traits": ' + '[' * 100000)
        whole = self.assertRaises(
            errors.InvalidResponse,
            test_http.client().request('GET', '/traits').json)
        streamed = self.assertRaises(
            errors.InvalidResponse, test_http.client().request, 'GET',
            '/traits', read=names)
        self.assertEqual(
            'Invalid response from the Placement API: GET %s answered HTTP '
            '200 with JSON nested too deeply' % URL, str(streamed))
        self.assertEqual(str(whole), str(streamed))

    def test_a_streamed_key_given_twice(self):
        self.requests_mock.get(URL, text='{"traits": ["A"], "traits": []}')
        raised = self.assertRaises(
            errors.InvalidResponse, test_http.client().request, 'GET',
            '/traits', read=names)
        self.assertEqual(
            'Invalid response from the Placement API: GET %s answered HTTP '
            "200 with JSON whose 'traits' is given twice" % URL, str(raised))

    def test_a_bom_at_the_start_is_dropped(self):
        self.requests_mock.get(
            URL, content=b'\xef\xbb\xbf{"traits": ["A"]}',
            headers={'Content-Type': 'application/json'})
        self.assertEqual(['A'], test_http.client().request(
            'GET', '/traits', read=names).streamed)

    def test_a_bom_at_the_start_of_a_whole_body_is_dropped(self):
        self.requests_mock.get(
            URL, content=b'\xef\xbb\xbf{"traits": ["A"]}',
            headers={'Content-Type': 'application/json; charset=UTF-8'})
        self.assertEqual({'traits': ['A']}, test_http.client().request(
            'GET', '/traits').json())


class TestStreamedWithDebug(clouds.TwoTrees):
    """With --debug keystoneauth logs a JSON body whole; it is still read.

    Explain's candidates answer is logged (``RESP BODY``) and read as it
    arrives, its rows as without --debug.
    """

    def test_debug_lines_and_the_rows(self):
        self.requests_mock.get(
            base.ENDPOINT + '/allocation_candidates',
            headers={'Content-Type': 'application/json'}, json={
                'allocation_requests': [{'allocations': {
                    base.RP2: {'resources': {'VCPU': 1}}}}],
                'provider_summaries': {}})
        out, err, code = self.openstack(
            '--debug', 'allocation', 'candidate', 'explain', '--resource',
            'VCPU=1', '-f', 'value', '-c', 'name', '-c', 'candidate')
        self.assertEqual(('one False\ntwo True\n', 0), (out, code), err)
        self.assertIn('RESP BODY: {"allocation_requests"', err)


class TestStreamedNotJSON(base.TestCase):
    """The line of a body that is not JSON, read whole or as it arrives."""

    scenarios = [(repr(body), {'body': body}) for body in (
        'not json {', '', '<html><body>Please log in</body></html>',
        '{"traits": ["A", ', '{"traits": ["A"]} and more')]

    def test_the_same_line_either_way(self):
        self.requests_mock.get(URL, text=self.body)
        whole = self.assertRaises(
            errors.InvalidResponse,
            test_http.client().request('GET', '/traits').json)
        streamed = self.assertRaises(
            errors.InvalidResponse, test_http.client().request, 'GET',
            '/traits', read=names)
        self.assertEqual(str(whole), str(streamed))


class _Raw(object):
    """urllib3's answer as the hook sees it: shutdown() of its socket."""

    def __init__(self, error=None):
        self.error = error
        self.shut = 0

    def shutdown(self):
        self.shut += 1
        if self.error is not None:
            raise self.error


class _Answer(object):

    def __init__(self, raw):
        self.raw = raw


class TestShutIfAbandoned(base.TestCase):
    """The socket of an answer is shut when its caller stops waiting."""

    def wait_past_the_deadline(self, answer):
        release = threading.Event()
        self.addCleanup(release.set)

        def call():
            responses.shut_if_abandoned(answer, timeout=0.1)
            release.wait(30)
        self.assertRaises(inflight.PastDeadline, inflight.wait_for, call,
                          0.1)

    def test_shut_at_the_deadline(self):
        raw = _Raw()
        self.wait_past_the_deadline(_Answer(raw))
        self.assertEqual(1, raw.shut)

    def test_not_shut_when_the_answer_comes_in_time(self):
        raw = _Raw()

        def call():
            responses.shut_if_abandoned(_Answer(raw))
            return 'answer'
        self.assertEqual('answer', inflight.wait_for(call, 5))
        self.assertEqual(0, raw.shut)

    def test_an_answer_released_or_of_no_socket_is_left(self):
        # urllib3 refuses once the connection is back in the pool, or for
        # an answer without a socket (requests-mock's).
        for error in (RuntimeError('released'), ValueError('no socket'),
                      OSError('closed')):
            raw = _Raw(error)
            self.wait_past_the_deadline(_Answer(raw))
            self.assertEqual(1, raw.shut)
