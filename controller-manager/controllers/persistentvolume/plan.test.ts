import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { findMatchingVolume } from '../../../shared/storage/volume-matching.ts';
import { claimInUse, planClaim, planVolume, type ClaimWorld } from './plan.ts';

const claim = (spec: Partial<PersistentVolumeClaim['spec']> = {}, annotations: Record<string, string> = {}): PersistentVolumeClaim => ({
  metadata: { name: 'data', namespace: 'ns', uid: 'u1', resourceVersion: '5', annotations },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
  status: { phase: 'Pending' },
});
const pv = (
  name: string,
  size: string,
  extra: Partial<PersistentVolume['spec']> = {},
  labels?: Record<string, string>,
): PersistentVolume => ({
  metadata: { name, labels },
  spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: size }, hostPath: { path: `/d/${name}` }, ...extra },
  status: { phase: 'Available' },
});
const sc = (name: string, provisioner: string, mode = 'WaitForFirstConsumer'): StorageClass => ({
  metadata: { name },
  provisioner,
  volumeBindingMode: mode,
  reclaimPolicy: 'Delete',
});
const node = (name: string): Node => ({ metadata: { name, labels: { 'kubernetes.io/hostname': name } } });
const world = (w: Partial<ClaimWorld>): ClaimWorld => ({ volumes: [], classes: new Map(), pods: [], nodes: new Map(), ...w });

describe('findMatchingVolume', () => {
  const cases: [string, PersistentVolumeClaim, PersistentVolume[], string | undefined][] = [
    ['smallest that fits', claim(), [pv('big', '10Gi'), pv('small', '2Gi'), pv('tiny', '500Mi')], 'small'],
    ['access modes must be covered', claim({ accessModes: ['ReadWriteMany'] }), [pv('a', '2Gi')], undefined],
    ['class must match', claim({ storageClassName: 'fast' }), [pv('a', '2Gi'), pv('b', '2Gi', { storageClassName: 'fast' })], 'b'],
    ['selector', claim({ selector: { matchLabels: { tier: 'db' } } }), [pv('a', '1Gi'), pv('b', '5Gi', {}, { tier: 'db' })], 'b'],
    ['claimed volumes are skipped', claim(), [pv('a', '1Gi', { claimRef: { name: 'other', namespace: 'ns', uid: 'x' } })], undefined],
    ['pre-bound wins', claim(), [pv('a', '1Gi'), pv('b', '9Gi', { claimRef: { name: 'data', namespace: 'ns' } })], 'b'],
    ['block mode differs', claim({ volumeMode: 'Block' }), [pv('a', '1Gi')], undefined],
  ];
  for (const [name, c, vols, want] of cases) it(name, () => assert.equal(findMatchingVolume(c, vols)?.metadata?.name, want));
});

describe('planClaim', () => {
  it('no class and no volume: FailedBinding', () => {
    const a = planClaim(claim({ storageClassName: '' }), world({}));
    assert.deepEqual(a, {
      op: 'none',
      event: {
        type: 'Normal',
        reason: 'FailedBinding',
        message: 'no persistent volumes available for this claim and no storage class is set',
      },
    });
  });
  it('WaitForFirstConsumer without a consumer waits', () => {
    const a = planClaim(
      claim({ storageClassName: 'standard' }),
      world({ classes: new Map([['standard', sc('standard', 'rancher.io/local-path')]]) }),
    );
    assert.equal(a.op, 'none');
    assert.equal(a.op === 'none' && a.event?.message, 'waiting for first consumer to be created before binding');
  });
  it('a scheduled consumer selects its node', () => {
    const pod: Pod = {
      metadata: { name: 'p', namespace: 'ns' },
      spec: { nodeName: 'n2', containers: [], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] },
    };
    const a = planClaim(
      claim({ storageClassName: 'standard' }),
      world({ classes: new Map([['standard', sc('standard', 'rancher.io/local-path')]]), pods: [pod] }),
    );
    assert.deepEqual(a, { op: 'selectNode', node: 'n2' });
  });
  it('a selected node provisions a local-path volume pinned to it', () => {
    const a = planClaim(
      claim({ storageClassName: 'standard' }, { 'volume.kubernetes.io/selected-node': 'n2' }),
      world({ classes: new Map([['standard', sc('standard', 'rancher.io/local-path')]]), nodes: new Map([['n2', node('n2')]]) }),
    );
    assert.equal(a.op, 'provision');
    if (a.op !== 'provision') return;
    assert.equal(a.volume.metadata?.name, 'pvc-u1');
    assert.equal(a.volume.spec?.persistentVolumeReclaimPolicy, 'Delete');
    assert.equal(a.volume.spec?.hostPath?.path, '/var/local-path-provisioner/pvc-u1_ns_data');
    assert.deepEqual(a.volume.spec?.nodeAffinity?.required?.nodeSelectorTerms?.[0].matchExpressions?.[0].values, ['n2']);
    assert.equal(a.volume.spec?.claimRef?.uid, 'u1');
    assert.deepEqual(
      a.events.map((e) => e.reason),
      ['Provisioning', 'ProvisioningSucceeded'],
    );
  });
  it('a selected node prefers a static volume reachable from it', () => {
    const pinned = pv('local-n1', '5Gi', {
      storageClassName: 'standard',
      nodeAffinity: {
        required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1'] }] }] },
      },
    });
    const w = world({
      classes: new Map([['standard', sc('standard', 'rancher.io/local-path')]]),
      volumes: [pinned],
      nodes: new Map([
        ['n1', node('n1')],
        ['n2', node('n2')],
      ]),
    });
    assert.equal(planClaim(claim({ storageClassName: 'standard' }, { 'volume.kubernetes.io/selected-node': 'n2' }), w).op, 'provision');
    const a = planClaim(claim({ storageClassName: 'standard' }, { 'volume.kubernetes.io/selected-node': 'n1' }), w);
    assert.equal(a.op === 'bind' && a.volume.metadata?.name, 'local-n1');
  });
  it('an external provisioner is waited for', () => {
    const a = planClaim(
      claim({ storageClassName: 'ebs' }),
      world({ classes: new Map([['ebs', sc('ebs', 'ebs.csi.aws.com', 'Immediate')]]) }),
    );
    assert.equal(a.op === 'none' && a.event?.reason, 'ExternalProvisioning');
  });
  it('a bound claim whose volume is gone is Lost', () => {
    const c = { ...claim({ volumeName: 'gone' }, { 'pv.kubernetes.io/bind-completed': 'yes' }), status: { phase: 'Bound' } };
    const a = planClaim(c, world({}));
    assert.equal(a.op === 'phase' && a.phase, 'Lost');
  });
  it('a named volume bound elsewhere fails', () => {
    const a = planClaim(
      claim({ volumeName: 'a' }),
      world({ volumes: [pv('a', '1Gi', { claimRef: { name: 'x', namespace: 'ns', uid: 'z' } })] }),
    );
    assert.equal(a.op === 'none' && a.event?.message, 'volume "a" already bound to a different claim.');
  });
});

describe('planVolume', () => {
  const bound = (policy: string, annotations?: Record<string, string>, phase = 'Bound'): PersistentVolume => ({
    metadata: { name: 'v', annotations },
    spec: { persistentVolumeReclaimPolicy: policy, claimRef: { name: 'data', namespace: 'ns', uid: 'u1' } },
    status: { phase },
  });
  const live = claim({ volumeName: 'v' });
  const cases: [string, PersistentVolume, PersistentVolumeClaim | undefined, unknown][] = [
    [
      'unclaimed is Available',
      { metadata: { name: 'v' }, spec: {}, status: { phase: 'Pending' } },
      undefined,
      { op: 'phase', phase: 'Available' },
    ],
    ['bound stays', bound('Retain'), live, { op: 'none' }],
    ['claim gone: Released', bound('Retain'), undefined, { op: 'phase', phase: 'Released' }],
    ['Released + Retain stays', bound('Retain', undefined, 'Released'), undefined, { op: 'none' }],
    [
      'Released + Delete of local-path: deleted',
      bound('Delete', { 'pv.kubernetes.io/provisioned-by': 'rancher.io/local-path' }, 'Released'),
      undefined,
      { op: 'delete' },
    ],
  ];
  for (const [name, v, c, want] of cases) it(name, () => assert.deepEqual(planVolume(v, c), want));
  it('Released + Delete without a deleter fails', () => {
    const a = planVolume(bound('Delete', undefined, 'Released'), undefined);
    assert.equal(a.op === 'phase' && a.event?.reason, 'VolumeFailedDelete');
  });
});

describe('claimInUse', () => {
  const pod = (phase: string): Pod => ({
    metadata: { name: 'p' },
    spec: { containers: [], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] },
    status: { phase },
  });
  it('a running pod uses it, a finished one does not', () => {
    assert.equal(claimInUse(claim(), [pod('Running')]), true);
    assert.equal(claimInUse(claim(), [pod('Succeeded')]), false);
  });
});
