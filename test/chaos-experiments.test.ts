// The example experiments (experiments/*.yaml) run with `ksim chaos run`
// against `ksim up --speed 20`, as a user runs them: each must exit 0 with a
// JSON report whose checks and invariants all held and a self-contained
// HTML report; the broken variant must exit 1 with a report that names the
// violated invariant and when. One cluster serves the experiments here
// (each uses its own Deployment); node-partition with apiserver-kill-under-load
// (chaos-experiment-partition.test.ts) and controller-manager-failover
// (chaos-experiment-failover.test.ts, two controller-managers) have their own,
// to keep each file inside its bound.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startCluster, tempDir, type Cluster } from './helpers/index.ts';
import { EXPERIMENT_TIMEOUT_MS, SPEED, assertHtml, assertPassed, faultsOf, runExperiment } from './helpers/experiments.ts';

test('an invalid experiment file exits 2 and names the field', async () => {
  const dir = await tempDir('experiment-invalid');
  const file = join(dir, 'bad.yaml');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(
    file,
    'apiVersion: ksim.dev/v1alpha1\nkind: Experiment\nmetadata: { name: bad }\nspec:\n  steps:\n    - wait: 1s\n    - wait: 1s\n    - fault: { action: kil, target: scheduler }\n',
  );
  const r = await runExperiment(file, dir);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /spec\.steps\[2\]\.fault\.action: unknown action "kil"/);
});

describe('on one cluster (ksim up --nodes 3 --speed 20)', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster({ nodes: 3, speed: SPEED });
  });
  after(() => c?.stop());

  test('scheduler-crash: new Pods stay Pending until the scheduler is started', { timeout: EXPERIMENT_TIMEOUT_MS }, async () => {
    const report = assertPassed(await runExperiment('experiments/scheduler-crash.yaml', c.dataDir));
    assert.equal(faultsOf(report, 'kill')[0]?.request.target, 'scheduler');
    assert.ok(faultsOf(report, 'kill')[0]?.faultId, 'a kill is a lasting fault');
    const running = report.checks.find((x) => x.name === 'late-pods-running')!;
    assert.ok(running.timeToRecoveryMs !== undefined && running.timeToRecoveryMs > 0, 'a time to recovery from the start');
    assert.ok(
      report.events.some((e) => e.type === 'reaction' && e.name === 'Scheduled'),
      'the scheduler reacted',
    );
  });

  test(
    'watch-storm: every watch dropped three times during a rollout; it finishes within its surge',
    { timeout: EXPERIMENT_TIMEOUT_MS },
    async () => {
      const report = assertPassed(await runExperiment('experiments/watch-storm.yaml', c.dataDir));
      assert.ok(faultsOf(report, 'apiserver').length >= 3, 'three drops of every watch');
    },
  );

  test(
    'clock-skew: a controller-manager 30 s ahead keeps every node Ready and keeps scaling',
    { timeout: EXPERIMENT_TIMEOUT_MS },
    async () => {
      const report = assertPassed(await runExperiment('experiments/clock-skew.yaml', c.dataDir));
      assert.equal(faultsOf(report, 'skew')[0]?.request.target, 'controller-manager');
    },
  );

  test(
    'broken/watch-storm-no-surge: the wrong invariant fails, and the report says which and when',
    { timeout: EXPERIMENT_TIMEOUT_MS },
    async () => {
      const r = await runExperiment('experiments/broken/watch-storm-no-surge.yaml', c.dataDir);
      assert.equal(r.code, 1, `${r.stdout}\n${r.stderr}`);
      const report = r.report!;
      assert.equal(report.verdict, 'failed');
      const inv = report.invariants.find((i) => i.name === 'web-never-surges')!;
      assert.equal(inv.held, false);
      assert.ok(inv.violations.length > 0 && inv.violations[0].at > 0);
      assert.match(inv.violations[0].object ?? '', /^Pod default\/wsb-web-/);
      assert.match(r.stdout, /web-never-surges\s+Invariant maxPods\s+VIOLATED at [\d.]+m?s/);
      assert.match(r.stdout, /verdict: FAILED/);
      assert.ok(report.events.some((e) => e.type === 'invariant-violated' && e.name === 'web-never-surges'));
      assertHtml(r, report);
      assert.ok(r.html!.includes('web-never-surges (invariant)'), 'the timeline has its lane');
    },
  );
});
