// Container logs: current and previous runs, tail, since, timestamps, follow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContainerLog, formatLine, selectLines } from './log-store.ts';

test('lines, rotation, tail, since and timestamps', () => {
  const log = new ContainerLog();
  log.write('one\ntw', 1000);
  log.write('o\nthree\n', 2000);
  assert.deepEqual(
    log.current.map((l) => l.text),
    ['one\n', 'two\n', 'three\n'],
  );
  assert.deepEqual(
    selectLines(log.current, { tailLines: 1 }, 3000).map((l) => l.text),
    ['three\n'],
  );
  assert.deepEqual(
    selectLines(log.current, { sinceSeconds: 1.5 }, 3000).map((l) => l.text),
    ['two\n', 'three\n'],
  );
  assert.equal(formatLine(log.current[0], true), '1970-01-01T00:00:01Z one\n');
  assert.equal(formatLine({ at: 1250, text: 'x\n' }, true), '1970-01-01T00:00:01.25Z x\n');
  const followed: string[] = [];
  let ended = false;
  log.follow(
    (l) => followed.push(l.text),
    () => (ended = true),
  );
  log.write('four\n', 4000);
  log.rotate(5000);
  assert.deepEqual(followed, ['four\n']);
  assert.ok(ended);
  assert.equal(log.previous?.length, 4);
  assert.equal(log.current.length, 0);
});
