// An informer: list, then watch from the list's resourceVersion; keep the
// resourceVersion moving with every event and bookmark; on a dropped
// connection or a server-closed stream, resume the watch from there; on 410
// Gone, list again and reconcile the cache (synthesizing the adds, updates
// and deletes that were missed). Handlers run in event order, each call
// marked with the resourceVersion of the event's object (causality: what
// queued a key, shared/causality/event-context.ts).
import type { Logger } from 'pino';
import { StatusError } from '../api/errors.ts';
import type { KubeObject } from '../api/object.ts';
import type { ResourceType } from '../api/resource-type.ts';
import { dispatching } from '../causality/event-context.ts';
import { realClock, type Clock } from '../clock/clock.ts';
import type { KubeClient, WatchEvent } from '../client/kube-client.ts';
import { Cache, keyOf } from './cache.ts';

/** What an informer reports. */
export interface EventHandlers<T> {
  add?(obj: T): void;
  update?(oldObj: T, newObj: T): void;
  delete?(obj: T): void;
}

/** Which objects an informer follows. */
export interface InformerOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size of the initial list. */
  pageSize?: number;
  /** Calls update(obj, obj) for every cached object this often (client-go's resync); 0 = never. */
  resyncMs?: number;
  log?: Logger;
  clock?: Clock;
}

const BACKOFF_INITIAL_MS = 800;
const BACKOFF_MAX_MS = 30_000;

/**
 * See the file comment. `new Informer<Pod>(client, pods)` hands `Pod`s to its
 * handlers and keeps them in a `Cache<Pod>`; the caller vouches that `T` is
 * the resource's kind. Without a type argument objects are untyped (`any`),
 * as before the class was generic: kept until every caller names its type.
 */
export class Informer<T extends KubeObject = any> {
  readonly cache = new Cache<T>();
  private readonly handlers: EventHandlers<T>[] = [];
  private resourceVersion = '';
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private stopped = false;
  private current?: { stop(): void };
  private cancelResync?: () => void;
  private readonly clock: Clock;

  constructor(
    private readonly client: KubeClient,
    readonly resource: ResourceType,
    private readonly opts: InformerOptions = {},
  ) {
    this.clock = opts.clock ?? realClock;
  }

  /** Registers handlers; objects already cached are replayed as adds. */
  on(handlers: EventHandlers<T>): void {
    this.handlers.push(handlers);
    if (!this.synced || !handlers.add) return;
    for (const obj of this.cache.list()) dispatching(obj.metadata?.resourceVersion, () => handlers.add!(obj));
  }

  /** True once the first list has been applied. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once the first list has been applied. */
  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((r) => this.syncWaiters.push(r));
  }

  /** The resourceVersion the informer has seen up to. */
  get lastResourceVersion(): string {
    return this.resourceVersion;
  }

  /** Starts the list-watch loop in the background. */
  start(): this {
    void this.run();
    if (this.opts.resyncMs) this.scheduleResync();
    return this;
  }

  /** Stops watching. */
  stop(): void {
    this.stopped = true;
    this.current?.stop();
    this.cancelResync?.();
  }

  private scheduleResync(): void {
    this.cancelResync = this.clock.setTimeout(() => {
      if (this.stopped) return;
      // Not an event: a resync names no trigger.
      for (const obj of this.cache.list()) this.dispatch('update', obj, obj);
      this.scheduleResync();
    }, this.opts.resyncMs!);
  }

  private async run(): Promise<void> {
    let backoff = BACKOFF_INITIAL_MS;
    let needList = true;
    while (!this.stopped) {
      try {
        if (needList) {
          await this.listAndReplace();
          needList = false;
        }
        await this.watchOnce();
        backoff = BACKOFF_INITIAL_MS;
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof StatusError && err.code === 410) {
          this.opts.log?.info({ resource: this.resource.plural, rv: this.resourceVersion }, 'watch expired; relisting');
          needList = true;
          continue;
        }
        this.opts.log?.warn(
          { resource: this.resource.plural, err: (err as Error).message, backoffMs: backoff },
          'list/watch failed; retrying',
        );
        await this.clock.sleep(backoff);
        backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
      }
    }
  }

  private async listAndReplace(): Promise<void> {
    const seen = new Set<string>();
    let cont: string | undefined;
    let rv = '';
    const fresh: T[] = [];
    do {
      const page = await this.client.list<KubeObject>(this.resource, {
        namespace: this.opts.namespace,
        labelSelector: this.opts.labelSelector,
        fieldSelector: this.opts.fieldSelector,
        limit: this.opts.pageSize ?? 500,
        continue: cont,
      });
      rv ||= page.metadata?.resourceVersion ?? '';
      cont = page.metadata?.continue || undefined;
      const apiVersion = page.apiVersion;
      const kind = this.resource.kind;
      for (const item of page.items ?? []) {
        item.apiVersion ??= apiVersion;
        item.kind ??= kind;
        fresh.push(item as T);
      }
    } while (cont);
    for (const obj of fresh) {
      seen.add(keyOf(obj));
      const old = this.cache.upsert(obj);
      if (!old) this.emit('add', obj);
      else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) this.emit('update', obj, old);
    }
    for (const key of this.cache.keys()) {
      if (!seen.has(key)) {
        const gone = this.cache.remove(key)!;
        this.emit('delete', gone);
      }
    }
    this.resourceVersion = rv;
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  private async watchOnce(): Promise<void> {
    // Boxed, so that what apply() threw is rethrown as it is.
    let failure: { err: unknown } | undefined;
    const handle = this.client.watch<T>(
      this.resource,
      {
        namespace: this.opts.namespace,
        labelSelector: this.opts.labelSelector,
        fieldSelector: this.opts.fieldSelector,
        resourceVersion: this.resourceVersion,
        allowWatchBookmarks: true,
        // Like client-go, end each watch after 5-10 minutes to spread reconnects.
        timeoutSeconds: 300 + Math.floor(Math.random() * 300),
      },
      (ev) => {
        try {
          this.apply(ev);
        } catch (err) {
          failure = { err };
          handle.stop();
        }
      },
    );
    this.current = handle;
    await handle.done;
    if (failure) throw failure.err;
  }

  private apply(ev: WatchEvent<T>): void {
    if (ev.type === 'ERROR') {
      throw StatusError.fromStatus(ev.object ?? {}, ev.object?.code ?? 500);
    }
    const rv = ev.object?.metadata?.resourceVersion;
    if (ev.type === 'BOOKMARK') {
      if (rv) this.resourceVersion = rv;
      return;
    }
    const obj = ev.object;
    if (ev.type === 'DELETED') {
      const old = this.cache.remove(keyOf(obj));
      // The deletion's own resourceVersion, not that of the copy last cached.
      this.emit('delete', old ?? obj, undefined, rv);
    } else {
      const old = this.cache.upsert(obj);
      if (old) this.emit('update', obj, old);
      else this.emit('add', obj);
    }
    if (rv) this.resourceVersion = rv;
  }

  private emit(kind: 'add' | 'update' | 'delete', obj: T, old?: T, rv = obj.metadata?.resourceVersion): void {
    dispatching(rv, () => this.dispatch(kind, obj, old));
  }

  private dispatch(kind: 'add' | 'update' | 'delete', obj: T, old?: T): void {
    for (const h of this.handlers) {
      try {
        if (kind === 'add') h.add?.(obj);
        else if (kind === 'update') h.update?.(old!, obj);
        else h.delete?.(obj);
      } catch (err) {
        this.opts.log?.error({ err, resource: this.resource.plural }, 'informer handler failed');
      }
    }
  }
}
