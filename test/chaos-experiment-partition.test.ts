// experiments/node-partition.yaml and apiserver-kill-under-load.yaml with
// `ksim chaos run` on their own `ksim up --nodes 3 --speed 20`: the node goes
// Unknown and tainted, its Pods are replaced elsewhere, and healing brings it
// back; kill -9 of the apiserver under a stream of writes loses none of them
// and every component carries on.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './helpers/index.ts';
import { EXPERIMENT_TIMEOUT_MS, SPEED, assertPassed, faultsOf, runExperiment } from './helpers/experiments.ts';

describe('node-partition and apiserver-kill-under-load (ksim up --nodes 3 --speed 20)', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster({ nodes: 3, speed: SPEED });
  });
  after(() => c?.stop());

  test('node-partition: Unknown, tainted, Pods replaced elsewhere; heal brings it back', { timeout: EXPERIMENT_TIMEOUT_MS }, async () => {
    const report = assertPassed(await runExperiment('experiments/node-partition.yaml', c.dataDir));
    assert.ok(report.events.some((e) => e.type === 'reaction' && e.name === 'NodeReady=Unknown' && e.object === 'Node node-1'));
  });

  test(
    'apiserver-kill-under-load: writes acknowledged before the kill survive it; the cluster carries on',
    { timeout: EXPERIMENT_TIMEOUT_MS },
    async () => {
      const report = assertPassed(await runExperiment('experiments/apiserver-kill-under-load.yaml', c.dataDir));
      assert.equal(faultsOf(report, 'kill')[0]?.request.target, 'apiserver');
    },
  );
});
