// Projected ServiceAccount tokens with a fake TokenRequest API on a
// FakeClock: the request kubelet makes (as the node, bound to the Pod,
// audience and lifetime from the source), the files a container reads, the
// FailedMount while the API refuses, the refresh at 80% of the lifetime, and
// nothing left behind when the Pod goes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import { StatusError } from '../../shared/api/errors.ts';
import { FakeClock } from '../../shared/clock/clock.ts';
import { fakeNode, MapConfigSource, MemoryRecorder } from './fakes.ts';
import { LogStore } from './log-store.ts';
import { PodWorker } from './pod-worker.ts';
import { runProcess } from './shell.ts';
import { DEFAULT_TIMINGS } from './timings.ts';
import { TokenManager, type RequestToken } from './token-manager.ts';

const pod: Pod = {
  metadata: { namespace: 'lab', name: 'web', uid: 'uid-1' },
  spec: {
    nodeName: 'node-0',
    serviceAccountName: 'reader',
    containers: [
      {
        name: 'main',
        image: 'busybox',
        command: ['sleep', '3600'],
        volumeMounts: [{ name: 'kube-api-access-x', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
      },
    ],
    volumes: [
      {
        name: 'kube-api-access-x',
        projected: {
          sources: [
            { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            { downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
          ],
        },
      },
    ],
  },
};

/** A TokenRequest API: records each request, answers with numbered tokens, or refuses while `refuse` is set. */
function fakeApi(clock: FakeClock) {
  const calls: { node: string; namespace: string; sa: string; body: TokenRequest }[] = [];
  const api = { calls, refuse: undefined as StatusError | undefined };
  const request: RequestToken = (node, namespace, sa, body) => {
    calls.push({ node, namespace, sa, body });
    if (api.refuse) return Promise.reject(api.refuse);
    const seconds = body.spec.expirationSeconds!;
    return Promise.resolve({
      ...body,
      status: { token: `token-${calls.length}`, expirationTimestamp: new Date(clock.now() + seconds * 1000).toISOString() },
    });
  };
  return { api, request };
}

test('a TokenRequest as the node, bound to the Pod; cached; refreshed at 80% of its lifetime; dropped with the Pod', async () => {
  const clock = new FakeClock();
  const { api, request } = fakeApi(clock);
  const tokens = new TokenManager(request, clock);
  const source = pod.spec!.volumes![0].projected!.sources![0].serviceAccountToken!;
  assert.equal(tokens.ready(pod), false);
  let refreshed = 0;
  await tokens.fetchAll(pod, () => refreshed++);
  await tokens.fetchAll(pod, () => refreshed++);
  assert.equal(api.calls.length, 1, 'the second fetch is answered from the cache');
  assert.deepEqual(api.calls[0], {
    node: 'node-0',
    namespace: 'lab',
    sa: 'reader',
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: {},
      spec: { audiences: [], expirationSeconds: 3607, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'uid-1' } },
    },
  });
  assert.equal(tokens.cached(pod, source), 'token-1');
  await clock.step(Math.floor(3607 * 800) - 1000);
  assert.equal(api.calls.length, 1);
  await clock.step(2000);
  assert.equal(api.calls.length, 2, 'refreshed once 80% of the lifetime passed');
  assert.equal(tokens.cached(pod, source), 'token-2');
  assert.equal(refreshed, 1);
  tokens.forgetPod('uid-1');
  assert.equal(tokens.cached(pod, source), undefined);
  assert.equal(clock.pending, 0, 'no refresh timer is left');
});

test('the container reads the token, ca.crt and namespace; a refused TokenRequest is a FailedMount and a retry', async () => {
  const clock = new FakeClock();
  const { api, request } = fakeApi(clock);
  api.refuse = new StatusError(404, 'NotFound', 'serviceaccounts "reader" not found');
  const recorder = new MemoryRecorder(() => clock.now());
  const config = new MapConfigSource();
  config.rootCa = () => 'CLUSTER CA\n';
  const worker = new PodWorker(structuredClone(pod), {
    clock,
    timings: DEFAULT_TIMINGS,
    speed: 1,
    node: fakeNode(),
    recorder,
    config,
    logs: new LogStore(),
    tokens: new TokenManager(request, clock),
    onChange: () => {},
  });
  worker.start();
  await clock.step(3000);
  assert.ok(
    recorder.events.some(
      (e) =>
        e.line ===
        'Warning FailedMount: MountVolume.SetUp failed for volume "kube-api-access-x" : failed to fetch token: serviceaccounts "reader" not found',
    ),
    recorder.events.map((e) => e.line).join('\n'),
  );
  assert.equal(worker.status().containerStatuses?.[0].state?.waiting?.reason, 'ContainerCreating');
  api.refuse = undefined;
  for (let i = 0; i < 100 && !worker.execContext('main', () => {}); i++) await clock.step(500);
  let out = '';
  const ctx = worker.execContext('main', (t) => (out += t))!;
  assert.ok(ctx, 'the container runs once the token is issued');
  const dir = '/var/run/secrets/kubernetes.io/serviceaccount';
  await runProcess(['sh', '-c', `cat ${dir}/token; echo; cat ${dir}/ca.crt; cat ${dir}/namespace`], ctx);
  assert.equal(out, `token-${api.calls.length}\nCLUSTER CA\nlab`);
  worker.stop();
});
