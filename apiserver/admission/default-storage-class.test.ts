import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { findResource } from '../../shared/api/resources.ts';
import type { Store } from '../storage/store.ts';
import type { ObjectToStore, StoredObject } from '../storage/types.ts';
import {
  defaultStorageClass,
  persistentVolumeClaimResize,
  pickDefaultClass,
  storageObjectInUseProtection,
} from './default-storage-class.ts';

const pvcs = findResource('', 'v1', 'persistentvolumeclaims')!;
const pvs = findResource('', 'v1', 'persistentvolumes')!;
const cls = (name: string, isDefault: boolean, created: string): StorageClass => ({
  metadata: { name, creationTimestamp: created, annotations: isDefault ? { 'storageclass.kubernetes.io/is-default-class': 'true' } : {} },
  provisioner: 'x',
});

test('the newest default class wins', () => {
  const classes = [cls('a', true, '2026-01-01T00:00:00Z'), cls('b', true, '2026-02-01T00:00:00Z'), cls('c', false, '2026-03-01T00:00:00Z')];
  assert.equal(pickDefaultClass(classes)?.metadata?.name, 'b');
  assert.equal(pickDefaultClass([cls('c', false, '2026-03-01T00:00:00Z')]), undefined);
});

test('DefaultStorageClass fills only a claim that names no class, on create', () => {
  const plugin = defaultStorageClass({} as Store, () => cls('standard', true, '2026-01-01T00:00:00Z'));
  const claim = (spec: object) => ({ metadata: { name: 'c' }, spec }) as unknown as ObjectToStore & { spec: { storageClassName?: string } };
  const a = claim({});
  assert.equal(plugin.admit!('CREATE', pvcs, a), true);
  assert.equal(a.spec.storageClassName, 'standard');
  const none = claim({ storageClassName: '' });
  assert.equal(plugin.admit!('CREATE', pvcs, none), false);
  assert.equal(none.spec.storageClassName, '');
  const upd = claim({});
  assert.equal(plugin.admit!('UPDATE', pvcs, upd), false);
  assert.equal(upd.spec.storageClassName, undefined);
});

test('StorageObjectInUseProtection adds the protection finalizers', () => {
  const plugin = storageObjectInUseProtection();
  const pvc = { metadata: { name: 'c', finalizers: ['x'] } } as unknown as ObjectToStore;
  plugin.admit!('CREATE', pvcs, pvc);
  assert.deepEqual(pvc.metadata?.finalizers, ['x', 'kubernetes.io/pvc-protection']);
  const pv = { metadata: { name: 'v' } } as unknown as ObjectToStore;
  plugin.admit!('CREATE', pvs, pv);
  assert.deepEqual(pv.metadata?.finalizers, ['kubernetes.io/pv-protection']);
});

test('PersistentVolumeClaimResize: only a bound claim of an expandable class grows', () => {
  const classes: Record<string, StorageClass> = {
    grow: { metadata: { name: 'grow' }, provisioner: 'x', allowVolumeExpansion: true },
    fixed: { metadata: { name: 'fixed' }, provisioner: 'x' },
  };
  const plugin = persistentVolumeClaimResize({} as Store, (n) => classes[n]);
  const claim = (cls: string, size: string, phase = 'Bound') =>
    ({
      metadata: { name: 'c' },
      spec: { storageClassName: cls, resources: { requests: { storage: size } } },
      status: { phase },
    }) as unknown as StoredObject;
  const refused = (cls: string, phase?: string) => {
    try {
      plugin.validate!('UPDATE', pvcs, claim(cls, '2Gi'), claim(cls, '1Gi', phase));
      return '';
    } catch (err) {
      return (err as Error).message;
    }
  };
  assert.equal(refused('grow'), '');
  assert.equal(
    refused('fixed'),
    'persistentvolumeclaims "c" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
  );
  assert.equal(refused('grow', 'Pending'), 'persistentvolumeclaims "c" is forbidden: Only bound persistent volume claims can be expanded');
  assert.doesNotThrow(() => plugin.validate!('UPDATE', pvcs, claim('fixed', '1Gi'), claim('fixed', '1Gi')));
});
