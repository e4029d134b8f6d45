import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import {
  claimOwnerRefsFor,
  claimsFor,
  identityMatches,
  isClaimOwnerUpToDate,
  newStatefulSetPod,
  parentAndOrdinal,
  storageMatches,
} from './identity.ts';
import { applyRevision, chooseUpdateRevision, newRevision } from './revision.ts';

const set = (policy?: { whenScaled: string; whenDeleted: string }, replicas = 2): StatefulSet => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'web', namespace: 'ns', uid: 'set-uid', annotations: { 'kubernetes.io/change-cause': 'v1' } },
  spec: {
    serviceName: 'nginx',
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web', tier: 'x' }, annotations: { a: 'b' } },
      spec: { containers: [{ name: 'c', image: 'nginx:1.27' }], volumes: [{ name: 'cfg', emptyDir: {} }] },
    },
    volumeClaimTemplates: [{ metadata: { name: 'www', labels: { disk: 'ssd' } }, spec: { accessModes: ['ReadWriteOnce'] } }],
    ...(policy ? { persistentVolumeClaimRetentionPolicy: policy } : {}),
  },
});

test('parentAndOrdinal: NAME-ORDINAL, and -1 for names without one', () => {
  const cases: [string, { parent: string; ordinal: number }][] = [
    ['web-0', { parent: 'web', ordinal: 0 }],
    ['my-web-12', { parent: 'my-web', ordinal: 12 }],
    ['web', { parent: '', ordinal: -1 }],
    ['web-x', { parent: '', ordinal: -1 }],
    ['web-99999999999', { parent: 'web', ordinal: -1 }],
  ];
  for (const [name, want] of cases) assert.deepEqual(parentAndOrdinal(name), want, name);
});

test('newStatefulSetPod: stable name, hostname, subdomain, labels, owner and the claim volume', () => {
  const pod = newStatefulSetPod(set(), 1);
  assert.equal(pod.metadata!.name, 'web-1');
  assert.equal(pod.metadata!.generateName, 'web-');
  assert.deepEqual(pod.metadata!.labels, {
    app: 'web',
    tier: 'x',
    'statefulset.kubernetes.io/pod-name': 'web-1',
    'apps.kubernetes.io/pod-index': '1',
  });
  assert.deepEqual(pod.metadata!.annotations, { a: 'b' });
  assert.deepEqual(pod.metadata!.ownerReferences, [
    { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'set-uid', controller: true, blockOwnerDeletion: true },
  ]);
  assert.equal(pod.spec!.hostname, 'web-1');
  assert.equal(pod.spec!.subdomain, 'nginx');
  assert.deepEqual(pod.spec!.volumes, [
    { name: 'www', persistentVolumeClaim: { claimName: 'www-web-1' } },
    { name: 'cfg', emptyDir: {} },
  ]);
  assert.ok(identityMatches(set(), pod) && storageMatches(set(), pod));
  const renamed = structuredClone(pod);
  renamed.metadata!.labels!['statefulset.kubernetes.io/pod-name'] = 'other';
  assert.equal(identityMatches(set(), renamed), false);
});

test("claimsFor: the template renamed TEMPLATE-SET-ORDINAL with the selector's labels added", () => {
  const c = claimsFor(set(), 3).get('www')!;
  assert.equal(c.metadata!.name, 'www-web-3');
  assert.equal(c.metadata!.namespace, 'ns');
  assert.deepEqual(c.metadata!.labels, { disk: 'ssd', app: 'web' });
  assert.deepEqual(c.spec, { accessModes: ['ReadWriteOnce'] });
});

const podAt = (ordinal: number): Pod => ({ metadata: { name: `web-${ordinal}`, namespace: 'ns', uid: `pod-${ordinal}` } });
const setRef = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'set-uid', controller: true, blockOwnerDeletion: true };
const podRef = (o: number) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  name: `web-${o}`,
  uid: `pod-${o}`,
  controller: true,
  blockOwnerDeletion: true,
});
const claim = (refs: object[] = []): PersistentVolumeClaim => ({ metadata: { name: 'www-web-x', ownerReferences: refs as never } });

test('retention policy: which refs a claim should carry, kept Pod (0) and scaled-down Pod (2)', () => {
  const cases: [string, string, number, object[]][] = [
    ['Retain', 'Retain', 0, []],
    ['Retain', 'Retain', 2, []],
    ['Retain', 'Delete', 0, [setRef]],
    ['Retain', 'Delete', 2, [setRef]],
    ['Delete', 'Retain', 0, []],
    ['Delete', 'Retain', 2, [podRef(2)]],
    ['Delete', 'Delete', 0, [setRef]],
    ['Delete', 'Delete', 2, [podRef(2)]],
  ];
  for (const [whenScaled, whenDeleted, ordinal, want] of cases) {
    const s = set({ whenScaled, whenDeleted });
    const what = `whenScaled=${whenScaled} whenDeleted=${whenDeleted} web-${ordinal}`;
    assert.deepEqual(claimOwnerRefsFor(claim(), s, podAt(ordinal)), want, what);
    assert.equal(isClaimOwnerUpToDate(claim(want), s, podAt(ordinal)), true, `${what}: up to date with ${JSON.stringify(want)}`);
    if (want.length) assert.equal(isClaimOwnerUpToDate(claim(), s, podAt(ordinal)), false, `${what}: bare claim out of date`);
  }
});

test("retention policy: another controller's claim is left alone, a stale ref of ours is not touched", () => {
  const s = set({ whenScaled: 'Delete', whenDeleted: 'Delete' });
  const other = { apiVersion: 'x/v1', kind: 'Thing', name: 't', uid: 't', controller: true };
  assert.deepEqual(claimOwnerRefsFor(claim([other]), s, podAt(0)), [other]);
  assert.equal(isClaimOwnerUpToDate(claim([other]), s, podAt(0)), true);
  assert.equal(isClaimOwnerUpToDate(claim([other, setRef]), s, podAt(0)), false, 'our ref beside a foreign controller is removed');
  assert.equal(isClaimOwnerUpToDate(claim([{ ...setRef, uid: 'old-set' }]), s, podAt(0)), true);
});

test('revisions: the template as a replace patch with the set annotations; apply restores it', () => {
  const s = set();
  const rev = newRevision(s, 1, 0);
  assert.match(rev.metadata!.name!, /^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
  assert.equal(rev.metadata!.annotations!['kubernetes.io/change-cause'], 'v1');
  assert.deepEqual(rev.metadata!.ownerReferences, [setRef]);
  const tmpl = (rev.data as { spec: { template: Record<string, unknown> } }).spec.template;
  assert.equal(tmpl.$patch, 'replace');
  assert.deepEqual(Object.keys(tmpl), [...Object.keys(tmpl)].sort(), "keys in Go's order");
  const changed = structuredClone(s);
  changed.spec!.template.spec!.containers[0].image = 'nginx:1.28';
  changed.spec!.template.metadata!.labels = { app: 'web' };
  const back = applyRevision(changed, rev);
  assert.equal(back.spec!.template.spec!.containers[0].image, 'nginx:1.27');
  assert.deepEqual(back.spec!.template.metadata!.labels, { app: 'web', tier: 'x' });
  assert.equal(back.spec!.replicas, 2);
});

test('revisions: the newest equal revision is kept, an older equal one renumbered, else a new one', () => {
  const s = set();
  const v2 = structuredClone(s);
  v2.spec!.template.spec!.containers[0].image = 'nginx:1.28';
  const r1 = newRevision(s, 1, 0);
  const r2 = newRevision(v2, 2, 0);
  assert.equal(chooseUpdateRevision(v2, [r1, r2], 0).kind, 'latest');
  assert.deepEqual(chooseUpdateRevision(s, [r2, r1], 0), { kind: 'renumber', revision: r1, to: 3 });
  const v3 = structuredClone(s);
  v3.spec!.template.spec!.containers[0].image = 'nginx:1.29';
  const made = chooseUpdateRevision(v3, [r1, r2], 0);
  assert.equal(made.kind, 'create');
  assert.equal(made.revision.revision, 3);
});

test("revisions: kube v1.34's own revision of its compatibility fixture, byte for byte the same name and data", () => {
  // pkg/controller/statefulset/testdata/compatibility_{set,revision}_1.34.0.json
  const fixture: StatefulSet = {
    metadata: { name: 'test', namespace: 'default', uid: 'ec335e25-1045-4216-8634-50cfbe05f3d6' },
    spec: {
      selector: { matchLabels: { app: 'foo' } },
      template: {
        metadata: { annotations: { test: 'value' }, labels: { app: 'foo' } },
        spec: {
          containers: [
            {
              image: 'test',
              imagePullPolicy: 'Always',
              name: 'test',
              resources: {},
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
            },
          ],
          dnsPolicy: 'ClusterFirst',
          restartPolicy: 'Always',
          schedulerName: 'default-scheduler',
          securityContext: {},
          terminationGracePeriodSeconds: 30,
        },
      },
      serviceName: '',
    },
  };
  const rev = newRevision(fixture, 2, 0);
  assert.equal(rev.metadata!.name, 'test-776999688b');
  assert.deepEqual(rev.metadata!.labels, { app: 'foo', 'controller.kubernetes.io/hash': '776999688b' });
  assert.equal(
    JSON.stringify(rev.data),
    '{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"test":"value"},"labels":{"app":"foo"}},"spec":{"containers":[{"image":"test","imagePullPolicy":"Always","name":"test","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}}',
  );
});
