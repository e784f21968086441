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


"""The scenario of scripting: output formats, exit codes, JSON columns."""

import json
import subprocess

from osc_placement.tests.support import client
from osc_placement.tests.support import cloud

from doc_examples import recorder

# Every command that prints a list, as the scripting page documents it.
LIST_COMMANDS = (
    ('resource', 'provider', 'list'),
    ('resource', 'provider', 'tree', 'show', 'compute-1', '--long'),
    ('resource', 'provider', 'inventory', 'list', 'compute-2', '--long'),
    ('resource', 'provider', 'usage', 'show', 'compute-2'),
    ('resource', 'usage', 'show', cloud.PROJECT),
    ('resource', 'provider', 'allocation', 'show', cloud.VM1),
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
    raise recorder.ExampleError('%r is not a JSON value' % (value,))


def columns_table(args, rows):
    """An RST table: each column of ``-f json`` with its types, an example."""
    if not rows:
        raise recorder.ExampleError('openstack %s printed no rows'
                                    % ' '.join(args))
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
            raise recorder.ExampleError('openstack %s failed:\n%s'
                                        % (' '.join(args), proc.stderr))
        tables.append(columns_table(args, json.loads(proc.stdout)))
    ex.files[ex.current].append('\n'.join(tables))
