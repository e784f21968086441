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

"""The audit of Nova's servers against Placement: pure, no request.

``state``: what was read, typed (servers, migrations, hypervisors, Nova's
aggregates, providers, allocations) in one ``Cloud``; ``rules``: one
function per kind of finding and the pipeline (``rules.audit()``);
``findings``: what is found, its fix and its rows; ``flavor_request``:
what a server's embedded flavor asks for; ``plan``: the write of the
fixes and the undo file.
"""

from osc_placement.model.audit import findings
from osc_placement.model.audit import flavor_request
from osc_placement.model.audit import plan
from osc_placement.model.audit import rules
from osc_placement.model.audit import state

__all__ = ['findings', 'flavor_request', 'plan', 'rules', 'state']
