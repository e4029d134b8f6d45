// The chaos Events as an in-process apiserver stand-in receives them: kube's
// fields and naming, the namespace of a cluster-scoped object, a repeated
// event bumping the count, and which object each kind of fault is about.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CAUSE_HEADER, decodeCause } from '../../shared/api/write-cause.ts';
import { KubeClient } from '../../shared/client/kube-client.ts';
import { involvedObjectOf, recordChaosEvent } from './events.ts';

interface Seen {
  method: string;
  url: string;
  body: any;
  cause?: string;
}
const seen: Seen[] = [];
const server = http.createServer((req, res) => {
  let text = '';
  req.on('data', (d) => (text += d));
  req.on('end', () => {
    const body = text ? JSON.parse(text) : undefined;
    seen.push({ method: req.method!, url: req.url!, body, cause: req.headers[CAUSE_HEADER.toLowerCase()] as string | undefined });
    res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? {}));
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const client = new KubeClient({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
after(() => {
  client.close();
  server.close();
});

test('ChaosInjected is a Warning Event from ksim-chaos in the object namespace, named as kube names it', async () => {
  seen.length = 0;
  const pod = { apiVersion: 'v1', kind: 'Pod', namespace: 'prod', name: 'web-1', uid: 'u-1' };
  await recordChaosEvent(client, { reason: 'ChaosInjected', message: 'killed container nginx of prod/web-1', involvedObject: pod });
  assert.equal(seen.length, 1);
  const { method, url, body } = seen[0];
  assert.equal(method, 'POST');
  assert.equal(url, '/api/v1/namespaces/prod/events');
  assert.match(body.metadata.name, /^web-1\.[0-9a-f]+$/);
  assert.equal(body.metadata.namespace, 'prod');
  assert.equal(body.type, 'Warning');
  assert.equal(body.reason, 'ChaosInjected');
  assert.equal(body.message, 'killed container nginx of prod/web-1');
  assert.deepEqual(body.source, { component: 'ksim-chaos' });
  assert.equal(body.reportingComponent, 'ksim-chaos');
  assert.equal(body.count, 1);
  assert.deepEqual(
    {
      kind: body.involvedObject.kind,
      namespace: body.involvedObject.namespace,
      name: body.involvedObject.name,
      uid: body.involvedObject.uid,
    },
    { kind: 'Pod', namespace: 'prod', name: 'web-1', uid: 'u-1' },
  );
});

test('ChaosRecovered is Normal; a cluster-scoped object gets its Event in default; a repeat bumps the count', async () => {
  seen.length = 0;
  const node = { apiVersion: 'v1', kind: 'Node', name: 'node-1' };
  await recordChaosEvent(client, { reason: 'ChaosRecovered', message: 'healed node/node-1', involvedObject: node });
  assert.equal(seen[0].url, '/api/v1/namespaces/default/events');
  assert.equal(seen[0].body.type, 'Normal');
  assert.equal(seen[0].body.involvedObject.namespace, undefined);
  await recordChaosEvent(client, { reason: 'ChaosRecovered', message: 'healed node/node-1', involvedObject: node });
  assert.equal(seen[1].method, 'PATCH');
  assert.equal(seen[1].url, `/api/v1/namespaces/default/events/${seen[0].body.metadata.name}`);
  assert.equal(seen[1].body.count, 2);
});

test('which object a fault is about', () => {
  const cases: [Parameters<typeof involvedObjectOf>[0], object][] = [
    [
      { action: 'partition', target: 'node/node-2' },
      { apiVersion: 'v1', kind: 'Node', name: 'node-2' },
    ],
    [
      { action: 'kill-pod', target: 'pod/ns/p' },
      { apiVersion: 'v1', kind: 'Pod', namespace: 'ns', name: 'p' },
    ],
    [
      { action: 'kill', target: 'scheduler' },
      { apiVersion: 'v1', kind: 'Pod', namespace: 'kube-system', name: 'kube-scheduler-control-plane' },
    ],
    [
      { action: 'kill', target: 'leader/controller-manager' },
      { apiVersion: 'v1', kind: 'Pod', namespace: 'kube-system', name: 'kube-controller-manager-control-plane' },
    ],
    [
      { action: 'stop', target: 'scheduler-2' },
      { apiVersion: 'v1', kind: 'Pod', namespace: 'kube-system', name: 'kube-scheduler-control-plane' },
    ],
    [{ action: 'apiserver' }, { apiVersion: 'v1', kind: 'Pod', namespace: 'kube-system', name: 'kube-apiserver-control-plane' }],
    [
      { action: 'delete-pod', pods: { namespace: 'prod' } },
      { apiVersion: 'v1', kind: 'Namespace', name: 'prod' },
    ],
    [
      { action: 'kill', target: 'kubelet-sim' },
      { apiVersion: 'v1', kind: 'Namespace', name: 'kube-system' },
    ],
  ];
  for (const [req, want] of cases) assert.deepEqual(involvedObjectOf(req), want, JSON.stringify(req));
  assert.deepEqual(involvedObjectOf({ action: 'kill', target: 'scheduler' }, ''), {
    apiVersion: 'v1',
    kind: 'Namespace',
    name: 'kube-system',
  });
});

test('a fault Event carries its cause (ksim-chaos and the fault), so the history and the web UI can tell it from other writes', async () => {
  seen.length = 0;
  const node = { apiVersion: 'v1', kind: 'Node', name: 'node-3' };
  await recordChaosEvent(client, { reason: 'ChaosInjected', message: 'partitioned node-3 from the apiserver', involvedObject: node });
  assert.equal(seen.length, 1);
  assert.ok(seen[0].cause, 'the write sent no cause header');
  assert.deepEqual(decodeCause(seen[0].cause), {
    controller: 'ksim-chaos',
    detail: 'ChaosInjected: partitioned node-3 from the apiserver',
  });
});
