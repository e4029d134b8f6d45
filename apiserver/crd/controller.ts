// The CRD controllers kube-apiserver runs in its apiextensions part, as one
// loop over the stored CRDs: naming (accepted names and NamesAccepted, a
// name another CRD of the group already holds is a conflict), establishing
// (Established once the names are accepted), serving (the Established
// CRDs' versions go to the resource table's dynamic part, registry.ts), and
// finalizing (a deleted CRD's objects are deleted, then its
// customresourcecleanup finalizer is removed and the CRD goes).
import type { Logger } from 'pino';
import { findResource } from '../../shared/api/resources.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { Store } from '../storage/store.ts';
import type { StoredObject } from '../storage/types.ts';
import { objectKey } from '../registry/keys.ts';
import { planDelete, timestamp } from '../registry/lifecycle.ts';
import { CLEANUP_FINALIZER, isConditionTrue, setCondition, type CRDNames, type CustomResourceDefinition } from './crd.ts';
import { serveCRDs, servedForCRD } from './registry.ts';
import { registerCustomResourceSchemas } from './ssa.ts';
import { apiserverWrite } from '../handlers/write-record.ts';

const CRDS = () => findResource('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;

/** What `crd` asks for and another CRD of its group already has, as kube's naming controller words it. */
export function nameConflict(
  crd: CustomResourceDefinition,
  others: CustomResourceDefinition[],
): { reason: string; message: string } | undefined {
  const want = crd.spec?.names ?? {};
  const group = crd.spec?.group;
  const taken = {
    plural: new Set<string>(),
    singular: new Set<string>(),
    short: new Set<string>(),
    kind: new Set<string>(),
    list: new Set<string>(),
  };
  for (const o of others) {
    if (o.metadata.name === crd.metadata.name || o.spec?.group !== group) continue;
    const n: CRDNames = o.status?.acceptedNames ?? {};
    for (const x of [n.plural, n.singular, ...(n.shortNames ?? [])]) if (x) taken.plural.add(x);
    if (n.kind) taken.kind.add(n.kind);
    if (n.listKind) taken.list.add(n.listKind);
  }
  if (want.plural && taken.plural.has(want.plural)) return { reason: 'PluralConflict', message: `"${want.plural}" is already in use` };
  if (want.singular && taken.plural.has(want.singular))
    return { reason: 'SingularConflict', message: `"${want.singular}" is already in use` };
  for (const s of want.shortNames ?? [])
    if (taken.plural.has(s)) return { reason: 'ShortNamesConflict', message: `"${s}" is already in use` };
  if (want.kind && (taken.kind.has(want.kind) || taken.list.has(want.kind)))
    return { reason: 'KindConflict', message: `"${want.kind}" is already in use` };
  if (want.listKind && (taken.kind.has(want.listKind) || taken.list.has(want.listKind)))
    return { reason: 'ListKindConflict', message: `"${want.listKind}" is already in use` };
  return undefined;
}

/** The status the naming and establishing controllers give `crd` (a copy; the input is not changed). */
export function plannedStatus(crd: CustomResourceDefinition, others: CustomResourceDefinition[], now: Date): CustomResourceDefinition {
  const next = structuredClone(crd);
  const at = timestamp(now);
  const conflict = nameConflict(crd, others);
  if (conflict) {
    setCondition(next, { type: 'NamesAccepted', status: 'False', ...conflict }, at);
    if (!isConditionTrue(crd, 'Established'))
      setCondition(next, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, at);
    return next;
  }
  next.status ??= {};
  next.status.acceptedNames = structuredClone(crd.spec?.names ?? {});
  setCondition(next, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }, at);
  setCondition(
    next,
    { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
    at,
  );
  return next;
}

/** A running controller. */
export interface CRDController {
  /** Resolves once every stored CRD has been looked at (so a restarted apiserver serves them before it is ready). */
  synced: Promise<void>;
  stop(): void;
}

/** Starts the CRD controllers on the apiserver's own store. */
export function startCRDController(store: Store, opts: { log: Logger; now: () => Date }): CRDController {
  const rt = CRDS();
  const bucket = rt.storagePrefix;
  const dirty = new Set<string>();
  let scheduled = false;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const log = opts.log.child({ component: 'crd-controller' });
  registerCustomResourceSchemas();

  const all = (): CustomResourceDefinition[] => {
    const items: CustomResourceDefinition[] = [];
    let startAfter: string | undefined;
    for (;;) {
      const page = store.list({ bucket, keyPrefix: `${bucket}/`, startAfter, limit: 500 });
      for (const json of page.items) items.push(JSON.parse(json) as CustomResourceDefinition);
      if (!page.lastKey || page.items.length === 0) break;
      startAfter = page.lastKey;
    }
    return items;
  };

  const reserve = () => {
    serveCRDs(all().filter((c) => isConditionTrue(c, 'Established')));
  };

  const deleteInstances = async (crd: CustomResourceDefinition): Promise<number> => {
    const served = servedForCRD(crd.metadata.name ?? '');
    const target: ResourceType | undefined = served[0]?.rt;
    if (!target) return 0;
    const page = store.list({ bucket: target.storagePrefix, keyPrefix: `${target.storagePrefix}/` });
    for (const json of page.items) {
      const obj = JSON.parse(json) as StoredObject;
      const key = objectKey(target, obj.metadata.namespace ?? '', obj.metadata.name ?? '');
      await store.txn(
        key,
        (cur) => {
          if (!cur) return undefined;
          const plan = planDelete(target, cur, { propagationPolicy: 'Background' }, opts.now());
          if (plan.action === 'delete') return null;
          return cur.metadata.deletionTimestamp ? undefined : plan.obj;
        },
        { writer: apiserverWrite('crd-cleanup', 'delete') },
      );
    }
    return page.items.length;
  };

  const finalize = async (crd: CustomResourceDefinition): Promise<void> => {
    const key = objectKey(rt, '', crd.metadata.name ?? '');
    await store.txn(
      key,
      (cur) => {
        if (!cur) return undefined;
        const next = structuredClone(cur) as CustomResourceDefinition;
        const changed = setCondition(
          next,
          { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' },
          timestamp(opts.now()),
        );
        return changed ? next : undefined;
      },
      { writer: apiserverWrite('crd-cleanup', 'update') },
    );
    const left = await deleteInstances(crd);
    if (left > 0) {
      // Objects with finalizers of their own go when those are removed: look again shortly.
      setTimeout(() => mark(crd.metadata.name ?? ''), 500).unref();
      return;
    }
    await store.txn(
      key,
      (cur) => {
        if (!cur) return undefined;
        const finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
        if (finalizers.length === 0) return null;
        const next = structuredClone(cur);
        next.metadata.finalizers = finalizers;
        return next;
      },
      { writer: apiserverWrite('crd-cleanup', 'update') },
    );
  };

  const reconcile = async (name: string, crds: CustomResourceDefinition[]): Promise<void> => {
    const crd = crds.find((c) => c.metadata.name === name);
    if (!crd) return;
    if (crd.metadata.deletionTimestamp) {
      if (crd.metadata.finalizers?.includes(CLEANUP_FINALIZER)) await finalize(crd);
      return;
    }
    const next = plannedStatus(crd, crds, opts.now());
    if (JSON.stringify(next.status) === JSON.stringify(crd.status)) return;
    const key = objectKey(rt, '', name);
    await store.txn(
      key,
      (cur) => {
        if (!cur || cur.metadata.resourceVersion !== crd.metadata.resourceVersion) {
          mark(name);
          return undefined;
        }
        return { ...cur, status: next.status } as StoredObject;
      },
      { writer: apiserverWrite('crd-status', 'update') },
    );
  };

  const drain = async () => {
    scheduled = false;
    while (dirty.size > 0 && !stopped) {
      const names = [...dirty];
      dirty.clear();
      const crds = all();
      for (const name of names) {
        try {
          await reconcile(name, crds);
        } catch (err) {
          log.warn({ err, crd: name }, 'reconciling a CRD failed; retrying');
          setTimeout(() => mark(name), 1000).unref();
        }
      }
      reserve();
    }
  };

  function mark(name: string): void {
    if (stopped) return;
    dirty.add(name);
    if (!scheduled) {
      scheduled = true;
      running = running.then(() => new Promise<void>((r) => setImmediate(r))).then(drain);
    }
  }

  const unwatch = store.watch(
    {
      bucket,
      keyPrefix: `${bucket}/`,
      deliver: (events) => {
        for (const ev of events) mark(ev.key.slice(bucket.length + 1));
        // A CRD gone, or any change: what is served is derived again after the reconcile.
      },
    },
    store.revision,
  );
  reserve();
  for (const crd of all()) mark(crd.metadata.name ?? '');
  if (dirty.size === 0) reserve();
  const synced = running.then(() => undefined);
  return {
    synced,
    stop() {
      stopped = true;
      unwatch();
    },
  };
}
