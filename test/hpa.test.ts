// The HorizontalPodAutoscaler end to end on `ksim up --speed 20`, driven by
// the real kubectl, as the kubernetes.io walkthrough runs it: php-apache
// behind a Service, `kubectl autoscale`, `<unknown>` until metrics come, a
// busybox load generator scaling it up, and back down once the load stops
// and the downscale stabilization window (300 s / 20) has passed; kube's
// conditions and events; the autoscaling/v1 view of the same object; kube's
// validation messages.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, ok, startCluster, type Cluster } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 1, speed: 20 });
});
after(() => c?.stop());

const phpApache = `apiVersion: apps/v1
kind: Deployment
metadata: {name: php-apache}
spec:
  selector: {matchLabels: {run: php-apache}}
  template:
    metadata: {labels: {run: php-apache}}
    spec:
      containers:
      - name: php-apache
        image: registry.k8s.io/hpa-example
        ports: [{containerPort: 80}]
        resources: {limits: {cpu: 500m}, requests: {cpu: 200m}}
---
apiVersion: v1
kind: Service
metadata: {name: php-apache, labels: {run: php-apache}}
spec:
  ports: [{port: 80}]
  selector: {run: php-apache}
`;

const hpaRow = async () => ok(await c.k(['get', 'hpa', 'php-apache', '--no-headers']));
const replicas = async () => Number(await c.jsonpath(['get', 'deploy', 'php-apache'], '{.spec.replicas}'));
const events = async () =>
  ok(
    await c.k([
      'get',
      'events',
      '--field-selector',
      'involvedObject.kind=HorizontalPodAutoscaler',
      '-o',
      'custom-columns=R:.reason,M:.message,S:.source.component',
      '--no-headers',
    ]),
  );
const condition = async (type: string) =>
  c.jsonpath(
    ['get', 'hpa', 'php-apache'],
    `{.status.conditions[?(@.type=="${type}")].status} {.status.conditions[?(@.type=="${type}")].reason}`,
  );

describe('the HPA walkthrough', () => {
  test('kubectl autoscale: an autoscaling/v2 HPA whose target is <unknown> until metrics come', async () => {
    ok(await c.k(['apply', '-f', '-'], phpApache));
    ok(await c.k(['rollout', 'status', 'deploy/php-apache', '--timeout=60s']));
    assert.equal(
      ok(await c.k(['autoscale', 'deployment', 'php-apache', '--cpu-percent=50', '--min=1', '--max=10'])).trim(),
      'horizontalpodautoscaler.autoscaling/php-apache autoscaled',
    );
    const header = ok(await c.k(['get', 'hpa'])).split('\n')[0];
    assert.match(header, /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/);
    assert.match(await hpaRow(), /^php-apache\s+Deployment\/php-apache\s+cpu: <unknown>\/50%\s+1\s+10\s+0\s+/);
    assert.equal(await c.jsonpath(['get', 'hpa', 'php-apache'], '{.apiVersion}'), 'autoscaling/v2');
    // Idle: a current utilization shows, and the HPA keeps one replica.
    await eventually('a current CPU utilization', async () => /cpu: \d+%\/50%\s+1\s+10\s+1\s/.test(await hpaRow()), 60_000);
    assert.equal(await condition('ScalingActive'), 'True ValidMetricFound');
    // An idle Pod recommends 0; the window's first recommendation (the current 1) holds it, as in kube.
    assert.match(await condition('AbleToScale'), /^True (ScaleDownStabilized|ReadyForNewScale)$/);
    assert.match(await condition('ScalingLimited'), /^(False DesiredWithinRange|True TooFewReplicas)$/);
  });

  test('the same object through autoscaling/v1', async () => {
    const v1 = JSON.parse(ok(await c.k(['get', '--raw', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/php-apache'])));
    assert.equal(v1.apiVersion, 'autoscaling/v1');
    assert.equal(v1.spec.targetCPUUtilizationPercentage, 50);
    assert.equal(typeof v1.status.currentCPUUtilizationPercentage, 'number');
    assert.match(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/conditions'], /"reason":"ValidMetricFound"/);
    const groups = JSON.parse(ok(await c.k(['get', '--raw', '/apis/autoscaling'])));
    assert.deepEqual(
      groups.versions.map((v: { version: string }) => v.version),
      ['v2', 'v1'],
    );
    assert.equal(groups.preferredVersion.version, 'v2');
  });

  test('written through autoscaling/v1, an HPA keeps its v2-only parts (the round-trip annotations)', async () => {
    ok(
      await c.k(
        ['apply', '-f', '-'],
        `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: two}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: php-apache}
  maxReplicas: 4
  metrics:
  - {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}}
  - {type: Resource, resource: {name: memory, target: {type: AverageValue, averageValue: 100Mi}}}
  behavior: {scaleDown: {stabilizationWindowSeconds: 30}}
`,
      ),
    );
    const v1 = JSON.parse(ok(await c.k(['get', '--raw', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/two'])));
    assert.equal(
      v1.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics'],
      '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}}]',
    );
    v1.spec.maxReplicas = 6;
    delete v1.metadata.resourceVersion;
    ok(await c.k(['replace', '-f', '-'], JSON.stringify(v1)));
    assert.equal(
      await c.jsonpath(
        ['get', 'hpa', 'two'],
        '{.spec.maxReplicas} {.spec.metrics[*].resource.name} {.spec.behavior.scaleDown.stabilizationWindowSeconds}',
      ),
      '6 memory cpu 30',
    );
    // The annotations were lifted back out: the stored (v2) object has none of them.
    assert.equal(await c.jsonpath(['get', 'hpa', 'two'], '{.metadata.annotations.autoscaling\\.alpha\\.kubernetes\\.io/metrics}'), '');
    ok(await c.k(['delete', 'hpa', 'two']));
  });

  test('load raises CPU above the target: scaled up with SuccessfulRescale; scaled back down after the stabilization window', async () => {
    ok(
      await c.k([
        'run',
        'load-generator',
        '--image=busybox:1.28',
        '--restart=Never',
        '--',
        '/bin/sh',
        '-c',
        'while sleep 0.01; do wget -q -O- http://php-apache; done',
      ]),
    );
    await eventually('a scale-up', async () => (await replicas()) > 1, 60_000);
    assert.match(
      await events(),
      /^SuccessfulRescale\s+New size: \d+; reason: cpu resource utilization \(percentage of request\) above target\s+horizontal-pod-autoscaler$/m,
    );
    const row = await hpaRow();
    assert.match(row, /^php-apache\s+Deployment\/php-apache\s+cpu: \d+%\/50%\s+1\s+10\s+\d+\s/);
    ok(await c.k(['delete', 'pod', 'load-generator', '--wait=false']));
    // Down only once the 15 s (300 s / 20) window of recommendations has passed.
    await eventually('a scale-down to one replica', async () => (await replicas()) === 1, 90_000);
    assert.match(await events(), /^SuccessfulRescale\s+New size: 1; reason: All metrics below target\s+horizontal-pod-autoscaler$/m);
    const described = ok(await c.k(['describe', 'hpa', 'php-apache']));
    assert.match(described, /resource cpu on pods\s+\(as a percentage of request\):\s+\d+% \(\d+m\) \/ 50%/);
    assert.match(
      described,
      /ScalingActive\s+True\s+ValidMetricFound\s+the HPA was able to successfully calculate a replica count from cpu resource utilization \(percentage of request\)/,
    );
  });
});

describe('errors', () => {
  test('a missing target: AbleToScale False FailedGetScale and its warning', async () => {
    ok(await c.k(['autoscale', 'deployment', 'php-apache', '--name=ghost', '--max=3']));
    ok(await c.k(['patch', 'hpa', 'ghost', '--type=merge', '-p', '{"spec":{"scaleTargetRef":{"name":"nosuch"}}}']));
    await eventually(
      'FailedGetScale',
      async () => (await c.jsonpath(['get', 'hpa', 'ghost'], '{.status.conditions[?(@.type=="AbleToScale")].reason}')) === 'FailedGetScale',
      30_000,
    );
    assert.match(await events(), /^FailedGetScale\s+deployments.apps "nosuch" not found\s+horizontal-pod-autoscaler$/m);
  });

  test("invalid HPAs are refused with kube's messages", async () => {
    const r = await c.k(
      ['apply', '-f', '-'],
      `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: bad}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: php-apache}
  minReplicas: 5
  maxReplicas: 2
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 0}}}]
`,
    );
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      /The HorizontalPodAutoscaler "bad" is invalid: \n\* spec\.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`\n\* spec\.metrics\[0\]\.resource\.target\.averageUtilization: Invalid value: 0: must be greater than 0/,
    );
  });
});
