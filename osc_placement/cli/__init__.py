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

"""The command framework: what the commands share, on cliff and argparse.

The command bases and option gates (``common``), the parsers of user
values and the provider filters, the request-group and ``--flavor``
options, the batch engine, and the output formats that are not cliff's own
(OpenMetrics, DOT). The commands of ``osc_placement.resources`` sit on
top of it; it imports the API layer and the model below it.
"""
