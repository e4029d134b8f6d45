// Keep-alive HTTP/1.1 connections to one server for KubeClient's requests:
// a request is one string written in one syscall and its answer is parsed
// from the bytes as they come, about half the CPU per request of node:http's
// Agent and ClientRequest. Heartbeats of thousands of simulated nodes and the
// writes of every controller are such requests.
import net from 'node:net';
import tls from 'node:tls';

/** One request as it goes on the wire, head and body. */
export interface Exchange {
  wire: string;
  replayable: boolean;
  timeoutMs: number;
  what: string;
}

interface PendingExchange extends Exchange {
  resolve(res: { status: number; body: string }): void;
  reject(err: Error): void;
  deadline: number;
  retried?: boolean;
}

export interface PoolOptions {
  host: string;
  port: number;
  tls?: tls.ConnectionOptions;
  maxConnections: number;
}

/** Idle time after which the pool closes a connection itself, unless the server's Keep-Alive header says less. */
const IDLE_MS = 30_000;

/**
 * Keep-alive HTTP/1.1 connections to one server, at most `maxConnections`,
 * one request at a time on each (no pipelining), reused most-recently-first;
 * requests beyond the limit wait in order. Answers are framed by
 * Content-Length, chunked encoding, or the end of the connection.
 */
export class Http1Pool {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private waiting: PendingExchange[] = [];
  private waitingHead = 0;
  private sweeper?: NodeJS.Timeout;
  private closed = false;

  constructor(readonly opts: PoolOptions) {}

  send(ex: Exchange): Promise<{ status: number; body: string }> {
    if (this.closed) return Promise.reject(new Error('client is closed'));
    return new Promise((resolve, reject) => {
      this.dispatch({ ...ex, resolve, reject, deadline: Infinity });
    });
  }

  private dispatch(p: PendingExchange): void {
    let conn = this.idle.pop();
    while (conn && !conn.usable) {
      conn.destroy();
      conn = this.idle.pop();
    }
    conn ??= this.all.size < this.opts.maxConnections ? this.open() : undefined;
    if (conn) conn.start(p);
    else this.waiting.push(p);
    this.sweep();
  }

  private open(): Connection {
    const conn = new Connection(this.opts, {
      release: (c, reusable) => this.released(c, reusable),
      lost: (c) => this.lost(c),
      retry: (p) => this.retry(p),
    });
    this.all.add(conn);
    return conn;
  }

  private nextWaiting(): PendingExchange | undefined {
    while (this.waitingHead < this.waiting.length) {
      const p = this.waiting[this.waitingHead++];
      if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
        this.waiting = this.waiting.slice(this.waitingHead);
        this.waitingHead = 0;
      }
      if (p) return p;
    }
    return undefined;
  }

  /** A connection finished an exchange: give it the next waiting one, or keep it idle. */
  private released(conn: Connection, reusable: boolean): void {
    if (!reusable) {
      conn.destroy();
      return;
    }
    const next = this.nextWaiting();
    if (next) conn.start(next);
    else this.idle.push(conn);
  }

  /** A connection is gone: its exchange (if any) was settled by the connection; open another for waiters. */
  private lost(conn: Connection): void {
    this.all.delete(conn);
    const i = this.idle.indexOf(conn);
    if (i >= 0) this.idle.splice(i, 1);
    if (this.closed) return;
    const next = this.nextWaiting();
    if (next) this.dispatch(next);
  }

  /** Retries an exchange on a fresh connection (the server closed a kept-alive one under it). */
  private retry(p: PendingExchange): void {
    p.retried = true;
    if (this.closed) p.reject(new Error('client is closed'));
    else this.dispatch(p);
  }

  /** Times requests out and closes connections idle for too long, once a second while there are any. */
  private sweep(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const c of this.all) c.expire(now);
      if (this.all.size === 0 && this.waitingHead >= this.waiting.length) {
        clearInterval(this.sweeper);
        this.sweeper = undefined;
      }
    }, 1000);
    this.sweeper.unref();
  }

  close(): void {
    this.closed = true;
    for (const c of [...this.all]) c.destroy(new Error('client is closed'));
    for (let p; (p = this.nextWaiting()); ) p?.reject(new Error('client is closed'));
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}

/** One connection and the parser of the answer it is reading. */
class Connection {
  private readonly socket: net.Socket;
  private current?: PendingExchange;
  private served = 0;
  private gotBytes = false;
  private idleSince = Date.now();
  private idleMs = IDLE_MS;
  private dead = false;
  // Parser state: the bytes not consumed yet, then the answer being read.
  private buf?: Buffer;
  private status = 0;
  private keepAlive = true;
  private mode: 'head' | 'length' | 'chunked' | 'close' = 'head';
  private remaining = 0;
  private chunkState: 'size' | 'data' | 'crlf' | 'trailer' = 'size';
  private body: Buffer[] = [];

  constructor(
    opts: PoolOptions,
    private readonly pool: { release(c: Connection, reusable: boolean): void; lost(c: Connection): void; retry(p: PendingExchange): void },
  ) {
    this.socket = opts.tls
      ? tls.connect({ host: opts.host, port: opts.port, ...(net.isIP(opts.host) ? {} : { servername: opts.host }), ALPNProtocols: ['http/1.1'], ...opts.tls })
      : net.connect({ host: opts.host, port: opts.port });
    this.socket.setNoDelay(true);
    this.socket.on('data', (d: Buffer) => this.onData(d));
    this.socket.on('end', () => this.onEnd());
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('close', () => this.fail(new Error('socket hang up')));
  }

  /** False once the server has closed its side or the socket is gone. */
  get usable(): boolean {
    return !this.dead && !this.socket.destroyed && !this.socket.readableEnded;
  }

  start(p: PendingExchange): void {
    // The time limit runs from when the request goes out, not while it waits for a connection.
    p.deadline = Date.now() + p.timeoutMs;
    this.current = p;
    this.gotBytes = false;
    this.socket.ref();
    this.socket.write(p.wire);
  }

  /** Called once a second: the request's deadline, or the idle connection's. */
  expire(now: number): void {
    if (this.current && now > this.current.deadline) this.destroy(new Error(`request timed out: ${this.current.what}`));
    else if (!this.current && now - this.idleSince > this.idleMs) this.destroy();
  }

  destroy(err?: Error): void {
    if (err) this.fail(err);
    this.socket.destroy();
    this.fail(new Error('socket hang up'));
  }

  private onEnd(): void {
    if (this.current && this.mode === 'close') return this.finish(false);
    this.fail(new Error('socket hang up'));
  }

  /** The connection is unusable: settle its exchange (retrying a replayable one it never got an answer to) and leave the pool. */
  private fail(err: Error): void {
    const p = this.current;
    this.current = undefined;
    if (p) {
      if (!this.gotBytes && this.served > 0 && p.replayable && !p.retried) {
        this.markDead();
        this.pool.retry(p);
        return;
      }
      p.reject(err);
    }
    this.markDead();
  }

  private markDead(): void {
    if (this.dead) return;
    this.dead = true;
    this.socket.destroy();
    this.pool.lost(this);
  }

  private onData(d: Buffer): void {
    if (!this.current) {
      // Bytes nobody asked for: the connection can no longer be trusted.
      this.markDead();
      return;
    }
    this.gotBytes = true;
    this.buf = this.buf?.length ? Buffer.concat([this.buf, d]) : d;
    try {
      this.parse();
    } catch (err) {
      this.destroy(err as Error);
    }
  }

  private parse(): void {
    for (;;) {
      const b = this.buf;
      if (!b || !this.current) return;
      if (this.mode === 'head') {
        const end = b.indexOf('\r\n\r\n');
        if (end < 0) {
          if (b.length > 64 * 1024) throw new Error('response head too large');
          return;
        }
        this.head(b.toString('latin1', 0, end));
        this.buf = b.subarray(end + 4);
        continue;
      }
      if (this.mode === 'close') {
        this.body.push(b);
        this.buf = undefined;
        return;
      }
      if (this.mode === 'length') {
        const n = Math.min(this.remaining, b.length);
        if (n > 0) this.body.push(b.subarray(0, n));
        this.remaining -= n;
        this.buf = b.subarray(n);
        if (this.remaining === 0) return this.finish(this.keepAlive);
        return;
      }
      // chunked
      if (this.chunkState === 'data') {
        const n = Math.min(this.remaining, b.length);
        if (n > 0) this.body.push(b.subarray(0, n));
        this.remaining -= n;
        this.buf = b.subarray(n);
        if (this.remaining > 0) return;
        this.chunkState = 'crlf';
        continue;
      }
      const nl = b.indexOf('\r\n');
      if (nl < 0) return;
      const line = b.toString('latin1', 0, nl);
      this.buf = b.subarray(nl + 2);
      if (this.chunkState === 'crlf') {
        this.chunkState = 'size';
      } else if (this.chunkState === 'size') {
        const size = parseInt(line, 16);
        if (!Number.isFinite(size) || size < 0) throw new Error('bad chunk size');
        if (size === 0) this.chunkState = 'trailer';
        else {
          this.remaining = size;
          this.chunkState = 'data';
        }
      } else if (line === '') {
        return this.finish(this.keepAlive);
      }
    }
  }

  private head(text: string): void {
    const lines = text.split('\r\n');
    const m = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0]);
    if (!m) throw new Error(`bad response status line: ${lines[0].slice(0, 80)}`);
    const status = Number(m[2]);
    if (status >= 100 && status < 200) return; // 100 Continue and friends: the real answer follows.
    this.status = status;
    this.keepAlive = m[1] === '1';
    let length = -1;
    let chunked = false;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i];
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') length = Number(value);
      else if (name === 'transfer-encoding') chunked = /chunked/i.test(value);
      else if (name === 'connection') {
        if (/close/i.test(value)) this.keepAlive = false;
        else if (/keep-alive/i.test(value)) this.keepAlive = true;
      } else if (name === 'keep-alive') {
        const t = /timeout=(\d+)/i.exec(value);
        // Close it a second before the server would, so that a request never races the server's close.
        if (t) this.idleMs = Math.min(IDLE_MS, Math.max(0, Number(t[1]) * 1000 - 1000));
      }
    }
    this.body = [];
    if (status === 204 || status === 304) {
      this.mode = 'length';
      this.remaining = 0;
    } else if (chunked) {
      this.mode = 'chunked';
      this.chunkState = 'size';
    } else if (length >= 0) {
      this.mode = 'length';
      this.remaining = length;
    } else {
      this.mode = 'close';
      this.keepAlive = false;
    }
    if (this.mode === 'length' && this.remaining === 0) this.finish(this.keepAlive);
  }

  private finish(reusable: boolean): void {
    const p = this.current!;
    const body = this.body.length === 1 ? this.body[0].toString('utf8') : Buffer.concat(this.body).toString('utf8');
    const leftover = this.buf?.length ?? 0;
    this.current = undefined;
    this.body = [];
    this.buf = undefined;
    this.mode = 'head';
    this.served++;
    this.idleSince = Date.now();
    this.socket.unref();
    p.resolve({ status: this.status, body });
    if (this.dead) return;
    this.pool.release(this, reusable && leftover === 0);
  }
}
