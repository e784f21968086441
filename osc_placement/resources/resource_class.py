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

"""Resource class commands.

Placement serves resource classes from microversion 1.2; ``PUT`` of a single
class (create if missing, succeed if present) came with 1.7.
"""

from osc_lib import utils

from osc_placement.api import paths
from osc_placement.cli import batch
from osc_placement.cli import common
from osc_placement import microversions
from osc_placement.model import batch_names

COLLECTION = 'resource_classes'
FIELDS = ('name',)


# The positional of the commands about one class.
NAME = ('name', '<name>', 'Name of the resource class')


def class_url(name):
    """Path of one resource class, the name percent-encoded."""
    return paths.url(COLLECTION, name)


class ListResourceClass(common.Lister):
    """List all resource classes, standard and custom"""

    min_version = microversions.RESOURCE_CLASSES

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        classes = http.request('GET', paths.url(COLLECTION)).field(
            'resource_classes', list)
        return FIELDS, (utils.get_dict_properties(c, FIELDS)
                        for c in classes)


class CreateResourceClass(common.NamedCommand, common.Command):
    """Create a custom resource class

    The name must start with ``CUSTOM_`` and use only the characters A to Z,
    0 to 9 and the underscore. Creating a class that already exists is an
    error; see ``resource class set`` for the idempotent variant.
    """

    min_version = microversions.RESOURCE_CLASSES
    positional = NAME
    writes_name = True

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        http.request('POST', paths.url(COLLECTION),
                     json={'name': parsed_args.name})


class SetResourceClass(common.NamedCommand, common.Command):
    """Make sure a custom resource class exists

    Creates the class when it is missing and succeeds without change when it
    is already there, so it can be run any number of times.
    """

    min_version = microversions.PUT_RESOURCE_CLASS
    positional = NAME
    writes_name = True

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        http.request('PUT', class_url(parsed_args.name))


class ShowResourceClass(common.NamedCommand, common.ShowOne):
    """Show one resource class"""

    min_version = microversions.RESOURCE_CLASSES
    positional = NAME

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        resource = http.request(
            'GET', class_url(parsed_args.name)).json_object()
        return FIELDS, utils.get_dict_properties(resource, FIELDS)


class DeleteResourceClass(common.NamedCommand, common.Command):
    """Delete custom resource classes

    Standard classes cannot be deleted, nor a class still used by an
    inventory. Several names can be given: each is tried in turn and the
    failures are reported at the end.
    """

    min_version = microversions.RESOURCE_CLASSES
    positional = NAME
    more_help = 'More resource classes can follow.'

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        return batch.delete_each(
            self, http, self.named(parsed_args),
            lambda name: http.request('DELETE', class_url(name)),
            batch_names.RESOURCE_CLASSES)
