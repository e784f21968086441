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

"""The microversion table: one name for each change of the Placement API.

Every option gate, output column, wire format, rule of the evaluation and
need of a flavor's translation names its microversion here; no other
module of the package writes a ``'1.NN'`` literal (nor the compute API's
``'2.NN'``, at the end of the table)
(``tests/unit/test_layout.py`` holds them to it). The changes are those of
Placement's own microversion history (its ``rest_api_version_history``);
the versions this client does not act on are not named.
"""

BASE = '1.0'
# GET/PUT /resource_providers/{uuid}/aggregates
PROVIDER_AGGREGATES = '1.1'
# /resource_classes: custom resource classes
RESOURCE_CLASSES = '1.2'
# GET /resource_providers?member_of=
PROVIDERS_MEMBER_OF = '1.3'
# GET /resource_providers?resources=
PROVIDERS_RESOURCES = '1.4'
# DELETE /resource_providers/{uuid}/inventories: all of them at once
DELETE_ALL_INVENTORIES = '1.5'
# /traits and /resource_providers/{uuid}/traits
TRAITS = '1.6'
# PUT /resource_classes/{name} creates a class or leaves it as it is
PUT_RESOURCE_CLASS = '1.7'
# PUT /allocations/{consumer} needs project_id and user_id
PROJECT_USER_REQUIRED = '1.8'
# GET /usages: the usages of a project (and user)
PROJECT_USAGES = '1.9'
# GET /allocation_candidates
ALLOCATION_CANDIDATES = '1.10'
# PUT /allocations/{consumer}: allocations keyed by provider; allocation
# requests of the candidates keyed the same way
DICT_ALLOCATIONS = '1.12'
# POST /allocations: several consumers in one request
MULTIPLE_CONSUMERS = '1.13'
# nested providers: parents, roots, GET /resource_providers?in_tree=
NESTED_PROVIDERS = '1.14'
# GET /allocation_candidates?limit=
CANDIDATES_LIMIT = '1.16'
# GET /allocation_candidates?required=; provider summaries carry traits
CANDIDATES_REQUIRED = '1.17'
# GET /resource_providers?required=
PROVIDERS_REQUIRED = '1.18'
# the aggregates of a provider carry its generation
AGGREGATES_GENERATION = '1.19'
# GET /allocation_candidates?member_of=
CANDIDATES_MEMBER_OF = '1.21'
# forbidden traits (!TRAIT) in required=
FORBIDDEN_TRAITS = '1.22'
# member_of= repeated: each one must hold
MULTI_MEMBER_OF = '1.24'
# numbered request groups (resources1=...) and group_policy
GRANULAR_GROUPS = '1.25'
# an inventory's reserved may equal its total
RESERVED_CAN_BE_TOTAL = '1.26'
# consumer generations: read-modify-write of a consumer's allocations
CONSUMER_GENERATION = '1.28'
# candidates combine nested providers; summaries carry root and parent
NESTED_CANDIDATES = '1.29'
# POST /reshaper
RESHAPER = '1.30'
# GET /allocation_candidates?in_tree=
IN_TREE_CANDIDATES = '1.31'
# forbidden aggregates (member_of=!...)
FORBIDDEN_AGGREGATES = '1.32'
# request group suffixes beyond positive integers (resources_NAME=)
NAMED_GROUPS = '1.33'
# allocation requests carry the mappings of their request groups
CANDIDATE_MAPPINGS = '1.34'
# GET /allocation_candidates?root_required=
ROOT_REQUIRED = '1.35'
# same_subtree=; groups without resources
SAME_SUBTREE = '1.36'
# PUT /resource_providers/{uuid}: a parent can be changed or removed
REPARENT = '1.37'
# consumer types: required in writes, shown and filtered on
CONSUMER_TYPES = '1.38'
# any-of traits (in:A,B) in required=
ANY_TRAITS = '1.39'

# The last at which GET /usages?project_id= sums by class alone: from
# CONSUMER_TYPES it sums by consumer type too, a query Placement 16.0.0
# answers with an error 500 on PostgreSQL and on MySQL with
# ONLY_FULL_GROUP_BY (SQLite takes it).
USAGES_BY_CLASS = REPARENT

# The highest microversion this client knows.
LATEST = ANY_TRAITS
# The highest a negotiation of '1' reaches: what the reference plugin gets
# by default, and what scripts written against it rely on.
REFERENCE_DEFAULT = NESTED_CANDIDATES
# What Nova 34's scheduler sends GET /allocation_candidates at.
NOVA_SCHEDULER = SAME_SUBTREE

# The compute API's microversions this client sends (through
# OpenStackClient's compute proxy), named here as Placement's are.
# Host aggregates carry their UUID (--flavor's and --availability-zone's
# reads of aggregates).
COMPUTE_AGGREGATE_UUID = '2.41'
# Hypervisors are identified by the UUID of their compute node, which is
# its resource provider's UUID (--availability-zone's read of the compute
# nodes of Nova's default zone). The lowest such version: from 2.88 the
# details ask every compute service for its uptime.
COMPUTE_HYPERVISOR_UUID = '2.53'
# Every read of resource provider audit: migrations carry their UUID
# (2.59) and their project and user (2.80); servers embed their flavor
# with its extra specs (2.47) and a down cell's come back as UNKNOWN
# (2.69); hypervisors are identified by the UUID of their compute node
# (2.53), aggregates carry theirs (2.41). Below 2.88, whose hypervisor
# details ask every compute service for its uptime.
COMPUTE_AUDIT = '2.80'

# Servers carry the availability zone they are pinned to (the drain
# plan's reads of servers; below it, the audit's).
COMPUTE_PINNED_ZONE = '2.96'
