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

"""Nova's own Placement tools, run on the sandbox: the oracle of the audit.

:class:`NovaManage` runs the ``nova-manage`` installed beside this Python
(nova 34) on the databases of a :class:`~.stack.NovaCloud` and against
its Placement, as an operator runs it on a controller: the sandbox's
``nova.conf`` (API database, ``[placement]`` with the ``nova`` service
user's credentials) plus a ``[neutron]`` section with the same user,
which ``heal_allocations`` needs to read ports. Each command's output is
parsed into what it found (the formats of ``nova/cmd/manage.py``):

* ``placement audit --verbose`` (:meth:`NovaManage.audit`): the
  consumers it would delete, per provider, with their resources, and the
  providers whose compute node it could not find. Exit 0 nothing, 3
  found, 4 found and deleted.
* ``placement heal_allocations --dry-run --verbose``
  (:meth:`NovaManage.heal`): the servers whose allocations it would
  create or update, with the body it would write, and those it skipped.
  Exit 4 when it healed nothing (a dry run heals nothing), 8 when a
  server's flavor asks for vGPUs or accelerators (it stops there).
* ``placement sync_aggregates --verbose``
  (:meth:`NovaManage.sync_aggregates`): every (host, provider,
  aggregate) it put in Placement, whether or not it was there already
  (compare Placement before and after to see what it added). Exit 0.
"""

import ast
import collections
import json
import os
import re
import subprocess
import sys

from osc_placement.tests.support import nova
from osc_placement.tests.support import SandboxError

TIMEOUT = 300

_UUID = '[0-9a-f-]{36}'
_AUDIT_FOUND = re.compile(
    r'Allocations for consumer UUID (%s) on Resource Provider (%s) can be '
    r'deleted: (.*)$' % (_UUID, _UUID))
_AUDIT_DELETED = re.compile(
    r'Deleted allocations for consumer UUID (%s) on Resource Provider '
    r'(%s): (.*)$' % (_UUID, _UUID))
_AUDIT_NO_NODE = re.compile(
    r'The compute node for UUID (%s) can not be found' % _UUID)
_HEAL = re.compile(r'\[dry-run\] (Create|Update) allocations for instance '
                   r'(%s): (.*)$' % _UUID)
_HEAL_TASK = re.compile(r'Instance (%s) is undergoing a task state '
                        r'transition: (\S+)' % _UUID)
_HEAL_NO_HOST = re.compile(r'Instance (%s) is not on a host' % _UUID)
_HEAL_OK = re.compile(r'The allocation of instance (%s) is up-to-date'
                      % _UUID)
_SYNC = re.compile(r'Successfully added host \((.*)\) and provider \((%s)\) '
                   r'to aggregate \((%s)\)' % (_UUID, _UUID))

Run = collections.namedtuple('Run', 'argv code stdout stderr')

#: One consumer ``audit`` reports on one provider, with its resources.
Orphan = collections.namedtuple('Orphan', 'consumer provider resources')


class AuditResult(collections.namedtuple(
        'AuditResult', 'run orphans deleted no_compute_node')):
    """What ``audit`` found.

    :class:`Orphan` lists (``orphans`` reported, ``deleted``) and the
    providers whose root is no compute node it found.
    """

    @property
    def consumers(self):
        """The consumers reported, sorted, each once."""
        return sorted({o.consumer for o in self.orphans + self.deleted})


HealResult = collections.namedtuple(
    'HealResult', 'run create update task_state no_host up_to_date')
HealResult.__doc__ = """``heal_allocations``: ``create`` and ``update``
map a server to the allocations body it would write; ``task_state`` maps
a skipped server to its task state; the others are lists of servers."""

SyncResult = collections.namedtuple('SyncResult', 'run added')
SyncResult.__doc__ = """``sync_aggregates``: (host, provider, aggregate)
of each membership it wrote."""


class NovaManage(object):
    """``nova-manage`` on a running :class:`~.stack.NovaCloud`.

    The configuration is written in the Nova API's working directory,
    which the cloud removes.
    """

    def __init__(self, box, python=None):
        self.box = box
        self.executable = os.path.join(
            os.path.dirname(python or sys.executable), 'nova-manage')
        if not os.path.exists(self.executable):
            raise SandboxError('no nova-manage beside %s'
                               % (python or sys.executable))
        workdir = box.nova.workdir
        self.config_files = [os.path.join(workdir, 'nova.conf'),
                             os.path.join(workdir, 'nova-manage.conf')]
        with open(self.config_files[1], 'w') as f:
            f.write(nova.service_user_section(
                'neutron', box.keystone.server_endpoint))

    def run(self, *argv):
        """Run ``nova-manage <argv>``; returns a :data:`Run`."""
        full = [self.executable]
        for config in self.config_files:
            full += ['--config-file', config]
        full += list(argv)
        proc = subprocess.run(full, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True,
                              timeout=TIMEOUT, cwd=self.box.nova.workdir)
        return Run(argv, proc.returncode, proc.stdout, proc.stderr)

    @staticmethod
    def _lines(run, expected_codes):
        if run.code not in expected_codes:
            raise SandboxError('nova-manage %s exited %s:\n%s\n%s' % (
                ' '.join(run.argv), run.code, run.stdout[-3000:],
                run.stderr[-3000:]))
        return run.stdout.splitlines()

    def audit(self, delete=False, provider=None):
        """``placement audit --verbose`` (``--delete``, one provider)."""
        argv = ['placement', 'audit', '--verbose']
        if delete:
            argv.append('--delete')
        if provider:
            argv += ['--resource_provider', provider]
        run = self.run(*argv)
        orphans, deleted, no_node = [], [], []
        for line in self._lines(run, (0, 3, 4)):
            found = _AUDIT_FOUND.search(line)
            gone = _AUDIT_DELETED.search(line)
            missing = _AUDIT_NO_NODE.search(line)
            if found:
                orphans.append(Orphan(found.group(1), found.group(2),
                                      ast.literal_eval(found.group(3))))
            elif gone:
                deleted.append(Orphan(gone.group(1), gone.group(2),
                                      ast.literal_eval(gone.group(3))))
            elif missing:
                no_node.append(missing.group(1))
        return AuditResult(run, orphans, deleted, sorted(set(no_node)))

    def heal(self, dry_run=True):
        """``placement heal_allocations --verbose`` (``--dry-run``)."""
        argv = ['placement', 'heal_allocations', '--verbose']
        if dry_run:
            argv.append('--dry-run')
        run = self.run(*argv)
        create, update, task, no_host, up_to_date = {}, {}, {}, [], []
        for line in self._lines(run, (0, 4, 8)):
            heal = _HEAL.search(line)
            if heal:
                which = create if heal.group(1) == 'Create' else update
                which[heal.group(2)] = json.loads(heal.group(3))
                continue
            for pattern, into in ((_HEAL_TASK, task),
                                  (_HEAL_NO_HOST, no_host),
                                  (_HEAL_OK, up_to_date)):
                match = pattern.search(line)
                if match and isinstance(into, dict):
                    into[match.group(1)] = match.group(2)
                elif match:
                    into.append(match.group(1))
        return HealResult(run, create, update, task, sorted(no_host),
                          sorted(up_to_date))

    def sync_aggregates(self):
        """``placement sync_aggregates --verbose``."""
        run = self.run('placement', 'sync_aggregates', '--verbose')
        added = [m.groups() for m in map(_SYNC.search,
                                         self._lines(run, (0,))) if m]
        return SyncResult(run, sorted(added))
