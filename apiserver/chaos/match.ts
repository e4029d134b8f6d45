// Which requests a fault applies to: shared/chaos/protocol.ts RequestMatch
// against what a request is (its client, its user after impersonation, its
// kube verb and resource). Every field the match gives must hold.
import type { RequestMatch } from '../../shared/chaos/protocol.ts';

/** What a request is, as far as a fault's match looks at it. */
export interface RequestTarget {
  /** The User-Agent header, when the request sent one. */
  userAgent?: string;
  /** The user the request acts as (the impersonated one when it impersonates). */
  user?: string;
  /** kube verb: get list watch create update patch delete deletecollection. */
  verb: string;
  /** Resource plural, e.g. pods. */
  resource: string;
  /** Subresource, e.g. status; '' for the resource itself. */
  subresource?: string;
}

const VERBS = new Set(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * Checks a match as it arrives on the control channel; returns it with only
 * the fields it gives. Throws an Error naming the field that is wrong.
 */
export function checkMatch(raw: unknown, where = 'match'): RequestMatch | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${where}: must be an object`);
  const m = raw as Record<string, unknown>;
  const out: RequestMatch = {};
  for (const field of ['userAgent', 'user', 'verb', 'resource'] as const) {
    const v = m[field];
    if (v === undefined || v === null || v === '') continue;
    if (typeof v !== 'string') throw new Error(`${where}.${field}: must be a string`);
    out[field] = v;
  }
  const unknown = Object.keys(m).filter((k) => !['userAgent', 'user', 'verb', 'resource'].includes(k));
  if (unknown.length > 0) throw new Error(`${where}.${unknown[0]}: unknown field (known: userAgent, user, verb, resource)`);
  if (out.verb !== undefined && !VERBS.has(out.verb))
    throw new Error(`${where}.verb: "${out.verb}" is not a kube verb (${[...VERBS].join(', ')})`);
  if (out.resource !== undefined && !/^[a-z0-9.-]+(\/[a-z0-9-]+)?$/.test(out.resource))
    throw new Error(`${where}.resource: "${out.resource}" must be a resource plural, optionally with /subresource`);
  return out;
}

/**
 * True when `target` is a request `match` names. A resource names the
 * resource itself ("pods" is not "pods/status"), as RBAC has it; a user or
 * user agent the request did not show never matches one that is asked for.
 */
export function matches(match: RequestMatch | undefined, target: RequestTarget): boolean {
  if (!match) return true;
  if (match.verb !== undefined && match.verb !== target.verb) return false;
  if (match.resource !== undefined) {
    const resource = target.subresource ? `${target.resource}/${target.subresource}` : target.resource;
    if (match.resource !== resource) return false;
  }
  if (match.user !== undefined && match.user !== target.user) return false;
  if (match.userAgent !== undefined && !(target.userAgent ?? '').startsWith(match.userAgent)) return false;
  if (match.userAgent !== undefined && target.userAgent === undefined) return false;
  return true;
}
