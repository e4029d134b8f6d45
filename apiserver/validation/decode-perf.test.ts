// How long the decoding-time checks take on large bodies: a 1 MiB ConfigMap
// and a Deployment with 300 containers should take well under 50 ms each.
// The bound asserted is looser so that a busy machine does not fail the test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeChecks } from './index.ts';

const LIMIT_MS = 200;

/** Best of a few runs of decodeChecks on `body` (parsing excluded), after a few warm-up runs. */
function time(kind: { group: string; version: string; kind: string }, body: string): number {
  const raw = Buffer.from(body);
  for (let i = 0; i < 3; i++) decodeChecks(kind, raw, JSON.parse(body), 'Strict');
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const obj = JSON.parse(body);
    const start = performance.now();
    const result = decodeChecks(kind, raw, obj, 'Strict');
    best = Math.min(best, performance.now() - start);
    assert.deepEqual(result.warnings, []);
  }
  return best;
}

test('a 1 MiB ConfigMap', () => {
  const data: Record<string, string> = {};
  for (let i = 0; i < 1024; i++) data[`key-${i}.properties`] = `line "${i}"\n`.repeat(80).slice(0, 1000);
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', namespace: 'default' }, data });
  assert.ok(body.length > 1024 * 1024);
  const ms = time({ group: '', version: 'v1', kind: 'ConfigMap' }, body);
  console.log(`1 MiB ConfigMap (${body.length} bytes): ${ms.toFixed(2)} ms`);
  assert.ok(ms < LIMIT_MS, `${ms} ms`);
});

test('a Deployment with 300 containers', () => {
  const containers = Array.from({ length: 300 }, (_, i) => ({
    name: `c${i}`,
    image: 'registry.example/app:1.2.3',
    imagePullPolicy: 'IfNotPresent',
    command: ['/app'],
    args: ['--port', String(8000 + i), '--verbose'],
    env: [
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'MODE', value: 'fast' },
    ],
    ports: [{ name: 'http', containerPort: 8000 + i, protocol: 'TCP' }],
    resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '64Mi' } },
    livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10, failureThreshold: 3 },
    readinessProbe: { tcpSocket: { port: 8000 + i }, initialDelaySeconds: 2 },
    volumeMounts: [{ name: 'config', mountPath: '/etc/app', readOnly: true }],
    securityContext: { runAsNonRoot: true, capabilities: { drop: ['ALL'] } },
  }));
  const body = JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'wide', labels: { app: 'wide' }, annotations: { note: 'x'.repeat(1000) } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'wide' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
      template: {
        metadata: { labels: { app: 'wide' } },
        spec: { containers, volumes: [{ name: 'config', configMap: { name: 'app' } }], tolerations: [{ key: 'k', operator: 'Exists' }] },
      },
    },
  });
  const ms = time({ group: 'apps', version: 'v1', kind: 'Deployment' }, body);
  console.log(`Deployment with 300 containers (${body.length} bytes): ${ms.toFixed(2)} ms`);
  assert.ok(ms < LIMIT_MS, `${ms} ms`);
});
