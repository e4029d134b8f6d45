// The groups the apiserver serves beside its resource table (metrics.k8s.io,
// as metrics-server's APIService would, and ksim's history.ksim.io), added to
// the /apis discovery documents after every built-in group.
import { historyDiscovery } from './history-api/discovery.ts';
import { metricsDiscovery } from './metrics-api/discovery.ts';

/** Adds the groups to /apis: an APIGroupList or, when aggregated, an APIGroupDiscoveryList (`legacy` /api ones are left alone). */
export function withServedGroups<T extends object>(doc: T, legacy: boolean): T {
  if (legacy) return doc;
  const d = doc as { kind?: string; groups?: object[]; items?: object[] };
  if (d.kind === 'APIGroupList' && d.groups) return { ...doc, groups: [...d.groups, metricsDiscovery.entry(), historyDiscovery.entry()] };
  if (d.kind === 'APIGroupDiscoveryList' && d.items)
    return { ...doc, items: [...d.items, metricsDiscovery.groupDiscovery(), historyDiscovery.groupDiscovery()] };
  return doc;
}
