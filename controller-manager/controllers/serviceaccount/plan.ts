// The ServiceAccount controller's decision, as kube's makes it: an active
// Namespace gets each ServiceAccount it should always have (just "default")
// that it does not have yet; a terminating one gets nothing.
import type { Namespace, ServiceAccount } from 'kubernetes-types/core/v1.js';

/** The ServiceAccounts every namespace has (kube's --service-accounts-to-ensure default). */
export const SERVICE_ACCOUNTS_TO_ENSURE = ['default'];

/** The ServiceAccounts to create in `ns`, given the names that exist there. */
export function serviceAccountsToCreate(ns: Namespace | undefined, exists: (name: string) => boolean): ServiceAccount[] {
  if (!ns || ns.status?.phase !== 'Active' || ns.metadata?.deletionTimestamp) return [];
  return SERVICE_ACCOUNTS_TO_ENSURE.filter((name) => !exists(name)).map((name): ServiceAccount => ({
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name, namespace: ns.metadata!.name },
  }));
}

/** True when a create failed only because the namespace is being deleted (kube's NamespaceTerminating cause). */
export function isNamespaceTerminating(err: unknown): boolean {
  const causes = (err as { details?: { causes?: { reason?: string }[] } })?.details?.causes ?? [];
  return causes.some((c) => c.reason === 'NamespaceTerminating');
}
