import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaulted, invalidMessage } from './testing.ts';

const pv = (spec: any, extra: any = {}) => ({ metadata: { name: 'pv1' }, spec, ...extra });
const pvc = (spec: any, extra: any = {}) => ({ metadata: { name: 'c', namespace: 'default' }, spec, ...extra });
const goodPV = { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, hostPath: { path: '/data' } };
const goodPVC = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };

describe('PersistentVolume', () => {
  it('defaults reclaim policy Retain, volumeMode Filesystem and hostPath type', () => {
    const d = defaulted('/persistentvolumes', pv(goodPV));
    assert.equal(d.spec.persistentVolumeReclaimPolicy, 'Retain');
    assert.equal(d.spec.volumeMode, 'Filesystem');
    assert.equal(d.spec.hostPath.type, '');
  });
  const M = (p: any, old?: any) => invalidMessage('/persistentvolumes', 'PersistentVolume', '', p, old);
  const cases: [string, any, string][] = [
    ['valid', pv(goodPV), ''],
    [
      'nothing',
      pv({}),
      'PersistentVolume "pv1" is invalid: [spec.accessModes: Required value, spec.capacity: Required value, spec.capacity: Unsupported value: core.ResourceList(nil): supported values: "storage", spec: Required value: must specify a volume type]',
    ],
    [
      'two sources',
      pv({ ...goodPV, nfs: { server: 's', path: '/x' } }),
      'PersistentVolume "pv1" is invalid: spec.nfs: Forbidden: may not specify more than 1 volume type',
    ],
    [
      'bad mode and zero size',
      pv({ ...goodPV, accessModes: ['Sometimes'], capacity: { storage: '0' } }),
      'PersistentVolume "pv1" is invalid: [spec.accessModes: Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod", spec.capacity[storage]: Invalid value: "0": must be greater than zero]',
    ],
    [
      'local without affinity',
      pv({ accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, local: { path: '/mnt' } }),
      'PersistentVolume "pv1" is invalid: spec.nodeAffinity: Required value: Local volume requires node affinity',
    ],
    [
      'RWOP with others',
      pv({ ...goodPV, accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'] }),
      'PersistentVolume "pv1" is invalid: spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes',
    ],
  ];
  for (const [name, obj, want] of cases) it(name, () => assert.equal(M(obj), want));
  it('the source is immutable', () => {
    const old = defaulted('/persistentvolumes', pv(goodPV));
    const msg = M(pv({ ...goodPV, hostPath: { path: '/other' } }), old);
    assert.match(
      msg,
      /^PersistentVolume "pv1" is invalid: spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation/,
    );
    assert.equal(M(pv({ ...goodPV, capacity: { storage: '2Gi' } }), old), '');
  });
});

describe('PersistentVolumeClaim', () => {
  const M = (p: any, old?: any) => invalidMessage('/persistentvolumeclaims', 'PersistentVolumeClaim', '', p, old);
  it('defaults volumeMode', () => assert.equal(defaulted('/persistentvolumeclaims', pvc(goodPVC)).spec.volumeMode, 'Filesystem'));
  const cases: [string, any, string][] = [
    ['valid', pvc(goodPVC), ''],
    [
      'no modes, no size',
      pvc({}),
      'PersistentVolumeClaim "c" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]',
    ],
    [
      'bad class',
      pvc({ ...goodPVC, storageClassName: 'Fast_SSD' }),
      `PersistentVolumeClaim "c" is invalid: spec.storageClassName: Invalid value: "Fast_SSD": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
  ];
  for (const [name, obj, want] of cases) it(name, () => assert.equal(M(obj), want));
  it('a bound claim may grow, not shrink below its capacity; other spec fields are immutable', () => {
    const old = { ...defaulted('/persistentvolumeclaims', pvc(goodPVC)), status: { phase: 'Bound', capacity: { storage: '1Gi' } } };
    const bound = { status: old.status };
    assert.equal(M(pvc({ ...goodPVC, resources: { requests: { storage: '2Gi' } } }, bound), old), '');
    assert.equal(
      M(pvc({ ...goodPVC, resources: { requests: { storage: '500Mi' } } }, bound), old),
      'PersistentVolumeClaim "c" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity',
    );
    assert.match(
      M(pvc({ ...goodPVC, accessModes: ['ReadWriteMany'] }, bound), old),
      /^PersistentVolumeClaim "c" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n/,
    );
    // The binder may set volumeName once.
    assert.equal(M(pvc({ ...goodPVC, volumeName: 'pv1' }, bound), old), '');
  });
  it('a pending claim may not change its request', () => {
    const old = defaulted('/persistentvolumeclaims', pvc(goodPVC));
    assert.match(M(pvc({ ...goodPVC, resources: { requests: { storage: '2Gi' } } }), old), /spec: Forbidden: spec is immutable/);
  });
});

describe('StorageClass', () => {
  const M = (p: any, old?: any) => invalidMessage('storage.k8s.io/storageclasses', 'StorageClass', 'storage.k8s.io', p, old);
  it('defaults reclaimPolicy and volumeBindingMode', () => {
    const d = defaulted('storage.k8s.io/storageclasses', { metadata: { name: 'fast' }, provisioner: 'x.io/p' });
    assert.equal(d.reclaimPolicy, 'Delete');
    assert.equal(d.volumeBindingMode, 'Immediate');
  });
  const sc = (f: any) => ({ metadata: { name: 'fast' }, provisioner: 'x.io/p', ...f });
  const cases: [string, any, string][] = [
    ['valid', sc({}), ''],
    ['no provisioner', sc({ provisioner: '' }), 'StorageClass.storage.k8s.io "fast" is invalid: provisioner: Required value'],
    [
      'bad policy and mode',
      sc({ reclaimPolicy: 'Recycle', volumeBindingMode: 'Later' }),
      'StorageClass.storage.k8s.io "fast" is invalid: [reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain", volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"]',
    ],
  ];
  for (const [name, obj, want] of cases) it(name, () => assert.equal(M(obj), want));
  it('provisioner, parameters, reclaimPolicy and binding mode are immutable; allowVolumeExpansion is not', () => {
    const old = defaulted('storage.k8s.io/storageclasses', sc({ parameters: { a: 'b' } }));
    assert.equal(M(sc({ parameters: { a: 'b' }, allowVolumeExpansion: true }), old), '');
    assert.equal(
      M(sc({ provisioner: 'y.io/p', parameters: { a: 'c' }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' }), old),
      'StorageClass.storage.k8s.io "fast" is invalid: [parameters: Forbidden: updates to parameters are forbidden., provisioner: Forbidden: updates to provisioner are forbidden., reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden., volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable]',
    );
  });
});
