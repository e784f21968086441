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

* ``Trees``: the trees to consider (every root of the provider list, the
  trees of the ``--resource-provider`` values, those of the providers a
  selection query of the provider list returns), and what is read of
  each of their providers (inventories, usages, traits, aggregates: four
  requests per provider, through the batch), as the pure
  ``evaluation`` module takes them;
* ``ask()``: one ``GET /allocation_candidates``, its answer cut down to
  what the verdicts need as it arrives (``Answer``: the roots within
  which it has an allocation request), the one way every candidates
  request here is read, those within a tree too;
* ``candidate_roots()`` and ``settle()``: the roots within which
  Placement's own ``GET /allocation_candidates`` returns an allocation
  request; a tree that the local evaluation finds but a non-empty answer
  lacks (the answer may be cut by Placement's
  ``max_allocation_candidates``) is asked about again with
  ``in_tree=<root>`` before it is called "not a candidate", and where
  that request fails the verdict is not known (None), never False;
* ``relaxed()``: how many trees Placement finds candidates in for each
  of several requests (``explain --summary``: the request without each
  constraint in turn), settled the same way.

Sharing providers (``MISC_SHARES_VIA_AGGREGATE``): an allocation request
may take a class from a provider of another tree that shares an
aggregate with the tree (research_context.anchors_for_sharing_providers).
Where an answer holds such a request, the sharing providers are read
(``Trees.read_sharing()``), and a request counts for the tree each of its
providers is in or shares with. The evaluation then sees each sharing
provider beside the providers of every tree it shares with. Placement
leaves sharing providers out of a request with ``in_tree``: the question
within such a tree is asked without it, and that tree's answers kept.

The verdict shown is always Placement's; the local evaluation gives the
reasons, and where it disagrees with Placement the reason is
``unexplained``.
"""

import dataclasses
import logging

from osc_lib import exceptions

from osc_placement.api import providers
from osc_placement.http import responses
from osc_placement import microversions
from osc_placement.model import batch_names
from osc_placement.model import candidates
from osc_placement.model import evaluation
from osc_placement.model import json_members
from osc_placement.model import scalars
from osc_placement.model import text
from osc_placement import version

LOG = logging.getLogger(__name__)

CANDIDATES_URL = '/allocation_candidates'
# The member of a provider list read an item at a time.
_PROVIDERS = 'resource_providers'
# The members of a candidates answer read an item at a time.
_STREAMED = ('allocation_requests', 'provider_summaries')
# The trait of a provider that shares its inventory with the trees of its
# aggregates.
SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'
UNEXPLAINED = 'unexplained'
# The reason of a tree whose verdict is not known.
UNKNOWN = 'not known: the candidates request within the tree failed'


def _listed_providers(http, params=None):
    """The items of a provider list, each cut down to what trees use.

    The fields a provider record starts from (evaluation.provider_record())
    and those a value of --resource-provider is compared with, kept as
    each item arrives (:func:`_read_listed`): on a big cloud the rest of
    each item, its links above all, would be most of the list's memory,
    and the whole list the command's peak.
    """
    return http.request('GET', providers.BASE_URL, params=params,
                        read=_read_listed).streamed


def _read_listed(chunks):
    """The cut-down items of a provider list's body, from its chunks."""
    items = None
    for key, part, item in json_members.members(chunks, (_PROVIDERS,)):
        if key != _PROVIDERS:
            continue
        if part is not json_members.Part.ITEM:
            if part is not json_members.Part.ARRAY:
                raise _not_a(key, list)
            items = []
        elif isinstance(item, dict) and 'uuid' in item and 'name' in item:
            items.append({
                'uuid': item['uuid'], 'name': item['name'],
                'parent_provider_uuid': item.get('parent_provider_uuid'),
                'root_provider_uuid': item.get('root_provider_uuid')})
        else:
            raise responses.Unusable('a provider without its uuid or name')
    if items is None:
        raise responses.Unusable(responses.without(_PROVIDERS))
    return items


def _say_absent(log, nodes):
    """One line for the compute nodes with no root provider of theirs."""
    if nodes:
        log.warning(
            'No root provider in Placement has the UUID of compute node(s) '
            '%s: no tree of theirs counts.', ', '.join(
                '%s (%s, host %s)' % (text.printable(str(node.name)),
                                      node.uuid, text.printable(node.host))
                for node in nodes))


class Trees(object):
    """The trees a command considers, and the providers of each."""

    def __init__(self, runner, http, named=(), selection=None, hosts=None):
        """The roots of the provider list, in its order, narrowed.

        runner: the command's ``runner.Runner``. named:
        ``--resource-provider`` values (UUID or name), each checked
        against the provider list as ``capacity list`` checks it; only
        their trees are kept. selection: a query of the provider list
        (``member_of``, ``in_tree``); only the trees of the providers it
        returns are kept. hosts: the compute nodes of the hosts of Nova's
        default zone, {root provider UUID: ``compute.Node``} (None: any);
        only their trees are kept, and those without a provider are said
        in one line.
        """
        self.runner = runner
        self.http = http
        everyone = _listed_providers(http)
        self.root_of = {p['uuid']: p.get('root_provider_uuid') or p['uuid']
                        for p in everyone}
        self.members = {}
        for provider in everyone:
            self.members.setdefault(self.root_of[provider['uuid']],
                                    []).append(provider)
        self.roots = [p for p in everyone
                      if self.root_of[p['uuid']] == p['uuid']]
        if named:
            wanted = set(self.root_of.get(_listed(http, everyone,
                                                  value)['uuid'])
                         for value in named)
            self.roots = [p for p in self.roots if p['uuid'] in wanted]
        if selection:
            chosen = _listed_providers(http, selection)
            wanted = set(self.root_of.get(p['uuid']) for p in chosen)
            self.roots = [p for p in self.roots if p['uuid'] in wanted]
        if hosts is not None:
            self.roots = [p for p in self.roots if p['uuid'] in hosts]
            _say_absent(runner.log, [
                node for uuid, node in sorted(hosts.items())
                if uuid not in self.members])
        self.records = {}
        # The values read of the providers, each held once where
        # providers repeat them (json_members.Shared).
        self.once = json_members.Shared()
        # {root: [records of the sharing providers of other trees that
        # share an aggregate with it]}: read_sharing().
        self.shared = {}
        # {sharing provider: the roots it shares with}.
        self.anchors = {}

    def read(self):
        """{root: [provider records]}: four reads per provider, batched.

        A provider that could not be read is left out of its tree's
        records: the batch (``'resource provider'``) reports it, and a
        command whose output needs every provider says so with
        ``require_complete()``.
        """
        shown = [p for root in self.roots for p in self.members[root['uuid']]]
        read = dict((p['uuid'], record) for p, record in
                    self.runner.each_provider(self.http, self._read_one,
                                              shown))
        for root in self.roots:
            self.records[root['uuid']] = [
                evaluation.provider_record(p, read[p['uuid']])
                for p in self.members[root['uuid']] if p['uuid'] in read]
        return self.records

    def providers_of(self, request):
        """(providers, roots) of one allocation request of an answer.

        Its providers, those of its mappings too (from 1.34), and the
        roots they are in (a provider outside the trees: its own root).
        """
        try:
            allocations = request['allocations']
            if isinstance(allocations, dict):
                rps = list(allocations)
            else:
                rps = [a['resource_provider']['uuid'] for a in allocations]
            rps += [rp for rps_of in request.get('mappings', {}).values()
                    for rp in rps_of]
            return rps, set(self.root_of.get(rp, rp) for rp in rps)
        except (AttributeError, KeyError, TypeError):
            raise responses.Unusable(
                'an allocation request that is not one: %s'
                % text.printable(str(request))[:80]) from None

    def read_sharing(self, answers):
        """Read the sharing providers, where an answer draws on one.

        answers: the :class:`Answer` of each request. Only where one of
        them holds a request of several trees (from 1.18, where the
        provider list takes ``required``): the providers with
        ``MISC_SHARES_VIA_AGGREGATE``, read as the trees' are, and the
        roots of the providers of their aggregates (one provider list
        each). Each answer's requests of several trees then count for
        the tree they are anchored in (:meth:`Answer.anchor`).
        """
        if not any(answer.sharing or any(
                len(set(self.root_of.get(rp, rp) for rp in rps)) > 1
                for rps in answer.spanning) for answer in answers) or \
                not version.compare(
                    self.http.api_version,
                    version.ge(microversions.PROVIDERS_REQUIRED), exc=False):
            return
        listed = _listed_providers(self.http, {'required': SHARING_TRAIT})
        read = dict((p['uuid'], record) for p, record in
                    self.runner.each_provider(self.http, self._read_one,
                                              listed))
        for provider in listed:
            if provider['uuid'] not in read:
                continue
            record = evaluation.provider_record(provider,
                                                read[provider['uuid']])
            aggs = record['aggregates']
            members = _listed_providers(self.http, {
                'member_of': 'in:' + ','.join(sorted(aggs))}) if aggs else []
            anchors = sorted(set(
                self.root_of.get(p['uuid'], p['uuid']) for p in members))
            self.anchors[provider['uuid']] = anchors
            own = self.root_of.get(provider['uuid'], provider['uuid'])
            # How many other trees it shares with.
            shared = dict(record, shared=True,
                          anchors=len([r for r in anchors if r != own]))
            for root in anchors:
                if root != own and root in self.records:
                    self.shared.setdefault(root, []).append(shared)
        for answer in answers:
            answer.anchor(self)

    def _read_one(self, uuid):
        """What the evaluation reads of one provider (:func:`_provider`)."""
        return _provider(self.http, uuid, self.once)

    def evaluated(self, root):
        """The records the evaluation takes for a tree: the sharing too."""
        return self.records[root] + self.shared.get(root, [])


@dataclasses.dataclass
class Answer:
    """What :func:`settle` needs of a candidates answer, without its body.

    ``roots``: the roots within which the answer has an allocation
    request (one whose providers are all in one tree); ``spanning``: the
    provider sets of the requests of several trees (a sharing provider's
    among them) and of a sharing provider alone, each once; ``sharing``:
    the sharing providers it names; ``empty``: it has no allocation
    request at all (an empty answer was not cut). Made as the answer's
    body arrives (:meth:`read`): on a big cloud it is tens of megabytes,
    never held whole.
    """

    roots: set
    spanning: set
    sharing: frozenset
    empty: bool

    @classmethod
    def read(cls, trees, chunks):
        """The Answer of a candidates answer's body, from its chunks.

        Each allocation request and provider summary is looked at as it
        is decoded (``json_members``), then dropped. Raises
        ``responses.Unusable`` where the body is not what Placement sends.
        """
        requests, found, spanning = None, set(), set()
        sharing, alone = set(), set()
        for key, part, value in json_members.members(chunks, _STREAMED):
            if key == 'allocation_requests':
                if part is json_members.Part.ARRAY:
                    requests = 0
                elif part is json_members.Part.ITEM:
                    requests += 1
                    rps, roots = trees.providers_of(value)
                    if len(roots) == 1:
                        found.update(roots)
                    if len(roots) > 1:
                        spanning.add(frozenset(rps))
                    elif len(set(rps)) == 1:
                        alone.add(rps[0])
                else:
                    raise _not_a(key, list)
            elif key == 'provider_summaries':
                if part is json_members.Part.MEMBER:
                    uuid, summary = value
                    if isinstance(summary, dict) and SHARING_TRAIT in (
                            summary.get('traits') or []):
                        sharing.add(uuid)
                elif part is not json_members.Part.OBJECT:
                    raise _not_a(key, dict)
        if requests is None:
            raise responses.Unusable(responses.without('allocation_requests'))
        # A request of a sharing provider alone is anchored in every
        # tree it shares with.
        spanning.update(frozenset([rp]) for rp in alone & sharing)
        return cls(found, spanning, frozenset(sharing), not requests)

    def anchor(self, trees):
        """Count the requests of several trees for their anchor tree.

        A request is the tree's whose providers are each in it or a
        sharing provider of one of its aggregates (trees.anchors).
        """
        for rps in self.spanning:
            if len(rps) == 1 and not set(rps) & set(trees.anchors):
                continue
            roots = set(trees.root_of.get(rp, rp) for rp in rps
                        if rp not in trees.anchors)
            shares = [set(trees.anchors[rp]) for rp in rps
                      if rp in trees.anchors]
            if len(roots) > 1:
                continue
            anchors = set.intersection(*shares) if shares else set()
            self.roots.update(anchors & roots if roots else anchors)
        self.spanning = set()


# What a forbidden trait meets on a Placement whose database is not
# SQLite: openstack-placement 16.0.0 compares trait IDs with trait names.
FORBIDDEN_TRAIT_FAULT = (
    'Placement failed on the forbidden trait (HTTP 500): openstack-placement '
    '16.0.0 on PostgreSQL or MySQL cannot answer a forbidden trait in GET '
    '/allocation_candidates, at any microversion that takes one; ask '
    'without it, or upgrade Placement.')


def _forbids_a_trait(params):
    """Whether a query forbids a trait (``!TRAIT`` in a ``required``)."""
    pairs = params.items() if isinstance(params, dict) else params
    return any(name.startswith('required') and '!' in str(value)
               for name, value in pairs)


def ask(http, trees, params):
    """The :class:`Answer` of ``GET /allocation_candidates?<params>``.

    The one way the candidates requests of explain and capacity fit are
    sent and read, the requests within a tree of :func:`settle` too: the
    body is read as it arrives (:meth:`Answer.read`). Placement's error
    500 for a forbidden trait on a database other than SQLite is one
    line saying so (``FORBIDDEN_TRAIT_FAULT``), not the SQL it failed on.
    """
    try:
        return http.request('GET', CANDIDATES_URL, params=params,
                            read=lambda chunks: Answer.read(
                                trees, chunks)).streamed
    except exceptions.ClientException as exc:
        if getattr(exc, 'code', None) == 500 and _forbids_a_trait(params):
            raise exceptions.CommandError(FORBIDDEN_TRAIT_FAULT) from exc
        raise


def _not_a(key, kind):
    """The Unusable of a member of an answer that is not of ``kind``."""
    return responses.Unusable(responses.not_a(key, kind))


def _listed(http, everyone, value):
    """The provider of the list that a UUID or name names.

    A value that names none of the list is looked up as ``capacity list``
    looks it up (``providers.lookup()``): its error when Placement knows
    no such provider, else the provider it found (by a UUID spelled in
    capitals, where the database compares without case).
    """
    key = 'uuid' if scalars.is_uuid_like(value) else 'name'
    for provider in everyone:
        if provider[key] == value:
            return provider
    return providers.lookup(http, value)


def _provider(http, rp_uuid, shared):
    """What the evaluation reads of one provider, each value ``shared()``."""
    return {what: shared(providers.read(http, rp_uuid, what, kind))
            for what, kind in evaluation.READS}


def candidate_roots(runner, http, trees, params):
    """({root: local Verdict}, {root: True, False or None}) of a request.

    The trees read. One candidates request; the sharing providers read
    where its answer draws on one; the local evaluation; then
    :func:`settle`: Placement's verdict for every tree.
    """
    answer = ask(http, trees, params)
    trees.read_sharing([answer])
    local = local_verdicts(params, http.api_version, trees)[1]
    return local, settle(runner, http, trees, [(params, answer, local)])[0]


def settle(runner, http, trees, asked):
    """[{root: True, False or None}]: the verdicts of answered requests.

    asked: [(params, :class:`Answer`, {root: local Verdict})], one per
    request. A
    tree that the local evaluation takes for a candidate but a non-empty
    answer lacks (an answer without any allocation request was not cut)
    is asked about again within that tree (from 1.31), one request each,
    all the requests' in one batch. Where that request fails the verdict
    is None: not known.
    """
    roots = [root['uuid'] for root in trees.roots]
    found = [answer.roots for _params, answer, _local in asked]
    again = []
    for index, (_params, answer, local) in enumerate(asked):
        if answer.empty:
            continue
        again.extend((index, root) for root in roots
                     if root not in found[index]
                     and local[root] is not None
                     and not local[root].reasons)
    verdicts = [{root: root in roots_of for root in roots}
                for roots_of in found]
    if again and version.compare(
            http.api_version, version.ge(microversions.IN_TREE_CANDIDATES),
            exc=False):
        answered = dict(runner.each(
            http, lambda item: _ask_within(http, trees, asked[item[0]][0],
                                           item[1]),
            again, batch_names.TREES, key=lambda item: item[1]))
        for index, root in again:
            answer = answered.get((index, root))
            verdicts[index][root] = None if answer is None \
                else root in answer.roots
    return verdicts


def _ask_within(http, trees, params, root):
    """The :class:`Answer` of the request asked again for one tree.

    With ``in_tree=<root>`` for every group; for a tree that shares an
    aggregate with a sharing provider, as it is (Placement leaves
    sharing providers out wherever ``in_tree`` is given), its requests of
    several trees counted for their anchor.
    """
    if not trees.shared.get(root):
        return ask(http, trees, candidates.within_tree(params, root))
    answer = ask(http, trees, params)
    answer.anchor(trees)
    return answer


def local_verdicts(params, microversion, trees):
    """(request, {root: Verdict}) of the local evaluation of the request.

    A request Placement took but the evaluation cannot read gives None
    and no verdict for any tree (each then shows ``unexplained``).
    """
    try:
        request = evaluation.Request.from_query(
            candidates.query_dict(params), microversion)
    except ValueError as exc:
        LOG.debug('The local evaluation cannot read the request: %s', exc)
        return None, {root: None for root in trees.records}
    return request, {root: evaluation.evaluate(request,
                                               trees.evaluated(root))
                     for root in trees.records}


def reasons(verdict, candidate):
    """The reasons shown: the local ones where Placement agrees.

    candidate None (Placement's verdict not known): :data:`UNKNOWN`.
    """
    if candidate is None:
        return [UNKNOWN]
    if verdict is not None and candidate == (not verdict.reasons):
        return list(verdict.reasons)
    LOG.debug('The local evaluation disagrees with Placement (candidate: '
              '%s): %s', candidate,
              verdict.reasons if verdict else 'no evaluation')
    return [] if candidate else [UNEXPLAINED]


def relaxed(runner, http, trees, constraints, params_of):
    """([(label, trees with candidates)], refusal), the request as given first.

    constraints: [(label, drop)], the first (its label, None);
    params_of(drop): the query without that constraint (a CommandError
    where there is then none). Then the request without each constraint
    in turn. One candidates request each, in one batch. Where an answer
    that is not empty lacks a tree that the local evaluation takes for a
    candidate (the answer may have been cut), the trees are read and that
    tree is asked about again within it, as the rows of explain are
    settled. A count is None where it is not known: the request was
    refused or failed, or so did a request within a tree. ``refusal``:
    Placement's error where it refused the request as given (the question
    asked has no answer: the caller's error, not a warning), else None.
    """
    label_of = {drop: label for label, drop in constraints}
    refusals = []

    def ask_without(drop):
        # Without it the request may not be one Placement takes (a
        # group left without resources, say): then no count.
        try:
            params = params_of(drop)
        except exceptions.CommandError as exc:
            return refused(drop, exc)
        try:
            return params, ask(http, trees, params)
        except exceptions.BadRequest as exc:
            return refused(drop, exc)

    def refused(drop, exc):
        if drop is None:
            refusals.append(exc)
        else:
            runner.log.warning('Without %s the request is refused: %s',
                               label_of[drop], exc)

    answered = [(item, result) for item, result in runner.each(
        http, lambda item: ask_without(item[1]), constraints,
        batch_names.RELAXED_REQUESTS, key=lambda item: item[0]) if result]
    considered = set(p['uuid'] for p in trees.roots)
    if any(considered - answer.roots and not answer.empty
           for _item, (_params, answer) in answered):
        # Some answer may have been cut, or may draw on a sharing
        # provider: the evaluation says which trees to ask about again.
        trees.read()
        trees.read_sharing([answer for _item, (_params, answer)
                            in answered])
        runner.require_complete(batch_names.TOTALS,
                                batch_names.RELAXED_REQUESTS,
                                batch_names.PROVIDERS)
        asked = [(params, answer, local_verdicts(
            params, http.api_version, trees)[1])
            for _item, (params, answer) in answered]
    else:
        asked = [(params, answer, {root: None for root in considered})
                 for _item, (params, answer) in answered]
    settled = settle(runner, http, trees, asked)
    counted = {}
    for (item, _result), found in zip(answered, settled):
        known = [found[root] for root in considered]
        counted[item] = None if None in known else sum(known)
    return ([(label, counted.get((label, drop)))
             for label, drop in constraints],
            refusals[0] if refusals else None)
