// Creates prepared on a create worker thread answer exactly as creates
// prepared on the main thread: one apiserver with a worker, one without, the
// same requests to both, the same answers (but for what is unique to each
// create: uid, creation time, resourceVersion, a generated name's suffix).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, startApiserver, until, type Apiserver, type ApiClient } from './helpers/index.ts';

let withWorker: Apiserver;
let withoutWorker: Apiserver;
let w: ApiClient;
let m: ApiClient;

before(async () => {
  [withWorker, withoutWorker] = await Promise.all([
    startApiserver({ extraArgs: ['--create-workers', '1'] }),
    startApiserver({ extraArgs: ['--create-workers', '0'] }),
  ]);
  w = api(withWorker);
  m = api(withoutWorker);
  // The worker starts beside the server: wait until it takes creates.
  await until(async () => (await metric(withWorker, 'ksim_create_workers_ready')) === 1, 'create worker ready');
});
after(() => Promise.all([withWorker?.stop(), withoutWorker?.stop()]));

/** A metric's value from /metrics, read as the admin (/metrics needs credentials). */
async function metric(server: Apiserver, name: string): Promise<number> {
  const text = String((await api(server).request('GET', '/metrics', undefined, { accept: 'text/plain' })).body);
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : NaN;
}

/** An answer without what differs between any two creates. */
function comparable(res: { status: number; headers: Record<string, string>; body: any }) {
  const body = structuredClone(res.body);
  if (body?.metadata) {
    for (const k of ['uid', 'creationTimestamp', 'resourceVersion']) if (body.metadata[k] !== undefined) body.metadata[k] = `<${k}>`;
    // The managedFields entry is stamped with the create's second, like creationTimestamp: two creates may straddle one.
    for (const entry of body.metadata.managedFields ?? []) if (entry.time !== undefined) entry.time = '<time>';
    if (body.metadata.generateName && body.metadata.name) {
      const generated = body.metadata.name;
      body.metadata.name = generated.slice(0, body.metadata.generateName.length) + '<suffix>';
      // A Namespace's label follows its name.
      if (body.metadata.labels?.['kubernetes.io/metadata.name'] === generated)
        body.metadata.labels['kubernetes.io/metadata.name'] = body.metadata.name;
    }
  }
  // The ServiceAccount admission plugin names the token volume kube-api-access-<5 random characters>, as kube does
  // (the name is also a key of the volume's managedFields entry, where it stands in escaped quotes).
  const text = JSON.stringify(body)?.replace(/kube-api-access-[a-z0-9]{5}(?![a-z0-9])/g, 'kube-api-access-<suffix>');
  return { status: res.status, warning: res.headers.warning, body: text === undefined ? body : JSON.parse(text) };
}

async function both(path: string, body: unknown, headers: Record<string, string> = {}) {
  const [a, b] = await Promise.all([w.request('POST', path, body, headers), m.request('POST', path, body, headers)]);
  assert.deepEqual(comparable(a), comparable(b));
  return a;
}

const pod = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: 'x' } },
  spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '0.5', memory: '1024Mi' } } }], ...extra },
});

const PODS = '/api/v1/namespaces/default/pods';

test('a Pod is defaulted, admitted and stored the same on a worker as on the main thread', async () => {
  const before = await metric(withWorker, 'ksim_create_workers_prepared_total');
  const res = await both(PODS, pod('plain'));
  assert.equal(res.status, 201);
  assert.equal(res.body.spec.containers[0].resources.requests.cpu, '500m');
  assert.equal(res.body.spec.serviceAccountName, 'default');
  assert.equal(res.body.spec.priority, 0);
  assert.equal(res.body.spec.tolerations.length, 2);
  assert.ok((await metric(withWorker, 'ksim_create_workers_prepared_total')) > before, 'the worker prepared it');
  const stored = await w.request('GET', `${PODS}/plain`);
  assert.deepEqual(stored.body, res.body);
});

test("what mutating admission adds to a Pod is no manager's, on a worker as on the main thread (kube tracks managedFields before it)", async () => {
  const res = await both(PODS, pod('owned'));
  assert.equal(res.status, 201);
  // Admission added these: the token volume and its mount, the priority, the not-ready/unreachable tolerations.
  assert.ok(res.body.spec.volumes.some((v: any) => v.name.startsWith('kube-api-access-')));
  assert.equal(res.body.spec.priority, 0);
  assert.equal(res.body.spec.tolerations.length, 2);
  const [entry] = res.body.metadata.managedFields;
  const spec = entry.fieldsV1['f:spec'];
  for (const f of ['f:volumes', 'f:priority', 'f:preemptionPolicy', 'f:tolerations', 'f:serviceAccountName'])
    assert.equal(spec[f], undefined, `${f} is not owned: ${JSON.stringify(spec)}`);
  assert.equal(spec['f:containers']['k:{"name":"c"}']['f:volumeMounts'], undefined);
  // What the client sent and what defaulting set are the creator's.
  assert.ok(spec['f:containers']['k:{"name":"c"}']['f:image']);
  assert.ok(spec['f:dnsPolicy'], 'a default is owned, as kube decodes with defaults');
});

test('generateName, YAML bodies, dry runs and other kinds match too', async () => {
  const gen = await both(PODS, { ...pod(''), metadata: { generateName: 'gen-' } });
  assert.match(gen.body.metadata.name, /^gen-[a-z0-9]{5}$/);
  await both(PODS, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: from-yaml\nspec:\n  containers:\n  - name: c\n    image: nginx\n', {
    'content-type': 'application/yaml',
  });
  const dry = await both(`${PODS}?dryRun=All`, pod('dry'));
  assert.equal(dry.status, 201);
  assert.equal((await w.request('GET', `${PODS}/dry`)).status, 404);
  await both('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: 'b' } });
  await both('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'made-here' } });
});

test('a Namespace from generateName gets the generated name and the label that names it, on a worker as on the main thread', async () => {
  const before = await metric(withWorker, 'ksim_create_workers_prepared_total');
  const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: 'test-' } };
  const answers = await Promise.all([w.request('POST', '/api/v1/namespaces', ns), m.request('POST', '/api/v1/namespaces', ns)]);
  for (const res of answers) {
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(res.body.metadata.name, /^test-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.equal(res.body.metadata.labels['kubernetes.io/metadata.name'], res.body.metadata.name);
  }
  assert.deepEqual(comparable(answers[0]), comparable(answers[1]));
  assert.equal(await metric(withWorker, 'ksim_create_workers_prepared_total'), before + 1, 'the worker prepared it');
  // A prefix that makes no valid name is refused alike, on generateName and on the generated name.
  for (const c of [w, m]) {
    const bad = await c.request('POST', '/api/v1/namespaces', { ...ns, metadata: { generateName: '-' } });
    assert.equal(bad.status, 422);
    assert.match(
      bad.body.message,
      /^Namespace "-[bcdfghjklmnpqrstvwxz2456789]{5}" is invalid: \[metadata\.generateName: Invalid value: "-": a lowercase RFC 1123 label .*, metadata\.name: Invalid value: "-[a-z0-9]{5}": a lowercase RFC 1123 label .*\]$/,
    );
  }
});

test('refusals carry the same Status: decode errors, unknown fields, invalid objects, conflicts, missing namespaces', async () => {
  assert.equal((await both(PODS, '{"apiVersion":"v1","kind":"Pod",')).status, 400);
  assert.equal((await both(`${PODS}?fieldValidation=Strict`, { ...pod('strict'), bogus: 1 })).status, 400);
  const warned = await both(`${PODS}?fieldValidation=Warn`, { ...pod('warned'), bogus: 1 });
  assert.equal(warned.status, 201);
  assert.ok(warned.headers.warning?.includes(String.raw`unknown field \"bogus\"`), warned.headers.warning);
  assert.equal((await both(PODS, pod('Bad_Name'))).status, 422);
  assert.equal(
    (
      await both(PODS, {
        ...pod('bad-cpu'),
        spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: 'lots' } } }] },
      })
    ).status,
    400,
    'an unparsable quantity fails decoding, as in kube',
  );
  assert.equal((await both(PODS, pod('plain'))).status, 409);
  assert.equal((await both('/api/v1/namespaces/nowhere/pods', pod('lost'))).status, 404);
});

test('a PriorityClass is seen by the very next Pod, and a missing one is refused', async () => {
  const pc = {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'high' },
    value: 1000,
    preemptionPolicy: 'Never',
  };
  assert.equal((await both('/apis/scheduling.k8s.io/v1/priorityclasses', pc)).status, 201);
  const high = await both(PODS, pod('high-pod', { priorityClassName: 'high' }));
  assert.equal(high.body.spec.priority, 1000);
  assert.equal(high.body.spec.preemptionPolicy, 'Never');
  assert.equal((await both(PODS, pod('no-class', { priorityClassName: 'absent' }))).status, 403);
  const def = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'everyone' }, value: 7, globalDefault: true };
  await both('/apis/scheduling.k8s.io/v1/priorityclasses', def);
  assert.equal((await both(PODS, pod('defaulted'))).body.spec.priority, 7);
});

/** The admission steps of the request that got `res`, from its trace, as comparable text sorted (a worker runs its plugins first). */
async function admissionSteps(c: ApiClient, res: { headers: Record<string, string> }): Promise<string[]> {
  const trace = await c.request('GET', `/apis/history.ksim.io/v1alpha1/requests/${res.headers['audit-id']}`);
  assert.equal(trace.status, 200, JSON.stringify(trace.body));
  return (trace.body.steps as { stage: string; phase?: string; plugin?: string; outcome: string; changed?: boolean; detail?: string }[])
    .filter((s) => s.stage === 'admission')
    .map((s) => `${s.phase} ${s.plugin} ${s.outcome}${s.changed ? ' changed' : ''}${s.detail ? `: ${s.detail}` : ''}`)
    .sort();
}

test("a create's trace lists the same admission steps on a worker as on the main thread, and a worker plugin's denial", async () => {
  const before = await metric(withWorker, 'ksim_create_workers_prepared_total');
  const [onWorker, here] = await Promise.all([w.request('POST', PODS, pod('traced')), m.request('POST', PODS, pod('traced'))]);
  assert.equal(onWorker.status, 201, JSON.stringify(onWorker.body));
  // The worker runs the plugins that read only the object; the main thread also calls those that would
  // have read the store (they find nothing to do), which a worker's create is chosen for not needing.
  const steps = await admissionSteps(w, onWorker);
  const mainSteps = await admissionSteps(m, here);
  assert.deepEqual(steps, [
    'mutating DefaultTolerationSeconds allowed',
    'mutating Priority allowed',
    'mutating ServiceAccount allowed changed',
  ]);
  for (const s of steps) assert.ok(mainSteps.includes(s), `${s} in ${JSON.stringify(mainSteps)}`);

  const refused = await both(PODS, pod('no-class', { priorityClassName: 'nosuch' }));
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  const denied = (await admissionSteps(w, refused)).filter((s) => / denied: /.test(s));
  assert.deepEqual(denied, [`mutating Priority denied: ${refused.body.message}`]);
  assert.ok((await metric(withWorker, 'ksim_create_workers_prepared_total')) >= before + 2, 'the worker prepared both');
});
