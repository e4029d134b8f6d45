// Issue 18's story with the real kubectl on `ksim up --nodes 3`: create a
// Deployment, set its image, roll it back, scale it, delete a Pod; then
// `ksim history`, `diff`, `blame` and `trace` say who wrote each revision,
// what changed and what each write caused, down to the kubelets' status
// writes on named nodes; a deleted Pod is read at an old revision; and the
// web UI shows the same story in a real browser (timeline lanes, the
// ownership graph, the Deployment's revisions, diff and blame).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { FieldBlame, RevisionList, Trace, TraceNode } from '../shared/api/history-types.ts';
import { ok, startCluster, type Cluster } from './helpers/index.ts';

const CHROMIUM = '/usr/bin/chromium';
let cluster: Cluster;

before(async () => {
  cluster = await startCluster({ nodes: 3, upArgs: ['--ui'] });
});
after(() => cluster?.stop());

const json = async <T>(args: string[]): Promise<T> => JSON.parse(ok(await cluster.ksim([...args, '-o', 'json']))) as T;
const settle = async () => ok(await cluster.k(['rollout', 'status', 'deployment/web', '--timeout=60s']));
const IMAGE = '.spec.template.spec.containers[name="nginx"].image';

/** Every node of a trace's tree. */
const flatten = (n: TraceNode): TraceNode[] => [n, ...n.children.flatMap(flatten)];

let revisions: RevisionList['items'];
const userRevision = (manager: string, subresource?: string) => {
  const r = revisions.find(
    (i) => i.writer?.user === 'kubernetes-admin' && i.writer.fieldManager === manager && i.writer.subresource === subresource,
  );
  assert.ok(
    r,
    `a revision written by ${manager}${subresource ? ` on ${subresource}` : ''}: ${JSON.stringify(revisions.map((i) => i.writer))}`,
  );
  return r.revision;
};

test('history, diff, blame and trace tell the story of a Deployment', { timeout: 100_000 }, async () => {
  ok(await cluster.k(['create', 'deployment', 'web', '--image=nginx', '--replicas=3']));
  await settle();
  ok(await cluster.k(['set', 'image', 'deployment/web', 'nginx=nginx:1.27']));
  await settle();
  ok(await cluster.k(['rollout', 'undo', 'deployment/web']));
  await settle();
  ok(await cluster.k(['scale', 'deployment/web', '--replicas=5']));
  await settle();

  const table = ok(await cluster.ksim(['history', 'deployment/web']));
  assert.match(table, /^REVISION\s+TIME\s+TYPE\s+WRITER\s+MANAGER\s+VERB\s+CAUSE\s+CHANGED/);
  revisions = (await json<RevisionList>(['history', 'deployment/web'])).items;
  const created = userRevision('kubectl-create');
  const setImage = userRevision('kubectl-set');
  const scaled = userRevision('kubectl', 'scale');
  assert.equal(revisions[0].revision, created);
  assert.equal(revisions[0].type, 'ADDED');
  // Every revision names its writer; the controller's name theirs with the cause.
  for (const r of revisions) assert.ok(r.writer?.user, `revision ${r.revision} has a writer`);
  const statusWrite = revisions.find((r) => r.writer?.subresource === 'status');
  assert.equal(statusWrite?.writer?.user, 'system:serviceaccount:kube-system:deployment-controller');
  assert.equal(statusWrite?.writer?.cause?.controller, 'deployment');
  assert.ok(revisions.find((r) => r.revision === setImage)?.changed?.includes(IMAGE), 'the set image revision changed the image');

  // The image change, field by field.
  const before = revisions[revisions.findIndex((r) => r.revision === setImage) - 1].revision;
  const diff = ok(await cluster.ksim(['diff', 'deployment/web', before, setImage]));
  assert.match(diff, new RegExp(`~ ${IMAGE.replace(/[.[\]]/g, '\\$&')}: nginx -> nginx:1\\.27`));

  // Blame at the set image: kubectl-set owns the image; the controller the status.
  const blame = await json<FieldBlame>(['blame', 'deployment/web', '--revision', setImage]);
  const field = (path: string) => blame.fields.find((f) => f.path === path);
  assert.equal(field(IMAGE)?.manager, 'kubectl-set');
  assert.equal(field(IMAGE)?.revision, setImage);
  assert.equal(field('.status.replicas')?.writer?.cause?.controller, 'deployment');
  assert.equal(field('.metadata.name')?.revision, created);
  assert.match(ok(await cluster.ksim(['blame', 'deployment/web'])), /\.spec\.replicas\s+5\s+\d+\s+kubectl\s+kubernetes-admin/);

  // The trace of the scale: ReplicaSet, Pods, binds, kubelet status writes on named nodes, and the statuses back up.
  const trace = await json<Trace>(['trace', 'deployment/web', '--revision', scaled]);
  const nodes = flatten(trace.root);
  const has = (what: string, pred: (n: TraceNode) => boolean) => assert.ok(nodes.some(pred), `${what} in the trace`);
  has(
    'a ReplicaSet write by the deployment controller',
    (n) => n.object.resource === 'replicasets' && n.writer?.cause?.controller === 'deployment',
  );
  has(
    'a Pod create by the replicaset controller',
    (n) => n.object.resource === 'pods' && n.type === 'ADDED' && n.writer?.cause?.controller === 'replicaset',
  );
  has('a bind by the scheduler', (n) => n.writer?.subresource === 'binding' && /^node-\d/.test(n.writer.cause?.detail ?? ''));
  has(
    'a kubelet status write on a named node',
    (n) => /^system:node:node-\d$/.test(n.writer?.user ?? '') && n.writer?.subresource === 'status',
  );
  has('the Deployment status written back', (n) => n.object.resource === 'deployments' && n.writer?.subresource === 'status');
  const tree = ok(await cluster.ksim(['trace', 'deployment/web', '--revision', scaled]));
  assert.match(tree, /^\d+ \S+ MODIFIED patch scale deployments\.apps\/web -n default by kubernetes-admin/);
  assert.match(tree, /`- .*by system:node:node-\d \(kubelet\)/);

  // A deleted Pod, read at a revision before its deletion.
  const pod = ok(await cluster.k(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].metadata.name}']));
  const podRevisions = (await json<RevisionList>(['history', `pod/${pod}`])).items;
  ok(await cluster.k(['delete', 'pod', pod, '--wait=true']));
  const podHistory = (await json<RevisionList>(['history', `pod/${pod}`])).items;
  assert.equal(podHistory.at(-1)?.type, 'DELETED');
  const old = ok(await cluster.ksim(['history', `pod/${pod}`, '--revision', podRevisions[0].revision]));
  assert.match(old, new RegExp(`name: ${pod}`));
  assert.match(old, /image: nginx/);
});

test('ksim step pauses the deployment controller and shows one reconcile at a time', { timeout: 60_000 }, async () => {
  ok(await cluster.ksim(['step', 'pause', 'deployment']));
  assert.match(ok(await cluster.ksim(['step', 'show'])), /^deployment: PAUSED, \d+ held$/m);
  const before = ok(await cluster.k(['get', 'rs', '-l', 'app=web', '-o', 'name']))
    .trim()
    .split('\n')
    .sort();
  ok(await cluster.k(['set', 'image', 'deployment/web', 'nginx=nginx:1.28']));
  await new Promise((r) => setTimeout(r, 1500));
  // Held: no new ReplicaSet for the new template.
  assert.deepEqual(
    ok(await cluster.k(['get', 'rs', '-l', 'app=web', '-o', 'name']))
      .trim()
      .split('\n')
      .sort(),
    before,
  );
  assert.match(ok(await cluster.ksim(['step', 'show', 'deployment'])), /held: default\/web/);
  const step = ok(await cluster.ksim(['step', 'next', 'deployment']));
  // done, or failed on a conflict and requeued as kube's controllers are.
  assert.match(step, /^#\d+ deployment default\/web (done|failed) in \d+ ms \(queued by \d+/m);
  assert.match(step, /step: rolling update/);
  assert.match(step, /surge: at most replicas \+ maxSurge = 5 \+ 2 = 7 Pods/);
  assert.match(step, /decision: (scale the new ReplicaSet web-\w+ from \d+ to \d+|the new ReplicaSet stays at \d+)/);
  assert.match(step, /unavailable: at least replicas - maxUnavailable = 5 - 1 = 4 available/);
  ok(await cluster.ksim(['step', 'resume', 'all']));
  await settle();
  const usage = await cluster.ksim(['step', 'next', 'nosuch']);
  assert.equal(usage.code, 1);
  assert.match(usage.stderr, /no component runs a controller "nosuch"/);
});

test('the web UI shows the same story', { timeout: 60_000 }, async (t) => {
  if (!existsSync(CHROMIUM)) {
    assert.ok(!process.env.CI, `${CHROMIUM} is not installed: .ci/run should have installed the chromium package`);
    t.skip(`${CHROMIUM} is not installed (apt-get install chromium)`);
    return;
  }
  assert.ok(revisions, 'the first test ran');
  const ui = cluster.endpointOf('ui');
  let browser: Browser | undefined;
  let page: Page | undefined;
  let passed = false;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    await page.goto(`${ui}/`);
    // The timeline: the user's writes, the controllers', the scheduler's and the kubelets', each in its lane.
    const created = revisions[0].revision;
    await page.waitForSelector(`.plot .mark[data-revision="${created}"]`, { timeout: 15_000 });
    const lanes = await page.$$eval('.plot .mark', (marks) => [...new Set(marks.map((m) => m.getAttribute('data-lane')))]);
    for (const lane of ['user kubernetes-admin', 'controller deployment', 'controller replicaset', 'scheduler'])
      assert.ok(lanes.includes(lane), `lane ${lane} in ${JSON.stringify(lanes)}`);
    assert.ok(
      lanes.some((l) => /^kubelet node-\d$/.test(l ?? '')),
      `a kubelet lane in ${JSON.stringify(lanes)}`,
    );
    // The graph: the Deployment owns its ReplicaSets, which own the Pods, which run on nodes.
    await page.waitForSelector('.edges li[data-kind="owns"][data-source="Deployment/default/web"]', { state: 'attached', timeout: 10_000 });
    await page.waitForSelector('.edges li[data-kind="runs-on"]', { state: 'attached', timeout: 10_000 });
    // The Deployment's history: every revision, a diff and the blame.
    // The feed may still be drawing when the mark is clicked, moving it under the pointer: click
    // again until the mark is the selected one (a user would do the same).
    for (let attempt = 1; ; attempt++) {
      await page.click(`.plot .mark[data-revision="${created}"]`, { force: true });
      const selected = await page
        .waitForSelector(`.plot .mark.selected[data-revision="${created}"]`, { state: 'attached', timeout: 3_000 })
        .then(() => true)
        .catch(() => false);
      if (selected) break;
      assert.ok(attempt < 3, `revision ${created}'s mark was clicked ${attempt} times and is not selected`);
    }
    await page.waitForSelector(`.object table.revisions tr[data-revision="${created}"]`, { timeout: 10_000 });
    const rows = await page.locator('.object table.revisions tbody tr').count();
    assert.ok(rows >= revisions.length, `${rows} revisions shown, ${revisions.length} written`);
    await page.waitForSelector('.blame-table', { timeout: 10_000 });
    assert.match((await page.textContent('.blame-table')) ?? '', /kubectl/);
    passed = true;
  } finally {
    if (!passed && page) {
      const shot = join(cluster.dataDir, 'ui-failure.png');
      await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
      // CI keeps only the output: say what the panel showed (an error from the UI server, another object).
      const pane = await page.textContent('.object-pane').catch(() => '(no object pane)');
      const marks = await page.$$eval('.plot .mark.selected', (m) => m.map((e) => e.outerHTML)).catch(() => []);
      process.stderr.write(
        `history-story test: screenshot at ${shot}\nobject pane: ${pane?.slice(0, 2000)}\nselected marks: ${marks.join(' ')}\n`,
      );
    }
    await browser?.close();
  }
});
