// Watchers that stop reading must not take the apiserver's memory: 500
// watches on ConfigMaps (plain, label-selected, field-selected, some over a
// WebSocket, some whose selector never matches) opened on raw (TLS) sockets
// that never read, while one client rewrites a 100 KB ConfigMap 20 times a
// second. The apiserver's RSS stays under 1 GiB, other clients' GET/PUT p99
// stays under 1 s, the watchers that fell behind are dropped (the server
// closes their connections, as kube's cacher terminates a watcher whose
// buffer is full), those that had nothing to send stay open, and a watcher
// that reads sees every event in order.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type net from 'node:net';
import tls from 'node:tls';
import { api, openRaw, startApiserver, until, type Apiserver, type ApiClient } from './helpers/index.ts';

const NS = 'mem';
const OBJECT_BYTES = 100 * 1024;
const WRITES_PER_SECOND = 20;
const WRITE_SECONDS = 18;
const RSS_LIMIT = 1024 * 1024 * 1024;

let server: Apiserver;
let c: ApiClient;
const sockets: net.Socket[] = [];

before(async () => {
  server = await startApiserver();
  c = api(server);
  assert.equal((await c.request('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
});
after(async () => {
  for (const s of sockets) s.destroy();
  await server?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** A watch request on a raw socket that is never read (until `resume`). */
interface Idle {
  kind: string;
  /** True when its selector matches the object being rewritten. */
  receives: boolean;
  socket: net.Socket;
  closed: boolean;
}

function openIdle(path: string, kind: string, receives: boolean, websocket: boolean): Idle {
  const socket = openRaw(server);
  const idle: Idle = { kind, receives, socket, closed: false };
  sockets.push(socket);
  const headers = websocket
    ? `Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n`
    : 'Accept: application/json\r\n';
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n${headers}\r\n`);
  // Never read: the kernel's buffers fill, then the server's. A TLS socket reads its handshake first.
  if (socket instanceof tls.TLSSocket) socket.once('secureConnect', () => socket.pause());
  else socket.pause();
  socket.on('error', () => {});
  socket.on('close', () => (idle.closed = true));
  return idle;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** /metrics, read as the admin (it needs credentials). */
async function metricsText(): Promise<string> {
  return String((await c.request('GET', '/metrics', undefined, { accept: 'text/plain' })).body);
}

function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(name + ' ') || line.startsWith(name + '{')) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

test(
  '500 watchers that never read: RSS under 1 GiB, p99 under 1 s, laggards dropped, a reader sees every event',
  { timeout: 90_000 },
  async (t) => {
    const filler = 'x'.repeat(OBJECT_BYTES);
    const big = await c.request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
      metadata: { name: 'big', labels: { app: 'big' } },
      data: { n: '0', filler },
    });
    assert.equal(big.status, 201);
    const probe = await c.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'probe' }, data: { n: '0' } });
    assert.equal(probe.status, 201);
    const fromRv = big.body.metadata.resourceVersion;

    const base = `/api/v1/namespaces/${NS}/configmaps?watch=1&timeoutSeconds=600&resourceVersion=${probe.body.metadata.resourceVersion}`;
    const idle: Idle[] = [];
    for (let i = 0; i < 500; i++) {
      const ws = i % 10 === 9;
      if (i < 250) idle.push(openIdle(base, ws ? 'plain websocket' : 'plain', true, ws));
      else if (i < 400) idle.push(openIdle(`${base}&labelSelector=app%3Dbig`, ws ? 'label websocket' : 'label', true, ws));
      else if (i < 450) idle.push(openIdle(`${base}&fieldSelector=metadata.name%3Dbig`, ws ? 'field websocket' : 'field', true, ws));
      else idle.push(openIdle(`${base}&labelSelector=app%3Dother`, 'not matching', false, ws));
    }
    // Every watch registered before the writes start (the WebSocket ones are not long-running requests).
    const httpWatches = idle.length - idle.filter((_, i) => i % 10 === 9).length;
    await until(
      async () => metricSum(await metricsText(), 'apiserver_longrunning_requests') >= httpWatches,
      `${httpWatches} open HTTP watches`,
      20_000,
    );
    await sleep(1000);

    const reader = c.watch(`/api/v1/namespaces/${NS}/configmaps?watch=1&labelSelector=app%3Dbig&resourceVersion=${fromRv}`);
    await reader.ready;
    const seen: string[] = [];
    const reading = (async () => {
      for await (const ev of reader) {
        if (ev.object?.metadata?.name === 'big') seen.push(`${ev.type}:${ev.object.metadata.resourceVersion}`);
      }
    })();

    let maxRss = 0;
    const rssTimer = setInterval(() => {
      try {
        maxRss = Math.max(maxRss, rssOf(server.pid));
      } catch {
        // The process is gone: the requests below fail and say so.
      }
    }, 100);

    const written: string[] = [];
    const latencies: number[] = [];
    let stop = false;
    const writer = (async () => {
      const start = performance.now();
      for (let n = 1; n <= WRITES_PER_SECOND * WRITE_SECONDS; n++) {
        const res = await c.request('PUT', `/api/v1/namespaces/${NS}/configmaps/big`, {
          metadata: { name: 'big', labels: { app: 'big' } },
          data: { n: String(n), filler },
        });
        assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
        written.push(`MODIFIED:${res.body.metadata.resourceVersion}`);
        const wait = start + (n * 1000) / WRITES_PER_SECOND - performance.now();
        if (wait > 0) await sleep(wait);
      }
      stop = true;
    })();
    const prober = (async () => {
      for (let n = 1; !stop; n++) {
        let t = performance.now();
        const got = await c.request('GET', `/api/v1/namespaces/${NS}/configmaps/probe`);
        latencies.push(performance.now() - t);
        assert.equal(got.status, 200);
        t = performance.now();
        const put = await c.request('PUT', `/api/v1/namespaces/${NS}/configmaps/probe`, {
          metadata: { name: 'probe' },
          data: { n: String(n) },
        });
        latencies.push(performance.now() - t);
        assert.equal(put.status, 200);
        await sleep(50);
      }
    })();
    try {
      await Promise.all([writer, prober]);
    } finally {
      clearInterval(rssTimer);
    }

    assert.ok(maxRss > 0, 'RSS was read');
    assert.ok(maxRss < RSS_LIMIT, `apiserver RSS peaked at ${(maxRss / 2 ** 20).toFixed(0)} MiB`);
    const p99 = percentile(latencies, 99);
    assert.ok(p99 < 1000, `GET/PUT p99 ${p99.toFixed(0)} ms over ${latencies.length} requests`);

    // The reader got every write, in order, and nothing else of this object.
    await until(() => seen.length >= written.length, 'the reader to see every write', 20_000);
    reader.close();
    await reading;
    assert.deepEqual(seen, written);

    const receivers = idle.filter((w) => w.receives);
    // Reading now, a dropped watcher's stream ends (after what the kernel still holds); one that had nothing to send stays open.
    for (const w of idle) w.socket.on('data', () => {}).resume();
    await until(() => receivers.every((w) => w.closed), 'dropped watchers to close', 15_000).catch(() => {});
    const open = receivers.filter((w) => !w.closed).map((w) => w.kind);
    assert.deepEqual(open, [], 'watchers that fell behind were dropped by the server');
    const metrics = await metricsText();
    assert.ok(
      metricSum(metrics, 'apiserver_terminated_watchers_total') >= receivers.length,
      `every watcher that fell behind is counted as terminated:\n${metrics
        .split('\n')
        .filter((l) => /terminated_watchers|ksim_watch_|longrunning/.test(l))
        .join('\n')}\nRSS peak ${(maxRss / 2 ** 20).toFixed(0)} MiB, p99 ${p99.toFixed(0)} ms`,
    );
    assert.ok(/^ksim_watch_queued_bytes[{ ]/m.test(metrics), 'queued bytes are exposed');
    const drops = metrics.split('\n').filter((l) => l.startsWith('ksim_watch_dropped_total{'));
    t.diagnostic(
      `RSS peak ${(maxRss / 2 ** 20).toFixed(0)} MiB, GET/PUT p99 ${p99.toFixed(0)} ms, ${written.length} writes; ${drops.join(', ')}`,
    );
    await sleep(500);
    assert.deepEqual(
      idle.filter((w) => !w.receives && w.closed).map((w) => w.kind),
      [],
      'watchers with nothing to send are not dropped',
    );
  },
);
