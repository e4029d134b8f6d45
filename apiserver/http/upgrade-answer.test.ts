import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { watchUpgradeAnswer } from './upgrade-answer.ts';

/** A socket stand-in that keeps what was written. */
function socket() {
  const s = new PassThrough();
  const chunks: Buffer[] = [];
  s.on('data', (c: Buffer) => chunks.push(c));
  return { s, text: () => Buffer.concat(chunks).toString('latin1') };
}

test('a 101 written as a string gets the Audit-Id after its status line, and its code is reported', async () => {
  const { s, text } = socket();
  const codes: number[] = [];
  watchUpgradeAnswer(s, 'abc-123', (c) => codes.push(c));
  s.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n');
  s.write('HTTP/1.1 999 not a status line: later writes are left alone\r\n');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(codes, [101]);
  assert.equal(
    text(),
    'HTTP/1.1 101 Switching Protocols\r\nAudit-Id: abc-123\r\nUpgrade: websocket\r\n\r\nHTTP/1.1 999 not a status line: later writes are left alone\r\n',
  );
});

test('a refusal ended with a Buffer gets it too; a first write that is no status line is passed on as it is', async () => {
  const refused = socket();
  const codes: number[] = [];
  watchUpgradeAnswer(refused.s, 'id-1', (c) => codes.push(c));
  refused.s.end(Buffer.from('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n{}'));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(codes, [403]);
  assert.equal(refused.text(), 'HTTP/1.1 403 Forbidden\r\nAudit-Id: id-1\r\nConnection: close\r\n\r\n{}');

  const other = socket();
  watchUpgradeAnswer(other.s, 'id-2', (c) => codes.push(c));
  other.s.write(Buffer.from([0x81, 0x00]));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(codes, [403]);
  assert.deepEqual([...Buffer.from(other.text(), 'latin1')], [0x81, 0x00]);
});
