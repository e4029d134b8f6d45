// Writing complete responses: an object or list in the negotiated format, or
// a metav1.Status for an error (never a stack trace).
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { internalError, StatusError } from '../../shared/api/errors.ts';
import { encode, type ResponseFormat } from './codec.ts';
import { warningHeaderValue } from '../validation/index.ts';

/** Writes `json` with `status` in `format`. */
export function sendJson(res: ServerResponse, status: number, json: string, format: ResponseFormat = 'json', warnings: string[] = []): void {
  const { body, contentType } = encode(json, format);
  const headers: Record<string, string | number | string[]> = { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-cache, private' };
  if (warnings.length) headers.Warning = warnings.map(warningHeaderValue);
  res.writeHead(status, headers);
  res.end(body);
}

/** Turns any thrown value into a Status response; unexpected errors are logged and become a bare 500. */
export function sendError(res: ServerResponse, err: unknown, log: Logger, format: ResponseFormat = 'json'): number {
  let se: StatusError;
  if (err instanceof StatusError) se = err;
  else {
    log.error({ err }, 'unexpected error serving a request');
    se = internalError();
  }
  if (res.headersSent) {
    res.destroy();
    return se.code;
  }
  sendJson(res, se.code, JSON.stringify(se.toStatus()), format);
  return se.code;
}
