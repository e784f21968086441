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

"""The ``--flavor`` options: ``cli/flavor_requests.py``.

Here the PCI options (``--pci-alias``, ``--nova-config``,
``--owner-nova``): what they read and refuse, before any request. The
commands that take them are tested with them in
``tests/unit/resources`` and ``tests/functional``.
"""

import argparse
import json
import os

import fixtures
from osc_lib import exceptions
from oslotest import base

from osc_placement.cli import flavor_requests

GPU = json.dumps({'name': 'gpu', 'vendor_id': '10de', 'product_id': '2330'})


def parsed(**options):
    values = dict(flavor=['m1'], all_flavors=False, boot_from_volume=False,
                  availability_zone=None, include_disabled=False,
                  pci_alias=[], nova_config=None, owner_nova=False)
    values.update(options)
    return argparse.Namespace(**values)


class TestPciAliases(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.folder = self.useFixture(fixtures.TempDir()).path

    def conf(self, content):
        path = os.path.join(self.folder, 'nova.conf')
        with open(path, 'w') as f:
            f.write(content)
        return path

    def test_none(self):
        self.assertIsNone(flavor_requests.pci_aliases(parsed()))

    def test_pci_alias_assumes_pci_in_placement(self):
        found = flavor_requests.pci_aliases(parsed(pci_alias=[GPU]))
        self.assertEqual(['gpu'], list(found.by_name))
        self.assertTrue(found.in_placement)

    def test_nova_config_every_alias_and_pci_in_placement(self):
        path = self.conf(
            '[DEFAULT]\n'
            'pci_alias = {"name": "old", "resource_class": "CUSTOM_OLD"}\n'
            '[pci]\n'
            'alias = {"name": "gpu", "vendor_id": "10de",\n'
            '   "product_id": "2330"}\n'
            'alias = \'{"name": "nic", "resource_class": "CUSTOM_NIC"}\'\n'
            '[filter_scheduler]\n'
            'pci_in_placement = True\n')
        found = flavor_requests.pci_aliases(parsed(nova_config=path))
        self.assertEqual(['old', 'gpu', 'nic'], list(found.by_name))
        self.assertTrue(found.in_placement)

    def test_nova_config_without_pci_in_placement(self):
        path = self.conf('[pci]\nalias = %s\n' % GPU)
        found = flavor_requests.pci_aliases(parsed(nova_config=path))
        self.assertFalse(found.in_placement)

    def assertOneLine(self, expected, options):
        exc = self.assertRaises(exceptions.CommandError,
                                flavor_requests.check, parsed(**options))
        self.assertEqual(expected, str(exc))

    def test_check_refuses_an_alias_nova_refuses(self):
        self.assertOneLine(
            "--pci-alias: PCI alias 'gpu': several entries of one name, "
            "which Nova refuses with [filter_scheduler] pci_in_placement "
            "(one entry per name)",
            {'pci_alias': [json.dumps(dict(json.loads(GPU),
                                           device_type='type-PF',
                                           product_id=product))
                           for product in ('2330', '2331')]})

    def test_check_names_the_file(self):
        path = self.conf('[pci]\nalias = {"name": "x"}\n'
                         '[filter_scheduler]\npci_in_placement = yes\n')
        self.assertOneLine(
            "--nova-config %s: PCI alias 'x': neither a resource_class nor "
            "a vendor_id and a product_id, which Nova refuses with "
            "[filter_scheduler] pci_in_placement" % path,
            {'nova_config': path})

    def test_a_file_that_cannot_be_read(self):
        path = os.path.join(self.folder, 'missing.conf')
        self.assertOneLine(
            '--nova-config %s: Failed to find some config files: %s'
            % (path, path), {'nova_config': path})
        self.assertOneLine(
            '--nova-config %s: [Errno 21] Is a directory: %r'
            % (self.folder, self.folder), {'nova_config': self.folder})

    def test_a_file_nova_cannot_parse(self):
        path = self.conf('alias = x\n')
        exc = self.assertRaises(exceptions.CommandError,
                                flavor_requests.check,
                                parsed(nova_config=path))
        self.assertTrue(str(exc).startswith('--nova-config %s: Failed to '
                                            'parse' % path))
        path = self.conf('[filter_scheduler]\npci_in_placement = maybe\n')
        exc = self.assertRaises(exceptions.CommandError,
                                flavor_requests.check,
                                parsed(nova_config=path))
        self.assertIn("Unexpected boolean value 'maybe'", str(exc))

    def test_one_or_the_other(self):
        self.assertOneLine(
            '--pci-alias and --nova-config: give one or the other.',
            {'pci_alias': [GPU], 'nova_config': '/etc/nova/nova.conf'})

    def test_a_command_without_all_flavors_does_not_suggest_it(self):
        options = vars(parsed(availability_zone='az1', flavor=[]))
        del options['all_flavors']
        exc = self.assertRaises(exceptions.CommandError,
                                flavor_requests.check,
                                argparse.Namespace(**options))
        self.assertEqual('--availability-zone needs --flavor.', str(exc))

    def test_the_options_need_a_flavor(self):
        for option, value in (('pci_alias', [GPU]),
                              ('nova_config', 'nova.conf'),
                              ('owner_nova', True)):
            self.assertOneLine(
                '--%s needs --flavor or --all-flavors.'
                % option.replace('_', '-'), {option: value, 'flavor': []})
