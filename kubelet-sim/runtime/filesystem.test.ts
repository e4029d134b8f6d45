// The volume store: a claim's data follows its PersistentVolume from Pod to
// Pod, hostPath data stays on its node, emptyDir is per Pod.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume, PersistentVolumeClaim, Pod, Volume as PodVolume } from 'kubernetes-types/core/v1.js';
import { NodeVolumes, SimFs, VolumeStore, type ClaimLookup } from './filesystem.ts';

const claims: Record<string, PersistentVolumeClaim> = {
  data: { metadata: { name: 'data', namespace: 'ns' }, spec: { volumeName: 'pv-net' }, status: { phase: 'Bound' } },
  local: { metadata: { name: 'local', namespace: 'ns' }, spec: { volumeName: 'pv-local' }, status: { phase: 'Bound' } },
  pending: { metadata: { name: 'pending', namespace: 'ns' }, spec: {}, status: { phase: 'Pending' } },
};
const volumes: Record<string, PersistentVolume> = {
  'pv-net': { metadata: { name: 'pv-net' }, spec: { nfs: { server: 's', path: '/x' } } },
  'pv-local': { metadata: { name: 'pv-local' }, spec: { hostPath: { path: '/var/local-path-provisioner/pv-local' } } },
};
const lookup: ClaimLookup = { claim: (_ns, n) => claims[n], volume: (n) => volumes[n] };
const pod = (name: string, volumes: PodVolume[]): Pod => ({
  metadata: { name, namespace: 'ns' },
  spec: { containers: [], volumes },
});

/** Writes `text` to /data/f in a fresh Pod's filesystem and returns what a second Pod reads there. */
function writeThenRead(store: VolumeStore, first: [string, Pod], second: [string, Pod]): string | undefined {
  const mount = (node: string, p: Pod) => {
    const fs = new SimFs();
    const r = new NodeVolumes(store, node, lookup).resolve(p, p.spec!.volumes![0]);
    assert.ok(r && 'volume' in r);
    fs.mount('/data', r.volume);
    return fs;
  };
  assert.equal(mount(first[0], first[1]).write('/data/f', 'hi\n'), undefined);
  return mount(second[0], second[1]).read('/data/f');
}

describe('VolumeStore', () => {
  const claimVol = (claimName: string) => [{ name: 'd', persistentVolumeClaim: { claimName } }];
  it("a claim's data is seen by the next Pod", () => {
    assert.equal(writeThenRead(new VolumeStore(), ['n1', pod('a', claimVol('data'))], ['n1', pod('b', claimVol('data'))]), 'hi\n');
  });
  it('network storage follows the PV to another node; a local PV stays on its node', () => {
    assert.equal(writeThenRead(new VolumeStore(), ['n1', pod('a', claimVol('data'))], ['n2', pod('b', claimVol('data'))]), 'hi\n');
    assert.equal(writeThenRead(new VolumeStore(), ['n1', pod('a', claimVol('local'))], ['n2', pod('b', claimVol('local'))]), undefined);
    assert.equal(writeThenRead(new VolumeStore(), ['n1', pod('a', claimVol('local'))], ['n1', pod('b', claimVol('local'))]), 'hi\n');
  });
  it('hostPath is per node', () => {
    const hp = [{ name: 'd', hostPath: { path: '/srv/x/' } }];
    const hp2 = [{ name: 'd', hostPath: { path: '/srv/x' } }];
    assert.equal(writeThenRead(new VolumeStore(), ['n1', pod('a', hp)], ['n1', pod('b', hp2)]), 'hi\n');
    assert.equal(writeThenRead(new VolumeStore(), ['n1', pod('a', hp)], ['n2', pod('b', hp)]), undefined);
  });
  it('an unbound or missing claim waits; emptyDir is the worker’s own', () => {
    const nv = new NodeVolumes(new VolumeStore(), 'n1', lookup);
    const p = pod('a', [{ name: 'd', persistentVolumeClaim: { claimName: 'pending' } }]);
    assert.deepEqual(nv.resolve(p, p.spec!.volumes![0]), { wait: 'PersistentVolumeClaim "pending" is not bound' });
    const q = pod('a', [{ name: 'd', persistentVolumeClaim: { claimName: 'nope' } }]);
    assert.deepEqual(nv.resolve(q, q.spec!.volumes![0]), { wait: 'persistentvolumeclaim "nope" not found' });
    const e = pod('a', [{ name: 'd', emptyDir: {} }]);
    assert.equal(nv.resolve(e, e.spec!.volumes![0]), undefined);
  });
  it('a data volume ignores a projection refresh; release forgets a PV', () => {
    const store = new VolumeStore();
    const v = store.persistent('pv1');
    v.files.set('f', 'x');
    v.replace({});
    assert.equal(store.persistent('pv1').files.get('f'), 'x');
    store.release({ metadata: { name: 'pv1' } });
    assert.equal(store.persistent('pv1').files.size, 0);
    const dir = '/var/local-path-provisioner/pvc-1_ns_data';
    store.hostPath('n1', dir).files.set('f', 'x');
    store.release({
      metadata: { name: 'pvc-1', annotations: { 'local.path.provisioner/selected-node': 'n1' } },
      spec: { hostPath: { path: dir } },
    });
    assert.equal(store.hostPath('n1', dir).files.size, 0);
  });
});
