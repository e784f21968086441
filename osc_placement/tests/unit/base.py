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

"""What the unit tests share.

The test case runs the real ``openstack`` shell in-process (see
``osc_placement.tests.cli``) against requests-mock: no socket is opened.
The fixed identifiers below are the ones the recorded contract uses.
"""

import collections
import io
import json
import os
from urllib import parse as urlparse

import fixtures
from oslotest import base
import requests
import requests_mock
from requests_mock.contrib import fixture as rm_fixture

from osc_placement.tests import cli

ENDPOINT = cli.ENDPOINT
PREFIX = urlparse.urlsplit(ENDPOINT).path

RP1 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001'
RP2 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002'
RP3 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000003'
C1 = 'cccccccc-cccc-4ccc-8ccc-000000000001'
C2 = 'cccccccc-cccc-4ccc-8ccc-000000000002'
C3 = 'cccccccc-cccc-4ccc-8ccc-000000000003'
AGG1 = 'dddddddd-dddd-4ddd-8ddd-000000000001'
AGG2 = 'dddddddd-dddd-4ddd-8ddd-000000000002'
OWNER = ['--project-id', 'project-1', '--user-id', 'user-1']
REQUEST_ID = 'req-00000000-0000-0000-0000-000000000000'

# The version document of a Placement that speaks 1.0 to 1.39.
VERSIONS = {'versions': [{'id': 'v1.0', 'min_version': '1.0',
                          'max_version': '1.39', 'status': 'CURRENT',
                          'links': []}]}

# openstack without --os-placement-api-version: the client negotiates.
NEGOTIATE = ''

# One request as the fake server got it: the path below the endpoint, the
# query as (key, value) pairs in order, the JSON body (or None) and the
# OpenStack-API-Version header.
Sent = collections.namedtuple('Sent', 'method path query body version')


# Words of Python, never of this CLI.
LEAKS = ('invalid literal', 'could not convert', 'dictionary update '
         'sequence', 'Traceback', "('", 'KeyError', 'NoneType',
         'object has no attribute', 'unexpected keyword', 'ValueError',
         'TypeError', 'not enough values to unpack', 'too many values')

# What the fake server of BadInputTestCase answers when a request reaches
# it.
SERVER_DETAIL = 'The fake server refused this request.'


def placement_error(status, detail, title='Error', code=None):
    """The JSON body of an error from Placement."""
    error = {'status': status, 'title': title, 'detail': detail,
             'request_id': REQUEST_ID}
    if code:
        error['code'] = code
    return {'errors': [error]}


def webob_detail(message, headline='Headline.'):
    """A detail as Placement words it: a headline, then the message."""
    return '%s\n\n %s  ' % (headline, message)


def error_reply(status, detail, title='Error', code=None):
    """requests-mock arguments of a Placement error response."""
    return {'status_code': status,
            'json': placement_error(status, detail, title, code)}


def provider(uuid, name='compute', generation=0, parent=None):
    """A resource provider as Placement returns it."""
    return {'uuid': uuid, 'name': name, 'generation': generation,
            'parent_provider_uuid': parent,
            'root_provider_uuid': parent or uuid}


def consumer(allocations, generation=1, project='p1', user='u1',
             consumer_type='INSTANCE'):
    """A consumer as Placement 1.38 returns it (``GET /allocations/<c>``).

    allocations: {provider: {class: amount}}; a consumer without any has
    no owner nor generation.
    """
    body = {'allocations': {rp: {'resources': res, 'generation': 5}
                            for rp, res in allocations.items()}}
    if allocations:
        body.update(project_id=project, user_id=user,
                    consumer_generation=generation,
                    consumer_type=consumer_type)
    return body


def edited(data, path, value):
    """A copy of ``data`` with the value at ``path`` (a list of keys) replaced.

    ``value`` KeyError: the key is removed instead.
    """
    data = json.loads(json.dumps(data))
    into = data
    for key in path[:-1]:
        into = into[key]
    if value is KeyError:
        del into[path[-1]]
    else:
        into[path[-1]] = value
    return data


def response(status, body=b'', content_type=None, reason=None,
             encoding='utf-8'):
    """A requests.Response to ``GET <endpoint>/x``, as a session returns it.

    ``body`` is bytes, text (sent as UTF-8) or data (sent as JSON, with its
    content type). ``encoding=None`` leaves requests to guess the encoding
    of the text, as it does when the headers name none.
    """
    result = requests.Response()
    result.status_code = status
    if isinstance(body, (dict, list)):
        body = json.dumps(body).encode()
        content_type = 'application/json'
    elif isinstance(body, str):
        body = body.encode()
    result.raw = io.BytesIO(body)
    if content_type:
        result.headers['Content-Type'] = content_type
    result.reason = reason
    result.encoding = encoding
    result.url = ENDPOINT + '/x'
    return result


def sent_request(request):
    """A requests-mock request as a :class:`Sent`."""
    url = urlparse.urlsplit(request.url)
    return Sent(request.method, url.path[len(PREFIX):] or '/',
                urlparse.parse_qsl(url.query, keep_blank_values=True),
                json.loads(request.body) if request.body else None,
                request.headers.get('OpenStack-API-Version'))


class TestCase(base.BaseTestCase):
    """A test of the shell against a fake Placement (requests-mock).

    ``api_version`` is the ``--os-placement-api-version`` that
    :meth:`openstack` passes unless told otherwise; None or
    :data:`NEGOTIATE`: the option is left out. ``command`` holds the words
    of the command under test, put before the arguments of each run.
    """

    api_version = None
    command = ()

    def setUp(self):
        super().setUp()
        self.requests_mock = self.useFixture(
            rm_fixture.Fixture(case_sensitive=True))

    def openstack(self, *argv, version=None, env=None):
        """Run ``openstack <auth> argv``: (stdout, stderr, exit code)."""
        if version is None:
            version = self.api_version
        options = ['--os-placement-api-version', version] if version else []
        return cli.run(cli.auth_argv() + options + list(self.command)
                       + list(argv), env=env)

    def sent(self):
        """(method, path and query below the endpoint) of each request."""
        return [(r.method, r.url[len(ENDPOINT):])
                for r in self.requests_mock.request_history]

    def requests_sent(self):
        """Each request sent, as a :class:`Sent`."""
        return [sent_request(r) for r in self.requests_mock.request_history]

    def by_name(self, name, uuid, generation=1):
        """The name lookup of a provider answers with this one."""
        self.requests_mock.get(
            ENDPOINT + '/resource_providers?name=' + name, complete_qs=True,
            json={'resource_providers': [provider(uuid, name, generation)]})

    def assertNoSuchProvider(self, name, *argv):
        """``openstack argv`` looks ``name`` up, finds none, and says so.

        Exactly one request (the name lookup), nothing on stdout, one line
        on stderr, exit 1.
        """
        self.requests_mock.get(
            ENDPOINT + '/resource_providers?name=' + name, complete_qs=True,
            json={'resource_providers': []})
        out, err, code = self.openstack(*argv)
        self.assertEqual(
            ('', "No resource provider with name or UUID '%s' found.\n"
             % name, 1), (out, err, code))
        self.assertEqual([('GET', '/resource_providers?name=' + name)],
                         self.sent())

    def assertOneLine(self, text):
        """No line feed, no carriage return: what a terminal breaks on."""
        self.assertNotIn('\n', text)
        self.assertNotIn('\r', text)


class FileTestCase(TestCase):
    """A test of a command that reads or writes files, in a temporary folder.

    ``self.dir`` is the folder; :meth:`file` writes a file there.
    """

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path

    def file(self, data, name='f.json'):
        """The path of a new file of ``data``: text as is, else its JSON."""
        path = os.path.join(self.dir, name)
        with open(path, 'w') as f:
            f.write(data if isinstance(data, str) else json.dumps(data))
        return path


def answer_anything(request, context):
    """A Placement that knows every provider and refuses every write."""
    path = urlparse.urlsplit(request.url).path[len(PREFIX):] or '/'
    context.headers['Content-Type'] = 'application/json'
    if request.method == 'GET':
        if path == '/':
            return json.dumps(VERSIONS)
        if path.startswith('/resource_providers/') and path.count('/') == 2:
            return json.dumps(provider(path.split('/')[2], 'rp', 1))
        if path.startswith('/allocations/'):
            return json.dumps({'allocations': {}})
    context.status_code = 400
    return json.dumps(placement_error(400, SERVER_DETAIL,
                                      title='Bad Request'))


class BadInputTestCase(TestCase):
    """The shell against a fake Placement that answers anything.

    :func:`answer_anything` answers every request; :meth:`run_argv` runs
    the shell and checks that no word of Python (:data:`LEAKS`) reached
    stderr.
    """

    def setUp(self):
        super().setUp()
        self.requests_mock.register_uri(requests_mock.ANY, requests_mock.ANY,
                                        text=answer_anything)

    def run_argv(self, argv, env=None):
        out, err, code = self.openstack(*argv, env=env)
        for word in LEAKS:
            self.assertNotIn(word, err, 'Python text leaked')
        return out, err, code


# Bad input, value by value: the tables of each module's tests are the
# scenarios of the test cases below.

def bad_value(id, argv, code, words, env=None, version='1.39'):
    """A case of :class:`RefusedLocallyTestCase`.

    The command line (after ``--os-placement-api-version version``, left
    out if None), the exit code, the words the error line must hold, the
    environment.
    """
    return (id, {'argv': (['--os-placement-api-version', version]
                          if version else []) + argv,
                 'code': code, 'words': words, 'env': env})


def empty_value(command, *before, after=(), version='1.39', value=''):
    """The case of a command whose positional is ``value``: refused."""
    argv = command.split() + list(before) + [value] + list(after)
    return bad_value('empty-%r-%s-%s-%s' % (value, version, command,
                                            ' '.join(before)), argv,
                     2, ['empty'], version=version)


def empty_positionals(commands):
    """The cases of each command's positional, empty or blank.

    commands: (command, the arguments before the positional, after it).
    """
    return [empty_value(command, *before, after=after, value=value)
            for command, before, after in commands
            for value in ('', '  ')]


class RefusedLocallyTestCase(BadInputTestCase):
    """Every value the plugin parses, tried with bad values.

    ``scenarios``: cases made by :func:`bad_value`, each run through the
    real ``openstack`` shell against the fake Placement that answers
    anything. For each one the user must see:

    * exit code 1 (a command error) or 2 (an argparse usage error);
    * nothing on stdout;
    * on stderr, one line (exit 1), or argparse's usage followed by one
      ``error:`` line (exit 2), that names the option or the value and
      what is expected, without Python's own words (``invalid
      literal``...);
    * no request at all, except the version negotiation ``GET /``:
      nothing is read, and above all nothing is written, before the value
      is known to be good.
    """

    def test_bad_value_is_refused_locally_in_one_line(self):
        out, err, code = self.run_argv(self.argv, self.env)
        self.assertEqual('', out)
        self.assertEqual(self.code, code, err)
        line = self.error_line(err, code)
        for word in self.words:
            self.assertIn(word, line)
        self.assertEqual(
            [], [r for r in self.requests_sent()
                 if (r.method, r.path) != ('GET', '/')],
            'sent before refusing')

    def error_line(self, err, code):
        """One line for a command error; usage then one line for argparse.

        Returns the line that says what is wrong.
        """
        self.assertTrue(err.endswith('\n'), err)
        lines = err.splitlines()
        if code == 1:
            self.assertEqual(1, len(lines), err)
            return lines[0]
        self.assertEqual(2, code)
        self.assertTrue(lines[0].startswith('usage: openstack '), err)
        self.assertEqual([], [line for line in lines[1:-1]
                              if not line[:1].isspace()])
        self.assertTrue(lines[-1].startswith('openstack'), err)
        self.assertEqual(1, err.count(': error: '), err)
        self.assertIn(': error: ', lines[-1])
        return lines[-1]


def round_trips(table):
    """The scenarios of :class:`JudgedByTheServerTestCase`.

    table: (id, argv, the request that carries the value (method, path,
    query pairs), a fragment of its JSON body or None) each.
    """
    return [(id, {'argv': argv, 'request': request, 'body': body})
            for id, argv, request, body in table]


class JudgedByTheServerTestCase(BadInputTestCase):
    """Malformed values that the server judges, as the recorded reference.

    The reference sends them to the server on purpose
    (``contract/cases.json``, "recorded" in a case's id): a zero amount,
    ``--limit 0``, an identifier that is not a UUID... Those keep the
    round trip, and the server's refusal comes out as one clean line.
    (Negative amounts, amounts above 2147483647 and a --limit below 1 are
    refused locally since rule D18: see :class:`OutOfRangeTestCase`.)
    """

    def test_value_judged_by_the_server_gives_its_one_line(self):
        out, err, code = self.run_argv(self.argv)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual('%s (HTTP 400)\n' % SERVER_DETAIL, err)
        last = self.requests_sent()[-1]
        self.assertEqual(self.request, (last.method, last.path, last.query))
        if self.body is not None:
            self.assertIn(self.body, json.dumps(last.body))


class CaseIdsTestCase(TestCase):
    """``tables``: the tables of cases of a module, each case's id first."""

    tables = ()

    def test_case_ids_are_unique(self):
        ids = [case[0] for table in self.tables for case in table]
        self.assertEqual(len(ids), len(set(ids)))


def server_down(table):
    """The scenarios of :class:`ServerDownTestCase`.

    table: (id, argv, the one line expected on stderr) each.
    """
    return [(id, {'argv': argv, 'line': line}) for id, argv, line in table]


class ServerDownTestCase(TestCase):
    """The mistake in the command line, not "connection refused".

    The default version ('1') negotiates, but every value that needs no
    server is checked first: no request at all.
    """

    api_version = NEGOTIATE

    def test_bad_value_before_the_negotiation(self):
        self.requests_mock.register_uri(
            requests_mock.ANY, requests_mock.ANY,
            exc=requests.exceptions.ConnectionError('Connection refused'))
        out, err, code = self.openstack(*self.argv)
        self.assertEqual((1, '', self.line + '\n'), (code, out, err))
        self.assertEqual([], self.requests_sent())


class OutOfRangeTestCase(TestCase):
    """Amounts out of Placement's range: refused before any request (D18).

    ``scenarios``: each its ``argv`` and its ``error``, the one line that
    names the value and the range. (A zero amount of the candidates stays
    the server's to judge, as the recorded case has it.)
    """

    def test_refused_before_any_request(self):
        out, err, code = self.openstack(*self.argv, version='1.39')
        self.assertEqual(('', self.error + '\n', 1), (out, err, code))
        self.assertEqual([], self.sent())
