import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultPullPolicy, podQOSClass } from './pod-spec.ts';
import { POD_UPDATE_FORBIDDEN } from './pod.ts';
import { defaulted, invalidMessage } from './testing.ts';

const pod = (spec: any, extra: any = {}) => ({
  metadata: { name: 'p', namespace: 'default' },
  spec,
  status: { phase: 'Pending' },
  ...extra,
});
const ctr = (over: any = {}) => ({ name: 'c', image: 'nginx:1.25', ...over });

describe('Pod defaults', () => {
  it('fills a minimal Pod the way kube stores it', () => {
    assert.deepEqual(defaulted('/pods', pod({ containers: [{ name: 'web', image: 'nginx' }] })), {
      metadata: { name: 'p', namespace: 'default' },
      spec: {
        containers: [
          {
            name: 'web',
            image: 'nginx',
            imagePullPolicy: 'Always',
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
            resources: {},
          },
        ],
        dnsPolicy: 'ClusterFirst',
        restartPolicy: 'Always',
        securityContext: {},
        terminationGracePeriodSeconds: 30,
        schedulerName: 'default-scheduler',
        enableServiceLinks: true,
      },
      status: { phase: 'Pending', qosClass: 'BestEffort' },
    });
  });

  const digest = 'sha256:' + 'a'.repeat(64);
  const pulls: [string, string][] = [
    ['nginx', 'Always'],
    ['nginx:latest', 'Always'],
    ['nginx:1.25', 'IfNotPresent'],
    [`nginx@${digest}`, 'IfNotPresent'],
    [`nginx:latest@${digest}`, 'Always'],
    ['registry.local:5000/team/app', 'Always'],
    ['registry.local:5000/team/app:v1', 'IfNotPresent'],
    ['Nginx', 'IfNotPresent'],
    ['', 'IfNotPresent'],
  ];
  for (const [image, want] of pulls)
    it(`imagePullPolicy for ${JSON.stringify(image)} is ${want}`, () => assert.equal(defaultPullPolicy(image), want));

  it('keeps an explicit pull policy and fills ports, env refs and probes', () => {
    const p = defaulted(
      '/pods',
      pod({
        containers: [
          ctr({
            imagePullPolicy: 'Never',
            ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }],
            env: [
              { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
              { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } },
            ],
            livenessProbe: { httpGet: { port: 8080 } },
            readinessProbe: { tcpSocket: { port: 'http' }, periodSeconds: 5 },
          }),
        ],
      }),
    );
    const c = p.spec.containers[0];
    assert.equal(c.imagePullPolicy, 'Never');
    assert.deepEqual(c.ports, [
      { containerPort: 80, protocol: 'TCP' },
      { containerPort: 53, protocol: 'UDP' },
    ]);
    assert.deepEqual(c.env[0].valueFrom.fieldRef, { fieldPath: 'spec.nodeName', apiVersion: 'v1' });
    assert.deepEqual(c.env[1].valueFrom.resourceFieldRef, { resource: 'limits.memory', divisor: '0' });
    assert.deepEqual(c.livenessProbe, {
      httpGet: { port: 8080, path: '/', scheme: 'HTTP' },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    assert.deepEqual(c.readinessProbe, {
      tcpSocket: { port: 'http' },
      periodSeconds: 5,
      timeoutSeconds: 1,
      successThreshold: 1,
      failureThreshold: 3,
    });
  });

  it('defaults volumes', () => {
    const p = defaulted(
      '/pods',
      pod({
        containers: [ctr()],
        volumes: [
          { name: 'scratch' },
          { name: 'cfg', configMap: { name: 'app' } },
          { name: 'sec', secret: { secretName: 's', defaultMode: 256 } },
          { name: 'host', hostPath: { path: '/var/log' } },
          { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
          { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
          { name: 'cache', emptyDir: { sizeLimit: '1024Mi' } },
        ],
      }),
    );
    assert.deepEqual(p.spec.volumes, [
      { name: 'scratch', emptyDir: {} },
      { name: 'cfg', configMap: { name: 'app', defaultMode: 420 } },
      { name: 'sec', secret: { secretName: 's', defaultMode: 256 } },
      { name: 'host', hostPath: { path: '/var/log', type: '' } },
      {
        name: 'info',
        downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels', apiVersion: 'v1' } }], defaultMode: 420 },
      },
      { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }], defaultMode: 420 } },
      { name: 'cache', emptyDir: { sizeLimit: '1Gi' } },
    ]);
  });

  it('copies limits to missing requests and canonicalizes quantities (Pods only)', () => {
    const spec = { containers: [ctr({ resources: { limits: { cpu: '0.5', memory: '1024Mi' }, requests: { cpu: '250m' } } })] };
    const p = defaulted('/pods', pod(spec));
    assert.deepEqual(p.spec.containers[0].resources, { limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: '250m', memory: '1Gi' } });
    assert.equal(p.status.qosClass, 'Burstable');
    const d = defaulted('apps/deployments', { metadata: { name: 'd' }, spec: { template: { spec: structuredClone(spec) } } });
    assert.deepEqual(d.spec.template.spec.containers[0].resources, { limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: '250m' } });
    assert.equal(d.spec.template.spec.enableServiceLinks, undefined);
  });

  it('makes hostNetwork ports host ports', () => {
    const p = defaulted('/pods', pod({ hostNetwork: true, containers: [ctr({ ports: [{ containerPort: 8080 }] })] }));
    assert.deepEqual(p.spec.containers[0].ports, [{ containerPort: 8080, protocol: 'TCP', hostPort: 8080 }]);
  });

  const qos: [string, any[], string][] = [
    ['BestEffort', [ctr()], 'BestEffort'],
    ['Guaranteed', [ctr({ resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } } })], 'Guaranteed'],
    ['requests only', [ctr({ resources: { requests: { cpu: '100m' } } })], 'Burstable'],
    ['cpu limit only', [ctr({ resources: { limits: { cpu: '1' }, requests: { cpu: '1' } } })], 'Burstable'],
  ];
  for (const [name, containers, want] of qos) it(`QoS ${name} -> ${want}`, () => assert.equal(podQOSClass({ containers }), want));
});

describe('Pod validation', () => {
  const M = (spec: any, extra?: any) => invalidMessage('/pods', 'Pod', '', pod(spec, extra));
  const cases: [string, any, string][] = [
    ['valid', { containers: [ctr()] }, ''],
    ['no containers', {}, 'Pod "p" is invalid: spec.containers: Required value'],
    ['no image', { containers: [{ name: 'c' }] }, 'Pod "p" is invalid: spec.containers[0].image: Required value'],
    ['no container name', { containers: [{ image: 'nginx' }] }, 'Pod "p" is invalid: spec.containers[0].name: Required value'],
    [
      'bad container name',
      { containers: [ctr({ name: 'Web_1' })] },
      `Pod "p" is invalid: spec.containers[0].name: Invalid value: "Web_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ],
    [
      'duplicate names',
      { containers: [ctr({ name: 'a' }), ctr({ name: 'a' })] },
      'Pod "p" is invalid: spec.containers[1].name: Duplicate value: "a"',
    ],
    [
      'port out of range',
      { containers: [ctr({ ports: [{ containerPort: 70000 }] })] },
      'Pod "p" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    ],
    [
      'bad protocol',
      { containers: [ctr({ ports: [{ containerPort: 80, protocol: 'HTTP' }] })] },
      'Pod "p" is invalid: spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    ],
    [
      'restartPolicy',
      { restartPolicy: 'Sometimes', containers: [ctr()] },
      'Pod "p" is invalid: spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    ],
    [
      'requests over limits',
      { containers: [ctr({ resources: { limits: { cpu: '1' }, requests: { cpu: '2' } } })] },
      'Pod "p" is invalid: spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
    ],
    [
      'unparseable quantity',
      { containers: [ctr({ resources: { limits: { cpu: 'lots' } } })] },
      `Pod "p" is invalid: [spec.containers[0].resources.limits[cpu]: Invalid value: "lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$', spec.containers[0].resources.requests[cpu]: Invalid value: "lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$']`,
    ],
    [
      'negative quantity',
      { containers: [ctr({ resources: { requests: { memory: '-1Gi' } } })] },
      'Pod "p" is invalid: spec.containers[0].resources.requests[memory]: Invalid value: "-1Gi": must be greater than or equal to 0',
    ],
    [
      'unknown resource',
      { containers: [ctr({ resources: { requests: { gpu: '1' } } })] },
      'Pod "p" is invalid: [spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified, spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for containers]',
    ],
    [
      'extended resource needs a limit',
      { containers: [ctr({ resources: { requests: { 'example.com/gpu': '1' } } })] },
      'Pod "p" is invalid: spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources',
    ],
    [
      'duplicate volume',
      { containers: [ctr()], volumes: [{ name: 'v' }, { name: 'v' }] },
      'Pod "p" is invalid: spec.volumes[1].name: Duplicate value: "v"',
    ],
    [
      'mount of a missing volume',
      { containers: [ctr({ volumeMounts: [{ name: 'data', mountPath: '/data' }] })] },
      'Pod "p" is invalid: spec.containers[0].volumeMounts[0].name: Not found: "data"',
    ],
    [
      'two volume types',
      { containers: [ctr()], volumes: [{ name: 'v', emptyDir: {}, configMap: { name: 'x' } }] },
      'Pod "p" is invalid: spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type',
    ],
    [
      'secret without name',
      { containers: [ctr()], volumes: [{ name: 'v', secret: {} }] },
      'Pod "p" is invalid: spec.volumes[0].secret.secretName: Required value',
    ],
    [
      'env without name',
      { containers: [ctr({ env: [{ value: 'x' }] })] },
      'Pod "p" is invalid: spec.containers[0].env[0].name: Required value',
    ],
    [
      'unsupported fieldRef',
      { containers: [ctr({ env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'status.phase' } } }] })] },
      'Pod "p" is invalid: spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "status.phase": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"',
    ],
    [
      'liveness successThreshold',
      { containers: [ctr({ livenessProbe: { exec: { command: ['true'] }, successThreshold: 2 } })] },
      'Pod "p" is invalid: spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
    ],
    [
      'probe without handler',
      { containers: [ctr({ readinessProbe: {} })] },
      'Pod "p" is invalid: spec.containers[0].readinessProbe: Required value: must specify a handler type',
    ],
    [
      'init container probe',
      { containers: [ctr()], initContainers: [ctr({ name: 'init', livenessProbe: { exec: { command: ['x'] } } })] },
      'Pod "p" is invalid: spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
    ],
    [
      'init container name clash',
      { containers: [ctr()], initContainers: [ctr()] },
      'Pod "p" is invalid: spec.initContainers[0].name: Duplicate value: "c"',
    ],
    [
      'host port conflict',
      {
        containers: [
          ctr({ name: 'a', ports: [{ containerPort: 80, hostPort: 80 }] }),
          ctr({ name: 'b', ports: [{ containerPort: 81, hostPort: 80 }] }),
        ],
      },
      'Pod "p" is invalid: spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//80"',
    ],
    [
      'image whitespace',
      { containers: [ctr({ image: ' nginx' })] },
      'Pod "p" is invalid: spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace',
    ],
    [
      'activeDeadlineSeconds',
      { containers: [ctr()], activeDeadlineSeconds: 0 },
      'Pod "p" is invalid: spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive',
    ],
    [
      'toleration without key',
      { containers: [ctr()], tolerations: [{ operator: 'Equal', value: 'x' }] },
      'Pod "p" is invalid: spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
    ],
    [
      'dnsPolicy None without config',
      { containers: [ctr()], dnsPolicy: 'None' },
      'Pod "p" is invalid: spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None',
    ],
    [
      'ephemeral containers on create',
      { containers: [ctr()], ephemeralContainers: [{ name: 'debug', image: 'busybox' }] },
      'Pod "p" is invalid: spec.ephemeralContainers: Forbidden: cannot be set on create',
    ],
  ];
  for (const [name, spec, want] of cases) it(name, () => assert.equal(M(spec), want));
});

describe('Pod updates', () => {
  const stored = defaulted('/pods', pod({ containers: [ctr()], tolerations: [{ key: 'a', operator: 'Exists' }] }));
  const update = (mutate: (p: any) => void) => {
    const next = structuredClone(stored);
    mutate(next);
    return invalidMessage('/pods', 'Pod', '', next, stored);
  };
  it('allows image changes', () =>
    assert.equal(
      update((p) => (p.spec.containers[0].image = 'nginx:1.26')),
      '',
    ));
  it('allows adding tolerations and setting activeDeadlineSeconds', () =>
    assert.equal(
      update((p) => {
        p.spec.tolerations.push({ key: 'b', operator: 'Exists' });
        p.spec.activeDeadlineSeconds = 30;
      }),
      '',
    ));
  it('forbids other spec changes', () => {
    const msg = update((p) => (p.spec.containers[0].ports = [{ containerPort: 80 }]));
    assert.ok(msg.startsWith(`Pod "p" is invalid: spec: Forbidden: ${POD_UPDATE_FORBIDDEN}\n  core.PodSpec{\n`), msg);
  });
  it('forbids adding containers', () =>
    assert.equal(
      update((p) => p.spec.containers.push(ctr({ name: 'd' }))),
      'Pod "p" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers',
    ));
  it('forbids removing tolerations', () =>
    assert.equal(
      update((p) => (p.spec.tolerations = [])),
      'Pod "p" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
    ));
  it('forbids raising activeDeadlineSeconds', () => {
    const s2 = structuredClone(stored);
    s2.spec.activeDeadlineSeconds = 10;
    const next = structuredClone(s2);
    next.spec.activeDeadlineSeconds = 20;
    assert.equal(
      invalidMessage('/pods', 'Pod', '', next, s2),
      'Pod "p" is invalid: spec.activeDeadlineSeconds: Invalid value: 20: must be less than or equal to previous value',
    );
  });
});
