// The Job controller: runs each Job's Pods to completions with parallelism,
// tracks finished Pods with the batch.kubernetes.io/job-tracking finalizer,
// backs off after failures, and reports status, conditions and events as
// kube's job controller does. Decisions come from plan.ts; this file wires
// the informers, expectations and API writes. Keys "orphan/NS/NAME" are Pods
// whose Job is gone or finished and that still carry the finalizer.
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { keyOf, splitKey } from '../../../shared/informer/cache.ts';
import { controllerOf } from '../../../shared/controller/owner-refs.ts';
import { Expectations } from '../../../shared/controller/expectations.ts';
import { claim } from '../../../shared/controller/claim.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { ItemExponentialLimiter } from '../../../shared/workqueue/rate-limiters.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import { matchesLabels, selectorFromLabelSelector } from '../../../shared/labels/label-selector.ts';
import { slowStartBatches } from '../replicaset/plan.ts';
import type { ControllerContext } from '../../context.ts';
import type { ReconcileItem } from '../../../shared/controller/stepper.ts';
import { finishedNotes, manageNotes } from './notes.ts';
import {
  JOB_TRACKING_FINALIZER,
  afterManage,
  assess,
  cleanUncounted,
  enactFinished,
  hasTrackingFinalizer,
  isJobFinished,
  isReady,
  manage,
  podForJob,
  setCounts,
  trackStatus,
  type JobEvent,
  type SyncCtx,
} from './plan.ts';
import type { BackoffRecord } from './policy.ts';

const jobs = findResource('batch', 'v1', 'jobs')!;
const pods = findResource('', 'v1', 'pods')!;
const ORPHAN = 'orphan/';
/** kube's syncJobBatchPeriod: Pod events are batched this long before a sync. */
const SYNC_BATCH_MS = 1000;
/** kube's DefaultJobApiBackOff and MaxJobApiBackOff: a failed sync is retried after 1 s doubling to 1 min. */
const API_BACKOFF_MS = 1000;
const MAX_API_BACKOFF_MS = 60_000;

/** True when `job` selects `pod`. */
function selects(job: Job, pod: Pod): boolean {
  try {
    return matchesLabels(selectorFromLabelSelector(job.spec?.selector), pod.metadata?.labels);
  } catch {
    return false;
  }
}

/** Builds the controller; the caller runs it with runController. */
export function jobController(ctx: ControllerContext) {
  const name = 'job';
  const queue = new WorkQueue({
    clock: ctx.clock,
    metrics: queueMetrics(ctx.registry, name),
    rateLimiter: new ItemExponentialLimiter(API_BACKOFF_MS / ctx.speed, MAX_API_BACKOFF_MS / ctx.speed),
  });
  const expectations = new Expectations(ctx.clock);
  /** Per Job key, the Pod uids whose finalizer removal is not seen yet (kube's uidTrackingExpectations). */
  const finalizerExpectations = new Map<string, Set<string>>();
  const backoffStore = new Map<string, BackoffRecord>();
  const jobInformer = ctx.informers.informerFor<Job>(jobs);
  const podInformer = ctx.informers.informerFor<Pod>(pods);
  jobInformer.cache.addIndex('uid', (j) => [j.metadata!.uid!]);
  podInformer.cache.addIndex('controller', (p) => [controllerOf(p)?.uid ?? '']);
  const log = ctx.log.child({ controller: name });
  const batch = SYNC_BATCH_MS / ctx.speed;

  const ownerJob = (pod: Pod): Job | undefined => {
    const ref = controllerOf(pod);
    if (ref?.kind !== 'Job') return undefined;
    const job = jobInformer.cache.byIndex('uid', ref.uid)[0];
    return job && job.metadata?.name === ref.name ? job : undefined;
  };
  const enqueueOrphan = (pod: Pod) => queue.add(ORPHAN + keyOf(pod));
  const finalizerRemovalObserved = (key: string, uid: string) => finalizerExpectations.get(key)?.delete(uid);
  const enqueueMatching = (pod: Pod) => {
    for (const j of jobInformer.cache.byIndex('namespace', pod.metadata!.namespace!)) if (selects(j, pod)) queue.addAfter(keyOf(j), batch);
  };

  const podDeleted = (pod: Pod, final: boolean) => {
    const ref = controllerOf(pod);
    const hasFin = hasTrackingFinalizer(pod);
    if (!ref) {
      if (hasFin) enqueueOrphan(pod);
      return;
    }
    const job = ownerJob(pod);
    if (!job || isJobFinished(job)) {
      if (hasFin) enqueueOrphan(pod);
      return;
    }
    const key = keyOf(job);
    expectations.deletionObserved(key, keyOf(pod));
    if (final || !hasFin) finalizerRemovalObserved(key, pod.metadata!.uid!);
    queue.addAfter(key, batch);
  };
  const cleanupPodFinalizers = (job: Job) => {
    for (const p of podInformer.cache.byIndex('controller', job.metadata!.uid!)) if (hasTrackingFinalizer(p)) enqueueOrphan(p);
  };

  jobInformer.on({
    add: (job) => queue.add(keyOf(job)),
    update: (old, job) => {
      const key = keyOf(job);
      if (old.metadata?.generation === job.metadata?.generation) queue.addAfter(key, batch);
      else queue.add(key);
      if (isJobFinished(job)) cleanupPodFinalizers(job);
      const ads = job.spec?.activeDeadlineSeconds;
      const started = Date.parse(job.status?.startTime ?? '');
      if (typeof ads === 'number' && Number.isFinite(started) && old.spec?.activeDeadlineSeconds !== ads) {
        queue.addAfter(key, started + (ads * 1000) / ctx.speed - ctx.clock.now());
      }
    },
    delete: (job) => {
      queue.add(keyOf(job));
      cleanupPodFinalizers(job);
    },
  });
  podInformer.on({
    add: (pod) => {
      if (pod.metadata?.deletionTimestamp) return podDeleted(pod, false);
      const ref = controllerOf(pod);
      if (ref) {
        const job = ownerJob(pod);
        if (!job) return;
        const key = keyOf(job);
        expectations.creationObserved(key);
        queue.addAfter(key, batch);
        return;
      }
      if (hasTrackingFinalizer(pod)) enqueueOrphan(pod);
      enqueueMatching(pod);
    },
    update: (old, pod) => {
      if (old.metadata?.resourceVersion === pod.metadata?.resourceVersion) return;
      if (pod.metadata?.deletionTimestamp) return podDeleted(pod, false);
      const removed = !hasTrackingFinalizer(pod);
      const ref = controllerOf(pod);
      const oldRef = controllerOf(old);
      const refChanged = ref?.uid !== oldRef?.uid;
      if (refChanged && oldRef) {
        const oldJob = ownerJob(old);
        if (oldJob) {
          if (removed) finalizerRemovalObserved(keyOf(oldJob), pod.metadata!.uid!);
          queue.addAfter(keyOf(oldJob), batch);
        }
      }
      if (ref) {
        const job = ownerJob(pod);
        if (!job) return;
        if (removed) finalizerRemovalObserved(keyOf(job), pod.metadata!.uid!);
        queue.addAfter(keyOf(job), batch);
        return;
      }
      if (hasTrackingFinalizer(pod)) enqueueOrphan(pod);
      if (refChanged || JSON.stringify(pod.metadata?.labels ?? {}) !== JSON.stringify(old.metadata?.labels ?? {})) enqueueMatching(pod);
    },
    delete: (pod) => podDeleted(pod, true),
  });

  const event = (job: Job, e: JobEvent) => ctx.events.event(job, e.type, e.reason, e.message);

  /** syncOrphanPod: drops the tracking finalizer of a Pod no unfinished Job owns. */
  async function syncOrphan(podKey: string): Promise<void> {
    const pod = podInformer.cache.get(podKey);
    if (!pod || !hasTrackingFinalizer(pod)) return;
    const ref = controllerOf(pod);
    if (ref) {
      if (ref.kind !== 'Job' || ref.apiVersion !== 'batch/v1') return;
      const job = ownerJob(pod);
      if (job && !isJobFinished(job)) return;
    }
    await patchOutFinalizer(pod);
  }

  async function patchOutFinalizer(pod: Pod): Promise<void> {
    try {
      await ctx.client.patch(pods, pod.metadata!.namespace, pod.metadata!.name!, 'strategic', {
        metadata: { ['$deleteFromPrimitiveList/finalizers']: [JOB_TRACKING_FINALIZER] },
      });
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }

  /** getPodsForJob: the Pods the Job controls after adoption (adopted ones get the finalizer too) and release. */
  async function podsForJob(job: Job): Promise<Pod[]> {
    const ns = job.metadata!.namespace!;
    const owned = await claim({
      owner: job,
      ownerApiVersion: 'batch/v1',
      ownerKind: 'Job',
      candidates: podInformer.cache.byIndex('namespace', ns),
      selects: (p: Pod) => selects(job, p),
      patch: (p: Pod, patch) => {
        const body = patch as { metadata: Record<string, unknown> };
        const adopting = !(controllerOf(p)?.uid === job.metadata!.uid);
        if (adopting && !hasTrackingFinalizer(p)) body.metadata.finalizers = [JOB_TRACKING_FINALIZER];
        return ctx.client.patch(pods, ns, p.metadata!.name!, 'strategic', body);
      },
    });
    return owned.map((p) => {
      if (controllerOf(p)?.uid === job.metadata!.uid || hasTrackingFinalizer(p)) return p;
      const copy = structuredClone(p);
      copy.metadata!.finalizers = [...(copy.metadata!.finalizers ?? []), JOB_TRACKING_FINALIZER];
      return copy;
    });
  }

  async function updateStatus(job: Job): Promise<Job> {
    return ctx.client.update<Job>(jobs, { ...job, apiVersion: 'batch/v1', kind: 'Job' }, 'status');
  }

  async function deletePod(job: Job, pod: Pod): Promise<void> {
    await ctx.client.delete(pods, pod.metadata!.namespace, pod.metadata!.name!);
    event(job, { type: 'Normal', reason: 'SuccessfulDelete', message: `Deleted pod: ${pod.metadata!.name}` });
  }

  /** deleteActivePods (the Job failed): deletions keep the finalizers; returns how many and how many were ready. */
  async function deleteActivePods(job: Job, victims: Pod[]): Promise<{ deleted: number; ready: number; err?: Error }> {
    let deleted = victims.length;
    let ready = 0;
    let firstErr: Error | undefined;
    await Promise.all(
      victims.map(async (p) => {
        try {
          await deletePod(job, p);
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 404)) {
            deleted--;
            firstErr ??= err as Error;
            ctx.events.event(job, 'Warning', 'FailedDelete', `Error deleting: ${(err as Error).message}`);
          }
        }
        if (isReady(p)) ready++;
      }),
    );
    return { deleted, ready, err: firstErr };
  }

  /** deleteJobPods (too many Pods, or suspended): the finalizer goes first, then the Pod. */
  async function deleteJobPods(job: Job, key: string, victims: Pod[]): Promise<{ deleted: number; ready: number; err?: Error }> {
    expectations.expectDeletions(key, victims.map(keyOf));
    let deleted = victims.length;
    let ready = 0;
    let firstErr: Error | undefined;
    await Promise.all(
      victims.map(async (p) => {
        try {
          if (hasTrackingFinalizer(p)) await patchOutFinalizer(p);
          await deletePod(job, p);
        } catch (err) {
          expectations.deletionObserved(key, keyOf(p));
          if (!(err instanceof StatusError && err.code === 404)) {
            deleted--;
            firstErr ??= err as Error;
            ctx.events.event(job, 'Warning', 'FailedDelete', `Error deleting: ${(err as Error).message}`);
          }
        }
        if (isReady(p)) ready++;
      }),
    );
    return { deleted, ready, err: firstErr };
  }

  /** Creates the Pods in slow-start batches; returns how many creates failed or were not sent. */
  async function createPods(
    job: Job,
    key: string,
    sctx: SyncCtx,
    count: number,
    indexes?: number[],
  ): Promise<{ failed: number; err?: Error }> {
    expectations.expectCreations(key, count);
    const queueIx = indexes ? [...indexes] : undefined;
    let remaining = count;
    let failed = 0;
    let firstErr: Error | undefined;
    for (const size of slowStartBatches(count)) {
      const results = await Promise.allSettled(
        Array.from({ length: size }, () => {
          const ix = queueIx?.shift();
          const pod = podForJob(job, ix, ix === undefined ? undefined : sctx.podsWithDelayedDeletionPerIndex.get(ix));
          return ctx.client.create<Pod>(pods, job.metadata!.namespace, pod);
        }),
      );
      remaining -= size;
      let batchFailed = false;
      for (const r of results) {
        if (r.status === 'fulfilled') {
          event(job, { type: 'Normal', reason: 'SuccessfulCreate', message: `Created pod: ${r.value.metadata!.name}` });
          continue;
        }
        expectations.creationObserved(key);
        const err = r.reason as Error;
        // A namespace being torn down refuses every create; that is no failure of the Job's.
        if (err instanceof StatusError && err.code === 403 && /is being terminated/.test(err.message)) continue;
        failed++;
        batchFailed = true;
        firstErr ??= err;
        ctx.events.event(job, 'Warning', 'FailedCreate', `Error creating: ${err.message}`);
      }
      if (batchFailed) {
        for (let i = 0; i < remaining; i++) expectations.creationObserved(key);
        failed += remaining;
        break;
      }
    }
    return { failed, err: firstErr };
  }

  /** removeTrackingFinalizerFromPods: the uids whose finalizer is gone. */
  async function removeFinalizers(key: string, victims: Pod[]): Promise<{ removed: Set<string>; err?: Error }> {
    const expected = finalizerExpectations.get(key) ?? new Set<string>();
    for (const p of victims) expected.add(p.metadata!.uid!);
    finalizerExpectations.set(key, expected);
    const removed = new Set<string>();
    let firstErr: Error | undefined;
    await Promise.all(
      victims.map(async (p) => {
        if (!hasTrackingFinalizer(p)) return;
        try {
          await ctx.client.patch(pods, p.metadata!.namespace, p.metadata!.name!, 'strategic', {
            metadata: { ['$deleteFromPrimitiveList/finalizers']: [JOB_TRACKING_FINALIZER] },
          });
          removed.add(p.metadata!.uid!);
        } catch (err) {
          expected.delete(p.metadata!.uid!);
          if (err instanceof StatusError && err.code === 404) removed.add(p.metadata!.uid!);
          else firstErr ??= err as Error;
        }
      }),
    );
    return { removed, err: firstErr };
  }

  async function syncJob(key: string, item?: ReconcileItem): Promise<{ requeueAfterMs?: number } | void> {
    const shared = jobInformer.cache.get(key);
    if (!shared) {
      expectations.delete(key);
      finalizerExpectations.delete(key);
      backoffStore.delete(key);
      return;
    }
    if (shared.spec?.managedBy && shared.spec.managedBy !== 'kubernetes.io/job-controller') return;
    if (isJobFinished(shared)) {
      backoffStore.delete(key);
      return;
    }
    const job: Job = structuredClone(shared);
    const mode = job.spec?.completionMode;
    if (mode && mode !== 'NonIndexed' && mode !== 'Indexed') {
      ctx.events.event(job, 'Warning', 'UnknownCompletionMode', 'Skipped Job sync because completion mode is unknown');
      return;
    }
    const satisfied = expectations.satisfied(key);
    const owned = await podsForJob(job);
    const now = ctx.clock.now();
    const sctx = assess({
      job,
      pods: owned,
      now,
      speed: ctx.speed,
      satisfiedExpectations: satisfied,
      expectedRmFinalizers: new Set(finalizerExpectations.get(key) ?? []),
      backoff: backoffStore.get(key),
    });
    let requeueAfterMs = sctx.deadlineRequeueMs;
    const later = (ms: number) => (requeueAfterMs = requeueAfterMs === undefined ? ms : Math.min(requeueAfterMs, ms));
    let active = sctx.activePods.length;
    let manageErr: Error | undefined;
    let conditionChanged = false;
    const events: JobEvent[] = [];
    if (sctx.finishedCondition) {
      item?.note(finishedNotes(sctx));
      const r = await deleteActivePods(job, sctx.activePods);
      if (r.deleted !== active || !satisfied) sctx.finishedCondition = undefined;
      active -= r.deleted;
      sctx.terminating += r.deleted;
      sctx.ready -= r.ready;
      manageErr = r.err;
    } else {
      let manageCalled = false;
      if (!satisfied) item?.note(manageNotes(sctx, undefined));
      if (satisfied && !job.metadata?.deletionTimestamp) {
        manageCalled = true;
        const action = manage(sctx);
        item?.note(manageNotes(sctx, action));
        if (action.kind === 'delete') {
          const r = await deleteJobPods(job, key, action.pods);
          active -= r.deleted;
          sctx.terminating += r.deleted;
          sctx.ready -= r.ready;
          manageErr = r.err;
        } else if (action.kind === 'wait') {
          later(Math.max(action.delayMs, batch));
          active = 0;
        } else if (action.kind === 'create') {
          const r = await createPods(job, key, sctx, action.count, action.indexes);
          active += action.count - r.failed;
          manageErr = r.err;
        }
      }
      const after = afterManage(sctx, active, manageCalled);
      if (sctx.finishedCondition) item?.note(finishedNotes(sctx));
      conditionChanged = after.changed;
      events.push(...after.events);
    }
    const countsChanged = setCounts(sctx, active);
    for (const e of events) event(job, e);

    // trackJobStatusAndRemoveFinalizers
    const plan = trackStatus(sctx, conditionChanged || countsChanged);
    let needsFlush = plan.needsFlush;
    if (needsFlush) {
      sctx.job = await updateStatus(sctx.job);
      backoffStore.set(key, sctx.newBackoffRecord);
      needsFlush = false;
    }
    let rmErr: Error | undefined;
    if (plan.podsToRemoveFinalizer.length) {
      const r = await removeFinalizers(key, plan.podsToRemoveFinalizer);
      for (const uid of r.removed) plan.uidsWithFinalizer.delete(uid);
      rmErr = r.err;
    }
    const status = (sctx.job.status ??= {});
    if (cleanUncounted(status, plan.uidsWithFinalizer)) needsFlush = true;
    if (rmErr) {
      if (needsFlush) await updateStatus(sctx.job);
      throw rmErr;
    }
    const finished = plan.reachedMaxUncounted ? { finished: false, events: [] } : enactFinished(sctx);
    if (finished.finished) needsFlush = true;
    if (needsFlush) {
      sctx.job = await updateStatus(sctx.job);
      for (const e of finished.events) event(sctx.job, e);
    }
    if (manageErr) throw manageErr;
    return requeueAfterMs !== undefined ? { requeueAfterMs } : undefined;
  }

  async function reconcile(key: string, item?: ReconcileItem) {
    if (key.startsWith(ORPHAN)) return syncOrphan(key.slice(ORPHAN.length));
    const { namespace, name: jobName } = splitKey(key);
    if (!namespace || !jobName) return;
    return syncJob(key, item);
  }

  log.debug('configured');
  return { name, queue, informers: [jobInformer, podInformer], reconcile };
}
