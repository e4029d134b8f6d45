// Runs a benchmark body against a real apiserver process on a fresh temp
// dir, and always stops it and removes the dir afterwards, even on failure.
import { startApiserver, tempDir, removeTempDir, type Apiserver } from '../test/helpers/index.ts';
import type { LoadClient } from './load.ts';

/** Starts an apiserver (with `env` besides the bench's own) on a fresh data dir, runs `fn`, then stops it and removes the dir. */
export async function withApiserver<T>(
  extraArgs: string[],
  fn: (server: Apiserver) => Promise<T>,
  env?: Record<string, string>,
): Promise<T> {
  const dataDir = await tempDir('bench');
  let server: Apiserver | undefined;
  try {
    server = await startApiserver({ dataDir, extraArgs, readyTimeoutMs: 60_000, env });
    return await fn(server);
  } finally {
    await server?.stop().catch(() => {});
    await removeTempDir(dataDir);
  }
}

/** The first resourceVersion in a JSON text: an object's own, or a list's. */
export function firstResourceVersion(json: string): number {
  const m = /"resourceVersion":"(\d+)"/.exec(json);
  if (!m) throw new Error(`no resourceVersion in ${json.slice(0, 200)}`);
  return Number(m[1]);
}

/** The apiserver's current revision, from a one-item list of `path`. */
export async function currentRevision(client: LoadClient, path = '/api/v1/pods'): Promise<number> {
  const r = await client.expectOk('GET', `${path}?limit=1`);
  return Number(JSON.parse(r.body).metadata.resourceVersion);
}

/**
 * Serialises `make(slot0, slot1, ...)` once and returns a function that
 * fills the slots by concatenation, so that a request body costs no
 * JSON.stringify. A slot may appear several times (a Node's name does).
 */
export function bodyTemplate(slots: number, make: (...slot: string[]) => unknown): (...values: string[]) => string {
  const markers = Array.from({ length: slots }, (_, i) => `__BENCH_SLOT_${i}__`);
  const parts = JSON.stringify(make(...markers)).split(/__BENCH_SLOT_(\d+)__/);
  return (...values) => {
    let out = parts[0];
    for (let i = 1; i < parts.length; i += 2) out += values[Number(parts[i])] + parts[i + 1];
    return out;
  };
}
