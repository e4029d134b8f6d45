// Experiment files: every example in experiments/ loads; mistakes are
// reported with the path of the field; --speed divides fault durations and
// waits only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExperimentError, loadExperiment } from './validate.ts';
import { podLimit, resolveMaxSurge } from './invariants/max-pods.ts';
import { viewDiff } from './invariants/watch-consistent.ts';
import { parseDuration } from './duration.ts';

const root = join(import.meta.dirname, '../../../experiments');
const BASE = `apiVersion: ksim.dev/v1alpha1
kind: Experiment
metadata: { name: t }
spec:
`;

function errorsOf(text: string): string[] {
  try {
    loadExperiment(text);
  } catch (err) {
    if (err instanceof ExperimentError) return err.errors;
    throw err;
  }
  assert.fail('expected the file to be refused');
}

test('every example experiment loads', () => {
  const files = [...readdirSync(root).map((f) => join(root, f)), ...readdirSync(join(root, 'broken')).map((f) => join(root, 'broken', f))];
  const yamls = files.filter((f) => f.endsWith('.yaml'));
  assert.ok(yamls.length >= 7, yamls.join());
  for (const f of yamls) assert.doesNotThrow(() => loadExperiment(readFileSync(f, 'utf8'), { speed: 20 }), f);
});

test('targets are checked as ksim chaos checks them', () => {
  const errors = errorsOf(
    BASE +
      `  steps:
    - fault: { action: kill, target: schedular }
    - fault: { action: partition, target: node/Node_1 }
    - fault: { action: kill-pod, target: pod/default }
    - fault: { action: kill, target: scheduler-2 }
    - fault: { action: kill, target: node/node-1 }
    - fault: { action: delete-pod, target: pod/prod/web-1 }
`,
  );
  assert.deepEqual(errors, [
    'spec.steps[0].fault.target: unknown component "schedular"',
    'spec.steps[1].fault.target: must be node/NAME, not "node/Node_1"',
    'spec.steps[2].fault.target: must be pod/NAMESPACE/NAME, not "pod/default"',
  ]);
});

test('errors name the field path', () => {
  const errors = errorsOf(
    BASE +
      `  steps:
    - wait: 1s
    - wait: 2s
    - fault: { action: kil, target: scheduler }
    - parallel:
        - fault: { action: kill }
        - wait: soon
  checks:
    - { name: a, mode: Sometimes, condition: { resource: pods, expr: "size(objects) ==" } }
  invariants:
    - { name: s, maxPods: { deployment: web, maxSurge: lots } }
`,
  );
  assert.ok(
    errors.some((e) => e.startsWith('spec.steps[2].fault.action: unknown action "kil"')),
    errors.join('\n'),
  );
  assert.ok(
    errors.includes(
      'spec.steps[3].parallel[0].fault.target: required for kill (apiserver, controller-manager, scheduler, node/NAME, leader/controller-manager, ...)',
    ),
    errors.join('\n'),
  );
  assert.ok(
    errors.some((e) => e.startsWith('spec.steps[3].parallel[1].wait: invalid duration "soon"')),
    errors.join('\n'),
  );
  assert.ok(
    errors.some((e) => e.startsWith('spec.checks[0].mode: unknown mode "Sometimes"')),
    errors.join('\n'),
  );
  assert.ok(
    errors.some((e) => e.startsWith('spec.checks[0].condition.expr: compilation failed: ERROR: <input>:1:17')),
    errors.join('\n'),
  );
  assert.ok(
    errors.some((e) => e.startsWith('spec.invariants[0].maxPods.maxSurge: must be a whole number or a percent')),
    errors.join('\n'),
  );
});

test('unknown fields, a wrong kind and a second document are refused', () => {
  assert.deepEqual(errorsOf(BASE + '  stepz: []\n'), [
    'spec.stepz: unknown field (expected one of seed, timeout, requires, objects, invariants, checks, steps)',
  ]);
  assert.ok(errorsOf(BASE.replace('kind: Experiment', 'kind: Workflow')).includes('kind: must be Experiment, not "Workflow"'));
  assert.deepEqual(errorsOf(BASE + '  seed: 1\n---\nkind: Experiment\n'), ['the file must hold one YAML document, not 2']);
  assert.ok(
    errorsOf(BASE + '  objects: [{ apiVersion: v1, kind: Pod, metadata: {} }]\n').includes('spec.objects[0].metadata.name: required'),
  );
});

test('--speed divides fault durations and waits, not deadlines', () => {
  const exp = loadExperiment(
    BASE +
      `  steps:
    - { fault: { action: partition, target: node/node-1 }, duration: 300s }
    - wait: 40s
    - check: { name: c, within: 10s, condition: { resource: nodes, name: node-1, expr: "object != null" } }
`,
    { speed: 20 },
  );
  assert.deepEqual(
    exp.steps.map((s) => (s.kind === 'fault' ? s.durationMs : s.kind === 'wait' ? s.waitMs : s.kind === 'check' ? s.check.withinMs : 0)),
    [15_000, 2000, 10_000],
  );
});

test('durations', () => {
  assert.equal(parseDuration('1m30s'), 90_000);
  assert.equal(parseDuration('250ms'), 250);
  assert.equal(parseDuration('+30s', true), 30_000);
  assert.equal(parseDuration('-5s', true), -5000);
  assert.equal(parseDuration('-5s'), undefined);
  assert.equal(parseDuration('5'), undefined);
});

test('maxSurge as kube resolves it: a percent rounds up, 25% by default, none for Recreate', () => {
  assert.equal(resolveMaxSurge(undefined, 4), 1);
  assert.equal(resolveMaxSurge(undefined, 1), 1);
  assert.equal(resolveMaxSurge('10%', 3), 1);
  assert.equal(resolveMaxSurge('50%', 5), 3);
  assert.equal(resolveMaxSurge(2, 5), 2);
  assert.equal(podLimit({ spec: { replicas: 4, selector: {}, template: {} } }), 5);
  assert.equal(podLimit({ spec: { replicas: 4, selector: {}, template: {}, strategy: { type: 'Recreate' } } }), 4);
  assert.equal(podLimit({ spec: { replicas: 4, selector: {}, template: {} } }, 0), 4);
});

test("a watcher's view against a fresh list", () => {
  const a = new Map([
    ['default/a', '1'],
    ['default/b', '2'],
  ]);
  assert.deepEqual(viewDiff(a, new Map(a)), []);
  assert.deepEqual(
    viewDiff(
      a,
      new Map([
        ['default/a', '3'],
        ['default/c', '4'],
      ]),
    ),
    [
      'default/a: watcher has resourceVersion 1, the list 3',
      'default/b: the watcher still has it; the list does not',
      'default/c: missing from the watcher',
    ],
  );
});
