// RBAC: roleRef/subject apiGroup defaults (pkg/apis/rbac/v1/defaults.go) and
// pkg/apis/rbac/validation for roles, cluster roles and their bindings,
// including the roleRef a binding may never change.
import { goQuote, isObject } from '../../../shared/patch/go-format.ts';
import { nameProblems } from '../names.ts';
import { child, fe, goStringSlice, index, zero, type FieldError } from './field.ts';
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject } from 'kubernetes-types/rbac/v1.js';

type Binding = RoleBinding | ClusterRoleBinding;
import { validateLabelSelector } from './validators.ts';

const GROUP = 'rbac.authorization.k8s.io';

/** SetDefaults_RoleBinding / SetDefaults_ClusterRoleBinding and SetDefaults_Subject. */
export function defaultBinding(b: Binding): void {
  if (!isObject(b.roleRef)) b.roleRef = zero<RoleRef>();
  if (!b.roleRef.apiGroup) b.roleRef.apiGroup = GROUP;
  for (const s of Array.isArray(b.subjects) ? b.subjects : []) {
    if (!isObject(s) || s.apiGroup) continue;
    if (s.kind === 'ServiceAccount') s.apiGroup = '';
    else if (s.kind === 'User' || s.kind === 'Group') s.apiGroup = GROUP;
  }
}

function validatePolicyRule(rule: PolicyRule | undefined, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const len = (k: 'verbs' | 'nonResourceURLs' | 'apiGroups' | 'resources' | 'resourceNames') => {
    const list = rule?.[k];
    return Array.isArray(list) ? list.length : 0;
  };
  if (len('verbs') === 0) errs.push(fe.required(child(path, 'verbs'), 'verbs must contain at least one value'));
  if (len('nonResourceURLs') > 0) {
    const shown = goStringSlice(rule?.nonResourceURLs);
    if (namespaced) errs.push(fe.invalidShown(child(path, 'nonResourceURLs'), shown, 'namespaced rules cannot apply to non-resource URLs'));
    if (len('apiGroups') > 0 || len('resources') > 0 || len('resourceNames') > 0) {
      errs.push(
        fe.invalidShown(child(path, 'nonResourceURLs'), shown, 'rules cannot apply to both regular resources and non-resource URLs'),
      );
    }
    return errs;
  }
  if (len('apiGroups') === 0) errs.push(fe.required(child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  if (len('resources') === 0) errs.push(fe.required(child(path, 'resources'), 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(obj: Role | ClusterRole, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  (Array.isArray(obj.rules) ? obj.rules : []).forEach((r, i) => errs.push(...validatePolicyRule(r, namespaced, index('rules', i))));
  return errs;
}

/** ValidateRole / ValidateRoleUpdate. */
export function validateRole(role: Role): FieldError[] {
  return validateRules(role, true);
}

/** ValidateClusterRole / ValidateClusterRoleUpdate. */
export function validateClusterRole(role: ClusterRole): FieldError[] {
  const errs = validateRules(role, false);
  if (isObject(role.aggregationRule)) {
    const sels = Array.isArray(role.aggregationRule.clusterRoleSelectors) ? role.aggregationRule.clusterRoleSelectors : [];
    if (sels.length === 0) {
      errs.push(
        fe.required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'),
      );
    }
    sels.forEach((s, i) => errs.push(...validateLabelSelector(s, index('aggregationRule.clusterRoleSelectors', i))));
  }
  return errs;
}

function validateSubject(s: Subject | undefined, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = String(s?.name ?? '');
  if (!name) errs.push(fe.required(child(path, 'name')));
  const apiGroup = String(s?.apiGroup ?? '');
  switch (s?.kind) {
    case 'ServiceAccount':
      if (name) errs.push(...nameProblems(name, 'subdomain').map((m) => fe.invalid(child(path, 'name'), name, m)));
      if (apiGroup) errs.push(fe.notSupported(child(path, 'apiGroup'), apiGroup, ['']));
      if (!namespaced && !s?.namespace) errs.push(fe.required(child(path, 'namespace')));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== GROUP) errs.push(fe.notSupported(child(path, 'apiGroup'), apiGroup, [GROUP]));
      break;
    default:
      errs.push(fe.notSupported(child(path, 'kind'), s?.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

/** Go's `%#v` of an rbac.RoleRef. */
function goRoleRef(r: Partial<RoleRef>): string {
  return `rbac.RoleRef{APIGroup:${goQuote(String(r?.apiGroup ?? ''))}, Kind:${goQuote(String(r?.kind ?? ''))}, Name:${goQuote(String(r?.name ?? ''))}}`;
}

function validateBinding(b: Binding, old: Binding | undefined, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref: Partial<RoleRef> = isObject(b.roleRef) ? b.roleRef : {};
  if (ref.apiGroup !== GROUP) errs.push(fe.notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind ?? '')) errs.push(fe.notSupported('roleRef.kind', ref.kind ?? '', kinds));
  const name = String(ref.name ?? '');
  if (!name) errs.push(fe.required('roleRef.name'));
  else errs.push(...nameProblems(name, 'path-segment').map((m) => fe.invalid('roleRef.name', name, m)));
  (Array.isArray(b.subjects) ? b.subjects : []).forEach((s, i) => errs.push(...validateSubject(s, namespaced, index('subjects', i))));
  if (old) {
    const o: Partial<RoleRef> = old.roleRef ?? {};
    if ((o.apiGroup ?? '') !== (ref.apiGroup ?? '') || (o.kind ?? '') !== (ref.kind ?? '') || (o.name ?? '') !== name) {
      errs.push(fe.invalidShown('roleRef', goRoleRef(ref), 'cannot change roleRef'));
    }
  }
  return errs;
}

/** ValidateRoleBinding / ValidateRoleBindingUpdate. */
export function validateRoleBinding(b: RoleBinding, old?: RoleBinding): FieldError[] {
  return validateBinding(b, old, true);
}

/** ValidateClusterRoleBinding / ValidateClusterRoleBindingUpdate. */
export function validateClusterRoleBinding(b: ClusterRoleBinding, old?: ClusterRoleBinding): FieldError[] {
  return validateBinding(b, old, false);
}
