// Writing complete responses: an object or list in the negotiated format, or
// a metav1.Status for an error (never a stack trace).
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { internalError, StatusError } from '../../shared/api/errors.ts';
import { encode, type ResponseFormat } from './codec.ts';
import { warningHeaders } from './warning-headers.ts';

/** Writes `json` with `status` in `format`; a Buffer is JSON already encoded as UTF-8 and goes out as it is. */
export function sendJson(
  res: ServerResponse,
  status: number,
  json: string | Buffer,
  format: ResponseFormat = 'json',
  warnings: string[] = [],
  retryAfterSeconds?: number,
): void {
  const encoded = typeof json === 'string' ? encode(json, format) : { body: json, contentType: 'application/json' };
  const { contentType } = encoded;
  const warningValues = warnings.length ? warningHeaders(warnings) : [];
  // Node writes the head together with a string body, in the body's encoding (UTF-8):
  // header bytes above 0x7f would be encoded twice, so such a body goes as bytes.
  const body =
    typeof encoded.body === 'string' && warningValues.some((v) => /[\x80-\xff]/.test(v)) ? Buffer.from(encoded.body) : encoded.body;
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  const headers: Record<string, string | number | string[]> = {
    'Content-Type': contentType,
    'Content-Length': length,
    'Cache-Control': 'no-cache, private',
  };
  if (warningValues.length) headers.Warning = warningValues;
  if (retryAfterSeconds !== undefined && retryAfterSeconds > 0) headers['Retry-After'] = String(retryAfterSeconds);
  try {
    res.writeHead(status, headers);
  } catch {
    // The write may be committed already: an unsendable header must not turn it into a failure.
    delete headers.Warning;
    res.writeHead(status, headers);
  }
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
  // As kube's responsewriters: a Status that says when to retry says it in a Retry-After header too.
  sendJson(res, se.code, JSON.stringify(se.toStatus()), format, [], se.details?.retryAfterSeconds);
  return se.code;
}
