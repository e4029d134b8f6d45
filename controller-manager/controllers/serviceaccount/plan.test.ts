import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Namespace } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import { isNamespaceTerminating, serviceAccountsToCreate } from './plan.ts';

test('serviceAccountsToCreate: default in every active namespace that lacks it', () => {
  const ns = (phase: string, deleting = false) => ({
    metadata: { name: 'team', ...(deleting ? { deletionTimestamp: 't' } : {}) },
    status: { phase },
  });
  const cases: [string, Namespace | undefined, string[], string[]][] = [
    ['active, no ServiceAccounts', ns('Active'), [], ['default']],
    ['active, default there', ns('Active'), ['default', 'other'], []],
    ['active, only others there', ns('Active'), ['builder'], ['default']],
    ['terminating', ns('Terminating', true), [], []],
    ['gone', undefined, [], []],
  ];
  for (const [why, namespace, existing, want] of cases) {
    const created = serviceAccountsToCreate(namespace, (n) => existing.includes(n));
    assert.deepEqual(
      created.map((sa) => sa.metadata?.name),
      want,
      why,
    );
    for (const sa of created) assert.equal(sa.metadata?.namespace, 'team', why);
  }
});

test('isNamespaceTerminating reads the Status cause', () => {
  const terminating = new StatusError(403, 'Forbidden', 'unable to create new content in namespace team because it is being terminated', {
    causes: [{ reason: 'NamespaceTerminating', message: 'namespace team is being terminated', field: 'metadata.namespace' }],
  });
  assert.equal(isNamespaceTerminating(terminating), true);
  assert.equal(isNamespaceTerminating(new StatusError(403, 'Forbidden', 'nope')), false);
  assert.equal(isNamespaceTerminating(new Error('boom')), false);
});
