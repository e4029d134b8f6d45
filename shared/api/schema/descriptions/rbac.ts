// rbac.authorization.k8s.io/v1: roles (sets of permissions) and bindings
// (who gets them).
import type { GroupTable } from './types.ts';

const rules = 'The permissions, as rules of verbs on resources. Permissions only add up: there is no deny rule.';
const subjects = 'Who gets the role: users, groups or service accounts.';
const roleRef = (where: string): string =>
  `The role granted: a Role in the same namespace or a ClusterRole${where}. It cannot be changed; delete and recreate the binding instead.`;

export const rbac: GroupTable = {
  prefix: 'io.k8s.api.rbac.v1',
  types: {
    Role: { rules },
    ClusterRole: {
      rules,
      aggregationRule:
        'Makes this an aggregated role: the controller fills rules with those of every ClusterRole the selectors match (overwriting what you wrote).',
    },
    RoleBinding: {
      roleRef: roleRef(' (whose permissions then apply only in this namespace)'),
      subjects,
    },
    ClusterRoleBinding: {
      roleRef:
        'The ClusterRole granted, in every namespace and for cluster-scoped resources. It cannot be changed; delete and recreate the binding instead.',
      subjects,
    },
    PolicyRule: {
      $: 'One permission rule: the verbs allowed on some resources (or non-resource URLs).',
      verbs:
        'The verbs allowed: get, list, watch, create, update, patch, delete, deletecollection, or "*" for all, and special ones such as impersonate, bind, escalate.',
      apiGroups: 'The API groups of the resources: "" for the core group (pods, services, ...), "apps", "batch", ..., or "*".',
      resources: 'The resources, by plural name, e.g. pods or deployments; subresources as "pods/log" or "deployments/scale"; "*" for all.',
      resourceNames:
        'Only these objects, by name; empty means all. create cannot be limited by name, and list and watch only when they select one object by metadata.name.',
      nonResourceURLs: 'Paths that are not resources, such as /healthz or /metrics (a trailing * matches a prefix). Only in ClusterRoles.',
    },
    Subject: {
      $: 'Someone a binding grants a role to.',
      kind: 'User, Group or ServiceAccount.',
      apiGroup: '"rbac.authorization.k8s.io" for users and groups; "" for service accounts.',
      name: 'The name of the user, group or service account, e.g. "jane", "system:authenticated" or "default".',
      namespace: 'For service accounts: their namespace. Must be empty for users and groups.',
    },
    RoleRef: {
      $: 'The role a binding grants.',
      apiGroup: 'Always "rbac.authorization.k8s.io".',
      kind: 'Role or ClusterRole.',
      name: 'The name of the role.',
    },
    AggregationRule: {
      $: 'How an aggregated ClusterRole collects its rules.',
      clusterRoleSelectors: 'Label selectors of the ClusterRoles whose rules are combined into this one; any match counts.',
    },
  },
};
