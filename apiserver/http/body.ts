// Reads a request body with kube's size limit (3 MiB): a larger body is a
// 413 Status, never a crash or an unbounded buffer.
import type { IncomingMessage } from 'node:http';
import { tooLarge } from '../../shared/api/errors.ts';

/** kube-apiserver's limit for a request body (MaxRequestBodyBytes). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Resolves with the whole body, or rejects with a 413 StatusError once it passes `limit`. */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    req.on('error', (err) => {
      if (!failed) reject(err);
    });
  });
}
