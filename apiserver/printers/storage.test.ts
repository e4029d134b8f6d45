import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accessModesString, persistentVolumeClaimPrinter, persistentVolumePrinter, storageClassPrinter } from './storage.ts';

const now = new Date('2026-11-30T12:00:00Z');
const created = '2026-11-30T11:59:00Z';

test('access modes in kube order, once each', () => {
  assert.equal(accessModesString(['ReadWriteOncePod', 'ReadOnlyMany', 'ReadWriteOnce', 'ReadOnlyMany']), 'RWO,ROX,RWOP');
  assert.equal(accessModesString(undefined), '');
});

test('PersistentVolume, PersistentVolumeClaim and StorageClass rows as kubectl prints them', () => {
  const pv = {
    metadata: { name: 'pv1', creationTimestamp: created },
    spec: {
      capacity: { storage: '1024Mi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      claimRef: { namespace: 'default', name: 'data' },
      storageClassName: 'standard',
      volumeMode: 'Filesystem',
    },
    status: { phase: 'Bound' },
  };
  assert.deepEqual(persistentVolumePrinter.row(pv, { now }).cells, [
    'pv1',
    '1Gi',
    'RWO',
    'Retain',
    'Bound',
    'default/data',
    'standard',
    '<unset>',
    '',
    '60s',
    'Filesystem',
  ]);
  assert.equal(
    persistentVolumePrinter.row({ ...pv, metadata: { ...pv.metadata, deletionTimestamp: created } }, { now }).cells[4],
    'Terminating',
  );
  assert.deepEqual(
    persistentVolumePrinter.columns.map((c) => c.name),
    [
      'Name',
      'Capacity',
      'Access Modes',
      'Reclaim Policy',
      'Status',
      'Claim',
      'StorageClass',
      'VolumeAttributesClass',
      'Reason',
      'Age',
      'VolumeMode',
    ],
  );
  const pending = {
    metadata: { name: 'data', creationTimestamp: created },
    spec: { storageClassName: 'standard' },
    status: { phase: 'Pending' },
  };
  assert.deepEqual(persistentVolumeClaimPrinter.row(pending, { now }).cells, [
    'data',
    'Pending',
    '',
    '',
    '',
    'standard',
    '<unset>',
    '60s',
    '<unset>',
  ]);
  const bound = {
    ...pending,
    spec: { storageClassName: 'standard', volumeName: 'pv1', volumeMode: 'Filesystem' },
    status: { phase: 'Bound', capacity: { storage: '2Gi' }, accessModes: ['ReadWriteOnce'] },
  };
  assert.deepEqual(persistentVolumeClaimPrinter.row(bound, { now }).cells, [
    'data',
    'Bound',
    'pv1',
    '2Gi',
    'RWO',
    'standard',
    '<unset>',
    '60s',
    'Filesystem',
  ]);
  const sc = {
    metadata: { name: 'standard', creationTimestamp: created, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: 'rancher.io/local-path',
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  };
  assert.deepEqual(storageClassPrinter.row(sc, { now }).cells, [
    'standard (default)',
    'rancher.io/local-path',
    'Delete',
    'WaitForFirstConsumer',
    'false',
    '60s',
  ]);
});
