// The RBAC objects of a cluster indexed for authorization: kube's
// DefaultRuleResolver (pkg/registry/rbac/validation/rule.go) over an index
// of bindings by subject, so that authorizing a request looks only at the
// bindings that name the user, one of its groups or its ServiceAccount.
// Built from plain object lists; storeRbacPolicy rebuilds it only when one of
// the four rbac buckets changed.
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject } from 'kubernetes-types/rbac/v1.js';
import type { Store } from '../../storage/store.ts';
import { goQuote } from '../../../shared/patch/go-format.ts';
import { parseServiceAccountUsername, type UserInfo } from '../user-info.ts';

/** Where a rule came from, described as kube's rule resolver does for its reason string. */
export interface RuleSource {
  binding: ClusterRoleBinding | RoleBinding;
  subject: Subject;
  /** Namespace of a RoleBinding, '' for a ClusterRoleBinding. */
  namespace: string;
}

/** kube's clusterRoleBindingDescriber / roleBindingDescriber. */
export function describeSource(s: RuleSource): string {
  const b = s.binding;
  const ref = `${b.roleRef.kind} ${goQuote(b.roleRef.name)} to ${describeSubject(s.subject, s.namespace)}`;
  if (!s.namespace) return `ClusterRoleBinding ${goQuote(b.metadata?.name ?? '')} of ${ref}`;
  return `RoleBinding ${goQuote(`${b.metadata?.name ?? ''}/${s.namespace}`)} of ${ref}`;
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${goQuote(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${goQuote(s.name)}`;
}

/** A binding's place in the index: its order among the bindings and which of its subjects matched. */
interface Entry {
  ordinal: number;
  subjectIndex: number;
}

interface IndexedBinding {
  binding: ClusterRoleBinding | RoleBinding;
  namespace: string;
}

/** The subject keys a user answers to. */
function userKeys(user: UserInfo): string[] {
  const keys = [`User:${user.username}`];
  for (const g of user.groups) keys.push(`Group:${g}`);
  const sa = parseServiceAccountUsername(user.username);
  if (sa) keys.push(`ServiceAccount:${sa.namespace}:${sa.name}`);
  return keys;
}

/** The index key of a subject in a binding of `namespace` ('' for a ClusterRoleBinding), or undefined when it can match nobody. */
function subjectKey(s: Subject, namespace: string): string | undefined {
  switch (s.kind) {
    case 'User':
    case 'Group':
      return `${s.kind}:${s.name}`;
    case 'ServiceAccount': {
      // kube defaults a ServiceAccount subject's namespace to the binding's; a ClusterRoleBinding has none.
      const ns = s.namespace || namespace;
      return ns ? `ServiceAccount:${ns}:${s.name}` : undefined;
    }
    default:
      return undefined;
  }
}

class BindingIndex {
  readonly bindings: IndexedBinding[] = [];
  private readonly bySubject = new Map<string, Entry[]>();

  add(binding: ClusterRoleBinding | RoleBinding, namespace: string): void {
    const ordinal = this.bindings.length;
    this.bindings.push({ binding, namespace });
    const seen = new Set<string>();
    (binding.subjects ?? []).forEach((s, subjectIndex) => {
      const key = subjectKey(s, namespace);
      if (key === undefined || seen.has(key)) return;
      seen.add(key);
      let list = this.bySubject.get(key);
      if (!list) this.bySubject.set(key, (list = []));
      list.push({ ordinal, subjectIndex });
    });
  }

  /** The bindings that apply to `keys`, in binding order, each with its first matching subject. */
  matching(keys: string[]): { binding: IndexedBinding; subjectIndex: number }[] {
    let found: Entry[] | undefined;
    for (const k of keys) {
      const list = this.bySubject.get(k);
      if (list) found = found ? found.concat(list) : list;
    }
    if (!found) return [];
    if (found.length > 1) found = [...found].sort((x, y) => x.ordinal - y.ordinal || x.subjectIndex - y.subjectIndex);
    const out: { binding: IndexedBinding; subjectIndex: number }[] = [];
    let last = -1;
    for (const e of found) {
      if (e.ordinal === last) continue;
      last = e.ordinal;
      out.push({ binding: this.bindings[e.ordinal], subjectIndex: e.subjectIndex });
    }
    return out;
  }
}

/** One rule with where it came from; `visit` returns false to stop. */
export type RuleVisitor = (source: RuleSource | undefined, rule: PolicyRule | undefined, err: string | undefined) => boolean;

/** The RBAC objects, indexed. */
export class RbacPolicy {
  private readonly clusterRoles = new Map<string, ClusterRole>();
  private readonly roles = new Map<string, Role>();
  private readonly clusterBindings = new BindingIndex();
  private readonly namespaceBindings = new Map<string, BindingIndex>();

  constructor(objs: {
    clusterRoles?: ClusterRole[];
    roles?: Role[];
    clusterRoleBindings?: ClusterRoleBinding[];
    roleBindings?: RoleBinding[];
  }) {
    for (const cr of objs.clusterRoles ?? []) this.clusterRoles.set(cr.metadata?.name ?? '', cr);
    for (const r of objs.roles ?? []) this.roles.set(`${r.metadata?.namespace ?? ''}/${r.metadata?.name ?? ''}`, r);
    for (const b of objs.clusterRoleBindings ?? []) this.clusterBindings.add(b, '');
    for (const b of objs.roleBindings ?? []) {
      const ns = b.metadata?.namespace ?? '';
      let idx = this.namespaceBindings.get(ns);
      if (!idx) this.namespaceBindings.set(ns, (idx = new BindingIndex()));
      idx.add(b, ns);
    }
  }

  clusterRole(name: string): ClusterRole | undefined {
    return this.clusterRoles.get(name);
  }

  /**
   * The rules a roleRef grants in `namespace` (kube's GetRoleReferenceRules),
   * or the error kube's listers give for a missing role.
   */
  roleRefRules(ref: RoleRef, namespace: string): { rules: PolicyRule[]; error?: string } {
    if (ref.kind === 'ClusterRole') {
      const cr = this.clusterRoles.get(ref.name);
      if (!cr) return { rules: [], error: `clusterrole.rbac.authorization.k8s.io ${goQuote(ref.name)} not found` };
      return { rules: cr.rules ?? [] };
    }
    if (ref.kind === 'Role') {
      const r = this.roles.get(`${namespace}/${ref.name}`);
      if (!r) return { rules: [], error: `role.rbac.authorization.k8s.io ${goQuote(ref.name)} not found` };
      return { rules: r.rules ?? [] };
    }
    return { rules: [], error: `unsupported role reference kind: ${goQuote(ref.kind)}` };
  }

  /** kube's VisitRulesFor: ClusterRoleBindings first, then the RoleBindings of `namespace`. */
  visitRulesFor(user: UserInfo, namespace: string, visit: RuleVisitor): void {
    const keys = userKeys(user);
    const scopes: BindingIndex[] = [this.clusterBindings];
    const nsIndex = namespace ? this.namespaceBindings.get(namespace) : undefined;
    if (nsIndex) scopes.push(nsIndex);
    for (const idx of scopes) {
      for (const { binding: ib, subjectIndex } of idx.matching(keys)) {
        const { rules, error } = this.roleRefRules(ib.binding.roleRef, ib.namespace);
        if (error !== undefined) {
          if (!visit(undefined, undefined, error)) return;
          continue;
        }
        const source: RuleSource = { binding: ib.binding, subject: ib.binding.subjects![subjectIndex], namespace: ib.namespace };
        for (const r of rules) if (!visit(source, r, undefined)) return;
      }
    }
  }

  /** kube's RulesFor: every rule that applies, and the resolution errors met. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_s, rule, err) => {
      if (rule) rules.push(rule);
      if (err !== undefined) errors.push(err);
      return true;
    });
    return { rules, errors };
  }
}

/** kube's utilerrors.NewAggregate(...).Error(): one message as it is, several in brackets. */
export function aggregateErrors(errors: string[]): string {
  return errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
}

export const RBAC_BUCKETS = {
  clusterRoles: '/registry/rbac.authorization.k8s.io/clusterroles',
  roles: '/registry/rbac.authorization.k8s.io/roles',
  clusterRoleBindings: '/registry/rbac.authorization.k8s.io/clusterrolebindings',
  roleBindings: '/registry/rbac.authorization.k8s.io/rolebindings',
} as const;

function listBucket<T>(store: Store, bucket: string): T[] {
  return store.list({ bucket, keyPrefix: `${bucket}/` }).items.map((j) => JSON.parse(j) as T);
}

/** The store's committed RBAC objects, re-indexed only after one of the rbac buckets changed. */
export function storeRbacPolicy(store: Store): () => RbacPolicy {
  const buckets = [RBAC_BUCKETS.clusterRoles, RBAC_BUCKETS.roles, RBAC_BUCKETS.clusterRoleBindings, RBAC_BUCKETS.roleBindings];
  const versions = [-1, -1, -1, -1];
  let policy = new RbacPolicy({});
  return () => {
    let changed = false;
    for (let i = 0; i < buckets.length; i++) {
      const v = store.bucketVersion(buckets[i]);
      if (v !== versions[i]) {
        versions[i] = v;
        changed = true;
      }
    }
    if (changed) {
      policy = new RbacPolicy({
        clusterRoles: listBucket(store, RBAC_BUCKETS.clusterRoles),
        roles: listBucket(store, RBAC_BUCKETS.roles),
        clusterRoleBindings: listBucket(store, RBAC_BUCKETS.clusterRoleBindings),
        roleBindings: listBucket(store, RBAC_BUCKETS.roleBindings),
      });
    }
    return policy;
  };
}
