import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evictionDelay, reconcileTaints, staleConditions } from './plan.ts';
import type { Pod, Taint, Toleration } from 'kubernetes-types/core/v1.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const node = (ready: string, taints: Taint[] = []) => ({
  metadata: { name: 'n1' },
  spec: { taints },
  status: { conditions: [{ type: 'Ready', status: ready, lastHeartbeatTime: iso(NOW - 5000) }] },
});
const lease = (agoMs: number) => ({ spec: { renewTime: new Date(NOW - agoMs).toISOString() } });

test('a node silent for longer than the grace period goes Unknown', () => {
  assert.equal(staleConditions(node('True'), lease(10_000), NOW, 50_000), undefined);
  const c = staleConditions(node('True'), lease(60_000), NOW, 50_000)!;
  assert.deepEqual(
    c.map((x) => `${x.type}=${x.status}`),
    ['Ready=Unknown', 'MemoryPressure=Unknown', 'DiskPressure=Unknown', 'PIDPressure=Unknown'],
  );
  assert.equal(c[0].reason, 'NodeStatusUnknown');
  assert.equal(c[0].message, 'Kubelet stopped posting node status.');
  assert.equal(staleConditions({ status: { conditions: c } }, lease(70_000), NOW, 50_000), undefined, 'already Unknown: no write');
});

test('taints follow readiness and keep their timeAdded', () => {
  const unknown = reconcileTaints(node('Unknown'), NOW)!;
  assert.deepEqual(
    unknown.map((t) => `${t.key}:${t.effect}`),
    ['node.kubernetes.io/unreachable:NoSchedule', 'node.kubernetes.io/unreachable:NoExecute'],
  );
  assert.equal(unknown[1].timeAdded, iso(NOW));
  assert.equal(reconcileTaints(node('Unknown', unknown), NOW + 5000), undefined);
  assert.deepEqual(reconcileTaints(node('True', [...unknown, { key: 'mine', effect: 'NoSchedule' }]), NOW), [
    { key: 'mine', effect: 'NoSchedule' },
  ]);
  assert.deepEqual(
    reconcileTaints(node('False'), NOW)!.map((t) => t.key),
    ['node.kubernetes.io/not-ready', 'node.kubernetes.io/not-ready'],
  );
});

test('NoExecute: untolerated goes at once, tolerationSeconds counts from timeAdded and divides by speed', () => {
  const taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: iso(NOW - 100_000) };
  const pod = (tolerations: Toleration[]): Pod => ({ spec: { containers: [], tolerations } });
  const t300 = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
  assert.equal(evictionDelay(pod([]), [taint], NOW, 1), 0);
  assert.equal(evictionDelay(pod([t300]), [taint], NOW, 1), 200_000);
  assert.equal(evictionDelay(pod([t300]), [taint], NOW, 10), 0, '30 s at speed 10 have passed');
  assert.equal(evictionDelay(pod([{ operator: 'Exists' }]), [taint], NOW, 1), undefined);
  assert.equal(evictionDelay(pod([]), [{ key: 'x', effect: 'NoSchedule' }], NOW, 1), undefined);
});
