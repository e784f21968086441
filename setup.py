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

import configparser
import os

import setuptools

# pbr takes the version from a git tag, or makes a pre-release of the
# setup.cfg version (5.0.0.devN sorts below 5.0.0) when there is none. This
# repository has no release tags: build the setup.cfg version as it is,
# unless a packager sets PBR_VERSION.
_config = configparser.ConfigParser()
_config.read(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          'setup.cfg'))
os.environ.setdefault('PBR_VERSION', _config['metadata']['version'])

setuptools.setup(setup_requires=['pbr>=2.0.0'], pbr=True)
