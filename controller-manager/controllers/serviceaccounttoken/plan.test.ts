// The tokens controller's decisions: fill what is missing (token, ca.crt,
// namespace, the uid annotation), leave a complete Secret alone, delete a
// Secret whose ServiceAccount is gone or was replaced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { isTokenOf, tokenSecretAction } from './plan.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const sa: ServiceAccount = { metadata: { name: 'build-robot', namespace: 'lab', uid: 'sa-1' } };

function secret(annotations: Record<string, string>, data?: Record<string, string>, type = 'kubernetes.io/service-account-token'): Secret {
  return { metadata: { name: 'build-robot-secret', namespace: 'lab', uid: 's-1', annotations }, type, ...(data ? { data } : {}) };
}

test('a new token Secret gets the token, ca.crt, namespace and the uid annotation', () => {
  const action = tokenSecretAction(secret({ 'kubernetes.io/service-account.name': 'build-robot' }), sa, 'CA PEM');
  assert.equal(action.op, 'fill');
  if (action.op !== 'fill') return;
  assert.equal(action.needsToken, true);
  assert.deepEqual(action.secret.data, { 'ca.crt': b64('CA PEM'), namespace: b64('lab') });
  assert.deepEqual(action.secret.metadata?.annotations, {
    'kubernetes.io/service-account.name': 'build-robot',
    'kubernetes.io/service-account.uid': 'sa-1',
  });
});

test('what is there is kept: only the missing parts are written, a complete Secret is left alone', () => {
  const full = { token: b64('t'), 'ca.crt': b64('CA PEM'), namespace: b64('lab') };
  const ann = { 'kubernetes.io/service-account.name': 'build-robot', 'kubernetes.io/service-account.uid': 'sa-1' };
  assert.deepEqual(tokenSecretAction(secret(ann, full), sa, 'CA PEM'), { op: 'none' });
  const staleCa = tokenSecretAction(secret(ann, { ...full, 'ca.crt': b64('OLD') }), sa, 'CA PEM');
  assert.ok(staleCa.op === 'fill' && !staleCa.needsToken && staleCa.secret.data?.['ca.crt'] === b64('CA PEM'));
  assert.equal(staleCa.op === 'fill' && staleCa.secret.data?.token, b64('t'));
  // No root CA configured: ca.crt is not asked for.
  const { ['ca.crt']: _ca, ...noCa } = full;
  assert.deepEqual(tokenSecretAction(secret(ann, noCa), sa, undefined), { op: 'none' });
});

test('a Secret whose ServiceAccount is missing, or has another uid, is deleted; others are not this controller’s', () => {
  assert.deepEqual(tokenSecretAction(secret({ 'kubernetes.io/service-account.name': 'build-robot' }), undefined, 'CA'), { op: 'delete' });
  const replaced = secret({ 'kubernetes.io/service-account.name': 'build-robot', 'kubernetes.io/service-account.uid': 'sa-0' });
  assert.deepEqual(tokenSecretAction(replaced, sa, 'CA'), { op: 'delete' });
  assert.deepEqual(tokenSecretAction(secret({}, undefined, 'Opaque'), sa, 'CA'), { op: 'none' });
  const named = secret({ 'kubernetes.io/service-account.name': 'build-robot' });
  const deleting: Secret = { ...named, metadata: { ...named.metadata, deletionTimestamp: '2026-12-02T00:00:00Z' } };
  assert.deepEqual(tokenSecretAction(deleting, undefined, 'CA'), { op: 'none' });
});

test('isTokenOf matches by name, and by uid once the Secret has one', () => {
  const named = secret({ 'kubernetes.io/service-account.name': 'build-robot' });
  assert.equal(isTokenOf(named, { name: 'build-robot', uid: 'sa-1' }), true);
  assert.equal(isTokenOf(named, { name: 'other', uid: 'sa-1' }), false);
  const withUid = secret({ 'kubernetes.io/service-account.name': 'build-robot', 'kubernetes.io/service-account.uid': 'sa-1' });
  assert.equal(isTokenOf(withUid, { name: 'build-robot', uid: 'sa-2' }), false);
  assert.equal(
    isTokenOf(secret({ 'kubernetes.io/service-account.name': 'build-robot' }, undefined, 'Opaque'), { name: 'build-robot', uid: 'sa-1' }),
    false,
  );
});
