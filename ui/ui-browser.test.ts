// The web UI in a real browser: the UI server runs against a fake apiserver
// (a node:http server answering the history and list paths with fixed data,
// and `changes` with a new write when the test pushes one), and headless
// Chromium (Debian's, driven by playwright-core) checks that the timeline
// puts each write in its writer's lane, a pushed change reaches the screen,
// the graph has the Deployment -> ReplicaSet -> Pod edges, and clicking a
// mark shows the object's revisions and a diff. A screenshot is kept on
// failure (its path is printed).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { WebSocket } from 'ws';
import express from 'express';
import type { Change, ChangeList, Writer } from '../shared/api/history-types.ts';
import { ReconcileStepper } from '../shared/controller/stepper.ts';
import { stepperRoutes } from '../shared/controller/stepper-routes.ts';
import { DECISION_ANNOTATION, type Decision } from '../scheduler/explain.ts';
import type { RequestTrace } from '../shared/api/request-trace-types.ts';

const HISTORY_PATH = '/apis/history.ksim.io/v1alpha1';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TOKEN = 'ui-test-token';
const T0 = Date.now() - 20_000;

const kcm = (controller: string, trigger: string): Writer => ({
  user: 'system:kube-controller-manager',
  verb: 'create',
  cause: { controller, key: 'default/web', triggers: [trigger] },
});
const ref = (group: string, resource: string, kind: string, name: string) => ({ group, resource, kind, namespace: 'default', name });
const deployment = ref('apps', 'deployments', 'Deployment', 'web');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

const changes: Change[] = [
  {
    revision: '100',
    type: 'ADDED',
    time: at(0),
    object: deployment,
    writer: { user: 'admin', verb: 'create', fieldManager: 'kubectl-create' },
  },
  {
    revision: '101',
    type: 'ADDED',
    time: at(1),
    object: ref('apps', 'replicasets', 'ReplicaSet', 'web-abc'),
    writer: kcm('deployment', '100'),
  },
  { revision: '102', type: 'ADDED', time: at(2), object: ref('', 'pods', 'Pod', 'web-abc-1'), writer: kcm('replicaset', '101') },
  {
    revision: '103',
    type: 'MODIFIED',
    time: at(3),
    object: ref('', 'pods', 'Pod', 'web-abc-1'),
    writer: {
      user: 'system:kube-scheduler',
      verb: 'create',
      subresource: 'binding',
      cause: { controller: 'scheduler', triggers: ['102'] },
    },
  },
  {
    revision: '104',
    type: 'MODIFIED',
    time: at(8),
    object: deployment,
    writer: { user: 'admin', verb: 'patch', fieldManager: 'kubectl-set' },
  },
];
const pushed: Change = {
  revision: '105',
  type: 'MODIFIED',
  time: new Date().toISOString(),
  object: ref('', 'pods', 'Pod', 'web-abc-1'),
  writer: {
    user: 'system:node:node-1',
    verb: 'patch',
    subresource: 'status',
    cause: { controller: 'kubelet', triggers: ['103'], detail: 'Running' },
  },
};

/** The scheduler's decision for web-abc-1, as the scheduler stores it on the Pod. */
const DECISION: Decision = {
  profile: 'default-scheduler',
  result: 'Scheduled',
  node: 'node-1',
  nodes: 3,
  evaluated: 3,
  feasible: 2,
  rejected: { 'node-3': 'TaintToleration: node(s) had untolerated taint {dedicated: gpu}' },
  reasons: { 'node(s) had untolerated taint {dedicated: gpu}': 1 },
  scores: [
    { node: 'node-2', total: 150, plugins: { NodeResourcesFit: 50, ImageLocality: 100 } },
    { node: 'node-1', total: 180, plugins: { NodeResourcesFit: 80, ImageLocality: 100 } },
  ],
};
const POD_HISTORY = `${HISTORY_PATH}/namespaces/default/pods/web-abc-1`;
const podAt = (revision: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-abc-1',
    namespace: 'default',
    resourceVersion: revision,
    annotations: { [DECISION_ANNOTATION]: JSON.stringify(DECISION) },
  },
  spec: { nodeName: 'node-1' },
});
const event = (revision: string, type: Change['type'], name: string, reason: string, message: string): Change => ({
  revision,
  type,
  time: at(Number(revision) - 100),
  object: ref('', 'events', 'Event', name),
  body: {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'default' },
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-abc-1' },
    reason,
    message,
    type: reason === 'FailedScheduling' ? 'Warning' : 'Normal',
    source: { component: 'default-scheduler' },
    count: 1,
  },
});
/** Event changes: the first Event has since expired (its TTL deleted it), and is still shown. */
const EVENTS: Change[] = [
  event('102', 'ADDED', 'web-abc-1.a', 'FailedScheduling', '0/3 nodes are available'),
  event('103', 'ADDED', 'web-abc-1.b', 'Scheduled', 'Successfully assigned default/web-abc-1 to node-1'),
  event('104', 'DELETED', 'web-abc-1.a', 'FailedScheduling', '0/3 nodes are available'),
];

/** One request's path, as the apiserver's request trace keeps it. */
const TRACE: RequestTrace = {
  kind: 'RequestTrace',
  apiVersion: 'history.ksim.io/v1alpha1',
  auditID: 'audit-1',
  time: at(8),
  verb: 'patch',
  path: '/apis/apps/v1/namespaces/default/deployments/web',
  resource: 'deployments',
  apiGroup: 'apps',
  namespace: 'default',
  name: 'web',
  user: 'admin',
  code: 200,
  steps: [
    { stage: 'authentication', outcome: 'ok', detail: 'x509: admin (groups system:masters)', ms: 0.2 },
    { stage: 'authorization', outcome: 'allow', detail: 'RBAC: allowed by ClusterRoleBinding "cluster-admin"', ms: 0.1 },
    { stage: 'admission', phase: 'validating', plugin: 'ResourceQuota', outcome: 'allowed', ms: 0.05 },
    { stage: 'storage', outcome: 'ok', revision: '104', detail: 'MODIFIED at revision 104', ms: 2.5 },
    { stage: 'response', outcome: '200' },
  ],
};

const meta = (name: string, extra: Record<string, unknown> = {}) => ({ name, namespace: 'default', uid: `uid-${name}`, ...extra });
const owner = (kind: string, name: string) => ({
  ownerReferences: [{ apiVersion: 'apps/v1', kind, name, uid: `uid-${name}`, controller: true }],
});
const LISTS: Record<string, unknown[]> = {
  '/apis/apps/v1/namespaces/default/deployments': [{ metadata: meta('web') }],
  '/apis/apps/v1/namespaces/default/replicasets': [{ metadata: meta('web-abc', owner('Deployment', 'web')) }],
  '/api/v1/namespaces/default/pods': [{ metadata: meta('web-abc-1', owner('ReplicaSet', 'web-abc')), spec: { nodeName: 'node-1' } }],
  '/api/v1/nodes': [{ metadata: { name: 'node-1', uid: 'uid-node-1' } }],
};
const HISTORY = HISTORY_PATH;
const WEB = `${HISTORY}/namespaces/default/deployments.apps/web`;
const IMAGE = '.spec.template.spec.containers[0].image';

/** The fake apiserver; `push` makes the next (or a waiting) `changes` poll return the pushed write. */
function fakeApiserver() {
  const log: Change[] = [...changes];
  const waiting = new Set<() => void>();
  const json = (res: http.ServerResponse, code: number, body: unknown) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const notFound = (res: http.ServerResponse) =>
    json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' });
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return json(res, 401, { kind: 'Status', code: 401, message: 'Unauthorized' });
    if (req.method !== 'GET') return json(res, 405, { kind: 'Status', code: 405, message: 'no' });
    const p = url.pathname;
    if (p === `${HISTORY}/changes`) {
      // As the apiserver does: `from` is a resourceVersion, so never "0".
      if (url.searchParams.get('from') === '0')
        return json(res, 400, { kind: 'Status', code: 400, message: 'from: must be a resourceVersion' });
      const from = BigInt(url.searchParams.get('from') ?? '0');
      if (url.searchParams.get('resource') === 'events,events.events.k8s.io') {
        const items = EVENTS.filter((c) => BigInt(c.revision) > from);
        return json(res, 200, { kind: 'ChangeList', apiVersion: 'history.ksim.io/v1alpha1', metadata: { resourceVersion: '105' }, items });
      }
      const limit = Number(url.searchParams.get('limit') ?? 500);
      const answer = () => {
        const items = log.filter((c) => BigInt(c.revision) > from).slice(0, limit);
        const body: ChangeList = {
          kind: 'ChangeList',
          apiVersion: 'history.ksim.io/v1alpha1',
          metadata: { resourceVersion: log[log.length - 1].revision },
          items,
        };
        json(res, 200, body);
      };
      const timeout = Number(url.searchParams.get('timeoutSeconds') ?? 0);
      if (!timeout || log.some((c) => BigInt(c.revision) > from)) return answer();
      const done = () => {
        waiting.delete(done);
        clearTimeout(timer);
        answer();
      };
      const timer = setTimeout(done, timeout * 1000).unref();
      waiting.add(done);
      return;
    }
    if (LISTS[p]) return json(res, 200, { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '104' }, items: LISTS[p] });
    if (/^\/api(s\/[^/]+)?\/v1\//.test(p) && !p.startsWith(HISTORY))
      return json(res, 200, { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '104' }, items: [] });
    if (p === WEB)
      return json(res, 200, {
        kind: 'RevisionList',
        apiVersion: 'history.ksim.io/v1alpha1',
        metadata: {},
        object: deployment,
        items: changes.filter((c) => c.object === deployment).map(({ object: _o, ...r }) => r),
      });
    if (p === `${HISTORY}/requests`)
      return json(res, 200, { kind: 'RequestTraceList', apiVersion: 'history.ksim.io/v1alpha1', metadata: {}, items: [TRACE] });
    if (p === `${HISTORY}/requests/audit-1`) return json(res, 200, TRACE);
    if (p === POD_HISTORY)
      return json(res, 200, {
        kind: 'RevisionList',
        apiVersion: 'history.ksim.io/v1alpha1',
        metadata: {},
        object: ref('', 'pods', 'Pod', 'web-abc-1'),
        items: changes.filter((c) => c.object.name === 'web-abc-1').map(({ object: _o, ...r }) => r),
      });
    if (p === `${POD_HISTORY}/object`) return json(res, 200, podAt(url.searchParams.get('revision') ?? '103'));
    if (p === `${WEB}/diff`)
      return json(res, 200, {
        kind: 'RevisionDiff',
        apiVersion: 'history.ksim.io/v1alpha1',
        object: deployment,
        from: url.searchParams.get('from'),
        to: url.searchParams.get('to'),
        changes: [{ path: IMAGE, op: 'replace', old: 'nginx:1.0', new: 'nginx:1.1' }],
      });
    if (p === `${WEB}/blame`)
      return json(res, 200, {
        kind: 'FieldBlame',
        apiVersion: 'history.ksim.io/v1alpha1',
        object: deployment,
        revision: url.searchParams.get('revision'),
        fields: [{ path: IMAGE, value: 'nginx:1.1', revision: '104', time: at(8), writer: changes[4].writer, manager: 'kubectl-set' }],
      });
    return notFound(res);
  });
  return {
    server,
    push(c: Change) {
      log.push(c);
      for (const w of [...waiting]) w();
    },
  };
}

/** Starts the UI server and resolves with its port once it logs that it serves. */
function startUi(kubeconfig: string, extra: string[] = []): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'ui/server/main.ts', '--kubeconfig', kubeconfig, '--port', '0', ...extra], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`ui server did not start:\n${buf}`)), 15_000);
    child.stderr.on('data', (d: Buffer) => {
      buf += d.toString();
      for (const line of buf.split('\n')) {
        if (!line.includes('"ui serving"')) continue;
        clearTimeout(timer);
        resolve({ child, port: (JSON.parse(line) as { port: number }).port });
        return;
      }
    });
    child.once('exit', (code) => reject(new Error(`ui server exited (${code}):\n${buf}`)));
  });
}

/** A kubeconfig in `dir` for the fake apiserver at `apiUrl`. */
async function writeKubeconfig(dir: string, apiUrl: string): Promise<string> {
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'fake',
      clusters: [{ name: 'fake', cluster: { server: apiUrl } }],
      users: [{ name: 'ui', user: { token: TOKEN } }],
      contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'ui' } }],
    }),
  );
  return kubeconfig;
}

const laneOf = (page: Page, revision: string) => page.getAttribute(`.plot .mark[data-revision="${revision}"]`, 'data-lane');

/** What a browser test gets: the fake apiserver, the UI server's address, and a way to open the page in Chromium. */
interface UiSession {
  dir: string;
  api: ReturnType<typeof fakeApiserver>;
  port: number;
  base: string;
  openPage: () => Promise<Page>;
}

/**
 * Runs `body` against the UI server started on a fake apiserver (skipped
 * without Chromium, which CI must have). `prepare` may add to the data dir
 * and return the UI server's extra flags and a cleanup. A screenshot is kept
 * on failure, and everything started is stopped whatever happens.
 */
async function withUi(
  t: TestContext,
  prepare: ((dir: string) => Promise<{ uiArgs: string[]; cleanup: () => void }>) | undefined,
  body: (s: UiSession) => Promise<void>,
): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    // CI installs it (.ci/run): there a missing browser is a failure, not a skip.
    assert.ok(!process.env.CI, `${CHROMIUM} is not installed: .ci/run should have installed the chromium package`);
    t.skip(`${CHROMIUM} is not installed (apt-get install chromium)`);
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), 'ksim-ui-browser-'));
  const api = fakeApiserver();
  await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
  const kubeconfig = await writeKubeconfig(dir, `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`);
  let extra: { uiArgs: string[]; cleanup: () => void } | undefined;
  let ui: { child: ChildProcess; port: number } | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  let ok = false;
  try {
    extra = await prepare?.(dir);
    ui = await startUi(kubeconfig, extra?.uiArgs);
    const base = `http://127.0.0.1:${ui.port}`;
    const openPage = async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
      await page.goto(`${base}/`);
      return page;
    };
    await body({ dir, api, port: ui.port, base, openPage });
    ok = true;
  } finally {
    if (!ok && page) {
      const shot = join(dir, 'failure.png');
      await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
      process.stderr.write(`ui-browser test: screenshot at ${shot}\n`);
    }
    await browser?.close();
    ui?.child.kill('SIGTERM');
    extra?.cleanup();
    api.server.closeAllConnections();
    api.server.close();
    if (ok) await rm(dir, { recursive: true, force: true });
  }
}

test('the UI shows the timeline, the live changes, the graph and an object history', { timeout: 30_000 }, async (t) => {
  await withUi(t, undefined, async ({ api, port, base, openPage }) => {
    // The JSON API passes the apiserver's answers through and lists only what the graph draws.
    const missing = await fetch(`${base}/api/history/namespaces/default/pods/nope`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { reason: string }).reason, 'NotFound');
    assert.equal((await fetch(`${base}/api/objects?resource=secrets&namespace=default`)).status, 400);
    // A raw path, as a client that does not normalize `..` would send it.
    const raw = (path: string) =>
      new Promise<number>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .on('error', reject);
      });
    assert.equal(await raw('/api/history/namespaces/default/../../../api/v1/secrets'), 400, 'no way out of the history API');
    assert.equal(await raw('/api/history/namespaces/default/%2e%2e/x'), 400);
    // Another site's page may not open the live feed.
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/live`, { headers: { Origin: 'http://evil.example' } });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => {});
    });
    assert.equal(refused, 403);
    const page = await openPage();

    // The timeline: every write a mark, in its writer's lane, with what it is on hover.
    await page.waitForSelector('.plot .mark[data-revision="104"]', { timeout: 10_000 });
    assert.equal(await laneOf(page, '100'), 'user admin');
    assert.equal(await laneOf(page, '101'), 'controller deployment');
    assert.equal(await laneOf(page, '102'), 'controller replicaset');
    assert.equal(await laneOf(page, '103'), 'scheduler');
    // The hover text is added when the pointer reaches the mark.
    await page.hover('.plot .mark[data-revision="101"]', { force: true });
    assert.match(
      (await page.textContent('.plot .mark[data-revision="101"] title')) ?? '',
      /create Deployment|create ReplicaSet default\/web-abc/,
    );
    assert.equal(await page.locator('.plot .link[data-from="100"][data-to="101"]').count(), 1, 'a line from the cause to its effect');

    // The graph: Deployment -> ReplicaSet -> Pod -> Node.
    const edge = (kind: string, source: string, target: string) =>
      page.waitForSelector(`.edges li[data-kind="${kind}"][data-source="${source}"][data-target="${target}"]`, {
        state: 'attached',
        timeout: 5000,
      });
    await edge('owns', 'Deployment/default/web', 'ReplicaSet/default/web-abc');
    await edge('owns', 'ReplicaSet/default/web-abc', 'Pod/default/web-abc-1');
    await edge('runs-on', 'Pod/default/web-abc-1', 'Node//node-1');

    // A write made now reaches the screen over /live, in the kubelet's lane.
    const pushedAt = Date.now();
    api.push(pushed);
    await page.waitForSelector('.plot .mark[data-revision="105"]', { timeout: 5000 });
    t.diagnostic(`a pushed change was on screen after ${Date.now() - pushedAt} ms`);
    assert.equal(await laneOf(page, '105'), 'kubelet node-1');

    // Thousands of writes at once, past the window's end: the timeline is drawn anew, the newest
    // marks first and the older ones in later tasks; in the end every write has its mark.
    const burst: Change[] = Array.from({ length: 3000 }, (_, i) => ({
      revision: String(1000 + i),
      type: 'MODIFIED',
      time: new Date(T0 + 20_000 + Math.floor(i / 30) * 400).toISOString(),
      object: ref('', 'pods', 'Pod', `burst-${i}`),
      writer: { user: `system:node:burst-${String(i % 30).padStart(2, '0')}`, verb: 'patch', subresource: 'status' },
    }));
    for (const c of burst) api.push(c);
    await page.waitForSelector('.plot .mark[data-revision="3999"]', { timeout: 10_000 });
    await page.waitForFunction((n) => document.querySelectorAll('.plot .mark[data-lane^="kubelet burst-"]').length === n, burst.length, {
      timeout: 10_000,
    });
    const drawnBurst = await page.$$eval('.plot .mark[data-lane^="kubelet burst-"]', (els) =>
      els.map((e) => e.getAttribute('data-revision')),
    );
    assert.deepEqual(new Set(drawnBurst), new Set(burst.map((c) => c.revision)), 'one mark per write, none lost or doubled');
    assert.equal(await page.locator('.plot .mark[data-revision="104"]').count(), 1, 'the older writes are still drawn');

    // Clicking a mark opens the object: its revisions, the diff to the one before, the blame.
    await page.click('.plot .mark[data-revision="104"]');
    await page.waitForSelector('.object table.revisions tr[data-revision="100"]', { timeout: 5000 });
    assert.equal(await page.locator('.object table.revisions tbody tr').count(), 2);
    assert.match((await page.textContent('.object h2')) ?? '', /Deployment default\/web/);
    const row = await page.waitForSelector(`.diff-table tr[data-path="${IMAGE}"]`, { timeout: 5000 });
    assert.equal(await (await row.$('.old'))?.textContent(), 'nginx:1.0');
    assert.equal(await (await row.$('.new'))?.textContent(), 'nginx:1.1');
    assert.match((await page.textContent('.blame-table')) ?? '', /kubectl-set/);
  });
});

test(
  "the UI steps the scheduler one Pod at a time, keeps expired Events, shows a request's path and a Pod's scheduler decision",
  { timeout: 30_000 },
  async (t) => {
    // A real step-through gate, as the scheduler serves it, found through DIR/cluster.json as ksim up writes it.
    const stepper = new ReconcileStepper();
    stepper.register('scheduler');
    const prepare = async (dir: string) => {
      const gate = express().use(stepperRoutes(stepper)).listen(0, '127.0.0.1');
      await new Promise((resolve) => gate.once('listening', resolve));
      const gateUrl = `http://127.0.0.1:${(gate.address() as AddressInfo).port}`;
      await writeFile(
        join(dir, 'cluster.json'),
        JSON.stringify({
          supervisorPid: process.pid,
          server: 'https://127.0.0.1:1',
          components: [{ name: 'scheduler', pid: process.pid, state: 'running', endpoint: gateUrl, log: '' }],
        }),
      );
      const cleanup = () => {
        stepper.resume('all');
        gate.closeAllConnections();
        gate.close();
      };
      return { uiArgs: ['--data-dir', dir], cleanup };
    };
    await withUi(t, prepare, async ({ base, openPage }) => {
      // Another site's page may not drive the controllers.
      const foreign = await fetch(`${base}/api/step/pause?controller=scheduler`, {
        method: 'POST',
        headers: { Origin: 'http://evil.example' },
      });
      assert.equal(foreign.status, 403);
      assert.equal(stepper.snapshot('scheduler')[0].paused, false);
      const bad = await fetch(`${base}/api/step/pause?controller=Not_A_Name`, { method: 'POST' });
      assert.equal(bad.status, 400);
      assert.match(((await bad.json()) as { message: string }).message, /^controller: /);

      const page = await openPage();

      // Step-through: pause the scheduler from the page; a Pod that arrives is held until "next".
      await page.click('.tabs button[data-panel="step"]');
      await page.waitForSelector('.steps tr[data-controller="scheduler"]', { timeout: 10_000 });
      await page.click('.steps tr[data-controller="scheduler"] button[data-action="pause"]');
      await waitFor(() => stepper.snapshot('scheduler')[0].paused, 'the scheduler paused');
      let scheduled = false;
      const attempt = stepper.admit('scheduler', 'default/web-abc-1', ['102']).then((record) => {
        record.notes.push(DECISION as unknown as Record<string, unknown>);
        scheduled = true;
        stepper.finish(record);
      });
      await page.waitForSelector('.steps tr[data-controller="scheduler"] td.held:text("1")', { timeout: 5000 });
      assert.equal(scheduled, false, 'held at the gate while paused');
      await page.click('.steps tr[data-controller="scheduler"] button[data-action="next"]');
      await attempt;
      // The stepped item with its decision: the chosen node first, with each plugin's score, and the rejected node.
      const card = await page.waitForSelector('.steps .item[data-key="default/web-abc-1"] .decision', { timeout: 5000 });
      assert.match((await card.textContent()) ?? '', /Scheduled on node-1: 2 of 3 nodes feasible/);
      assert.equal(
        await page.textContent('.steps .item[data-key="default/web-abc-1"] table.scores tbody tr:first-child td:first-child'),
        'node-1',
      );
      assert.match((await card.textContent()) ?? '', /TaintToleration/);
      await page.click('.steps tr[data-controller="scheduler"] button[data-action="resume"]');
      await waitFor(() => !stepper.snapshot('scheduler')[0].paused, 'the scheduler resumed');

      // Events, the expired one kept and marked.
      await page.click('.tabs button[data-panel="events"]');
      await page.waitForSelector('.event-table tr[data-reason="Scheduled"]', { timeout: 5000 });
      const expired = await page.waitForSelector('.event-table tr[data-reason="FailedScheduling"]', { timeout: 5000 });
      assert.match((await expired.getAttribute('class')) ?? '', /expired/);
      assert.match((await expired.textContent()) ?? '', /0\/3 nodes are available/);

      // A request's path: pick it from the recent requests.
      await page.click('.tabs button[data-panel="requests"]');
      await page.click('.recent-requests li[data-audit-id="audit-1"] a', { timeout: 5000 });
      await page.waitForSelector('.request-view[data-audit-id="audit-1"]', { timeout: 5000 });
      assert.deepEqual(await page.$$eval('.request-steps li', (els) => els.map((e) => e.getAttribute('data-stage'))), [
        'authentication',
        'authorization',
        'admission',
        'storage',
        'response',
      ]);
      assert.match((await page.textContent('.request-steps li[data-stage="authorization"]')) ?? '', /cluster-admin/);

      // A Pod's object view shows the scheduler's decision stored on it.
      await page.waitForSelector('.plot .mark[data-revision="103"]', { timeout: 10_000 });
      await page.click('.plot .mark[data-revision="103"]');
      const decision = await page.waitForSelector('.object .decision', { timeout: 5000 });
      assert.match((await decision.textContent()) ?? '', /Scheduled on node-1/);
    });
  },
);

async function waitFor(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
