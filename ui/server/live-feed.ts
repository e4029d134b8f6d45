// The UI server's one loop over the cluster's changes: it reads the history
// API's `changes` from the last revision it saw, a page at a time, until it
// has caught up; then it watches them (`changes?watch=true`: each commit's
// changes as the apiserver commits them), and opens the watch again from the
// last change when it ends. Each batch goes out to every connected browser
// as one JSON message (the changes that arrived together). A browser that connects
// first gets the newest changes the feed keeps. Sending never waits for a
// browser: a socket whose unsent data passes a limit is dropped, so a slow
// or hostile page cannot stall the loop or grow the server's memory.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { WebSocket } from 'ws';
import type { Change, ChangeList } from '../../shared/api/history-types.ts';
import { HISTORY_API_VERSION } from '../../shared/api/history-types.ts';
import type { KubeClient } from '../../shared/client/kube-client.ts';
import { prom } from '../../shared/metrics/registry.ts';

/** A message on /live. `backlog` comes once, first; then one `changes` per page the feed reads. */
export type LiveMessage = { type: 'backlog'; items: Change[] } | { type: 'changes'; items: Change[] };

/** Tuning (the defaults suit a laptop). */
export interface LiveFeedOptions {
  client: KubeClient;
  log: Logger;
  registry?: Registry;
  /** Changes kept for a browser that connects (default 2000). */
  backlog?: number;
  /** A socket with more unsent bytes than this is dropped (default 4 MiB). */
  maxBufferedBytes?: number;
  /** How long one watch of the changes lasts before it is opened again (default 300 s). */
  timeoutSeconds?: number;
  /** Changes read per request (default 500). */
  pageSize?: number;
}

const CHANGES_PATH = `/apis/${HISTORY_API_VERSION}/changes`;
const rev = (r: string): bigint => (/^\d+$/.test(r) ? BigInt(r) : 0n);

/** See the file comment. */
export class LiveFeed {
  private readonly sockets = new Set<WebSocket>();
  private recent: Change[] = [];
  private last = 0n;
  private running = false;
  private wake?: () => void;
  private stopWatch?: () => void;
  private readonly o: Required<Omit<LiveFeedOptions, 'registry'>>;
  private readonly metrics?: { clients: prom.Gauge; changes: prom.Counter; dropped: prom.Counter; errors: prom.Counter };

  constructor(opts: LiveFeedOptions) {
    this.o = { backlog: 2000, maxBufferedBytes: 4 << 20, timeoutSeconds: 300, pageSize: 500, ...opts };
    if (opts.registry) {
      const registers = [opts.registry];
      this.metrics = {
        clients: new prom.Gauge({ name: 'ksim_ui_live_clients', help: 'Browsers connected to /live', registers }),
        changes: new prom.Counter({ name: 'ksim_ui_live_changes_total', help: 'Changes read from the history API', registers }),
        dropped: new prom.Counter({ name: 'ksim_ui_live_dropped_total', help: 'Browsers dropped for reading too slowly', registers }),
        errors: new prom.Counter({ name: 'ksim_ui_live_errors_total', help: 'Failed reads of the changes', registers }),
      };
    }
  }

  /** Whether the feed has read the cluster once (the backlog is filled). */
  synced = false;

  /** The changes a browser connecting now would get first. */
  backlog(): readonly Change[] {
    return this.recent;
  }

  /** Starts the loop (once). */
  start(): void {
    if (this.running) return;
    this.running = true;
    void this.loop();
  }

  /** Stops the loop and closes every socket. */
  stop(): void {
    this.running = false;
    this.wake?.();
    this.stopWatch?.();
    for (const ws of this.sockets) ws.terminate();
    this.sockets.clear();
  }

  /** Adds a browser's socket: it gets the backlog now and every change from then on. */
  attach(ws: WebSocket): void {
    this.sockets.add(ws);
    this.metrics?.clients.set(this.sockets.size);
    const forget = () => {
      this.sockets.delete(ws);
      this.metrics?.clients.set(this.sockets.size);
    };
    ws.on('close', forget);
    ws.on('error', forget);
    this.send(ws, JSON.stringify({ type: 'backlog', items: this.recent } satisfies LiveMessage));
  }

  private send(ws: WebSocket, text: string): void {
    if (ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount > this.o.maxBufferedBytes) {
      this.o.log.warn({ buffered: ws.bufferedAmount }, 'dropping a browser that reads too slowly');
      this.metrics?.dropped.inc();
      this.sockets.delete(ws);
      this.metrics?.clients.set(this.sockets.size);
      ws.terminate();
      return;
    }
    ws.send(text);
  }

  private broadcast(items: Change[]): void {
    const text = JSON.stringify({ type: 'changes', items } satisfies LiveMessage);
    for (const ws of [...this.sockets]) this.send(ws, text);
  }

  private async read(query: Record<string, string | number | boolean>): Promise<ChangeList> {
    return this.o.client.request<ChangeList>('GET', CHANGES_PATH, { query: { objects: false, ...query } });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  /** Takes changes read or watched: those not seen yet go to the backlog and out to every browser. */
  private take(read: readonly Change[]): void {
    const items = read.filter((c) => rev(c.revision) > this.last);
    for (const c of items) if (rev(c.revision) > this.last) this.last = rev(c.revision);
    if (!items.length) return;
    this.metrics?.changes.inc(items.length);
    this.recent = this.recent.concat(items);
    if (this.recent.length > this.o.backlog) this.recent = this.recent.slice(-this.o.backlog);
    this.broadcast(items);
  }

  /** Reads pages of changes from the last one seen until a page is short: caught up. */
  private async catchUp(): Promise<void> {
    while (this.running) {
      const page = await this.read({
        // `from` is a resourceVersion (positive): leave it out to read from the start.
        ...(this.last > 0n ? { from: String(this.last) } : {}),
        limit: this.o.pageSize,
      });
      this.take(page.items);
      if (page.items.length < this.o.pageSize && !page.metadata.continue) return;
    }
  }

  /** Watches the changes from the last one seen until the watch ends; the changes of one chunk go out together. */
  private follow(): Promise<void> {
    let batch: Change[] = [];
    let scheduled = false;
    const flush = () => {
      scheduled = false;
      const items = batch;
      batch = [];
      this.take(items);
    };
    const handle = this.o.client.watchPath<{ type: string; object: Change }>(
      CHANGES_PATH,
      { ...(this.last > 0n ? { from: String(this.last) } : {}), timeoutSeconds: this.o.timeoutSeconds },
      (ev) => {
        if (ev.type !== 'ADDED') return;
        batch.push(ev.object);
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      },
    );
    this.stopWatch = () => handle.stop();
    return handle.done.finally(() => {
      this.stopWatch = undefined;
      if (batch.length) flush();
    });
  }

  private async loop(): Promise<void> {
    let backoff = 500;
    while (this.running) {
      try {
        if (!this.synced) {
          // Start the backlog about `backlog` writes back: revisions count every write in the cluster.
          const head = await this.read({ limit: 1 });
          const newest = rev(head.metadata.resourceVersion);
          const start = newest > BigInt(this.o.backlog) ? newest - BigInt(this.o.backlog) : 0n;
          this.last = start;
          this.synced = true;
          this.o.log.info({ from: String(start), newest: String(newest) }, 'reading the cluster changes');
        }
        await this.catchUp();
        if (!this.running) break;
        const opened = Date.now();
        await this.follow();
        // A watch the apiserver ends at once (it is shutting down, say) is not opened again at once.
        if (Date.now() - opened < 1000) await this.sleep(backoff);
        backoff = 500;
      } catch (err) {
        if (!this.running) break;
        this.metrics?.errors.inc();
        this.o.log.warn({ err: (err as Error).message, retryInMs: backoff }, 'reading the cluster changes failed');
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, 10_000);
      }
    }
  }
}
