// Bootstrap policy reconciliation at apiserver start, as kube-apiserver's
// rbac/bootstrap-roles post-start hook does (pkg/registry/rbac/reconciliation):
// a missing bootstrap object is created; an existing one gets the labels,
// annotations, rules, aggregation selectors and subjects it lacks (union:
// nothing is removed), unless its autoupdate annotation is "false". A
// binding whose roleRef differs is recreated, since roleRef is immutable.
import type { Logger } from 'pino';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { findResource } from '../../../shared/api/resources.ts';
import { deepEqual } from '../../../shared/util/deep-equal.ts';
import { objectKey } from '../../registry/keys.ts';
import { prepareCreate, prepareUpdate } from '../../registry/lifecycle.ts';
import type { KubeObject } from '../../registry/object.ts';
import type { Store } from '../../storage/store.ts';
import { covers } from './covers.ts';
import {
  AUTOUPDATE_ANNOTATION,
  BOOTSTRAP_CLUSTER_ROLE_BINDINGS,
  BOOTSTRAP_CLUSTER_ROLES,
  BOOTSTRAP_ROLE_BINDINGS,
  BOOTSTRAP_ROLES,
} from './bootstrap-policy.ts';
import { apiserverWrite } from '../../handlers/write-record.ts';

const RBAC_RECONCILE = { writer: apiserverWrite('rbac-bootstrap', 'update') };

type RoleLike = Role | ClusterRole;
type BindingLike = RoleBinding | ClusterRoleBinding;

/** What reconciling one object decided. */
export type ReconcileOp = 'none' | 'create' | 'update' | 'recreate' | 'protected';

function mergeMaps(expected: Record<string, string> | undefined, existing: Record<string, string> | undefined) {
  return { ...(expected ?? {}), ...(existing ?? {}) };
}

/** The metadata part of kube's computeReconciledRole / computeReconciledRoleBinding: expected labels and annotations added, existing ones kept. */
function reconcileMeta<T extends RoleLike | BindingLike>(existing: T, expected: T): { obj: T; changed: boolean } {
  const obj = structuredClone(existing);
  obj.metadata ??= {};
  const annotations = mergeMaps(expected.metadata?.annotations, existing.metadata?.annotations);
  const labels = mergeMaps(expected.metadata?.labels, existing.metadata?.labels);
  const changed = !deepEqual(annotations, existing.metadata?.annotations ?? {}) || !deepEqual(labels, existing.metadata?.labels ?? {});
  obj.metadata.annotations = annotations;
  obj.metadata.labels = labels;
  return { obj, changed };
}

function isProtected(o: RoleLike | BindingLike): boolean {
  return o.metadata?.annotations?.[AUTOUPDATE_ANNOTATION] === 'false';
}

/** The reconciled role (union), or undefined when nothing changes; `op` says why. */
export function reconcileRole<T extends RoleLike>(existing: T, expected: T): { op: ReconcileOp; obj?: T } {
  const { obj, changed: metaChanged } = reconcileMeta(existing, expected);
  let changed = metaChanged;
  const [, missing] = covers(existing.rules ?? [], expected.rules ?? []);
  if (missing.length > 0) {
    obj.rules = [...(existing.rules ?? []), ...missing];
    changed = true;
  }
  const expAgg = (expected as ClusterRole).aggregationRule;
  const curAgg = (existing as ClusterRole).aggregationRule;
  if (!expAgg && curAgg) {
    delete (obj as ClusterRole).aggregationRule;
    changed = true;
  } else if (expAgg) {
    const have = curAgg?.clusterRoleSelectors ?? [];
    const lacking = (expAgg.clusterRoleSelectors ?? []).filter((s: LabelSelector) => !have.some((h) => deepEqual(h, s)));
    if (lacking.length > 0) {
      (obj as ClusterRole).aggregationRule = { clusterRoleSelectors: [...have, ...lacking] };
      changed = true;
    }
  }
  if (!changed) return { op: 'none' };
  if (isProtected(existing)) return { op: 'protected' };
  return { op: 'update', obj };
}

function sameSubject(a: Subject, b: Subject): boolean {
  return a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '') && (a.apiGroup ?? '') === (b.apiGroup ?? '');
}

/** The reconciled binding (union of subjects), or undefined when nothing changes. */
export function reconcileBinding<T extends BindingLike>(existing: T, expected: T): { op: ReconcileOp; obj?: T } {
  const { obj, changed: metaChanged } = reconcileMeta(existing, expected);
  let changed = metaChanged;
  let op: ReconcileOp = 'update';
  if (!deepEqual(existing.roleRef, expected.roleRef)) {
    obj.roleRef = expected.roleRef;
    op = 'recreate';
    changed = true;
  }
  const have = existing.subjects ?? [];
  const lacking = (expected.subjects ?? []).filter((s) => !have.some((h) => sameSubject(h, s)));
  if (lacking.length > 0) {
    obj.subjects = [...have, ...lacking];
    changed = true;
  }
  if (!changed) return { op: 'none' };
  if (isProtected(existing)) return { op: 'protected' };
  return { op, obj };
}

const RT = {
  clusterroles: findResource('rbac.authorization.k8s.io', 'v1', 'clusterroles')!,
  roles: findResource('rbac.authorization.k8s.io', 'v1', 'roles')!,
  clusterrolebindings: findResource('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings')!,
  rolebindings: findResource('rbac.authorization.k8s.io', 'v1', 'rolebindings')!,
};

interface ReconcileContext {
  store: Store;
  log: Logger;
  now?: () => Date;
  newUid?: () => string;
}

async function ensureOne<T extends RoleLike | BindingLike>(
  ctx: ReconcileContext,
  plural: keyof typeof RT,
  expected: T,
  reconcile: (cur: T, exp: T) => { op: ReconcileOp; obj?: T },
): Promise<ReconcileOp> {
  const rt = RT[plural];
  const ns = expected.metadata?.namespace ?? '';
  const name = expected.metadata!.name!;
  const key = objectKey(rt, ns, name);
  const now = ctx.now ?? (() => new Date());
  const newUid = ctx.newUid ?? (() => crypto.randomUUID());
  let op: ReconcileOp = 'none';
  await ctx.store.txn(
    key,
    (cur) => {
      if (!cur) {
        const obj = structuredClone(expected) as unknown as KubeObject;
        prepareCreate(rt, obj, now(), newUid());
        op = 'create';
        return obj;
      }
      const r = reconcile(cur as unknown as T, expected);
      op = r.op;
      if (!r.obj) return undefined;
      if (r.op === 'recreate') {
        // roleRef cannot change in place: the new binding is a new object.
        const obj = structuredClone(r.obj) as unknown as KubeObject;
        obj.metadata = { ...obj.metadata };
        delete obj.metadata.resourceVersion;
        delete obj.metadata.managedFields;
        prepareCreate(rt, obj, now(), newUid());
        return obj;
      }
      const next = prepareUpdate(rt, r.obj as unknown as KubeObject, cur, '');
      if (!next) op = 'none';
      return next;
    },
    RBAC_RECONCILE,
  );
  return op;
}

/**
 * Creates the bootstrap RBAC objects that are missing and adds to the
 * existing ones what they lack. Called once at apiserver start, after the
 * system namespaces exist.
 */
export async function reconcileBootstrapPolicy(
  store: Store,
  log: Logger,
  opts: { now?: () => Date; newUid?: () => string } = {},
): Promise<void> {
  const ctx: ReconcileContext = { store, log, ...opts };
  const counts: Record<string, number> = {};
  const note = (kind: string, name: string, op: ReconcileOp) => {
    counts[op] = (counts[op] ?? 0) + 1;
    if (op === 'protected') log.warn({ kind, name }, 'bootstrap policy object has autoupdate=false: not reconciled');
    else if (op !== 'none' && op !== 'create') log.info({ kind, name, op }, 'reconciled bootstrap policy object');
  };
  for (const cr of BOOTSTRAP_CLUSTER_ROLES)
    note('ClusterRole', cr.metadata!.name!, await ensureOne(ctx, 'clusterroles', cr, reconcileRole));
  for (const b of BOOTSTRAP_CLUSTER_ROLE_BINDINGS) {
    note('ClusterRoleBinding', b.metadata!.name!, await ensureOne(ctx, 'clusterrolebindings', b, reconcileBinding));
  }
  for (const r of BOOTSTRAP_ROLES) note('Role', r.metadata!.name!, await ensureOne(ctx, 'roles', r, reconcileRole));
  for (const b of BOOTSTRAP_ROLE_BINDINGS)
    note('RoleBinding', b.metadata!.name!, await ensureOne(ctx, 'rolebindings', b, reconcileBinding));
  log.debug({ counts }, 'bootstrap policy reconciled');
}
