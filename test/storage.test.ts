// Storage end to end on `ksim up --nodes 2`, driven by the real kubectl: the
// default `standard` class (local-path, WaitForFirstConsumer), a claim bound
// and provisioned on its first Pod's node, data that a second Pod reads after
// the first is gone, static binding with Released/Retain, reclaim Delete,
// expansion, and kube's validation and binder messages.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster, ok, eventually } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 2, speed: 10 });
});
after(() => c?.stop());

const phaseIs = (kind: string, name: string, phase: string) => async () =>
  (await c.k(['get', kind, name, '-o', 'jsonpath={.status.phase}'])).stdout === phase;

const claim = (name: string, size = '1Gi', extra = '') => `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ${name}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: ${size}}}
${extra}`;

const pod = (name: string, claimName: string, command: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  restartPolicy: Never
  containers:
  - name: c
    image: busybox:1.36
    command: [sh, -c, ${JSON.stringify(command)}]
    volumeMounts: [{name: data, mountPath: /data}]
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: ${claimName}}
`;

describe('classes and validation', () => {
  test('the default class is standard, as on kind', async () => {
    const out = ok(await c.k(['get', 'storageclass']));
    assert.match(out, /^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE$/m);
    assert.match(out, /^standard \(default\)\s+rancher\.io\/local-path\s+Delete\s+WaitForFirstConsumer\s+false\s+/m);
  });

  test("kube's validation messages", async () => {
    const r = await c.k(
      ['create', '-f', '-'],
      `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: bad}
spec: {resources: {requests: {storage: 1Gi}}}
`,
    );
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /PersistentVolumeClaim "bad" is invalid: spec.accessModes: Required value: at least 1 access mode is required/);
    const pv = await c.k(
      ['create', '-f', '-'],
      `apiVersion: v1
kind: PersistentVolume
metadata: {name: bad}
spec: {accessModes: [ReadWriteOnce], capacity: {storage: 1Gi}}
`,
    );
    assert.match(pv.stderr, /PersistentVolume "bad" is invalid: spec: Required value: must specify a volume type/);
  });
});

describe('dynamic provisioning', () => {
  let node = '';
  let volume = '';

  test('a claim waits for its first consumer, then is provisioned on its node', async () => {
    ok(await c.k(['apply', '-f', '-'], claim('data')));
    assert.equal(await c.jsonpath(['get', 'pvc', 'data'], '{.spec.storageClassName}'), 'standard');
    await eventually('WaitForFirstConsumer', async () =>
      ok(await c.k(['get', 'events', '--field-selector', 'involvedObject.name=data,reason=WaitForFirstConsumer'])).includes(
        'waiting for first consumer to be created before binding',
      ),
    );
    assert.equal(await c.jsonpath(['get', 'pvc', 'data'], '{.status.phase}'), 'Pending');
    ok(await c.k(['apply', '-f', '-'], pod('writer', 'data', 'echo hi > /data/f')));
    await eventually('the claim bound', phaseIs('pvc', 'data', 'Bound'));
    node = await c.jsonpath(['get', 'pod', 'writer'], '{.spec.nodeName}');
    volume = await c.jsonpath(['get', 'pvc', 'data'], '{.spec.volumeName}');
    assert.match(volume, /^pvc-[0-9a-f-]{36}$/);
    assert.equal(await c.jsonpath(['get', 'pvc', 'data'], '{.metadata.annotations.volume\\.kubernetes\\.io/selected-node}'), node);
    assert.equal(
      await c.jsonpath(['get', 'pv', volume], '{.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}'),
      node,
    );
    assert.equal(await c.jsonpath(['get', 'pv', volume], '{.spec.persistentVolumeReclaimPolicy}'), 'Delete');
    assert.match(
      await c.jsonpath(['get', 'pv', volume], '{.spec.hostPath.path}'),
      new RegExp(`^/var/local-path-provisioner/${volume}_default_data$`),
    );
    assert.match(
      ok(await c.k(['get', 'pvc', 'data'])),
      new RegExp(`^data\\s+Bound\\s+${volume}\\s+1Gi\\s+RWO\\s+standard\\s+<unset>\\s+`, 'm'),
    );
    assert.match(
      ok(await c.k(['get', 'pv', volume])),
      new RegExp(`^${volume}\\s+1Gi\\s+RWO\\s+Delete\\s+Bound\\s+default/data\\s+standard\\s+<unset>\\s+`, 'm'),
    );
    const events = ok(await c.k(['get', 'events', '--field-selector', 'involvedObject.name=data,reason=ProvisioningSucceeded']));
    assert.match(events, new RegExp(`Successfully provisioned volume ${volume}`));
    assert.deepEqual((await c.jsonpath(['get', 'pvc', 'data'], '{.metadata.finalizers}')).includes('kubernetes.io/pvc-protection'), true);
  });

  test('what the first Pod wrote is read by a second Pod after the first is deleted', async () => {
    await eventually('the writer done', phaseIs('pod', 'writer', 'Succeeded'));
    ok(await c.k(['delete', 'pod', 'writer', '--wait=true']));
    ok(await c.k(['apply', '-f', '-'], pod('reader', 'data', 'cat /data/f')));
    await eventually('the reader done', async () =>
      ['Succeeded', 'Failed'].includes(await c.jsonpath(['get', 'pod', 'reader'], '{.status.phase}')),
    );
    assert.equal(await c.jsonpath(['get', 'pod', 'reader'], '{.spec.nodeName}'), node, 'the local volume brings the Pod to its node');
    assert.equal(ok(await c.k(['logs', 'reader'])), 'hi\n');
    assert.equal(await c.jsonpath(['get', 'pod', 'reader'], '{.status.phase}'), 'Succeeded');
  });

  test('a claim in use is kept until its Pods are gone; reclaim Delete removes the volume', async () => {
    ok(await c.k(['apply', '-f', '-'], pod('holder', 'data', 'sleep 3600')));
    await eventually('the holder running', phaseIs('pod', 'holder', 'Running'));
    ok(await c.k(['delete', 'pvc', 'data', '--wait=false']));
    await new Promise((r) => setTimeout(r, 1000));
    assert.match(ok(await c.k(['get', 'pvc', 'data'])), /^data\s+Terminating\s+/m, 'pvc-protection keeps a claim a Pod uses');
    assert.equal(await c.jsonpath(['get', 'pv', volume], '{.status.phase}'), 'Bound');
    ok(await c.k(['delete', 'pod', '--all', '--wait=true', '--grace-period=1']));
    await eventually('the claim gone', async () => (await c.k(['get', 'pvc', 'data'])).code !== 0);
    await eventually('the volume deleted', async () => (await c.k(['get', 'pv', volume])).code !== 0);
    assert.match((await c.k(['get', 'pv', volume])).stderr, new RegExp(`persistentvolumes "${volume}" not found`));
  });
});

describe('static volumes', () => {
  const staticPV = (name: string, policy: string) => `apiVersion: v1
kind: PersistentVolume
metadata: {name: ${name}, labels: {tier: db}}
spec:
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  capacity: {storage: 5Gi}
  persistentVolumeReclaimPolicy: ${policy}
  hostPath: {path: /srv/${name}}
`;

  test('a claim without a class and no volume: FailedBinding', async () => {
    ok(await c.k(['apply', '-f', '-'], claim('orphan', '100Gi', '  storageClassName: ""\n')));
    await eventually('FailedBinding', async () =>
      ok(await c.k(['get', 'events', '--field-selector', 'involvedObject.name=orphan,reason=FailedBinding'])).includes(
        'no persistent volumes available for this claim and no storage class is set',
      ),
    );
    assert.equal(await c.jsonpath(['get', 'pvc', 'orphan'], '{.status.phase}'), 'Pending');
    ok(await c.k(['delete', 'pvc', 'orphan']));
  });

  test('binding by size, modes and selector; Released and kept on Retain', async () => {
    ok(await c.k(['apply', '-f', '-'], staticPV('pv-small', 'Retain').replace('5Gi', '1Gi')));
    ok(await c.k(['apply', '-f', '-'], staticPV('pv-big', 'Retain')));
    await eventually('Available', phaseIs('pv', 'pv-big', 'Available'));
    ok(await c.k(['apply', '-f', '-'], claim('db', '2Gi', '  storageClassName: ""\n  selector: {matchLabels: {tier: db}}\n')));
    await eventually('the claim bound', phaseIs('pvc', 'db', 'Bound'));
    assert.equal(await c.jsonpath(['get', 'pvc', 'db'], '{.spec.volumeName}'), 'pv-big');
    assert.equal(await c.jsonpath(['get', 'pvc', 'db'], '{.metadata.annotations.pv\\.kubernetes\\.io/bind-completed}'), 'yes');
    assert.equal(await c.jsonpath(['get', 'pv', 'pv-big'], '{.metadata.annotations.pv\\.kubernetes\\.io/bound-by-controller}'), 'yes');
    assert.match(ok(await c.k(['get', 'pvc', 'db'])), /^db\s+Bound\s+pv-big\s+5Gi\s+RWO,ROX\s+<unset>\s+/m);
    assert.equal(await c.jsonpath(['get', 'pv', 'pv-small'], '{.status.phase}'), 'Available');
    ok(await c.k(['delete', 'pvc', 'db', '--wait=true', '--timeout=30s']));
    await eventually('Released', phaseIs('pv', 'pv-big', 'Released'));
    assert.match(ok(await c.k(['get', 'pv', 'pv-big'])), /^pv-big\s+5Gi\s+RWO,ROX\s+Retain\s+Released\s+default\/db\s+/m);
  });

  test('Delete without a deleter fails the volume', async () => {
    ok(await c.k(['apply', '-f', '-'], staticPV('pv-del', 'Delete').replace('tier: db', 'tier: web')));
    ok(await c.k(['apply', '-f', '-'], claim('web', '1Gi', '  storageClassName: ""\n  selector: {matchLabels: {tier: web}}\n')));
    await eventually('bound', phaseIs('pvc', 'web', 'Bound'));
    ok(await c.k(['delete', 'pvc', 'web', '--wait=true', '--timeout=30s']));
    await eventually('Failed', phaseIs('pv', 'pv-del', 'Failed'));
    const events = ok(await c.k(['get', 'events', '--field-selector', 'involvedObject.name=pv-del,reason=VolumeFailedDelete']));
    assert.match(events, /no deletable volume plugin matched/);
  });
});

describe('expansion', () => {
  test('a bound claim grows when its class allows it, and may not shrink', async () => {
    ok(
      await c.k(
        ['apply', '-f', '-'],
        `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: expandable}
provisioner: rancher.io/local-path
allowVolumeExpansion: true
volumeBindingMode: Immediate
`,
      ),
    );
    assert.match(ok(await c.k(['get', 'sc', 'expandable'])), /^expandable\s+rancher\.io\/local-path\s+Delete\s+Immediate\s+true\s+/m);
    ok(await c.k(['apply', '-f', '-'], claim('grow', '1Gi', '  storageClassName: expandable\n')));
    await eventually('bound', phaseIs('pvc', 'grow', 'Bound'));
    ok(await c.k(['patch', 'pvc', 'grow', '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}']));
    await eventually('capacity 2Gi', async () => (await c.jsonpath(['get', 'pvc', 'grow'], '{.status.capacity.storage}')) === '2Gi');
    const pv = await c.jsonpath(['get', 'pvc', 'grow'], '{.spec.volumeName}');
    assert.equal(await c.jsonpath(['get', 'pv', pv], '{.spec.capacity.storage}'), '2Gi');
    const r = await c.k(['patch', 'pvc', 'grow', '-p', '{"spec":{"resources":{"requests":{"storage":"1Gi"}}}}']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /spec.resources.requests.storage: Forbidden: field can not be less than status.capacity/);
    const immutable = await c.k(['patch', 'pvc', 'grow', '-p', '{"spec":{"accessModes":["ReadWriteMany"]}}']);
    assert.match(
      immutable.stderr,
      /spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims/,
    );
  });

  test('a claim of a class without allowVolumeExpansion may not grow', async () => {
    ok(await c.k(['apply', '-f', '-'], claim('fixed', '1Gi', '  storageClassName: ""\n')));
    ok(
      await c.k(
        ['apply', '-f', '-'],
        `apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-fixed}
spec: {accessModes: [ReadWriteOnce], capacity: {storage: 1Gi}, hostPath: {path: /srv/fixed}}
`,
      ),
    );
    await eventually('bound', phaseIs('pvc', 'fixed', 'Bound'));
    const r = await c.k(['patch', 'pvc', 'fixed', '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}']);
    assert.match(
      r.stderr,
      /persistentvolumeclaims "fixed" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize/,
    );
  });
});
