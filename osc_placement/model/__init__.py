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

"""The model: the rules and values of Placement and Nova, pure.

No module here sends a request or knows cliff: amounts and capacities,
consumers and their save files, the evaluation of a candidates request
against a provider tree, and Nova's translation of a flavor. Everything
above imports from here; nothing here imports from above (only
``osc_placement.version`` and ``osc_placement.microversions``, which sit
beside it).
"""
