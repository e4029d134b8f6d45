// RoleBinding / ClusterRoleBinding printing: Role "Kind/name" and the wide
// Users / Groups / ServiceAccounts columns. (Role and ClusterRole have no
// printer in kube and use the default Name / Created At table.)
import type { ClusterRoleBinding, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import { since } from './duration.ts';
import { ageColumn, column, nameColumn, wide } from './types.ts';
import type { PrintContext, PrintedRow, Printer } from './types.ts';

/** rbac.SubjectsStrings: users, groups and "namespace/name" service accounts, in subject order. */
export function subjectsStrings(subjects: Subject[] | undefined): [string[], string[], string[]] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of subjects ?? []) {
    switch (s.kind) {
      case 'ServiceAccount':
        sas.push(`${s.namespace ?? ''}/${s.name}`);
        break;
      case 'User':
        users.push(s.name);
        break;
      case 'Group':
        groups.push(s.name);
        break;
    }
  }
  return [users, groups, sas];
}

function bindingPrinter(what: string): Printer<RoleBinding | ClusterRoleBinding> {
  return {
    columns: [
      nameColumn(),
      column('Role', 'string', 'The role the binding grants, as Kind/name.'),
      ageColumn(),
      wide(column('Users', 'string', `Users in the ${what}.`)),
      wide(column('Groups', 'string', `Groups in the ${what}.`)),
      wide(column('ServiceAccounts', 'string', `Service accounts in the ${what}, as namespace/name.`)),
    ],
    row(b: RoleBinding | ClusterRoleBinding, ctx: PrintContext): PrintedRow {
      const [users, groups, sas] = subjectsStrings(b.subjects);
      return {
        cells: [
          b.metadata?.name ?? '',
          `${b.roleRef?.kind ?? ''}/${b.roleRef?.name ?? ''}`,
          since(b.metadata?.creationTimestamp, ctx.now),
          users.join(', '),
          groups.join(', '),
          sas.join(', '),
        ],
      };
    },
  };
}

/** RoleBinding: Name, Role, Age; wide Users, Groups, ServiceAccounts. */
export const roleBindingPrinter = bindingPrinter('roleBinding');
/** ClusterRoleBinding: Name, Role, Age; wide Users, Groups, ServiceAccounts. */
export const clusterRoleBindingPrinter = bindingPrinter('clusterRoleBinding');
