// A scheduler without an apiserver, for unit tests: a ClusterCache filled
// with Nodes and bound Pods, and a Profile built from named plugins, so a
// table of cases can ask "where does this Pod go, and why not elsewhere".
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { ClusterCache } from '../cache.ts';
import { fitErrorMessage } from '../framework/diagnosis.ts';
import { Profile } from '../framework/profile.ts';
import type { Handle, PluginArgs } from '../framework/types.ts';
import { PLUGINS } from '../plugins/registry.ts';
import { matchesLabels, selectorFromSet, type LabelSelector } from '../../shared/labels/index.ts';

/** What a harness is built from. */
export interface HarnessOptions {
  nodes: Node[];
  /** Pods already bound (spec.nodeName set). */
  pods?: Pod[];
  /** [plugin, score weight (0: filter only)] */
  plugins: [string, number, PluginArgs?][];
  /** Service selectors, for default topology spreading. */
  services?: Record<string, string>[];
  namespaces?: Record<string, Record<string, string>>;
  percentageOfNodesToScore?: number;
}

/** A cache and a profile ready to schedule. */
export function harness(o: HarnessOptions) {
  const cache = new ClusterCache();
  for (const n of o.nodes) cache.addOrUpdateNode(n);
  for (const p of o.pods ?? []) cache.addOrUpdatePod(p);
  for (const [ns, labels] of Object.entries(o.namespaces ?? {})) cache.namespaceLabels.set(ns, labels);
  const handle: Handle = {
    cache,
    namespaceLabels: (ns) => cache.namespaceLabels.get(ns),
    defaultSelectorsFor: (pod) => {
      const out: LabelSelector[] = [];
      for (const s of o.services ?? []) {
        const sel = selectorFromSet(s);
        if (matchesLabels(sel, pod.metadata?.labels ?? {})) out.push(sel);
      }
      return out;
    },
  };
  const filters = [];
  const scorers = [];
  for (const [name, weight, args] of o.plugins) {
    const plugin = PLUGINS[name](handle, args ?? {});
    if (plugin.filter || plugin.preFilter) filters.push(plugin);
    if (weight > 0) scorers.push({ plugin, weight });
  }
  let seed = 1;
  const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
  const profile = new Profile(
    { schedulerName: 'test', filters, scorers, percentageOfNodesToScore: o.percentageOfNodesToScore ?? 0, preemption: false },
    cache,
    undefined,
    undefined,
    random,
  );
  return {
    cache,
    profile,
    /** Schedules `pod`: the chosen node (or undefined) and kube's message when none fits. */
    schedule(pod: Pod) {
      const r = profile.schedule(pod);
      return { node: r.node, message: r.node ? undefined : fitErrorMessage(r.numAllNodes, r.diagnosis), result: r };
    },
    /** The score each feasible node gets from the profile's scorers (node -> total). */
    scores(pod: Pod): Record<string, number> {
      const r = profile.schedule(pod);
      const out: Record<string, number> = {};
      for (const s of r.top) out[s.node] = s.total;
      return out;
    },
  };
}
