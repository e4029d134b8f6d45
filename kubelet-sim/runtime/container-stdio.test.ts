// A container's stdio for attach: output fans out to attached clients and the
// log, stdin comes from clients, stdinOnce ends it when the first stdin
// client leaves, and a tty merges stdout and stderr with \r\n line ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContainerStdio } from './container-stdio.ts';

test('output goes to the log and to each attached client, stdout and stderr apart', () => {
  let log = '';
  const s = new ContainerStdio({}, (t) => (log += t));
  const got: string[] = [];
  s.out('before\n');
  const a = s.attach({ stdout: (t) => got.push(`1:${t}`), stderr: (t) => got.push(`2:${t}`), end: (c) => got.push(`end:${c}`) }, false)!;
  s.out('o\n');
  s.err('e\n');
  a.detach();
  s.out('after\n');
  const b = s.attach({ end: (c) => got.push(`b-end:${c}`) }, false)!;
  s.end(3);
  assert.deepEqual(got, ['1:o\n', '2:e\n', 'b-end:3']);
  assert.equal(log, 'before\no\ne\nafter\n');
  assert.equal(s.attach({ end: () => {} }, false), undefined);
  void b;
});

test('stdinOnce: the process sees end of file when the first stdin client leaves; without it stdin stays open', async () => {
  const once = new ContainerStdio({ stdin: true, stdinOnce: true }, () => {});
  const a = once.attach({ end: () => {} }, true)!;
  a.stdin!.write('x\n');
  assert.equal(await once.stdin!.read(), 'x\n');
  a.closeStdin();
  assert.equal(await once.stdin!.read(), null);
  const open = new ContainerStdio({ stdin: true }, () => {});
  const b = open.attach({ end: () => {} }, true)!;
  b.detach();
  const c = open.attach({ end: () => {} }, true)!;
  c.stdin!.write('still open\n');
  assert.equal(await open.stdin!.read(), 'still open\n');
  // A container without stdin: true gives clients no stdin at all.
  assert.equal(new ContainerStdio({}, () => {}).attach({ end: () => {} }, true)!.stdin, undefined);
});

test('tty: one merged stream with \\r\\n, and the stdin is a terminal', () => {
  let screen = '';
  const s = new ContainerStdio({ stdin: true, tty: true }, () => {});
  s.attach({ stdout: (t) => (screen += t), end: () => {} }, true);
  s.out('a\n');
  s.err('b\n');
  assert.equal(screen, 'a\r\nb\r\n');
  assert.equal(s.stdin!.tty, true);
});
