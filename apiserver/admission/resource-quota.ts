// kube's ResourceQuota admission: a write that grows what its namespace
// uses is checked against every ResourceQuota there and charged to their
// status.used. kube charges with an optimistic update of each quota before
// the object is stored; ksim has one store and one writer, so the charge is
// sequenced with the object's own write and lands in the same atomic batch
// (the plugin runs inside the object's transaction). A write refused after
// the charge (by validation, or a lost race) leaves it charged, as in kube,
// until the resource quota controller recomputes the usage.
import type { Pod, ResourceQuota } from 'kubernetes-types/core/v1.js';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import { cmpQuantity, formatQuantity } from '../registry/kinds/quantity.ts';
import type { Store } from '../storage/store.ts';
import type { StoredObject } from '../storage/types.ts';
import type { AdmissionPlugin } from './types.ts';
import { admissionForbidden, isCore } from './common.ts';
import {
  addUsage,
  containerUsage,
  growth,
  prettyPrint,
  quantity,
  quotaMatches,
  REQUIRED_PER_CONTAINER,
  total,
  usageOf,
  type Usage,
} from './quota-usage.ts';
import { apiserverWrite } from '../handlers/write-record.ts';

const QUOTA_CHARGE = { writer: apiserverWrite('resourcequota-admission', 'update') };

export const QUOTAS_BUCKET = '/registry/core/resourcequotas';

/** kube's pod evaluator Constraints: each container must state every compute resource the quota limits. */
export function missingCompute(pod: Pod, hard: string[]): string | undefined {
  const required = hard.filter((h) => REQUIRED_PER_CONTAINER.has(h));
  if (required.length === 0) return undefined;
  const missing = new Map<string, Set<string>>();
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    const has = containerUsage(c);
    for (const r of required) if (!has.has(r)) (missing.get(r) ?? missing.set(r, new Set()).get(r)!).add(c.name);
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}

/** The quota after charging `delta`, or the reason it refuses; undefined when the quota does not limit any of it. */
export function charge(
  quota: ResourceQuota,
  delta: Usage,
  usedNow: (name: string) => string | undefined,
): { quota: ResourceQuota } | { refused: string } | undefined {
  const hard = quota.spec?.hard ?? {};
  const names = Object.keys(hard).filter((k) => delta.has(k));
  if (names.length === 0) return undefined;
  const used: Record<string, string> = { ...(quota.status?.used ?? {}) };
  for (const k of names) used[k] ??= usedNow(k) ?? '0';
  const next = addUsage(new Map(names.map((k) => [k, quantity(used[k])!])), new Map(names.map((k) => [k, delta.get(k)!])));
  const exceeded = names.filter((k) => cmpQuantity(next.get(k)!, quantity(hard[k])!) > 0);
  const qname = quota.metadata?.name ?? '';
  if (exceeded.length) {
    return {
      refused: `exceeded quota: ${qname}, requested: ${prettyPrint(delta, exceeded)}, used: ${prettyPrint(used, exceeded)}, limited: ${prettyPrint(hard, exceeded)}`,
    };
  }
  const out = structuredClone(quota);
  out.status = { hard: { ...hard }, used: { ...used } };
  for (const k of names) out.status.used![k] = formatQuantity(next.get(k)!);
  return { quota: out };
}

/** ResourceQuota admission over `store`. */
export function resourceQuota(store: Store): AdmissionPlugin {
  const any = (ns: string) => ns !== '' && store.keys(QUOTAS_BUCKET, `${QUOTAS_BUCKET}/${ns}/`).length > 0;

  /** The latest version of a key, pending writes included: a transaction that changes nothing. */
  function latest(key: string): ResourceQuota | undefined {
    let found: ResourceQuota | undefined;
    store
      .txn(key, (cur) => {
        found = cur as ResourceQuota | undefined;
        return undefined;
      })
      .catch(() => {});
    return found;
  }

  /** What the stored objects of `rt` in `ns` that `quota` selects use, for a quota that has no usage yet. */
  function usedFromStore(rt: ResourceType, ns: string, quota: ResourceQuota, name: string, self: string): string {
    const items = store
      .list({ bucket: rt.storagePrefix, keyPrefix: `${rt.storagePrefix}/${ns}/` })
      .items.map((j) => JSON.parse(j) as StoredObject);
    const usages = items
      .filter((o) => o.metadata.name !== self && quotaMatches(quota, rt.group, rt.plural, o))
      .map((o) => usageOf(rt.group, rt.plural, o));
    return formatQuantity(total(usages, [name]).get(name)!);
  }

  return {
    name: 'ResourceQuota',
    // The charge is written with the object: in the same transaction.
    transactional: true,
    wanted: (rt, attrs) => attrs.operation !== 'DELETE' && any(attrs.namespace),
    validate(op, rt, obj, old, attrs) {
      // Quota counts objects, not their subresources (a Pod's status, a scale).
      if ((op !== 'CREATE' && op !== 'UPDATE') || attrs?.subresource) return;
      const ns = obj.metadata?.namespace ?? '';
      if (!rt.namespaced || !any(ns)) return;
      const name = obj.metadata?.name ?? '';
      const keys = store.keys(QUOTAS_BUCKET, `${QUOTAS_BUCKET}/${ns}/`);
      const delta = growth(usageOf(rt.group, rt.plural, obj), old ? usageOf(rt.group, rt.plural, old) : undefined);
      const charged: Array<[string, ResourceQuota]> = [];
      for (const key of keys) {
        const quota = latest(key);
        if (!quota || !quotaMatches(quota, rt.group, rt.plural, obj)) continue;
        if (op === 'CREATE' && isCore(rt, 'pods')) {
          const missing = missingCompute(obj as Pod, Object.keys(quota.spec?.hard ?? {}));
          if (missing) throw admissionForbidden(rt, name, `failed quota: ${quota.metadata?.name}: ${missing}`);
        }
        if (delta.size === 0) continue;
        const res = charge(quota, delta, (k) => usedFromStore(rt, ns, quota, k, name));
        if (!res) continue;
        if ('refused' in res) throw admissionForbidden(rt, name, res.refused);
        charged.push([key, res.quota]);
      }
      // Every quota admits the write: only now is any of them charged (not on a dry run).
      if (attrs?.dryRun) return;
      for (const [key, quota] of charged) {
        store
          .txn(
            key,
            (cur) => {
              // Nothing ran between the read above and this write: `cur` is what was checked.
              if (!cur) return undefined;
              quota.metadata = cur.metadata;
              return quota;
            },
            QUOTA_CHARGE,
          )
          .catch(() => {});
      }
    },
  };
}
