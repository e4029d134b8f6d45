// StatefulSets end to end on `ksim up --nodes 2`, driven by the real kubectl:
// ordered start (web-0 Ready before web-1 exists, seen through a watch),
// stable names, hostnames and claims, the governing Service's endpoints with
// hostnames and its DNS names, a scale down in reverse order that keeps the
// claims and a scale up that reuses them, a rolling update held back by a
// partition, rollout status, history and undo, and claims deleted on
// scale-down under whenScaled: Delete (Parallel).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, ok, startCluster, until, type Cluster } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 2, speed: 10 });
});
after(() => c?.stop());

const get = async (args: string[]) => JSON.parse(ok(await c.k(['get', ...args, '-o', 'json'])));
const names = async (kind: string, selector: string) =>
  ((await get([kind, '-l', selector])).items as { metadata: { name: string } }[]).map((i) => i.metadata.name).sort();
const readySince = (pod: { status?: { conditions?: { type: string; status: string; lastTransitionTime: string }[] } }) =>
  pod.status?.conditions?.find((x) => x.type === 'Ready' && x.status === 'True')?.lastTransitionTime;

const manifest = (image: string) => `apiVersion: v1
kind: Service
metadata: {name: nginx, labels: {app: nginx}}
spec:
  clusterIP: None
  selector: {app: nginx}
  ports: [{port: 80, name: web}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: nginx
  replicas: 3
  selector: {matchLabels: {app: nginx}}
  template:
    metadata: {labels: {app: nginx}}
    spec:
      containers:
      - name: nginx
        image: ${image}
        ports: [{containerPort: 80, name: web}]
        volumeMounts: [{name: www, mountPath: /usr/share/nginx/html}]
  volumeClaimTemplates:
  - metadata: {name: www}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
`;

describe('statefulset web', () => {
  test('starts web-0, web-1, web-2 in order, each Ready before the next is created', async () => {
    // Every change to the Pods, in order: when web-N is added, web-(N-1) must already be Running and Ready.
    const watch = api(c).watch('/api/v1/namespaces/default/pods?labelSelector=app%3Dnginx');
    await watch.ready;
    ok(await c.k(['apply', '-f', '-'], manifest('nginx:1.27')));
    const out = ok(await c.k(['rollout', 'status', 'sts/web', '--timeout=60s']));
    assert.match(out, /partitioned roll out complete: 3 new pods have been updated/);
    const latest = new Map<string, any>();
    const added: string[] = [];
    for (let ev = await watch.next(2000).catch(() => undefined); ev; ev = await watch.next(500).catch(() => undefined)) {
      const name = ev.object.metadata.name as string;
      if (ev.type === 'ADDED') {
        added.push(name);
        const ordinal = Number(name.split('-')[1]);
        if (ordinal > 0) {
          const prev = latest.get(`web-${ordinal - 1}`);
          assert.ok(
            prev && prev.status?.phase === 'Running' && readySince(prev),
            `${name} was created before web-${ordinal - 1} was Ready`,
          );
        }
      }
      latest.set(name, ev.object);
    }
    watch.close();
    assert.deepEqual(added, ['web-0', 'web-1', 'web-2']);
    const pods = new Map<string, any>(((await get(['pods', '-l', 'app=nginx'])).items as any[]).map((p) => [p.metadata.name, p]));
    assert.deepEqual([...pods.keys()].sort(), ['web-0', 'web-1', 'web-2']);
    for (const [prev, next] of [
      ['web-0', 'web-1'],
      ['web-1', 'web-2'],
    ]) {
      const ready = Date.parse(readySince(pods.get(prev))!);
      const created = Date.parse(pods.get(next).metadata.creationTimestamp);
      assert.ok(created >= ready, `${next} created at ${created} before ${prev} was Ready at ${ready}`);
    }
    const web1 = pods.get('web-1');
    assert.equal(web1.spec.hostname, 'web-1');
    assert.equal(web1.spec.subdomain, 'nginx');
    assert.equal(web1.metadata.labels['statefulset.kubernetes.io/pod-name'], 'web-1');
    assert.equal(web1.metadata.labels['apps.kubernetes.io/pod-index'], '1');
    assert.match(web1.metadata.labels['controller-revision-hash'], /^web-[a-z0-9]+$/);
    assert.deepEqual(
      web1.spec.volumes.find((v: any) => v.name === 'www'),
      { name: 'www', persistentVolumeClaim: { claimName: 'www-web-1' } },
    );
    assert.deepEqual(await names('pvc', 'app=nginx'), ['www-web-0', 'www-web-1', 'www-web-2']);
    const sts = await get(['sts', 'web']);
    assert.equal(sts.status.readyReplicas, 3);
    assert.equal(sts.status.availableReplicas, 3);
    assert.equal(sts.status.currentRevision, sts.status.updateRevision);
    assert.equal(sts.status.observedGeneration, sts.metadata.generation);
    assert.match(ok(await c.k(['get', 'sts', 'web'])), /^web\s+3\/3\s+/m);
    const events = ok(await c.k(['get', 'events', '--field-selector', 'involvedObject.kind=StatefulSet,involvedObject.name=web']));
    assert.match(events, /SuccessfulCreate\s+statefulset\/web\s+create Pod web-0 in StatefulSet web successful/);
    assert.match(events, /create Claim www-web-2 Pod web-2 in StatefulSet web success/);
  });

  test("the headless Service's EndpointSlice names each Pod's hostname", async () => {
    const hostnames = await until(async () => {
      const slices = (await get(['endpointslices', '-l', 'kubernetes.io/service-name=nginx'])).items as any[];
      const hs = slices.flatMap((s) => (s.endpoints ?? []).map((e: any) => e.hostname)).sort();
      return hs.length === 3 && hs;
    }, 'three endpoints');
    assert.deepEqual(hostnames, ['web-0', 'web-1', 'web-2']);
  });

  test('web-1.nginx.default.svc.cluster.local resolves to web-1 from web-0', async () => {
    const ip = (await get(['pod', 'web-1'])).status.podIP;
    const out = await until(async () => {
      const r = await c.k(['exec', 'web-0', '--', 'nslookup', 'web-1.nginx.default.svc.cluster.local']);
      return r.code === 0 && r.stdout.includes(ip) && r.stdout;
    }, 'the name to resolve');
    assert.match(out, /Name:\s+web-1\.nginx\.default\.svc\.cluster\.local/);
  });

  test('kubectl scale down deletes web-2 then web-1 and keeps their claims; scale up reuses them', async () => {
    const uids = new Map(((await get(['pvc', '-l', 'app=nginx'])).items as any[]).map((p) => [p.metadata.name, p.metadata.uid]));
    ok(await c.k(['scale', 'sts', 'web', '--replicas=1']));
    await until(async () => (await names('pods', 'app=nginx')).join() === 'web-0', 'only web-0 left', 30_000);
    const events = ((await get(['events', '--field-selector', 'involvedObject.name=web,reason=SuccessfulDelete'])).items as any[])
      .sort((a, b) => Date.parse(a.lastTimestamp) - Date.parse(b.lastTimestamp) || a.metadata.name.localeCompare(b.metadata.name))
      .map((e) => e.message);
    assert.deepEqual(events, ['delete Pod web-2 in StatefulSet web successful', 'delete Pod web-1 in StatefulSet web successful']);
    assert.deepEqual(await names('pvc', 'app=nginx'), ['www-web-0', 'www-web-1', 'www-web-2']);
    ok(await c.k(['scale', 'sts', 'web', '--replicas=3']));
    ok(await c.k(['rollout', 'status', 'sts/web', '--timeout=60s']));
    const after = new Map(((await get(['pvc', '-l', 'app=nginx'])).items as any[]).map((p) => [p.metadata.name, p.metadata.uid]));
    assert.deepEqual(after, uids, 'the same claims, not new ones');
  });

  test('a rolling update with a partition updates only the Pods at or above it', async () => {
    const before = (await get(['sts', 'web'])).status.currentRevision;
    ok(await c.k(['patch', 'sts', 'web', '-p', '{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":2}}}}']));
    ok(await c.k(['set', 'image', 'sts/web', 'nginx=nginx:1.28']));
    const out = ok(await c.k(['rollout', 'status', 'sts/web', '--timeout=60s']));
    assert.match(out, /partitioned roll out complete: 1 new pods have been updated/);
    const sts = await get(['sts', 'web']);
    assert.notEqual(sts.status.updateRevision, before);
    assert.equal(sts.status.currentRevision, before);
    assert.equal(sts.status.updatedReplicas, 1);
    assert.equal(sts.status.currentReplicas, 2);
    const images = async () =>
      Object.fromEntries(
        ((await get(['pods', '-l', 'app=nginx'])).items as any[]).map((p) => [p.metadata.name, p.spec.containers[0].image]),
      );
    assert.deepEqual(await images(), { 'web-0': 'nginx:1.27', 'web-1': 'nginx:1.27', 'web-2': 'nginx:1.28' });
    ok(await c.k(['patch', 'sts', 'web', '-p', '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}']));
    await until(
      async () => {
        const s = await get(['sts', 'web']);
        return s.status.currentRevision === s.status.updateRevision && s.status.updatedReplicas === 3 && s.status.readyReplicas === 3;
      },
      'the rollout to finish',
      60_000,
    );
    assert.deepEqual(await images(), { 'web-0': 'nginx:1.28', 'web-1': 'nginx:1.28', 'web-2': 'nginx:1.28' });
  });

  test('kubectl rollout history lists both revisions and undo goes back to the first', async () => {
    const history = ok(await c.k(['rollout', 'history', 'sts/web']));
    assert.match(history, /^REVISION\s+CHANGE-CAUSE/m);
    assert.match(history, /^1\s+<none>/m);
    assert.match(history, /^2\s+<none>/m);
    assert.match(ok(await c.k(['rollout', 'history', 'sts/web', '--revision=1'])), /Image:\s+nginx:1\.27/);
    assert.match(ok(await c.k(['rollout', 'undo', 'sts/web'])), /statefulset.apps\/web rolled back/);
    await until(
      async () => {
        const s = await get(['sts', 'web']);
        return (
          s.spec.template.spec.containers[0].image === 'nginx:1.27' &&
          s.status.observedGeneration === s.metadata.generation &&
          s.status.currentRevision === s.status.updateRevision &&
          s.status.updatedReplicas === 3 &&
          s.status.readyReplicas === 3
        );
      },
      'the undo to roll out',
      60_000,
    );
    const revs = ((await get(['controllerrevisions'])).items as any[]).map((r) => r.revision).sort();
    assert.deepEqual(revs, [2, 3], 'revision 1 renumbered to 3, none added');
    assert.match(ok(await c.k(['rollout', 'history', 'sts/web'])), /^3\s+<none>/m);
  });
});

describe('statefulset with whenScaled: Delete', () => {
  test('Parallel pods start together; scaling down deletes the condemned claims', async () => {
    ok(
      await c.k(
        ['apply', '-f', '-'],
        `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 3
  podManagementPolicy: Parallel
  persistentVolumeClaimRetentionPolicy: {whenScaled: Delete, whenDeleted: Retain}
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: "nginx:1.27"}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
`,
      ),
    );
    ok(await c.k(['rollout', 'status', 'sts/db', '--timeout=60s']));
    assert.deepEqual(await names('pvc', 'app=db'), ['data-db-0', 'data-db-1', 'data-db-2']);
    ok(await c.k(['scale', 'sts', 'db', '--replicas=1']));
    // Deleted by the garbage collector once their Pods are gone (a claim stays Terminating while kubernetes.io/pvc-protection holds it).
    await until(
      async () => {
        const live = ((await get(['pvc', '-l', 'app=db'])).items as any[]).filter((p) => !p.metadata.deletionTimestamp);
        return live.map((p) => p.metadata.name).join() === 'data-db-0';
      },
      'the claims of db-1 and db-2 to be deleted',
      30_000,
    );
    assert.deepEqual(await names('pods', 'app=db'), ['db-0']);
    const claim = await get(['pvc', 'data-db-0']);
    assert.equal(claim.metadata.ownerReferences, undefined, 'a kept Pod keeps its claim unowned');
  });
});
