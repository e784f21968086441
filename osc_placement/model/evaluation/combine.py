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

"""The rules across the groups of a request, and their reasons.

Given the options of every group (``groups.options()``), a combination
(one option per group) is a candidate when it meets every request-wide
rule of ``allocation_candidate._merge_candidates``: before 1.29 one
provider per tree (``RequestWideSearchContext.exclude_nested_providers``),
``group_policy=isolate`` (``_satisfies_group_policy``), each
``same_subtree`` (``_satisfies_same_subtree``) and the capacity of each
provider for the amounts summed over the groups (``exceeds_capacity``).
Where none is, ``Combination.reasons()`` blames each rule without which
some combination would do.
"""

import itertools

from osc_placement import microversions
from osc_placement.model.evaluation import groups
from osc_placement.model.evaluation import request as requests
from osc_placement.model.evaluation import tree as trees


class Combination(object):
    """The groups' options of one request in one tree."""

    def __init__(self, request, tree, options):
        self.request = request
        self.tree = tree
        self.options = options        # {suffix: [groups.Option]}

    def checks(self):
        """The checks of a combination, one per request-wide rule."""
        request = self.request
        checks = []
        if not request.at_least(requests.NESTED):
            checks.append(('nested', self._one_provider))
        if request.group_policy == 'isolate' and len(request.granular) > 1:
            checks.append(('isolate', self._isolated))
        for names in request.same_subtrees:
            checks.append((('subtree', tuple(names)),
                           lambda combo, names=names:
                           self._same_subtree(combo, names)))
        checks.append(('capacity', self._fits))
        return checks

    def _one_provider(self, combo):
        # exclude_nested_providers: one provider per tree (a sharing
        # provider is of a tree of its own).
        used = set(uuid for option in combo.values()
                   for uuid, _, _ in option.amounts)
        return len(used) == len(set(self.tree.tree_of(u) for u in used))

    def _isolated(self, combo):
        used = set()
        for suffix, option in combo.items():
            if suffix:
                used |= option.providers
        return len(used) == len(self.request.granular)

    def _same_subtree(self, combo, names):
        uuids = set()
        for name in names:
            uuids |= combo[name].providers
        if len(uuids) <= 1:
            return True
        common = set.intersection(*(set(self.tree.ancestors(u))
                                    for u in uuids))
        return bool(common & uuids)

    def _fits(self, combo):
        totals = {}
        for option in combo.values():
            for uuid, rc, amount in option.amounts:
                totals[uuid, rc] = totals.get((uuid, rc), 0) + amount
        return not any(
            trees.amount_problems(self.tree.by_uuid[uuid], rc, amount,
                                  one_group=False)
            for (uuid, rc), amount in totals.items())

    def _combinations(self):
        """Each choice of one option per group, as {suffix: option}."""
        suffixes = list(self.options)
        return (dict(zip(suffixes, choice)) for choice in
                itertools.product(*(self.options[s] for s in suffixes)))

    def reasons(self):
        """Reasons why no combination of the groups' options works."""
        checks = self.checks()
        # One combination that works is enough, and is mostly found among
        # the first: all of them are made only to say why none works.
        if any(all(check(c) for _, check in checks)
               for c in self._combinations()):
            return []
        combos = list(self._combinations())
        reasons = []
        for name, check in checks:
            others = [c for n, c in checks if n != name]
            if any(all(o(c) for o in others) for c in combos):
                reasons.extend(self._rule_reasons(name))
        if not reasons:
            text = ('no combination of providers meets %s together'
                    % groups.join(self._rule_words(name)
                                  for name, _ in checks))
            if 'isolate' in dict(checks):
                text += self._competition_text(self._competition())
            reasons.append(text)
        return reasons

    def _competition(self):
        """[(group labels, provider names)]: who could share what.

        The providers that more than one of the groups isolated from each
        other can use, gathered by the groups that can use them, in the
        order of the tree.
        """
        users = {}
        for group in self.request.granular:
            for option in self.options.get(group.suffix, []):
                for uuid in option.providers:
                    if group.label not in users.setdefault(uuid, []):
                        users[uuid].append(group.label)
        found = []
        for rp in self.tree.providers:
            labels = users.get(rp['uuid'], [])
            if len(labels) < 2:
                continue
            for known, names in found:
                if known == labels:
                    names.append(rp['name'])
                    break
            else:
                found.append((labels, [rp['name']]))
        return found

    def _competition_text(self, competing):
        """': group 1 and group 2 compete for numa0', or nothing."""
        if not competing:
            return ''
        return ': ' + '; '.join('%s compete for %s' % (
            groups.join(labels), groups.join(names))
            for labels, names in competing)

    def _rule_words(self, name):
        if name == 'nested':
            return 'one provider for all resources (before 1.29)'
        if name == 'isolate':
            return 'group_policy isolate'
        if name == 'capacity':
            return 'the free capacity of each provider'
        return 'same_subtree %s' % ','.join(name[1])

    def _rule_reasons(self, name):
        request = self.request
        if name == 'capacity':
            return self._capacity_reasons()
        if name == 'nested':
            totals = {}
            for group in request.groups.values():
                for rc, amount in group.resources.items():
                    totals[rc] = totals.get(rc, 0) + amount
            return ['no single provider has %s (before microversion %s '
                    'one provider serves all the resources)'
                    % (groups.join('%s:%d' % item for item in totals.items()),
                       microversions.NESTED_CANDIDATES)]
        if name == 'isolate':
            granular = request.granular
            labels = [g.label for g in granular]
            if len(granular) == 2:
                who = groups.join(labels)
            else:
                who = 'groups ' + groups.join(g.suffix for g in granular)
            text = '%s need separate providers (group_policy isolate)' % who
            competing = self._competition()
            if len(competing) == 1 and competing[0][0] == labels:
                # All of them want the same providers.
                return ['%s and compete for %s'
                        % (text, groups.join(competing[0][1]))]
            return [text + self._competition_text(competing)]
        return ['groups %s not under one provider (same_subtree)'
                % ', '.join(name[1])]

    def _capacity_reasons(self):
        """The class whose amounts summed over the groups do not fit."""
        totals, askers = {}, {}
        for group in self.request.groups.values():
            for rc, amount in group.resources.items():
                totals[rc] = totals.get(rc, 0) + amount
                askers.setdefault(rc, []).append(
                    '%s (%d)' % (group.label, amount))
        reasons = []
        for rc, amount in totals.items():
            having = self.tree.with_class(rc)
            if len(having) == 1:
                by = ''
                if len(askers[rc]) > 1:
                    by = ' by ' + groups.join(askers[rc])
                reasons.extend(trees.amount_problems(
                    having[0], rc, amount, one_group=False, by=by))
        return reasons or [
            '%s requested by the groups together: more than the providers '
            'they can use have free'
            % groups.join('%s:%d' % item for item in totals.items())]
