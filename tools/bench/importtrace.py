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

"""Run ``openstack`` so that ``python -X importtime`` sees every import.

Usage: ``python -X importtime importtrace.py <openstack script> <args>``.

``-X importtime`` reports the imports made by ``import`` statements only.
OpenStackClient, cliff and stevedore load plugin and command modules with
``importlib.import_module()``, which it does not report (only what those
modules import in turn shows, as if imported from the top). This wrapper
makes ``import_module`` go through ``__import__`` for absolute names, so
the plugin modules appear in the report with their own cost, nested where
they were loaded, and then runs the script as ``__main__``.

This file is run by the benchmark with the Python of each virtualenv: it
imports only the standard library.
"""

import importlib
import importlib.metadata
import runpy
import sys

_import_module = importlib.import_module


def _import_module_traced(name, package=None):
    if not name.startswith('.'):
        __import__(name)
        return sys.modules[name]
    return _import_module(name, package)


importlib.import_module = _import_module_traced
importlib.metadata.import_module = _import_module_traced

if __name__ == '__main__':
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    runpy.run_path(script, run_name='__main__')
