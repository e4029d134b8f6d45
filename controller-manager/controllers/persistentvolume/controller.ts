// The volume controllers: persistentvolume-binder (binds claims to volumes,
// provisions rancher.io/local-path volumes on the claim's selected node,
// moves volumes through Available/Bound/Released/Failed and reclaims them),
// persistentvolume-expander (a bound claim's grown request becomes the
// volume's and the claim's capacity), and pvc-protection / pv-protection
// (their finalizers leave only once nothing uses the object). Decisions are
// in plan.ts; these read the caches and write through the API.
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { keyOf } from '../../../shared/informer/cache.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import { ANN, bytes, claimClass } from '../../../shared/storage/volume-matching.ts';
import { claimInUse, planClaim, planVolume, type PlannedEvent } from './plan.ts';

const pvs = findResource('', 'v1', 'persistentvolumes')!;
const pvcs = findResource('', 'v1', 'persistentvolumeclaims')!;
const pods = findResource('', 'v1', 'pods')!;
const nodes = findResource('', 'v1', 'nodes')!;
const classes = findResource('storage.k8s.io', 'v1', 'storageclasses')!;

const PVC_PROTECTION = 'kubernetes.io/pvc-protection';
const PV_PROTECTION = 'kubernetes.io/pv-protection';
/** kube's --pvclaimbinder-sync-period. */
const RESYNC_MS = 15_000;

const asClaim = (c: PersistentVolumeClaim) => ({ ...c, apiVersion: 'v1', kind: 'PersistentVolumeClaim' });
const asVolume = (v: PersistentVolume) => ({ ...v, apiVersion: 'v1', kind: 'PersistentVolume' });

function ignoreGone(err: unknown): void {
  if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
  throw err;
}

/** persistentvolume-binder. Keys: `claim:NS/NAME` and `volume:NAME`. */
export function persistentVolumeBinderController(ctx: ControllerContext): ControllerParts {
  const name = 'persistentvolume-binder';
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const pvInformer = ctx.informers.informerFor<PersistentVolume>(pvs);
  const pvcInformer = ctx.informers.informerFor<PersistentVolumeClaim>(pvcs);
  const podInformer = ctx.informers.informerFor<Pod>(pods);
  const nodeInformer = ctx.informers.informerFor<Node>(nodes);
  const scInformer = ctx.informers.informerFor<StorageClass>(classes);
  const resync = RESYNC_MS / ctx.speed;

  pvcInformer.on({
    add: (c) => queue.add(`claim:${keyOf(c)}`),
    update: (_o, c) => queue.add(`claim:${keyOf(c)}`),
    delete: (c) => {
      const v = c.spec?.volumeName;
      if (v) queue.add(`volume:${v}`);
      for (const pv of pvInformer.cache.list()) if (pv.spec?.claimRef?.uid === c.metadata?.uid) queue.add(`volume:${pv.metadata!.name}`);
    },
  });
  pvInformer.on({
    add: (v) => queue.add(`volume:${v.metadata!.name}`),
    update: (_o, v) => queue.add(`volume:${v.metadata!.name}`),
    delete: (v) => {
      const ref = v.spec?.claimRef;
      if (ref) queue.add(`claim:${ref.namespace}/${ref.name}`);
    },
  });
  const podChanged = (p: Pod) => {
    if (!p.spec?.nodeName) return;
    for (const v of p.spec.volumes ?? [])
      if (v.persistentVolumeClaim?.claimName) queue.add(`claim:${p.metadata!.namespace}/${v.persistentVolumeClaim.claimName}`);
  };
  podInformer.on({ add: podChanged, update: (_o, p) => podChanged(p) });

  const event = (obj: Parameters<typeof ctx.events.event>[0], e: PlannedEvent | undefined) => {
    if (e) ctx.events.event(obj, e.type, e.reason, e.message);
  };

  async function setVolumePhase(pv: PersistentVolume, phase: string, message?: string): Promise<PersistentVolume> {
    const status = { ...pv.status, phase, lastPhaseTransitionTime: new Date(ctx.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z') };
    if (message) status.message = message;
    else delete status.message;
    return ctx.client.update<PersistentVolume>(pvs, { ...pv, status }, 'status');
  }

  /** kube's bind: the volume's claimRef, its phase, the claim's volumeName and annotations, its phase. */
  async function bind(claim: PersistentVolumeClaim, volume: PersistentVolume): Promise<void> {
    let pv = volume;
    const ref = pv.spec?.claimRef;
    if (!ref || ref.uid !== claim.metadata!.uid || ref.resourceVersion !== claim.metadata!.resourceVersion) {
      const annotations = { ...pv.metadata!.annotations };
      if (!ref || !ref.uid) annotations[ANN.boundByController] = 'yes';
      pv = await ctx.client.update<PersistentVolume>(pvs, {
        ...pv,
        metadata: { ...pv.metadata, annotations },
        spec: {
          ...pv.spec,
          claimRef: {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            name: claim.metadata!.name,
            namespace: claim.metadata!.namespace,
            uid: claim.metadata!.uid,
            resourceVersion: claim.metadata!.resourceVersion,
          },
        },
      });
    }
    if (pv.status?.phase !== 'Bound') pv = await setVolumePhase(pv, 'Bound');
    let c = claim;
    const ann = c.metadata?.annotations ?? {};
    if (c.spec?.volumeName !== pv.metadata!.name || ann[ANN.bindCompleted] !== 'yes') {
      const annotations: Record<string, string> = { ...ann, [ANN.bindCompleted]: 'yes' };
      if (!c.spec?.volumeName) annotations[ANN.boundByController] = 'yes';
      c = await ctx.client.update<PersistentVolumeClaim>(pvcs, {
        ...c,
        metadata: { ...c.metadata, annotations },
        spec: { ...c.spec, volumeName: pv.metadata!.name },
      });
    }
    const status = {
      ...c.status,
      phase: 'Bound',
      accessModes: [...(pv.spec?.accessModes ?? [])],
      capacity: { ...pv.spec?.capacity },
    };
    await ctx.client.update(pvcs, { ...c, status }, 'status');
  }

  async function syncClaim(key: string): Promise<{ requeueAfterMs?: number } | void> {
    const claim = pvcInformer.cache.get(key);
    if (!claim) return;
    const ns = claim.metadata!.namespace!;
    const action = planClaim(claim, {
      volumes: pvInformer.cache.list(),
      classes: new Map(scInformer.cache.list().map((s) => [s.metadata!.name!, s])),
      pods: podInformer.cache.byIndex('namespace', ns),
      nodes: new Map(nodeInformer.cache.list().map((n) => [n.metadata!.name!, n])),
    });
    switch (action.op) {
      case 'none':
        event(asClaim(claim), action.event);
        return claim.status?.phase === 'Bound' ? undefined : { requeueAfterMs: resync };
      case 'selectNode':
        await ctx.client.update(pvcs, {
          ...claim,
          metadata: { ...claim.metadata, annotations: { ...claim.metadata!.annotations, [ANN.selectedNode]: action.node } },
        });
        return;
      case 'bind':
        await bind(claim, action.volume);
        event(asClaim(claim), action.event);
        return;
      case 'provision': {
        const provisioner = action.volume.metadata!.annotations![ANN.provisionedBy];
        const ann = claim.metadata?.annotations ?? {};
        if (ann[ANN.storageProvisioner] !== provisioner) {
          await ctx.client.update(pvcs, {
            ...claim,
            metadata: {
              ...claim.metadata,
              annotations: { ...ann, [ANN.storageProvisioner]: provisioner, [ANN.betaStorageProvisioner]: provisioner },
            },
          });
        }
        try {
          await ctx.client.create(pvs, undefined, action.volume);
        } catch (err) {
          // Created by an earlier pass the cache has not shown yet.
          if (err instanceof StatusError && err.code === 409) return;
          ctx.events.event(asClaim(claim), 'Warning', 'ProvisioningFailed', `failed to provision volume: ${(err as Error).message}`);
          throw err;
        }
        for (const e of action.events) event(asClaim(claim), e);
        return;
      }
      case 'phase': {
        event(asClaim(claim), action.event);
        if (claim.status?.phase !== action.phase)
          await ctx.client.update(pvcs, { ...claim, status: { ...claim.status, phase: action.phase } }, 'status');
        return;
      }
    }
  }

  async function syncVolume(name: string): Promise<void> {
    const pv = pvInformer.cache.get(name);
    if (!pv) return;
    const ref = pv.spec?.claimRef;
    const claim = ref ? pvcInformer.cache.get(`${ref.namespace}/${ref.name}`) : undefined;
    const action = planVolume(pv, claim);
    switch (action.op) {
      case 'none':
        return;
      case 'requeueClaim':
        queue.add(`claim:${action.key}`);
        return;
      case 'phase':
        if (claim === undefined && ref?.uid && action.phase === 'Released') {
          // The informer may lag: make sure the claim is really gone before releasing its volume.
          try {
            const live = await ctx.client.get<PersistentVolumeClaim>(pvcs, ref.namespace, ref.name!);
            if (live.metadata?.uid === ref.uid) return;
          } catch (err) {
            if (!(err instanceof StatusError && err.code === 404)) throw err;
          }
        }
        await setVolumePhase(pv, action.phase, action.message);
        event(asVolume(pv), action.event);
        return;
      case 'delete':
        try {
          await ctx.client.delete(pvs, undefined, name);
        } catch (err) {
          ignoreGone(err);
        }
        return;
    }
  }

  async function reconcile(key: string) {
    try {
      if (key.startsWith('claim:')) return await syncClaim(key.slice('claim:'.length));
      if (key.startsWith('volume:')) return await syncVolume(key.slice('volume:'.length));
    } catch (err) {
      // A stale cache (409) or an object gone (404): the informer brings the next state.
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return { requeueAfterMs: 100 };
      throw err;
    }
  }

  return { name, queue, informers: [pvInformer, pvcInformer, podInformer, nodeInformer, scInformer], reconcile };
}

/** persistentvolume-expander: a bound claim whose request grew past its capacity gets it (the volume first). */
export function persistentVolumeExpanderController(ctx: ControllerContext): ControllerParts {
  const name = 'persistentvolume-expander';
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const pvInformer = ctx.informers.informerFor<PersistentVolume>(pvs);
  const pvcInformer = ctx.informers.informerFor<PersistentVolumeClaim>(pvcs);
  const scInformer = ctx.informers.informerFor<StorageClass>(classes);
  pvcInformer.on({ add: (c) => queue.add(keyOf(c)), update: (_o, c) => queue.add(keyOf(c)) });

  async function reconcile(key: string) {
    const claim = pvcInformer.cache.get(key);
    if (!claim || claim.status?.phase !== 'Bound' || !claim.spec?.volumeName) return;
    const want = claim.spec.resources?.requests?.storage;
    const have = claim.status.capacity?.storage;
    if (want === undefined || bytes(want) <= bytes(have)) return;
    const pv = pvInformer.cache.get(claim.spec.volumeName);
    // PersistentVolumeClaimResize admits growth only for such classes; a claim grown before its class changed waits.
    if (!pv || scInformer.cache.get(claimClass(claim))?.allowVolumeExpansion !== true) return;
    const who = `${claim.metadata!.namespace}/${claim.metadata!.name}`;
    try {
      if (bytes(pv.spec?.capacity?.storage) < bytes(want)) {
        await ctx.client.update(pvs, { ...pv, spec: { ...pv.spec, capacity: { ...pv.spec?.capacity, storage: String(want) } } });
      }
      await ctx.client.update(
        pvcs,
        {
          ...claim,
          status: {
            ...claim.status,
            capacity: { ...claim.status.capacity, storage: String(want) },
            allocatedResources: { storage: String(want) },
          },
        },
        'status',
      );
    } catch (err) {
      if (err instanceof StatusError && err.code === 409) return { requeueAfterMs: 100 };
      throw err;
    }
    ctx.events.event(asClaim(claim), 'Normal', 'VolumeResizeSuccessful', `ExpandVolume succeeded for volume ${who}`);
  }

  return { name, queue, informers: [pvInformer, pvcInformer, scInformer], reconcile };
}

/** pvc-protection: adds kubernetes.io/pvc-protection, and removes it from a deleted claim no live Pod mounts. */
export function pvcProtectionController(ctx: ControllerContext): ControllerParts {
  const name = 'pvc-protection';
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const pvcInformer = ctx.informers.informerFor<PersistentVolumeClaim>(pvcs);
  const podInformer = ctx.informers.informerFor<Pod>(pods);
  pvcInformer.on({ add: (c) => queue.add(keyOf(c)), update: (_o, c) => queue.add(keyOf(c)) });
  const podChanged = (p: Pod) => {
    for (const v of p.spec?.volumes ?? [])
      if (v.persistentVolumeClaim?.claimName) queue.add(`${p.metadata!.namespace}/${v.persistentVolumeClaim.claimName}`);
  };
  podInformer.on({ update: (_o, p) => podChanged(p), delete: podChanged });

  async function reconcile(key: string) {
    const claim = pvcInformer.cache.get(key);
    if (!claim) return;
    const finalizers = claim.metadata?.finalizers ?? [];
    const has = finalizers.includes(PVC_PROTECTION);
    const deleting = !!claim.metadata?.deletionTimestamp;
    let next: string[] | undefined;
    if (!deleting && !has) next = [...finalizers, PVC_PROTECTION];
    else if (deleting && has && !claimInUse(claim, podInformer.cache.byIndex('namespace', claim.metadata!.namespace!)))
      next = finalizers.filter((f) => f !== PVC_PROTECTION);
    if (!next) return;
    try {
      await ctx.client.update(pvcs, { ...claim, metadata: { ...claim.metadata, finalizers: next } });
    } catch (err) {
      ignoreGone(err);
    }
  }

  return { name, queue, informers: [pvcInformer, podInformer], reconcile };
}

/** pv-protection: adds kubernetes.io/pv-protection, and removes it from a deleted volume no claim is bound to. */
export function pvProtectionController(ctx: ControllerContext): ControllerParts {
  const name = 'pv-protection';
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const pvInformer = ctx.informers.informerFor<PersistentVolume>(pvs);
  pvInformer.on({ add: (v) => queue.add(v.metadata!.name!), update: (_o, v) => queue.add(v.metadata!.name!) });

  async function reconcile(key: string) {
    const pv = pvInformer.cache.get(key);
    if (!pv) return;
    const finalizers = pv.metadata?.finalizers ?? [];
    const has = finalizers.includes(PV_PROTECTION);
    const deleting = !!pv.metadata?.deletionTimestamp;
    let next: string[] | undefined;
    if (!deleting && !has) next = [...finalizers, PV_PROTECTION];
    else if (deleting && has && pv.status?.phase !== 'Bound') next = finalizers.filter((f) => f !== PV_PROTECTION);
    if (!next) return;
    try {
      await ctx.client.update(pvs, { ...pv, metadata: { ...pv.metadata, finalizers: next } });
    } catch (err) {
      ignoreGone(err);
    }
  }

  return { name, queue, informers: [pvInformer], reconcile };
}
