// Checks the /openapi/v3 documents for what kubectl reads from them: the
// index with content-hash URLs, a PATCH operation per kind with
// x-kubernetes-group-version-kind, a fieldValidation parameter and a
// strategic-merge-patch body, and component schemas that explain and
// client-side apply can walk (refs, required, merge keys, list and map types).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { RESOURCES } from '../../shared/api/resources.ts';
import { apiResourceList } from '../discovery.ts';
import { openapiV3Document, openapiV3GroupVersions, openapiV3Index, openapiV3Served } from './v3.ts';

type Json = Record<string, any>;
const S = (name: string): string => `#/components/schemas/${name}`;
const doc = (gv: string): Json => {
  const d = openapiV3Document(gv);
  assert.ok(d, `no document for ${gv}`);
  return d;
};
const gvPath = (group: string, version: string): string => (group ? `apis/${group}/${version}` : `api/${version}`);
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

test('the index lists every served group-version with a content-hash URL', () => {
  const index = openapiV3Index() as Json;
  const expected = [...new Set(RESOURCES.map((rt) => gvPath(rt.group, rt.version)))].sort();
  assert.deepEqual(Object.keys(index.paths).sort(), expected);
  assert.deepEqual(openapiV3GroupVersions().sort(), expected);
  for (const gv of expected) {
    const served = openapiV3Served(gv)!;
    const hash = createHash('sha512').update(served.json).digest('hex').toUpperCase();
    assert.equal(served.hash, hash);
    assert.deepEqual(index.paths[gv], { serverRelativeURL: `/openapi/v3/${gv}?hash=${hash}` });
    assert.deepEqual(JSON.parse(served.json.toString('utf8')), served.document);
  }
  assert.equal(openapiV3Document('apis/nope/v1'), undefined);
  assert.equal(openapiV3Served('apis/apps/v2'), undefined);
});

test('documents are built once and frozen', () => {
  assert.equal(openapiV3Document('api/v1'), openapiV3Document('api/v1'));
  assert.equal(openapiV3Index(), openapiV3Index());
  assert.ok(Object.isFrozen(doc('api/v1').paths));
  assert.throws(() => {
    doc('api/v1').paths['/x'] = {};
  }, TypeError);
});

test('every PATCH operation of a kind takes fieldValidation and strategic merge patches', () => {
  // kubectl looks at the first PATCH operation (in map order) tagged with the kind, so each must qualify.
  for (const rt of RESOURCES.filter((r) => r.verbs.includes('patch'))) {
    const d = doc(gvPath(rt.group, rt.version));
    const patches = Object.values(d.paths as Json)
      .map((item) => item.patch)
      .filter(
        (op) => op && op['x-kubernetes-group-version-kind'].kind === rt.kind && op['x-kubernetes-group-version-kind'].group === rt.group,
      );
    assert.ok(patches.length >= 1, `${rt.kind}: no PATCH operation`);
    for (const op of patches) {
      assert.deepEqual(op['x-kubernetes-group-version-kind'], { group: rt.group, kind: rt.kind, version: rt.version });
      const names = (op.parameters as Json[]).map((p) => p.name);
      for (const n of ['fieldValidation', 'fieldManager', 'dryRun', 'force']) assert.ok(names.includes(n), `${op.operationId}: ${n}`);
      assert.deepEqual(Object.keys(op.requestBody.content).sort(), [
        'application/apply-patch+cbor',
        'application/apply-patch+yaml',
        'application/json-patch+json',
        'application/merge-patch+json',
        'application/strategic-merge-patch+json',
      ]);
      assert.deepEqual(op.requestBody.content['application/strategic-merge-patch+json'].schema, {
        $ref: S('io.k8s.apimachinery.pkg.apis.meta.v1.Patch'),
      });
    }
  }
});

test('each kind and list has one schema tagged with its gvk, as explain looks it up', () => {
  for (const rt of RESOURCES) {
    const schemas = doc(gvPath(rt.group, rt.version)).components.schemas as Json;
    for (const kind of rt.verbs.includes('list') ? [rt.kind, rt.listKind] : [rt.kind]) {
      const gvk = { group: rt.group, kind, version: rt.version };
      const tagged = Object.entries(schemas).filter(([, s]) =>
        (s['x-kubernetes-group-version-kind'] ?? []).some((g: Json) => JSON.stringify(g) === JSON.stringify(gvk)),
      );
      assert.equal(tagged.length, 1, `${rt.group}/${rt.version} ${kind}`);
      assert.equal(tagged[0][1].type, 'object');
      assert.ok(tagged[0][1].properties.metadata);
    }
    // explain finds the gvk from the collection (or item) path's operations.
    const prefix = rt.group ? `/apis/${rt.group}/${rt.version}` : `/api/${rt.version}`;
    const paths = doc(gvPath(rt.group, rt.version)).paths;
    if (!rt.verbs.includes('list')) {
      // A create-only kind has only its collection's path: namespaced, it has no cluster-wide one.
      const post = paths[rt.namespaced ? `${prefix}/namespaces/{namespace}/${rt.plural}` : `${prefix}/${rt.plural}`].post;
      assert.deepEqual(post['x-kubernetes-group-version-kind'], { group: rt.group, kind: rt.kind, version: rt.version });
      continue;
    }
    const list = paths[`${prefix}/${rt.plural}`];
    assert.deepEqual(list.get['x-kubernetes-group-version-kind'], { group: rt.group, kind: rt.kind, version: rt.version });
  }
});

test('every $ref resolves inside its own document', () => {
  for (const gv of openapiV3GroupVersions()) {
    const d = doc(gv);
    const walk = (v: unknown, where: string): void => {
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${where}[${i}]`));
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          // JSONSchemaProps has a property named $ref: a schema, not a reference.
          if (k === '$ref' && typeof x === 'string') {
            assert.match(x, /^#\/components\/schemas\//, where);
            assert.ok(d.components.schemas[x.slice('#/components/schemas/'.length)], `${gv} ${where}: ${x}`);
          } else walk(x, `${where}.${k}`);
        }
      }
    };
    walk(d, gv);
  }
});

test('paths and operation ids follow kube', () => {
  const core = doc('api/v1').paths as Json;
  const apps = doc('apis/apps/v1').paths as Json;
  const rbac = doc('apis/rbac.authorization.k8s.io/v1').paths as Json;
  const id = (paths: Json, path: string, method: string): string => paths[path]?.[method]?.operationId;
  assert.equal(id(core, '/api/v1/namespaces/{namespace}/pods', 'get'), 'listCoreV1NamespacedPod');
  assert.equal(id(core, '/api/v1/namespaces/{namespace}/pods', 'post'), 'createCoreV1NamespacedPod');
  assert.equal(id(core, '/api/v1/namespaces/{namespace}/pods', 'delete'), 'deleteCoreV1CollectionNamespacedPod');
  assert.equal(id(core, '/api/v1/namespaces/{namespace}/pods/{name}', 'get'), 'readCoreV1NamespacedPod');
  assert.equal(id(core, '/api/v1/namespaces/{namespace}/pods/{name}', 'put'), 'replaceCoreV1NamespacedPod');
  assert.equal(id(core, '/api/v1/namespaces/{namespace}/pods/{name}', 'patch'), 'patchCoreV1NamespacedPod');
  assert.equal(id(core, '/api/v1/namespaces/{namespace}/pods/{name}', 'delete'), 'deleteCoreV1NamespacedPod');
  assert.equal(id(core, '/api/v1/namespaces/{namespace}/pods/{name}/status', 'patch'), 'patchCoreV1NamespacedPodStatus');
  assert.equal(id(core, '/api/v1/pods', 'get'), 'listCoreV1PodForAllNamespaces');
  assert.equal(id(core, '/api/v1/watch/namespaces/{namespace}/pods', 'get'), 'watchCoreV1NamespacedPodList');
  assert.equal(id(core, '/api/v1/watch/namespaces/{namespace}/pods/{name}', 'get'), 'watchCoreV1NamespacedPod');
  assert.equal(id(core, '/api/v1/watch/pods', 'get'), 'watchCoreV1PodListForAllNamespaces');
  assert.equal(id(core, '/api/v1/namespaces', 'get'), 'listCoreV1Namespace');
  assert.equal(id(core, '/api/v1/namespaces/{name}', 'get'), 'readCoreV1Namespace');
  assert.equal(id(core, '/api/v1/namespaces/{name}/finalize', 'put'), 'replaceCoreV1NamespaceFinalize');
  assert.equal(id(core, '/api/v1/watch/namespaces', 'get'), 'watchCoreV1NamespaceList');
  assert.equal(core['/api/v1/namespaces/{name}/finalize'].get, undefined);
  assert.equal(id(apps, '/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale', 'patch'), 'patchAppsV1NamespacedDeploymentScale');
  assert.equal(id(rbac, '/apis/rbac.authorization.k8s.io/v1/clusterroles', 'get'), 'listRbacAuthorizationV1ClusterRole');
  assert.equal(rbac['/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}'].get.tags[0], 'rbacAuthorization_v1');
  assert.equal(core['/api/v1/namespaces'].get.tags[0], 'core_v1');

  const scale = apps['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'];
  assert.deepEqual(scale.get['x-kubernetes-group-version-kind'], { group: 'autoscaling', kind: 'Scale', version: 'v1' });
  assert.deepEqual(scale.get.responses['200'].content['application/json'].schema, { $ref: S('io.k8s.api.autoscaling.v1.Scale') });
  assert.ok(doc('apis/apps/v1').components.schemas['io.k8s.api.autoscaling.v1.Scale']);

  const actions = Object.fromEntries(
    Object.entries(core['/api/v1/namespaces/{namespace}/pods'] as Json)
      .filter(([m]) => METHODS.includes(m))
      .map(([m, op]) => [m, op['x-kubernetes-action']]),
  );
  assert.deepEqual(actions, { get: 'list', post: 'post', delete: 'deletecollection' });
  assert.equal(core['/api/v1/watch/pods'].get['x-kubernetes-action'], 'watchlist');
  assert.equal(core['/api/v1/watch/namespaces/{namespace}/pods/{name}'].get['x-kubernetes-action'], 'watch');
});

test('operations take kube parameters where kube puts them', () => {
  const paths = doc('apis/apps/v1').paths as Json;
  const names = (ps: Json[] | undefined): string[] => (ps ?? []).map((p) => p.name);
  const collection = paths['/apis/apps/v1/namespaces/{namespace}/deployments'];
  assert.deepEqual(names(collection.parameters), ['namespace', 'pretty']);
  assert.deepEqual(collection.parameters[0], {
    description: 'object name and auth scope, such as for teams and projects',
    in: 'path',
    name: 'namespace',
    required: true,
    schema: { type: 'string', uniqueItems: true },
  });
  assert.deepEqual(names(collection.get.parameters), [
    'allowWatchBookmarks',
    'continue',
    'fieldSelector',
    'labelSelector',
    'limit',
    'resourceVersion',
    'resourceVersionMatch',
    'sendInitialEvents',
    'timeoutSeconds',
    'watch',
  ]);
  assert.deepEqual(names(collection.post.parameters), ['dryRun', 'fieldManager', 'fieldValidation']);
  for (const n of ['labelSelector', 'fieldSelector', 'propagationPolicy', 'gracePeriodSeconds', 'dryRun', 'limit', 'continue'])
    assert.ok(names(collection.delete.parameters).includes(n), n);
  const types = Object.fromEntries((collection.get.parameters as Json[]).map((p) => [p.name, p.schema.type]));
  assert.equal(types.limit, 'integer');
  assert.equal(types.watch, 'boolean');
  assert.equal(types.timeoutSeconds, 'integer');

  const item = paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'];
  assert.deepEqual(names(item.parameters), ['name', 'namespace', 'pretty']);
  assert.equal(item.parameters[0].description, 'name of the Deployment');
  assert.deepEqual(names(item.delete.parameters), [
    'dryRun',
    'gracePeriodSeconds',
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'orphanDependents',
    'propagationPolicy',
  ]);
  assert.deepEqual(item.delete.requestBody, {
    content: { '*/*': { schema: { $ref: S('io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions') } } },
  });
  assert.deepEqual(item.put.requestBody, { content: { '*/*': { schema: { $ref: S('io.k8s.api.apps.v1.Deployment') } } }, required: true });
  assert.deepEqual(Object.keys(item.patch.responses), ['200', '201', '401']);

  const all = paths['/apis/apps/v1/deployments'];
  assert.equal(all.get.parameters, undefined);
  assert.ok(names(all.parameters).includes('labelSelector') && names(all.parameters).includes('pretty'));
  assert.deepEqual(Object.keys(all.get.responses['200'].content), [
    'application/json',
    'application/json;stream=watch',
    'application/vnd.kubernetes.protobuf',
    'application/vnd.kubernetes.protobuf;stream=watch',
    'application/yaml',
  ]);
  assert.deepEqual(all.get.responses['200'].content['application/json'].schema, { $ref: S('io.k8s.api.apps.v1.DeploymentList') });
});

test('operations match what discovery advertises', () => {
  for (const rt of RESOURCES) {
    const list = apiResourceList(rt.group, rt.version) as { resources: { name: string; verbs: string[] }[] };
    const paths = doc(gvPath(rt.group, rt.version)).paths as Json;
    const prefix = rt.group ? `/apis/${rt.group}/${rt.version}` : `/api/${rt.version}`;
    const item = `${prefix}/${rt.namespaced ? 'namespaces/{namespace}/' : ''}${rt.plural}/{name}`;
    for (const entry of list.resources.filter((e) => e.name.startsWith(`${rt.plural}/`))) {
      const sub = entry.name.split('/')[1];
      const ops = Object.keys(paths[`${item}/${sub}`] ?? {})
        .filter((m) => METHODS.includes(m))
        .sort();
      const expected = entry.verbs.map((v) => ({ get: 'get', update: 'put', patch: 'patch', create: 'post', delete: 'delete' })[v]!).sort();
      assert.deepEqual(ops, expected, `${entry.name}`);
    }
    const subs = new Set(list.resources.filter((e) => e.name.startsWith(`${rt.plural}/`)).map((e) => e.name.split('/')[1]));
    for (const path of Object.keys(paths).filter((p) => p.startsWith(`${item}/`))) assert.ok(subs.has(path.slice(item.length + 1)), path);
  }
});

/** A schema without its descriptions (texts: JSONSchemaProps's property named description is a schema), to compare shapes. */
const shapeOf = <T>(v: T): T =>
  JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'description' && typeof x === 'string' ? undefined : x)));

test('schemas carry the types, formats and patch metadata kubectl reads', () => {
  const apps = shapeOf(doc('apis/apps/v1').components.schemas as Json);
  const core = shapeOf(doc('api/v1').components.schemas as Json);
  const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1';

  const spec = apps['io.k8s.api.apps.v1.DeploymentSpec'];
  assert.deepEqual(spec.required, ['selector', 'template']);
  assert.deepEqual(spec.properties.strategy, {
    allOf: [{ $ref: S('io.k8s.api.apps.v1.DeploymentStrategy') }],
    'x-kubernetes-patch-strategy': 'retainKeys',
  });
  assert.deepEqual(spec.properties.template, { allOf: [{ $ref: S('io.k8s.api.core.v1.PodTemplateSpec') }], default: {} });
  assert.deepEqual(spec.properties.replicas, { format: 'int32', type: 'integer' });
  assert.deepEqual(apps['io.k8s.api.apps.v1.DeploymentStrategy'].properties.type, { enum: ['Recreate', 'RollingUpdate'], type: 'string' });
  assert.deepEqual(apps['io.k8s.api.apps.v1.Deployment'].properties.metadata, { allOf: [{ $ref: S(`${meta}.ObjectMeta`) }], default: {} });
  assert.equal(apps['io.k8s.api.apps.v1.Deployment']['x-kubernetes-group-version-kind'][0].kind, 'Deployment');

  const containers = core['io.k8s.api.core.v1.PodSpec'].properties.containers;
  assert.deepEqual(containers, {
    items: { allOf: [{ $ref: S('io.k8s.api.core.v1.Container') }], default: {} },
    type: 'array',
    'x-kubernetes-list-map-keys': ['name'],
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-patch-merge-key': 'name',
    'x-kubernetes-patch-strategy': 'merge',
  });
  assert.deepEqual(core['io.k8s.api.core.v1.ContainerPort'].required, ['containerPort']);
  assert.equal(core['io.k8s.api.core.v1.Container'].properties.ports['x-kubernetes-patch-merge-key'], 'containerPort');
  assert.deepEqual(core[`${meta}.ObjectMeta`].properties.labels, { additionalProperties: { default: '', type: 'string' }, type: 'object' });
  assert.deepEqual(core[`${meta}.ObjectMeta`].properties.finalizers.items, { default: '', type: 'string' });
  assert.deepEqual(core['io.k8s.api.core.v1.Secret'].properties.data, {
    additionalProperties: { format: 'byte', type: 'string' },
    type: 'object',
  });
  assert.equal(core[`${meta}.LabelSelector`]['x-kubernetes-map-type'], 'atomic');
  assert.deepEqual(core[`${meta}.Time`], { format: 'date-time', type: 'string' });
  assert.deepEqual(core['io.k8s.apimachinery.pkg.util.intstr.IntOrString'], {
    format: 'int-or-string',
    oneOf: [{ type: 'integer' }, { type: 'string' }],
  });
  assert.deepEqual(core['io.k8s.apimachinery.pkg.api.resource.Quantity'], { oneOf: [{ type: 'string' }, { type: 'number' }] });
  assert.deepEqual(core['io.k8s.apimachinery.pkg.runtime.RawExtension'], { type: 'object' });
  assert.deepEqual(core[`${meta}.Patch`], { type: 'object' });
  assert.equal(core[`${meta}.Duration`], undefined, 'Duration is written inline');
  assert.deepEqual(core[`${meta}.OwnerReference`].properties.uid, { type: 'string' });
  assert.deepEqual(core['io.k8s.api.core.v1.Pod'].properties.spec.default, {});
  assert.ok(core['io.k8s.api.core.v1.SeccompProfile']['x-kubernetes-unions']);
  // Only types reachable from the group-version's operations are included.
  assert.equal(apps['io.k8s.api.batch.v1.Job'], undefined);
  assert.ok(apps['io.k8s.api.core.v1.Container']);
});
