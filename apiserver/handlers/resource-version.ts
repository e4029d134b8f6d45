// resourceVersion parameters: parsing, and waiting for a revision the store
// has not reached yet (kube waits up to 3 s, then answers 504 "Too large").
import { badRequest, timeout } from '../../shared/api/errors.ts';
import type { Store } from '../storage/store.ts';

const MAX_UINT64 = 2n ** 64n - 1n;

/** Parses a resourceVersion parameter: undefined when absent, else a non-negative integer. */
export function parseResourceVersion(value: string | null, field = 'resourceVersion'): number | undefined {
  if (value === null || value === '') return undefined;
  if (!/^\d+$/.test(value)) throw badRequest(`${field}: Invalid value: "${value}": must be a non-negative integer`);
  // kube parses it with strconv.ParseUint(v, 10, 64): beyond 64 bits is a bad request, not a revision from the future.
  if (value.length > 19 && BigInt(value) > MAX_UINT64) {
    throw badRequest(`${field}: Invalid value: "${value}": strconv.ParseUint: parsing "${value}": value out of range`);
  }
  return Number(value);
}

/** How long a read waits for a resourceVersion from the future. */
export const TOO_LARGE_WAIT_MS = 3000;

/** Waits until `rev` is committed, or throws kube's 504 Too large resource version. */
export async function waitForRevision(store: Store, rev: number): Promise<void> {
  if (rev <= store.revision) return;
  if (await store.waitForRevision(rev, TOO_LARGE_WAIT_MS)) return;
  throw timeout(`Too large resource version: ${rev}, current: ${store.revision}`, [
    { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' },
  ]);
}
