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

"""The undo of ``audit --fix``, as a person uses it.

The cloud of ``test_audit``, its Placement real. A plain ``allocation
restore`` of the undo file gives back what the fix changed and refuses
only a consumer changed after it; the options of the undo are checked
before anything is read.
"""

import json
import os
import signal

import fixtures
import testscenarios

from osc_placement.model import savefile
from osc_placement.tests.functional import test_audit

A = test_audit
load_tests = testscenarios.load_tests_apply_scenarios
RESTORE = ('resource', 'provider', 'allocation', 'restore')


class TestUndo(A.AuditTestCase):

    def setUp(self):
        super().setUp()
        self.undo = os.path.join(self.dir, 'undo.json')

    def restore(self, *more):
        return self.openstack(*(RESTORE + ('--file', self.undo) + more),
                              version=A.VERSION)

    def test_a_consumer_changed_after_the_fix_is_the_one_refused(self):
        before = self.allocations()
        _rows, err, code = self.audit('--fix', '--undo-file', self.undo)
        self.assertEqual((4, ''), (code, err))
        # A resize after the fix, of a server the fix changed.
        body = self.api('GET', '/allocations/' + A.S_EVACUATED,
                        version='1.38')
        self.api('PUT', '/allocations/' + A.S_EVACUATED, version='1.38',
                 body={'allocations': {A.CN2: {'resources': dict(
                     A.SMALL, VCPU=2)}},
                     'project_id': A.PROJECT, 'user_id': A.USER,
                     'consumer_generation': body['consumer_generation'],
                     'consumer_type': 'INSTANCE'})
        resized = self.allocations()
        for more in (('--dry-run',), ()):
            out, err, code = self.restore(*more)
            self.assertEqual(1, code, err)
            lines = err.splitlines()
            self.assertEqual(
                ['Consumer %s changed since the save (generation 2 after '
                 'the write the file undoes, 3 now): not restored; --force '
                 'writes the saved allocations over its current ones (with '
                 'its generation 3).' % A.S_EVACUATED,
                 'Refused 1 of 7 consumers to restore, changed since the '
                 'save; nothing was written.'], lines, more)
            self.assertEqual(resized, self.allocations())
        # Without that consumer's change, the rest is given back.
        self.assertNotEqual(before, resized)

    def test_the_file_says_what_the_fix_wrote(self):
        self.audit('--fix', '--undo-file', self.undo)
        with open(self.undo) as f:
            saved = json.load(f)
        # Each consumer left holding something, at the generation the
        # fix's write gave it; those removed are no consumer after it.
        self.assertEqual(sorted([A.S_EVACUATED, A.S_MISSING, A.S_OWNER]),
                         sorted(c for c, rec in saved['written'].items()
                                if rec['allocations']))
        for consumer, rec in saved['written'].items():
            now = self.api('GET', '/allocations/' + consumer,
                           version='1.38')
            if not rec['allocations']:
                # Removed by the fix: written as holding nothing.
                self.assertEqual({'allocations': {}}, rec)
                self.assertEqual({}, now['allocations'], consumer)
                continue
            self.assertEqual(now['consumer_generation'],
                             rec['consumer_generation'], consumer)
        self.assertEqual(sorted([A.M_CONFIRMED, A.S_DELETED, A.X_ORPHAN,
                                 A.X_SHARED]),
                         sorted(c for c, rec in saved['written'].items()
                                if not rec['allocations']))

    def test_a_consumer_removed_by_the_fix_and_back_is_refused(self):
        self.audit('--fix', '--undo-file', self.undo)
        # After the fix, the orphan's UUID holds something again: a new
        # consumer, at the generation it had when the undo was saved.
        with open(self.undo) as f:
            saved = json.load(f)['consumers'][A.X_ORPHAN]
        A.tests.allocate(self, A.X_ORPHAN, {A.CN1: {'VCPU': 3}},
                         project=A.PROJECT, user=A.USER)
        now = self.api('GET', '/allocations/' + A.X_ORPHAN, version='1.38')
        self.assertEqual(saved['consumer_generation'],
                         now['consumer_generation'])
        after = self.allocations()
        out, err, code = self.restore()
        self.assertEqual(1, code, err)
        self.assertEqual(
            ['Consumer %s changed since the save (it holds other '
             'allocations than the write the file undoes left): not '
             'restored; --force writes the saved allocations over its '
             'current ones (with its generation %d).'
             % (A.X_ORPHAN, now['consumer_generation']),
             'Refused 1 of 7 consumers to restore, changed since the '
             'save; nothing was written.'], err.splitlines())
        self.assertEqual(after, self.allocations())

    def test_a_signal_during_the_fix_says_what_was_written(self):
        sent = []

        def interrupt(method, url, kwargs):
            # Ctrl-C as the fix sends its allocations (the first POST).
            if not sent:
                sent.append(url)
                os.kill(os.getpid(), signal.SIGINT)

        self.before_request(interrupt, method='POST', url='/allocations')
        before = self.state()
        out, err, code = self.audit('--fix', '--undo-file', self.undo)
        self.assertEqual(130, code)
        self.assertEqual(
            ['Interrupted: the allocations were written; the aggregates '
             'of 0 of 2 resource providers were changed, the other 2 not; '
             'the undo file is %s.' % self.undo], err.splitlines())
        providers, _consumers = self.state()
        self.assertEqual({rp: before[0][rp][1] for rp in (A.CN1, A.CN2)},
                         {rp: providers[rp][1] for rp in (A.CN1, A.CN2)})
        # What was written is undone by the file named.
        out, err, code = self.restore()
        self.assertEqual((0, ''), (code, err))
        self.assertEqual(before[1].keys(), self.state()[1].keys())


class TestInterrupted(A.AuditTestCase):
    """Ctrl-C (or SIGTERM) in the audit: one ``Interrupted:`` line."""

    signum, code = signal.SIGINT, 130
    scenarios = [
        # A read of its own, then one of a batch (each provider's
        # allocations).
        ('provider list', {'url': '/resource_providers', 'said': (
            'Interrupted: the audit was reading; nothing was written, no '
            'rows printed.')}),
        ('provider list, SIGTERM', {
            'url': '/resource_providers', 'signum': signal.SIGTERM,
            'code': 143, 'said': (
                'Interrupted: the audit was reading; nothing was written, '
                'no rows printed.')}),
        ('traits', {'url': '/traits', 'said': (
            'Interrupted: the audit was reading; nothing was written, no '
            'rows printed.')}),
        ('allocations', {
            'url': '/resource_providers/%s/allocations' % A.CN1,
            'said': 'Interrupted: 1 of 4 resource providers read; the other '
                    '3 were not read; no rows printed.'}),
    ]

    def test_a_signal_during_the_reads_is_one_line_nothing_written(self):
        undo = os.path.join(self.dir, 'undo.json')

        def interrupt(method, url, kwargs):
            os.kill(os.getpid(), self.signum)

        self.before_request(interrupt, method='GET', url=self.url)
        before = self.state()
        out, err, code = self.openstack(*(A.AUDIT + (
            '--fix', '--undo-file', undo)), version=A.VERSION)
        self.assertEqual(('', self.code), (out, code))
        self.assertEqual([self.said], err.splitlines())
        self.assertFalse(os.path.lexists(undo))
        self.assertEqual(before, self.state())


class TestInterruptedFix(A.AuditTestCase):

    def test_a_signal_while_the_undo_file_is_written_stops_before_writes(
            self):
        undo = os.path.join(self.dir, 'undo.json')
        real = savefile.write

        def write(name, text, *args, **kwargs):
            os.kill(os.getpid(), signal.SIGINT)
            return real(name, text, *args, **kwargs)

        self.useFixture(fixtures.MonkeyPatch(
            'osc_placement.model.savefile.write', write))
        before = self.state()
        out, err, code = self.openstack(*(A.AUDIT + (
            '--fix', '--undo-file', undo)), version=A.VERSION)
        self.assertEqual(130, code)
        self.assertEqual(
            ['Interrupted: the allocations were not written; the aggregates '
             'of 0 of 2 resource providers were changed, the other 2 not; '
             'the undo file is %s.' % undo], err.splitlines())
        self.assertEqual(before, self.state())
        # The undo file is whole: a plain restore finds nothing to do.
        out, err, code = self.openstack(
            *(RESTORE + ('--file', undo)), version=A.VERSION)
        self.assertEqual((0, 'Nothing to restore: every consumer of the '
                             'file (7) holds what it says.\n'), (code, err))

    def test_a_signal_between_the_aggregates_leaves_the_undo_of_those_done(
            self):
        undo = os.path.join(self.dir, 'undo.json')
        before = self.state()[0]
        puts = []

        def interrupt(method, url, kwargs):
            # Ctrl-C as the first provider's aggregates are written.
            if url.endswith('/aggregates'):
                puts.append(url)
                if len(puts) == 1:
                    os.kill(os.getpid(), signal.SIGINT)

        self.before_request(interrupt, method='PUT')
        out, err, code = self.openstack(*(A.AUDIT + (
            '--fix', '--undo-file', undo)), version=A.VERSION)
        self.assertEqual(130, code)
        self.assertEqual(
            ['Interrupted: the allocations were written; the aggregates '
             'of 1 of 2 resource providers were changed, the other 1 not; '
             'the undo file is %s.' % undo], err.splitlines())
        after = self.state()[0]
        self.assertNotEqual(before[A.CN1][1], after[A.CN1][1])
        self.assertEqual(before[A.CN2][1], after[A.CN2][1])
        with open(undo + '.aggregates') as f:
            text = f.read()
        commands = [line.split() for line in text.splitlines()
                    if line.startswith('openstack ')]
        # cn1's command, with its generation; cn2 has nothing to undo.
        self.assertEqual([A.CN1], [words[-1] for words in commands])
        self.assertIn('# cn2\n# (its aggregates were not changed by the '
                      'fix: nothing to undo)\n', text)
        self.assertNotIn('<generation>', text)
        words = commands[0]
        version = words[words.index('--os-placement-api-version') + 1]
        out, err, code = self.openstack(*[w for w in words[1:] if w not in (
            '--os-placement-api-version', version)], version=version)
        self.assertEqual((0, ''), (code, err))
        self.assertEqual(before[A.CN1][1], self.state()[0][A.CN1][1])

    def test_an_undo_it_cannot_write_whole_writes_nothing(self):
        undo = os.path.join(self.dir, 'undo.json')
        real = savefile.write

        def write(name, text, *args, **kwargs):
            if name.endswith('.aggregates'):
                raise savefile.FileError(
                    '%s: cannot write it: No space left on device.' % name)
            return real(name, text, *args, **kwargs)

        self.useFixture(fixtures.MonkeyPatch(
            'osc_placement.model.savefile.write', write))
        before = self.state()
        out, err, code = self.openstack(*(A.AUDIT + (
            '--fix', '--undo-file', undo)), version=A.VERSION)
        self.assertEqual(
            (1, ['--undo-file %s.aggregates: cannot write it: No space left '
                 'on device; nothing was written.' % undo]),
            (code, err.splitlines()))
        self.assertEqual(before, self.state())
        # No half undo left: the same path can be given again.
        self.assertEqual([], os.listdir(self.dir))
