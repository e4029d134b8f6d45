// Keep-alive HTTP/1.1 connections to one server for KubeClient's requests:
// a request is one string written in one syscall and its answer is parsed
// from the bytes as they come, about half the CPU per request of node:http's
// Agent and ClientRequest. Heartbeats of thousands of simulated nodes and the
// writes of every controller are such requests. Over TLS, a new connection
// resumes the session of the last one (the server's session ticket): a
// burst that opens connections pays one full handshake, not one each.
import net from 'node:net';
import tls from 'node:tls';
import { Fifo } from '../util/fifo.ts';
import { ResponseParser } from './response-parser.ts';

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
  private readonly waiting = new Fifo<PendingExchange>();
  private sweeper?: NodeJS.Timeout;
  private closed = false;
  /** The newest TLS session a connection was given, for the next connection to resume. */
  private tlsSession?: Buffer;
  private readonly counts = { opened: 0, resumed: 0 };

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
    const conn = new Connection(this.opts, this.tlsSession, {
      release: (c, reusable) => this.released(c, reusable),
      lost: (c) => this.lost(c),
      retry: (p) => this.retry(p),
      session: (s) => (this.tlsSession = s),
      resumed: () => this.counts.resumed++,
    });
    this.counts.opened++;
    this.all.add(conn);
    return conn;
  }

  /** A connection finished an exchange: give it the next waiting one, or keep it idle. */
  private released(conn: Connection, reusable: boolean): void {
    if (!reusable) {
      conn.destroy();
      return;
    }
    const next = this.waiting.shift();
    if (next) conn.start(next);
    else this.idle.push(conn);
  }

  /** A connection is gone: its exchange (if any) was settled by the connection; open another for waiters. */
  private lost(conn: Connection): void {
    this.all.delete(conn);
    const i = this.idle.indexOf(conn);
    if (i >= 0) this.idle.splice(i, 1);
    if (this.closed) return;
    const next = this.waiting.shift();
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
      if (this.all.size === 0 && this.waiting.length === 0) {
        clearInterval(this.sweeper);
        this.sweeper = undefined;
      }
    }, 1000);
    this.sweeper.unref();
  }

  /** Connections opened so far, and how many of them resumed a TLS session (no full handshake). */
  stats(): { opened: number; resumed: number } {
    return { ...this.counts };
  }

  close(): void {
    this.closed = true;
    for (const c of [...this.all]) c.destroy(new Error('client is closed'));
    for (const p of this.waiting.drain()) p.reject(new Error('client is closed'));
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}

/** One connection and the parser of the answer it is reading. */
class Connection {
  private readonly socket: net.Socket;
  private readonly parser: ResponseParser;
  private current?: PendingExchange;
  private served = 0;
  private gotBytes = false;
  private idleSince = Date.now();
  private idleMs = IDLE_MS;
  private dead = false;
  // The answer being read.
  private status = 0;
  private body: Buffer[] = [];
  private answered = false;
  /** Bytes arrived beyond the answer: the connection can no longer be trusted. */
  private unexpected = false;

  constructor(
    opts: PoolOptions,
    session: Buffer | undefined,
    private readonly pool: {
      release(c: Connection, reusable: boolean): void;
      lost(c: Connection): void;
      retry(p: PendingExchange): void;
      session(s: Buffer): void;
      resumed(): void;
    },
  ) {
    this.parser = new ResponseParser({
      onHead: (status, head) => {
        if (this.answered) {
          this.unexpected = true;
          return;
        }
        this.status = status;
        this.body = [];
        const t = /\r\nkeep-alive:[^\r]*timeout=(\d+)/i.exec(head);
        // Close it a second before the server would, so that a request never races the server's close.
        if (t) this.idleMs = Math.min(IDLE_MS, Math.max(0, Number(t[1]) * 1000 - 1000));
      },
      // Each socket read is a buffer of its own, so a slice of it stays valid.
      onBody: (buf, start, end) => {
        if (!this.answered) this.body.push(buf.subarray(start, end));
      },
      onEnd: () => {
        if (this.answered) this.unexpected = true;
        this.answered = true;
      },
    });
    this.socket = opts.tls
      ? tls.connect({
          host: opts.host,
          port: opts.port,
          ...(net.isIP(opts.host) ? {} : { servername: opts.host }),
          ALPNProtocols: ['http/1.1'],
          ...opts.tls,
          session,
        })
      : net.connect({ host: opts.host, port: opts.port });
    if (this.socket instanceof tls.TLSSocket) {
      const socket = this.socket;
      socket.on('session', (s: Buffer) => pool.session(s));
      socket.once('secureConnect', () => socket.isSessionReused() && pool.resumed());
    }
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
    this.answered = false;
    this.parser.noBody = p.wire.startsWith('HEAD ');
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
    // An answer framed by the end of the connection is complete now.
    if (this.current && this.parser.closed() && this.answered) return this.finish(false);
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
    try {
      this.parser.feed(d, 0, d.length);
    } catch (err) {
      this.destroy(err as Error);
      return;
    }
    if (this.answered) this.finish(!this.parser.closeAfter && !this.unexpected && this.parser.idle);
  }

  private finish(reusable: boolean): void {
    const p = this.current!;
    const body = this.body.length === 1 ? this.body[0].toString('utf8') : Buffer.concat(this.body).toString('utf8');
    this.current = undefined;
    this.body = [];
    this.served++;
    this.idleSince = Date.now();
    this.socket.unref();
    p.resolve({ status: this.status, body });
    if (this.dead) return;
    this.pool.release(this, reusable);
  }
}
