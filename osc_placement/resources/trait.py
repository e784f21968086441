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

"""Trait commands, and the traits of a resource provider.

Placement serves traits from microversion 1.6. A provider's traits are
written as a whole (``PUT /resource_providers/<uuid>/traits``) together with
the provider generation the writer last saw; the server answers 409 when the
provider changed in between.

* ``resource provider trait set`` keeps the reference's behaviour: it reads
  the generation from the provider, replaces every trait and never retries.
* ``resource provider trait add|remove`` change only the named traits: they
  read the traits and the generation, write the union or the difference,
  and read again and retry when another writer got in between.
"""

from osc_lib import exceptions

from osc_placement.api import paths
from osc_placement.cli import batch
from osc_placement.cli import common
from osc_placement.cli import parsers
from osc_placement import microversions
from osc_placement.model import batch_names

FIELDS = ('name',)

# The positional of the commands about one trait.
NAME = ('name', '<name>', 'Name of the trait')

# ``trait add|remove``: attempts in all, the first one included.
MAX_ATTEMPTS = 3
CONCURRENT_UPDATE = 'placement.concurrent_update'


def trait_rows(traits):
    return [[name] for name in traits]


def provider_traits_url(rp_uuid):
    return paths.url('resource_providers', rp_uuid, 'traits')


def is_generation_conflict(exc):
    """True if a failed write lost a race on the provider generation.

    From 1.23 the server says so with the code
    ``placement.concurrent_update``. Before 1.23 its bodies carry no code;
    a 409 to a provider traits PUT can then only mean that the generation
    changed, so a 409 without any code counts as one too.
    """
    if getattr(exc, 'http_status', None) != 409:
        return False
    # Set by the HTTP layer from the error body (http.exception_for).
    code = getattr(exc, 'error_code', None)
    return code is None or code == CONCURRENT_UPDATE


class ListTrait(common.Lister):
    """List traits, standard and custom"""

    min_version = microversions.TRAITS

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--name', metavar='<name>',
            help='Filter on the trait name: ``startswith:<prefix>`` keeps '
                 'the traits whose name begins with the prefix (e.g. '
                 '``startswith:CUSTOM_``); ``in:<name>,<name>...`` keeps '
                 'the traits named in the list (e.g. '
                 '``in:HW_CPU_X86_AVX,HW_CPU_X86_SSE``).')
        parser.add_argument(
            '--associated', action='store_true',
            help='Only the traits that at least one resource provider has.')
        return parser

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        params = {}
        if parsed_args.name:
            params['name'] = parsed_args.name
        if parsed_args.associated:
            # Sent as the reference sends it; the server reads it as a
            # boolean string.
            params['associated'] = 'True'
        traits = http.request('GET', paths.url('traits'),
                              params=params).field('traits', list)
        return FIELDS, trait_rows(traits)


class ShowTrait(common.NamedCommand, common.ShowOne):
    """Check that a trait exists

    Prints the name when the trait exists; fails when it does not.
    """

    min_version = microversions.TRAITS
    positional = NAME

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        # The server answers 204 with no body: the name is all there is.
        http.request('GET', paths.url('traits', parsed_args.name))
        return FIELDS, [parsed_args.name]


class CreateTrait(common.NamedCommand, common.Command):
    """Create a custom trait

    The name must start with ``CUSTOM_`` and use only the characters A to Z,
    0 to 9 and the underscore. Creating a trait that already exists
    succeeds.
    """

    min_version = microversions.TRAITS
    positional = NAME
    writes_name = True

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        http.request('PUT', paths.url('traits', parsed_args.name))


class DeleteTrait(common.NamedCommand, common.Command):
    """Delete custom traits

    Standard traits cannot be deleted, nor a trait that a resource provider
    still has. Several names can be given: each is tried in turn and the
    failures are reported at the end.
    """

    min_version = microversions.TRAITS
    positional = NAME
    more_help = 'More traits can follow.'

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        return batch.delete_each(
            self, http, self.named(parsed_args),
            lambda name: http.request('DELETE', paths.url('traits', name)),
            batch_names.TRAITS)


class ListResourceProviderTrait(common.ProviderCommand,
                                common.Lister):
    """List the traits of a resource provider"""

    min_version = microversions.TRAITS

    def take_action(self, parsed_args):
        http, rp_uuid = self.prepare_provider(parsed_args)
        traits = http.request('GET', provider_traits_url(rp_uuid)).field(
            'traits', list)
        return FIELDS, trait_rows(traits)


class SetResourceProviderTrait(common.ProviderCommand,
                               common.Lister):
    """Replace all the traits of a resource provider

    The provider ends up with exactly the traits given (none if no
    ``--trait`` is given). If the provider changes between the read of its
    generation and the write, the command fails (HTTP 409) and changes
    nothing. To change some traits and keep the others, use ``resource
    provider trait add`` or ``remove``.
    """

    min_version = microversions.TRAITS

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--trait', metavar='<trait>', action='append', default=[],
            type=parsers.non_empty, help='Name of a trait. May be repeated.')
        return parser

    def take_action(self, parsed_args):
        http, rp_uuid = self.prepare_provider(parsed_args)
        generation = http.request('GET', paths.url(
            'resource_providers', rp_uuid)).field('generation')
        traits = http.request(
            'PUT', provider_traits_url(rp_uuid),
            json={'resource_provider_generation': generation,
                  'traits': parsed_args.trait}).field('traits', list)
        return FIELDS, trait_rows(traits)


class DeleteResourceProviderTrait(common.ProviderCommand,
                                  common.Command):
    """Remove all the traits of a resource provider

    The server does not check the provider generation for this request:
    traits set by another client at the same time are removed too.
    """

    min_version = microversions.TRAITS

    def take_action(self, parsed_args):
        http, rp_uuid = self.prepare_provider(parsed_args)
        http.request('DELETE', provider_traits_url(rp_uuid))


class _ChangeResourceProviderTrait(common.ProviderCommand,
                                   common.Lister):
    """Shared by ``trait add`` and ``trait remove``.

    A subclass defines ``change(current, named)``: the provider's traits
    (a list) after the change.
    """

    min_version = microversions.TRAITS
    # Commands of this plugin only: the usage shows every option.
    in_reference = False
    trait_help = None

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--trait', metavar='<trait>', action='append', required=True,
            type=parsers.non_empty, help=self.trait_help)
        return parser

    def take_action(self, parsed_args):
        http, rp_uuid = self.prepare_provider(parsed_args)
        url = provider_traits_url(rp_uuid)
        for attempt in range(1, MAX_ATTEMPTS + 1):
            response = http.request('GET', url)
            current = response.field('traits', list)
            traits = self.change(current, parsed_args.trait)
            if set(traits) == set(current):
                # Nothing to change: no write, no generation bump.
                return FIELDS, trait_rows(current)
            try:
                written = http.request('PUT', url, json={
                    'resource_provider_generation':
                        response.field('resource_provider_generation'),
                    'traits': traits}).field('traits', list)
            except exceptions.ClientException as exc:
                if attempt == MAX_ATTEMPTS or \
                        not is_generation_conflict(exc):
                    raise
                self.log.debug('Resource provider %s changed during the '
                               'update (attempt %d of %d): reading its '
                               'traits again.', rp_uuid, attempt,
                               MAX_ATTEMPTS)
                continue
            return FIELDS, trait_rows(written)


class AddResourceProviderTrait(_ChangeResourceProviderTrait):
    """Add traits to a resource provider, keeping the others

    Reads the provider's traits and generation and writes them back with the
    traits given added. If another client changes the provider in between,
    the command reads again and retries (at most 3 attempts in all). Prints
    the provider's traits afterwards.
    """

    trait_help = 'Name of a trait to add. May be repeated.'

    def change(self, current, named):
        traits = list(current)
        for name in named:
            if name not in traits:
                traits.append(name)
        return traits


class RemoveResourceProviderTrait(_ChangeResourceProviderTrait):
    """Remove traits from a resource provider, keeping the others

    Reads the provider's traits and generation and writes them back without
    the traits given; a trait the provider does not have is ignored. If
    another client changes the provider in between, the command reads again
    and retries (at most 3 attempts in all). Prints the provider's traits
    afterwards.
    """

    trait_help = 'Name of a trait to remove. May be repeated.'

    def change(self, current, named):
        return [name for name in current if name not in named]
