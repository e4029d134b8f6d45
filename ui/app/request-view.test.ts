// The request view's paths and labels (the components render these).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestTrace } from '../../shared/api/request-trace-types.ts';
import { requestLine, requestPath, requestsPath, stepFailed, stepTitle } from './request-view.tsx';

test('paths go through the UI server history proxy', () => {
  assert.equal(requestsPath(), '/api/history/requests');
  assert.equal(
    requestsPath({ limit: 5, user: 'alice', resource: 'deployments.apps' }),
    '/api/history/requests?limit=5&user=alice&resource=deployments.apps',
  );
  assert.equal(requestPath('a b'), '/api/history/requests/a%20b');
});

test('steps: titles and which ones stopped the request', () => {
  assert.equal(
    stepTitle({ stage: 'admission', phase: 'validating', plugin: 'ResourceQuota', outcome: 'denied' }),
    'admission (validating) ResourceQuota',
  );
  assert.equal(stepTitle({ stage: 'storage', outcome: 'ok' }), 'storage');
  assert.equal(stepFailed({ stage: 'authorization', outcome: 'deny' }), true);
  assert.equal(stepFailed({ stage: 'authorization', outcome: 'allow' }), false);
  assert.equal(stepFailed({ stage: 'response', outcome: '201' }), false);
  assert.equal(stepFailed({ stage: 'response', outcome: '403' }), true);
});

test('a request line names verb, object, user and answer', () => {
  const t: RequestTrace = {
    kind: 'RequestTrace',
    apiVersion: 'history.ksim.io/v1alpha1',
    auditID: 'x',
    time: '2026-12-03T08:00:00.000Z',
    verb: 'create',
    path: '/apis/apps/v1/namespaces/default/deployments',
    resource: 'deployments',
    apiGroup: 'apps',
    namespace: 'default',
    user: 'alice',
    steps: [],
    code: 201,
  };
  assert.equal(requestLine(t), 'create deployments.apps default/ by alice → 201');
  assert.equal(
    requestLine({ ...t, resource: undefined, path: '/version', code: undefined, user: undefined }),
    'create /version by (unauthenticated) → …',
  );
});
