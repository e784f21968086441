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

"""The tables of Nova's extra specs (``model/flavors/specs.py``).

Each value a spec takes requires a trait (or none), each named as traits
are; the TPM versions are the keys of ``hw:tpm_version``; a standard
resource class is no custom one. (``osc_placement/tests/nova`` holds the
names against os-traits and os-resource-classes.)
"""

import re

from oslotest import base

from osc_placement.model.flavors import specs

_TRAIT = re.compile(r'^[A-Z][A-Z0-9_]*$')


class TestTables(base.BaseTestCase):

    def test_every_trait_is_named_as_traits_are(self):
        traits = [trait for table in (specs.SPECS, specs.ROOT_SPECS)
                  for values in table.values()
                  for trait in values.values() if trait is not None]
        traits += [trait for trait in specs.BOOLEAN_SPECS.values()
                   if trait is not None]
        traits += [specs.DISABLED, specs.OWNER_NOVA, specs.HYPERTHREADING,
                   specs.STATELESS_FIRMWARE, specs.ACCELERATORS]
        self.assertEqual([], [t for t in traits if not _TRAIT.match(t)])
        self.assertEqual(len(traits), len(set(traits)))

    def test_tpm_versions(self):
        self.assertEqual(
            {'1.2': 'COMPUTE_SECURITY_TPM_1_2',
             '2.0': 'COMPUTE_SECURITY_TPM_2_0'},
            specs.SPECS['hw:tpm_version'])
        self.assertEqual(('1.2', '2.0'), (specs.TPM_1_2, specs.TPM_2_0))

    def test_standard_classes_are_not_custom(self):
        self.assertEqual([], [rc for rc in specs.STANDARD_CLASSES
                              if rc.startswith(specs.CUSTOM_PREFIX)])
        self.assertIn('PCPU', specs.STANDARD_CLASSES)

    def test_a_spec_is_in_one_table(self):
        names = [list(table) for table in (
            specs.SPECS, specs.ROOT_SPECS, specs.BOOLEAN_SPECS,
            specs.UNTRANSLATED)]
        flat = [name for table in names for name in table]
        self.assertEqual(len(flat), len(set(flat)))
