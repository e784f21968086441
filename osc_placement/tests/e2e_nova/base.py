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

"""End-to-end behind a real Keystone: the cloud as ``openstack`` sees it.

Each :class:`NovaCloudTestCase` class gets one
:class:`~osc_placement.tests.support.stack.NovaCloud` (Keystone, a
Placement seeded with the sample cloud that validates Keystone's tokens,
the Nova API; minutes to start, so keep the tests in one class).
Tests run the ``openstack`` script installed beside this Python with the
admin's password credentials: it gets a token from Keystone and finds
each service in the catalog, as in any cloud.
"""

import json
import os
import subprocess

from oslotest import base

from osc_placement.tests.support import client
from osc_placement.tests.support import cloud
from osc_placement.tests.support import service
from osc_placement.tests.support import stack

COMMAND_TIMEOUT = 180


def stop_and_check(fixture, workdirs):
    """Stop the servers of ``fixture``; check none is left, nor a workdir.

    As for the Placement-only sandbox: no server process this test
    process started is left, nor any of ``workdirs``.
    """
    fixture.cleanUp()
    left = fixture.alive_pids() + service.started_by(os.getpid())
    if left:
        raise AssertionError('server processes left running: %s'
                             % sorted(set(left)))
    for workdir in workdirs:
        if os.path.exists(workdir):
            raise AssertionError('the sandbox left %s' % workdir)


class NovaCloudTestCase(base.BaseTestCase):
    """One Keystone, Placement and Nova for all the tests of the class.

    When the class is done the servers are stopped and the clean-up is
    checked, as for the Placement-only sandbox: no server process this
    test process started is left, nor any temporary directory.
    """

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.cloud = stack.NovaCloud()
        # The fixture cleans up after itself when its set-up fails.
        cls.cloud.setUp()
        cls.addClassCleanup(cls._stop_and_check, cls.cloud)
        cloud.seed(cls.cloud.placement.endpoint, token=cls.cloud.token)
        # No region, no interface: each test says which it wants.
        cls.env = cls.cloud.client_env(region=None, interface=None)
        cls.env['PYTHONWARNINGS'] = 'ignore'

    @staticmethod
    def _stop_and_check(box):
        stop_and_check(box, [box.keystone.workdir, box.placement.workdir,
                             box.nova.workdir])

    def openstack(self, *argv, region=stack.REGION, interface='public'):
        """Run ``openstack`` (region and interface as options, if any).

        Returns the CompletedProcess.
        """
        full = [client.openstack_executable()]
        if region:
            full += ['--os-region-name', region]
        if interface:
            full += ['--os-interface', interface]
        return subprocess.run(full + list(argv), env=self.env,
                              stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=COMMAND_TIMEOUT)

    def ok(self, *argv, **kwargs):
        """Run, require exit 0 and nothing on stderr; returns stdout.

        The output is parsed when the format is JSON.
        """
        res = self.openstack(*argv, **kwargs)
        if (res.returncode, res.stderr) != (0, ''):
            raise AssertionError('openstack %s exited %s: %s' % (
                ' '.join(argv), res.returncode, res.stderr))
        if '-f' in argv and argv[argv.index('-f') + 1] == 'json':
            return json.loads(res.stdout)
        return res.stdout
