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

"""Sphinx configuration of the osc-placement release notes (reno)."""

extensions = [
    'openstackdocstheme',
    'reno.sphinxext',
]

project = 'osc-placement Release Notes'
copyright = 'osc-placement developers'
master_doc = 'index'
source_suffix = {'.rst': 'restructuredtext'}
pygments_style = 'native'
language = 'en'

html_theme = 'openstackdocs'
openstackdocs_repo_name = 'openstack/osc-placement'
openstackdocs_bug_project = 'osc-placement'
openstackdocs_bug_tag = ''
openstackdocs_auto_name = False
openstackdocs_use_storyboard = False
html_last_updated_fmt = '%Y-%m-%d'
