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

"""``allocation candidate list``: where a request for resources could land.

The command takes the request as options (``cli.candidate_options``: the
request groups, ``--limit``, ``--flavor``...), sends one ``GET
/allocation_candidates`` and shows the answer, a row per provider of each
candidate (``model.candidates.rows()``).
"""

from osc_placement.cli import candidate_options
from osc_placement.cli import common
from osc_placement import microversions
from osc_placement import version

BASE_URL = '/allocation_candidates'

# The output columns, each with the microversion that shows it; the
# LONG_FIELDS follow with --long.
CANDIDATE_FIELDS = (
    ('#', None),
    ('allocation', None),
    ('resource provider', None),
    ('inventory used/capacity', None),
    ('traits', microversions.CANDIDATES_REQUIRED),
)
LONG_FIELDS = (
    ('root provider', None),
    ('parent provider', None),
    ('mappings', microversions.CANDIDATE_MAPPINGS),
)


class ListAllocationCandidate(candidate_options.CandidateRequest,
                              common.Lister):
    """List allocation candidates

    Asks Placement where a request for resources could be satisfied. Each
    candidate (``#``) is a set of allocations on one or more resource
    providers that together serve the request; its rows show what would be
    allocated on each provider and, to help choose, the provider's current
    usage and capacity per resource class (and its traits from
    ``--os-placement-api-version 1.17``). A candidate can be claimed with
    ``openstack resource provider allocation set``.

    For example ``allocation candidate list --resource VCPU=1`` prints
    one row per provider able to serve one VCPU, with its VCPU usage and
    capacity, e.g. ``VCPU=0/128``.

    ``--group`` starts a request group: the resources, traits, aggregates
    and tree given after it must be served by one provider. For example
    ``--resource DISK_GB=10 --group 1 --resource VCPU=2 --group 2
    --resource VCPU=2 --group-policy isolate`` asks for two NUMA nodes of
    one compute node, each with 2 VCPU.
    """

    def add_output_options(self, parser):
        """The options of this command's output (not of the request)."""
        self.add_option(
            parser, '--long', action='store_true',
            since=microversions.NESTED_CANDIDATES, extended=True,
            help='Also show each provider\'s root and parent provider, '
                 'and, from ``--os-placement-api-version %s``, the request '
                 'groups it satisfies in the candidate (mappings).'
                 % microversions.CANDIDATE_MAPPINGS)

    def take_action(self, parsed_args):
        # Runs only: candidates rows (see osc_placement.resources).
        from osc_placement.model import candidates
        http, params = self.request(parsed_args)
        response = http.request('GET', BASE_URL, params=params)
        summaries = response.field('provider_summaries', dict)
        requests = response.field('allocation_requests', list)
        fields = common.columns(self, CANDIDATE_FIELDS)
        if parsed_args.long:
            fields += common.columns(self, LONG_FIELDS)
        return fields, candidates.rows(
            summaries, requests,
            dict_shaped=self.compare_version(
                version.ge(microversions.DICT_ALLOCATIONS)),
            traits='traits' in fields, long=parsed_args.long,
            mappings='mappings' in fields)
