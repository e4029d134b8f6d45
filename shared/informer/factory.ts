// One informer per resource (and selector) per process, shared by every
// controller that needs it, as client-go's SharedInformerFactory does: one
// list and one watch per resource, however many controllers look at it.
import type { Logger } from 'pino';
import type { KubeObject } from '../api/object.ts';
import type { ResourceType } from '../api/resource-type.ts';
import type { Clock } from '../clock/clock.ts';
import type { KubeClient } from '../client/kube-client.ts';
import { Informer, type InformerOptions } from './informer.ts';

/** See the file comment. */
export class InformerFactory {
  private readonly informers = new Map<string, Informer<KubeObject>>();
  private started = false;

  constructor(
    private readonly client: KubeClient,
    private readonly defaults: { log?: Logger; clock?: Clock } = {},
  ) {}

  /**
   * The informer for `rt` with `opts` (created on first use; started if the
   * factory already is). Name the kind's type to get it back from the
   * informer's handlers and cache: `informerFor<Pod>(pods)`. The caller
   * vouches that `T` is `rt`'s kind, as with client-go's typed informers.
   */
  informerFor<T extends KubeObject = any>(rt: ResourceType, opts: Omit<InformerOptions, 'log' | 'clock'> = {}): Informer<T> {
    const key = JSON.stringify([rt.group, rt.version, rt.plural, opts.namespace, opts.labelSelector, opts.fieldSelector]);
    let inf = this.informers.get(key);
    if (!inf) {
      inf = new Informer<KubeObject>(this.client, rt, { ...opts, ...this.defaults });
      this.informers.set(key, inf);
      if (this.started) inf.start();
    }
    return inf as unknown as Informer<T>;
  }

  /** Starts every informer (and any created later). */
  start(): void {
    this.started = true;
    for (const inf of this.informers.values()) if (!inf.hasSynced()) inf.start();
  }

  /** Resolves once every informer has synced. */
  waitForSync(): Promise<void> {
    return Promise.all([...this.informers.values()].map((i) => i.waitForSync())).then(() => undefined);
  }

  stop(): void {
    for (const inf of this.informers.values()) inf.stop();
  }
}
