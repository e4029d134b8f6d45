// Printers for the simple core/v1 kinds: Namespace, ConfigMap, Secret,
// ServiceAccount and ResourceQuota. (LimitRange has no printer in kube and
// uses the default Name / Created At table.)
import type { ConfigMap, Namespace, ResourceQuota, Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { since } from './duration.ts';
import { compareBytes } from '../../shared/labels/requirement.ts';
import { canonicalQuantity } from './quantity.ts';
import { ageColumn, column, nameColumn } from './types.ts';
import type { PrintContext, PrintedRow, Printer } from './types.ts';

const age = (o: { metadata?: { creationTimestamp?: string } }, ctx: PrintContext) => since(o.metadata?.creationTimestamp, ctx.now);

/** Namespace: Name, Status, Age. */
export const namespacePrinter: Printer<Namespace> = {
  columns: [nameColumn(), column('Status', 'string', 'The namespace phase: Active or Terminating.'), ageColumn()],
  row(ns: Namespace, ctx: PrintContext): PrintedRow {
    return { cells: [ns.metadata?.name ?? '', ns.status?.phase ?? '', age(ns, ctx)] };
  },
};

/** ConfigMap: Name, Data, Age. */
export const configMapPrinter: Printer<ConfigMap> = {
  columns: [nameColumn(), column('Data', 'string', 'Number of keys in data and binaryData.'), ageColumn()],
  row(cm: ConfigMap, ctx: PrintContext): PrintedRow {
    const n = Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length;
    return { cells: [cm.metadata?.name ?? '', n, age(cm, ctx)] };
  },
};

/** Secret: Name, Type, Data, Age. */
export const secretPrinter: Printer<Secret> = {
  columns: [
    nameColumn(),
    column('Type', 'string', 'The secret type, e.g. Opaque or kubernetes.io/tls.'),
    column('Data', 'string', 'Number of keys in data.'),
    ageColumn(),
  ],
  row(secret: Secret, ctx: PrintContext): PrintedRow {
    // kube folds stringData into data on write; count both for objects stored unfolded.
    const keys = new Set([...Object.keys(secret.data ?? {}), ...Object.keys(secret.stringData ?? {})]);
    return { cells: [secret.metadata?.name ?? '', secret.type ?? 'Opaque', keys.size, age(secret, ctx)] };
  },
};

/** ServiceAccount: Name, Age. kube 1.35 dropped the Secrets count column, misleading since tokens stopped being secrets in 1.24. */
export const serviceAccountPrinter: Printer<ServiceAccount> = {
  columns: [nameColumn(), ageColumn()],
  row(sa: ServiceAccount, ctx: PrintContext): PrintedRow {
    return { cells: [sa.metadata?.name ?? '', age(sa, ctx)] };
  },
};

/** "resource: used/hard, ..." split into the request-like and the limits.* resources. */
export function quotaColumns(rq: ResourceQuota): [string, string] {
  const hard = rq.status?.hard ?? {};
  const used = rq.status?.used ?? {};
  const request: string[] = [];
  const limit: string[] = [];
  for (const resource of Object.keys(hard).sort(compareBytes)) {
    const pieces = resource.split('.');
    const target = pieces.length > 1 && pieces[0] === 'limits' ? limit : request;
    target.push(`${resource}: ${canonicalQuantity(used[resource])}/${canonicalQuantity(hard[resource])}`);
  }
  return [request.join(', '), limit.join(', ')];
}

/** ResourceQuota: Name, Request, Limit, Age. */
export const resourceQuotaPrinter: Printer<ResourceQuota> = {
  columns: [
    nameColumn(),
    column('Request', 'string', "Used/hard amounts of the quota's non-limit resources."),
    column('Limit', 'string', "Used/hard amounts of the quota's limits.* resources."),
    ageColumn(),
  ],
  row(rq: ResourceQuota, ctx: PrintContext): PrintedRow {
    const [request, limit] = quotaColumns(rq);
    return { cells: [rq.metadata?.name ?? '', request, limit, age(rq, ctx)] };
  },
};
