import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../shared/api/errors.ts';
import { parseResourceVersion } from './resource-version.ts';

test('resourceVersion parameters: absent, a revision, or a 400', () => {
  assert.equal(parseResourceVersion(null), undefined);
  assert.equal(parseResourceVersion(''), undefined);
  assert.equal(parseResourceVersion('0'), 0);
  assert.equal(parseResourceVersion('12345'), 12345);
  // The largest uint64 is a (future) revision: the caller waits for it, then answers 504 as kube does.
  assert.ok(parseResourceVersion('18446744073709551615')! > 0);
  const refused = (v: string) => {
    try {
      parseResourceVersion(v);
    } catch (err) {
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 400);
      return err.message;
    }
    assert.fail(`${v} was accepted`);
  };
  assert.equal(refused('-1'), 'resourceVersion: Invalid value: "-1": must be a non-negative integer');
  assert.equal(
    refused('18446744073709551616'),
    'resourceVersion: Invalid value: "18446744073709551616": strconv.ParseUint: parsing "18446744073709551616": value out of range',
  );
  assert.match(refused('99999999999999999999999999'), /value out of range$/);
});
