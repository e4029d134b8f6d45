// How the other ksim commands reach a running `ksim up`: its supervisor's
// control endpoint, a loopback HTTP port whose address and bearer token are
// in DIR/control.json (mode 0600, readable only by the user who started
// it). Every failure is one line that says why: no cluster there, a stale
// file left by a supervisor that died, an endpoint that does not answer, or
// the supervisor's own {message}.
import fs from 'node:fs';
import path from 'node:path';
import { CONTROL_FILE, type ControlFile } from '../../shared/chaos/protocol.ts';

/** A control request that failed; `status` is the HTTP status when the supervisor answered. */
export class ControlError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}

const DEFAULT_TIMEOUT_MS = 120_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but is another user's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** DIR/control.json, checked; throws a ControlError when no supervisor runs in dataDir. */
export function readControlFile(dataDir: string): ControlFile {
  const dir = path.resolve(dataDir);
  const file = path.join(dir, CONTROL_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ControlError(`no ksim is running in ${dir} (no ${CONTROL_FILE})`);
    throw new ControlError(`cannot read ${file}: ${code ?? (err as Error).message}`);
  }
  let parsed: Partial<ControlFile>;
  try {
    parsed = JSON.parse(text) as Partial<ControlFile>;
  } catch {
    throw new ControlError(`${file} is not JSON`);
  }
  if (typeof parsed.url !== 'string' || typeof parsed.token !== 'string' || !Number.isInteger(parsed.supervisorPid)) {
    throw new ControlError(`${file} lacks url, token or supervisorPid`);
  }
  if (!alive(parsed.supervisorPid!)) {
    throw new ControlError(`no ksim is running in ${dir} (its supervisor, pid ${parsed.supervisorPid}, is gone; ${CONTROL_FILE} is stale)`);
  }
  return parsed as ControlFile;
}

/**
 * Sends one request to the supervisor of the cluster in dataDir and returns
 * its JSON answer. Throws a ControlError with a one-line reason.
 */
export async function controlRequest<T>(
  dataDir: string,
  method: 'GET' | 'POST',
  urlPath: string,
  body?: unknown,
  opts: { timeoutMs?: number } = {},
): Promise<T> {
  const control = readControlFile(dataDir);
  const url = new URL(urlPath, control.url.endsWith('/') ? control.url : `${control.url}/`);
  const headers: Record<string, string> = { authorization: `Bearer ${control.token}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const why =
      e.name === 'TimeoutError'
        ? `no answer within ${(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000}s`
        : (e.cause?.code ?? e.cause?.message ?? e.message);
    throw new ControlError(`cannot reach the ksim supervisor at ${control.url}: ${why}`);
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const message = (parsed as { message?: unknown } | undefined)?.message;
    const line =
      typeof message === 'string' && message ? message : `${method} ${urlPath}: HTTP ${res.status}${text ? ` ${text.slice(0, 200)}` : ''}`;
    throw new ControlError(line.split('\n')[0], res.status);
  }
  if (parsed === undefined && text !== '') throw new ControlError(`${method} ${urlPath}: the supervisor's answer is not JSON`, res.status);
  return parsed as T;
}
