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

"""CPU pinning: the PCPU and VCPU of a flavor's ``hw:cpu_*`` extra specs.

Two rules of the pipeline (``rules.RULES``), ``pinned_cpus()`` and
``thread_policy()``, and their checks. Nova checks these specs when a
server is created (``nova.virt.hardware.numa_get_constraints()``) and
turns them into resources and traits in
``ResourceRequest._translate_pinning_policies()``; a flavor that the
checks refuse raises ``Refused``, one line naming the spec.
"""

import re

from osc_placement.model.flavors import specs as tables

# Nova's checks of pinned CPUs count these keys only (numbered groups).
_CPU_KEY = re.compile(r'^resources([1-9][0-9]*)?:(VCPU|PCPU)')
_HT_TRAIT_KEY = re.compile(r'^trait([1-9][0-9]*)?:' + tables.HYPERTHREADING)
_CPU_MASK = re.compile(r'\^?\d+((-\d+)?(,\^?\d+(-\d+)?)?)*')


def pinned_cpus(request):
    """``PCPU`` (and ``VCPU``) for the CPUs of a pinned server.

    ``hw:cpu_policy=dedicated`` asks for the flavor's vCPUs as ``PCPU``;
    ``mixed`` asks for the CPUs of ``hw:cpu_dedicated_mask`` (or else of
    ``hw:cpu_realtime_mask``) as ``PCPU`` and the others as ``VCPU``;
    ``hw:emulator_threads_policy=isolate`` adds a ``PCPU`` for the
    emulator threads. Why: a compute reports its dedicated host CPUs
    (``[compute]cpu_dedicated_set``) as ``PCPU`` and its shared ones as
    ``VCPU``, so a pinned server lands where its CPUs can be pinned only if
    it asks for ``PCPU``. ``resources:PCPU`` stands for ``dedicated`` (it
    must then be the flavor's vCPUs, one more for isolated emulator
    threads) and ``resources:VCPU`` for ``shared``.

    Refuses what ``numa_get_constraints()`` refuses: a value not in
    ``specs.SPECS``, a mask that is not one or names CPUs the flavor does
    not have, a policy beside ``resources:VCPU`` or ``PCPU``, both of
    those, and a thread policy, isolated emulator threads, a mask or
    real-time CPUs without the pinning they need.
    """
    policy = request.choice('hw:cpu_policy')
    thread_policy = request.choice('hw:cpu_thread_policy')
    emulator = request.choice('hw:emulator_threads_policy')
    for key in ('hw:cpu_dedicated_mask', 'hw:cpu_realtime_mask'):
        if request.specs.get(key) and not _CPU_MASK.fullmatch(
                request.specs[key]):
            request.refuse(key, 'not a CPU mask such as 0-3,^2')
    every = set(range(request.vcpus))
    realtime = _realtime_cpus(request, every, emulator)
    dedicated = _dedicated_cpus(request, every)
    pinned = _pinned_by_resources(request, policy, emulator)
    threads = _thread_spec(request, thread_policy)
    _check_pinning(request, pinned, threads, emulator, dedicated, realtime)
    extra = 1 if emulator == 'isolate' else 0
    if policy == 'dedicated':
        request.add_resource('PCPU', request.vcpus + extra)
    elif policy == 'mixed':
        pcpus = len(dedicated or realtime)
        request.add_resource('VCPU', request.vcpus - pcpus)
        request.add_resource('PCPU', pcpus + extra)


def thread_policy(request):
    """``HW_CPU_HYPERTHREADING`` on the unnamed group, for a thread policy.

    ``hw:cpu_thread_policy=isolate`` forbids the trait: each pinned vCPU
    must have a whole core, which only a host without hyperthreads gives
    when its CPUs are counted as ``PCPU``; ``require`` requires it: the
    vCPUs are pinned to thread siblings. ``prefer`` asks for nothing.
    ``pinned_cpus()`` has refused a thread policy without pinning.
    """
    policy = request.specs.get('hw:cpu_thread_policy')
    if policy == 'isolate':
        request.add_trait(tables.HYPERTHREADING, forbidden=True)
    elif policy == 'require':
        request.add_trait(tables.HYPERTHREADING)


def _cpu_set(request, key):
    """The CPUs of a mask spec: '0-3,^2' -> {0, 1, 3}."""
    mask = request.specs[key]
    if mask.strip().startswith('^'):
        mask = '0-%d,%s' % (request.vcpus - 1, mask)
    chosen, excluded = set(), set()
    for rule in mask.split(','):
        rule = rule.strip()
        into = chosen
        if rule.startswith('^'):
            into, rule = excluded, rule[1:]
        first, _sep, last = rule.partition('-')
        if int(first) > int(last or first):
            request.refuse(key, 'the range %s is reversed' % rule)
        into.update(range(int(first), int(last or first) + 1))
    return chosen - excluded


def _realtime_cpus(request, every, emulator):
    """The real-time CPUs of ``hw:cpu_realtime`` (None: not asked for)."""
    if not request.boolean('hw:cpu_realtime'):
        return None
    if request.specs.get('hw:cpu_realtime_mask'):
        chosen = _cpu_set(request, 'hw:cpu_realtime_mask')
    else:
        chosen = set(every)
    if not chosen:
        request.refuse('hw:cpu_realtime', 'no real-time CPU is left by '
                       'hw:cpu_realtime_mask')
    if chosen == every and not emulator:
        request.refuse('hw:cpu_realtime', 'hw:cpu_realtime_mask must '
                       'leave a CPU out (or set '
                       'hw:emulator_threads_policy)')
    if not chosen <= every:
        request.refuse('hw:cpu_realtime_mask', 'CPUs beyond the flavor\'s '
                       '%d vCPUs' % request.vcpus)
    return chosen


def _dedicated_cpus(request, every):
    """The CPUs of ``hw:cpu_dedicated_mask`` (None: no mask)."""
    if not request.specs.get('hw:cpu_dedicated_mask'):
        return None
    dedicated = _cpu_set(request, 'hw:cpu_dedicated_mask')
    if not dedicated or not every - dedicated:
        request.refuse('hw:cpu_dedicated_mask', 'a mixed server needs both '
                       'dedicated and shared CPUs')
    if not dedicated <= every:
        request.refuse('hw:cpu_dedicated_mask', 'CPUs beyond the flavor\'s '
                       '%d vCPUs' % request.vcpus)
    return dedicated


def _pinned_by_resources(request, policy, emulator):
    """The pinning that resources:VCPU or PCPU stand for, else policy."""
    vcpu_total = pcpu_total = 0
    pcpu_key = None
    for key, value in request.specs.items():
        match = _CPU_KEY.match(key)
        if not match:
            continue
        try:
            amount = int(value)
        except ValueError:
            continue
        if match.group(2) == 'VCPU':
            vcpu_total += amount
        else:
            pcpu_total += amount
            pcpu_key = pcpu_key or key
    if policy and (vcpu_total or pcpu_total):
        request.refuse('hw:cpu_policy', 'it cannot be combined with a '
                       'resources:VCPU or resources:PCPU extra spec')
    if vcpu_total and pcpu_total:
        request.refuse(pcpu_key, 'resources:VCPU and resources:PCPU '
                       'cannot be given together')
    pinned = policy
    if pcpu_total:
        wanted = request.vcpus + (1 if emulator == 'isolate' else 0)
        if pcpu_total != wanted:
            request.refuse(pcpu_key, 'it must be the flavor\'s vCPUs%s '
                           '(%d)' % (' + 1 with hw:emulator_threads_policy'
                                     '=isolate' if emulator == 'isolate'
                                     else '', wanted))
        pinned = 'dedicated'
    if vcpu_total:
        pinned = 'shared'
    return pinned


def _thread_spec(request, thread_policy):
    """The spec that asks for a thread policy, if any.

    ``hw:cpu_thread_policy``, or the first ``trait[N]:HW_CPU_HYPERTHREADING``
    when it is ``required`` or ``forbidden`` (another value, which the
    scheduler skips, asks for none); not both, whatever that trait's value
    (Nova's ``numa_get_constraints()``).
    """
    ht_key = next((key for key in request.specs
                   if _HT_TRAIT_KEY.match(key)), None)
    if thread_policy and ht_key and request.specs[ht_key]:
        request.refuse('hw:cpu_thread_policy', 'it cannot be combined '
                       'with %s' % ht_key)
    if thread_policy:
        return 'hw:cpu_thread_policy'
    if ht_key and request.specs[ht_key] in ('required', 'forbidden'):
        return ht_key
    return None


def _check_pinning(request, pinned, threads, emulator, dedicated, realtime):
    """Refuse the specs that need another pinning than ``pinned``."""
    if pinned in ('shared', None):
        if threads:
            request.refuse(threads, 'a CPU thread policy needs '
                           'hw:cpu_policy=dedicated or mixed')
        if emulator == 'isolate':
            request.refuse('hw:emulator_threads_policy',
                           'isolate needs hw:cpu_policy=dedicated or mixed')
        if dedicated:
            request.refuse('hw:cpu_dedicated_mask',
                           'it needs hw:cpu_policy=mixed')
        if realtime:
            request.refuse('hw:cpu_realtime',
                           'it needs hw:cpu_policy=dedicated or mixed')
    elif pinned == 'dedicated':
        if dedicated:
            request.refuse('hw:cpu_dedicated_mask',
                           'it needs hw:cpu_policy=mixed')
    else:
        if realtime and dedicated:
            request.refuse('hw:cpu_dedicated_mask',
                           'a mixed server takes its dedicated CPUs from '
                           'it or from hw:cpu_realtime_mask, not both')
        if not (realtime or dedicated):
            request.refuse('hw:cpu_policy',
                           'mixed needs hw:cpu_dedicated_mask or '
                           'hw:cpu_realtime_mask')
