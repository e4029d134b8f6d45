// Every field a learner meets has a description: walks the types reachable
// from the learner kinds through types.json and lists what is undocumented;
// also checks that no description names a type or field the schema lacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allTypes, typeForKind, type SchemaField } from '../index.ts';
import { GROUP_TABLES, describedTypes, fieldDescription, typeDescription } from './index.ts';

/** The kinds a learner meets (group, version, kind). */
const LEARNER_KINDS: [string, string, string][] = [
  ['', 'v1', 'Pod'],
  ['apps', 'v1', 'Deployment'],
  ['apps', 'v1', 'ReplicaSet'],
  ['apps', 'v1', 'StatefulSet'],
  ['apps', 'v1', 'DaemonSet'],
  ['batch', 'v1', 'Job'],
  ['batch', 'v1', 'CronJob'],
  ['', 'v1', 'Service'],
  ['networking.k8s.io', 'v1', 'Ingress'],
  ['networking.k8s.io', 'v1', 'IngressClass'],
  ['networking.k8s.io', 'v1', 'NetworkPolicy'],
  ['', 'v1', 'ConfigMap'],
  ['', 'v1', 'Secret'],
  ['rbac.authorization.k8s.io', 'v1', 'Role'],
  ['rbac.authorization.k8s.io', 'v1', 'ClusterRole'],
  ['rbac.authorization.k8s.io', 'v1', 'RoleBinding'],
  ['rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding'],
  ['', 'v1', 'ServiceAccount'],
  ['', 'v1', 'PersistentVolumeClaim'],
  ['', 'v1', 'PersistentVolume'],
  ['storage.k8s.io', 'v1', 'StorageClass'],
  ['autoscaling', 'v2', 'HorizontalPodAutoscaler'],
  ['policy', 'v1', 'PodDisruptionBudget'],
  ['', 'v1', 'Namespace'],
  ['', 'v1', 'Node'],
  ['', 'v1', 'ResourceQuota'],
  ['', 'v1', 'LimitRange'],
];

/** Every other kind ksim serves today (lists of the learner kinds stand for all lists): also fully described. */
const ALSO_DESCRIBED: [string, string, string][] = [
  ...LEARNER_KINDS.map(([g, v, k]): [string, string, string] => [g, v, `${k}List`]),
  ['', 'v1', 'Status'],
  ['', 'v1', 'DeleteOptions'],
  ['', 'v1', 'WatchEvent'],
  ['', 'v1', 'ReplicationController'],
  ['', 'v1', 'Endpoints'],
  ['', 'v1', 'Event'],
  ['', 'v1', 'Binding'],
  ['discovery.k8s.io', 'v1', 'EndpointSlice'],
  ['events.k8s.io', 'v1', 'Event'],
  ['coordination.k8s.io', 'v1', 'Lease'],
  ['scheduling.k8s.io', 'v1', 'PriorityClass'],
  ['apps', 'v1', 'ControllerRevision'],
  ['policy', 'v1', 'Eviction'],
  ['autoscaling', 'v1', 'HorizontalPodAutoscaler'],
  ['autoscaling', 'v1', 'Scale'],
  ['apiextensions.k8s.io', 'v1', 'CustomResourceDefinition'],
  ['apiextensions.k8s.io', 'v1', 'CustomResourceDefinitionList'],
  ['certificates.k8s.io', 'v1', 'CertificateSigningRequest'],
  ['authorization.k8s.io', 'v1', 'SubjectAccessReview'],
  ['authorization.k8s.io', 'v1', 'LocalSubjectAccessReview'],
  ['authorization.k8s.io', 'v1', 'SelfSubjectAccessReview'],
  ['authorization.k8s.io', 'v1', 'SelfSubjectRulesReview'],
  ['authentication.k8s.io', 'v1', 'TokenReview'],
  ['authentication.k8s.io', 'v1', 'TokenRequest'],
  ['authentication.k8s.io', 'v1', 'SelfSubjectReview'],
  ['node.k8s.io', 'v1', 'RuntimeClass'],
  ['admissionregistration.k8s.io', 'v1', 'MutatingWebhookConfiguration'],
  ['admissionregistration.k8s.io', 'v1', 'ValidatingAdmissionPolicy'],
  ['admissionregistration.k8s.io', 'v1', 'ValidatingAdmissionPolicyBinding'],
  ['admissionregistration.k8s.io', 'v1', 'ValidatingWebhookConfiguration'],
  ['', 'v1', 'ComponentStatus'],
  ['', 'v1', 'PodTemplate'],
  ['flowcontrol.apiserver.k8s.io', 'v1', 'FlowSchema'],
  ['flowcontrol.apiserver.k8s.io', 'v1', 'PriorityLevelConfiguration'],
  ['networking.k8s.io', 'v1', 'IPAddress'],
  ['networking.k8s.io', 'v1', 'ServiceCIDR'],
  ['resource.k8s.io', 'v1', 'DeviceClass'],
  ['resource.k8s.io', 'v1', 'ResourceClaim'],
  ['resource.k8s.io', 'v1', 'ResourceClaimTemplate'],
  ['resource.k8s.io', 'v1', 'ResourceSlice'],
  ['storage.k8s.io', 'v1', 'CSIDriver'],
  ['storage.k8s.io', 'v1', 'CSINode'],
  ['storage.k8s.io', 'v1', 'CSIStorageCapacity'],
  ['storage.k8s.io', 'v1', 'VolumeAttachment'],
  ['storage.k8s.io', 'v1', 'VolumeAttributesClass'],
  ['apiregistration.k8s.io', 'v1', 'APIService'],
];

function refsOf(f: SchemaField | undefined, into: string[]): void {
  if (!f) return;
  if (f.type === 'ref' && f.ref) into.push(f.ref);
  refsOf(f.items, into);
  refsOf(f.additionalProperties, into);
}

/** Definition names reachable from these kinds through fields, array items and map values. */
function reachedFrom(kinds: [string, string, string][]): string[] {
  const types = allTypes();
  const seen = new Set<string>();
  const stack = kinds.map(([g, v, k]) => {
    const t = typeForKind(g, v, k);
    assert.ok(t, `no schema for ${g}/${v} ${k}`);
    return t.name;
  });
  while (stack.length > 0) {
    const name = stack.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const refs: string[] = [];
    for (const f of Object.values(types[name]?.fields ?? {})) refsOf(f, refs);
    refsOf(types[name]?.items, refs);
    stack.push(...refs);
  }
  return [...seen].sort();
}

const learnerTypes = (): string[] => reachedFrom(LEARNER_KINDS);

test('every field of every type a learner kind reaches has a description', () => {
  const reached = learnerTypes();
  assert.ok(reached.length > 250, `only ${reached.length} types reached`);
  const missing: string[] = [];
  for (const name of reached) {
    for (const field of Object.keys(allTypes()[name].fields)) {
      if (!fieldDescription(name, field)) missing.push(`${name}.${field}`);
    }
  }
  assert.deepEqual(missing, [], `${missing.length} undocumented fields:\n${missing.join('\n')}`);
});

test('every field of the other described kinds has a description', () => {
  const missing: string[] = [];
  for (const name of reachedFrom(ALSO_DESCRIBED)) {
    for (const field of Object.keys(allTypes()[name].fields)) if (!fieldDescription(name, field)) missing.push(`${name}.${field}`);
  }
  assert.deepEqual(missing, []);
});

test('every struct a learner kind reaches has a type description', () => {
  const missing = learnerTypes().filter((name) => !typeDescription(name));
  assert.deepEqual(missing, []);
});

test('descriptions only name types and fields the schema has', () => {
  const types = allTypes();
  const unknown: string[] = [];
  for (const name of describedTypes()) {
    const t = types[name];
    if (!t) {
      unknown.push(name);
      continue;
    }
    const table = GROUP_TABLES.flatMap((g) => Object.entries(g.types).filter(([short]) => `${g.prefix}.${short}` === name))[0][1];
    for (const field of Object.keys(table)) if (field !== '$' && !Object.hasOwn(t.fields, field)) unknown.push(`${name}.${field}`);
  }
  assert.deepEqual(unknown, []);
});

test('descriptions are one to three sentences of plain text', () => {
  const bad: string[] = [];
  for (const g of GROUP_TABLES) {
    for (const [short, table] of Object.entries(g.types)) {
      for (const [field, text] of Object.entries(table)) {
        const sentences = text.split(/(?<=[.!?])\s+(?=[A-Z"`$])/).length;
        if (text.trim() !== text || !/[.)]$/.test(text) || sentences > 4 || text.length > 420) bad.push(`${short}.${field}: ${text}`);
      }
    }
  }
  assert.deepEqual(bad, []);
});

test('lookups', () => {
  assert.match(fieldDescription('io.k8s.api.core.v1.Container', 'livenessProbe')!, /restart/);
  assert.match(fieldDescription('io.k8s.api.apps.v1.Deployment', 'apiVersion')!, /apps\/v1/);
  assert.equal(fieldDescription('io.k8s.api.apps.v1.DeploymentList', 'items'), 'The Deployment objects in the list.');
  assert.match(fieldDescription('io.k8s.api.apps.v1.DeploymentList', 'metadata')!, /continue token/);
  assert.equal(fieldDescription('io.k8s.api.core.v1.Container', 'noSuchField'), undefined);
  assert.equal(fieldDescription('io.k8s.api.core.v1.Container', '$'), undefined);
  assert.equal(fieldDescription('io.k8s.api.core.v1.NoSuchType', 'name'), undefined);
  // apiVersion of a struct that is not a top-level kind is not given the kind's wording.
  assert.notEqual(
    fieldDescription('io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference', 'apiVersion'),
    fieldDescription('io.k8s.api.core.v1.Pod', 'apiVersion'),
  );
  assert.match(typeDescription('io.k8s.api.core.v1.Probe')!, /health check/);
  // Kinds without a description of their own here fall back to types.json's line.
  assert.equal(typeDescription('io.k8s.api.coordination.v1.Lease'), 'A lightweight lock held by one holder for a duration.');
  assert.equal(typeDescription('io.k8s.api.core.v1.NoSuchType'), undefined);
});
