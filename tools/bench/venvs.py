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


"""The two client virtualenvs of the bench: ours and the reference.

Each holds the python-openstackclient of this environment and every
shared dependency at the version installed here, so that the two sides
differ by the plugin only.
"""

import importlib.metadata
import os
import shutil
import subprocess
import sys

import common


def version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def clean_env(base=None):
    env = dict(os.environ if base is None else base)
    # Both sides run with their .pyc files, as users do.
    for name in ('PYTHONDONTWRITEBYTECODE', 'PYTHONPATH', 'PYTHONHOME',
                 'VIRTUAL_ENV'):
        env.pop(name, None)
    return env


def _pip(bindir, args):
    subprocess.check_call(
        [os.path.join(bindir, 'python'), '-m', 'pip', 'install', '-q',
         '--disable-pip-version-check'] + args, env=clean_env())


def client_venv(work_dir, name, requirements):
    """The bin directory of a virtualenv with ``requirements``.

    It holds the python-openstackclient of this environment, and every
    shared dependency at the version installed here, so that the two
    sides differ by the plugin only. Kept while nothing changes.
    """
    venv = os.path.join(work_dir, '%s-venv' % name)
    requirements = list(requirements) + [
        'python-openstackclient==%s' % version('python-openstackclient')]
    skip = {'osc-placement', 'pip', 'setuptools', 'wheel'}
    constraints = sorted(
        '%s==%s' % (dist.metadata['Name'].lower().replace('_', '-'),
                    dist.version)
        for dist in importlib.metadata.distributions()
        if dist.metadata['Name']
        and dist.metadata['Name'].lower().replace('_', '-') not in skip)
    key = '\n'.join([sys.version] + requirements + constraints) + '\n'
    stamp = os.path.join(venv, 'bench-stamp')
    bindir = os.path.join(venv, 'bin')
    if os.path.exists(stamp) and open(stamp).read() == key:
        return bindir
    common.log('creating the %s virtualenv (%s)' % (
        name, ', '.join(requirements)))
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.check_call([sys.executable, '-m', 'venv', venv])
    with open(os.path.join(venv, 'constraints.txt'), 'w') as f:
        f.write('\n'.join(constraints) + '\n')
    _pip(bindir, ['-c', os.path.join(venv, 'constraints.txt')]
         + requirements)
    with open(stamp, 'w') as f:
        f.write(key)
    return bindir


def install_ours(bindir):
    """(Re)install this working tree; returns what was installed."""
    _pip(bindir, ['--force-reinstall', '--no-deps', common.REPO])
    head = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'],
                          cwd=common.REPO, stdout=subprocess.PIPE,
                          text=True).stdout.strip()
    dirty = subprocess.run(['git', 'status', '--porcelain',
                            '--untracked-files=no', '--', 'osc_placement',
                            'setup.cfg'], cwd=common.REPO,
                           stdout=subprocess.PIPE, text=True).stdout.strip()
    return 'commit %s%s' % (head, ' + uncommitted changes' if dirty else '')


def version_in(bindir):
    """The version of osc-placement installed in a client virtualenv."""
    return subprocess.run(
        [os.path.join(bindir, 'python'), '-c', 'import importlib.metadata '
         'as m; print(m.version("osc-placement"))'], stdout=subprocess.PIPE,
        text=True, env=clean_env()).stdout.strip()
