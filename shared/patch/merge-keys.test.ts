// Tests that the merge rule table answers as kube's struct tags do, wherever
// a PodSpec or ObjectMeta appears.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mergeSchemaFor } from './merge-keys.ts';
import type { MergeRule } from './merge-keys.ts';

describe('mergeSchemaFor', () => {
  const cases: [kind: string, path: string, want: MergeRule | undefined][] = [
    ['Pod', 'spec.containers', { strategy: 'merge', mergeKey: 'name' }],
    ['Pod', 'spec.initContainers', { strategy: 'merge', mergeKey: 'name' }],
    ['Pod', 'spec.ephemeralContainers', { strategy: 'merge', mergeKey: 'name' }],
    ['Pod', 'spec.ephemeralContainers.env', { strategy: 'merge', mergeKey: 'name' }],
    ['Pod', 'spec.containers.ports', { strategy: 'merge', mergeKey: 'containerPort' }],
    ['Pod', 'spec.containers.volumeMounts', { strategy: 'merge', mergeKey: 'mountPath' }],
    ['Pod', 'spec.containers.volumeDevices', { strategy: 'merge', mergeKey: 'devicePath' }],
    ['Pod', 'spec.containers.args', undefined],
    ['Pod', 'spec.containers.resources', undefined],
    ['Pod', 'spec.volumes', { strategy: 'merge,retainKeys', mergeKey: 'name' }],
    ['Pod', 'spec.imagePullSecrets', { strategy: 'merge', mergeKey: 'name' }],
    ['Pod', 'spec.hostAliases', { strategy: 'merge', mergeKey: 'ip' }],
    ['Pod', 'spec.topologySpreadConstraints', { strategy: 'merge', mergeKey: 'topologyKey' }],
    ['Pod', 'spec.schedulingGates', { strategy: 'merge', mergeKey: 'name' }],
    ['Pod', 'spec.tolerations', undefined],
    ['Pod', 'spec.readinessGates', undefined],
    ['Pod', 'status.conditions', { strategy: 'merge', mergeKey: 'type' }],
    ['Pod', 'status.podIPs', { strategy: 'merge', mergeKey: 'ip' }],
    ['Pod', 'status.containerStatuses', undefined],
    ['Pod', 'metadata.finalizers', { strategy: 'merge', mergeKey: undefined }],
    ['Pod', 'metadata.ownerReferences', { strategy: 'merge', mergeKey: 'uid' }],
    ['Pod', 'metadata.managedFields', undefined],
    ['Deployment', 'spec.template.spec.containers', { strategy: 'merge', mergeKey: 'name' }],
    ['Deployment', 'spec.template.spec.containers.env', { strategy: 'merge', mergeKey: 'name' }],
    ['Deployment', 'spec.template.spec.volumes', { strategy: 'merge,retainKeys', mergeKey: 'name' }],
    ['Deployment', 'spec.template.metadata.finalizers', { strategy: 'merge', mergeKey: undefined }],
    ['Deployment', 'spec.strategy', { strategy: 'retainKeys', mergeKey: undefined }],
    ['Deployment', 'status.conditions', { strategy: 'merge', mergeKey: 'type' }],
    ['ReplicaSet', 'spec.template.spec.containers.ports', { strategy: 'merge', mergeKey: 'containerPort' }],
    ['DaemonSet', 'spec.template.spec.containers.volumeMounts', { strategy: 'merge', mergeKey: 'mountPath' }],
    ['StatefulSet', 'spec.template.spec.initContainers', { strategy: 'merge', mergeKey: 'name' }],
    ['StatefulSet', 'spec.volumeClaimTemplates', undefined],
    ['Job', 'spec.template.spec.containers', { strategy: 'merge', mergeKey: 'name' }],
    ['Job', 'status.conditions', { strategy: 'merge', mergeKey: 'type' }],
    ['CronJob', 'spec.jobTemplate.spec.template.spec.containers.env', { strategy: 'merge', mergeKey: 'name' }],
    ['CronJob', 'spec.jobTemplate.metadata.ownerReferences', { strategy: 'merge', mergeKey: 'uid' }],
    ['Service', 'spec.ports', { strategy: 'merge', mergeKey: 'port' }],
    ['Service', 'status.conditions', { strategy: 'merge', mergeKey: 'type' }],
    ['Service', 'spec.selector', undefined],
    ['Node', 'spec.podCIDRs', { strategy: 'merge', mergeKey: undefined }],
    ['Node', 'spec.taints', undefined],
    ['Node', 'status.conditions', { strategy: 'merge', mergeKey: 'type' }],
    ['Node', 'status.addresses', { strategy: 'merge', mergeKey: 'type' }],
    ['Node', 'status.images', undefined],
    ['Namespace', 'status.conditions', { strategy: 'merge', mergeKey: 'type' }],
    ['ServiceAccount', 'secrets', { strategy: 'merge', mergeKey: 'name' }],
    ['ServiceAccount', 'imagePullSecrets', undefined],
    ['PodDisruptionBudget', 'spec.selector', { strategy: 'replace', mergeKey: undefined }],
    ['ConfigMap', 'metadata.finalizers', { strategy: 'merge', mergeKey: undefined }],
    ['Scale', 'metadata.ownerReferences', { strategy: 'merge', mergeKey: 'uid' }],
    ['Pod', 'spec.constructor', undefined],
  ];
  for (const [kind, path, want] of cases) {
    it(`${kind} ${path}`, () => {
      const schema = mergeSchemaFor(kind);
      assert.ok(schema);
      assert.deepEqual(schema(path.split('.')), want);
    });
  }

  it('has no schema for kinds without a Go type (custom resources)', () => {
    assert.equal(mergeSchemaFor('Widget'), undefined);
    assert.equal(mergeSchemaFor('toString'), undefined);
  });
});
