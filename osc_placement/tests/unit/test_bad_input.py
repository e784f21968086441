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

"""Bad input, value by value.

Every value the plugin parses is tried with bad values through the real
``openstack`` shell, in-process, against a fake Placement (requests-mock)
that answers anything. For each one the user must see:

* exit code 1 (a command error) or 2 (an argparse usage error);
* nothing on stdout;
* on stderr, one line (exit 1), or argparse's usage followed by one
  ``error:`` line (exit 2), that names the option or the value and what
  is expected, without Python's own words (``invalid literal``...);
* no request at all, except the version negotiation ``GET /``: nothing
  is read, and above all nothing is written, before the value is known
  to be good.

The second table lists the malformed values that the recorded reference
sends to the server on purpose (``contract/cases.json``): a zero amount,
``--limit 0``, a UUID that is not one... Those keep the round trip; the
test checks that the server's refusal comes out as one clean line.
"""

import json

import requests
import requests_mock
import testscenarios

from osc_placement.tests.unit import base

RP = base.RP1
RP2 = base.RP2
CONSUMER = base.C3
AGG = base.AGG1
OWNER = base.OWNER
SERVER_DETAIL = base.SERVER_DETAIL


def case(id, argv, code, words, env=None, version='1.39'):
    """A bad value: the command line, the exit code, the words expected."""
    return (id, {'argv': (['--os-placement-api-version', version]
                          if version else []) + argv,
                 'code': code, 'words': words, 'env': env})


def _inventory_set(value, *more, version='1.39', **kw):
    return case('inventory-set-resource-%r%s' % (value, ' '.join(more)),
                ['resource', 'provider', 'inventory', 'set', RP,
                 '--resource', value] + list(more), version=version, **kw)


INT_WORDS = ['integer']
FORMAT = 'name=value'
NOT_EMPTY = 'must be not empty'

INVENTORY_SET = [
    # The messages of the reference are kept word for word where the
    # contract records them (D2b: the same message, without the GET).
    _inventory_set('VCPU', code=1, words=[FORMAT]),
    _inventory_set('VCPU=1=2', code=1, words=[FORMAT]),
    _inventory_set('VCPU==2', code=1, words=[FORMAT]),
    _inventory_set('', code=1, words=[FORMAT]),
    _inventory_set('=4', code=1, words=[NOT_EMPTY]),
    _inventory_set(':total=4', code=1, words=[NOT_EMPTY]),
    _inventory_set('VCPU:=4', code=1, words=[NOT_EMPTY]),
    _inventory_set('VCPU=', code=1, words=[NOT_EMPTY]),
    _inventory_set('VCPU:total=', code=1, words=[NOT_EMPTY]),
    _inventory_set('VCPU:total:x=1', code=1, words=['one colon']),
    _inventory_set('VCPU:foo=1', code=1, words=['foo']),
    _inventory_set('VCPU:Total=1', code=1, words=['Total']),
    _inventory_set('VCPU=abc', code=1, words=["'abc'", 'total'] + INT_WORDS),
    _inventory_set('VCPU=2.0', code=1, words=["'2.0'"] + INT_WORDS),
    _inventory_set('VCPU=1e3', code=1, words=["'1e3'"] + INT_WORDS),
    _inventory_set('VCPU=0x10', code=1, words=["'0x10'"] + INT_WORDS),
    _inventory_set('VCPU:max_unit=1.5', code=1,
                   words=["'1.5'", 'max_unit'] + INT_WORDS),
    _inventory_set('VCPU:reserved=x', code=1,
                   words=["'x'", 'reserved'] + INT_WORDS),
    _inventory_set('VCPU:min_unit=one', code=1,
                   words=["'one'", 'min_unit'] + INT_WORDS),
    _inventory_set('VCPU:step_size=1/2', code=1,
                   words=["'1/2'", 'step_size'] + INT_WORDS),
] + [
    _inventory_set('VCPU:allocation_ratio=%s' % value, code=1,
                   words=["'%s'" % value, 'allocation_ratio', 'number'])
    for value in ('x', 'nan', 'NaN', 'inf', '-inf', 'infinity', '1,5')
] + [
    _inventory_set(' =4', code=1, words=[NOT_EMPTY]),
    case('inventory-set-bad-after-good',
         ['resource', 'provider', 'inventory', 'set', RP, '--resource',
          'VCPU=4', '--resource', 'MEMORY_MB'], 1, [FORMAT]),
    _inventory_set('VCPU=abc', '--amend', code=1, words=["'abc'"]),
    _inventory_set('VCPU=abc', '--dry-run', code=1, words=["'abc'"]),
    case('inventory-set-aggregate-bad-resource',
         ['resource', 'provider', 'inventory', 'set', AGG, '--aggregate',
          '--resource', 'VCPU=abc'], 1, ["'abc'", 'integer']),
    case('inventory-set-negotiated-bad-resource',
         ['resource', 'provider', 'inventory', 'set', RP, '--resource',
          'VCPU=abc'], 1, ["'abc'", 'integer'], version=None),
]


def _class_set(*more, code=2, words=()):
    return case('inventory-class-set-%s' % ' '.join(more),
                ['resource', 'provider', 'inventory', 'class', 'set', RP,
                 'VCPU'] + list(more), code, list(words))


INVENTORY_CLASS_SET = [
    _class_set('--total', 'abc', words=['--total', "'abc'", 'int']),
    _class_set('--total', '', words=['--total', "''", 'int']),
    _class_set('--total', '1.5', words=['--total', "'1.5'", 'int']),
    # The digits inventory set takes, no more: not 1_000, not other scripts.
    _class_set('--total', '1_000', words=['--total', "'1_000'", 'int']),
    _class_set('--total', '\u0663', words=['--total', 'int']),
    _class_set('--total', '4', '--max_unit', '1_0',
               words=['--max_unit', "'1_0'", 'int']),
    _class_set('--total', '4', '--max_unit', 'x',
               words=['--max_unit', "'x'", 'int']),
    _class_set('--total', '4', '--min_unit', '1e3',
               words=['--min_unit', "'1e3'", 'int']),
    _class_set('--total', '4', '--reserved', 'none',
               words=['--reserved', "'none'", 'int']),
    _class_set('--total', '4', '--step_size', '2.5',
               words=['--step_size', "'2.5'", 'int']),
] + [
    _class_set('--total', '4', '--allocation_ratio=' + value,
               words=['--allocation_ratio', "'%s'" % value, 'float'])
    for value in ('x', 'nan', 'inf', '-inf', '')
]


def _allocation_set(*values, version='1.39', code=1, words=(), owner=True,
                    id=None):
    argv = ['resource', 'provider', 'allocation', 'set', CONSUMER]
    for value in values:
        argv += ['--allocation', value]
    if owner:
        argv += OWNER
    if version in ('1.38', '1.39'):
        argv += ['--consumer-type', 'INSTANCE']
    return case(id or 'allocation-set-%s-%r' % (version, values), argv,
                code, list(words), version=version)


ALLOCATION_FORMAT = 'Incorrect allocation string format'
ALLOCATION_SET = [
    _allocation_set('rp=%s,VCPU=two' % RP, version=v,
                    words=["'two'", 'VCPU', 'integer'])
    for v in ('1.0', '1.12', '1.28', '1.39')
] + [
    # Recorded messages, kept word for word.
    _allocation_set('rp=%s' % RP, words=[ALLOCATION_FORMAT]),
    _allocation_set('VCPU,MEMORY_MB', words=[ALLOCATION_FORMAT]),
    _allocation_set('', words=[ALLOCATION_FORMAT]),
    _allocation_set(',', words=[ALLOCATION_FORMAT]),
    _allocation_set('rp=%s,VCPU' % RP, words=[ALLOCATION_FORMAT, "'VCPU'"]),
    _allocation_set('rp=%s,VCPU=1,' % RP, words=[ALLOCATION_FORMAT]),
    _allocation_set('rp=%s,=1' % RP, words=[ALLOCATION_FORMAT]),
    _allocation_set('rp=%s,VCPU=1=2' % RP,
                    words=[ALLOCATION_FORMAT, "'VCPU=1=2'"]),
    _allocation_set('VCPU=1,MEMORY_MB=2', words=[
        'Resource provider parameter is required for allocation string']),
    _allocation_set('rp=,VCPU=1', words=['rp=', 'UUID or name']),
    _allocation_set('rp=  ,VCPU=1', words=['rp=', 'UUID or name']),
    _allocation_set('rp=%s,VCPU=' % RP, words=["''", 'VCPU', 'integer']),
    _allocation_set('rp=%s,VCPU=1.5' % RP, words=["'1.5'", 'integer']),
    _allocation_set('rp=%s,VCPU=1' % RP, 'rp=%s,VCPU=2' % RP,
                    words=['Conflict detected', RP, 'VCPU']),
    _allocation_set('rp=%s,VCPU=1' % RP, 'rp=%s,VCPU=abc' % RP,
                    words=["'abc'", 'integer']),
    _allocation_set('rp=%s,VCPU=1,VCPU=2' % RP,
                    words=['VCPU', RP]),
    _allocation_set('rp=%s,rp=%s,VCPU=1' % (RP, RP2),
                    words=['rp=']),
    case('allocation-set-no-allocation',
         ['resource', 'provider', 'allocation', 'set', CONSUMER] + OWNER,
         1, ['At least one resource allocation'], version='1.28'),
    case('allocation-set-negotiated-bad-allocation',
         ['resource', 'provider', 'allocation', 'set', CONSUMER,
          '--allocation', 'rp=%s,VCPU=two' % RP] + OWNER,
         1, ["'two'", 'integer'], version=None),
    case('allocation-set-empty-project',
         ['resource', 'provider', 'allocation', 'set', CONSUMER,
          '--allocation', 'rp=%s,VCPU=1' % RP, '--project-id', '',
          '--user-id', 'user-1'], 1, ['--project-id'], version='1.28'),
    case('allocation-set-empty-consumer-type',
         ['resource', 'provider', 'allocation', 'set', CONSUMER,
          '--allocation', 'rp=%s,VCPU=1' % RP, '--consumer-type', '']
         + OWNER, 1, ['--consumer-type'], version='1.38'),
    case('allocation-unset-empty-provider',
         ['resource', 'provider', 'allocation', 'unset', CONSUMER,
          '--provider', ''], 2, ['--provider', 'empty'], version='1.28'),
    case('allocation-unset-empty-class',
         ['resource', 'provider', 'allocation', 'unset', CONSUMER,
          '--resource-class', ' '], 2, ['--resource-class', 'empty'],
         version='1.28'),
]


def _candidates(*more, version='1.39', code=1, words=()):
    return case('candidates-%s-%s' % (version, ' '.join(more)),
                ['allocation', 'candidate', 'list'] + list(more), code,
                list(words), version=version)


CANDIDATE_FORMAT = '<resource_class>=<value>'
CANDIDATES = [
    _candidates('--resource', 'VCPU', words=[CANDIDATE_FORMAT]),
    _candidates('--resource', 'VCPU:1', words=[CANDIDATE_FORMAT]),
    _candidates('--resource', 'VCPU=1=2', words=[CANDIDATE_FORMAT]),
    _candidates('--resource', '', words=[CANDIDATE_FORMAT]),
    _candidates('--resource', '=1', words=["'=1'", 'resource class']),
    _candidates('--resource', ' =1', words=["' =1'", 'resource class']),
    _candidates('--resource', 'VCPU=', words=["'VCPU='", 'integer']),
    _candidates('--resource', 'VCPU=abc', words=["'VCPU=abc'", 'integer']),
    _candidates('--resource', 'VCPU=1.5', words=["'VCPU=1.5'", 'integer']),
    _candidates('--resource', 'VCPU=1', '--group', '1', '--resource',
                'VCPU=x', words=["'VCPU=x'", 'integer']),
    _candidates('--resource', 'VCPU=1', '--limit', 'abc',
                words=['--limit', "'abc'", 'integer'], version='1.16'),
    _candidates('--resource', 'VCPU=1', '--limit', '',
                words=['--limit', "''", 'integer'], version='1.16'),
    _candidates('--resource', 'VCPU=1', '--limit', '1.5',
                words=['--limit', "'1.5'", 'integer'], version='1.16'),
    _candidates('--resource', 'VCPU=1', '--limit', 'abc',
                words=['--limit', "'abc'", 'integer'], version=None),
] + [
    _candidates('--resource', 'VCPU=1', '--group', name, '--resource',
                'VCPU=1', version=version,
                words=['--group', repr(name), 'positive integer'])
    for version in ('1.25', '1.32')
    for name in ('a', '0', '01', '1.5', '-1', 'GPU')
] + [
    _candidates('--resource', 'VCPU=1', '--group', name, '--resource',
                'VCPU=1', words=['--group', '64 characters'])
    for name in ('x' * 65, 'a b', 'a.b', 'a/b', 'é', 'a,b', 'a:b')
] + [
    _candidates('--resource', 'VCPU=1', '--group', '', '--resource',
                'VCPU=1', code=2, words=['--group', "''"]),
    _candidates('--resource', 'VCPU=1', '--group', '', '--resource',
                'VCPU=1', code=2, words=['--group', "''"], version='1.25'),
    _candidates('--resource', 'VCPU=1', '--required', '', code=2,
                words=['--required']),
    _candidates('--resource', 'VCPU=1', '--required', 'A,,B', code=2,
                words=['--required']),
    _candidates('--resource', 'VCPU=1', '--forbidden', '', code=2,
                words=['--forbidden']),
    _candidates('--resource', 'VCPU=1', '--member-of', '', code=2,
                words=['--member-of']),
    _candidates('--resource', 'VCPU=1', '--in-tree', '', code=2,
                words=['--in-tree']),
    _candidates('--resource', 'VCPU=1', '--root-required', '',
                words=['--root-required', 'empty']),
    _candidates('--resource', 'VCPU=1', '--root-required', 'A,!',
                words=['--root-required', '!']),
    _candidates('--resource', 'VCPU=1', '--same-subtree', '',
                words=['--same-subtree']),
    _candidates('--resource', 'VCPU=1', '--group', 'a', '--resource',
                'VCPU=1', '--same-subtree', 'a,b',
                words=['--same-subtree', "'b'"]),
    _candidates('--resource', 'VCPU=1', '--group-policy', 'spread',
                code=2, words=['--group-policy', "'spread'"]),
]


def _empty(command, *before, after=(), version='1.39', value=''):
    argv = command.split() + list(before) + [value] + list(after)
    return case('empty-%r-%s-%s-%s' % (value, version, command,
                                       ' '.join(before)), argv,
                2, ['empty'], version=version)


# Every command with a positional, the positional empty or blank.
POSITIONAL_COMMANDS = [
    ('resource provider create', (), ()),
    ('resource provider show', (), ()),
    ('resource provider set', (), ('--name', 'x')),
    ('resource provider delete', (), ()),
    ('resource provider delete', (RP,), ()),
    ('resource provider tree show', (), ()),
    ('resource provider inventory set', (), ('--resource', 'VCPU=1')),
    ('resource provider inventory class set', (), ('VCPU', '--total', '1')),
    ('resource provider inventory class set', (RP,), ('--total', '1')),
    ('resource provider inventory list', (), ()),
    ('resource provider inventory show', (), ('VCPU',)),
    ('resource provider inventory show', (RP,), ()),
    ('resource provider inventory delete', (), ('--resource-class',
                                                'VCPU')),
    ('resource provider inventory delete', (RP, '--resource-class'), ()),
    ('resource provider allocation set', (),
     ('--allocation', 'rp=%s,VCPU=1' % RP, '--consumer-type', 'INSTANCE')
     + tuple(OWNER)),
    ('resource provider allocation unset', (), ()),
    ('resource provider allocation show', (), ()),
    ('resource provider allocation delete', (), ()),
    ('resource provider allocation delete', (CONSUMER,), ()),
    ('resource provider allocation list', (), ()),
    ('resource provider aggregate list', (), ()),
    ('resource provider aggregate set', (), ('--generation', '1')),
    ('resource provider trait list', (), ()),
    ('resource provider trait set', (), ('--trait', 'CUSTOM_A')),
    ('resource provider trait delete', (), ()),
    ('resource provider trait add', (), ('--trait', 'CUSTOM_A')),
    ('resource provider trait remove', (), ('--trait', 'CUSTOM_A')),
    ('resource provider trait add', (RP, '--trait'), ()),
    ('resource provider trait remove', (RP, '--trait'), ()),
    ('resource provider usage show', (), ()),
    ('resource usage show', (), ()),
    ('resource class create', (), ()),
    ('resource class set', (), ()),
    ('resource class show', (), ()),
    ('resource class delete', (), ()),
    ('resource class delete', ('CUSTOM_A',), ()),
    ('trait show', (), ()),
    ('trait create', (), ()),
    ('trait delete', (), ()),
    ('trait delete', ('CUSTOM_A',), ()),
]

EMPTY_VALUES = [
    _empty(command, *before, after=after, value=value)
    for command, before, after in POSITIONAL_COMMANDS
    for value in ('', '  ')
] + [
    _empty('resource provider inventory delete', RP, '--resource-class',
           version='1.0'),
    _empty('resource provider show', version='1.0'),
    _empty('trait show', version='1.6'),
    _empty('resource provider inventory set', '--aggregate',
           after=('--resource', 'VCPU=1'), version='1.3'),
    case('empty-trait-set-trait',
         ['resource', 'provider', 'trait', 'set', RP, '--trait', ''], 2,
         ['--trait', 'empty']),
    case('empty-provider-create-uuid',
         ['resource', 'provider', 'create', '--uuid', '', 'rp-1'], 2,
         ['--uuid', 'empty']),
    case('empty-provider-create-parent',
         ['resource', 'provider', 'create', '--parent-provider', '',
          'rp-1'], 2, ['--parent-provider', 'empty']),
    case('empty-provider-set-parent',
         ['resource', 'provider', 'set', RP, '--name', 'rp-1',
          '--parent-provider', ''], 2, ['--parent-provider', 'empty']),
    case('empty-provider-list-in-tree',
         ['resource', 'provider', 'list', '--in-tree', ''], 2,
         ['--in-tree', 'empty']),
    case('empty-provider-list-required',
         ['resource', 'provider', 'list', '--required', ''], 2,
         ['--required']),
    case('empty-provider-list-member-of',
         ['resource', 'provider', 'list', '--member-of', ''], 2,
         ['--member-of']),
]

GENERATION = [
    case('aggregate-set-generation-%r' % value,
         ['resource', 'provider', 'aggregate', 'set', RP, '--aggregate',
          AGG, '--generation', value], 2,
         ['--generation', repr(value), 'int'])
    for value in ('abc', '', '1.5', 'one', '0x1')
] + [
    case('aggregate-set-no-generation',
         ['resource', 'provider', 'aggregate', 'set', RP, '--aggregate',
          AGG], 1, ['generation'], version='1.19'),
]

API_VERSION_WORDS = ['1.0 to 1.39']
API_VERSIONS = [
    case('api-version-option-%r' % value,
         ['--os-placement-api-version', value, 'resource', 'class',
          'create', 'CUSTOM_A'], 1, [repr(value.strip())]
         + API_VERSION_WORDS, version=None)
    for value in ('1.40', '1.99', '2.0', '2', '0.9', 'abc', '', ' ',
                  '1.x', '1.', '1.-1', '1.030', '1.5.1', 'v1.5')
] + [
    case('api-version-env-%r' % value,
         ['resource', 'class', 'create', 'CUSTOM_A'], 1,
         [repr(value)] + API_VERSION_WORDS, version=None,
         env={'OS_PLACEMENT_API_VERSION': value})
    for value in ('1.40', '2.0', 'abc', '1.x', '1.')
]


# A value holding a line break (pasted from a file, say) must not break
# the error line.
LINE_BREAKS = [
    case('line-break-inventory-amount',
         ['resource', 'provider', 'inventory', 'set', RP,
          '--resource', 'VCPU=4\n4'], 1, ['integer']),
    case('line-break-inventory-field',
         ['resource', 'provider', 'inventory', 'set', RP,
          '--resource', 'VCPU:total\n=4'], 1, ['field']),
    case('line-break-allocation-conflict',
         ['resource', 'provider', 'allocation', 'set', CONSUMER,
          '--allocation', 'rp=a\nb,VCPU=1', '--allocation',
          'rp=a\nb,VCPU=2', '--consumer-type', 'INSTANCE'] + OWNER,
         1, ['Conflict detected']),
    case('line-break-api-version',
         ['--os-placement-api-version', '1.\n5', 'resource',
          'class', 'create', 'CUSTOM_A'], 1, ['1.0 to 1.39']),
    case('line-break-timeout',
         ['--os-placement-timeout', '1\n0', 'resource', 'class', 'create',
          'CUSTOM_A'], 1, ['--os-placement-timeout', 'seconds']),
]

ALL = (INVENTORY_SET + INVENTORY_CLASS_SET + ALLOCATION_SET + CANDIDATES
       + EMPTY_VALUES + GENERATION + API_VERSIONS + LINE_BREAKS)


# Malformed values that the server judges, as the recorded reference does
# ("recorded": the contract has the case). Zero, negative and huge
# amounts are refused by the server's schema, not guessed here; an
# identifier that is not a UUID goes to the server, which says what it
# makes of it. Each: (id, argv, the request that carries the value
# (method, path, query pairs), a fragment of its JSON body or None).
# (Negative amounts, amounts above 2147483647 and a --limit below 1 are
# refused locally since rule D18: see test_amount_ranges.)
ROUND_TRIPS = [
    ('provider-list-resource-no-equals-recorded',
     ['--os-placement-api-version', '1.4', 'resource', 'provider', 'list',
      '--resource', 'VCPU'],
     ('GET', '/resource_providers', [('resources', 'VCPU')]), None),
    ('provider-list-resource-not-int',
     ['--os-placement-api-version', '1.4', 'resource', 'provider', 'list',
      '--resource', 'VCPU=abc'],
     ('GET', '/resource_providers', [('resources', 'VCPU:abc')]), None),
    ('candidates-resource-zero',
     ['--os-placement-api-version', '1.10', 'allocation', 'candidate',
      'list', '--resource', 'VCPU=0'],
     ('GET', '/allocation_candidates', [('resources', 'VCPU:0')]), None),
    ('inventory-set-total-zero-recorded',
     ['--os-placement-api-version', '1.0', 'resource', 'provider',
      'inventory', 'set', RP, '--resource', 'VCPU=0'],
     ('PUT', '/resource_providers/%s/inventories' % RP, []),
     '"total": 0'),
    ('inventory-set-ratio-negative',
     ['--os-placement-api-version', '1.0', 'resource', 'provider',
      'inventory', 'set', RP, '--resource', 'VCPU=4', '--resource',
      'VCPU:allocation_ratio=-1'],
     ('PUT', '/resource_providers/%s/inventories' % RP, []),
     '"allocation_ratio": -1.0'),
    ('inventory-class-set-total-zero-recorded',
     ['--os-placement-api-version', '1.0', 'resource', 'provider',
      'inventory', 'class', 'set', RP, 'VCPU', '--total', '0'],
     ('PUT', '/resource_providers/%s/inventories/VCPU' % RP, []),
     '"total": 0'),
    ('allocation-set-zero-recorded',
     ['--os-placement-api-version', '1.12', 'resource', 'provider',
      'allocation', 'set', CONSUMER, '--allocation',
      'rp=%s,VCPU=0' % RP] + OWNER,
     ('PUT', '/allocations/' + CONSUMER, []), '"VCPU": 0'),
    ('allocation-set-malformed-consumer-recorded',
     ['--os-placement-api-version', '1.28', 'resource', 'provider',
      'allocation', 'set', 'not-a-uuid', '--allocation',
      'rp=%s,VCPU=1' % RP] + OWNER,
     ('PUT', '/allocations/not-a-uuid', []), '"VCPU": 1'),
    ('allocation-delete-malformed-consumer-recorded',
     ['--os-placement-api-version', '1.0', 'resource', 'provider',
      'allocation', 'delete', 'not-a-uuid'],
     ('DELETE', '/allocations/not-a-uuid', []), None),
    ('aggregate-set-malformed-aggregate-recorded',
     ['--os-placement-api-version', '1.1', 'resource', 'provider',
      'aggregate', 'set', RP, '--aggregate', 'agg-one'],
     ('PUT', '/resource_providers/%s/aggregates' % RP, []), 'agg-one'),
    ('trait-create-bad-name-recorded',
     ['--os-placement-api-version', '1.6', 'trait', 'create',
      'BAD_TRAIT'],
     ('PUT', '/traits/BAD_TRAIT', []), None),
    ('resource-class-create-bad-name-recorded',
     ['--os-placement-api-version', '1.2', 'resource', 'class', 'create',
      'FPGA'],
     ('POST', '/resource_classes', []), '"FPGA"'),
]


load_tests = testscenarios.load_tests_apply_scenarios


class TestRefusedLocally(base.BadInputTestCase):

    scenarios = ALL

    def test_bad_value_is_refused_locally_in_one_line(self):
        out, err, code = self.run_argv(self.argv, self.env)
        self.assertEqual('', out)
        self.assertEqual(self.code, code, err)
        line = self.error_line(err, code)
        for word in self.words:
            self.assertIn(word, line)
        self.assertEqual(
            [], [r for r in self.requests_sent()
                 if (r.method, r.path) != ('GET', '/')],
            'sent before refusing')

    def error_line(self, err, code):
        """One line for a command error; usage then one line for argparse.

        Returns the line that says what is wrong.
        """
        self.assertTrue(err.endswith('\n'), err)
        lines = err.splitlines()
        if code == 1:
            self.assertEqual(1, len(lines), err)
            return lines[0]
        self.assertEqual(2, code)
        self.assertTrue(lines[0].startswith('usage: openstack '), err)
        self.assertEqual([], [line for line in lines[1:-1]
                              if not line[:1].isspace()])
        self.assertTrue(lines[-1].startswith('openstack'), err)
        self.assertEqual(1, err.count(': error: '), err)
        self.assertIn(': error: ', lines[-1])
        return lines[-1]


class TestJudgedByTheServer(base.BadInputTestCase):

    scenarios = [(id, {'argv': argv, 'request': request, 'body': body})
                 for id, argv, request, body in ROUND_TRIPS]

    def test_value_judged_by_the_server_gives_its_one_line(self):
        out, err, code = self.run_argv(self.argv)
        self.assertEqual(('', 1), (out, code))
        self.assertEqual('%s (HTTP 400)\n' % SERVER_DETAIL, err)
        last = self.requests_sent()[-1]
        self.assertEqual(self.request, (last.method, last.path, last.query))
        if self.body is not None:
            self.assertIn(self.body, json.dumps(last.body))


class TestCaseIds(base.TestCase):

    def test_case_ids_are_unique(self):
        ids = [id for id, _ in ALL] + [case[0] for case in ROUND_TRIPS]
        self.assertEqual(len(ids), len(set(ids)))


# A bad value of each command that parses one, and the line that names it.
ALLOCATION_SET = ['resource', 'provider', 'allocation', 'set', CONSUMER]
CANDIDATES = ['allocation', 'candidate', 'list']
WITH_THE_SERVER_DOWN = [
    ('allocation-set-amount',
     ALLOCATION_SET + ['--allocation', 'rp=R,VCPU=abc'] + OWNER,
     "--allocation 'rp=R,VCPU=abc': amount of VCPU: 'abc' is not an "
     "integer."),
    ('allocation-set-no-rp',
     ALLOCATION_SET + ['--allocation', 'VCPU=1'] + OWNER,
     'Incorrect allocation string format'),
    ('allocation-set-two-amounts',
     ALLOCATION_SET + ['--allocation', 'rp=R,VCPU=1,VCPU=2'] + OWNER,
     "--allocation 'rp=R,VCPU=1,VCPU=2': two different amounts of VCPU."),
    ('candidates-amount', CANDIDATES + ['--resource', 'VCPU=x'],
     "--resource 'VCPU=x': amount: 'x' is not an integer."),
    ('candidates-resource-format', CANDIDATES + ['--resource', 'VCPU'],
     'Arguments to --resource must be of form <resource_class>=<value>'),
    ('candidates-limit',
     CANDIDATES + ['--resource', 'VCPU=1', '--limit', 'abc'],
     "--limit: 'abc' is not an integer."),
    ('candidates-group-name',
     CANDIDATES + ['--resource', 'VCPU=1', '--group', 'a!', '--resource',
                   'VCPU=1'],
     "--group 'a!': before --os-placement-api-version 1.33 a group name "
     "must be a positive integer (e.g. 1)."),
    ('candidates-group-without-resource',
     CANDIDATES + ['--resource', 'VCPU=1', '--group', '1'],
     'Group 1 has no --resource: every --group needs at least one '
     '--resource, unless it is named in --same-subtree '
     '(--os-placement-api-version 1.36 or later).'),
    ('candidates-same-subtree',
     CANDIDATES + ['--resource', 'VCPU=1', '--same-subtree', '_x'],
     "--same-subtree '_x': '_x' is not the name of a --group of this "
     "request."),
    ('candidates-root-required',
     CANDIDATES + ['--resource', 'VCPU=1', '--root-required', '!'],
     '--root-required \'!\': "!" must be followed by a trait name.'),
    ('candidates-in-tree-twice',
     CANDIDATES + ['--resource', 'VCPU=1', '--in-tree', 'a', '--in-tree',
                   'b'],
     '--in-tree given 2 times for the unnamed group: one provider tree '
     'per group.'),
    ('inventory-set-amount',
     ['resource', 'provider', 'inventory', 'set', RP, '--resource',
      'VCPU=abc'],
     "total of --resource VCPU=abc: 'abc' is not an integer."),
    ('allocation-list-exclude-file',
     ['resource', 'provider', 'allocation', 'list',
      '--exclude-consumers-from', '/nonexistent/known'],
     "--exclude-consumers-from /nonexistent/known: cannot read it: [Errno "
     "2] No such file or directory: '/nonexistent/known'"),
] + [
    ('%s-member-of' % '-'.join(command[2:-1]), command + ['--member-of', 'x'],
     "--member-of: 'x' is not an aggregate UUID.")
    for command in (['resource', 'provider', 'tree', 'list'],
                    ['resource', 'provider', 'capacity', 'list'],
                    ['resource', 'provider', 'allocation', 'list'])]


class TestRefusedWithTheServerDown(base.TestCase):
    """The mistake in the command line, not "connection refused".

    The default version ('1') negotiates, but every value that needs no
    server is checked first: no request at all.
    """

    api_version = base.NEGOTIATE
    scenarios = [(id, {'argv': argv, 'line': line})
                 for id, argv, line in WITH_THE_SERVER_DOWN]

    def test_bad_value_before_the_negotiation(self):
        self.requests_mock.register_uri(
            requests_mock.ANY, requests_mock.ANY,
            exc=requests.exceptions.ConnectionError('Connection refused'))
        out, err, code = self.openstack(*self.argv)
        self.assertEqual((1, '', self.line + '\n'), (code, out, err))
        self.assertEqual([], self.requests_sent())
