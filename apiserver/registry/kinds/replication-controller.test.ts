import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaulted, invalidMessage } from './testing.ts';

const KEY = '/replicationcontrollers';
const tpl = (labels: Record<string, string> = { app: 'web' }, spec: Record<string, unknown> = {}) => ({
  metadata: { labels },
  spec: { containers: [{ name: 'web', image: 'nginx:1.25' }], ...spec },
});
const rc = (spec: Record<string, unknown>, metadata: Record<string, unknown> = { name: 'web' }) => ({
  apiVersion: 'v1',
  kind: 'ReplicationController',
  metadata,
  spec,
});
const message = (obj: unknown) => invalidMessage(KEY, 'ReplicationController', '', obj);

describe('ReplicationController defaults', () => {
  it('selector, labels and replicas come from the template', () => {
    const r = defaulted(KEY, { ...rc({ template: tpl({ app: 'web', tier: 'fe' }) }), status: {} });
    assert.deepEqual(r.spec.selector, { app: 'web', tier: 'fe' });
    assert.deepEqual(r.metadata.labels, { app: 'web', tier: 'fe' });
    assert.equal(r.spec.replicas, 1);
    assert.equal(r.spec.template.spec.restartPolicy, 'Always', 'the template PodSpec is defaulted');
    assert.deepEqual(r.status, { replicas: 0 });
  });
  it('a given selector, labels and replicas are kept', () => {
    const r = defaulted(
      KEY,
      rc({ replicas: 0, selector: { app: 'web' }, template: tpl({ app: 'web', v: '2' }) }, { name: 'w', labels: { x: 'y' } }),
    );
    assert.deepEqual(r.spec.selector, { app: 'web' });
    assert.deepEqual(r.metadata.labels, { x: 'y' });
    assert.equal(r.spec.replicas, 0);
  });
  it('no template: nothing to copy, the template stays absent', () => {
    const r = defaulted(KEY, rc({}));
    assert.equal(r.spec.template, undefined);
    assert.equal(r.spec.selector, undefined);
    assert.equal(r.spec.replicas, 1);
  });
});

describe('ReplicationController validation', () => {
  const cases: [string, object, string][] = [
    ['valid', rc({ template: tpl() }), ''],
    [
      'selector does not match the template labels',
      rc({ selector: { app: 'api' }, template: tpl({ app: 'web' }) }),
      'ReplicationController "web" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ],
    [
      'no template, no selector',
      rc({}),
      'ReplicationController "web" is invalid: [spec.selector: Required value, spec.template: Required value]',
    ],
    [
      'negative replicas and minReadySeconds',
      rc({ replicas: -1, minReadySeconds: -2, template: tpl() }),
      'ReplicationController "web" is invalid: [spec.minReadySeconds: Invalid value: -2: must be greater than or equal to 0, spec.replicas: Invalid value: -1: must be greater than or equal to 0]',
    ],
    [
      'restartPolicy must be Always',
      rc({ template: tpl({ app: 'web' }, { restartPolicy: 'OnFailure' }) }),
      'ReplicationController "web" is invalid: spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
    ],
    [
      'activeDeadlineSeconds is not allowed',
      rc({ template: tpl({ app: 'web' }, { activeDeadlineSeconds: 5 }) }),
      'ReplicationController "web" is invalid: spec.template.spec.activeDeadlineSeconds: Invalid value: 5: must not be specified',
    ],
    [
      'the template PodSpec is validated',
      rc({ template: tpl({ app: 'web' }, { containers: [] }) }),
      'ReplicationController "web" is invalid: spec.template.spec.containers: Required value',
    ],
    [
      'a status that counts more ready than existing replicas',
      { ...rc({ template: tpl() }), status: { replicas: 1, readyReplicas: 2, availableReplicas: 2 } },
      'ReplicationController "web" is invalid: [status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas, status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas]',
    ],
    [
      'a status with more available than ready',
      { ...rc({ template: tpl() }), status: { replicas: 3, readyReplicas: 1, availableReplicas: 2, observedGeneration: -1 } },
      'ReplicationController "web" is invalid: [status.observedGeneration: Invalid value: -1: must be greater than or equal to 0, status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas]',
    ],
  ];
  for (const [why, obj, want] of cases) it(why, () => assert.equal(message(obj), want));
  it('the selector may change on update (unlike a ReplicaSet)', () => {
    const old = defaulted(KEY, rc({ selector: { app: 'web' }, template: tpl({ app: 'web', v: '1' }) }));
    assert.equal(
      invalidMessage(KEY, 'ReplicationController', '', rc({ selector: { v: '1' }, template: tpl({ app: 'web', v: '1' }) }), old),
      '',
    );
  });
});
