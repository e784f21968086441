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

"""``allocation candidate explain`` (``resources/explain.py``).

Its rows and their formats; what it shares with ``capacity fit`` (the
verdict of each tree) is tested in ``api/test_verdicts.py``.
"""

import json

from osc_placement.tests.unit import base
from osc_placement.tests.unit import clouds

URL = base.ENDPOINT
RP1, RP2 = base.RP1, base.RP2
AGG1 = base.AGG1


class TestReasonsAsText(clouds.TwoTrees):
    """explain --long: a list in json and yaml, text elsewhere."""

    def setUp(self):
        super().setUp()
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [], 'provider_summaries': {}})

    def explain(self, *argv):
        out, err, code = self.openstack(
            'allocation', 'candidate', 'explain', '--resource', 'VCPU=9',
            '--required', 'CUSTOM_GOLD', '--long', '-c', 'reasons', *argv)
        self.assertEqual((0, ''), (code, err))
        return out

    def test_value_and_csv_print_the_text(self):
        reasons = [row['reasons'] for row in json.loads(
            self.explain('-f', 'json'))]
        self.assertLess(1, len(reasons[0]))
        self.assertEqual(
            ''.join('%s\n' % '; '.join(found) for found in reasons),
            self.explain('-f', 'value'))
        self.assertEqual(
            '"reasons"\n' + ''.join('"%s"\n' % '; '.join(found)
                                    for found in reasons),
            self.explain('-f', 'csv'))


class TestCandidatesFlavor(clouds.FlavorTestCase):
    """allocation candidate explain --flavor."""

    def test_explain_with_required(self):
        out, err, code = self.openstack(
            'allocation', 'candidate', 'explain', '--flavor', 'f-large',
            '--required', 'COMPUTE_ACCELERATORS', '-f', 'value')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(['%s big True ' % RP1, '%s small True ' % RP2],
                         out.splitlines())
        self.assertEqual(
            ['/allocation_candidates?resources=DISK_GB:80,MEMORY_MB:8192,'
             'VCPU:4&required=COMPUTE_ACCELERATORS&root_required='
             '!COMPUTE_STATUS_DISABLED'], self.candidates_sent())

    def test_explain_default_zone_considers_its_hosts_trees(self):
        out, err, code = self.openstack(
            'allocation', 'candidate', 'explain', '--flavor', 'f-large',
            '--availability-zone', 'nova', '-f', 'value')
        self.assertEqual(0, code)
        self.assertEqual(['%s small True ' % RP2], out.splitlines())
        self.assertIn("Availability zone 'nova' is Nova's default one", err)
        self.assertEqual(
            ['/allocation_candidates?resources=DISK_GB:80,MEMORY_MB:8192,'
             'VCPU:4&root_required=!COMPUTE_STATUS_DISABLED'],
            self.candidates_sent())

    def test_explain_summary_drops_each_constraint(self):
        out, err, code = self.openstack(
            'allocation', 'candidate', 'explain', '--flavor', 'f-large',
            '--availability-zone', 'az1', '--summary', '-f', 'value')
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            ['(none: the request as given) 1',
             'resources=DISK_GB:80 1',
             'resources=MEMORY_MB:8192 1',
             'resources=VCPU:4 1',
             'member_of=in:%s 2' % AGG1,
             'root_required=!COMPUTE_STATUS_DISABLED 1'], out.splitlines())
        self.assertEqual(6, len(self.candidates_sent()))


class TestNamedGroupNegotiated(clouds.TwoTrees):
    """Not a command of the reference: a named group asks for 1.33."""

    def test_named_group_at_the_default_version(self):
        self.requests_mock.get(URL + '/', json=base.VERSIONS)
        self.requests_mock.get(URL + '/allocation_candidates', json={
            'allocation_requests': [], 'provider_summaries': {}})
        out, err, code = self.openstack(
            'allocation', 'candidate', 'explain', '--group', '_A',
            '--resource', 'VCPU=1', '-f', 'value', version=base.NEGOTIATE)
        self.assertEqual(('', 0), (err, code))
        self.assertEqual(
            [('/allocation_candidates?group_policy=none&'
              'resources_A=VCPU%3A1', 'placement 1.33')],
            [(r.url[len(URL):], r.headers['OpenStack-API-Version'])
             for r in self.requests_mock.request_history
             if '/allocation_candidates' in r.url])
