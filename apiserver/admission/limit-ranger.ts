// kube's LimitRanger admission: the LimitRanges of a namespace default the
// requests and limits of a new Pod's containers (default, defaultRequest)
// and bound Containers, Pods and PersistentVolumeClaims (min, max,
// maxLimitRequestRatio), with kube's messages.
import type { Container, LimitRange, LimitRangeItem, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { addQuantity, cmpQuantity, formatQuantity, parseQuantity, type Quantity } from '../registry/kinds/quantity.ts';
import type { Store } from '../storage/store.ts';
import type { AdmissionPlugin } from './types.ts';
import { admissionForbidden, aggregate, isCore, NamespacedObjects } from './common.ts';

type List = Record<string, string>;
const LIMIT_RANGES = '/registry/core/limitranges';
const ANNOTATION = 'kubernetes.io/limit-ranger';

function q(v: unknown): Quantity | undefined {
  const p = parseQuantity(v);
  return typeof p === 'string' ? undefined : p;
}

/** A Container item's defaults as kube's LimitRange defaulting completes them (default from max, defaultRequest from default or min). */
function containerDefaults(item: LimitRangeItem): { limits: List; requests: List } {
  const limits: List = { ...(item.max as List), ...(item.default as List) };
  const requests: List = { ...(item.min as List), ...limits, ...(item.defaultRequest as List) };
  return { limits, requests };
}

/** Fills a new Pod's containers from the Container items' default and defaultRequest; the annotation kube writes, or ''. */
export function applyDefaults(pod: Pod, items: LimitRangeItem[]): string {
  const limits: List = {};
  const requests: List = {};
  for (const item of items) {
    if (item.type !== 'Container') continue;
    const d = containerDefaults(item);
    Object.assign(limits, d.limits);
    Object.assign(requests, d.requests);
  }
  if (Object.keys(limits).length + Object.keys(requests).length === 0) return '';
  const notes: string[] = [];
  const fill = (c: Container) => {
    const res = (c.resources ??= {});
    const setReq: string[] = [];
    const setLim: string[] = [];
    for (const [k, v] of Object.entries(limits)) {
      if (res.limits?.[k] !== undefined) continue;
      (res.limits ??= {})[k] = v;
      setLim.push(k);
    }
    for (const [k, v] of Object.entries(requests)) {
      if (res.requests?.[k] !== undefined) continue;
      (res.requests ??= {})[k] = v;
      setReq.push(k);
    }
    if (setReq.length) notes.push(`${setReq.join(', ')} request for container ${c.name}`);
    if (setLim.length) notes.push(`${setLim.join(', ')} limit for container ${c.name}`);
  };
  for (const c of pod.spec?.containers ?? []) fill(c);
  for (const c of pod.spec?.initContainers ?? []) fill(c);
  return notes.length ? `LimitRanger plugin set: ${notes.join('; ')}` : '';
}

const str = (v: unknown) => {
  const p = q(v);
  return p ? formatQuantity(p) : String(v);
};

function minConstraint(type: string, r: string, min: unknown, req: List, lim: List, errs: string[]): void {
  const enforced = q(min)!;
  if (req[r] === undefined) return void errs.push(`minimum ${r} usage per ${type} is ${str(min)}.  No request is specified`);
  if (cmpQuantity(q(req[r])!, enforced) < 0)
    return void errs.push(`minimum ${r} usage per ${type} is ${str(min)}, but request is ${str(req[r])}`);
  if (lim[r] !== undefined && cmpQuantity(q(lim[r])!, enforced) < 0)
    errs.push(`minimum ${r} usage per ${type} is ${str(min)}, but limit is ${str(lim[r])}`);
}

function maxConstraint(type: string, r: string, max: unknown, req: List, lim: List, errs: string[]): void {
  const enforced = q(max)!;
  if (lim[r] === undefined) return void errs.push(`maximum ${r} usage per ${type} is ${str(max)}.  No limit is specified`);
  if (cmpQuantity(q(lim[r])!, enforced) > 0)
    return void errs.push(`maximum ${r} usage per ${type} is ${str(max)}, but limit is ${str(lim[r])}`);
  if (req[r] !== undefined && cmpQuantity(q(req[r])!, enforced) > 0)
    errs.push(`maximum ${r} usage per ${type} is ${str(max)}, but request is ${str(req[r])}`);
}

function maxRequestConstraint(type: string, r: string, max: unknown, req: List, errs: string[]): void {
  if (req[r] === undefined) return void errs.push(`maximum ${r} usage per ${type} is ${str(max)}.  No request is specified`);
  if (cmpQuantity(q(req[r])!, q(max)!) > 0) errs.push(`maximum ${r} usage per ${type} is ${str(max)}, but request is ${str(req[r])}`);
}

const toNumber = (x: Quantity) => Number(x.mant) * 10 ** x.exp;

function ratioConstraint(type: string, r: string, ratio: unknown, req: List, lim: List, errs: string[]): void {
  const rq = req[r] === undefined ? undefined : q(req[r]);
  const lq = lim[r] === undefined ? undefined : q(lim[r]);
  const shown = str(ratio);
  if (!rq || rq.mant === 0n)
    return void errs.push(`${r} max limit to request ratio per ${type} is ${shown}, but no request is specified or request is 0`);
  if (!lq || lq.mant === 0n)
    return void errs.push(`${r} max limit to request ratio per ${type} is ${shown}, but no limit is specified or limit is 0`);
  const observed = toNumber(lq) / toNumber(rq);
  if (observed > toNumber(q(ratio)!))
    errs.push(`${r} max limit to request ratio per ${type} is ${shown}, but provided ratio is ${observed.toFixed(6)}`);
}

function bound(type: string, item: LimitRangeItem, req: List, lim: List, errs: string[]): void {
  for (const [r, v] of Object.entries(item.min ?? {})) minConstraint(type, r, v, req, lim, errs);
  for (const [r, v] of Object.entries(item.max ?? {})) maxConstraint(type, r, v, req, lim, errs);
  for (const [r, v] of Object.entries(item.maxLimitRequestRatio ?? {})) ratioConstraint(type, r, v, req, lim, errs);
}

/** The Pod's total requests or limits: the sum of its containers, at least the largest init container (kube's podRequests). */
function podTotal(pod: Pod, which: 'requests' | 'limits'): List {
  const sum = new Map<string, Quantity>();
  for (const c of pod.spec?.containers ?? []) {
    for (const [k, v] of Object.entries(c.resources?.[which] ?? {})) {
      const x = q(v);
      if (x) sum.set(k, sum.has(k) ? addQuantity(sum.get(k)!, x) : x);
    }
  }
  for (const c of pod.spec?.initContainers ?? []) {
    for (const [k, v] of Object.entries(c.resources?.[which] ?? {})) {
      const x = q(v);
      if (x && (!sum.has(k) || cmpQuantity(x, sum.get(k)!) > 0)) sum.set(k, x);
    }
  }
  return Object.fromEntries([...sum].map(([k, v]) => [k, formatQuantity(v)]));
}

/** The messages of every bound `items` sets that the Pod breaks. */
export function podViolations(pod: Pod, items: LimitRangeItem[]): string[] {
  const errs: string[] = [];
  for (const item of items) {
    if (item.type === 'Container') {
      for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])])
        bound('Container', item, c.resources?.requests ?? {}, c.resources?.limits ?? {}, errs);
    } else if (item.type === 'Pod') {
      bound('Pod', item, podTotal(pod, 'requests'), podTotal(pod, 'limits'), errs);
    }
  }
  return errs;
}

/** The messages of every bound the PersistentVolumeClaim breaks. */
export function claimViolations(pvc: PersistentVolumeClaim, items: LimitRangeItem[]): string[] {
  const errs: string[] = [];
  const req = pvc.spec?.resources?.requests ?? {};
  for (const item of items) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [r, v] of Object.entries(item.min ?? {})) minConstraint('PersistentVolumeClaim', r, v, req, {}, errs);
    for (const [r, v] of Object.entries(item.max ?? {})) maxRequestConstraint('PersistentVolumeClaim', r, v, req, errs);
  }
  return errs;
}

/** LimitRanger, reading the LimitRanges from `store`. */
export function limitRanger(store: Store): AdmissionPlugin {
  const ranges = new NamespacedObjects<LimitRange>(store, LIMIT_RANGES);
  const items = (ns: string) => ranges.list(ns).flatMap((lr) => lr.spec?.limits ?? []);
  const applies = (rt: { group: string; plural: string }) => isCore(rt, 'pods') || isCore(rt, 'persistentvolumeclaims');
  return {
    name: 'LimitRanger',
    contextual: true,
    appliesTo: applies,
    wanted: (rt, attrs) => attrs.operation === 'CREATE' && ranges.any(attrs.namespace),
    admit(op, rt, obj) {
      if (op !== 'CREATE' || !isCore(rt, 'pods')) return;
      const pod = obj as Pod;
      const note = applyDefaults(pod, items(pod.metadata?.namespace ?? ''));
      if (!note) return;
      (pod.metadata!.annotations ??= {})[ANNOTATION] = note;
      return true;
    },
    validate(op, rt, obj) {
      if (op !== 'CREATE') return;
      const ns = obj.metadata?.namespace ?? '';
      const errs = isCore(rt, 'pods') ? podViolations(obj as Pod, items(ns)) : claimViolations(obj as PersistentVolumeClaim, items(ns));
      if (errs.length) throw admissionForbidden(rt, obj.metadata?.name ?? '', aggregate(errs));
    },
  };
}
