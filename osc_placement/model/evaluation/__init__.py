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

"""Why a provider tree is, or is not, a candidate for a request.

Pure: no HTTP. ``Request.from_query`` reads the query parameters of
``GET /allocation_candidates``; ``evaluate(request, tree)`` says whether
Placement would return an allocation request within that tree, and if not,
every constraint that fails; ``fit(request, tree)`` counts how many more
allocations of the request's shape the tree can take. ``tree`` is a list
of the records that ``provider_record()`` builds, one per provider.

The modules, each along one seam:

- ``request``: the request read from its query (``Request``, ``Group``)
  and the microversions at which the rules change;
- ``tree``: the facts of a tree (``provider_record``, ``Tree``, the one
  amount check ``amount_problems``, a group's per-provider constraints);
- ``groups``: how one group can be served, or why not;
- ``combine``: the rules across the groups (before 1.29 one provider,
  ``group_policy``, ``same_subtree``, the capacity they share);
- ``search``: the whole evaluation, ``evaluate()`` and its ``Verdict``;
- ``copies``: the range of copies of a request of several groups;
- ``count``: ``fit()``, a range (``Fit``: ``fits`` reachable,
  ``at_most`` a bound).

The rules are Placement's own (openstack-placement 16.0.0), and each
module names the server code it follows. Sharing providers
(``MISC_SHARES_VIA_AGGREGATE``) of a tree's aggregates are records of the
tree marked ``shared`` (see ``tree.Tree``): a candidate may take a class
from one, and a count takes them as if the tree alone drew from them.
"""

from osc_placement.model.evaluation.count import Draw
from osc_placement.model.evaluation.count import fit
from osc_placement.model.evaluation.count import Fit
from osc_placement.model.evaluation.request import ANY_TRAITS
from osc_placement.model.evaluation.request import FORBIDDEN_AGGREGATES
from osc_placement.model.evaluation.request import FORBIDDEN_TRAITS
from osc_placement.model.evaluation.request import Group
from osc_placement.model.evaluation.request import MULTI_MEMBER_OF
from osc_placement.model.evaluation.request import NAMED_GROUPS
from osc_placement.model.evaluation.request import NESTED
from osc_placement.model.evaluation.request import Request
from osc_placement.model.evaluation.request import RESOURCELESS
from osc_placement.model.evaluation.request import UNNAMED
from osc_placement.model.evaluation.search import evaluate
from osc_placement.model.evaluation.search import Verdict
from osc_placement.model.evaluation.tree import provider_record
from osc_placement.model.evaluation.tree import READS

__all__ = ['ANY_TRAITS', 'Draw', 'FORBIDDEN_AGGREGATES', 'FORBIDDEN_TRAITS',
           'Fit', 'Group', 'MULTI_MEMBER_OF', 'NAMED_GROUPS', 'NESTED',
           'READS', 'RESOURCELESS', 'Request', 'UNNAMED', 'Verdict',
           'evaluate', 'fit', 'provider_record']
