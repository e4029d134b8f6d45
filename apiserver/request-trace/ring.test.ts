// The request-trace ring: bounded, evicts the oldest, filters, and what
// recording one request costs (printed, never asserted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestTraces, isRequestTracePath, type TraceStart } from './ring.ts';

const start = (id: string, extra: Partial<TraceStart> = {}): TraceStart => ({
  auditID: id,
  verb: 'create',
  path: '/api/v1/namespaces/default/configmaps',
  resourceRequest: true,
  apiGroup: '',
  resource: 'configmaps',
  namespace: 'default',
  ...extra,
});

test('keeps at most its capacity, newest first, and forgets the evicted', () => {
  const traces = new RequestTraces(3);
  for (let i = 1; i <= 5; i++) traces.begin(start(`id-${i}`));
  assert.equal(traces.size, 3);
  assert.deepEqual(
    traces.list().map((t) => t.auditID),
    ['id-5', 'id-4', 'id-3'],
  );
  assert.equal(traces.get('id-2'), undefined);
  assert.equal(traces.get('id-3')?.trace.auditID, 'id-3');
  assert.deepEqual(
    traces.list({ limit: 2 }).map((t) => t.auditID),
    ['id-5', 'id-4'],
  );
});

test('an audit ID sent twice: evicting the older trace keeps the newer one findable', () => {
  const traces = new RequestTraces(2);
  traces.begin(start('same'));
  const newer = traces.begin(start('same'));
  traces.begin(start('other'));
  assert.equal(traces.get('same'), newer);
});

test('filters by user and by RESOURCE[.GROUP]', () => {
  const traces = new RequestTraces(10);
  traces.begin(start('a'))!.trace.user = 'alice';
  traces.begin(start('b', { apiGroup: 'apps', resource: 'deployments' }))!.trace.user = 'bob';
  traces.begin(start('c', { resourceRequest: false, path: '/version' }));
  assert.deepEqual(
    traces.list({ user: 'alice' }).map((t) => t.auditID),
    ['a'],
  );
  assert.deepEqual(
    traces.list({ resource: 'deployments.apps' }).map((t) => t.auditID),
    ['b'],
  );
  assert.deepEqual(
    traces.list({ resource: 'configmaps' }).map((t) => t.auditID),
    ['a'],
  );
  assert.deepEqual(traces.list({ resource: 'deployments' }), []);
  assert.equal(traces.list()[0].resource, undefined);
});

test('finish adds the response step once', () => {
  const traces = new RequestTraces(2);
  const t = traces.begin(start('a'))!;
  t.finish(422);
  t.finish(200);
  assert.equal(t.trace.code, 422);
  assert.deepEqual(
    t.trace.steps.map((s) => [s.stage, s.outcome]),
    [['response', '422']],
  );
});

test('the trace API itself is not traced', () => {
  const traces = new RequestTraces(2);
  assert.equal(traces.begin(start('x', { path: '/apis/history.ksim.io/v1alpha1/requests' })), undefined);
  assert.equal(isRequestTracePath('/apis/history.ksim.io/v1alpha1/requests/abc'), true);
  assert.equal(isRequestTracePath('/apis/history.ksim.io/v1alpha1/changes'), false);
  assert.equal(isRequestTracePath('/apis/history.ksim.io/v1alpha1/requestsx'), false);
});

test('refuses a capacity that is not a positive integer', () => {
  assert.throws(() => new RequestTraces(0), /capacity/);
});

test('cost of recording one request (printed, not asserted)', (t) => {
  const traces = new RequestTraces(2000);
  const run = (n: number) => {
    for (let i = 0; i < n; i++) {
      const tr = traces.begin(start(`id-${i}`))!;
      tr.step({ stage: 'authentication', outcome: 'ok', detail: 'x509: alice', ms: 0.01 });
      tr.trace.user = 'alice';
      tr.step({ stage: 'authorization', outcome: 'allow', detail: 'RBAC: allowed', ms: 0.01 });
      for (let p = 0; p < 6; p++) {
        traces.get(`id-${i}`);
        tr.step({ stage: 'admission', phase: 'mutating', plugin: 'P', outcome: 'allowed', changed: false, ms: 0.001 });
      }
      tr.step({ stage: 'storage', outcome: 'ok', revision: String(i), ms: 0.5 });
      tr.finish(201);
    }
  };
  run(20_000);
  const n = 100_000;
  const t0 = performance.now();
  run(n);
  const us = ((performance.now() - t0) * 1000) / n;
  t.diagnostic(`recording one request (10 steps, 6 admission lookups): ${us.toFixed(2)} µs`);
  assert.equal(traces.size, 2000);
});
