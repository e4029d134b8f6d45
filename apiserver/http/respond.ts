// Writing complete responses: an object or list in the negotiated format, or
// a metav1.Status for an error (never a stack trace).
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { internalError, StatusError } from '../../shared/api/errors.ts';
import { encode, type ResponseFormat } from './codec.ts';
import { warningHeaderValue } from '../validation/index.ts';

/** Writes `json` with `status` in `format`; a Buffer is JSON already encoded as UTF-8 and goes out as it is. */
export function sendJson(res: ServerResponse, status: number, json: string | Buffer, format: ResponseFormat = 'json', warnings: string[] = []): void {
  const { body, contentType } = typeof json === 'string' ? encode(json, format) : { body: json, contentType: 'application/json' };
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  const headers: Record<string, string | number | string[]> = { 'Content-Type': contentType, 'Content-Length': length, 'Cache-Control': 'no-cache, private' };
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
