// What a client hears when the disk under the store refuses a write, in
// kube-apiserver's words for the same failure of etcd:
//  - out of space: etcd's "mvcc: database space exceeded" passes through the
//    registry untranslated, so kube answers 500 with no reason and etcd's text;
//  - any other failure (read-only disk, I/O error, database not open): the
//    registry's answer for an unreachable storage, errors.NewServerTimeout
//    (500 ServerTimeout, "The <verb> operation against <resource> could not be
//    completed at this time, please try again.", retry after 2 s).
import { StatusError } from '../../shared/api/errors.ts';

/** How storage is failing: out of space, or unusable for another reason. */
export type StorageFailureKind = 'no-space' | 'unavailable';

/** etcd's error text for a full database, which kube passes through. */
export const DATABASE_SPACE_EXCEEDED = 'etcdserver: mvcc: database space exceeded';

/** The error codes and messages an out-of-space failure shows somewhere in its cause chain. */
const NO_SPACE = /ENOSPC|No space left on device|EDQUOT|Disk quota exceeded/i;

/** What a link of a cause chain is read for: Node's and level's errors carry a code besides their message. */
export interface ErrorLike {
  code?: string | number;
  message?: string;
  cause?: unknown;
}

/** `err` and its causes, outermost first, at most ten deep (a cause chain may loop); each may be any thrown value. */
export function* causeChain(err: unknown): Generator<{ value: unknown; error: ErrorLike }> {
  let e = err;
  for (let depth = 0; e && depth < 10; depth++) {
    const error = e as ErrorLike;
    yield { value: e, error };
    e = error.cause;
  }
}

/** Classifies a backend failure by walking its cause chain (level wraps the OS error in IO errors). */
export function classifyStorageFailure(err: unknown): StorageFailureKind {
  for (const { error: e } of causeChain(err)) {
    if (NO_SPACE.test(String(e.code ?? '')) || NO_SPACE.test(String(e.message ?? ''))) return 'no-space';
  }
  return 'unavailable';
}

/** One line naming a storage failure for logs and health checks, e.g. "LEVEL_IO_ERROR: IO error: ...: No space left on device". */
export function describeStorageFailure(err: unknown): string {
  const parts: string[] = [];
  for (const { error: e } of causeChain(err)) {
    const message = String(e.message ?? '');
    const code = String(e.code);
    const text = e.code && !message.startsWith(code) ? `${code}: ${message}` : message;
    if (text && !parts.some((p) => p.includes(text))) parts.push(text);
  }
  return parts.join(': ') || String(err);
}

/** The write verb kube would name for a store decision: a create, an update, or a delete. */
export type WriteOperation = 'create' | 'update' | 'delete';

/** "/registry/<group|core>/<plural>/..." -> { group, resource }. */
function resourceOfKey(key: string): { group: string; resource: string } {
  const [, , group = '', resource = ''] = key.split('/');
  return { group: group === 'core' ? '' : group, resource };
}

/** The Status answering a write at `key` that storage failed. */
export function storageWriteError(kind: StorageFailureKind, key: string, operation: WriteOperation): StatusError {
  if (kind === 'no-space') return new StatusError(500, '', DATABASE_SPACE_EXCEEDED);
  const { group, resource } = resourceOfKey(key);
  const qualified = group ? `${resource}.${group}` : resource;
  return new StatusError(
    500,
    'ServerTimeout',
    `The ${operation} operation against ${qualified} could not be completed at this time, please try again.`,
    {
      group: group || undefined,
      kind: resource,
      name: operation,
      retryAfterSeconds: 2,
    },
  );
}
