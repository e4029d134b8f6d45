// A forwarded TCP connection to a simulated process's listening port: the
// bytes kubectl port-forward (or the apiserver's pod proxy) sends are read
// as that process would read them off its socket. A listener that answers
// HTTP gets HTTP/1.1 parsed off the stream (pipelined and keep-alive
// requests, Content-Length bodies) and its answers written back as HTTP; a
// raw TCP listener (redis, memcached) gets each chunk and writes its reply.
// Bytes that are not HTTP get nginx's 400 and the connection is closed, as a
// real server would; nothing a client sends can throw out of here.
import http from 'node:http';
import type { HttpRequest, Listener } from '../runtime/images/network.ts';

/** The far end of the connection, as the process writes to it. */
export interface ConnectionSink {
  write(data: Buffer): void;
  /** The server closed its side (after `Connection: close`, or a bad request). */
  end(): void;
}

/** The client's side of the connection, to feed it bytes. */
export interface SimConnection {
  write(data: Buffer): void;
  /** The client closed its write side (FIN). */
  end(): void;
}

/** The largest request head a simulated server reads (nginx's large_client_header_buffers is 4 x 8k). */
const MAX_HEAD = 32 * 1024;
/** The largest body it reads before giving up (nginx's client_max_body_size is 1m). */
const MAX_BODY = 1024 * 1024;

/** Opens a connection to `l`; `clientIP` is what the server sees as its peer. */
export function openSimConnection(l: Listener, sink: ConnectionSink, clientIP: string): SimConnection {
  if (!l.http) {
    let closed = false;
    return {
      write: (data) => {
        if (closed || !l.tcp) return;
        const reply = l.tcp(data.toString('latin1'));
        if (reply) sink.write(Buffer.from(reply, 'latin1'));
      },
      end: () => {
        if (closed) return;
        closed = true;
        sink.end();
      },
    };
  }
  const serve = l.http.bind(l);
  let buf: Buffer = Buffer.alloc(0);
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    buf = Buffer.alloc(0);
    sink.end();
  };
  const pump = () => {
    while (!closed) {
      const headEnd = buf.indexOf('\r\n\r\n');
      if (headEnd < 0) {
        if (buf.length > MAX_HEAD) answerError(400);
        return;
      }
      const parsed = parseHead(buf.subarray(0, headEnd).toString('latin1'));
      if (!parsed) return answerError(400);
      const te = parsed.headers.get('transfer-encoding');
      if (te && te.toLowerCase() !== 'identity') return answerError(501);
      const length = Number(parsed.headers.get('content-length') ?? 0);
      if (!Number.isInteger(length) || length < 0) return answerError(400);
      if (length > MAX_BODY) return answerError(413);
      const total = headEnd + 4 + length;
      if (buf.length < total) return;
      buf = buf.subarray(total);
      const req: HttpRequest = {
        method: parsed.method,
        path: parsed.path,
        query: parsed.query,
        host: parsed.headers.get('host') ?? '',
        clientIP,
      };
      let res;
      try {
        res = serve(req);
      } catch {
        res = { status: 500, body: '' };
      }
      const keepAlive = parsed.version === '1.1' && parsed.headers.get('connection')?.toLowerCase() !== 'close';
      sink.write(formatResponse(res.status, res.body, res.headers ?? {}, parsed.method === 'HEAD', keepAlive));
      if (!keepAlive) return close();
    }
  };
  const answerError = (status: number) => {
    sink.write(formatResponse(status, `${status} ${http.STATUS_CODES[status]}\n`, {}, false, false));
    close();
  };
  return {
    write: (data) => {
      if (closed) return;
      buf = buf.length ? Buffer.concat([buf, data]) : data;
      pump();
    },
    end: () => {
      pump();
      close();
    },
  };
}

interface Head {
  method: string;
  path: string;
  query: URLSearchParams;
  version: string;
  headers: Map<string, string>;
}

/** The request line and headers, or undefined when they are not HTTP/1.x. */
function parseHead(text: string): Head | undefined {
  const lines = text.split('\r\n');
  const m = /^([A-Z]+) (\S+) HTTP\/(1\.[01])$/.exec(lines[0]);
  if (!m) return undefined;
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i <= 0) return undefined;
    headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  let url: URL;
  try {
    url = new URL(m[2], 'http://x');
  } catch {
    return undefined;
  }
  return { method: m[1], path: url.pathname, query: url.searchParams, version: m[3], headers };
}

function formatResponse(status: number, body: string, headers: Record<string, string>, head: boolean, keepAlive: boolean): Buffer {
  const bytes = Buffer.from(body, 'utf8');
  const lines = [`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Unknown'}`];
  const has = (n: string) => Object.keys(headers).some((k) => k.toLowerCase() === n);
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== 'content-length') lines.push(`${k}: ${v}`);
  // The image programs name no type; a page is HTML (nginx's index.html), anything else plain text.
  if (!has('content-type'))
    lines.push(/^\s*<(!doctype html|html)/i.test(body) ? 'Content-Type: text/html' : 'Content-Type: text/plain; charset=utf-8');
  lines.push(`Content-Length: ${bytes.length}`);
  if (!keepAlive) lines.push('Connection: close');
  return Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), head ? Buffer.alloc(0) : bytes]);
}
