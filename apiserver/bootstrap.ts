// Objects every cluster has from its first start: the four system
// namespaces. Created through the store like any other write, and only when
// missing, so a restart changes nothing.
import { findResource } from '../shared/api/resources.ts';
import { objectKey } from './registry/keys.ts';
import { prepareCreate } from './registry/lifecycle.ts';
import type { ApiContext } from './handlers/context.ts';

/** The namespaces kube-apiserver creates itself. */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** Creates whatever bootstrap object is missing. */
export async function ensureBootstrapObjects(ctx: ApiContext): Promise<void> {
  const rt = findResource('', 'v1', 'namespaces')!;
  for (const name of SYSTEM_NAMESPACES) {
    const key = objectKey(rt, '', name);
    if (ctx.store.get(key)) continue;
    const ns: any = { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
    prepareCreate(rt, ns, ctx.now(), ctx.newUid());
    await ctx.store.txn(key, (cur) => (cur ? undefined : ns));
  }
}
