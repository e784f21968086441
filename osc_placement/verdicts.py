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

"""A request against every provider tree: Placement's verdict and ours.

What ``allocation candidate explain`` and ``capacity fit`` share:

* ``Trees``: the trees to consider (every root of the provider list, or
  the trees of the ``--resource-provider`` values), and what is read of
  each of their providers (inventories, usages, traits, aggregates: four
  requests per provider, through the batch), as the pure
  ``evaluation`` module takes them;
* ``candidate_roots()``: the roots within which Placement's own
  ``GET /allocation_candidates`` returns an allocation request; a tree
  that the local evaluation finds but the answer lacks (the answer may be
  cut by Placement's ``max_allocation_candidates``) is asked about again
  with ``in_tree=<root>`` before it is called "not a candidate".

The verdict shown is always Placement's; the local evaluation gives the
reasons, and where it disagrees with Placement the reason is
``unexplained``.
"""

import logging

from osc_placement import evaluation
from osc_placement import providers
from osc_placement import version

LOG = logging.getLogger(__name__)

CANDIDATES_URL = '/allocation_candidates'
# provider summaries and the provider list name roots from these versions.
ROOTS_SHOWN = '1.14'
IN_TREE = '1.31'
UNEXPLAINED = 'unexplained'


def query_dict(params):
    """The (name, value) pairs of a query as {name: value or [values]}."""
    found = {}
    for name, value in params:
        if name in found:
            if not isinstance(found[name], list):
                found[name] = [found[name]]
            found[name].append(value)
        else:
            found[name] = value
    return found


def group_suffixes(params):
    """The suffixes of the request groups that a query names ('' too)."""
    suffixes = []
    for name, _value in params:
        for prefix in ('resources', 'required', 'member_of', 'in_tree'):
            if name.startswith(prefix):
                suffix = name[len(prefix):]
                if suffix not in suffixes:
                    suffixes.append(suffix)
    return suffixes


def within_tree(params, root):
    """The query asked again for one tree: every group in that tree."""
    kept = [(name, value) for name, value in params
            if not name.startswith('in_tree')]
    return kept + [('in_tree' + suffix, root)
                   for suffix in group_suffixes(params)]


class Trees(object):
    """The trees a command considers, and the providers of each."""

    def __init__(self, cmd, http, named=()):
        self.cmd = cmd
        self.http = http
        everyone = http.request('GET', providers.BASE_URL).field(
            'resource_providers', list)
        self.root_of = {p['uuid']: p.get('root_provider_uuid') or p['uuid']
                        for p in everyone}
        self.members = {}
        for provider in everyone:
            self.members.setdefault(self.root_of[provider['uuid']],
                                    []).append(provider)
        self.roots = [p for p in everyone
                      if self.root_of[p['uuid']] == p['uuid']]
        if named:
            wanted = set()
            for value in named:
                wanted.add(self.root_of.get(
                    providers.find_provider(http, value)))
            self.roots = [p for p in self.roots if p['uuid'] in wanted]
        self.records = {}

    def read(self):
        """{root: [provider records]}: four reads per provider, batched."""
        shown = [p for root in self.roots for p in self.members[root['uuid']]]
        read = dict((p['uuid'], record) for p, record in
                    self.cmd.each_provider(
                        self.http, lambda uuid: _provider(self.http, uuid),
                        shown))
        for root in self.roots:
            self.records[root['uuid']] = [
                evaluation.provider_record(p, read[p['uuid']])
                for p in self.members[root['uuid']] if p['uuid'] in read]
        return self.records

    def roots_in(self, response):
        """The roots of the allocation requests of a candidates answer.

        A request counts for a tree when all its providers are in it.
        """
        found = set()
        requests = response.field('allocation_requests', list)
        for request in requests:
            allocations = request['allocations']
            if isinstance(allocations, dict):
                rps = list(allocations)
            else:
                rps = [a['resource_provider']['uuid'] for a in allocations]
            rps += [rp for rps_of in request.get('mappings', {}).values()
                    for rp in rps_of]
            roots = set(self.root_of.get(rp, rp) for rp in rps)
            if len(roots) == 1:
                found.update(roots)
        return found


def _provider(http, rp_uuid):
    return {what: providers.read(http, rp_uuid, what, kind)
            for what, kind in evaluation.READS}


def candidate_roots(cmd, http, trees, params, local):
    """{root: True or False}: Placement's verdict for every tree.

    local: {root: the local Verdict}. A tree the local evaluation
    takes for a candidate but the answer lacks is asked about again
    within that tree (from 1.31), one request each, through the batch.
    """
    answer = http.request('GET', CANDIDATES_URL, params=params)
    found = trees.roots_in(answer)
    again = [root for root in trees.records
             if root not in found and local[root] is not None
             and not local[root].reasons]
    if again and cmd.compare_version(version.ge(IN_TREE)):
        for root, response in cmd.each(
                http, lambda root: http.request(
                    'GET', CANDIDATES_URL, params=within_tree(params, root)),
                again, 'tree'):
            if root in trees.roots_in(response):
                found.add(root)
    return {root: root in found for root in trees.records}


def local_verdicts(params, microversion, trees):
    """(request, {root: Verdict}) of the local evaluation of the request.

    A request Placement took but the evaluation cannot read gives None
    and no verdict for any tree (each then shows ``unexplained``).
    """
    try:
        request = evaluation.Request.from_query(query_dict(params),
                                                microversion)
    except ValueError as exc:
        LOG.debug('The local evaluation cannot read the request: %s', exc)
        return None, {root: None for root in trees.records}
    return request, {root: evaluation.evaluate(request, records)
                     for root, records in trees.records.items()}


def reasons(verdict, candidate):
    """The reasons shown: the local ones where Placement agrees."""
    if verdict is not None and candidate == (not verdict.reasons):
        return list(verdict.reasons)
    LOG.debug('The local evaluation disagrees with Placement (candidate: '
              '%s): %s', candidate,
              verdict.reasons if verdict else 'no evaluation')
    return [] if candidate else [UNEXPLAINED]
