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

"""``resource provider capacity fit`` (``resources/capacity_fit.py``).

Bad shapes are refused before any request; the trees chosen, the rows
kept and the shape label of the metrics, against the two trees of
``clouds.TwoTrees``; and ``--flavor``: the flavors read from Nova, the
requests sent, against ``clouds.FlavorTestCase``. What fit shares with
``explain`` (the verdict of each tree) is tested in
``api/test_verdicts.py``.
"""

import json
import os
import signal
import sys
from urllib import parse as urlparse

import testscenarios

from osc_placement.tests.unit import base
from osc_placement.tests.unit import clouds

load_tests = testscenarios.load_tests_apply_scenarios

URL = base.ENDPOINT
RP1, RP2 = base.RP1, base.RP2
AGG1 = base.AGG1


class TestBadShape(base.TestCase):
    """capacity fit refuses a bad shape in one line, sending nothing."""

    api_version = '1.39'
    scenarios = [
        ('zero', {'argv': ['--resource', 'VCPU=0'],
                  'error': "--resource 'VCPU=0': amount: '0' must be an "
                           "integer of at least 1."}),
        ('negative', {'argv': ['--resource', 'VCPU=-1']}),
        ('not-a-number', {'argv': ['--resource', 'VCPU=x']}),
        ('twice', {'argv': ['--resource', 'VCPU=1', '--resource', 'VCPU=2'],
                   'error': "--resource 'VCPU=2': VCPU is given twice; "
                            "give each resource class once."}),
        ('none', {'argv': [],
                  'error': 'At least one --resource must be specified.'}),
        ('no-class', {'argv': ['--resource', '=4']}),
    ]
    error = None

    def test_bad_shape(self):
        out, err, code = self.openstack('resource', 'provider', 'capacity',
                                        'fit', *self.argv)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(1, len(err.splitlines()), err)
        if self.error:
            self.assertEqual(self.error + '\n', err)
        self.assertEqual([], self.sent())


class TestOpenMetricsShape(clouds.TwoTrees):
    """The shape label: the whole request, one canonical text.

    The same request typed in another order or spelling gives the same
    series; traits, aggregates and the tree are part of it.
    """

    scenarios = [
        ('plain', {'argv': [['--resource', 'VCPU=1', '--resource',
                             'MEMORY_MB=64'],
                            ['--resource', 'MEMORY_MB=064', '--resource',
                             'VCPU=01']],
                   'label': 'MEMORY_MB=64,VCPU=1'}),
        ('traits', {'argv': [['--resource', 'VCPU=1', '--required',
                              'CUSTOM_B', '--required', 'CUSTOM_A',
                              '--forbidden', 'CUSTOM_Z,CUSTOM_Y'],
                             ['--resource', 'VCPU=1', '--forbidden',
                              'CUSTOM_Y', '--required', 'CUSTOM_A',
                              '--forbidden', 'CUSTOM_Z', '--required',
                              'CUSTOM_B']],
                    'label': 'VCPU=1;required=CUSTOM_A,CUSTOM_B;'
                             'forbidden=CUSTOM_Y,CUSTOM_Z'}),
        ('any-of', {'argv': [['--resource', 'VCPU=1', '--required',
                              'CUSTOM_B,CUSTOM_A'],
                             ['--required', 'CUSTOM_A,CUSTOM_B',
                              '--resource', 'VCPU=1']],
                    'label': 'VCPU=1;required=in:CUSTOM_A,CUSTOM_B'}),
        ('aggregates', {'argv': [['--resource', 'VCPU=1', '--member-of',
                                  base.AGG2 + ',' + base.AGG1],
                                 ['--member-of', base.AGG1 + ',' + base.AGG2,
                                  '--resource', 'VCPU=1']],
                        'label': 'VCPU=1;member_of=in:%s,%s'
                                 % (base.AGG1, base.AGG2)}),
        ('root-required', {'argv': [['--resource', 'VCPU=1',
                                     '--root-required', 'CUSTOM_B,!CUSTOM_Z',
                                     '--root-required', 'CUSTOM_A'],
                                    ['--root-required', 'CUSTOM_A,CUSTOM_B',
                                     '--resource', 'VCPU=1',
                                     '--root-required', '!CUSTOM_Z']],
                           'label': 'VCPU=1;root_required=!CUSTOM_Z,CUSTOM_A,'
                                    'CUSTOM_B'}),
        ('groups', {'argv': [['--group', '_A', '--resource', 'VCPU=1',
                              '--group', '_B', '--resource', 'VCPU=2',
                              '--same-subtree', '_B,_A'],
                             ['--group', '_B', '--resource', 'VCPU=2',
                              '--group', '_A', '--resource', 'VCPU=1',
                              '--same-subtree', '_A,_B',
                              '--group-policy', 'none']],
                    'label': 'resources_A=VCPU=1;resources_B=VCPU=2;'
                             'same_subtree=_A,_B;group_policy=none'}),
    ]

    def setUp(self):
        super().setUp()
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [], 'provider_summaries': {}})
        # Every provider is in both aggregates.
        providers = {'resource_providers': [base.provider(RP1, 'one'),
                                            base.provider(RP2, 'two')]}
        for argv in self.argv:
            if '--member-of' in argv:
                self.requests_mock.get(
                    URL + '/resource_providers?member_of=in:%s' % argv[
                        argv.index('--member-of') + 1],
                    complete_qs=True, json=providers)

    def test_one_label(self):
        found = []
        for argv in self.argv:
            out, err, code = self.openstack(
                'resource', 'provider', 'capacity', 'fit', *argv, '-f',
                'openmetrics')
            self.assertEqual((0, ''), (code, err))
            found.append(out)
        self.assertEqual(found[0], found[1])
        self.assertIn('openstack_placement_cloud_fit{shape="%s"} 0\n'
                      % self.label, found[0])


class TestFitSelection(clouds.TwoTrees):
    """--in-tree and --member-of choose the trees that get a row.

    The trees of the providers that the provider list returns with the
    same filters, as capacity list selects providers; the others are not
    read. --required shapes only: every tree keeps its row.
    """

    scenarios = [
        ('in-tree', {'argv': ['--in-tree', RP2],
                     'query': 'in_tree=' + RP2}),
        ('member-of', {'argv': ['--member-of', base.AGG1],
                       'query': 'member_of=in%3A' + base.AGG1}),
    ]

    def setUp(self):
        super().setUp()
        self.requests_mock.get(
            URL + '/resource_providers?' + self.query, complete_qs=True,
            json={'resource_providers': [base.provider(RP2, 'two')]})
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [{'allocations': {
                RP2: {'resources': {'VCPU': 1}}}}],
            'provider_summaries': {}})
        self.requests_mock.get(URL + '/resource_providers/%s/aggregates'
                               % RP2, json={'aggregates': [base.AGG1]})

    def test_rows(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'capacity', 'fit', '--resource',
            'VCPU=1', *self.argv, '-f', 'value')
        self.assertEqual(('%s two 8 8 VCPU\n' % RP2, '', 0), (out, err, code))
        self.assertIn(('GET', '/resource_providers?' + self.query),
                      self.sent())
        self.assertFalse([path for _method, path in self.sent()
                          if path.startswith('/resource_providers/' + RP1)])

    def test_summary_and_metrics(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'capacity', 'fit', '--resource',
            'VCPU=1', *self.argv, '--summary', '-f', 'value')
        self.assertEqual(('8 8 1 VCPU\n', '', 0), (out, err, code))
        out, err, code = self.openstack(
            'resource', 'provider', 'capacity', 'fit', '--resource',
            'VCPU=1', *self.argv, '-f', 'openmetrics')
        self.assertEqual(1, out.count('openstack_placement_fit{'), out)


class TestFitShapeKeepsRows(clouds.TwoTrees):
    """--required and --forbidden shape the request: every row stays.

    A tree without the trait keeps its row, with fits 0 and the reason.
    """

    def setUp(self):
        super().setUp()
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [], 'provider_summaries': {}})

    def test_rows(self):
        out, err, code = self.openstack(
            'resource', 'provider', 'capacity', 'fit', '--resource',
            'VCPU=1', '--required', 'CUSTOM_GOLD', '-f', 'json')
        self.assertEqual((0, ''), (code, err))
        self.assertEqual(
            [('one', 0), ('two', 0)],
            [(row['name'], row['fits']) for row in json.loads(out)])
        self.assertEqual(2, len([row for row in json.loads(out)
                                 if 'CUSTOM_GOLD' in row['limited_by']]))


class TestFitFlavor(clouds.FlavorTestCase):

    def test_one_flavor(self):
        out, err, code = self.fit('--flavor', 'f-large', '-f', 'json')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            [{'resource_provider': RP1, 'name': 'big', 'fits': 4,
              'at_most': 4, 'limited_by': 'VCPU'},
             {'resource_provider': RP2, 'name': 'small', 'fits': 1,
              'at_most': 1, 'limited_by': 'VCPU'}], json.loads(out))
        self.assertEqual(
            ['/allocation_candidates?resources=DISK_GB:80,MEMORY_MB:8192,'
             'VCPU:4&root_required=!COMPUTE_STATUS_DISABLED'],
            self.candidates_sent())

    def test_several_flavors_one_read_of_the_trees(self):
        out, err, code = self.fit('--flavor', 'f-large', '--flavor',
                                  'f-small', '-f', 'value')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            ['m1.large %s big 4 4 VCPU' % RP1,
             'm1.large %s small 1 1 VCPU' % RP2,
             'm1.small %s big 16 16 VCPU' % RP1,
             'm1.small %s small 4 4 VCPU' % RP2], out.splitlines())
        gets = [r.url for r in self.placement_sent()]
        self.assertEqual(1, gets.count(URL + '/resource_providers'))
        self.assertEqual(
            1, gets.count(URL + '/resource_providers/%s/inventories' % RP1))
        self.assertEqual(2, len(self.candidates_sent()))

    def test_summary_per_flavor(self):
        out, err, code = self.fit('--all-flavors', '--summary', '-f',
                                  'value')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(['m1.large 5 5 2 VCPU', 'm1.small 20 20 2 VCPU'],
                         out.splitlines())

    def test_include_disabled_and_boot_from_volume(self):
        out, err, code = self.fit('--flavor', 'f-large', '--include-disabled',
                                  '--boot-from-volume', '-f', 'value')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            ['/allocation_candidates?resources=MEMORY_MB:8192,VCPU:4'],
            self.candidates_sent())

    def test_availability_zone(self):
        out, err, code = self.fit('--flavor', 'f-large',
                                  '--availability-zone', 'az1', '-f',
                                  'value')
        self.assertEqual(('', 0), (err, code))
        # The zone selects the trees, as --member-of does.
        self.assertEqual(['%s big 4 4 VCPU' % RP1], out.splitlines())
        self.assertEqual(
            ['/allocation_candidates?resources=DISK_GB:80,MEMORY_MB:8192,'
             'VCPU:4&member_of=in:%s&root_required=!COMPUTE_STATUS_'
             'DISABLED' % AGG1], self.candidates_sent())

    def test_zone_whose_aggregates_hold_no_provider_is_said(self):
        self.requests_mock.get(
            URL + '/resource_providers?member_of=in:' + AGG1,
            complete_qs=True, json={'resource_providers': []})
        for summary in ((), ('--summary',)):
            out, err, code = self.fit('--flavor', 'f-large',
                                      '--availability-zone', 'az1',
                                      *summary)
            self.assertEqual(0, code)
            self.assertEqual(
                ["Availability zone 'az1': its host aggregates (%s) hold no "
                 "resource provider in Placement, so no tree is in the zone "
                 "(nova-manage placement sync_aggregates mirrors them)."
                 % AGG1], err.splitlines())

    def fit_default_zone(self):
        """stderr of a fit in zone nova, whose one row is small's."""
        out, err, code = self.fit('--flavor', 'f-large',
                                  '--availability-zone', 'nova', '-f',
                                  'value')
        self.assertEqual(0, code)
        self.assertEqual(['%s small 1 1 VCPU' % RP2], out.splitlines())
        return err

    def test_default_zone_counts_its_hosts_trees(self):
        # Only the tree of host compute-1's compute node, the provider
        # small (host gone has no compute node); the request names no
        # aggregate, as Nova's.
        err = self.fit_default_zone()
        self.assertEqual(
            ['/allocation_candidates?resources=DISK_GB:80,MEMORY_MB:8192,'
             'VCPU:4&root_required=!COMPUTE_STATUS_DISABLED'],
            self.candidates_sent())
        self.assertEqual(
            ["Availability zone 'nova' is Nova's default one (its hosts are "
             "in no aggregate with a zone): the request names no aggregate, "
             "and only the trees of its 2 nova-compute hosts count "
             "(compute-1, gone), by the UUIDs of their compute nodes in GET "
             "/os-hypervisors/detail (1 found).",
             "No hypervisor of the compute API is on host(s) gone of "
             "availability zone 'nova': no tree of theirs counts."],
            err.splitlines())
        self.assertEqual(
            [('/os-hypervisors/detail', 'compute 2.53')],
            [(r.path[len('/v2.1'):], r.headers.get('OpenStack-API-Version'))
             for r in self.requests_mock.request_history
             if 'hypervisors' in r.url])

    def test_default_zone_node_without_provider(self):
        # Host gone has a compute node now, whose UUID no provider has:
        # one line names it; the trees are those of the others.
        self.requests_mock.get(
            clouds.NOVA + '/os-hypervisors/detail', json={'hypervisors': (
                clouds.HYPERVISORS['hypervisors'] + [clouds.hypervisor(
                    clouds.RP4, 'gone.example.org', 'gone')])})
        err = self.fit_default_zone()
        self.assertEqual(
            ["No root provider in Placement has the UUID of compute node(s) "
             "gone.example.org (%s, host gone): no tree of theirs counts."
             % clouds.RP4], err.splitlines()[1:])

    def test_internal_zone_no_placement_request(self):
        out, err, code = self.fit('--flavor', 'f-large',
                                  '--availability-zone', 'internal')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(["Availability zone 'internal' has no host "
                          "aggregate and no enabled nova-compute host in the "
                          "compute API."], err.splitlines())
        self.assertEqual([], self.placement_sent())

    def test_unknown_zone_no_placement_request(self):
        out, err, code = self.fit('--flavor', 'f-large',
                                  '--availability-zone', 'nowhere')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(["No host aggregate of the compute API is in "
                          "availability zone 'nowhere'."], err.splitlines())
        self.assertEqual([], self.placement_sent())

    def test_refused_with_resource(self):
        out, err, code = self.fit('--flavor', 'f-large', '--resource',
                                  'VCPU=1')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(['--flavor and --all-flavors replace --resource: '
                          'give one or the other.'], err.splitlines())
        self.assertEqual([], self.requests_mock.request_history)

    def test_zone_needs_a_flavor(self):
        out, err, code = self.fit('--resource', 'VCPU=1',
                                  '--availability-zone', 'az1')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(['--availability-zone needs --flavor or '
                          '--all-flavors.'], err.splitlines())
        self.assertEqual([], self.requests_mock.request_history)

    def test_root_required_adds_to_the_flavor(self):
        out, err, code = self.fit('--flavor', 'f-large', '--root-required',
                                  'COMPUTE_ACCELERATORS', '-f', 'value')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            ['/allocation_candidates?resources=DISK_GB:80,MEMORY_MB:8192,'
             'VCPU:4&root_required=COMPUTE_ACCELERATORS,'
             '!COMPUTE_STATUS_DISABLED'], self.candidates_sent())

    def test_microversion_too_low(self):
        out, err, code = self.fit('--flavor', 'f-large', version='1.30')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ['Flavor m1.large: root_required (!COMPUTE_STATUS_DISABLED) '
             'needs --os-placement-api-version 1.35 or later (this session '
             'uses 1.30).'], err.splitlines())
        self.assertEqual([], self.placement_sent())

    def test_untranslated_is_an_upper_bound(self):
        out, err, code = self.fit('--flavor', 'f-accel', '-f', 'value')
        self.assertEqual(0, code)
        self.assertIn('accel:device_profile', err)
        self.assertIn('the answer is incomplete', err)
        self.assertEqual(['%s big 16 16 VCPU (upper bound)' % RP1,
                          '%s small 4 4 VCPU (upper bound)' % RP2],
                         out.splitlines())

    def test_several_groups_counted(self):
        out, err, code = self.fit('--flavor', 'f-two', '-f', 'value',
                                  '-c', 'fits', '-c', 'at_most',
                                  '-c', 'limited_by')
        self.assertEqual(('', 0), (err, code))
        # Two groups of one VCPU each copy: exact where the range meets.
        self.assertEqual(['8 8 VCPU', '2 2 VCPU'], out.splitlines())

    def test_openmetrics(self):
        out, err, code = self.fit('--flavor', 'f-large', '--flavor',
                                  'f-small', '-f', 'openmetrics')
        self.assertEqual(('', 0), (err, code))
        samples = [line for line in out.splitlines()
                   if not line.startswith('#')]
        # Each flavor's series carry its own request; os-capacity's names
        # keep os-capacity's labels.
        large = ('flavor="m1.large",shape="DISK_GB=80,MEMORY_MB=8192,VCPU=4;'
                 'root_required=!COMPUTE_STATUS_DISABLED"')
        small = ('flavor="m1.small",shape="DISK_GB=20,MEMORY_MB=2048,VCPU=1;'
                 'root_required=!COMPUTE_STATUS_DISABLED"')
        self.assertEqual([
            'openstack_placement_fit{hostname="big",%s} 4' % large,
            'openstack_placement_fit{hostname="small",%s} 1' % large,
            'openstack_placement_fit{hostname="big",%s} 16' % small,
            'openstack_placement_fit{hostname="small",%s} 4' % small,
            'openstack_placement_fit_at_most{hostname="big",%s} 4' % large,
            'openstack_placement_fit_at_most{hostname="small",%s} 1'
            % large,
            'openstack_placement_fit_at_most{hostname="big",%s} 16' % small,
            'openstack_placement_fit_at_most{hostname="small",%s} 4'
            % small,
            'openstack_placement_cloud_fit{%s} 5' % large,
            'openstack_placement_cloud_fit{%s} 20' % small,
            'openstack_placement_cloud_fit_at_most{%s} 5' % large,
            'openstack_placement_cloud_fit_at_most{%s} 20' % small,
            'openstack_placement_cloud_fit_trees{%s} 2' % large,
            'openstack_placement_cloud_fit_trees{%s} 2' % small,
            'openstack_free_capacity_by_flavor_total'
            '{flavor_name="m1.large"} 5',
            'openstack_free_capacity_by_flavor_total'
            '{flavor_name="m1.small"} 20',
            'openstack_free_capacity_hypervisor_by_flavor'
            '{hypervisor="big",flavor_name="m1.large"} 4',
            'openstack_free_capacity_hypervisor_by_flavor'
            '{hypervisor="small",flavor_name="m1.large"} 1',
            'openstack_free_capacity_hypervisor_by_flavor'
            '{hypervisor="big",flavor_name="m1.small"} 16',
            'openstack_free_capacity_hypervisor_by_flavor'
            '{hypervisor="small",flavor_name="m1.small"} 4'], samples)
        self.assertEqual('# EOF', out.splitlines()[-1])

    def test_openmetrics_summary_shape_of_groups(self):
        # The shape of a flavor of request groups names each group.
        out, err, code = self.fit('--flavor', 'f-two', '--flavor',
                                  'f-small', '--summary', '-f',
                                  'openmetrics')
        self.assertEqual(('', 0), (err, code))
        self.assertIn(
            'openstack_placement_cloud_fit_trees{flavor="two",shape='
            '"DISK_GB=20,MEMORY_MB=2048;resources1=VCPU=1;resources2=VCPU=1;'
            'root_required=!COMPUTE_STATUS_DISABLED;group_policy=none"} 2\n',
            out)
        self.assertIn('openstack_free_capacity_by_flavor_total'
                      '{flavor_name="m1.small"} 20\n', out)

    def test_several_groups_summary_counts_the_copies(self):
        out, err, code = self.fit('--flavor', 'f-two', '--summary', '-f',
                                  'value')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(['10 10 2 VCPU'], out.splitlines())

    def test_debug_prints_the_request(self):
        out, err, code = self.openstack('--debug', *(clouds.FIT + (
            '--flavor', 'f-large', '-f', 'value')))
        self.assertEqual(0, code)
        self.assertIn('Flavor m1.large: GET /allocation_candidates?'
                      'resources=DISK_GB:80,MEMORY_MB:8192,VCPU:4&'
                      'root_required=!COMPUTE_STATUS_DISABLED', err)


class TestFitRowsWrittenAsCounted(clouds.FlavorTestCase):
    """-f csv and -f value write each flavor's rows before the next's count.

    Each flavor's answer lacks the small tree, which the evaluation takes
    for a candidate: it is asked about again within that tree while that
    flavor is counted. By then the rows of the flavors before it are out
    (and the header of -f csv before the first); with -f json (written
    whole) none are.
    """

    scenarios = [
        ('csv', {'format': 'csv', 'first_rows': (1, 3)}),
        ('value', {'format': 'value', 'first_rows': (0, 2)}),
        ('json', {'format': 'json', 'first_rows': (0, 0)}),
    ]

    def test_rows_out_before_the_next_flavor_is_counted(self):
        written = []

        def cut(request, context):
            if 'in_tree' in request.url:
                written.append(sys.stdout.getvalue())
                rps = (RP2,)
            else:
                rps = (RP1,)
            return {'allocation_requests': [
                {'allocations': {rp: {'resources': {'VCPU': 1}}}}
                for rp in rps], 'provider_summaries': {}}
        self.requests_mock.get(URL + '/allocation_candidates', json=cut)
        out, err, code = self.fit('--all-flavors', '-f', self.format)
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            [out.splitlines()[:lines] for lines in self.first_rows],
            [text.splitlines() for text in written])


class TestFitFlavorRefused(clouds.FlavorTestCase):
    """Several flavors: one that fails keeps its row; the others go on."""

    REFUSED = ('refused by Placement: The "group_policy" parameter is '
               'required when specifying more than one "resources{N}" '
               'parameter. (HTTP 400)')
    NOT_ASKED = ("not asked for: extra spec hw:cpu_policy=sometimes: not "
                 "one of dedicated, shared, mixed; Nova refuses it.")

    def all_flavors(self, *flavors):
        self.requests_mock.get(clouds.NOVA + '/flavors/detail?is_public=None',
                               json={'flavors': list(flavors)})

    def failed_summary(self, *flavors):
        """--all-flavors --summary of these flavors: exit 1; its lines."""
        self.all_flavors(*flavors)
        out, err, code = self.fit('--all-flavors', '--summary', '-f',
                                  'value')
        self.assertEqual(1, code)
        return out.splitlines(), err.splitlines()

    def test_refused_request_keeps_a_row(self):
        self.all_flavors(clouds.LARGE, clouds.NO_POLICY, clouds.SMALL)
        out, err, code = self.fit('--all-flavors', '-f', 'value')
        self.assertEqual(1, code)
        self.assertEqual(
            ['m1.large %s big 4 4 VCPU' % RP1,
             'm1.large %s small 1 1 VCPU' % RP2,
             'm1.nopolicy     ' + self.REFUSED,
             'm1.small %s big 16 16 VCPU' % RP1,
             'm1.small %s small 4 4 VCPU' % RP2], out.splitlines())
        self.assertEqual(
            ['Flavor m1.nopolicy has 2 request groups and no group_policy: '
             'Placement refuses the request, as it refuses Nova\'s.',
             'Failed to ask Placement for flavor m1.nopolicy: The '
             '"group_policy" '
             'parameter is required when specifying more than one '
             '"resources{N}" parameter. (HTTP 400)',
             'Failed to ask Placement for 1 of 3 flavors.'], err.splitlines())
        self.assertEqual(3, len(self.candidates_sent()))

    def test_a_flavor_nova_refuses_is_one_line_and_not_counted(self):
        self.all_flavors(clouds.LARGE, clouds.SOMETIMES, clouds.SMALL)
        for argv in (('--summary', '-f', 'value'), ('-f', 'openmetrics')):
            out, err, code = self.fit('--all-flavors', *argv)
            self.assertEqual(0, code, err)
            self.assertEqual(
                ['Flavor m1.sometimes is not counted: extra spec '
                 'hw:cpu_policy=sometimes: not one of dedicated, shared, '
                 'mixed; Nova refuses it.'], err.splitlines())
            self.assertNotIn('m1.sometimes', out)
        self.assertEqual(['m1.large 5 5 2 VCPU', 'm1.small 20 20 2 VCPU'],
                         self.fit('--all-flavors', '--summary', '-f',
                                  'value')[0].splitlines())

    def test_a_blank_flavor_is_one_line_and_no_request(self):
        out, err, code = self.fit('--flavor', ' ')
        self.assertEqual(("No flavor with a name or ID of ' ': give one.\n",
                          1), (err, code))
        self.assertEqual([], [r for r in self.requests_mock.request_history
                              if r.url.startswith(clouds.NOVA + '/flavors')])

    def test_a_named_flavor_nova_refuses_is_an_error(self):
        out, err, code = self.fit('--flavor', 'f-sometimes')
        self.assertEqual(1, code)
        self.assertEqual(
            ['Flavor m1.sometimes: extra spec hw:cpu_policy=sometimes: not '
             'one of dedicated, shared, mixed; Nova refuses it.'],
            err.splitlines())

    def test_each_failure_in_flavor_order(self):
        out, err = self.failed_summary(clouds.LARGE, clouds.NO_POLICY,
                                       clouds.SOMETIMES)
        self.assertEqual(['m1.large 5 5 2 VCPU',
                          'm1.nopolicy    ' + self.REFUSED], out)
        self.assertEqual(['Failed to ask Placement for flavor m1.nopolicy',
                          'Failed to ask Placement for 1 of 2 flavors.'],
                         [line.split(':')[0] for line in err
                          if line.startswith('Failed')])

    def test_a_provider_not_read_stops_the_rows(self):
        # Not a flavor that failed: every row is made of every provider.
        self.all_flavors(clouds.LARGE, clouds.NO_POLICY)
        self.requests_mock.get(URL + '/resource_providers/%s/usages' % RP2,
                               **base.error_reply(500, 'Boom.'))
        out, err, code = self.fit('--all-flavors', '-f', 'value')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ['Failed to ask Placement for flavor m1.nopolicy',
             'Failed to read resource provider %s' % RP2,
             'Failed to ask Placement for 1 of 2 flavors and to read 1 of 2 '
             'resource providers; no rows printed.'],
            [line.split(':')[0] if ': ' in line else line
             for line in err.splitlines() if line.startswith('Failed')])

    def test_interrupted_among_the_flavors_prints_no_rows(self):
        # The trees are read after the candidates requests: after the
        # signal they are not, and no row is made of them.
        self.all_flavors(clouds.LARGE, clouds.SMALL)

        def candidates(request, context):
            os.kill(os.getpid(), signal.SIGINT)
            return {'allocation_requests': [], 'provider_summaries': {}}
        self.requests_mock.get(URL + '/allocation_candidates',
                               json=candidates)
        out, err, code = self.fit('--os-placement-parallel', '1',
                                  '--all-flavors', '-f', 'value')
        self.assertEqual(('', 130), (out, code))
        self.assertEqual(
            ['Interrupted: 1 of 2 flavors read; the other 1 was not read; '
             'no rows printed.'], err.splitlines())
        self.assertEqual([], [r for r in self.placement_sent()
                              if '/usages' in r.url])

    def test_one_flavor_below_its_microversion(self):
        # 1.30 takes the numbered groups of the others, not a named one.
        self.all_flavors(clouds.LARGE, clouds.NAMED)
        out, err, code = self.fit('--all-flavors', '--include-disabled',
                                  '--summary', '-f', 'json', version='1.30')
        self.assertEqual(1, code)
        self.assertEqual(
            [{'flavor': 'm1.large', 'fits': 5, 'at_most': 5, 'trees': 2,
              'limited_by': 'VCPU'},
             {'flavor': 'm1.named', 'fits': None, 'at_most': None,
              'trees': None,
              'limited_by': 'not asked for: request group _A needs '
                            '--os-placement-api-version 1.33 or later (this '
                            'session uses 1.30).'}], json.loads(out))
        self.assertEqual(
            ['Failed to ask Placement for flavor m1.named: request group _A '
             'needs '
             '--os-placement-api-version 1.33 or later (this session uses '
             '1.30).', 'Failed to ask Placement for 1 of 2 flavors.'],
            err.splitlines())
        self.assertEqual(1, len(self.candidates_sent()))

    def test_openmetrics_no_samples_for_a_refused_flavor(self):
        self.all_flavors(clouds.LARGE, clouds.NO_POLICY)
        out, err, code = self.fit('--all-flavors', '-f', 'openmetrics')
        self.assertEqual(1, code)
        self.assertIn('Failed to ask Placement for 1 of 2 flavors.', err)
        samples = [line for line in out.splitlines()
                   if not line.startswith('#')]
        self.assertEqual([], [line for line in samples
                              if 'nopolicy' in line])
        # m1.large's: two trees, its total and trees, os-capacity's three.
        self.assertEqual(10, len(samples))
        self.assertEqual('# EOF', out.splitlines()[-1])

    def test_one_flavor_refused_is_one_line(self):
        out, err, code = self.fit('--flavor', 'f-nopolicy')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            'The "group_policy" parameter is required when specifying more '
            'than one "resources{N}" parameter. (HTTP 400)',
            err.splitlines()[-1])
        self.assertEqual(2, len(err.splitlines()))

    def test_one_flavor_untranslated_no_placement_request(self):
        out, err, code = self.fit('--flavor', 'f-sometimes')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            ['Flavor m1.sometimes: extra spec hw:cpu_policy=sometimes: not '
             'one of dedicated, shared, mixed; Nova refuses it.'],
            err.splitlines())
        self.assertEqual([], self.placement_sent())


# Request groups: one host, two identical NUMA nodes, a GPU under each.

HOST = 'eeeeeeee-eeee-4eee-8eee-000000000001'
NUMA = ('eeeeeeee-eeee-4eee-8eee-000000000002',
        'eeeeeeee-eeee-4eee-8eee-000000000003')
GPU = ('eeeeeeee-eeee-4eee-8eee-000000000004',
       'eeeeeeee-eeee-4eee-8eee-000000000005')
NESTED = [dict(base.provider(uuid, name, parent=parent),
               root_provider_uuid=HOST)
          for uuid, name, parent in ((HOST, 'host', None),
                                     (NUMA[0], 'numa0', HOST),
                                     (NUMA[1], 'numa1', HOST),
                                     (GPU[0], 'gpu0', NUMA[0]),
                                     (GPU[1], 'gpu1', NUMA[1]))]
NESTED_INVENTORY = {HOST: {'MEMORY_MB': clouds.inventory(8192)},
                    NUMA[0]: {'VCPU': clouds.inventory(4)},
                    NUMA[1]: {'VCPU': clouds.inventory(4)},
                    GPU[0]: {'VGPU': clouds.inventory(2)},
                    GPU[1]: {'VGPU': clouds.inventory(2)}}
NESTED_TRAITS = {NUMA[0]: ['HW_NUMA_ROOT'], NUMA[1]: ['HW_NUMA_ROOT']}
# Two groups, each on its own provider, within one NUMA node.
GROUPS = ('--resource', 'MEMORY_MB=1024', '--group', '_CPU', '--resource',
          'VCPU=2', '--group', '_GPU', '--resource', 'VGPU=1',
          '--group-policy', 'isolate', '--same-subtree', '_CPU,_GPU')
GROUPS_QUERY = ('/allocation_candidates?group_policy=isolate&'
                'resources=MEMORY_MB:1024&resources_CPU=VCPU:2&'
                'resources_GPU=VGPU:1&same_subtree=_CPU,_GPU')


class NestedTree(base.TestCase):
    """One tree of five providers; Placement has a candidate in it."""

    api_version = '1.39'

    def setUp(self):
        super().setUp()
        self.requests_mock.get(URL + '/', json=base.VERSIONS)
        self.requests_mock.get(URL + '/resource_providers', complete_qs=True,
                               json={'resource_providers': NESTED})
        for provider in NESTED:
            path = URL + '/resource_providers/' + provider['uuid']
            self.requests_mock.get(path + '/inventories', json={
                'inventories': NESTED_INVENTORY[provider['uuid']]})
            self.requests_mock.get(path + '/usages', json={'usages': {}})
            self.requests_mock.get(path + '/traits', json={
                'traits': NESTED_TRAITS.get(provider['uuid'], [])})
            self.requests_mock.get(path + '/aggregates',
                                   json={'aggregates': []})
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [{'allocations': {
                HOST: {'resources': {'MEMORY_MB': 1024}},
                NUMA[0]: {'resources': {'VCPU': 2}},
                GPU[0]: {'resources': {'VGPU': 1}}}}],
            'provider_summaries': {}})

    def fit(self, *argv, version=None):
        return self.openstack(*clouds.FIT, *argv, version=version)

    def candidates_sent(self):
        """(path and query, OpenStack-API-Version) of each candidates ask."""
        return [(urlparse.unquote(r.url[len(URL):]),
                 r.headers.get('OpenStack-API-Version'))
                for r in self.requests_mock.request_history
                if '/allocation_candidates' in r.url]


class TestFitGroups(NestedTree):
    """capacity fit takes the request groups of allocation candidate list."""

    def test_two_groups_isolate_same_subtree(self):
        out, err, code = self.fit(*GROUPS, '-f', 'json')
        self.assertEqual(('', 0), (err, code))
        # Two per NUMA node (4 VCPU, 2 VGPU each): 4, exact.
        self.assertEqual([{'resource_provider': HOST, 'name': 'host',
                           'fits': 4, 'at_most': 4, 'limited_by': 'VCPU'}],
                         json.loads(out))
        # The query of allocation candidate list, in its order.
        self.assertEqual([(GROUPS_QUERY, 'placement 1.39')],
                         self.candidates_sent())

    def test_the_same_query_as_allocation_candidate_list(self):
        self.fit(*GROUPS, '-f', 'value')
        fit = self.candidates_sent()
        out, err, code = self.openstack(
            'allocation', 'candidate', 'list', *GROUPS)
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(fit * 2, self.candidates_sent())

    def test_the_default_version_is_negotiated_up(self):
        # No --os-placement-api-version: as a flavor's request, the
        # options ask for the version they need (same_subtree: 1.36).
        out, err, code = self.fit(*GROUPS, '-f', 'value',
                                  version=base.NEGOTIATE)
        self.assertEqual(('', 0), (err, code))
        self.assertEqual('%s host 4 4 VCPU\n' % HOST, out)
        self.assertEqual([(GROUPS_QUERY, 'placement 1.36')],
                         self.candidates_sent())

    def test_a_named_group_alone_negotiates_1_33(self):
        out, err, code = self.fit(
            '--group', '_GPU', '--resource', 'VGPU=1', '-f', 'value',
            version=base.NEGOTIATE)
        self.assertEqual(('', 0), (err, code))
        self.assertEqual('%s host 4 4 VGPU\n' % HOST, out)
        self.assertEqual(
            [('/allocation_candidates?group_policy=none&'
              'resources_GPU=VGPU:1', 'placement 1.33')],
            self.candidates_sent())

    def test_a_resourceless_group_in_same_subtree(self):
        # As allocation candidate list: allowed from 1.36 for a group
        # named in --same-subtree.
        out, err, code = self.fit(
            '--group', '_NUMA', '--required', 'HW_NUMA_ROOT',
            '--group', '_GPU', '--resource', 'VGPU=1',
            '--same-subtree', '_NUMA,_GPU', '-f', 'value')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual('%s host 4 4 VGPU\n' % HOST, out)
        self.assertEqual(
            [('/allocation_candidates?group_policy=none&'
              'required_NUMA=HW_NUMA_ROOT&resources_GPU=VGPU:1&'
              'same_subtree=_NUMA,_GPU', 'placement 1.39')],
            self.candidates_sent())

    def test_a_group_filter_does_not_select_trees(self):
        # --member-of of a group shapes that group only: no provider list
        # narrowed by it; the tree keeps its row, with the reason.
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [], 'provider_summaries': {}})
        out, err, code = self.fit(
            '--resource', 'MEMORY_MB=1024', '--group', '_GPU', '--resource',
            'VGPU=1', '--member-of', AGG1, '-f', 'json')
        self.assertEqual(('', 0), (err, code))
        rows = json.loads(out)
        self.assertEqual([(HOST, 0)], [(row['resource_provider'],
                                        row['fits']) for row in rows])
        self.assertIn(AGG1, rows[0]['limited_by'])
        self.assertEqual(
            [('/allocation_candidates?group_policy=none&'
              'resources=MEMORY_MB:1024&resources_GPU=VGPU:1&'
              'member_of_GPU=in:%s' % AGG1, 'placement 1.39')],
            self.candidates_sent())
        self.assertNotIn(('GET', '/resource_providers?member_of=in%3A'
                          + AGG1), self.sent())

    def test_unnamed_member_of_still_selects_trees(self):
        self.requests_mock.get(
            URL + '/resource_providers?member_of=in%3A' + AGG1,
            complete_qs=True, json={'resource_providers': []})
        out, err, code = self.fit(
            '--resource', 'MEMORY_MB=1024', '--member-of', AGG1,
            '--group', '_GPU', '--resource', 'VGPU=1', '-f', 'value')
        self.assertEqual(('', '', 0), (out, err, code))
        self.assertIn(('GET', '/resource_providers?member_of=in%3A' + AGG1),
                      self.sent())

    def test_summary_and_shape_label(self):
        out, err, code = self.fit(*GROUPS, '--summary', '-f',
                                  'openmetrics')
        self.assertEqual(('', 0), (err, code))
        self.assertIn(
            'openstack_placement_cloud_fit{shape="MEMORY_MB=1024;'
            'resources_CPU=VCPU=2;resources_GPU=VGPU=1;'
            'same_subtree=_CPU,_GPU;group_policy=isolate"} 4\n', out)


def _refused(id_, argv, error, version='1.39'):
    return (id_, {'argv': argv, 'error': error, 'version': version})


class TestFitGroupsRefused(NestedTree):
    """What allocation candidate list refuses, fit refuses in its words.

    One line, exit 1, nothing sent; the same line as candidate list's.
    """

    scenarios = [
        _refused('group-below-1.25', ['--resource', 'VCPU=1', '--group', '1',
                                      '--resource', 'VGPU=1'],
                 'Operation or argument is not supported with version '
                 '1.24; requires at least version 1.25', version='1.24'),
        _refused('named-below-1.33', ['--resource', 'VCPU=1', '--group',
                                      '_GPU', '--resource', 'VGPU=1'],
                 "--group '_GPU': before --os-placement-api-version 1.33 "
                 "a group name must be a positive integer (e.g. 1).",
                 version='1.32'),
        _refused('same-subtree-below-1.36', GROUPS,
                 'Operation or argument is not supported with version '
                 '1.35; requires at least version 1.36', version='1.35'),
        _refused('root-required-below-1.35',
                 ['--resource', 'VCPU=1', '--root-required', 'CUSTOM_A'],
                 'Operation or argument is not supported with version '
                 '1.34; requires at least version 1.35', version='1.34'),
        _refused('root-required-empty-name',
                 ['--resource', 'VCPU=1', '--root-required', 'CUSTOM_A,,B'],
                 "--root-required 'CUSTOM_A,,B': empty name in the "
                 "comma-separated list."),
        _refused('group-without-resource',
                 ['--resource', 'VCPU=1', '--group', '_GPU', '--required',
                  'CUSTOM_A'],
                 'Group _GPU has no --resource: every --group needs at '
                 'least one --resource, unless it is named in '
                 '--same-subtree (--os-placement-api-version 1.36 or '
                 'later).'),
        _refused('same-subtree-unknown-group',
                 ['--group', '_CPU', '--resource', 'VCPU=1',
                  '--same-subtree', '_CPU,_X'],
                 "--same-subtree '_CPU,_X': '_X' is not the name of a "
                 "--group of this request."),
        _refused('in-tree-twice-in-a-group',
                 ['--group', '_CPU', '--resource', 'VCPU=1', '--in-tree',
                  'a', '--in-tree', 'b'],
                 '--in-tree given 2 times for group _CPU: one provider tree '
                 'per group.'),
    ]

    def test_as_candidate_list_refuses_it(self):
        out, err, code = self.fit(*self.argv, version=self.version)
        self.assertEqual(('', self.error + '\n', 1), (out, err, code))
        self.assertEqual([], self.sent())
        out, err, code = self.openstack(
            'allocation', 'candidate', 'list', *self.argv,
            version=self.version)
        self.assertEqual(('', self.error + '\n', 1), (out, err, code))


class TestFitGroupsBadShape(NestedTree):
    """fit's own checks of a shape hold in every group."""

    scenarios = [
        ('zero', {'argv': ['--group', '_GPU', '--resource', 'VGPU=0'],
                  'error': "--resource 'VGPU=0': amount: '0' must be an "
                           "integer of at least 1."}),
        ('twice', {'argv': ['--resource', 'VCPU=1', '--group', '_GPU',
                            '--resource', 'VGPU=1', '--resource', 'VGPU=2'],
                   'error': "--resource 'VGPU=2': VGPU is given twice; "
                            "give each resource class once."}),
        ('no-resource', {'argv': ['--group', '_NUMA', '--required',
                                  'HW_NUMA_ROOT', '--same-subtree', '_NUMA'],
                         'error': 'At least one --resource must be '
                                  'specified.'}),
        ('aggregate', {'argv': ['--resource', 'VCPU=1', '--group', '_GPU',
                                '--resource', 'VGPU=1', '--member-of', 'x'],
                       'error': "--member-of: 'x' is not an aggregate UUID."}),
    ]

    def test_refused(self):
        out, err, code = self.fit(*self.argv)
        self.assertEqual(('', self.error + '\n', 1), (out, err, code))
        self.assertEqual([], self.sent())


class TestFitFlavorAndGroups(clouds.FlavorTestCase):
    """--flavor has its own groups and policy.

    The group options are refused with it, in one line, before any
    request.
    """

    scenarios = [
        ('group', {'argv': ['--group', '_GPU', '--resource', 'VGPU=1'],
                   'error': '--flavor and --all-flavors replace --resource '
                            'and --group: give one or the other.'}),
        ('group-policy', {'argv': ['--group-policy', 'isolate'],
                          'error': "--flavor: the flavor's request has its "
                                   "own group policy and groups; "
                                   "--group-policy and --same-subtree do not "
                                   "go with it."}),
        ('same-subtree', {'argv': ['--same-subtree', '_A,_B']}),
    ]
    error = None

    def test_refused(self):
        for flavors in (['--flavor', 'f-large'], ['--all-flavors']):
            out, err, code = self.fit(*flavors, *self.argv)
            self.assertEqual(('', 1), (out, code))
            self.assertEqual(1, len(err.splitlines()), err)
            if self.error:
                self.assertEqual(self.error + '\n', err)
            self.assertEqual([], self.requests_mock.request_history)
