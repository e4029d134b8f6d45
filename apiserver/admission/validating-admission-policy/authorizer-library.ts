// kube's CEL authorizer library (k8s.io/apiserver/pkg/cel/library/authz.go)
// on cel-js: `authorizer.group('apps').resource('deployments')
// .namespace('ns').name('x').check('create').allowed()`, `.path('/healthz')
// .check('get')`, `.serviceAccount(ns, name)`, `authorizer.requestResource`
// (the request's own resource), and a decision's allowed(), reason(),
// errored() and error(). The checks ask the apiserver's authorizer with the
// attributes kube builds (apiVersion "*"). Field and label selectors on a
// check (fieldSelector(), labelSelector()) are not built.
import type { Environment } from '@marcbachmann/cel-js';
import type { Authorizer, AuthzAttributes } from '../../auth/authorizer-types.ts';
import { serviceAccountGroups, serviceAccountUsername, type UserInfo } from '../../auth/user-info.ts';

const T = {
  authorizer: 'kubernetes.authorization.Authorizer',
  path: 'kubernetes.authorization.PathCheck',
  group: 'kubernetes.authorization.GroupCheck',
  resource: 'kubernetes.authorization.ResourceCheck',
  decision: 'kubernetes.authorization.Decision',
} as const;

/** The type name of the `authorizer` variable. */
export const AUTHORIZER_TYPE = T.authorizer;

/** A decision: kube's authorizer.Decision with its reason. */
export class CelDecision {
  constructor(
    readonly allowed: boolean,
    readonly reason: string,
    readonly error: string,
  ) {}
}

/** The resource attributes a ResourceCheck has collected so far. */
export class ResourceCheck {
  constructor(
    readonly authz: CelAuthorizer,
    readonly attrs: Pick<AuthzAttributes, 'apiGroup' | 'resource' | 'subresource' | 'namespace' | 'name'>,
  ) {}
  with(change: Partial<ResourceCheck['attrs']>): ResourceCheck {
    return new ResourceCheck(this.authz, { ...this.attrs, ...change });
  }
}

/** `authorizer.group(g)`: a resource check waiting for its resource. */
export class GroupCheck {
  constructor(
    readonly authz: CelAuthorizer,
    readonly group: string,
  ) {}
}

/** `authorizer.path(p)`: a non-resource check. */
export class PathCheck {
  constructor(
    readonly authz: CelAuthorizer,
    readonly path: string,
  ) {}
}

/** The `authorizer` variable: who asks (the request's user, or a ServiceAccount) and whom to ask. */
export class CelAuthorizer {
  /** `authorizer.requestResource`: the request's own resource (set when the request has one). */
  requestResource?: ResourceCheck;

  constructor(
    readonly user: UserInfo,
    readonly authorizer: Authorizer,
  ) {}

  decide(attrs: AuthzAttributes): CelDecision {
    try {
      const r = this.authorizer.authorize(attrs);
      return new CelDecision(r.decision === 'allow', r.reason, '');
    } catch (err) {
      return new CelDecision(false, '', err instanceof Error ? err.message : String(err));
    }
  }
}

/** The `authorizer` value for a request by `user`; `request` is its own resource, for requestResource. */
export function celAuthorizer(user: UserInfo, authorizer: Authorizer, request?: ResourceCheck['attrs']): CelAuthorizer {
  const a = new CelAuthorizer(user, authorizer);
  if (request) a.requestResource = new ResourceCheck(a, request);
  return a;
}

const base = (user: UserInfo): Omit<AuthzAttributes, 'verb'> => ({
  user,
  resourceRequest: true,
  path: '',
  apiGroup: '',
  apiVersion: '*',
  resource: '',
  subresource: '',
  namespace: '',
  name: '',
});

/** Registers the authorizer types and functions on `env`. */
export function registerAuthorizerLibrary(env: Environment): Environment {
  env.registerType(T.decision, CelDecision);
  env.registerType(T.path, PathCheck);
  env.registerType(T.group, GroupCheck);
  env.registerType(T.resource, ResourceCheck);
  env.registerType(T.authorizer, { ctor: CelAuthorizer, fields: { requestResource: T.resource } });
  env.registerFunction(`${T.authorizer}.group(string): ${T.group}`, (a: CelAuthorizer, g: string) => new GroupCheck(a, g));
  env.registerFunction(`${T.authorizer}.path(string): ${T.path}`, (a: CelAuthorizer, p: string) => new PathCheck(a, p));
  env.registerFunction(
    `${T.authorizer}.serviceAccount(string, string): ${T.authorizer}`,
    (a: CelAuthorizer, ns: string, name: string) =>
      new CelAuthorizer({ username: serviceAccountUsername(ns, name), groups: serviceAccountGroups(ns) }, a.authorizer),
  );
  env.registerFunction(
    `${T.group}.resource(string): ${T.resource}`,
    (g: GroupCheck, r: string) => new ResourceCheck(g.authz, { apiGroup: g.group, resource: r, subresource: '', namespace: '', name: '' }),
  );
  env.registerFunction(`${T.resource}.subresource(string): ${T.resource}`, (c: ResourceCheck, s: string) => c.with({ subresource: s }));
  env.registerFunction(`${T.resource}.namespace(string): ${T.resource}`, (c: ResourceCheck, s: string) => c.with({ namespace: s }));
  env.registerFunction(`${T.resource}.name(string): ${T.resource}`, (c: ResourceCheck, s: string) => c.with({ name: s }));
  env.registerFunction(`${T.resource}.check(string): ${T.decision}`, (c: ResourceCheck, verb: string) =>
    c.authz.decide({ ...base(c.authz.user), ...c.attrs, verb }),
  );
  env.registerFunction(`${T.path}.check(string): ${T.decision}`, (c: PathCheck, verb: string) =>
    c.authz.decide({ ...base(c.authz.user), resourceRequest: false, path: c.path, apiVersion: '', verb: verb.toLowerCase() }),
  );
  env.registerFunction(`${T.decision}.allowed(): bool`, (d: CelDecision) => d.allowed);
  env.registerFunction(`${T.decision}.reason(): string`, (d: CelDecision) => d.reason);
  env.registerFunction(`${T.decision}.errored(): bool`, (d: CelDecision) => d.error !== '');
  env.registerFunction(`${T.decision}.error(): string`, (d: CelDecision) => d.error);
  return env;
}
