// core/v1 and events.k8s.io/v1 Events are one set of objects, as in kube:
// an Event written through either API is read, listed, selected, watched,
// updated and deleted through the other, converted field by field.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, startApiserver, until, type Apiserver, type ApiClient } from './helpers/index.ts';

let server: Apiserver;
let c: ApiClient;

before(async () => {
  server = await startApiserver();
  c = api(server);
  await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'ev' } });
});
after(() => server?.stop());

const CORE = '/api/v1/namespaces/ev/events';
const V1 = '/apis/events.k8s.io/v1/namespaces/ev/events';

/** A new-style Event, as client-go's events library (the scheduler's recorder) writes it. */
const scheduled = (name: string, pod: string) => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name, namespace: 'ev' },
  eventTime: '2026-11-30T10:00:00.000000Z',
  reportingController: 'default-scheduler',
  reportingInstance: 'default-scheduler-node-1',
  action: 'Binding',
  reason: 'Scheduled',
  regarding: { kind: 'Pod', namespace: 'ev', name: pod, apiVersion: 'v1' },
  note: `Successfully assigned ev/${pod} to node-1`,
  type: 'Normal',
});

/** An old-style Event, as a kubelet's EventRecorder writes it. */
const pulled = (name: string, pod: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, namespace: 'ev' },
  involvedObject: { kind: 'Pod', namespace: 'ev', name: pod, apiVersion: 'v1' },
  reason: 'Pulled',
  message: 'Container image "nginx" already present on machine',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2026-11-30T10:00:01Z',
  lastTimestamp: '2026-11-30T10:00:01Z',
  count: 1,
  type: 'Normal',
});

describe('one Event storage behind two APIs', () => {
  test('an events.k8s.io Event is a core Event with the same name, uid and resourceVersion', async () => {
    const created = await c.request('POST', V1, scheduled('sched-a', 'web-a'));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.apiVersion, 'events.k8s.io/v1');
    assert.equal(created.body.note, 'Successfully assigned ev/web-a to node-1');
    const core = await c.request('GET', `${CORE}/sched-a`);
    assert.equal(core.status, 200);
    assert.equal(core.body.apiVersion, 'v1');
    assert.equal(core.body.metadata.uid, created.body.metadata.uid);
    assert.equal(core.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
    assert.deepEqual(core.body.involvedObject, { kind: 'Pod', namespace: 'ev', name: 'web-a', apiVersion: 'v1' });
    assert.equal(core.body.message, 'Successfully assigned ev/web-a to node-1');
    assert.equal(core.body.reportingComponent, 'default-scheduler');
    assert.equal(core.body.eventTime, '2026-11-30T10:00:00.000000Z');
    assert.equal(core.body.firstTimestamp, null);
    assert.equal(core.body.note, undefined);
  });

  test('a core Event reads through events.k8s.io with its deprecated* fields', async () => {
    const created = await c.request('POST', CORE, pulled('pulled-a', 'web-a'));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const v1 = await c.request('GET', `${V1}/pulled-a`);
    assert.equal(v1.status, 200);
    assert.equal(v1.body.apiVersion, 'events.k8s.io/v1');
    assert.deepEqual(v1.body.regarding, { kind: 'Pod', namespace: 'ev', name: 'web-a', apiVersion: 'v1' });
    assert.equal(v1.body.note, 'Container image "nginx" already present on machine');
    assert.deepEqual(v1.body.deprecatedSource, { component: 'kubelet', host: 'node-1' });
    assert.equal(v1.body.deprecatedFirstTimestamp, '2026-11-30T10:00:01Z');
    assert.equal(v1.body.deprecatedCount, 1);
    assert.equal(v1.body.involvedObject, undefined);
  });

  test('both lists hold both Events; each API selects with its own field names', async () => {
    const names = (res: any) => res.body.items.map((e: any) => e.metadata.name).sort();
    assert.deepEqual(names(await c.request('GET', CORE)), ['pulled-a', 'sched-a']);
    const v1List = await c.request('GET', V1);
    assert.deepEqual(names(v1List), ['pulled-a', 'sched-a']);
    assert.equal(v1List.body.kind, 'EventList');
    assert.ok(v1List.body.items.every((e: any) => e.regarding && e.involvedObject === undefined));
    assert.deepEqual(names(await c.request('GET', `${V1}?fieldSelector=reason%3DScheduled`)), ['sched-a']);
    assert.deepEqual(names(await c.request('GET', `${V1}?fieldSelector=reportingController%3Ddefault-scheduler`)), ['sched-a']);
    assert.deepEqual(names(await c.request('GET', `${CORE}?fieldSelector=involvedObject.name%3Dweb-a,reason%3DPulled`)), ['pulled-a']);
    const byRegarding = await c.request('GET', `/apis/events.k8s.io/v1/events?fieldSelector=regarding.name%3Dweb-a`);
    assert.deepEqual(names(byRegarding), ['pulled-a', 'sched-a']);
  });

  test('a watch on either API sees writes through the other, in its own shape', async () => {
    const from = (await c.request('GET', CORE)).body.metadata.resourceVersion;
    const v1Watch = c.watch(`${V1}?watch=true&resourceVersion=${from}`);
    const coreWatch = c.watch(`${CORE}?watch=true&resourceVersion=${from}`);
    await c.request('POST', CORE, pulled('pulled-b', 'web-b'));
    await c.request('POST', V1, scheduled('sched-b', 'web-b'));
    const v1Events = [(await v1Watch.next())!, (await v1Watch.next())!];
    assert.deepEqual(
      v1Events.map((e) => `${e.type}:${e.object.metadata.name}:${e.object.apiVersion}:${e.object.regarding?.name}`),
      ['ADDED:pulled-b:events.k8s.io/v1:web-b', 'ADDED:sched-b:events.k8s.io/v1:web-b'],
    );
    const coreEvents = [(await coreWatch.next())!, (await coreWatch.next())!];
    assert.deepEqual(
      coreEvents.map((e) => `${e.type}:${e.object.metadata.name}:${e.object.apiVersion}:${e.object.involvedObject?.name}`),
      ['ADDED:pulled-b:v1:web-b', 'ADDED:sched-b:v1:web-b'],
    );
    v1Watch.close();
    coreWatch.close();
  });

  test('an update through events.k8s.io keeps its immutability rules and is seen through core', async () => {
    const cur = (await c.request('GET', `${V1}/sched-a`)).body;
    const series = { ...cur, series: { count: 2, lastObservedTime: '2026-11-30T10:05:00.000000Z' } };
    const updated = await c.request('PUT', `${V1}/sched-a`, series);
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    const core = (await c.request('GET', `${CORE}/sched-a`)).body;
    assert.deepEqual(core.series, { count: 2, lastObservedTime: '2026-11-30T10:05:00.000000Z' });
    assert.equal(core.metadata.resourceVersion, updated.body.metadata.resourceVersion);
    const changed = await c.request('PUT', `${V1}/sched-a`, { ...updated.body, note: 'rewritten' });
    assert.equal(changed.status, 422);
    assert.match(changed.body.message, /note|message/);
    // A stale resourceVersion read through the other API is the same conflict.
    const stale = await c.request('PUT', `${CORE}/sched-a`, {
      ...core,
      metadata: { ...core.metadata, resourceVersion: cur.metadata.resourceVersion },
    });
    assert.equal(stale.status, 409);
  });

  test('a merge patch through events.k8s.io and a delete through core', async () => {
    const patched = await c.request(
      'PATCH',
      `${V1}/pulled-a`,
      { metadata: { labels: { seen: 'yes' } } },
      { 'content-type': 'application/merge-patch+json' },
    );
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.apiVersion, 'events.k8s.io/v1');
    assert.equal((await c.request('GET', `${CORE}/pulled-a`)).body.metadata.labels.seen, 'yes');
    assert.equal((await c.request('DELETE', `${CORE}/pulled-a`)).status, 200);
    assert.equal((await c.request('GET', `${V1}/pulled-a`)).status, 404);
  });

  test('the strict events.k8s.io rules apply to creates through it, not through core', async () => {
    const bad = await c.request('POST', V1, { ...scheduled('no-time', 'web-c'), eventTime: undefined });
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /eventTime: Required value/);
    assert.equal((await c.request('POST', CORE, pulled('legacy-ok', 'web-c'))).status, 201);
  });
});

describe('--event-ttl', () => {
  test('an Event is deleted the TTL after its last write, through either API, and watchers see it go', async () => {
    const short = await startApiserver({ extraArgs: ['--event-ttl', '3'] });
    try {
      const s = api(short);
      await s.request('POST', '/api/v1/namespaces', { metadata: { name: 'ev' } });
      const from = (await s.request('GET', CORE)).body.metadata.resourceVersion;
      const watch = s.watch(`${V1}?watch=true&resourceVersion=${from}`);
      const started = Date.now();
      assert.equal((await s.request('POST', CORE, pulled('old', 'web'))).status, 201);
      assert.equal((await s.request('POST', V1, scheduled('refreshed', 'web'))).status, 201);
      await new Promise((r) => setTimeout(r, 1500 - (Date.now() - started)));
      // A write starts the TTL again.
      const patched = await s.request(
        'PATCH',
        `${V1}/refreshed`,
        { metadata: { labels: { again: 'yes' } } },
        { 'content-type': 'application/merge-patch+json' },
      );
      assert.equal(patched.status, 200);
      const seen: string[] = [];
      while (!seen.includes('DELETED:old')) {
        const ev = (await watch.next(8000))!;
        seen.push(`${ev.type}:${ev.object.metadata.name}`);
      }
      const goneAfter = Date.now() - started;
      assert.ok(goneAfter >= 3000, `deleted after ${goneAfter} ms, before its TTL`);
      assert.equal((await s.request('GET', `${CORE}/old`)).status, 404);
      assert.equal((await s.request('GET', `${CORE}/refreshed`)).status, 200, 'written again 1.5 s later: it has until about 4.5 s');
      while (!seen.includes('DELETED:refreshed')) {
        const ev = (await watch.next(8000))!;
        seen.push(`${ev.type}:${ev.object.metadata.name}`);
      }
      assert.ok(Date.now() - started >= 4500, 'the refreshed Event lived its TTL from its last write');
      assert.deepEqual(seen, ['ADDED:old', 'ADDED:refreshed', 'MODIFIED:refreshed', 'DELETED:old', 'DELETED:refreshed']);
      watch.close();
    } finally {
      await short.stop();
    }
  });
  test('Events stored before a restart get a full TTL after it, and then go', async () => {
    const short = await startApiserver({ extraArgs: ['--event-ttl', '2'] });
    try {
      const s = api(short);
      await s.request('POST', '/api/v1/namespaces', { metadata: { name: 'ev' } });
      assert.equal((await s.request('POST', CORE, pulled('before-restart', 'web'))).status, 201);
      const restarting = Date.now();
      await short.restart();
      assert.equal((await s.request('GET', `${CORE}/before-restart`)).status, 200);
      await until(
        async () => (await s.request('GET', `${CORE}/before-restart`)).status === 404,
        'the Event expires after the restart',
        10_000,
      );
      assert.ok(Date.now() - restarting >= 2000, 'it had its whole TTL again from the restart');
    } finally {
      await short.stop();
    }
  });
});
