// Which backend ksim's ingress-nginx sends a request to: the Ingresses of its
// class (spec.ingressClassName, the kubernetes.io/ingress.class annotation,
// or none when its IngressClass is the default), the server of the request's
// host (an exact host, then a wildcard one, then the rules without a host),
// the longest matching path of that server (Exact over Prefix on a tie;
// Prefix by path segments as the Ingress API defines it; ImplementationSpecific
// as Prefix), then that server's default backend. With ingress-nginx's
// rewrite-target annotation the paths are regular expressions and the URI
// is rewritten as nginx's `rewrite` does. Pure.
import type { HTTPIngressPath, Ingress, IngressBackend, IngressClass } from 'kubernetes-types/networking/v1.js';

/** The controller name ksim's ingress-nginx answers for (IngressClass spec.controller). */
export const CONTROLLER_NAME = 'k8s.io/ingress-nginx';
const DEFAULT_CLASS = 'ingressclass.kubernetes.io/is-default-class';
const CLASS_ANNOTATION = 'kubernetes.io/ingress.class';
const REWRITE = 'nginx.ingress.kubernetes.io/rewrite-target';
const USE_REGEX = 'nginx.ingress.kubernetes.io/use-regex';

/** Where a request goes. */
export interface Route {
  ingress: Ingress;
  backend: IngressBackend;
  /** The path sent to the backend (rewritten or as requested). */
  path: string;
}

/** The classes this controller owns. */
function ourClasses(classes: IngressClass[]): IngressClass[] {
  return classes.filter((c) => c.spec?.controller === CONTROLLER_NAME);
}

/** True when the controller serves this Ingress. */
export function isOurs(ing: Ingress, classes: IngressClass[]): boolean {
  const ours = ourClasses(classes);
  const name = ing.spec?.ingressClassName ?? ing.metadata?.annotations?.[CLASS_ANNOTATION];
  if (name) return ours.some((c) => c.metadata?.name === name);
  return ours.some((c) => c.metadata?.annotations?.[DEFAULT_CLASS] === 'true');
}

/** Segments of a path, as the Ingress API's Prefix match splits it (empty elements ignored). */
function segments(p: string): string[] {
  return p.split('/').filter((s) => s !== '');
}

/** Whether `reqPath` matches a rule path of this type. */
export function pathMatches(type: string | undefined, rulePath: string, reqPath: string): boolean {
  if (type === 'Exact') return rulePath === reqPath;
  const rule = segments(rulePath);
  const req = segments(reqPath);
  return rule.length <= req.length && rule.every((s, i) => s === req[i]);
}

/** The matching length of a rule path (longest wins). */
const weight = (p: string) => segments(p).join('/').length + (p.startsWith('/') ? 1 : 0);

function regexMatch(rulePath: string, reqPath: string): RegExpExecArray | null {
  try {
    return new RegExp(`^${rulePath}`, 'i').exec(reqPath);
  } catch {
    return null;
  }
}

/** A host rule's fit: 2 exact, 1 wildcard (one label), 0 none. */
function hostFit(ruleHost: string, host: string): number {
  if (ruleHost === host) return 2;
  if (ruleHost.startsWith('*.')) {
    const rest = ruleHost.slice(1);
    return host.endsWith(rest) && !host.slice(0, -rest.length).includes('.') && host.length > rest.length ? 1 : 0;
  }
  return 0;
}

const byAge = (a: Ingress, b: Ingress) =>
  (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? '') ||
  `${a.metadata?.namespace}/${a.metadata?.name}`.localeCompare(`${b.metadata?.namespace}/${b.metadata?.name}`);

/** The backend for a request to `hostHeader` + `reqPath`, or undefined (nginx's default server answers 404). */
export function route(ingresses: Ingress[], classes: IngressClass[], hostHeader: string, reqPath: string): Route | undefined {
  const host = hostHeader.replace(/:\d+$/, '').toLowerCase();
  const ours = ingresses.filter((i) => isOurs(i, classes)).sort(byAge);
  // The server: every rule for the best-fitting host, over all Ingresses (ingress-nginx merges them).
  let best = 0;
  for (const ing of ours) for (const r of ing.spec?.rules ?? []) if (r.host) best = Math.max(best, hostFit(r.host, host));
  const rules = ours.flatMap((ing) =>
    (ing.spec?.rules ?? [])
      .filter((r) => (best === 0 ? !r.host : !!r.host && hostFit(r.host, host) === best))
      .map((r) => ({ ing, rule: r })),
  );
  let chosen: { ing: Ingress; p: HTTPIngressPath; w: number; exact: boolean; m?: RegExpExecArray } | undefined;
  for (const { ing, rule } of rules) {
    const regex = !!ing.metadata?.annotations?.[REWRITE] || ing.metadata?.annotations?.[USE_REGEX] === 'true';
    for (const p of rule.http?.paths ?? []) {
      const rulePath = p.path || '/';
      const m = regex ? regexMatch(rulePath, reqPath) : null;
      if (regex ? !m : !pathMatches(p.pathType, rulePath, reqPath)) continue;
      const w = weight(rulePath);
      const exact = p.pathType === 'Exact';
      if (!chosen || w > chosen.w || (w === chosen.w && exact && !chosen.exact)) chosen = { ing, p, w, exact, m: m ?? undefined };
    }
  }
  if (chosen) {
    const target = chosen.ing.metadata?.annotations?.[REWRITE];
    const m = chosen.m;
    const path = target && m ? target.replace(/\$(\d)/g, (_, n: string) => m[Number(n)] ?? '') : reqPath;
    return { ingress: chosen.ing, backend: chosen.p.backend, path: path || '/' };
  }
  // The server's default backend: the first Ingress of that server that has one, else any Ingress's for the catch-all server.
  const candidates = best === 0 ? ours : [...new Set(rules.map((r) => r.ing))];
  const withDefault = candidates.find((i) => i.spec?.defaultBackend);
  return withDefault ? { ingress: withDefault, backend: withDefault.spec!.defaultBackend!, path: reqPath } : undefined;
}
