import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { prepareDaemonSetUpdate } from './workloads.ts';
import { defaulted, invalidMessage } from './testing.ts';

const tpl = (labels: any = { app: 'web' }, spec: any = {}) => ({
  metadata: { labels },
  spec: { containers: [{ name: 'web', image: 'nginx:1.25' }], ...spec },
});
const defaultedTemplate = defaulted('apps/deployments', { metadata: { name: 'x' }, spec: { template: tpl() } }).spec.template;

describe('workload defaults', () => {
  it('Deployment', () => {
    const d = defaulted('apps/deployments', {
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: tpl() },
      status: {},
    });
    assert.deepEqual(d.spec, {
      selector: { matchLabels: { app: 'web' } },
      template: defaultedTemplate,
      replicas: 1,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    });
    assert.deepEqual(d.status, {});
  });
  it('Deployment with Recreate gets no rollingUpdate', () => {
    const d = defaulted('apps/deployments', { metadata: { name: 'web' }, spec: { strategy: { type: 'Recreate' }, template: tpl() } });
    assert.deepEqual(d.spec.strategy, { type: 'Recreate' });
  });
  it('ReplicaSet', () => {
    const r = defaulted('apps/replicasets', { metadata: { name: 'rs' }, spec: { template: tpl() }, status: {} });
    assert.equal(r.spec.replicas, 1);
    assert.deepEqual(r.status, { replicas: 0 });
  });
  it('DaemonSet', () => {
    const d = defaulted('apps/daemonsets', { metadata: { name: 'ds' }, spec: { template: tpl() }, status: {} });
    assert.deepEqual(d.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    assert.equal(d.spec.revisionHistoryLimit, 10);
    assert.deepEqual(d.metadata.annotations, { 'deprecated.daemonset.template.generation': '1' });
    assert.deepEqual(d.status, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
  });
  it('DaemonSet template change bumps the template generation', () => {
    const old = defaulted('apps/daemonsets', { metadata: { name: 'ds' }, spec: { template: tpl() } });
    const next = structuredClone(old);
    next.spec.template.spec.containers[0].image = 'nginx:1.26';
    prepareDaemonSetUpdate(next, old);
    assert.equal(next.metadata.annotations['deprecated.daemonset.template.generation'], '2');
  });
  it('StatefulSet', () => {
    const s = defaulted('apps/statefulsets', {
      metadata: { name: 'db' },
      spec: {
        serviceName: 'db',
        template: tpl(),
        volumeClaimTemplates: [
          { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1024Mi' } } } },
        ],
      },
      status: {},
    });
    assert.deepEqual(
      { ...s.spec, template: undefined },
      {
        serviceName: 'db',
        template: undefined,
        volumeClaimTemplates: [
          {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
            status: { phase: 'Pending' },
          },
        ],
        podManagementPolicy: 'OrderedReady',
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
        replicas: 1,
        revisionHistoryLimit: 10,
      },
    );
    assert.deepEqual(s.status, { replicas: 0, availableReplicas: 0 });
  });
  it('StatefulSet OnDelete keeps no rollingUpdate', () => {
    const s = defaulted('apps/statefulsets', { metadata: { name: 'db' }, spec: { updateStrategy: { type: 'OnDelete' }, template: tpl() } });
    assert.deepEqual(s.spec.updateStrategy, { type: 'OnDelete' });
  });
});

describe('Deployment validation', () => {
  const dep = (spec: any) => ({
    metadata: { name: 'web', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: tpl(), ...spec },
  });
  const M = (spec: any, old?: any) => invalidMessage('apps/deployments', 'Deployment', 'apps', dep(spec), old);
  const cases: [string, any, string][] = [
    ['valid', {}, ''],
    [
      'negative replicas',
      { replicas: -1 },
      'Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    ],
    [
      'no selector',
      { selector: undefined },
      'Deployment.apps "web" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`]',
    ],
    [
      'empty selector',
      { selector: {} },
      'Deployment.apps "web" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
    ],
    [
      'selector mismatch',
      { selector: { matchLabels: { app: 'api' } }, template: tpl({ app: 'web', tier: 'fe' }) },
      'Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"web", "tier":"fe"}: `selector` does not match template `labels`',
    ],
    [
      'restartPolicy',
      { template: tpl({ app: 'web' }, { restartPolicy: 'Never' }) },
      'Deployment.apps "web" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ],
    [
      'both 0',
      { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } },
      'Deployment.apps "web" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
    ],
    [
      'bad percent',
      { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 'lots', maxUnavailable: '150%' } } },
      `Deployment.apps "web" is invalid: [spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"lots"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%'), spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%]`,
    ],
    [
      'Recreate with rollingUpdate',
      { strategy: { type: 'Recreate', rollingUpdate: {} } },
      'Deployment.apps "web" is invalid: spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is \'Recreate\'',
    ],
    [
      'progressDeadlineSeconds',
      { minReadySeconds: 600 },
      'Deployment.apps "web" is invalid: spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds',
    ],
    [
      'bad selector operator',
      { selector: { matchExpressions: [{ key: 'app', operator: 'Equals', values: ['web'] }] } },
      'Deployment.apps "web" is invalid: [spec.selector.matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator, spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app", Operator:"Equals", Values:[]string{"web"}}}}: invalid label selector]',
    ],
    [
      'bad template container',
      { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web' }] } } },
      'Deployment.apps "web" is invalid: spec.template.spec.containers[0].image: Required value',
    ],
  ];
  for (const [name, spec, want] of cases) it(name, () => assert.equal(M(spec), want));

  it('selector is immutable', () => {
    const old = defaulted('apps/deployments', dep({}));
    const msg = invalidMessage(
      'apps/deployments',
      'Deployment',
      'apps',
      dep({ selector: { matchLabels: { app: 'web', v: '2' } }, template: tpl({ app: 'web', v: '2' }) }),
      old,
    );
    assert.equal(
      msg,
      'Deployment.apps "web" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "v":"2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    );
  });
});

describe('ReplicaSet, DaemonSet and StatefulSet validation', () => {
  const meta = { name: 'w', namespace: 'default' };
  it('ReplicaSet requires a selector', () =>
    assert.equal(
      invalidMessage('apps/replicasets', 'ReplicaSet', 'apps', { metadata: meta, spec: { template: tpl() } }),
      'ReplicaSet.apps "w" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`]',
    ));
  it('DaemonSet maxSurge and maxUnavailable both set', () =>
    assert.equal(
      invalidMessage('apps/daemonsets', 'DaemonSet', 'apps', {
        metadata: meta,
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: tpl(),
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } },
        },
      }),
      'DaemonSet.apps "w" is invalid: spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:""}: may not be set when maxUnavailable is non-zero',
    ));
  it('DaemonSet both zero', () =>
    assert.equal(
      invalidMessage('apps/daemonsets', 'DaemonSet', 'apps', {
        metadata: meta,
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: tpl(),
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } },
        },
      }),
      'DaemonSet.apps "w" is invalid: spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0',
    ));
  it('StatefulSet restartPolicy and replicas', () =>
    assert.equal(
      invalidMessage('apps/statefulsets', 'StatefulSet', 'apps', {
        metadata: meta,
        spec: { replicas: -2, selector: { matchLabels: { app: 'web' } }, template: tpl({ app: 'web' }, { restartPolicy: 'OnFailure' }) },
      }),
      'StatefulSet.apps "w" is invalid: [spec.replicas: Invalid value: -2: must be greater than or equal to 0, spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"]',
    ));
  it('StatefulSet names are DNS labels', () =>
    assert.equal(
      invalidMessage('apps/statefulsets', 'StatefulSet', 'apps', {
        metadata: { name: 'db.v1' },
        spec: { selector: { matchLabels: { app: 'web' } }, template: tpl() },
      }),
      `StatefulSet.apps "db.v1" is invalid: metadata.name: Invalid value: "db.v1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ));
  it('StatefulSet spec is mostly immutable', () => {
    const sts = { metadata: meta, spec: { serviceName: 'db', selector: { matchLabels: { app: 'web' } }, template: tpl() } };
    const old = defaulted('apps/statefulsets', sts);
    assert.equal(invalidMessage('apps/statefulsets', 'StatefulSet', 'apps', { ...sts, spec: { ...sts.spec, replicas: 5 } }, old), '');
    assert.equal(
      invalidMessage('apps/statefulsets', 'StatefulSet', 'apps', { ...sts, spec: { ...sts.spec, serviceName: 'other' } }, old),
      "StatefulSet.apps \"w\" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    );
  });
});

describe('DaemonSet template generation on update', () => {
  it('keeps the stored generation when the template is unchanged, even if the client drops it', () => {
    const old = defaulted('apps/daemonsets', {
      metadata: { name: 'ds', annotations: { 'deprecated.daemonset.template.generation': '3' } },
      spec: { template: tpl() },
    });
    const next = structuredClone(old);
    next.metadata.annotations = {};
    prepareDaemonSetUpdate(next, old);
    assert.equal(next.metadata.annotations['deprecated.daemonset.template.generation'], '3');
  });
});
