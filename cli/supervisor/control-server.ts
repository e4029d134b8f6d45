// The supervisor's control endpoint: HTTP on 127.0.0.1 (a free port), every
// request with the bearer token of DIR/control.json (random, 32 bytes; the
// file is mode 0600, so only the user who started ksim can use it). Routes
// (shared/chaos/protocol.ts): GET /status, POST /chaos, GET /faults. A bad
// request gets 400 {message} naming the field; nothing a client sends can
// end the supervisor.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';
import { CONTROL_FILE, type ControlFile } from '../../shared/chaos/protocol.ts';

const MAX_BODY = 1024 * 1024;

/** An error with the HTTP status the endpoint answers it with. */
export type StatusOf = (err: unknown) => number;

export interface ControlRoutes {
  status(): Promise<unknown>;
  chaos(body: unknown): Promise<unknown>;
  faults(): unknown;
}

/** A running control endpoint. */
export interface ControlServer {
  url: string;
  /** Stops serving and removes DIR/control.json. */
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new HttpError(413, `the body is larger than ${MAX_BODY} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Writes DIR/control.json atomically, readable by its owner only. */
export function writeControlFile(dataDir: string, file: ControlFile): void {
  const tmp = path.join(dataDir, `${CONTROL_FILE}.${process.pid}.tmp`);
  fs.rmSync(tmp, { force: true });
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    fs.writeSync(fd, JSON.stringify(file, null, 2) + '\n');
  } finally {
    fs.closeSync(fd);
  }
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, path.join(dataDir, CONTROL_FILE));
}

/** Starts the endpoint and writes DIR/control.json. */
export async function startControlServer(dataDir: string, routes: ControlRoutes, statusOf: StatusOf, log: Logger): Promise<ControlServer> {
  const token = randomBytes(32).toString('hex');
  const expected = Buffer.from(`Bearer ${token}`);
  const authorized = (h: string | undefined) => {
    const got = Buffer.from(h ?? '');
    return got.length === expected.length && timingSafeEqual(got, expected);
  };
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    };
    const handle = async (): Promise<unknown> => {
      if (!authorized(req.headers.authorization)) throw new HttpError(401, 'Unauthorized: the bearer token of DIR/control.json is needed');
      const route = `${req.method} ${(req.url ?? '/').split('?')[0]}`;
      switch (route) {
        case 'GET /status':
          return routes.status();
        case 'GET /faults':
          return routes.faults();
        case 'POST /chaos': {
          const text = await readBody(req);
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch (err) {
            throw new HttpError(400, `the body is not JSON: ${(err as Error).message}`);
          }
          return routes.chaos(body);
        }
      }
      if (['/status', '/faults', '/chaos'].includes((req.url ?? '').split('?')[0]))
        throw new HttpError(405, `${req.method} is not allowed on ${req.url}`);
      throw new HttpError(404, `no route ${req.method} ${req.url} (GET /status, POST /chaos, GET /faults)`);
    };
    handle().then(
      (body) => send(200, body),
      (err) => {
        const status = err instanceof HttpError ? err.status : statusOf(err);
        if (status >= 500) log.error({ err: (err as Error).message, url: req.url }, 'control request failed');
        send(status, { message: (err as Error).message ?? String(err) });
      },
    );
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  writeControlFile(dataDir, { url, token, supervisorPid: process.pid });
  log.info({ url }, 'control endpoint serving');
  return {
    url,
    async close() {
      try {
        const recorded = JSON.parse(fs.readFileSync(path.join(dataDir, CONTROL_FILE), 'utf8')) as ControlFile;
        if (recorded.supervisorPid === process.pid) fs.rmSync(path.join(dataDir, CONTROL_FILE), { force: true });
      } catch {
        // gone already
      }
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
