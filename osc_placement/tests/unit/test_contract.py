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

"""Replay of the recorded reference behaviour (contract/cases.json).

Each case runs the real ``openstack`` shell in-process. Every request it
sends is checked against the next recorded one (method, path, query in
order, headers, JSON body) and answered with the recorded response; then
stdout, stderr and the exit code must equal the recorded ones. Where the
plugin departs from the reference on purpose (contract/deviations.json;
the rules are listed in doc/source/contributor/deviations.rst) the rule
of the case replaces the parts it names.
"""

import collections
import json
import os
from urllib import parse as urlparse

import requests_mock
import testscenarios

from osc_placement.tests import cli
from osc_placement.tests.unit import base

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, 'contract', 'cases.json')) as f:
    CONTRACT = json.load(f)
with open(os.path.join(HERE, 'contract', 'deviations.json')) as f:
    DEVIATIONS = json.load(f)

RULES = DEVIATIONS

ENDPOINT_PATH = urlparse.urlsplit(CONTRACT['endpoint']).path
HEADERS = ('OpenStack-API-Version', 'Accept', 'Content-Type')


def _expected_exchanges(case, rule):
    """The exchanges to expect and serve, after the deviation rule."""
    if 'exchanges' in rule:
        return [dict(e) for e in rule['exchanges']]
    exchanges = [json.loads(json.dumps(e)) for e in case['exchanges']]
    requests_rule = rule.get('requests')
    if requests_rule == 'none':
        exchanges = [e for e in exchanges[:1]
                     if e['request']['path'] == '/']
    elif requests_rule and requests_rule.startswith('first:'):
        exchanges = exchanges[:int(requests_rule.split(':')[1])]
    overridden = [e for e in exchanges if e['request']['path'] != '/']
    if overridden and ('path_override' in rule or 'query_override' in rule
                       or 'respond' in rule):
        target = overridden[0]
        req = target['request']
        if 'path_override' in rule:
            req['path'] = rule['path_override']
        if 'query_override' in rule:
            # With a new path, the recorded query was part of the old path
            # (``?x=1`` inside a name): the override is the whole query.
            pairs = [] if 'path_override' in rule else [
                p for p in req['query'] if p[0] not in rule['query_override']]
            pairs.extend([k, v] for k, v in rule['query_override'].items())
            req['query'] = pairs
            req['raw_query'] = None
        if 'respond' in rule:
            target['response'] = rule['respond']
    return exchanges


class Replayer(object):
    def __init__(self, exchanges):
        self.queue = collections.deque(exchanges)
        self.mismatches = []
        self.sent = []

    def __call__(self, request, context):
        url = urlparse.urlsplit(request.url)
        self.sent.append('%s?%s' % (url.path, url.query))
        if not self.queue:
            self.mismatches.append('unexpected request %s %s?%s' % (
                request.method, url.path, url.query))
            context.status_code = 599
            return ''
        ex = self.queue.popleft()
        want = ex['request']
        problems = []
        if request.method != want['method']:
            problems.append('method %s != %s' % (request.method,
                                                 want['method']))
        if url.path != ENDPOINT_PATH + want['path']:
            problems.append('path %s != %s' % (url.path,
                                               ENDPOINT_PATH + want['path']))
        got_query = urlparse.parse_qsl(url.query, keep_blank_values=True)
        if want.get('raw_query') is not None:
            if url.query != want['raw_query'] and \
                    got_query != [tuple(p) for p in want['query']]:
                problems.append('query %r != %r' % (url.query,
                                                    want['raw_query']))
        elif sorted(got_query) != sorted(tuple(p) for p in want['query']):
            problems.append('query %r != %r' % (got_query, want['query']))
        for header in HEADERS:
            got = request.headers.get(header)
            if got != want['headers'].get(header):
                problems.append('header %s: %r != %r' % (
                    header, got, want['headers'].get(header)))
        body = json.loads(request.body) if request.body else None
        if body != want['json']:
            problems.append('body %r != %r' % (body, want['json']))
        if problems:
            self.mismatches.append('%s %s: %s' % (
                want['method'], want['path'], '; '.join(problems)))
        response = ex['response']
        context.status_code = response['status']
        context.headers.update(response.get('headers', {}))
        if 'json' in response:
            return json.dumps(response['json'])
        return response.get('text', '')


load_tests = testscenarios.load_tests_apply_scenarios


def _usage_138_rows(case):
    usages = case['exchanges'][-1]['response']['json']['usages']
    rows = []
    for consumer_type, per_class in usages.items():
        count = per_class.get('consumer_count')
        for resource_class, amount in per_class.items():
            if resource_class == 'consumer_count':
                continue
            rows.append({'consumer_type': consumer_type,
                         'resource_class': resource_class,
                         'usage': amount,
                         'consumer_count': count})
    return rows


class TestContract(base.TestCase):
    """One test per recorded case, named after the case."""

    scenarios = [(case['id'], {'case': case})
                 for case in CONTRACT['cases']]

    def setUp(self):
        super().setUp()
        self.rule = RULES.get(self.case['id'], {})

    def test_case(self):
        case, rule = self.case, self.rule
        replayer = Replayer(_expected_exchanges(case, rule))
        self.requests_mock.register_uri(requests_mock.ANY,
                                        requests_mock.ANY, text=replayer)
        stdout, stderr, code = cli.run(CONTRACT['auth_argv'] + case['argv'],
                                       env=case['env'])
        self.assertEqual([], replayer.mismatches, stderr)
        requests_rule = rule.get('requests')
        if requests_rule == 'none':
            # Nothing but, possibly, the version negotiation.
            self.assertEqual([], [s for s in replayer.sent
                                  if s.split('?')[0] != ENDPOINT_PATH + '/'])
        elif not (requests_rule == 'any-or-none' and not replayer.sent):
            self.assertEqual(
                [], ['%s %s' % (e['request']['method'], e['request']['path'])
                     for e in replayer.queue],
                'recorded requests not sent; stderr: %s' % stderr)
        self._check_stdout(stdout)
        self._check_stderr(stderr, code)
        self._check_exit(code)

    def _check_stdout(self, stdout):
        case, expected = self.case, self.rule.get('stdout')
        if expected is None:
            self.assertEqual(case['stdout'], stdout)
        elif expected == 'empty':
            self.assertEqual('', stdout)
        elif expected.startswith('contains:'):
            self.assertIn(expected[len('contains:'):], stdout)
        elif expected == 'usage-1.38':
            rows = _usage_138_rows(case)
            if '-f' in case['argv'] and \
                    case['argv'][case['argv'].index('-f') + 1] == 'json':
                self.assertEqual(rows, json.loads(stdout))
            else:
                lines = [[cell.strip() for cell in line.strip('|').split('|')]
                         for line in stdout.splitlines()
                         if line.startswith('|')]
                self.assertEqual(['consumer_type', 'resource_class', 'usage',
                                  'consumer_count'], lines[0])
                self.assertEqual([[str(v) for v in r.values()]
                                  for r in rows], lines[1:])
        elif expected != 'any':
            self.assertEqual(expected, stdout)

    def _check_stderr(self, stderr, code):
        rule = self.rule
        if 'stderr_contains' in rule or 'stderr_excludes' in rule:
            for text in rule.get('stderr_contains', []):
                self.assertIn(text, stderr)
            for text in rule.get('stderr_excludes', []):
                self.assertNotIn(text, stderr)
            if code == 1:
                # A command error is one line (a usage error is argparse's).
                self.assertLessEqual(len(stderr.strip().splitlines()), 1,
                                     stderr)
        elif rule.get('exit_code') == 0:
            # A case that used to fail now succeeds: nothing on stderr.
            self.assertEqual('', stderr)
        else:
            self.assertEqual(self.case['stderr'], stderr)

    def _check_exit(self, code):
        expected = self.rule.get('exit_code', self.case['exit_code'])
        if isinstance(expected, list):
            self.assertIn(code, expected)
        else:
            self.assertEqual(expected, code)


class TestDeviations(base.TestCase):

    def test_every_deviation_names_a_recorded_case(self):
        """A rule for a case that does not exist would hide nothing."""
        ids = {case['id'] for case in CONTRACT['cases']}
        self.assertEqual(set(), set(RULES) - ids)
