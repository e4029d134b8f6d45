// experiments/controller-manager-failover.yaml with `ksim chaos run` on its
// own `ksim up --controller-managers 2 --speed 20`: the leader is killed, the
// standby takes the Lease and a scale-up made meanwhile converges.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, startCluster, tempDir, type Cluster } from './helpers/index.ts';
import { EXPERIMENT_TIMEOUT_MS, SPEED, assertPassed, faultsOf, runExperiment } from './helpers/experiments.ts';

describe('controller-manager-failover (ksim up --controller-managers 2 --speed 20)', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster({ nodes: 2, speed: SPEED, upArgs: ['--controller-managers', '2'] });
  });
  after(() => c?.stop());

  test('the leader killed: the standby takes the Lease and keeps scaling', { timeout: EXPERIMENT_TIMEOUT_MS }, async () => {
    const report = assertPassed(await runExperiment('experiments/controller-manager-failover.yaml', c.dataDir));
    assert.equal(faultsOf(report, 'kill')[0]?.request.target, 'leader/controller-manager');
  });

  test('asking for more controller-managers than the cluster runs is refused before any fault (spec.requires)', async () => {
    const dir = await tempDir('experiment-requires');
    const file = join(dir, 'three.yaml');
    writeFileSync(
      file,
      readFileSync(join(repoRoot, 'experiments/controller-manager-failover.yaml'), 'utf8').replace(
        'controllerManagers: 2',
        'controllerManagers: 3',
      ),
    );
    const r = await runExperiment(file, c.dataDir);
    assert.equal(r.code, 2, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /needs 3 controller-managers; the cluster runs 2 \(start it with ksim up --controller-managers 3\)/);
    assert.equal(r.report, undefined, 'no run, no report');
  });
});
