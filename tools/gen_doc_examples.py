#!/usr/bin/env python3
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

"""Regenerate, or check, the example outputs of the user guide.

Each scenario below starts a real Placement (the fixture of
``osc_placement/tests/support/placement.py``) with the sample cloud, runs
commands through the installed ``openstack`` executable, exactly as an
operator would type them, and records the command lines with what they
printed into ``doc/source/user/examples/<name>.txt``.
The pages include those files, so every output shown in the guide is one
the current code really printed.

    tools/gen_doc_examples.py            # rewrite the files
    tools/gen_doc_examples.py --check    # fail (with a diff) if they differ
    tools/gen_doc_examples.py --only allocations

Identifiers are fixed (the sandbox seed, and ``--uuid`` wherever something
is created), so the outputs are the same on every run. Each recorded command
also states the exit code it must have: an example that is supposed to show
a failure cannot silently start succeeding, or the reverse.
"""

import argparse
from concurrent import futures
import difflib
import json
import os
import shlex
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
sys.path.insert(0, TOP)

import fixtures  # noqa: E402

from osc_placement.tests import support  # noqa: E402
from osc_placement.tests.support import client  # noqa: E402
from osc_placement.tests.support import cloud  # noqa: E402
from osc_placement.tests.support import placement  # noqa: E402
from osc_placement.tests.support import relay  # noqa: E402

EXAMPLES_DIR = os.path.join(TOP, 'doc', 'source', 'user', 'examples')
WIDTH = 79
# Scenarios run at the same time (each with its own server); most of the
# time goes into starting ``openstack`` processes, so about one per core.
PARALLEL = max(2, min(4, os.cpu_count() or 2))

AGGREGATE = cloud.AGGREGATE
COMPUTE3 = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000003'
VM1, VM2, VM3 = cloud.VM1, cloud.VM2, cloud.VM3
VM4 = 'cccccccc-cccc-4ccc-8ccc-000000000004'
VM5 = 'cccccccc-cccc-4ccc-8ccc-000000000005'
MIGRATION = 'cccccccc-cccc-4ccc-8ccc-0000000000a1'
# The time ``allocation save`` records in the examples (2026-12-01 09:00
# UTC), given through SOURCE_DATE_EPOCH, so that the file shown is stable.
SAVE_TIME = '1796115600'


class ExampleError(Exception):
    """A command did not behave as the example says it does."""


def display(args):
    """The command line as shown in the docs, wrapped at WIDTH columns.

    A long command is broken before its options, shell style, so that each
    option stays on one line with its value.
    """
    words = ['openstack'] + [shlex.quote(a) for a in args]
    line = '$ ' + ' '.join(words)
    if len(line) <= WIDTH:
        return line
    lines = ['$ openstack']
    for word in words[1:]:
        if (word.startswith('-') and word != '-'
                and lines[-1] != '$ openstack'):
            lines.append('    ' + word)
        else:
            lines[-1] += ' ' + word
    return ' \\\n'.join(lines)


class Recorder(object):
    """Runs commands against a sandbox and collects the example files."""

    def __init__(self, box, files):
        self.box = box
        self.files = files
        self.current = None
        # The directory the commands run in (None: this one).
        self.cwd = None

    def file(self, name):
        """The commands run from now on go to ``examples/<name>.txt``."""
        if name in self.files:
            raise ExampleError('example %s is written twice' % name)
        self.current = name
        self.files[name] = []

    def run(self, *args, expect=0, endpoint=None, stdin=None):
        """Run ``openstack <args>`` and record it; return its stdout.

        ``stdin``: (file name, text): the command reads the text on its
        standard input, shown as ``< <file name>``.
        """
        env = client.client_env(endpoint or self.box.endpoint)
        # Library warnings depend on the versions installed, not on this
        # plugin: keep them out of the examples.
        env['PYTHONWARNINGS'] = 'ignore'
        env['SOURCE_DATE_EPOCH'] = SAVE_TIME
        proc = subprocess.run(
            [client.openstack_executable()] + list(args), env=env,
            input=stdin[1] if stdin else '', capture_output=True, text=True,
            timeout=120, cwd=self.cwd)
        if proc.returncode != expect:
            raise ExampleError(
                'openstack %s exited with %d, the example expects %d:\n%s%s'
                % (' '.join(args), proc.returncode, expect, proc.stdout,
                   proc.stderr))
        shown = display(args) + (' < %s' % stdin[0] if stdin else '')
        self.files[self.current].append(
            shown + '\n' + proc.stdout + proc.stderr)
        return proc.stdout

    def show_file(self, name, text):
        """Record ``$ cat <name>`` and the text (a file the reader made)."""
        self.files[self.current].append('$ cat %s\n%s' % (name, text))

    def api(self, method, path, body=None, version='1.39'):
        """A direct request to Placement (setup; not shown)."""
        return self.box.api(method, path, body=body, version=version)


def table_rows(output):
    """The cells of each data row of a table printed by ``openstack``."""
    lines = [line for line in output.splitlines() if line.startswith('|')]
    return [[cell.strip() for cell in line.strip('|').split('|')]
            for line in lines[1:]]


def candidate_rows(output):
    """{candidate number: [(allocation, provider uuid), ...]}."""
    found = {}
    for row in table_rows(output):
        found.setdefault(int(row[0]), []).append((row[1], row[2]))
    return found


def claim(condition, what):
    """The prose of the guide says ``what`` about an output: check it."""
    if not condition:
        raise ExampleError('the user guide says that %s, but the output '
                           'does not show it any more: update the text'
                           % what)


# -- scenarios ----------------------------------------------------------------

SCENARIOS = []


def scenario(func):
    SCENARIOS.append(func)
    return func


@scenario
def microversions(ex):
    ex.file('microversion-unsupported')
    ex.run('--os-placement-api-version', '1.40', 'resource', 'provider',
           'list', expect=1)

    ex.file('microversion-columns')
    ex.run('--os-placement-api-version', '1.0', 'resource', 'provider',
           'list', '--name', 'compute-2')
    ex.run('resource', 'provider', 'list', '--name', 'compute-2')

    ex.file('microversion-gate')
    ex.run('--os-placement-api-version', '1.30', 'allocation',
           'candidate', 'list', '--resource', 'VCPU=2', '--in-tree',
           'compute-1', expect=1)
    # Not pinned: --in-tree, which the upstream plugin never had, gets
    # the microversion it needs.
    ex.run('allocation', 'candidate', 'list', '--resource', 'VCPU=2',
           '--in-tree', 'compute-1')


@scenario
def providers(ex):
    ex.file('providers-list')
    ex.run('resource', 'provider', 'list')

    ex.file('providers-filter')
    ex.run('resource', 'provider', 'list', '--resource', 'VCPU=4',
           '--resource', 'MEMORY_MB=4096')
    ex.run('resource', 'provider', 'list', '--in-tree', 'compute-1',
           '--required', 'HW_NIC_SRIOV')
    ex.run('resource', 'provider', 'list', '--member-of', AGGREGATE)

    ex.file('providers-show')
    ex.run('resource', 'provider', 'show', 'compute-2')
    ex.run('resource', 'provider', 'list', '--name', 'compute-2',
           '-f', 'value', '-c', 'uuid')

    ex.file('providers-tree')
    ex.run('resource', 'provider', 'tree', 'show', 'compute-1')
    tree = table_rows(ex.run('resource', 'provider', 'tree', 'show',
                             'compute-1', '--long'))
    claim(len(tree) == 5 and all(row[4] for row in tree),
          'tree show --long gives the used/capacity of every provider')

    ex.file('providers-tree-list')
    names = ex.run('resource', 'provider', 'tree', 'list', '-f', 'value',
                   '-c', 'name').splitlines()
    claim(names[0] == 'compute-1' and names[-1] == 'compute-2',
          'tree list shows the tree of compute-1, then that of compute-2')
    ex.run('resource', 'provider', 'tree', 'show', 'compute-2', '--dot')

    ex.file('providers-inventory')
    ex.run('resource', 'provider', 'inventory', 'list', 'compute-2')
    ex.run('resource', 'provider', 'inventory', 'list', 'compute-2',
           '--long')
    ex.run('resource', 'provider', 'usage', 'show', 'compute-2')

    ex.file('providers-traits')
    ex.run('resource', 'provider', 'trait', 'list', 'compute-2')
    ex.run('trait', 'create', 'CUSTOM_GPU_PASSTHROUGH')
    ex.run('resource', 'provider', 'trait', 'add', 'compute-2',
           '--trait', 'CUSTOM_GPU_PASSTHROUGH')
    ex.run('resource', 'provider', 'trait', 'remove', 'compute-2',
           '--trait', 'CUSTOM_LICENSED_WINDOWS')


def _bump_consumer(box, consumer, resources):
    """Another writer changes the consumer's allocations (at 1.28)."""
    def write():
        current = box.api('GET', '/allocations/%s' % consumer,
                          version='1.28')
        box.api('PUT', '/allocations/%s' % consumer, version='1.28', body={
            'allocations': {cloud.COMPUTE2: {'resources': resources}},
            'project_id': current['project_id'],
            'user_id': current['user_id'],
            'consumer_generation': current['consumer_generation']})
    return write


@scenario
def allocations(ex):
    ex.file('allocation-set')
    ex.run('resource', 'provider', 'allocation', 'set', VM4,
           '--allocation', 'rp=compute-2,VCPU=2,MEMORY_MB=2048',
           '--project-id', 'project-1', '--user-id', 'user-1')
    ex.run('resource', 'provider', 'allocation', 'show', VM4)

    ex.file('allocation-conflict')
    other = _bump_consumer(ex.box, VM4, {'VCPU': 2, 'MEMORY_MB': 2048,
                                         'DISK_GB': 20})
    # The command reads the consumer, then, just before its write reaches
    # Placement, the other writer changes the consumer: the 409 the command
    # gets is the server's own answer.
    with relay.Relay(ex.box.endpoint) as between:
        fired = between.intercept('PUT', '/allocations/' + VM4, other)
        ex.run('resource', 'provider', 'allocation', 'set', VM4,
               '--allocation', 'rp=compute-2,VCPU=4,MEMORY_MB=4096',
               '--project-id', 'project-1', '--user-id', 'user-1',
               endpoint=between.endpoint, expect=1)
    if not fired.is_set():
        raise ExampleError('the concurrent writer never ran')

    ex.file('allocation-conflict-after')
    ex.run('resource', 'provider', 'allocation', 'show', VM4)
    ex.run('resource', 'provider', 'allocation', 'set', VM4,
           '--allocation', 'rp=compute-2,VCPU=4,MEMORY_MB=4096,DISK_GB=20',
           '--project-id', 'project-1', '--user-id', 'user-1')

    ex.file('allocation-capacity')
    ex.run('resource', 'provider', 'allocation', 'set', VM5,
           '--allocation', 'rp=compute-2,VCPU=100',
           '--project-id', 'project-1', '--user-id', 'user-1', expect=1)


@scenario
def allocation_writes(ex):
    alloc = ('resource', 'provider', 'allocation')
    # A migration of VM1 from compute-2 to compute-1 that failed: as Nova
    # does, the migration's consumer holds what VM1 held on the source,
    # and VM1 holds its allocations on the destination.
    owner = {'project_id': 'project-1', 'user_id': 'user-1'}
    migration = {cloud.COMPUTE2: {'resources': {
        'VCPU': 2, 'MEMORY_MB': 4096, 'DISK_GB': 40}}}
    destination = {cloud.COMPUTE1: {'resources': {'DISK_GB': 40}},
                   cloud.COMPUTE1_NUMA0: {'resources': {
                       'VCPU': 2, 'MEMORY_MB': 4096}}}
    ex.api('POST', '/allocations', body={
        MIGRATION: dict(owner, allocations=migration,
                        consumer_generation=None,
                        consumer_type='MIGRATION'),
        VM1: dict(owner, allocations=destination, consumer_generation=1,
                  consumer_type='INSTANCE')})

    ex.file('allocation-migration-before')
    ex.run(*alloc, 'show', MIGRATION)
    ex.run(*alloc, 'show', VM1)
    ex.run('resource', 'provider', 'usage', 'show', 'compute-2')

    ex.file('allocation-migration-move')
    ex.run(*alloc, 'move', MIGRATION, VM1)
    usage = ex.run('resource', 'provider', 'usage', 'show', 'compute-2')
    claim('| MEMORY_MB      |  5120 |' in usage,
          'the usage of compute-2 is the same after the move')

    ex.file('allocation-migration-unset')
    ex.run(*alloc, 'unset', VM1, '--provider', 'compute-1',
           '--provider', 'compute-1_NUMA0')

    ex.cwd = tempfile.mkdtemp(prefix='doc-examples-')
    try:
        ex.file('allocation-save')
        ex.run(*alloc, 'save', '--resource-provider', 'compute-2',
               '--file', 'before-edit.json')
        with open(os.path.join(ex.cwd, 'before-edit.json')) as f:
            ex.show_file('before-edit.json', f.read())

        ex.file('allocation-restore-dry-run')
        ex.run(*alloc, 'delete', VM3)
        ex.run(*alloc, 'restore', 'before-edit.json', '--dry-run')

        ex.file('allocation-restore')
        ex.run(*alloc, 'restore', 'before-edit.json')
        rows = table_rows(ex.run(*alloc, 'show', VM3))
        claim(len(rows) == 1 and 'CUSTOM_FPGA' in rows[0][2],
              'VM3 holds its allocations again after the restore')

        ex.file('allocation-restore-refused')
        _bump_consumer(ex.box, VM1, {'VCPU': 4, 'MEMORY_MB': 4096,
                                     'DISK_GB': 40})()
        ex.run(*alloc, 'delete', VM3)
        ex.run(*alloc, 'restore', 'before-edit.json', expect=1)
        ex.run(*alloc, 'restore', 'before-edit.json', '--force')
    finally:
        for name in os.listdir(ex.cwd):
            os.unlink(os.path.join(ex.cwd, name))
        os.rmdir(ex.cwd)
        ex.cwd = None


@scenario
def inventory(ex):
    ex.file('inventory-aggregate-members')
    ex.run('resource', 'provider', 'create', 'compute-3', '--uuid', COMPUTE3)
    ex.run('resource', 'provider', 'aggregate', 'set', 'compute-3',
           '--aggregate', AGGREGATE, '--generation', '0')
    ex.run('resource', 'provider', 'list', '--member-of', AGGREGATE)

    # The local disk is on the root provider of every host, nested or
    # flat: the one class the three roots have in common. Replacing a
    # root's whole inventory with it must fail on compute-2 (classes in
    # use) and reset compute-1's reserved disk.
    values = ['--resource', 'DISK_GB=2000']

    ex.file('inventory-aggregate-dry-run')
    before = table_rows(ex.run('resource', 'provider', 'inventory', 'list',
                               'compute-1'))
    claim([row[0] for row in before] == ['DISK_GB'] and before[0][4] == '50',
          'the root of compute-1 holds only DISK_GB, with 50 reserved')
    ex.run('resource', 'provider', 'inventory', 'set', AGGREGATE,
           '--aggregate', *values, '--dry-run')

    ex.file('inventory-aggregate-partial')
    rows = table_rows(ex.run(
        'resource', 'provider', 'inventory', 'set', AGGREGATE,
        '--aggregate', *values, expect=1))
    claim({row[0] for row in rows} == {cloud.COMPUTE1, COMPUTE3},
          'compute-1 and compute-3 are updated, compute-2 is not')
    claim(all(row[5] == '0' for row in rows),
          'the replaced inventories have a reserved of 0')

    ex.file('inventory-aggregate-after')
    ex.run('resource', 'provider', 'inventory', 'set', 'compute-1',
           '--amend', '--resource', 'DISK_GB:reserved=50')
    rows = table_rows(ex.run(
        'resource', 'provider', 'inventory', 'set', AGGREGATE,
        '--aggregate', '--amend',
        '--resource', 'DISK_GB:allocation_ratio=1.5'))
    claim([row[1] for row in rows if row[0] == cloud.COMPUTE2]
          == ['VCPU', 'MEMORY_MB', 'DISK_GB', 'CUSTOM_FPGA'],
          'with --amend compute-2 keeps its other classes')


@scenario
def candidates(ex):
    ex.file('candidates-simple')
    found = candidate_rows(ex.run(
        'allocation', 'candidate', 'list', '--resource', 'VCPU=2',
        '--resource', 'MEMORY_MB=2048'))
    split = [n for n, rows in found.items() if len(rows) == 2]
    claim(len(found) == 5 and len(split) == 2, 'two of the five candidates '
          'take CPU and memory from two NUMA nodes')

    ex.file('candidates-granular')
    found = candidate_rows(ex.run(
        'allocation', 'candidate', 'list',
        '--group', '1', '--resource', 'VCPU=2',
        '--resource', 'MEMORY_MB=2048',
        '--group', '2', '--resource', 'SRIOV_NET_VF=1',
        '--required', 'CUSTOM_PHYSNET1',
        '--group-policy', 'isolate'))
    numa_of_card = {cloud.COMPUTE1_PF0: cloud.COMPUTE1_NUMA0,
                    cloud.COMPUTE1_PF1: cloud.COMPUTE1_NUMA1}
    crossed = [n for n, rows in found.items()
               if numa_of_card[rows[1][1]] != rows[0][1]]
    claim(len(found) == 4 and len(crossed) == 2, 'in two of the four '
          'candidates the card is under the other NUMA node')

    ex.file('candidates-subtree')
    ex.run('--os-placement-api-version', '1.36', 'allocation', 'candidate',
           'list',
           '--group', 'compute', '--resource', 'VCPU=2',
           '--resource', 'MEMORY_MB=2048',
           '--group', 'net', '--resource', 'SRIOV_NET_VF=1',
           '--required', 'CUSTOM_PHYSNET1',
           '--group-policy', 'isolate',
           '--same-subtree', 'compute,net', '--long')


@scenario
def troubleshooting(ex):
    # The story: compute-1 failed and its server VM2 was evacuated to
    # compute-2. Nova holds the allocations on both hosts until the source
    # comes back, which it never will: the operator removes it.
    ex.api('PUT', '/allocations/%s' % VM2, version='1.28', body={
        'allocations': {
            cloud.COMPUTE1: {'resources': {'DISK_GB': 20}},
            cloud.COMPUTE1_NUMA0: {'resources': {'VCPU': 4,
                                                 'MEMORY_MB': 8192}},
            cloud.COMPUTE1_PF0: {'resources': {'SRIOV_NET_VF': 1}},
            cloud.COMPUTE2: {'resources': {'VCPU': 4, 'MEMORY_MB': 8192,
                                           'DISK_GB': 20}}},
        'project_id': cloud.PROJECT, 'user_id': 'user-2',
        'consumer_generation': 1})

    ex.file('orphan-hunt')
    known = '# servers known to nova\n%s\n%s\n' % (VM1, VM2)
    ex.show_file('known', known)
    rows = table_rows(ex.run(
        'resource', 'provider', 'allocation', 'list',
        '--exclude-consumers-from', '-', stdin=('known', known)))
    claim(rows and {row[1] for row in rows} == {VM3},
          'only the consumer that nova does not know is left')
    ex.run('resource', 'provider', 'allocation', 'list',
           '--exclude-consumers-from', '-', '-f', 'value', '-c',
           'consumer_uuid', stdin=('known', known))

    ex.file('orphan-delete-refused')
    ex.run('resource', 'provider', 'delete', 'compute-1', expect=1)

    ex.file('orphan-find')
    ex.run('resource', 'provider', 'list', '--name', 'compute-1')
    ex.run('resource', 'provider', 'show', 'compute-1', '--allocations')
    ex.run('resource', 'provider', 'tree', 'show', 'compute-1', '--long')
    ex.run('resource', 'provider', 'allocation', 'list', 'compute-1_NUMA0',
           '--long')

    ex.file('orphan-find-all')
    names = ex.run('resource', 'provider', 'tree', 'show', 'compute-1',
                   '-f', 'value', '-c', 'name').split()
    claim(len(names) == 5, 'the tree of compute-1 has five providers')
    holders = set()
    for name in names:
        rows = table_rows(ex.run('resource', 'provider', 'allocation',
                                 'list', name))
        holders.update(row[0] for row in rows)
    claim(holders == {VM2}, 'one consumer holds allocations on the tree')

    ex.file('orphan-consumer')
    ex.run('resource', 'provider', 'allocation', 'show', VM2)

    ex.file('orphan-consumer-type')
    ex.run('--os-placement-api-version', '1.38', 'resource', 'provider',
           'allocation', 'show', VM2)

    ex.file('orphan-unset')
    ex.run('resource', 'provider', 'allocation', 'unset', VM2,
           '--provider', 'compute-1', '--provider', 'compute-1_NUMA0',
           '--provider', 'compute-1_ens1f0')

    ex.file('orphan-delete')
    ex.run('resource', 'provider', 'delete', 'compute-1_ens1f0',
           'compute-1_ens1f1', 'compute-1_NUMA0', 'compute-1_NUMA1',
           'compute-1')
    ex.run('resource', 'provider', 'list')

    ex.file('orphan-consumer-delete')
    ex.run('resource', 'provider', 'allocation', 'delete', VM3)
    ex.run('resource', 'provider', 'allocation', 'list', 'compute-2')


# Every command that prints a list, as the scripting page documents it.
LIST_COMMANDS = (
    ('resource', 'provider', 'list'),
    ('resource', 'provider', 'tree', 'show', 'compute-1', '--long'),
    ('resource', 'provider', 'inventory', 'list', 'compute-2', '--long'),
    ('resource', 'provider', 'usage', 'show', 'compute-2'),
    ('resource', 'usage', 'show', cloud.PROJECT),
    ('resource', 'provider', 'allocation', 'show', VM1),
    ('resource', 'provider', 'allocation', 'list', 'compute-2', '--long'),
    ('resource', 'provider', 'aggregate', 'list', 'compute-2'),
    ('resource', 'provider', 'trait', 'list', 'compute-2'),
    ('trait', 'list', '--name', 'startswith:CUSTOM_'),
    ('resource', 'class', 'list'),
    ('allocation', 'candidate', 'list', '--resource', 'VCPU=2', '--long'),
)

JSON_TYPES = ((bool, 'boolean'), (int, 'integer'), (float, 'number'),
              (str, 'string'), (list, 'array'), (dict, 'object'),
              (type(None), 'null'))


def json_type(value):
    """The JSON name of the type of a decoded value."""
    for python_type, name in JSON_TYPES:
        if type(value) is python_type:
            return name
    raise ExampleError('%r is not a JSON value' % (value,))


def columns_table(args, rows):
    """An RST table: each column of ``-f json`` with its types, an example."""
    if not rows:
        raise ExampleError('openstack %s printed no rows' % ' '.join(args))
    lines = ['``openstack %s``' % ' '.join(args), '',
             '.. list-table::', '   :header-rows: 1',
             '   :widths: 30 20 50', '',
             '   * - Key', '     - JSON type', '     - Example']
    for key in rows[0]:
        types = []
        for row in rows:
            name = json_type(row[key])
            if name not in types:
                types.append(name)
        example = next((row[key] for row in rows if row[key] is not None),
                       None)
        text = json.dumps(example)
        if len(text) > 40:
            text = text[:37] + '...'
        lines.extend(['   * - ``%s``' % key,
                      '     - %s' % ' or '.join(types),
                      '     - ``%s``' % text])
    return '\n'.join(lines) + '\n'


@scenario
def scripting(ex):
    ex.file('scripting-formats')
    ex.run('resource', 'provider', 'list', '--name', 'compute-2',
           '-f', 'json')
    ex.run('resource', 'provider', 'list', '--name', 'compute-2',
           '-f', 'value', '-c', 'uuid')
    ex.run('resource', 'provider', 'usage', 'show', 'compute-2',
           '-f', 'value')

    ex.file('scripting-exit-codes')
    ex.run('resource', 'provider', 'show', 'compute-9', expect=1)
    ex.run('resource', 'provider', 'list', '--colour', 'red', expect=2)

    ex.file('scripting-columns')
    tables = []
    for args in LIST_COMMANDS:
        env = client.client_env(ex.box.endpoint)
        proc = subprocess.run(
            [client.openstack_executable()] + list(args) + ['-f', 'json'],
            env=env, stdin=subprocess.DEVNULL, capture_output=True,
            text=True, timeout=120)
        if proc.returncode:
            raise ExampleError('openstack %s failed:\n%s'
                               % (' '.join(args), proc.stderr))
        tables.append(columns_table(args, json.loads(proc.stdout)))
    ex.files[ex.current].append('\n'.join(tables))


@scenario
def capacity(ex):
    ex.file('capacity-free')
    rows = table_rows(ex.run('resource', 'provider', 'inventory', 'list',
                             'compute-2', '--long'))
    claim(rows and rows[0][0] == 'VCPU', 'VCPU is the first row')
    ex.run('resource', 'provider', 'usage', 'show', 'compute-2')

    ex.file('capacity-list')
    ex.run('resource', 'provider', 'capacity', 'list', '--resource-class',
           'VCPU', '--resource-class', 'MEMORY_MB')
    ex.run('resource', 'provider', 'capacity', 'list', '--summary')
    ex.run('resource', 'provider', 'capacity', 'list', '--summary',
           '--in-tree', 'compute-1')

    ex.file('capacity-flavor')
    found = candidate_rows(ex.run(
        'allocation', 'candidate', 'list', '--resource', 'VCPU=4',
        '--resource', 'MEMORY_MB=8192', '--resource', 'DISK_GB=40',
        '--limit', '10'))
    claim(found, 'some host can take the flavor')
    ex.run('allocation', 'candidate', 'list', '--resource', 'VCPU=4',
           '--resource', 'MEMORY_MB=8192', '--resource', 'DISK_GB=40',
           '--resource', 'CUSTOM_FPGA=1', '--limit', '10')


@scenario
def capacity_fit(ex):
    ex.file('capacity-fit')
    rows = table_rows(ex.run(
        'resource', 'provider', 'capacity', 'fit', '--resource', 'VCPU=4',
        '--resource', 'MEMORY_MB=8192', '--resource', 'DISK_GB=40'))
    claim(rows and any(row[2] not in ('0', '') for row in rows),
          'some tree takes more of the flavor')
    ex.run('resource', 'provider', 'capacity', 'fit', '--resource', 'VCPU=4',
           '--resource', 'MEMORY_MB=8192', '--resource', 'DISK_GB=40',
           '--summary')

    ex.file('capacity-openmetrics')
    ex.run('resource', 'provider', 'capacity', 'fit', '--resource', 'VCPU=4',
           '--resource', 'MEMORY_MB=8192', '-f', 'openmetrics')
    ex.run('resource', 'provider', 'capacity', 'list', '--summary',
           '--resource-class', 'VCPU', '-f', 'openmetrics')


@scenario
def no_valid_host(ex):
    flavor = ('--resource', 'VCPU=4', '--resource', 'MEMORY_MB=8192',
              '--resource', 'DISK_GB=40')
    ex.file('no-valid-host-list')
    claim(not table_rows(ex.run('allocation', 'candidate', 'list', *flavor,
                                '--required', 'HW_CPU_X86_AVX2',
                                '--forbidden', 'CUSTOM_LICENSED_WINDOWS')),
          'no host takes the request')

    ex.file('no-valid-host-explain')
    rows = table_rows(ex.run('allocation', 'candidate', 'explain', *flavor,
                             '--required', 'HW_CPU_X86_AVX2',
                             '--forbidden', 'CUSTOM_LICENSED_WINDOWS'))
    claim(rows and all(row[2] == 'False' for row in rows),
          'no tree is a candidate')
    ex.run('allocation', 'candidate', 'explain', *flavor, '--required',
           'HW_CPU_X86_AVX2', '--forbidden', 'CUSTOM_LICENSED_WINDOWS',
           '--long', '-f', 'yaml')

    ex.file('no-valid-host-summary')
    ex.run('allocation', 'candidate', 'explain', *flavor, '--required',
           'HW_CPU_X86_AVX2', '--forbidden', 'CUSTOM_LICENSED_WINDOWS',
           '--summary')


# -- main ---------------------------------------------------------------------

def generate(names):
    """{file name: text} of the selected scenarios."""
    # Placement builds allocation candidates and trait lists from Python
    # sets, whose order changes with the hash seed of the server process.
    # A fixed seed (inherited by the server and the clients) gives the same
    # order on every run.
    os.environ['PYTHONHASHSEED'] = '0'
    selected = [func for func in SCENARIOS
                if not names or func.__name__ in names]
    # Each scenario has a sandbox of its own, started and stopped in the
    # worker thread that runs it: they can run side by side.
    with futures.ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        results = list(pool.map(run_scenario, selected))
    files = {}
    for recorded in results:
        for name, blocks in recorded.items():
            files[name + '.txt'] = '\n'.join(blocks)
    return files


def run_scenario(func):
    """{example name: [recorded blocks]} of one scenario."""
    recorded = {}
    with placement.Placement() as box:
        cloud.seed(box.endpoint)
        func(Recorder(box, recorded))
    return recorded


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument('--check', action='store_true',
                      help='compare with the committed files; exit 1 and '
                           'print a diff if they differ')
    mode.add_argument('--write', action='store_true',
                      help='rewrite the files (the default)')
    parser.add_argument('--only', action='append', default=[],
                        choices=[f.__name__ for f in SCENARIOS],
                        help='run only this scenario (repeatable)')
    args = parser.parse_args(argv)

    try:
        files = generate(args.only)
    except (ExampleError, support.SandboxError,
            fixtures.MultipleExceptions) as exc:
        error = support.first_error(exc)
        if not isinstance(error, (ExampleError, support.SandboxError)):
            raise
        print('error: %s' % error, file=sys.stderr)
        return 1

    existing = {name for name in os.listdir(EXAMPLES_DIR)
                if name.endswith('.txt')} if os.path.isdir(
                    EXAMPLES_DIR) else set()
    stale = set() if args.only else existing - set(files)
    if args.check:
        differ = False
        for name in sorted(files):
            path = os.path.join(EXAMPLES_DIR, name)
            try:
                with open(path) as f:
                    old = f.read()
            except FileNotFoundError:
                old = None
            if old != files[name]:
                differ = True
                sys.stdout.writelines(difflib.unified_diff(
                    (old or '').splitlines(True),
                    files[name].splitlines(True),
                    'committed/' + name, 'generated/' + name))
        for name in sorted(stale):
            differ = True
            print('%s is no longer generated' % name)
        if differ:
            print('\nThe example outputs differ from what the code prints '
                  'now. Regenerate them with "tox -e docs-examples -- '
                  '--write" and commit the result.', file=sys.stderr)
            return 1
        print('%d example files match the code.' % len(files))
        return 0

    os.makedirs(EXAMPLES_DIR, exist_ok=True)
    for name, text in sorted(files.items()):
        with open(os.path.join(EXAMPLES_DIR, name), 'w') as f:
            f.write(text)
    for name in sorted(stale):
        os.remove(os.path.join(EXAMPLES_DIR, name))
    print('wrote %d example files to %s' % (len(files), EXAMPLES_DIR))
    return 0


if __name__ == '__main__':
    sys.exit(main())
