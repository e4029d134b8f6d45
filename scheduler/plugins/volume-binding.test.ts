// VolumeBinding: missing and immediate claims, bound volumes' node affinity,
// delayed claims with static volumes or a provisioner, ReadWriteOncePod, and
// PreBind's selected-node.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { ClusterCache } from '../cache.ts';
import { CycleState } from '../framework/types.ts';
import { podInfo } from '../pod-info.ts';
import { makeNode } from '../testing/fixtures.ts';
import { ERR, volumeBinding, type VolumeLister } from './volume-binding.ts';

const pinned = (node: string) => ({
  required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] },
});
const claim = (name: string, o: { cls?: string; volume?: string; modes?: string[] } = {}): PersistentVolumeClaim => ({
  metadata: { name, namespace: 'ns', uid: `uid-${name}` },
  spec: {
    accessModes: o.modes ?? ['ReadWriteOnce'],
    resources: { requests: { storage: '1Gi' } },
    storageClassName: o.cls ?? 'standard',
    volumeName: o.volume,
  },
});
const volume = (name: string, node?: string, cls = 'standard'): PersistentVolume => ({
  metadata: { name },
  spec: {
    accessModes: ['ReadWriteOnce'],
    capacity: { storage: '5Gi' },
    storageClassName: cls,
    nodeAffinity: node ? pinned(node) : undefined,
  },
  status: { phase: 'Available' },
});
const classes: StorageClass[] = [
  { metadata: { name: 'standard' }, provisioner: 'rancher.io/local-path', volumeBindingMode: 'WaitForFirstConsumer' },
  { metadata: { name: 'manual' }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer' },
  { metadata: { name: 'fast' }, provisioner: 'x.io/fast', volumeBindingMode: 'Immediate' },
];
const pod = (name: string, ...claims: string[]): Pod => ({
  metadata: { name, namespace: 'ns', uid: `uid-${name}` },
  spec: { containers: [{ name: 'c' }], volumes: claims.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } })) },
});

function setup(claims: PersistentVolumeClaim[], volumes: PersistentVolume[], running: [Pod, string][] = []) {
  const cache = new ClusterCache();
  for (const n of ['n1', 'n2']) cache.addOrUpdateNode(makeNode(n, { labels: { 'kubernetes.io/hostname': n } }));
  for (const [p, n] of running) cache.addOrUpdatePod({ ...p, spec: { ...p.spec!, nodeName: n }, status: { phase: 'Running' } });
  const selected: [string, string][] = [];
  const lister: VolumeLister = {
    claim: (ns, n) => claims.find((c) => c.metadata?.namespace === ns && c.metadata?.name === n),
    volume: (n) => volumes.find((v) => v.metadata?.name === n),
    volumes: () => volumes,
    storageClass: (n) => classes.find((c) => c.metadata?.name === n),
    selectNode: (c, n) => {
      selected.push([c.metadata!.name!, n]);
      // The binder binds it a moment later.
      setTimeout(() => {
        c.spec!.volumeName = `pvc-${c.metadata!.uid}`;
        c.metadata!.annotations = { 'pv.kubernetes.io/bind-completed': 'yes' };
      }, 20);
      return Promise.resolve();
    },
  };
  const plugin = volumeBinding(
    { cache, volumes: lister, namespaceLabels: () => undefined, defaultSelectorsFor: () => [] },
    { bindTimeoutSeconds: 1 },
  );
  /** The nodes the pod fits, or the PreFilter / first Filter reasons. */
  const run = (p: Pod) => {
    const state = new CycleState(p, podInfo(p));
    const pre = plugin.preFilter!(state, p);
    if (pre && pre.code !== 'Skip') return { pre: pre.reasons, fits: [] as string[], state, reasons: [] as string[] };
    const fits: string[] = [];
    const reasons: string[] = [];
    for (const n of cache.nodeList()) {
      const s = pre ? null : plugin.filter!(state, p, n);
      if (s) reasons.push(...s.reasons);
      else fits.push(n.name);
    }
    return { pre: undefined, fits: fits.sort(), state, reasons };
  };
  return { run, plugin, selected };
}

describe('VolumeBinding', () => {
  it('a pod without claims skips the plugin', () => assert.deepEqual(setup([], []).run(pod('p')).fits, ['n1', 'n2']));
  it('a missing claim', () => assert.deepEqual(setup([], []).run(pod('p', 'data')).pre, ['persistentvolumeclaim "data" not found']));
  it('an unbound immediate claim', () =>
    assert.deepEqual(setup([claim('data', { cls: 'fast' })], []).run(pod('p', 'data')).pre, [ERR.unboundImmediate]));
  it("a bound volume's node affinity picks the node", () => {
    const r = setup([claim('data', { volume: 'pv1' })], [volume('pv1', 'n2')]).run(pod('p', 'data'));
    assert.deepEqual(r.fits, ['n2']);
    assert.deepEqual(r.reasons, [ERR.nodeConflict]);
  });
  it('a claim bound to a missing volume', () => {
    assert.deepEqual(setup([claim('data', { volume: 'gone' })], []).run(pod('p', 'data')).reasons, [ERR.pvNotExist, ERR.pvNotExist]);
  });
  it('a delayed claim provisions anywhere', () => assert.deepEqual(setup([claim('data')], []).run(pod('p', 'data')).fits, ['n1', 'n2']));
  it('a delayed claim without a provisioner goes where a static volume is', () => {
    const r = setup([claim('data', { cls: 'manual' })], [volume('local-1', 'n1', 'manual')]).run(pod('p', 'data'));
    assert.deepEqual(r.fits, ['n1']);
    assert.deepEqual(r.reasons, [ERR.bindConflict]);
  });
  it('ReadWriteOncePod in use by another pod', () => {
    const c = claim('data', { volume: 'pv1', modes: ['ReadWriteOncePod'] });
    const r = setup([c], [volume('pv1')], [[pod('other', 'data'), 'n1']]).run(pod('p', 'data'));
    assert.deepEqual(r.pre, [ERR.rwop]);
  });
  it('PreBind selects the node on delayed claims', async () => {
    const s = setup([claim('data'), claim('logs', { volume: 'pv1' })], [volume('pv1')]);
    const r = s.run(pod('p', 'data', 'logs'));
    await s.plugin.preBind(r.state, pod('p', 'data', 'logs'), 'n2');
    assert.deepEqual(s.selected, [['data', 'n2']]);
  });
  it('PreBind gives up when the claim is not bound in time', async () => {
    const c = claim('never');
    const lister: VolumeLister = {
      claim: () => c,
      volume: () => undefined,
      volumes: () => [],
      storageClass: (n) => classes.find((x) => x.metadata?.name === n),
      selectNode: () => Promise.resolve(),
    };
    const plugin = volumeBinding(
      { cache: new ClusterCache(), volumes: lister, namespaceLabels: () => undefined, defaultSelectorsFor: () => [] },
      { bindTimeoutSeconds: 0.2 },
    );
    const p = pod('p', 'never');
    const state = new CycleState(p, podInfo(p));
    assert.equal(plugin.preFilter!(state, p), null);
    await assert.rejects(plugin.preBind(state, p, 'n1'), /binding volumes: context deadline exceeded/);
  });
});
