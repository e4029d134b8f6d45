// What a ResourceQuota's status should be: status.hard is spec.hard, and
// status.used is, for each limited name, what the namespace's objects of
// the resource that name counts use now (kube's quota evaluators; see
// apiserver/admission/quota-usage.ts, which admission charges with). A name
// whose resource the controller does not watch keeps the value admission
// charged.
import type { ResourceQuota, ResourceQuotaStatus } from 'kubernetes-types/core/v1.js';
import { asList, quotaMatches, total, usageOf } from '../../../apiserver/admission/quota-usage.ts';

/** A watched resource: its group and plural. */
export interface Counted {
  group: string;
  plural: string;
}

const PODS_NAMES = /^(pods|cpu|memory|ephemeral-storage|requests\..+|limits\..+)$/;

/** The resource a quota name counts, or undefined when it is none the controller knows. */
export function resourceOfName(name: string): Counted | undefined {
  if (name === 'requests.storage' || name.includes('.storageclass.storage.k8s.io/')) return { group: '', plural: 'persistentvolumeclaims' };
  if (name.startsWith('services')) return { group: '', plural: 'services' };
  if (PODS_NAMES.test(name)) return { group: '', plural: 'pods' };
  if (['configmaps', 'secrets', 'persistentvolumeclaims', 'replicationcontrollers', 'resourcequotas'].includes(name))
    return { group: '', plural: name };
  if (name.startsWith('count/')) {
    const rest = name.slice('count/'.length);
    const dot = rest.indexOf('.');
    return dot < 0 ? { group: '', plural: rest } : { group: rest.slice(dot + 1), plural: rest.slice(0, dot) };
  }
  return undefined;
}

/** The status `quota` should have, given the objects of its namespace by resource (`group/plural`; absent when not watched). */
export function desiredStatus(quota: ResourceQuota, objectsOf: (r: Counted) => unknown[] | undefined): ResourceQuotaStatus {
  const hard = { ...(quota.spec?.hard ?? {}) } as Record<string, string>;
  const used: Record<string, string> = {};
  const previous = (quota.status?.used ?? {}) as Record<string, string>;
  for (const name of Object.keys(hard)) {
    const r = resourceOfName(name);
    const objects = r && objectsOf(r);
    if (!r || !objects) {
      if (previous[name] !== undefined) used[name] = previous[name];
      continue;
    }
    const usages = objects.filter((o) => quotaMatches(quota, r.group, r.plural, o)).map((o) => usageOf(r.group, r.plural, o));
    Object.assign(used, asList(total(usages, [name])));
  }
  return { hard, used };
}

/** Whether two statuses say the same (quantities already canonical on both sides). */
export function sameStatus(a: ResourceQuotaStatus | undefined, b: ResourceQuotaStatus): boolean {
  const eq = (x: Record<string, unknown> = {}, y: Record<string, unknown> = {}) =>
    Object.keys(x).length === Object.keys(y).length && Object.keys(x).every((k) => String(x[k]) === String(y[k]));
  return eq(a?.hard, b.hard) && eq(a?.used, b.used);
}
