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

"""How many more allocations of a one-group shape a tree takes."""

from osc_placement.evaluation import request as requests
from osc_placement.evaluation import search
from osc_placement.evaluation import tree as trees


def fit(request, tree):
    """(count, limited_by): more allocations of the request's shape.

    For a request of one group: per requested class, the sum over the
    providers that may serve it (the group's traits and aggregates) of
    ``free // amount`` (0 where the amount breaks min_unit, max_unit or
    step_size); the smallest over the classes, and that class. Exact for a
    tree of one provider, an upper bound for a nested tree. When the tree
    is no candidate now, (0, the first reason).
    """
    if len(request.groups) != 1:
        raise ValueError('fit() takes a request of one group, not %d'
                         % len(request.groups))
    verdict = search.evaluate(request, tree)
    group = list(request.groups.values())[0]
    shape = trees.Tree(tree)
    constraints = trees.group_constraints(
        shape, group, root_aggs=not group.granular)[len(group.resources):]
    spread = not group.granular and request.at_least(requests.NESTED)
    if spread:
        # The unnamed group's required traits are held by its providers
        # together: they limit which trees, not which providers.
        constraints = [c for c in constraints if c.kind != 'required']
    eligible = [rp for rp in shape.providers
                if all(c.holds(rp) for c in constraints)]
    count, limited_by = None, ''
    for rc, amount in group.resources.items():
        room = 0
        for rp in eligible:
            if trees.serves(rp, rc, amount):
                room += trees.free(rp, rc) // amount
        if count is None or room < count:
            count, limited_by = room, rc
    if verdict.reasons:
        return 0, verdict.reason
    return count, limited_by
