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

"""The PostgreSQL of the sandbox when the port it chose is taken.

PostgreSQL binds the port it is given, so the fixture chooses a free one
first; another process may take it before the server binds it (a server
of a test running beside, a client's outgoing connection). The server
then starts on another port.
"""

import socket

import fixtures
from oslotest import base

from osc_placement.tests.support import postgres
from osc_placement.tests.support import processes


class TestPortTaken(base.BaseTestCase):

    def test_starts_on_another_port(self):
        taken = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.addCleanup(taken.close)
        taken.bind(('127.0.0.1', 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        chosen = [port]
        free_port = postgres._free_port

        def first_taken(host):
            return chosen.pop() if chosen else free_port(host)

        self.useFixture(fixtures.MonkeyPatch(
            'osc_placement.tests.support.postgres._free_port', first_taken))
        # Where a sandbox makes its own (the database's user reaches it).
        workdir = self.useFixture(fixtures.TempDir(processes.tmpfs())).path
        db = self.useFixture(postgres.Postgres(workdir))
        self.assertNotEqual(port, db.port)
        conn = db.connect()
        self.addCleanup(conn.close)
        with conn.cursor() as cursor:
            cursor.execute('SELECT current_database()')
            self.assertEqual(('placement',), cursor.fetchone())
        with open(db.log_path) as log:
            self.assertEqual(1, log.read().count(postgres.PORT_TAKEN))
