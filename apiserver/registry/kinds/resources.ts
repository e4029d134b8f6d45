// Resource names and quantities as core validation checks them: container
// resources (requests <= limits, extended resources not overcommitted),
// quota and limit-range resource names, integer-only resources.
import { isObject } from '../../../shared/patch/go-format.ts';
import { isLabelKey } from '../../../shared/labels/index.ts';
import { child, fe, index, sortedKeys, type FieldError } from './field.ts';
import type { ResourceClaim, ResourceRequirements } from 'kubernetes-types/core/v1.js';
import { cmpQuantity, formatQuantity, isInteger, parseQuantity, type Quantity } from './quantity.ts';

const STANDARD = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'storage',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
]);
const STANDARD_QUOTA = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.storage',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'persistentvolumeclaims',
  'configmaps',
  'services.nodeports',
  'services.loadbalancers',
]);
const INTEGER = new Set([
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

const isHugePages = (n: string) => n.startsWith('hugepages-');
/** `IsNativeResource`: unprefixed or in kubernetes.io. */
export const isNativeResource = (n: string) => !n.includes('/') || n.includes('kubernetes.io/');
/** `IsExtendedResourceName`. */
export function isExtendedResource(n: string): boolean {
  if (isNativeResource(n) || n.startsWith('requests.')) return false;
  return isLabelKey(`requests.${n}`).length === 0;
}
/** `IsOvercommitAllowed`: native resources other than hugepages. */
export const isOvercommitAllowed = (n: string) => isNativeResource(n) && !isHugePages(n);
const isStandardResource = (n: string) => STANDARD.has(n) || isHugePages(n) || n.startsWith('requests.hugepages-');
const isIntegerResource = (n: string) => INTEGER.has(n) || isExtendedResource(n);

/** `validateResourceName`. */
export function validateResourceName(name: string, path: string): FieldError[] {
  const errs = isLabelKey(name).map((m) => fe.invalid(path, name, m));
  if (errs.length > 0) return errs;
  if (!name.includes('/') && !isStandardResource(name))
    errs.push(fe.invalid(path, name, 'must be a standard resource type or fully qualified'));
  return errs;
}

/** `validateContainerResourceName`. */
export function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/')) {
    if (!(name === 'cpu' || name === 'memory' || name === 'ephemeral-storage' || isHugePages(name))) {
      errs.push(fe.invalid(path, name, 'must be a standard resource for containers'));
    }
  } else if (!isNativeResource(name) && !isExtendedResource(name)) {
    errs.push(fe.invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** `ValidateResourceQuotaResourceName`. */
export function validateQuotaResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/') && !(STANDARD_QUOTA.has(name) || name.startsWith('requests.hugepages-'))) {
    errs.push(fe.invalid(path, name, 'must be a standard resource for quota'));
  }
  return errs;
}

/**
 * Parses a quantity at `path`, reporting kube's decode error as a field
 * error (kube itself answers 400 for an unparseable quantity).
 */
export function quantityAt(value: unknown, path: string, errs: FieldError[]): Quantity | undefined {
  const q = parseQuantity(value);
  if (typeof q === 'string') {
    errs.push(fe.invalid(path, typeof value === 'string' ? value : String(value), q));
    return undefined;
  }
  return q;
}

/** `ValidateResourceQuantityValue`: non-negative, and whole for integer resources. */
export function validateQuantityValue(name: string, q: Quantity, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (q.mant < 0n) errs.push(fe.invalid(path, formatQuantity(q), 'must be greater than or equal to 0'));
  if (isIntegerResource(name) && !isInteger(q)) errs.push(fe.invalid(path, formatQuantity(q), 'must be an integer'));
  return errs;
}

/** Every entry of a ResourceList parsed, with name and value checks; returns the parsed list. */
export function validateResourceList(
  list: unknown,
  path: string,
  nameCheck: (name: string, path: string) => FieldError[],
  errs: FieldError[],
): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  for (const k of sortedKeys(list)) {
    const p = index(path, k);
    errs.push(...nameCheck(k, p));
    const q = quantityAt((list as Record<string, unknown>)[k], p, errs);
    if (!q) continue;
    errs.push(...validateQuantityValue(k, q, p));
    out.set(k, q);
  }
  return out;
}

/** Container resources, with a claim's `request` (Kubernetes 1.31, newer than kubernetes-types). */
export type ResourceRequirementsJSON = Omit<ResourceRequirements, 'claims'> & { claims?: (ResourceClaim & { request?: string })[] };

/** `ValidateContainerResourceRequirements` (claims are checked against the pod's resourceClaims). */
export function validateResourceRequirements(
  req: ResourceRequirementsJSON | undefined,
  path: string,
  podClaimNames: Set<string>,
  nameCheck: (name: string, path: string) => FieldError[] = validateContainerResourceName,
): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(req)) return errs;
  const limPath = child(path, 'limits');
  const reqPath = child(path, 'requests');
  const limits = validateResourceList(req.limits, limPath, nameCheck, errs);
  const requests = validateResourceList(req.requests, reqPath, nameCheck, errs);
  let cpuOrMemory = false;
  let hugePages = false;
  for (const [name] of limits) {
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
    if (isHugePages(name)) hugePages = true;
  }
  for (const [name, q] of requests) {
    const lim = limits.get(name);
    if (lim) {
      if (cmpQuantity(q, lim) !== 0 && !isOvercommitAllowed(name)) {
        errs.push(fe.invalid(reqPath, formatQuantity(q), `must be equal to ${name} limit of ${formatQuantity(lim)}`));
      } else if (cmpQuantity(q, lim) > 0) {
        errs.push(fe.invalid(reqPath, formatQuantity(q), `must be less than or equal to ${name} limit of ${formatQuantity(lim)}`));
      }
    } else if (!isOvercommitAllowed(name)) {
      errs.push(fe.required(limPath, 'Limit must be set for non overcommitable resources'));
    }
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
    if (isHugePages(name)) hugePages = true;
  }
  if (!cpuOrMemory && hugePages) errs.push(fe.forbidden(path, 'HugePages require cpu or memory'));
  const claims = Array.isArray(req.claims) ? req.claims : [];
  const seen = new Set<string>();
  claims.forEach((c, i) => {
    const p = index(child(path, 'claims'), i);
    const name = String(c?.name ?? '');
    if (!name) {
      errs.push(fe.required(p));
      return;
    }
    const key = c?.request ? `${name}/${c.request}` : name;
    if (seen.has(key)) errs.push(fe.duplicate(p, key));
    seen.add(key);
    if (!podClaimNames.has(name)) {
      const detail = podClaimNames.size === 0 ? ' which is empty' : `: ${[...podClaimNames].sort().join(', ')}`;
      errs.push({
        ...fe.notFound(p, name),
        message: `${p}: Not found: ${JSON.stringify(name)}: must be one of the names in pod.spec.resourceClaims${detail}`,
      });
    }
  });
  return errs;
}
