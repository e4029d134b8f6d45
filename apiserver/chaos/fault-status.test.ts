// The Status bodies of injected errors, as kube-apiserver sends them, and
// the Retry-After that makes client-go retry (429) or not (500, 409, 504).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { injectedError } from './fault-status.ts';

const target = { verb: 'update', resource: 'deployments', group: 'apps', name: 'web' };

test('each code is answered with kube Status for it', () => {
  assert.deepEqual(injectedError(500, 'f1', target).toStatus(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Internal error occurred: ksim chaos: fault "f1" injected this error',
    reason: 'InternalError',
    details: { causes: [{ message: 'ksim chaos: fault "f1" injected this error' }] },
    code: 500,
  });
  assert.deepEqual(injectedError(429, 'f1', target).toStatus(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Too many requests, please try again later.',
    reason: 'TooManyRequests',
    details: { retryAfterSeconds: 1 },
    code: 429,
  });
  assert.deepEqual(injectedError(409, 'f1', target).toStatus(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message:
      'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
    reason: 'Conflict',
    details: { name: 'web', group: 'apps', kind: 'deployments' },
    code: 409,
  });
  assert.deepEqual(injectedError(504, 'f1', target).toStatus(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
    reason: 'Timeout',
    details: {},
    code: 504,
  });
});

test('only the 429 says when to retry (the Retry-After header client-go retries on)', () => {
  assert.equal(injectedError(429, 'f', target).details?.retryAfterSeconds, 1);
  for (const code of [500, 409, 504] as const) assert.equal(injectedError(code, 'f', target).details?.retryAfterSeconds, undefined);
});
