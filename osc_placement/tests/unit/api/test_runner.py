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

"""The ``Runner`` the api layer takes instead of a command (``api/runner.py``).

``each_provider`` runs the work over the providers' UUIDs as one batch of
``'resource provider'``, each failure keyed by its UUID; the framework's
``common.runner()`` hands a batched command's own engine, check and
logger to the api layer.
"""

import dataclasses
import logging

from oslotest import base

from osc_placement.api import runner as api_runner
from osc_placement.cli import batch
from osc_placement.cli import common
from osc_placement.model import batch_names


class TestRunner(base.BaseTestCase):

    def test_each_provider_is_one_batch_of_providers_by_uuid(self):
        calls = []

        def each(http, work, items, things, key=None):
            calls.append((http, things, [key(item) for item in items]))
            return [(item, work(item)) for item in items]

        runner = api_runner.Runner(each=each, require_complete=None,
                                   log=logging.getLogger(__name__))
        providers = [{'uuid': 'u1', 'name': 'one'},
                     {'uuid': 'u2', 'name': 'two'}]
        done = runner.each_provider('http', lambda uuid: uuid.upper(),
                                    providers)
        self.assertEqual([(providers[0], 'U1'), (providers[1], 'U2')], done)
        self.assertEqual([('http', batch_names.PROVIDERS, ['u1', 'u2'])],
                         calls)

    def test_is_frozen(self):
        runner = api_runner.Runner(each=list, require_complete=list,
                                   log=logging.getLogger(__name__))
        self.assertRaises(dataclasses.FrozenInstanceError, setattr, runner,
                          'log', None)


class Batched(batch.Batched):
    log = logging.getLogger('batched')


class TestBuiltByTheFramework(base.BaseTestCase):

    def test_a_batched_commands_engine_check_and_logger(self):
        cmd = Batched()
        runner = common.runner(cmd)
        self.assertEqual((cmd.each, cmd.require_complete, cmd.log),
                         (runner.each, runner.require_complete, runner.log))
