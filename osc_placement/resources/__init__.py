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

"""The placement commands: one module per Placement object.

cliff imports every command module of every plugin on every ``openstack``
run, whatever the command, and ``openstack --help`` makes every command
for its description (it builds no parser). A command module therefore
imports at its top only what its classes need to be defined and what the
parsers of most commands use. What only a few commands use is imported in
their own functions: the ``--flavor`` options (``flavor_requests``: by
the parsers and runs of ``allocation candidate list`` and ``explain`` and
of ``capacity fit``); and the engines that only some runs use, in the
functions of those runs: the local evaluation (``verdicts``,
``evaluation``: explain and capacity fit), the flavor translation and the
compute client (``flavors``, ``compute``: ``--flavor``), the save files
(``savefile``: allocation save and restore, reshape) and DOT (``dot``:
``--dot``). The OpenMetrics text format (``openmetrics``) is named only
by ``setup.cfg``, as a formatter of the capacity commands: cliff loads it
when it makes one of them.
``osc_placement/tests/functional/test_plugin_import.py`` holds them to it.
"""
