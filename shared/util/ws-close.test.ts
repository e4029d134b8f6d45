import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendableCloseCode } from './ws-close.ts';

test('close codes that cannot be sent map to 1000 or 1011; the rest pass through', () => {
  assert.equal(sendableCloseCode(undefined), 1000);
  assert.equal(sendableCloseCode(1005), 1000);
  for (const bad of [1006, 1015, 1004, 0, 999, 1016, 2999, 5000, 65535]) assert.equal(sendableCloseCode(bad), 1011, String(bad));
  for (const good of [1000, 1001, 1002, 1003, 1007, 1008, 1011, 1014, 3000, 4999]) assert.equal(sendableCloseCode(good), good);
});
