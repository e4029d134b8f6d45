import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alreadyExists, conflict, notFound, StatusError } from './errors.ts';

test('names in messages are quoted as Go quotes them (%q)', () => {
  const gr = { group: '', resource: 'configmaps' };
  assert.equal(notFound(gr, '..\\..\\x').message, 'configmaps "..\\\\..\\\\x" not found');
  assert.equal(notFound(gr, 'a"b').message, 'configmaps "a\\"b" not found');
  assert.equal(alreadyExists(gr, 'tab\there').message, 'configmaps "tab\\there" already exists');
  assert.match(conflict(gr, 'nul\u0000').message, /^Operation cannot be fulfilled on configmaps "nul\\x00": /);
  // The details keep the name as it is.
  assert.equal(notFound(gr, '..\\..\\x').details?.name, '..\\..\\x');
});

test("an empty reason is left out of the Status, as kube's JSON omits StatusReasonUnknown", () => {
  const status = new StatusError(500, '', 'etcdserver: mvcc: database space exceeded').toStatus();
  assert.equal('reason' in status, false);
  assert.equal(new StatusError(404, 'NotFound', 'x').toStatus().reason, 'NotFound');
});
