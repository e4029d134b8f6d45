// Server-side apply and managedFields on `ksim up`, with the real kubectl:
// an apply creates and owns, a second manager's change is a conflict with
// kube's exact message, --force-conflicts takes the field, a field dropped
// from the applied file is removed unless another manager owns it, an apply
// that changes nothing writes nothing, the controllers' status writes are
// recorded under kube-controller-manager, and kubectl's client-side apply
// migrates to server-side apply through its last-applied annotation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import { api, eventually, ok, startCluster, type Cluster } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 1, speed: 10 });
});
after(() => c?.stop());

const configMap = (name: string, data: Record<string, string>) =>
  `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
data:
${Object.entries(data)
  .map(([k, v]) => `  ${k}: ${v}`)
  .join('\n')}
`;

const apply = (manager: string, yaml: string, ...flags: string[]) =>
  c.k(['apply', '--server-side', `--field-manager=${manager}`, ...flags, '-f', '-'], yaml);

async function getJson(args: string[]): Promise<any> {
  return JSON.parse(ok(await c.k(['get', ...args, '-o', 'json', '--show-managed-fields'])));
}

const entries = (obj: any): ManagedFieldsEntry[] => obj.metadata.managedFields ?? [];
const entry = (obj: any, manager: string) => entries(obj).find((e) => e.manager === manager);

describe('server-side apply', () => {
  test('an apply creates the object and owns exactly what it applied', async () => {
    ok(await apply('alice', configMap('ssa-create', { color: 'blue', size: 'L' })));
    const cm = await getJson(['configmap', 'ssa-create']);
    assert.deepEqual(cm.data, { color: 'blue', size: 'L' });
    const list = entries(cm);
    assert.equal(list.length, 1);
    assert.equal(list[0].manager, 'alice');
    assert.equal(list[0].operation, 'Apply');
    assert.equal(list[0].apiVersion, 'v1');
    assert.equal(list[0].fieldsType, 'FieldsV1');
    assert.match(list[0].time!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(list[0].fieldsV1, { 'f:data': { 'f:color': {}, 'f:size': {} } });
    // kubectl hides managedFields unless asked.
    assert.doesNotMatch(ok(await c.k(['get', 'configmap', 'ssa-create', '-o', 'yaml'])), /managedFields/);
  });

  test("a second manager's change is a conflict; --force-conflicts takes the field", async () => {
    ok(await apply('alice', configMap('ssa-conflict', { color: 'blue', size: 'L' })));
    const refused = await apply('bob', configMap('ssa-conflict', { color: 'red' }));
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /^error: Apply failed with 1 conflict: conflict with "alice": \.data\.color$/m);
    // The Status itself, as kube sends it.
    const status = await api(c).request(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/ssa-conflict?fieldManager=bob',
      configMap('ssa-conflict', { color: 'red' }),
      {
        'content-type': 'application/apply-patch+yaml',
      },
    );
    assert.equal(status.status, 409);
    assert.equal(status.body.reason, 'Conflict');
    assert.equal(status.body.message, 'Apply failed with 1 conflict: conflict with "alice": .data.color');
    assert.deepEqual(status.body.details.causes, [
      { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.color' },
    ]);

    ok(await apply('bob', configMap('ssa-conflict', { color: 'red' }), '--force-conflicts'));
    const cm = await getJson(['configmap', 'ssa-conflict']);
    assert.equal(cm.data.color, 'red');
    assert.deepEqual(entry(cm, 'alice')!.fieldsV1, { 'f:data': { 'f:size': {} } });
    assert.deepEqual(entry(cm, 'bob')!.fieldsV1, { 'f:data': { 'f:color': {} } });
  });

  test('a conflict with an updater names its apiVersion; several are listed by manager', async () => {
    ok(await apply('alice', configMap('ssa-updater', { color: 'blue', size: 'L' })));
    ok(await c.k(['patch', 'configmap', 'ssa-updater', '--field-manager=carol', '-p', '{"data":{"color":"green"}}']));
    const one = await apply('alice', configMap('ssa-updater', { color: 'blue', size: 'L' }));
    assert.match(one.stderr, /^error: Apply failed with 1 conflict: conflict with "carol" using v1: \.data\.color$/m);
    ok(await c.k(['patch', 'configmap', 'ssa-updater', '--field-manager=dave', '-p', '{"data":{"size":"XL"}}']));
    const res = await api(c).request(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/ssa-updater?fieldManager=erin',
      configMap('ssa-updater', { color: 'black', size: 'S' }),
      { 'content-type': 'application/apply-patch+yaml' },
    );
    assert.equal(res.status, 409);
    assert.equal(
      res.body.message,
      'Apply failed with 2 conflicts: conflicts with "carol" using v1:\n- .data.color\nconflicts with "dave" using v1:\n- .data.size',
    );
    assert.deepEqual(
      res.body.details.causes.map((x: any) => [x.reason, x.message, x.field]),
      [
        ['FieldManagerConflict', 'conflict with "carol" using v1', '.data.color'],
        ['FieldManagerConflict', 'conflict with "dave" using v1', '.data.size'],
      ],
    );
  });

  test('a field dropped from the applied file is removed, unless another manager owns it', async () => {
    ok(await apply('alice', configMap('ssa-prune', { color: 'blue', size: 'L', shape: 'round' })));
    // bob applies shape with the same value: both own it, no conflict.
    ok(await apply('bob', configMap('ssa-prune', { shape: 'round' })));
    ok(await apply('alice', configMap('ssa-prune', { color: 'blue' })));
    const cm = await getJson(['configmap', 'ssa-prune']);
    assert.deepEqual(cm.data, { color: 'blue', shape: 'round' });
    assert.deepEqual(entry(cm, 'alice')!.fieldsV1, { 'f:data': { 'f:color': {} } });
  });

  test('an apply that changes nothing writes nothing', async () => {
    ok(await apply('alice', configMap('ssa-noop', { color: 'blue' })));
    const before = await getJson(['configmap', 'ssa-noop']);
    await new Promise((r) => setTimeout(r, 1100));
    ok(await apply('alice', configMap('ssa-noop', { color: 'blue' })));
    const after = await getJson(['configmap', 'ssa-noop']);
    assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
    assert.deepEqual(after.metadata.managedFields, before.metadata.managedFields);
  });

  test('kubectl create records an Update entry with the defaults it set; a PUT that changes nothing keeps it', async () => {
    ok(await c.k(['create', 'deployment', 'ssa-made', '--image=nginx:1.27']));
    // Settled first: kubectl replace reads the resourceVersion, then PUTs, and a controller write in between is a 409.
    ok(await c.k(['rollout', 'status', 'deployment/ssa-made', '--timeout=60s']));
    const d = await getJson(['deployment', 'ssa-made']);
    const made = entry(d, 'kubectl-create')!;
    assert.equal(made.operation, 'Update');
    assert.equal(made.apiVersion, 'apps/v1');
    const f = made.fieldsV1 as any;
    assert.deepEqual(f['f:spec']['f:selector'], {});
    assert.ok(f['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"nginx"}']['f:image']);
    assert.ok(f['f:spec']['f:progressDeadlineSeconds'], 'a default belongs to the creator');
    assert.equal(f['f:metadata']?.['f:name'], undefined, 'metadata.name is never owned');
    // A PUT without managedFields (kubectl shows none) or a resourceVersion: the stored entries stay.
    ok(
      await c.k(
        ['replace', '-f', '-'],
        JSON.stringify({ ...d, metadata: { ...d.metadata, managedFields: undefined, resourceVersion: undefined } }),
      ),
    );
    const again = await getJson(['deployment', 'ssa-made']);
    assert.deepEqual(
      again.metadata.managedFields.find((e: any) => e.manager === 'kubectl-create'),
      made,
    );
  });

  test("a Deployment's status is owned by kube-controller-manager through the status subresource", async () => {
    ok(await apply('alice', deployment('ssa-status')));
    const owner = (d: any) => entries(d).find((x) => x.manager === 'kube-controller-manager' && x.subresource === 'status');
    let d: any;
    await eventually('the controller to write the status', async () => {
      d = await getJson(['deployment', 'ssa-status']);
      return owner(d) !== undefined && d.status?.replicas === 1;
    });
    const e = owner(d)!;
    assert.equal(e.operation, 'Update');
    assert.equal(e.apiVersion, 'apps/v1');
    assert.ok((e.fieldsV1 as any)['f:status']['f:replicas'], JSON.stringify(e.fieldsV1));
    assert.equal((entry(d, 'alice')!.fieldsV1 as any)['f:status'], undefined);
    const list = JSON.parse(ok(await c.k(['get', 'rs', '-l', 'app=ssa-status', '-o', 'json', '--show-managed-fields'])));
    assert.equal(list.items.length, 1);
    assert.ok(entries(list.items[0]).some((x) => x.manager === 'kube-controller-manager' && !x.subresource));
  });

  test('apply on the status and scale subresources', async () => {
    ok(await apply('alice', deployment('ssa-sub')));
    const scale = (query: string) =>
      api(c).request(
        'PATCH',
        `/apis/apps/v1/namespaces/default/deployments/ssa-sub/scale?fieldManager=scaler${query}`,
        'apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: ssa-sub}\nspec: {replicas: 2}\n',
        { 'content-type': 'application/apply-patch+yaml' },
      );
    const refused = await scale('');
    assert.equal(refused.status, 409);
    assert.equal(refused.body.message, 'Apply failed with 1 conflict: conflict with "alice": .spec.replicas');
    const res = await scale('&force=true');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.kind, 'Scale');
    assert.equal(res.body.spec.replicas, 2);
    const d = await getJson(['deployment', 'ssa-sub']);
    assert.equal(d.spec.replicas, 2);
    const e = entry(d, 'scaler')!;
    assert.equal(e.subresource, 'scale');
    assert.deepEqual(e.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    // Forced: alice no longer owns the replicas.
    assert.equal((entry(d, 'alice')!.fieldsV1 as any)['f:spec']['f:replicas'], undefined);

    // The status subresource (on a Namespace, whose status no controller rewrites): kubectl sends the object with its status.
    const ns = (status: string) => `apiVersion: v1\nkind: Namespace\nmetadata: {name: ssa-ns}\n${status}`;
    ok(await apply('alice', ns('')));
    ok(await apply('status-writer', ns('status:\n  conditions:\n  - {type: Example, status: "True"}\n'), '--subresource=status'));
    const n = await getJson(['namespace', 'ssa-ns']);
    assert.deepEqual(
      n.status.conditions.map((x: any) => [x.type, x.status]),
      [['Example', 'True']],
    );
    const se = entry(n, 'status-writer')!;
    assert.equal(se.subresource, 'status');
    assert.equal(se.operation, 'Apply');
    assert.deepEqual(se.fieldsV1, {
      'f:status': { 'f:conditions': { 'k:{"type":"Example"}': { '.': {}, 'f:status': {}, 'f:type': {} } } },
    });
  });

  test('client-side apply migrates to server-side apply through the last-applied annotation', async () => {
    ok(await c.k(['apply', '-f', '-'], configMap('ssa-migrate', { color: 'blue' })));
    const csa = await getJson(['configmap', 'ssa-migrate']);
    assert.ok(csa.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
    assert.equal(entry(csa, 'kubectl-client-side-apply')!.operation, 'Update');
    // No conflict with kubectl-client-side-apply: it owns the field through what it last applied.
    ok(await c.k(['apply', '--server-side', '-f', '-'], configMap('ssa-migrate', { color: 'red' })));
    const ssa = await getJson(['configmap', 'ssa-migrate']);
    assert.equal(ssa.data.color, 'red');
    assert.equal(entry(ssa, 'kubectl')!.operation, 'Apply');
    const last = JSON.parse(ssa.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
    assert.deepEqual(last.data, { color: 'red' });
    assert.equal(entry(ssa, 'kubectl-client-side-apply'), undefined, 'the old manager lost its only field');
  });
});

function deployment(name: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
`;
}
