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

"""The local evaluation against a real Placement, on random small clouds.

Each example builds a cloud (1 to 3 provider trees, up to 3 levels deep,
with inventories, allocations, traits and aggregates) on the in-process
Placement, reads it back the way the future command will (per tree:
``GET /resource_providers?in_tree=``, then each provider's inventories,
usages, traits and aggregates), and asks a few random requests. For every
tree, ``evaluation.evaluate()`` must find no reason exactly when
``GET /allocation_candidates`` returns an allocation request within that
tree. ``evaluation.fit()`` of a shape of one group must be what Placement
then places in the tree, allocating its candidates one by one until none
is left (exactly, or at most where it says the count is a bound). The
cloud is deleted before the next example.

Left out of the generated space, with the server code that makes it
unanswerable per tree:

- sharing providers (trait ``MISC_SHARES_VIA_AGGREGATE``): their resources
  join another tree's candidates (``research_context.
  anchors_for_sharing_providers``), so a candidate is not "within" a tree.
- unknown trait names: ``trait.ids_from_names`` raises TraitNotFound, a 400
  for the whole request; every trait used is created first.
"""

import logging
import urllib.parse

import fixtures
import hypothesis
from hypothesis import strategies as st
from oslo_utils import uuidutils
from oslotest import base
import requests

from osc_placement.model import amounts
from osc_placement.model import evaluation

try:
    from placement.tests.functional.fixtures import placement as pfixture
except ImportError:
    pfixture = None

TRAITS = ('CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C')
AGGREGATES = ('11111111-1111-4111-8111-111111111111',
              '22222222-2222-4222-8222-222222222222',
              '33333333-3333-4333-8333-333333333333')
CLASSES = ('VCPU', 'MEMORY_MB', 'DISK_GB')
RATIOS = (1.0, 1.0, 1.5, 2.0, 0.5, 0.7)
SETUP_VERSION = '1.39'
BEFORE_NESTED = ('1.10', '1.12', '1.17', '1.21', '1.22', '1.24', '1.25',
                 '1.28')
NESTED = ('1.29', '1.31', '1.32', '1.33', '1.35', '1.36', '1.38', '1.39')
REQUESTS_PER_CLOUD = 4

# No shrinking: each step rebuilds a cloud on the server, and a failure
# prints the example it found (cloud, allocations, microversion, query).
SETTINGS = hypothesis.settings(
    max_examples=25, deadline=None, derandomize=True,
    phases=[hypothesis.Phase.explicit, hypothesis.Phase.reuse,
            hypothesis.Phase.generate],
    suppress_health_check=[hypothesis.HealthCheck.too_slow,
                           hypothesis.HealthCheck.data_too_large])


def at_least(version, floor):
    """'1.29' >= '1.3', as microversions compare."""
    def parts(text):
        return tuple(int(x) for x in text.split('.'))
    return parts(version) >= parts(floor)


@st.composite
def inventories(draw):
    """{class: inventory} of one provider, mostly roomy, sometimes tight."""
    out = {}
    for rc in CLASSES:
        if not draw(st.integers(0, 2)):
            continue
        total = draw(st.integers(1, 12))
        min_unit = draw(st.sampled_from((1, 1, 1, 1, 2)))
        out[rc] = {
            'total': total,
            'reserved': draw(st.sampled_from(
                (0, 0, 0, 1, total // 2, total))) if total > 1 else 0,
            'allocation_ratio': draw(st.sampled_from(RATIOS)),
            'min_unit': min_unit,
            'max_unit': max(min_unit, draw(st.sampled_from(
                (total, total, 2, 3)))),
            'step_size': draw(st.sampled_from((1, 1, 1, 1, 2))),
        }
    return out


@st.composite
def provider(draw, parent):
    return {
        'parent': parent,
        'inventories': draw(inventories()),
        'traits': draw(st.lists(st.sampled_from(TRAITS), unique=True)),
        'aggregates': draw(st.lists(st.sampled_from(AGGREGATES),
                                    unique=True, max_size=2)),
    }


@st.composite
def clouds(draw):
    """Providers as dicts with 'parent' the index of an earlier one."""
    nodes = []
    for _ in range(draw(st.integers(1, 3))):
        root = len(nodes)
        nodes.append(draw(provider(None)))
        depth = {root: 0}
        for _ in range(draw(st.integers(0, 3))):
            parent = draw(st.sampled_from(
                [i for i in depth if depth[i] < 2]))
            depth[len(nodes)] = depth[parent] + 1
            nodes.append(draw(provider(parent)))
    return nodes


@st.composite
def usages(draw, nodes):
    """[{provider index: {class: amount}}], one dict per consumer."""
    used = {}
    consumers = []
    for _ in range(draw(st.integers(0, 2))):
        allocation = {}
        for index, node in enumerate(nodes):
            for rc, inv in sorted(node['inventories'].items()):
                room = (amounts.capacity(inv)
                        - used.get((index, rc), 0))
                allowed = [a for a in range(inv['min_unit'],
                                            inv['max_unit'] + 1)
                           if a % inv['step_size'] == 0 and a <= room]
                if allowed and draw(st.booleans()):
                    amount = draw(st.sampled_from(allowed))
                    allocation.setdefault(index, {})[rc] = amount
                    used[index, rc] = used.get((index, rc), 0) + amount
        if allocation:
            consumers.append(allocation)
    return consumers


@st.composite
def traits_params(draw, version):
    """The values of one group's ``required`` parameter(s)."""
    if not at_least(version, '1.17') or not draw(st.booleans()):
        return []
    required = draw(st.lists(st.sampled_from(TRAITS), unique=True,
                             max_size=2))
    forbidden = []
    if at_least(version, '1.22'):
        forbidden = draw(st.lists(
            st.sampled_from([t for t in TRAITS if t not in required]),
            unique=True, max_size=1))
    values = []
    plain = required + ['!' + t for t in forbidden]
    if plain:
        values.append(','.join(plain))
    if at_least(version, '1.39') and draw(st.booleans()):
        any_of = draw(st.lists(
            st.sampled_from([t for t in TRAITS if t not in forbidden]),
            unique=True, min_size=2, max_size=2))
        values.append('in:' + ','.join(any_of))
    return values


@st.composite
def member_of_params(draw, version):
    if not at_least(version, '1.21') or not draw(st.booleans()):
        return []
    count = draw(st.integers(1, 2 if at_least(version, '1.24') else 1))
    values = []
    for _ in range(count):
        aggs = draw(st.lists(st.sampled_from(AGGREGATES), unique=True,
                             min_size=1, max_size=2))
        value = aggs[0] if len(aggs) == 1 else 'in:' + ','.join(aggs)
        if at_least(version, '1.32') and draw(st.booleans()):
            value = '!' + value
        values.append(value)
    return values


@st.composite
def group_params(draw, version, suffix, uuids, resources=True,
                 sparse=False):
    """One group's parameters; ``sparse``: traits and aggregates rarely."""
    params = {}
    if resources:
        amounts = draw(st.dictionaries(st.sampled_from(CLASSES),
                                       st.sampled_from((1, 1, 2, 3)),
                                       min_size=1,
                                       max_size=2))
        params['resources' + suffix] = ','.join(
            '%s:%d' % item for item in sorted(amounts.items()))
    rarely = sparse and draw(st.integers(0, 3))
    required = [] if rarely else draw(traits_params(version))
    if required:
        params['required' + suffix] = required
    member_of = [] if rarely else draw(member_of_params(version))
    if member_of:
        params['member_of' + suffix] = member_of
    if at_least(version, '1.31') and draw(st.integers(0, 3)) == 0:
        params['in_tree' + suffix] = draw(st.sampled_from(uuids))
    if not params:
        # A group without resources exists through another parameter
        # (lib.RequestGroup._check_actual_suffix refuses a same_subtree
        # naming a group of no parameter at all).
        kind = draw(st.sampled_from(('required', 'forbidden', 'in_tree')))
        if kind == 'in_tree':
            params['in_tree' + suffix] = draw(st.sampled_from(uuids))
        else:
            params['required' + suffix] = (
                '!' if kind == 'forbidden' else '') + draw(
                    st.sampled_from(TRAITS))
    return params


@st.composite
def queries(draw, version, uuids, groups=False):
    """The query parameters of one GET /allocation_candidates.

    ``groups``: two numbered or named groups, few traits and aggregates,
    so that the rules between groups (group_policy, same_subtree, the
    capacity they share) decide.
    """
    params = {}
    names = []
    if at_least(version, '1.25'):
        pool = (['1', '2', '_NIC', '_CPU'] if at_least(version, '1.33')
                else ['1', '2'])
        names = draw(st.lists(st.sampled_from(pool), unique=True,
                              min_size=2 if groups else 0, max_size=2))
    subtree = []
    if at_least(version, '1.36') and len(names) == 2 and draw(
            st.booleans()):
        subtree = names
    resourceless = set()
    if subtree:
        resourceless = set(draw(st.lists(st.sampled_from(subtree),
                                         unique=True, max_size=1)))
    unnamed = not names or draw(st.booleans())
    if unnamed:
        params.update(draw(group_params(version, '', uuids,
                                        sparse=groups)))
    for name in names:
        params.update(draw(group_params(
            version, name, uuids, resources=name not in resourceless,
            sparse=groups)))
    if names:
        params['group_policy'] = draw(st.sampled_from(['none', 'isolate']))
    if subtree:
        params['same_subtree'] = ','.join(subtree)
    if at_least(version, '1.35') and draw(st.booleans()):
        required = draw(st.lists(st.sampled_from(TRAITS), unique=True,
                                 max_size=1))
        forbidden = draw(st.lists(
            st.sampled_from([t for t in TRAITS if t not in required]),
            unique=True, max_size=1))
        if required or forbidden:
            params['root_required'] = ','.join(
                required + ['!' + t for t in forbidden])
    return params


@st.composite
def shapes(draw, version, uuids):
    """The query of a shape of one group: unnamed, numbered or named."""
    suffix = ''
    if at_least(version, '1.25') and draw(st.booleans()):
        suffix = draw(st.sampled_from(
            ['1', '_CPU'] if at_least(version, '1.33') else ['1']))
    params = draw(group_params(version, suffix, uuids))
    if at_least(version, '1.35') and draw(st.integers(0, 3)) == 0:
        params['root_required'] = draw(st.sampled_from(TRAITS))
    return params


class TestEvaluationAgainstPlacement(base.BaseTestCase):
    """evaluate() agrees with GET /allocation_candidates, tree by tree."""

    def setUp(self):
        super().setUp()
        if pfixture is None:
            self.fail('openstack-placement is not installed: run the '
                      'functional tests with "tox -e functional"')
        # Quiet: the server logs every request at INFO.
        self.useFixture(fixtures.FakeLogger(level=logging.WARNING))
        placement = self.useFixture(pfixture.PlacementFixture())
        self.endpoint = placement.endpoint
        # No global cap on the candidates generated, so that a tree missing
        # from the answer is a tree without candidates.
        self.assertEqual(
            -1, placement.conf_fixture.conf.placement
            .max_allocation_candidates)
        for trait in TRAITS:
            self.call('PUT', '/traits/' + trait)

    def call(self, method, path, body=None, version=SETUP_VERSION,
             params=None):
        url = self.endpoint + path
        if params:
            url += '?' + urllib.parse.urlencode(params, doseq=True)
        resp = requests.request(
            method, url, json=body,
            headers={'x-auth-token': 'admin',
                     'OpenStack-API-Version': 'placement %s' % version,
                     'Accept': 'application/json'})
        self.assertLess(resp.status_code, 400, '%s %s: %s' % (
            method, url, resp.text))
        return resp.json() if resp.content else None

    # The cloud.

    def build(self, nodes, consumers):
        uuids = []
        for index, node in enumerate(nodes):
            uuid = uuidutils.generate_uuid()
            body = {'name': 'rp%d' % index, 'uuid': uuid}
            if node['parent'] is not None:
                body['parent_provider_uuid'] = uuids[node['parent']]
            self.call('POST', '/resource_providers', body)
            uuids.append(uuid)
            if node['inventories']:
                self.call('PUT', '/resource_providers/%s/inventories' % uuid,
                          {'resource_provider_generation': 0,
                           'inventories': node['inventories']})
            generation = 1 if node['inventories'] else 0
            if node['traits']:
                self.call('PUT', '/resource_providers/%s/traits' % uuid,
                          {'resource_provider_generation': generation,
                           'traits': node['traits']})
                generation += 1
            if node['aggregates']:
                self.call('PUT', '/resource_providers/%s/aggregates' % uuid,
                          {'resource_provider_generation': generation,
                           'aggregates': node['aggregates']})
        consumer_uuids = []
        for allocation in consumers:
            consumer = uuidutils.generate_uuid()
            self.call('PUT', '/allocations/' + consumer, {
                'allocations': {uuids[i]: {'resources': amounts}
                                for i, amounts in allocation.items()},
                'project_id': uuidutils.generate_uuid(),
                'user_id': uuidutils.generate_uuid(),
                'consumer_generation': None}, version='1.28')
            consumer_uuids.append(consumer)
        return uuids, consumer_uuids

    def tear_down_cloud(self, nodes, uuids, consumers):
        for consumer in consumers:
            self.call('DELETE', '/allocations/' + consumer)
        # Children before their parents: each index comes after its
        # parent's.
        for uuid in reversed(uuids):
            self.call('DELETE', '/resource_providers/' + uuid)

    def read_tree(self, root):
        """The tree as the command will read it."""
        providers = self.call('GET', '/resource_providers',
                              params={'in_tree': root})['resource_providers']
        tree = []
        for rp in providers:
            base_path = '/resource_providers/%s/' % rp['uuid']
            tree.append(evaluation.provider_record(
                rp, {what: self.call('GET', base_path + what)[what]
                     for what, _kind in evaluation.READS}))
        return tree

    # The comparison.

    def candidate_roots(self, params, version, trees):
        """Roots of the trees the server's candidates are in."""
        body = self.call('GET', '/allocation_candidates', version=version,
                         params=params)
        root_of = {rp['uuid']: root for root, tree in trees.items()
                   for rp in tree}
        roots = set()
        for areq in body['allocation_requests']:
            if isinstance(areq['allocations'], dict):
                used = list(areq['allocations'])
            else:
                used = [a['resource_provider']['uuid']
                        for a in areq['allocations']]
            used += [uuid for uuids in areq.get('mappings', {}).values()
                     for uuid in uuids]
            self.assertEqual(1, len(set(root_of[u] for u in used)), areq)
            roots.add(root_of[used[0]])
        return roots

    def check(self, data, versions, groups=False):
        nodes = data.draw(clouds(), label='cloud')
        consumers = data.draw(usages(nodes), label='allocations')
        uuids, consumer_uuids = self.build(nodes, consumers)
        try:
            roots = [uuids[i] for i, node in enumerate(nodes)
                     if node['parent'] is None]
            trees = {root: self.read_tree(root) for root in roots}
            for _ in range(REQUESTS_PER_CLOUD):
                version = data.draw(st.sampled_from(versions),
                                    label='microversion')
                params = data.draw(queries(version, uuids, groups),
                                   label='query')
                request = evaluation.Request.from_query(params, version)
                found = self.candidate_roots(params, version, trees)
                for root, tree in trees.items():
                    verdict = evaluation.evaluate(request, tree)
                    self.assertEqual(
                        root in found, verdict.reasons == [],
                        'tree %s (%s) at %s with %s: server %s, local %r'
                        % (root, tree, version, params,
                           'has a candidate' if root in found else
                           'has none', verdict.reasons))
        finally:
            self.tear_down_cloud(nodes, uuids, consumer_uuids)

    @hypothesis.settings(SETTINGS)
    @hypothesis.given(st.data())
    def test_before_nested(self, data):
        """1.10 to 1.28: one provider per tree serves the request."""
        self.check(data, BEFORE_NESTED)

    @hypothesis.settings(SETTINGS)
    @hypothesis.given(st.data())
    def test_nested(self, data):
        """1.29 to 1.39: groups spread over the tree."""
        self.check(data, NESTED)

    @hypothesis.settings(SETTINGS)
    @hypothesis.given(st.data())
    def test_between_groups(self, data):
        """1.25 to 1.39, two groups: policy, subtree, shared capacity."""
        self.check(data, BEFORE_NESTED[-2:] + NESTED, groups=True)

    # fit() against filling the cloud.

    def fill(self, params, version, root, tree):
        """Allocations placed in the tree until Placement has none left.

        Each is the first allocation request within the tree that
        ``GET /allocation_candidates`` gives. Returns the consumers.
        """
        inside = set(rp['uuid'] for rp in tree)
        consumers = []
        while True:
            body = self.call('GET', '/allocation_candidates',
                             version=version, params=params)
            for areq in body['allocation_requests']:
                held = {}
                if isinstance(areq['allocations'], dict):
                    for uuid, alloc in areq['allocations'].items():
                        held[uuid] = dict(alloc['resources'])
                else:
                    for alloc in areq['allocations']:
                        held.setdefault(alloc['resource_provider']['uuid'],
                                        {}).update(alloc['resources'])
                if set(held) <= inside:
                    break
            else:
                return consumers
            consumer = uuidutils.generate_uuid()
            consumers.append(consumer)
            self.call('PUT', '/allocations/' + consumer, {
                'allocations': {uuid: {'resources': resources}
                                for uuid, resources in held.items()},
                'project_id': uuidutils.generate_uuid(),
                'user_id': uuidutils.generate_uuid(),
                'consumer_generation': None}, version='1.28')

    def check_fit(self, data, versions):
        nodes = data.draw(clouds(), label='cloud')
        consumers = data.draw(usages(nodes), label='allocations')
        uuids, consumer_uuids = self.build(nodes, consumers)
        try:
            version = data.draw(st.sampled_from(versions),
                                label='microversion')
            params = data.draw(shapes(version, uuids), label='query')
            request = evaluation.Request.from_query(params, version)
            for i, node in enumerate(nodes):
                if node['parent'] is not None:
                    continue
                tree = self.read_tree(uuids[i])
                found = evaluation.fit(request, tree)
                placed = self.fill(params, version, uuids[i], tree)
                consumer_uuids.extend(placed)
                message = ('tree %s (%s) at %s with %s: %r, Placement '
                           'placed %d' % (uuids[i], tree, version, params,
                                          found, len(placed)))
                # Placement's first candidates, one at a time, never
                # beat the bound; where no trait must be held together
                # (one provider, or classes apart) they reach it.
                self.assertLessEqual(len(placed), found.at_most, message)
                if found.exact and not any(
                        g.required for g in request.groups.values()):
                    self.assertEqual(found.fits, len(placed), message)
        finally:
            self.tear_down_cloud(nodes, uuids, consumer_uuids)

    @hypothesis.settings(SETTINGS, max_examples=15)
    @hypothesis.given(st.data())
    def test_fit_before_nested(self, data):
        """fit() is what Placement then places, one provider each."""
        self.check_fit(data, BEFORE_NESTED)

    @hypothesis.settings(SETTINGS, max_examples=15)
    @hypothesis.given(st.data())
    def test_fit_nested(self, data):
        """fit() is what Placement then places, or a bound it says."""
        self.check_fit(data, NESTED)

    def test_resourceless_group_ignores_in_tree(self):
        """A group without resources is not held to its in_tree.

        research_context.get_provider_ids_matching finds such a group's
        providers with get_providers_with_root, which has no tree filter
        (RequestGroupSearchContext applies in_tree to
        get_providers_with_resource only). Rare in the random space, so
        shown once here, on both sides.
        """
        vcpu = {'VCPU': {'total': 4, 'reserved': 0, 'allocation_ratio': 1.0,
                         'min_unit': 1, 'max_unit': 4, 'step_size': 1}}
        nodes = [
            {'parent': None, 'inventories': {}, 'traits': ['CUSTOM_A'],
             'aggregates': []},
            {'parent': 0, 'inventories': vcpu, 'traits': [],
             'aggregates': []},
            {'parent': None, 'inventories': vcpu, 'traits': [],
             'aggregates': []},
        ]
        uuids, consumers = self.build(nodes, [])
        self.addCleanup(self.tear_down_cloud, nodes, uuids, consumers)
        params = {'resources_CPU': 'VCPU:1', 'required_NIC': 'CUSTOM_A',
                  'in_tree_NIC': uuids[2], 'same_subtree': '_CPU,_NIC',
                  'group_policy': 'none'}
        trees = {uuids[0]: self.read_tree(uuids[0]),
                 uuids[2]: self.read_tree(uuids[2])}
        self.assertEqual({uuids[0]}, self.candidate_roots(
            params, '1.36', trees))
        request = evaluation.Request.from_query(params, '1.36')
        self.assertEqual([], evaluation.evaluate(
            request, trees[uuids[0]]).reasons)
        self.assertEqual(
            ['group _NIC: lacks required trait CUSTOM_A'],
            evaluation.evaluate(request, trees[uuids[2]]).reasons)

    def test_same_subtree_siblings(self):
        """same_subtree: siblings are not, a parent and child are.

        allocation_candidate._check_same_subtree: one of the groups'
        providers must be an ancestor (or itself) of all of them. Rare in
        the random space, so shown here on both sides.
        """
        vcpu = {'VCPU': {'total': 4, 'reserved': 0, 'allocation_ratio': 1.0,
                         'min_unit': 1, 'max_unit': 4, 'step_size': 1}}

        def node(parent, inventories=None, traits=()):
            return {'parent': parent, 'inventories': inventories or {},
                    'traits': list(traits), 'aggregates': []}

        nodes = [node(None), node(0, vcpu), node(0, traits=['CUSTOM_B']),
                 node(None, traits=['CUSTOM_B']), node(3, vcpu)]
        uuids, consumers = self.build(nodes, [])
        self.addCleanup(self.tear_down_cloud, nodes, uuids, consumers)
        params = {'resources_CPU': 'VCPU:1', 'required_NIC': 'CUSTOM_B',
                  'same_subtree': '_CPU,_NIC', 'group_policy': 'none'}
        trees = {uuids[0]: self.read_tree(uuids[0]),
                 uuids[3]: self.read_tree(uuids[3])}
        self.assertEqual({uuids[3]}, self.candidate_roots(
            params, '1.36', trees))
        request = evaluation.Request.from_query(params, '1.36')
        self.assertEqual(
            ['groups _CPU, _NIC not under one provider (same_subtree)'],
            evaluation.evaluate(request, trees[uuids[0]]).reasons)
        self.assertEqual([], evaluation.evaluate(
            request, trees[uuids[3]]).reasons)

    def test_resourceless_group_needs_a_positive_filter(self):
        """A group without resources and only '!' filters matches nothing.

        research_context.get_provider_ids_matching keeps, for a group
        without resources, the providers in "filtered_rps", which only a
        required trait or member_of fills. Shown here on both sides.
        """
        vcpu = {'VCPU': {'total': 4, 'reserved': 0, 'allocation_ratio': 1.0,
                         'min_unit': 1, 'max_unit': 4, 'step_size': 1}}
        nodes = [{'parent': None, 'inventories': vcpu, 'traits': [],
                  'aggregates': []}]
        uuids, consumers = self.build(nodes, [])
        self.addCleanup(self.tear_down_cloud, nodes, uuids, consumers)
        trees = {uuids[0]: self.read_tree(uuids[0])}
        params = {'resources_CPU': 'VCPU:1', 'required_NIC': '!CUSTOM_A',
                  'same_subtree': '_CPU,_NIC', 'group_policy': 'none'}
        self.assertEqual(set(), self.candidate_roots(params, '1.36', trees))
        request = evaluation.Request.from_query(params, '1.36')
        self.assertEqual(
            ['group _NIC: a group without resources matches providers '
             'only by a required trait or aggregate'],
            evaluation.evaluate(request, trees[uuids[0]]).reasons)

    def test_unnamed_traits_on_the_serving_providers(self):
        """The unnamed group's traits count where its resources come from.

        allocation_candidate._check_traits_for_alloc_request unites the
        traits of the providers in the allocation request only: a trait on
        a root that serves nothing does not count. Shown on both sides.
        """
        def inventory(total):
            return {'total': total, 'reserved': 0, 'allocation_ratio': 1.0,
                    'min_unit': 1, 'max_unit': total, 'step_size': 1}

        nodes = [{'parent': None, 'inventories': {'MEMORY_MB': inventory(8)},
                  'traits': ['CUSTOM_A'], 'aggregates': []},
                 {'parent': 0, 'inventories': {'VCPU': inventory(4)},
                  'traits': [], 'aggregates': []}]
        uuids, consumers = self.build(nodes, [])
        self.addCleanup(self.tear_down_cloud, nodes, uuids, consumers)
        trees = {uuids[0]: self.read_tree(uuids[0])}
        for resources, reasons in (
                ('VCPU:1', ['lacks required trait CUSTOM_A']),
                ('VCPU:1,MEMORY_MB:1', [])):
            params = {'resources': resources, 'required': 'CUSTOM_A'}
            self.assertEqual(
                set() if reasons else {uuids[0]},
                self.candidate_roots(params, '1.29', trees))
            request = evaluation.Request.from_query(params, '1.29')
            self.assertEqual(reasons, evaluation.evaluate(
                request, trees[uuids[0]]).reasons)

    def test_root_required_on_the_root(self):
        """root_required is about the root, not the provider serving.

        research_context._get_roots_with_traits: providers without a
        parent. Shown on both sides.
        """
        vcpu = {'VCPU': {'total': 4, 'reserved': 0, 'allocation_ratio': 1.0,
                         'min_unit': 1, 'max_unit': 4, 'step_size': 1}}
        nodes = [{'parent': None, 'inventories': {}, 'traits': [],
                  'aggregates': []},
                 {'parent': 0, 'inventories': vcpu, 'traits': ['CUSTOM_A'],
                  'aggregates': []},
                 {'parent': None, 'inventories': vcpu,
                  'traits': ['CUSTOM_A'], 'aggregates': []}]
        uuids, consumers = self.build(nodes, [])
        self.addCleanup(self.tear_down_cloud, nodes, uuids, consumers)
        trees = {root: self.read_tree(root) for root in (uuids[0], uuids[2])}
        params = {'resources': 'VCPU:1', 'root_required': 'CUSTOM_A'}
        self.assertEqual({uuids[2]}, self.candidate_roots(
            params, '1.35', trees))
        request = evaluation.Request.from_query(params, '1.35')
        self.assertEqual(['root lacks required trait CUSTOM_A'],
                         evaluation.evaluate(request,
                                             trees[uuids[0]]).reasons)
        self.assertEqual([], evaluation.evaluate(request,
                                                 trees[uuids[2]]).reasons)
