// JSON -> protobuf -> JSON for the kinds kubectl sends and a few richer
// objects. Decoding gives Go's JSON form, which may add what Go always
// writes (non-pointer structs such as `status: {}`, fields without
// omitempty); so each case checks that everything we wrote comes back, that
// the result is a fixed point, and, for most, the exact result.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeKubeProtobuf, encodeKubeProtobuf, ProtobufEncodeError } from './index.ts';

/** Every value in `want` is in `got` (objects may have more keys; arrays must match in length). */
function assertContains(got: unknown, want: unknown, path = '$'): void {
  if (Array.isArray(want)) {
    assert.ok(Array.isArray(got), `${path}: not an array`);
    assert.equal(got.length, want.length, `${path}: length`);
    want.forEach((w, i) => assertContains(got[i], w, `${path}[${i}]`));
  } else if (typeof want === 'object' && want !== null) {
    assert.ok(typeof got === 'object' && got !== null, `${path}: not an object`);
    for (const [k, w] of Object.entries(want)) assertContains((got as Record<string, unknown>)[k], w, `${path}.${k}`);
  } else assert.equal(got, want, path);
}

/** Round-trips an object and returns what came back, after the checks every case shares. */
function roundTrip(obj: any): any {
  const bytes = encodeKubeProtobuf(obj);
  const d = decodeKubeProtobuf(bytes);
  assert.equal(d.kind, obj.kind);
  assert.equal(d.apiVersion, obj.apiVersion);
  assertContains(d.object, obj);
  const again = encodeKubeProtobuf(d.object);
  assert.equal(again.toString('hex'), bytes.toString('hex'), 'Go form encodes to the same bytes');
  assert.deepEqual(decodeKubeProtobuf(again).object, d.object, 'decoding is a fixed point');
  return d.object;
}

test('Namespace', () => {
  const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { team: 'a' } } };
  assert.deepEqual(roundTrip(ns), { ...ns, spec: {}, status: {} });
});

test('ConfigMap with data and binaryData', () => {
  const cm = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cfg', namespace: 'default', annotations: { 'a.b/c': 'd' } },
    data: { 'app.properties': 'x=1\ny=2\n', empty: '', ünïcode: '✓' },
    binaryData: { blob: Buffer.from([0, 1, 2, 250]).toString('base64') },
    immutable: false,
  };
  assert.deepEqual(roundTrip(cm), cm);
});

test('Secret: bytes values are base64 in JSON, raw bytes on the wire', () => {
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', namespace: 'default' },
    type: 'Opaque',
    data: { password: Buffer.from('hunter2').toString('base64'), bin: Buffer.from([255, 0, 128]).toString('base64'), none: '' },
  };
  assert.deepEqual(roundTrip(secret), secret);
  // The value bytes on the wire are the decoded bytes, not the base64 text.
  assert.ok(encodeKubeProtobuf(secret).includes(Buffer.from('hunter2')));
});

test('Deployment with a full pod template', () => {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'prod', labels: { app: 'web' }, generation: 3, uid: '6a1c1f7e-0000-4000-8000-000000000001' },
    spec: {
      replicas: 0,
      revisionHistoryLimit: 5,
      selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['fe', 'be'] }] },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } },
      template: {
        metadata: { labels: { app: 'web' }, annotations: { 'prometheus.io/scrape': 'true' } },
        spec: {
          terminationGracePeriodSeconds: 0,
          automountServiceAccountToken: false,
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          securityContext: { runAsUser: 1000, runAsNonRoot: true, fsGroup: 2000 },
          containers: [
            {
              name: 'app',
              image: 'nginx:1.27',
              command: ['nginx'],
              args: ['-g', 'daemon off;'],
              ports: [
                { name: 'http', containerPort: 8080, protocol: 'TCP' },
                { containerPort: 9090, hostPort: 9090, protocol: 'UDP' },
              ],
              env: [
                { name: 'PLAIN', value: 'v' },
                { name: 'POD_IP', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } } },
                { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password', optional: true } } },
                { name: 'LIMIT', valueFrom: { resourceFieldRef: { containerName: 'app', resource: 'limits.memory', divisor: '1Mi' } } },
              ],
              envFrom: [{ configMapRef: { name: 'cfg' }, prefix: 'CFG_' }],
              resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m', memory: '64Mi', 'nvidia.com/gpu': '1' } },
              volumeMounts: [{ name: 'config', mountPath: '/etc/app', readOnly: true }],
              livenessProbe: {
                httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP', httpHeaders: [{ name: 'X-Probe', value: '1' }] },
                initialDelaySeconds: 10,
                periodSeconds: 5,
                failureThreshold: 3,
              },
              readinessProbe: { exec: { command: ['cat', '/tmp/ready'] }, timeoutSeconds: 2 },
              startupProbe: { tcpSocket: { port: 'http' }, terminationGracePeriodSeconds: 30 },
              lifecycle: { preStop: { sleep: { seconds: 5 } } },
              imagePullPolicy: 'IfNotPresent',
              securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
            },
          ],
          volumes: [
            {
              name: 'config',
              configMap: { name: 'cfg', items: [{ key: 'app.properties', path: 'app.properties', mode: 0o644 }], defaultMode: 420 },
            },
            { name: 'scratch', emptyDir: { medium: 'Memory', sizeLimit: '1Gi' } },
            { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }] } },
          ],
          tolerations: [
            { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
            { key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' },
          ],
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                { weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' } },
              ],
            },
          },
        },
      },
    },
    status: {
      observedGeneration: 3,
      replicas: 2,
      conditions: [
        {
          type: 'Available',
          status: 'True',
          lastUpdateTime: '2026-11-30T10:00:00Z',
          lastTransitionTime: '2026-11-30T09:59:00Z',
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
        },
      ],
    },
  };
  const got = roundTrip(deployment);
  // What Go adds: zero values of fields without omitempty, and non-pointer structs.
  const c = got.spec.template.spec.containers[0];
  assert.equal(got.spec.replicas, 0);
  assert.equal(got.spec.template.spec.terminationGracePeriodSeconds, 0);
  assert.equal(got.spec.template.spec.automountServiceAccountToken, false);
  assert.equal(c.livenessProbe.httpGet.port, 8080);
  assert.equal(c.startupProbe.tcpSocket.port, 'http');
  assert.deepEqual(c.resources.requests, { cpu: '100m', memory: '64Mi', 'nvidia.com/gpu': '1' });
  assert.equal(got.spec.strategy.rollingUpdate.maxSurge, 1);
  assert.equal(got.spec.strategy.rollingUpdate.maxUnavailable, '25%');
  assert.deepEqual(got.spec.template.spec.volumes[1].emptyDir, { medium: 'Memory', sizeLimit: '1Gi' });
  assert.deepEqual(Object.keys(got), ['kind', 'apiVersion', 'metadata', 'spec', 'status'], 'Go field order');
});

test('Service with targetPort as an int and as a string', () => {
  const svc = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      type: 'ClusterIP',
      selector: { app: 'web' },
      ports: [
        { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 },
        { name: 'metrics', protocol: 'TCP', port: 9090, targetPort: 'metrics' },
      ],
    },
  };
  assert.deepEqual(roundTrip(svc), { ...svc, status: { loadBalancer: {} } });
  // A port without targetPort: IntOrString is a non-pointer struct, so Go writes 0.
  const bare = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'b' }, spec: { ports: [{ port: 80 }] } };
  assert.deepEqual(roundTrip(bare).spec.ports, [{ port: 80, targetPort: 0 }]);
});

test('Job', () => {
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'pi', namespace: 'default' },
    spec: {
      parallelism: 1,
      completions: 1,
      backoffLimit: 0,
      suspend: false,
      ttlSecondsAfterFinished: 100,
      template: {
        metadata: {},
        spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl', command: ['perl', '-e', 'print 1'], resources: {} }] },
      },
    },
    status: { startTime: '2026-11-30T10:00:00Z', active: 1 },
  };
  assert.deepEqual(roundTrip(job), job);
});

test('SelfSubjectAccessReview', () => {
  const ssar = {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: {},
    spec: { resourceAttributes: { namespace: 'default', verb: 'list', group: 'apps', resource: 'deployments', subresource: 'scale' } },
    status: { allowed: true, reason: 'RBAC: allowed by RoleBinding' },
  };
  assert.deepEqual(roundTrip(ssar), ssar);
  const sar = {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    metadata: {},
    spec: { user: 'alice', groups: ['dev'], extra: { scopes: ['a', 'b'] }, nonResourceAttributes: { path: '/healthz', verb: 'get' } },
    status: { allowed: false },
  };
  assert.deepEqual(roundTrip(sar), sar);
});

test('TokenRequest', () => {
  const tr = {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    metadata: { name: 'sa', namespace: 'default' },
    spec: {
      audiences: ['https://kubernetes.default.svc'],
      expirationSeconds: 3600,
      boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: 'u-1' },
    },
    status: { token: 'eyJ...', expirationTimestamp: '2026-11-30T11:00:00Z' },
  };
  assert.deepEqual(roundTrip(tr), tr);
});

test('lists, managedFields (FieldsV1) and MicroTime', () => {
  const list = {
    apiVersion: 'v1',
    kind: 'ConfigMapList',
    metadata: { resourceVersion: '42', continue: 'abc', remainingItemCount: 3 },
    items: [
      {
        metadata: {
          name: 'a',
          managedFields: [
            {
              manager: 'kubectl',
              operation: 'Apply',
              apiVersion: 'v1',
              time: '2026-11-30T10:00:00Z',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:data': { 'f:k': {} } },
            },
          ],
        },
        data: { k: 'v' },
      },
    ],
  };
  assert.deepEqual(roundTrip(list), list);
  const event = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'e', namespace: 'default' },
    eventTime: '2026-11-30T10:00:00.123456Z',
    reportingController: 'ksim/scheduler',
    reportingInstance: 'scheduler-1',
    action: 'Binding',
    reason: 'Scheduled',
    regarding: { kind: 'Pod', namespace: 'default', name: 'p' },
    note: 'Successfully assigned default/p to node-1',
    type: 'Normal',
  };
  assert.deepEqual(roundTrip(event), { ...event, deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null });
});

test('encoding rejects unknown kinds and values of the wrong type, naming the field', () => {
  const err = (obj: unknown, message: string): void =>
    assert.throws(
      () => encodeKubeProtobuf(obj),
      (e: unknown) => e instanceof ProtobufEncodeError && e.message === message,
    );
  err({ apiVersion: 'v1', kind: 'Nope' }, 'no kind "Nope" is registered for version "v1"');
  err({ apiVersion: 'v1' }, "Object 'Kind' is missing");
  err({ apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 'two' } }, 'Deployment.spec.replicas: expected an integer, got "two"');
  err(
    { apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 2 ** 31 } },
    'Deployment.spec.replicas: 2147483648 is out of range for int32',
  );
  err({ apiVersion: 'v1', kind: 'Secret', data: { k: 'not base64!' } }, 'Secret.data["k"]: expected a base64 string, got "not base64!"');
  err({ apiVersion: 'v1', kind: 'Pod', spec: { containers: {} } }, 'Pod.spec.containers: expected an array, got an object');
  err({ apiVersion: 'v1', kind: 'Pod', status: { startTime: 'noon' } }, 'Pod.status.startTime: expected an RFC 3339 time, got "noon"');
});
