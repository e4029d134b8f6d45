// The audit log file: lines arrive in order after flush, the file rotates by
// size into lumberjack's audit-<UTC time>.log names with old backups pruned
// by count and age, and a disk that fails or a full buffer costs one error
// line and the events, never an exception.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { FakeClock } from '../../shared/clock/clock.ts';
import type { IncomingMessage } from 'node:http';
import { auditorFromFlags } from './flags.ts';
import { AuditLogWriter, backupTimestamp } from './log-writer.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'audit-log-'));

/** A logger that keeps what it is told. */
function memoryLog() {
  const lines: { level: number; msg: string }[] = [];
  const log = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { log, lines };
}

test('lines are appended in order once flushed; write never waits for the disk', async () => {
  const d = dir();
  const w = new AuditLogWriter({ path: join(d, 'audit.log') });
  for (let i = 0; i < 1000; i++) w.write(JSON.stringify({ i }));
  assert.equal(readdirSync(d).length, 0, 'nothing written synchronously');
  await w.flush();
  const got = readFileSync(join(d, 'audit.log'), 'utf8').trimEnd().split('\n');
  assert.equal(got.length, 1000);
  assert.deepEqual(JSON.parse(got[999]), { i: 999 });
  w.write('{"last":true}');
  await w.close();
  assert.match(readFileSync(join(d, 'audit.log'), 'utf8'), /\{"last":true\}\n$/);
});

test('rotation by size: full files renamed with their UTC time, the newest backups kept', async () => {
  const d = dir();
  const clock = new FakeClock(Date.parse('2026-06-01T12:00:00.000Z'));
  const path = join(d, 'audit.log');
  // An existing log is appended to, and counts towards the size.
  writeFileSync(path, 'x'.repeat(60) + '\n');
  const w = new AuditLogWriter({ path, maxSizeBytes: 100, maxBackups: 2, clock });
  const line = 'y'.repeat(49); // 50 bytes with its newline
  for (let n = 0; n < 4; n++) {
    w.write(`${line.slice(1)}${n}`);
    w.write(`${line.slice(1)}${n}`);
    await w.flush();
    await clock.step(1000);
  }
  await w.close();
  const files = readdirSync(d).sort();
  assert.deepEqual(files, ['audit-2026-06-01T12-00-02.000.log', 'audit-2026-06-01T12-00-03.000.log', 'audit.log']);
  for (const f of files) assert.ok(readFileSync(join(d, f), 'utf8').length <= 100, `${f} stays within the size`);
  assert.equal(readFileSync(join(d, 'audit.log'), 'utf8'), `${line.slice(1)}3\n${line.slice(1)}3\n`);
  assert.equal(backupTimestamp(Date.parse('2026-01-02T03:04:05.678Z')), '2026-01-02T03-04-05.678');
});

test('backups older than maxAge days are removed at rotation', async () => {
  const d = dir();
  const clock = new FakeClock(Date.parse('2026-06-10T00:00:00.000Z'));
  writeFileSync(join(d, 'audit-2026-06-01T00-00-00.000.log'), 'old\n');
  writeFileSync(join(d, 'audit-2026-06-09T00-00-00.000.log'), 'recent\n');
  writeFileSync(join(d, 'unrelated.log'), 'keep\n');
  const w = new AuditLogWriter({ path: join(d, 'audit.log'), maxSizeBytes: 10, maxAgeDays: 3, clock });
  w.write('123456789');
  w.write('abcdefghi');
  await w.close();
  assert.deepEqual(readdirSync(d).sort(), [
    'audit-2026-06-09T00-00-00.000.log',
    'audit-2026-06-10T00-00-00.000.log',
    'audit.log',
    'unrelated.log',
  ]);
});

test('a disk that fails: one error, events dropped, the writer goes on when it works again', async () => {
  const d = dir();
  writeFileSync(join(d, 'not-a-dir'), '');
  const { log, lines } = memoryLog();
  const w = new AuditLogWriter({ path: join(d, 'not-a-dir', 'audit.log'), log });
  for (let i = 0; i < 3; i++) {
    w.write('{}');
    await w.flush();
  }
  await w.close();
  assert.equal(lines.filter((l) => l.level === 50).length, 1);
  assert.match(lines[0].msg, /cannot write the audit log/);
});

test('a full buffer drops events with one error', async () => {
  const d = dir();
  const { log, lines } = memoryLog();
  const w = new AuditLogWriter({ path: join(d, 'audit.log'), maxBufferBytes: 25, log });
  for (let i = 0; i < 5; i++) w.write('123456789');
  await w.close();
  assert.equal(readFileSync(join(d, 'audit.log'), 'utf8'), '123456789\n123456789\n');
  assert.equal(lines.filter((l) => l.msg.includes('buffer is full')).length, 1);
});

test('auditorFromFlags: DIR/audit.log by default, the events written on close', async () => {
  const d = dir();
  const flags = { 'audit-log-path': '', 'audit-policy-file': '', 'audit-log-maxsize': 0, 'audit-log-maxbackup': 0, 'audit-log-maxage': 0 };
  const auditor = auditorFromFlags(flags, d);
  const req = { url: '/api/v1/pods', headers: {}, socket: { remoteAddress: '127.0.0.1' } } as unknown as IncomingMessage;
  auditor
    .begin(req, { verb: 'list', user: { username: 'u', groups: [] }, objectRef: { resource: 'pods', apiVersion: 'v1' } })!
    .complete(200);
  await auditor.close();
  const ev = JSON.parse(readFileSync(join(d, 'audit.log'), 'utf8'));
  assert.equal(ev.verb, 'list');
  assert.equal(ev.stage, 'ResponseComplete');
  writeFileSync(join(d, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Loud}]\n');
  assert.throws(
    () => auditorFromFlags({ ...flags, 'audit-policy-file': join(d, 'policy.yaml') }, d),
    /rules\[0\]\.level: Unsupported value: "Loud"/,
  );
});
