// core/v1 ComponentStatus (deprecated since v1.19): computed on every GET or
// LIST, never stored, as kube's componentstatus REST storage does. kube asks
// the scheduler's and controller-manager's /healthz and etcd's health; ksim
// has no etcd and its components serve no fixed health port, so it reads
// what stands for them here:
//   scheduler, controller-manager  healthy while their leader Lease
//                                  (kube-system/kube-scheduler,
//                                  kube-system/kube-controller-manager) is
//                                  held and renewed within its duration
//   etcd-0                         healthy while ksim's store is (its /readyz
//                                  storage check)
// Answers carry kube's deprecation warning.
import { notFound } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import type { ResourceType } from '../../../shared/api/resource-type.ts';
import type { ApiContext, ApiRequest, ApiResponse } from '../../handlers/context.ts';
import { renderList, renderObject } from '../../http/views.ts';
import type { Store } from '../../storage/store.ts';
import { objectKey } from '../keys.ts';

/** The Warning kube sends with every ComponentStatus answer. */
export const COMPONENT_STATUS_WARNING = 'v1 ComponentStatus is deprecated in v1.19+';

/** The components kube reports, in its order, and the Lease standing for each one's health. */
const COMPONENTS: { name: string; lease?: string }[] = [
  { name: 'scheduler', lease: 'kube-scheduler' },
  { name: 'controller-manager', lease: 'kube-controller-manager' },
  { name: 'etcd-0' },
];

interface Health {
  healthy: boolean;
  message: string;
  error: string;
}

function leaseHealth(store: Store, leaseRt: ResourceType, lease: string, now: Date): Health {
  const entry = store.get(objectKey(leaseRt, 'kube-system', lease));
  if (!entry)
    return {
      healthy: false,
      message: '',
      error: `no kube-system/${lease} Lease: the component is not running (or runs without leader election)`,
    };
  const spec =
    (JSON.parse(entry.json) as { spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number } }).spec ?? {};
  const renewed = spec.renewTime ? Date.parse(spec.renewTime) : NaN;
  const duration = (spec.leaseDurationSeconds ?? 0) * 1000;
  if (!spec.holderIdentity || Number.isNaN(renewed) || renewed + duration < now.getTime()) {
    return { healthy: false, message: '', error: `the kube-system/${lease} Lease is not held or has expired` };
  }
  return { healthy: true, message: 'ok', error: '' };
}

function storeHealth(store: Store): Health {
  const h = store.health;
  return h.ok ? { healthy: true, message: 'ok', error: '' } : { healthy: false, message: '', error: `storage is failing: ${h.kind}` };
}

/** The ComponentStatus objects as kube serves them (no uid, no resourceVersion, a null creationTimestamp). */
export function componentStatuses(store: Store, now: Date): object[] {
  const leaseRt = findResource('coordination.k8s.io', 'v1', 'leases')!;
  return COMPONENTS.map(({ name, lease }) => {
    const h = lease ? leaseHealth(store, leaseRt, lease, now) : storeHealth(store);
    const condition: Record<string, string> = { type: 'Healthy', status: h.healthy ? 'True' : 'False' };
    if (h.message) condition.message = h.message;
    if (h.error) condition.error = h.error;
    return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name, creationTimestamp: null }, conditions: [condition] };
  });
}

/** Serves GET and LIST of componentstatuses (the only verbs the resource has). */
export function handleComponentStatus(ctx: ApiContext, r: ApiRequest): ApiResponse {
  const rt = r.info.resource;
  const now = ctx.now();
  const all = componentStatuses(ctx.store, now);
  const warnings = [COMPONENT_STATUS_WARNING];
  if (r.info.verb === 'get') {
    const obj = all.find((o) => (o as { metadata: { name: string } }).metadata.name === r.info.name);
    if (!obj) throw notFound({ group: '', resource: rt.plural }, r.info.name);
    return { status: 200, json: renderObject(r.view, rt, JSON.stringify(obj), r.query, now), warnings };
  }
  const items = all.map((o) => JSON.stringify(o));
  if (r.view !== 'object') return { status: 200, json: renderList(r.view, rt, { items, rev: 0 }, r.query, now), warnings };
  return { status: 200, json: `{"kind":"ComponentStatusList","apiVersion":"v1","metadata":{},"items":[${items.join(',')}]}`, warnings };
}
