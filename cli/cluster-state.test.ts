// cluster.json on a disk that fills up: the supervisor must outlive a state
// write that fails, and readers keep the last complete state; an insecure
// cluster is recorded as one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountTmpfs } from '../test/helpers/tmpfs.ts';
import { readClusterState, writeClusterState, type ClusterState } from './cluster-state.ts';

const state = (pid: number): ClusterState => ({
  supervisorPid: pid,
  server: 'http://127.0.0.1:1',
  components: [{ name: 'apiserver', pid, state: 'running', endpoint: 'http://127.0.0.1:1', log: '/x'.repeat(2000) }],
});

test('a state write on a full disk fails without throwing and leaves the last state and no temp file', async (t) => {
  const disk = await mountTmpfs(1024 * 1024);
  if ('unavailable' in disk) {
    t.skip(disk.unavailable);
    return;
  }
  try {
    assert.equal(writeClusterState(disk.dir, state(1)), undefined);
    disk.fill();
    const err = writeClusterState(disk.dir, state(2));
    assert.match(String(err), /ENOSPC/);
    assert.equal(readClusterState(disk.dir)?.supervisorPid, 1);
    assert.deepEqual(
      readdirSync(disk.dir).filter((f) => f.includes('.tmp')),
      [],
    );
  } finally {
    disk.unmount();
  }
});

test('an insecure cluster is recorded as such and read back; a guarded one has no flag', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ksim-state-'));
  try {
    assert.equal(writeClusterState(dir, { ...state(1), insecure: true }), undefined);
    assert.equal(readClusterState(dir)?.insecure, true);
    assert.equal(writeClusterState(dir, { ...state(2), server: 'https://127.0.0.1:1' }), undefined);
    assert.equal(readClusterState(dir)?.insecure, undefined);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
