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

"""The evaluation of a request on one tree: every constraint that fails.

``evaluate(request, tree)`` checks the root's traits (``root_required``,
``research_context._get_roots_with_traits``) and each group's ``in_tree``,
finds each group's options (``groups``), and combines them under the
request-wide rules (``combine``). No reason: Placement returns an
allocation request within the tree.
"""

from osc_placement.model.evaluation import combine
from osc_placement.model.evaluation import groups
from osc_placement.model.evaluation import request as requests
from osc_placement.model.evaluation import tree as trees


class Verdict(object):
    """``reasons``: every failing constraint; empty for a candidate."""

    def __init__(self, reasons):
        self.reasons = reasons

    @property
    def reason(self):
        return self.reasons[0] if self.reasons else ''

    def __repr__(self):
        return 'Verdict(%r)' % self.reasons


def evaluate(request, tree):
    """The Verdict of Placement's rules for ``request`` on ``tree``.

    ``tree``: the provider records of one provider tree (see
    ``tree.provider_record``).
    """
    tree = trees.Tree(tree)
    prefixed = bool(request.granular)
    reasons = []
    root_traits = trees.traits(tree.root)
    for trait in request.root_required:
        if trait not in root_traits:
            reasons.append('root lacks required trait %s' % trait)
    for trait in request.root_forbidden:
        if trait in root_traits:
            reasons.append('root has forbidden trait %s' % trait)
    options = {}
    for suffix, group in request.groups.items():
        label = group.label + ': ' if prefixed else ''
        if not _in_tree(tree, group):
            reasons.append(label + 'not in tree %s' % group.in_tree)
            continue
        # in_tree leaves the sharing providers out (research_context.
        # get_trees_matching_all, get_providers_with_resource).
        found, why = groups.options(
            tree.own() if group.in_tree else tree, group,
            request.at_least(requests.NESTED))
        reasons.extend(label + text for text in why)
        options[suffix] = found
    if reasons:
        return Verdict(reasons)
    return Verdict(combine.Combination(request, tree, options).reasons())


def _in_tree(tree, group):
    # research_context.RequestGroupSearchContext: in_tree restricts
    # get_providers_with_resource only; a group without resources goes
    # through get_providers_with_root, which ignores it.
    return (group.in_tree is None or not group.resources
            or group.in_tree in tree.by_uuid)
