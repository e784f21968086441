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

A :class:`NovaCloudTestCase` runs on a
:class:`~osc_placement.tests.support.stack.NovaCloud` (Keystone, a
Placement seeded with the sample cloud that validates Keystone's tokens,
the Nova API). Tests run the ``openstack`` script installed beside this
Python with the admin's password credentials: it gets a token from
Keystone and finds each service in the catalog, as in any cloud.

A cloud takes a minute or more to start, so the classes of one package
share one: a package of these tests is one group of stestr (tox.ini's
``--group-regex``), so one worker runs all its classes, and its
``load_tests`` returns a :class:`SharedCloudSuite` (see
:func:`package_tests`). The suite runs the classes in the order of their
:attr:`~NovaCloudTestCase.cloud_turn`; the first class of a
:attr:`~NovaCloudTestCase.cloud_kind` starts the cloud, the last one
stops it and checks the clean-up. A class run outside such a suite (a
module named on the command line) starts and stops a cloud of its own.
"""

import fnmatch
import importlib
import json
import os
import pkgutil
import subprocess
import unittest

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
    """Keystone, Placement and Nova for the tests of the class.

    The cloud is the one of the class's :attr:`cloud_kind`, shared with
    the other classes of that kind in the same :class:`SharedCloudSuite`
    (module docstring), or its own. When its last class is done the
    servers are stopped and the clean-up is checked, as for the
    Placement-only sandbox: no server process this test process started
    is left, nor any temporary directory.
    """

    #: Classes of one kind in one suite share one cloud: what
    #: :meth:`start_cloud` makes must be the same for each of them.
    cloud_kind = 'sample cloud'
    #: Classes sharing a cloud run in this order (then by name): a class
    #: that leaves the cloud other than it found it comes after those
    #: that need it as it was.
    cloud_turn = 0

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.use_cloud(_take_cloud(cls))

    @classmethod
    def use_cloud(cls, box):
        """Keep what the tests use of ``box`` (from :meth:`start_cloud`)."""
        cls.cloud = box
        # No region, no interface: each test says which it wants.
        cls.env = cls.cloud.client_env(region=None, interface=None)
        cls.env['PYTHONWARNINGS'] = 'ignore'

    @classmethod
    def start_cloud(cls):
        """Start and seed the cloud of this kind; returns the fixture."""
        box = stack.NovaCloud()
        # The fixture cleans up after itself when its set-up fails.
        box.setUp()
        try:
            cloud.seed(box.placement.endpoint, token=box.token)
        except BaseException:
            box.cleanUp()
            raise
        return box

    @staticmethod
    def stop_cloud(box):
        """Stop a cloud :meth:`start_cloud` made; check the clean-up."""
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


# kind -> [classes of the running suites still to finish, the cloud or
# None]; an entry exists while a SharedCloudSuite has classes of the kind
# to run.
_shared = {}


def _take_cloud(cls):
    """The cloud for ``cls``: its kind's shared one, or one of its own.

    Registers the class clean-up that gives it back (the last class of a
    shared cloud stops it), before the start, which may fail.
    """
    entry = _shared.get(cls.cloud_kind)
    if entry is None:
        box = cls.start_cloud()
        cls.addClassCleanup(cls.stop_cloud, box)
        return box
    cls.addClassCleanup(_release_cloud, cls)
    if entry[1] is None:
        entry[1] = cls.start_cloud()
    return entry[1]


def _release_cloud(cls):
    """The end of a class of a shared cloud: the last one stops it."""
    entry = _shared[cls.cloud_kind]
    entry[0] -= 1
    if entry[0] == 0:
        del _shared[cls.cloud_kind]
        if entry[1] is not None:
            cls.stop_cloud(entry[1])


def _cases(suite):
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from _cases(test)
        else:
            yield test


class SharedCloudSuite(unittest.TestSuite):
    """Tests whose classes of a kind share one cloud.

    The kind is the class's :attr:`~NovaCloudTestCase.cloud_kind`. Runs
    the tests class after class, in the order of the classes'
    :attr:`~NovaCloudTestCase.cloud_turn`, then of the test ids (each
    class's tests in name order, as unittest runs them); counts the
    classes of each kind first, so that the last of them stops the
    cloud. A class whose tests are all skipped never sets up: not
    counted.
    """

    def run(self, result, debug=False):
        tests = sorted(_cases(self), key=lambda test: (
            getattr(type(test), 'cloud_turn', 0), test.id()))
        classes = {type(test) for test in tests
                   if isinstance(test, NovaCloudTestCase)
                   and not getattr(type(test), '__unittest_skip__', False)}
        for cls in classes:
            _shared.setdefault(cls.cloud_kind, [0, None])[0] += 1
        return unittest.TestSuite(tests).run(result, debug)


def package_tests(loader, package, pattern):
    """The ``load_tests`` of a package whose classes share their cloud.

    ``package``: the package's ``__name__``. Returns a
    :class:`SharedCloudSuite` of the tests of its modules whose file
    names match ``pattern`` (default ``test*.py``), in name order.
    """
    path = importlib.import_module(package).__path__
    names = sorted(info.name for info in pkgutil.iter_modules(path)
                   if fnmatch.fnmatch(info.name + '.py',
                                      pattern or 'test*.py'))
    return SharedCloudSuite(
        loader.loadTestsFromModule(importlib.import_module(
            '%s.%s' % (package, name))) for name in names)
