// The opaque `continue` token of a paged list, shaped as kube's: base64 of
// {"v":"meta.k8s.io/v1","rv":N,"start":"<key after the prefix>\u0000"}.
import { badRequest } from '../../shared/api/errors.ts';

/** Where the next page starts: the list's revision and the last key returned (relative to the prefix). */
export interface ContinuePoint {
  rev: number;
  afterKey: string;
}

/** Encodes a token. */
export function encodeContinue(p: ContinuePoint): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: p.rev, start: p.afterKey + '\u0000' })).toString('base64url');
}

/** Decodes a token, or throws kube's 400. */
export function decodeContinue(token: string): ContinuePoint {
  try {
    const raw = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (raw.v !== 'meta.k8s.io/v1' || typeof raw.rv !== 'number' || typeof raw.start !== 'string' || !raw.start.endsWith('\u0000')) {
      throw new Error('bad shape');
    }
    const afterKey = raw.start.slice(0, -1);
    if (afterKey.includes('..') || afterKey.startsWith('/')) throw new Error('bad key');
    return { rev: raw.rv, afterKey };
  } catch {
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
}
