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

"""Run a script so that ``python -X importtime`` sees every module.

Usage (run by bench.py), with the Python of the client's virtualenv::

    python -X importtime visible_imports.py OPENSTACK ARGS...

stevedore loads each entry point with ``EntryPoint.load()``, which
imports its module with ``importlib.import_module()``: that path does not
go through the import statement, and ``-X importtime`` reports only what
does. cliff loads every command module of every plugin that way, on every
``openstack`` run, so without this wrapper a report leaves out a plugin's
own command modules. Here the entry points' absolute imports go through
``__import__`` instead: the same modules are imported, in the same order,
and each shows in the report.
"""

import importlib.metadata
import runpy
import sys


def _import_module(name, package=None):
    if name.startswith('.'):
        return importlib.import_module(name, package)
    __import__(name)
    return sys.modules[name]


def main():
    if not callable(getattr(importlib.metadata, 'import_module', None)):
        raise SystemExit('visible_imports: this Python\'s importlib.metadata '
                         'does not load entry points with import_module()')
    importlib.metadata.import_module = _import_module
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    runpy.run_path(script, run_name='__main__')


if __name__ == '__main__':
    main()
