// raw-store: what LevelDB itself does on this machine, in-process through
// the `level` package, with no HTTP and no apiserver: awaited single puts of
// a ~1.5 KB Pod JSON, then batches of 100 puts without and with a synced
// write. The apiserver's figures in the same run are compared with these.
import { Level } from 'level';
import { performance } from 'node:perf_hooks';
import { tempDir, removeTempDir } from '../test/helpers/index.ts';
import { podFixture } from './fixtures.ts';
import type { BenchContext, Benchmark } from './report.ts';

/** Key under which the single-put rate is shared with later benchmarks. */
export const RAW_PUT_RATE = 'raw-store.single-put-per-s';

const podJson = (i: number) => JSON.stringify(podFixture(`raw-${String(i).padStart(8, '0')}`, 'default', `node-${i % 5000}`));
const podKey = (i: number) => `o/registry/core/pods/default/raw-${String(i).padStart(8, '0')}`;

/** Awaited single puts for `durationMs`; puts per second. */
async function singlePuts(db: Level<string, string>, durationMs: number, opts: { sync?: boolean } = {}, startAt = 0): Promise<number> {
  const value = podJson(0);
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < durationMs) {
    await db.put(podKey(startAt + n), value, opts);
    n++;
  }
  return (n * 1000) / (performance.now() - t0);
}

/** Awaited batches of `size` puts for `durationMs`; puts per second. */
async function batchPuts(db: Level<string, string>, durationMs: number, size: number, sync: boolean, startAt: number): Promise<number> {
  const value = podJson(0);
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < durationMs) {
    const batch = db.batch();
    for (let j = 0; j < size; j++) batch.put(podKey(startAt + n + j), value);
    await batch.write({ sync });
    n += size;
  }
  return (n * 1000) / (performance.now() - t0);
}

/** Opens a fresh database in a temp dir, runs `fn`, and removes it. */
async function withFreshDb<T>(fn: (db: Level<string, string>) => Promise<T>): Promise<T> {
  const dir = await tempDir('bench-raw');
  const db = new Level<string, string>(dir, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  await db.open();
  try {
    return await fn(db);
  } finally {
    await db.close();
    await removeTempDir(dir);
  }
}

/** A short measurement of the awaited single-put rate, for benchmarks run without raw-store. */
export async function measureRawPutRate(durationMs: number): Promise<number> {
  return withFreshDb((db) => singlePuts(db, durationMs));
}

export const rawStore: Benchmark = {
  name: 'raw-store',
  description: 'in-process LevelDB: awaited single puts, batches of 100 without and with sync',
  async run(ctx: BenchContext) {
    const phaseMs = ctx.size(3000, 300);
    ctx.record('pod JSON size', podJson(0).length, 'bytes');
    await withFreshDb(async (db) => {
      ctx.progress(`awaited single puts for ${phaseMs / 1000} s`);
      const single = await singlePuts(db, phaseMs);
      ctx.shared.set(RAW_PUT_RATE, single);
      ctx.record('awaited single put', single, 'puts/s');
      ctx.progress(`awaited single synced puts for ${phaseMs / 1000} s`);
      const singleSync = await singlePuts(db, phaseMs, { sync: true }, 10_000_000);
      ctx.record('awaited single put, sync', singleSync, 'puts/s');
      ctx.progress(`batches of 100 puts for ${phaseMs / 1000} s`);
      const batch = await batchPuts(db, phaseMs, 100, false, 20_000_000);
      ctx.record('batch of 100 puts', batch, 'puts/s', { note: `${Math.round(batch / 100).toLocaleString('en-US')} batches/s` });
      ctx.progress(`batches of 100 synced puts for ${phaseMs / 1000} s`);
      const batchSync = await batchPuts(db, phaseMs, 100, true, 30_000_000);
      ctx.record('batch of 100 puts, sync', batchSync, 'puts/s', {
        note: `${Math.round(batchSync / 100).toLocaleString('en-US')} batches/s`,
      });
    });
  },
};
