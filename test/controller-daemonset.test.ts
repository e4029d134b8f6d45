// DaemonSets end to end on `ksim up --nodes 3`, driven by the real kubectl:
// one Pod on every node (bound by the scheduler through the node-name
// affinity), none on a tainted node until the DaemonSet tolerates the taint,
// a rolling update to a new image, and `kubectl rollout status/history/undo`
// over the ControllerRevisions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster, ok, eventually } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 3, speed: 10 });
});
after(() => c?.stop());

const words = (s: string) => s.split(/\s+/).filter(Boolean);

const daemonSet = (name: string, image: string, tolerations = '') => `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ${name}, namespace: default}
spec:
  selector: {matchLabels: {app: ${name}}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      ${tolerations}
      containers:
      - name: web
        image: ${image}
`;

/** Node names of the DaemonSet's Pods that are not being deleted. */
async function podNodes(app: string): Promise<string[]> {
  const out = await c.jsonpath(
    ['get', 'pods', '-l', `app=${app}`],
    '{range .items[?(@.metadata.deletionTimestamp)]}x{end}|{range .items[*]}{.spec.nodeName}{" "}{end}',
  );
  return words(out.split('|')[1] ?? '').sort();
}

describe('daemonsets', () => {
  let nodes: string[];

  test('a Pod on every untainted node, bound by the scheduler; rollout status', async () => {
    // The worker nodes: the control-plane node's NoSchedule taint keeps a DaemonSet that does not tolerate it off it.
    nodes = words(await c.jsonpath(['get', 'nodes', '-l', '!node-role.kubernetes.io/control-plane'], '{.items[*].metadata.name}')).sort();
    assert.equal(nodes.length, 3);
    ok(await c.k(['apply', '-f', '-'], daemonSet('agent', 'nginx:1.27')));
    // Every node counts once the controller has seen them all (a node it has not seen yet is not desired).
    await eventually('3 desired', async () => (await c.jsonpath(['get', 'ds', 'agent'], '{.status.desiredNumberScheduled}')) === '3');
    assert.match(ok(await c.k(['rollout', 'status', 'ds/agent', '--timeout=60s'])), /daemon set "agent" successfully rolled out/);
    assert.deepEqual(await podNodes('agent'), nodes);
    assert.match(ok(await c.k(['get', 'ds', 'agent'])), /^agent\s+3\s+3\s+3\s+3\s+3\s+<none>\s+/m);
    // Created unbound, with kube's node-name affinity and tolerations; the scheduler bound them.
    const affinity = await c.jsonpath(
      ['get', 'pods', '-l', 'app=agent'],
      '{.items[0].spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key}',
    );
    assert.equal(affinity, 'metadata.name');
    const tolerations = await c.jsonpath(['get', 'pods', '-l', 'app=agent'], '{.items[0].spec.tolerations[*].key}');
    for (const key of ['not-ready', 'unreachable', 'disk-pressure', 'memory-pressure', 'pid-pressure', 'unschedulable'])
      assert.ok(tolerations.includes(`node.kubernetes.io/${key}`), `${key} in ${tolerations}`);
    const labels = await c.jsonpath(['get', 'pods', '-l', 'app=agent'], '{.items[0].metadata.labels}');
    assert.match(labels, /"controller-revision-hash":"\w+"/);
    assert.match(labels, /"pod-template-generation":"1"/);
    const events = ok(await c.k(['get', 'events', '--field-selector', 'involvedObject.name=agent,reason=SuccessfulCreate']));
    assert.match(events, /daemonset\/agent\s+Created pod: agent-\w+/);
  });

  test('none on a tainted node unless tolerated', async () => {
    const tainted = nodes[2];
    ok(await c.k(['taint', 'nodes', tainted, 'dedicated=infra:NoSchedule']));
    ok(await c.k(['apply', '-f', '-'], daemonSet('picky', 'nginx:1.27')));
    await eventually('picky on 2 nodes', async () => (await podNodes('picky')).length === 2);
    ok(await c.k(['rollout', 'status', 'ds/picky', '--timeout=60s']));
    assert.deepEqual(await podNodes('picky'), nodes.slice(0, 2));
    assert.equal(await c.jsonpath(['get', 'ds', 'picky'], '{.status.desiredNumberScheduled}'), '2');
    // The NoSchedule taint does not evict the agent already there.
    assert.deepEqual(await podNodes('agent'), nodes);
    const toleration = 'tolerations: [{key: dedicated, operator: Equal, value: infra, effect: NoSchedule}]';
    ok(await c.k(['apply', '-f', '-'], daemonSet('picky', 'nginx:1.27', toleration)));
    await eventually('picky on 3 nodes', async () => (await podNodes('picky')).length === 3);
    ok(await c.k(['rollout', 'status', 'ds/picky', '--timeout=60s']));
    assert.deepEqual(await podNodes('picky'), nodes);
    // A NoExecute taint it does not tolerate takes the Pod off the node.
    ok(await c.k(['taint', 'nodes', tainted, 'evict=now:NoExecute']));
    await eventually('picky off the NoExecute node', async () => !(await podNodes('picky')).includes(tainted));
    assert.equal(await c.jsonpath(['get', 'ds', 'picky'], '{.status.desiredNumberScheduled}'), '2');
    ok(await c.k(['taint', 'nodes', tainted, 'evict-', 'dedicated-']));
    ok(await c.k(['delete', 'ds', 'picky', '--wait=true', '--timeout=30s']));
  });

  test('OnDelete: a new template reaches a node only when its Pod is deleted', async () => {
    const manifest = (image: string) =>
      daemonSet('manual', image).replace('{type: RollingUpdate, rollingUpdate: {maxUnavailable: 1}}', '{type: OnDelete}');
    ok(await c.k(['apply', '-f', '-'], manifest('nginx:1.27')));
    await eventually(
      '3 manual Pods available',
      async () => (await c.jsonpath(['get', 'ds', 'manual'], '{.status.numberAvailable}')) === '3',
    );
    ok(await c.k(['apply', '-f', '-'], manifest('nginx:1.28')));
    await eventually('generation observed', async () => {
      const [gen, seen] = words(await c.jsonpath(['get', 'ds', 'manual'], '{.metadata.generation} {.status.observedGeneration}'));
      return gen === '2' && seen === '2';
    });
    assert.equal(await c.jsonpath(['get', 'ds', 'manual'], '{.status.updatedNumberScheduled}'), '');
    const victim = (await c.jsonpath(['get', 'pods', '-l', 'app=manual'], '{.items[0].metadata.name}')).trim();
    ok(await c.k(['delete', 'pod', victim, '--wait=true']));
    await eventually(
      'one updated Pod',
      async () => (await c.jsonpath(['get', 'ds', 'manual'], '{.status.updatedNumberScheduled}')) === '1',
    );
    const images = words(await c.jsonpath(['get', 'pods', '-l', 'app=manual'], '{.items[*].spec.containers[0].image}')).sort();
    assert.deepEqual(images, ['nginx:1.27', 'nginx:1.27', 'nginx:1.28']);
    const status = await c.k(['rollout', 'status', 'ds/manual']);
    assert.equal(status.code, 1);
    assert.match(status.stderr, /rollout status is only available for RollingUpdate strategy type/);
    ok(await c.k(['delete', 'ds', 'manual', '--wait=true', '--timeout=30s']));
  });

  test('rolling update to a new image; rollout history and undo', async () => {
    ok(await c.k(['annotate', 'ds/agent', 'kubernetes.io/change-cause=first']));
    ok(await c.k(['set', 'image', 'ds/agent', 'web=nginx:1.28']));
    ok(await c.k(['annotate', 'ds/agent', '--overwrite', 'kubernetes.io/change-cause=to 1.28']));
    assert.match(ok(await c.k(['rollout', 'status', 'ds/agent', '--timeout=60s'])), /successfully rolled out/);
    await eventually('3 new Pods', async () => {
      const images = words(await c.jsonpath(['get', 'pods', '-l', 'app=agent'], '{.items[*].spec.containers[0].image}'));
      return images.length === 3 && images.every((i) => i === 'nginx:1.28');
    });
    assert.equal(await c.jsonpath(['get', 'ds', 'agent'], '{.status.updatedNumberScheduled}'), '3');
    assert.deepEqual(await podNodes('agent'), nodes);
    const revisions = ok(await c.k(['get', 'controllerrevisions', '-l', 'app=agent', '--no-headers']));
    assert.equal(revisions.trim().split('\n').length, 2, revisions);
    assert.match(revisions, /^agent-\w+\s+daemonset\.apps\/agent\s+2\s/m);

    const history = ok(await c.k(['rollout', 'history', 'ds/agent']));
    assert.match(history, /^1\s/m);
    assert.match(history, /^2\s/m);
    assert.match(ok(await c.k(['rollout', 'history', 'ds/agent', '--revision=1'])), /Image:\s+nginx:1\.27/);

    assert.match(ok(await c.k(['rollout', 'undo', 'ds/agent'])), /daemonset\.apps\/agent rolled back/);
    ok(await c.k(['rollout', 'status', 'ds/agent', '--timeout=60s']));
    assert.equal(await c.jsonpath(['get', 'ds', 'agent'], '{.spec.template.spec.containers[0].image}'), 'nginx:1.27');
    await eventually('3 Pods back on 1.27', async () => {
      const images = words(await c.jsonpath(['get', 'pods', '-l', 'app=agent'], '{.items[*].spec.containers[0].image}'));
      return images.length === 3 && images.every((i) => i === 'nginx:1.27');
    });
    // kubectl compares the revision's bytes with the DaemonSet's template, as kube's controller writes them.
    assert.match(
      ok(await c.k(['rollout', 'undo', 'ds/agent', '--to-revision=3'])),
      /skipped rollback \(current template already matches revision 3\)/,
    );
    // The undone revision comes back as revision 3: the same ControllerRevision, renumbered.
    const after = ok(await c.k(['rollout', 'history', 'ds/agent']));
    assert.doesNotMatch(after, /^1\s/m);
    assert.match(after, /^2\s/m);
    assert.match(after, /^3\s/m);
    const deleted = ok(await c.k(['get', 'events', '--field-selector', 'involvedObject.name=agent,reason=SuccessfulDelete']));
    assert.match(deleted, /Deleted pod: agent-\w+/);
  });
  test('maxSurge: the new Pod starts next to the old one, which goes once the new one is available', async () => {
    const manifest = (image: string) => daemonSet('surge', image).replace('{maxUnavailable: 1}', '{maxUnavailable: 0, maxSurge: 1}');
    ok(await c.k(['apply', '-f', '-'], manifest('nginx:1.27')));
    await eventually('3 desired', async () => (await c.jsonpath(['get', 'ds', 'surge'], '{.status.desiredNumberScheduled}')) === '3');
    ok(await c.k(['rollout', 'status', 'ds/surge', '--timeout=60s']));
    ok(await c.k(['apply', '-f', '-'], manifest('nginx:1.28')));
    let most = 0;
    await eventually('3 Pods on nginx:1.28', async () => {
      const list = JSON.parse(ok(await c.k(['get', 'pods', '-l', 'app=surge', '-o', 'json']))) as {
        items: { metadata: { deletionTimestamp?: string }; spec: { containers: { image: string }[] } }[];
      };
      const live = list.items.filter((p) => !p.metadata.deletionTimestamp);
      most = Math.max(most, live.length);
      return live.length === 3 && live.every((p) => p.spec.containers[0].image === 'nginx:1.28');
    });
    ok(await c.k(['rollout', 'status', 'ds/surge', '--timeout=60s']));
    assert.ok(most <= 4, `at most one surge Pod at a time, saw ${most} live Pods`);
    assert.deepEqual(await podNodes('surge'), nodes);
  });
});
