// Invariant watchConsistent: a watcher (shared/informer, list then watch,
// resuming and relisting as every component's does) kept open for the whole
// run must, once the faults are recovered, hold exactly what a fresh list
// returns: the same objects at the same resourceVersions. It gets `within`
// to catch up (its watch may be in back-off after an outage).
import type { KubeObject } from '../../../../shared/api/object.ts';
import { Informer } from '../../../../shared/informer/informer.ts';
import { keyOf } from '../../../../shared/informer/cache.ts';
import { resolveResource } from '../resources.ts';
import { sleep } from '../sleep.ts';
import type { WatchConsistent } from '../spec.ts';
import { violate, type InvariantDeps, type InvariantRunner, type Violation } from './types.ts';

/** What differs between a watcher's cache and a fresh list; empty when they agree. */
export function viewDiff(cached: Map<string, string>, listed: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [k, rv] of listed) {
    const mine = cached.get(k);
    if (mine === undefined) out.push(`${k}: missing from the watcher`);
    else if (mine !== rv) out.push(`${k}: watcher has resourceVersion ${mine}, the list ${rv}`);
  }
  for (const k of cached.keys()) if (!listed.has(k)) out.push(`${k}: the watcher still has it; the list does not`);
  return out.sort();
}

export function watchConsistentInvariant(name: string, spec: WatchConsistent, deps: InvariantDeps): InvariantRunner {
  const rt = resolveResource(spec.resource);
  const namespace = rt.namespaced ? spec.namespace : undefined;
  const informer = new Informer<KubeObject>(deps.client, rt, { namespace, labelSelector: spec.labelSelector });
  let events = 0;
  informer.on({ add: () => events++, update: () => events++, delete: () => events++ });
  const list = async (): Promise<Map<string, string>> => {
    const out = new Map<string, string>();
    let cont: string | undefined;
    do {
      const page = await deps.client.list<KubeObject>(rt, { namespace, labelSelector: spec.labelSelector, limit: 500, continue: cont });
      for (const o of page.items) out.set(keyOf(o), o.metadata?.resourceVersion ?? '');
      cont = page.metadata?.continue || undefined;
    } while (cont);
    return out;
  };
  const cached = (): Map<string, string> => new Map(informer.cache.list().map((o) => [keyOf(o), o.metadata?.resourceVersion ?? '']));
  return {
    async start() {
      informer.start();
      await informer.waitForSync();
    },
    async finish(signal) {
      const violations: Violation[] = [];
      const started = Date.now();
      let diff: string[] = ['not compared yet'];
      let objects = 0;
      while (Date.now() - started < spec.withinMs && !signal?.aborted) {
        try {
          const listed = await list();
          objects = listed.size;
          diff = viewDiff(cached(), listed);
          if (diff.length === 0) break;
        } catch (err) {
          diff = [`cannot list ${rt.plural}: ${(err as Error).message.split('\n')[0]}`];
        }
        await sleep(250, signal);
      }
      informer.stop();
      const what = `${rt.plural}${namespace ? ` in ${namespace}` : ''}${spec.labelSelector ? ` (${spec.labelSelector})` : ''}`;
      if (diff.length === 0)
        return {
          name,
          kind: 'watchConsistent',
          held: true,
          violations,
          message: `the watcher's ${objects} ${what} equal a fresh list (${events} events seen), ${((Date.now() - started) / 1000).toFixed(1)}s after recovery`,
        };
      for (const d of diff.slice(0, 20)) violate(violations, name, deps.recorder, { object: d.split(':')[0], message: d });
      return {
        name,
        kind: 'watchConsistent',
        held: false,
        violations,
        message: `the watcher's view of ${what} differs from a fresh list ${spec.withinMs / 1000}s after recovery: ${diff.slice(0, 3).join('; ')}`,
      };
    },
    stop() {
      informer.stop();
    },
  };
}
