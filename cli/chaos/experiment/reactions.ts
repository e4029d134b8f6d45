// The system's reactions during a run, for the timeline: every core/v1
// Event written after the run began, and the Pod and Node changes that
// matter when judging a recovery (created, scheduled, running, terminating,
// deleted; a node's Ready condition and taints). Watched with informers so
// a dropped watch or an apiserver restart only delays the marks.
import type { Event as CoreV1Event, Node, Pod } from 'kubernetes-types/core/v1.js';
import { findResource } from '../../../shared/api/resources.ts';
import type { KubeClient } from '../../../shared/client/kube-client.ts';
import { Informer } from '../../../shared/informer/informer.ts';
import type { Recorder } from './recorder.ts';

/** Describes what changed between two versions of a Pod, or undefined when nothing worth a mark did. */
export function podChange(old: Pod | undefined, cur: Pod): { name: string; warning: boolean } | undefined {
  if (!old) return { name: 'PodCreated', warning: false };
  if (!old.metadata?.deletionTimestamp && cur.metadata?.deletionTimestamp) return { name: 'PodTerminating', warning: false };
  if (!old.spec?.nodeName && cur.spec?.nodeName) return { name: 'PodScheduled', warning: false };
  const was = old.status?.phase;
  const is = cur.status?.phase;
  if (was !== is && is) return { name: `Pod${is}`, warning: is === 'Failed' };
  return undefined;
}

/** Describes a Node's change of Ready status or taints. */
export function nodeChange(old: Node | undefined, cur: Node): { name: string; message: string; warning: boolean } | undefined {
  const ready = (n: Node | undefined) => n?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  const taints = (n: Node | undefined) =>
    (n?.spec?.taints ?? [])
      .map((t) => `${t.key}:${t.effect}`)
      .sort()
      .join(',');
  if (!old) return undefined;
  if (ready(old) !== ready(cur)) {
    const is = ready(cur) ?? 'Unknown';
    return {
      name: is === 'True' ? 'NodeReady' : `NodeReady=${is}`,
      message: `Ready ${ready(old) ?? '-'} -> ${is}`,
      warning: is !== 'True',
    };
  }
  if (taints(old) !== taints(cur)) return { name: 'NodeTaints', message: `taints: ${taints(cur) || 'none'}`, warning: false };
  return undefined;
}

export interface ReactionWatch {
  start(): Promise<void>;
  stop(): void;
}

export function watchReactions(client: KubeClient, rec: Recorder): ReactionWatch {
  const events = new Informer<CoreV1Event>(client, findResource('', 'v1', 'events')!);
  const pods = new Informer<Pod>(client, findResource('', 'v1', 'pods')!);
  const nodes = new Informer<Node>(client, findResource('', 'v1', 'nodes')!);
  const seenEvents = new Map<string, number>();
  const eventAdded = (e: CoreV1Event): void => {
    // A relist replays every Event as an add: only a new one or a higher count is news.
    const key = `${e.metadata?.namespace}/${e.metadata?.name}`;
    const count = e.count ?? e.series?.count ?? 1;
    if ((seenEvents.get(key) ?? 0) >= count) return;
    seenEvents.set(key, count);
    const o = e.involvedObject;
    rec.add({
      type: 'reaction',
      mode: 'Event',
      name: e.reason ?? 'Event',
      message: e.message,
      object: o ? `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}` : undefined,
      warning: e.type === 'Warning',
    });
  };
  const podObject = (p: Pod) => `Pod ${p.metadata?.namespace}/${p.metadata?.name}`;
  return {
    async start() {
      events.start();
      pods.start();
      nodes.start();
      await Promise.all([events.waitForSync(), pods.waitForSync(), nodes.waitForSync()]);
      for (const e of events.cache.list()) seenEvents.set(`${e.metadata?.namespace}/${e.metadata?.name}`, e.count ?? e.series?.count ?? 1);
      // Registered after the first list: what existed before the run is not a reaction.
      events.on({ add: eventAdded, update: (_o, e) => eventAdded(e) });
      pods.on({
        add: (p) => {
          if (p.metadata?.creationTimestamp && Date.parse(p.metadata.creationTimestamp) < rec.startedAt - 1000) return;
          rec.add({ type: 'reaction', mode: 'Pod', name: 'PodCreated', object: podObject(p), warning: false });
        },
        update: (old, cur) => {
          const c = podChange(old, cur);
          if (c)
            rec.add({
              type: 'reaction',
              mode: 'Pod',
              name: c.name,
              object: podObject(cur),
              message: cur.spec?.nodeName,
              warning: c.warning,
            });
        },
        delete: (p) => rec.add({ type: 'reaction', mode: 'Pod', name: 'PodDeleted', object: podObject(p), warning: false }),
      });
      nodes.on({
        update: (old, cur) => {
          const c = nodeChange(old, cur);
          if (c)
            rec.add({
              type: 'reaction',
              mode: 'Node',
              name: c.name,
              object: `Node ${cur.metadata?.name}`,
              message: c.message,
              warning: c.warning,
            });
        },
      });
    },
    stop() {
      events.stop();
      pods.stop();
      nodes.stop();
    },
  };
}
