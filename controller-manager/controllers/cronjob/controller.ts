// The CronJob controller (kube's cronjob_controllerv2.go): creates a Job per
// schedule activation on cluster time, keeps status.active, lastScheduleTime
// and lastSuccessfulTime, deletes finished Jobs beyond the history limits and
// running ones under concurrencyPolicy Replace, and requeues each CronJob for
// just after its next activation. Decisions come from plan.ts; this file
// reads the caches and writes through the API.
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { controllerOf } from '../../../shared/controller/owner-refs.ts';
import { keyOf } from '../../../shared/informer/cache.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import type { ReconcileItem } from '../../../shared/controller/stepper.ts';
import { ClusterTime } from './cluster-time.ts';
import { creationSkew } from './metrics.ts';
import { cronJobNotes, nextNote } from './notes.ts';
import { jobsBeyondHistory, planSchedule } from './plan.ts';
import {
  deleteFromActiveList,
  finishedCondition,
  formatSchedule,
  inActiveList,
  isJobSucceeded,
  jobRef,
  nextScheduleTimeDuration,
  parseSchedule,
  type CronEvent,
} from './utils.ts';

const cronjobs = findResource('batch', 'v1', 'cronjobs')!;
const jobs = findResource('batch', 'v1', 'jobs')!;

const isNotFound = (err: unknown) => err instanceof StatusError && err.code === 404;
const isAlreadyExists = (err: unknown) => err instanceof StatusError && err.code === 409 && err.reason === 'AlreadyExists';
const namespaceTerminating = (err: unknown) =>
  err instanceof StatusError && (err.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');

/** Builds the CronJob controller. */
export function cronJobController(ctx: ControllerContext): ControllerParts {
  const name = 'cronjob';
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const cjInformer = ctx.informers.informerFor<CronJob>(cronjobs);
  const jobInformer = ctx.informers.informerFor<Job>(jobs);
  const log = ctx.log.child({ controller: name });
  const clusterTime = (cj: CronJob) => ClusterTime.of(cj, ctx.speed);
  const record = (cj: CronJob, e: CronEvent) => ctx.events.event(cj, e.type, e.reason, e.message);
  const skew = creationSkew(ctx.registry);

  /** resolveControllerRef: the CronJob a Job's controller reference names, if it is still that one. */
  const ownerOf = (job: Job): CronJob | undefined => {
    const ref = controllerOf(job);
    if (ref?.kind !== 'CronJob') return undefined;
    const cj = cjInformer.cache.get(`${job.metadata!.namespace}/${ref.name}`);
    return cj?.metadata?.uid === ref.uid ? cj : undefined;
  };
  const enqueueOwner = (job: Job) => {
    const cj = ownerOf(job);
    if (cj) queue.add(keyOf(cj));
  };

  cjInformer.on({
    add: (cj) => queue.add(keyOf(cj)),
    update: (old, cj) => {
      // A new schedule waits for its next activation rather than catching up on the old one's.
      if (old.spec?.schedule !== cj.spec?.schedule || (old.spec?.timeZone ?? null) !== (cj.spec?.timeZone ?? null)) {
        const parsed = parseSchedule(formatSchedule(cj).spec);
        if (!parsed.schedule) {
          ctx.events.event(cj, 'Warning', 'UnParseableCronJobSchedule', `unparseable schedule for cronjob: ${cj.spec?.schedule}`);
          return;
        }
        const ct = clusterTime(cj);
        const wait = nextScheduleTimeDuration(cj, ct.cluster(ctx.clock.now()), parsed.schedule, ct);
        queue.addAfter(keyOf(cj), Math.ceil(ct.realDuration(wait)));
        return;
      }
      queue.add(keyOf(cj));
    },
    delete: (cj) => queue.add(keyOf(cj)),
  });
  jobInformer.on({
    add: enqueueOwner,
    update: (old, job) => {
      if (old.metadata?.resourceVersion === job.metadata?.resourceVersion) return;
      const oldRef = controllerOf(old);
      const ref = controllerOf(job);
      if (oldRef && (oldRef.uid !== ref?.uid || oldRef.name !== ref?.name)) enqueueOwner(old);
      enqueueOwner(job);
    },
    delete: enqueueOwner,
  });

  /** getJobsToBeReconciled: every Job in the namespace whose controller reference names this CronJob. */
  const jobsOf = (cj: CronJob): Job[] =>
    jobInformer.cache.byIndex('namespace', cj.metadata!.namespace!).filter((j) => controllerOf(j)?.name === cj.metadata!.name);

  /** deleteJob: deletes the Job (its Pods in the background) and drops it from the active list. */
  async function deleteJob(cj: CronJob, job: { metadata?: { name?: string; namespace?: string; uid?: string } }): Promise<boolean> {
    try {
      await ctx.client.delete(jobs, job.metadata!.namespace, job.metadata!.name!, { propagationPolicy: 'Background' });
    } catch (err) {
      ctx.events.event(cj, 'Warning', 'FailedDelete', `Deleted job: ${(err as Error).message}`);
      log.warn({ job: job.metadata!.name, err: (err as Error).message }, 'error deleting job from cronjob');
      return false;
    }
    deleteFromActiveList(cj, job.metadata!.uid);
    ctx.events.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata!.name}`);
    return true;
  }

  /** The active-list half of syncCronJob: finished, unexpected and vanished Jobs. Changes `cj`; true when status changed. */
  async function reconcileActive(cj: CronJob, children: Job[]): Promise<{ cj: CronJob; changed: boolean }> {
    let changed = false;
    const uids = new Set(children.map((j) => j.metadata!.uid));
    for (const job of children) {
      const found = inActiveList(cj, job.metadata!.uid);
      const finished = finishedCondition(job);
      if (!found && !finished) {
        const fresh = await ctx.client.get<CronJob>(cronjobs, cj.metadata!.namespace, cj.metadata!.name!);
        if (inActiveList(fresh, job.metadata!.uid)) {
          cj = structuredClone(fresh);
          continue;
        }
        ctx.events.event(cj, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${job.metadata!.name}`);
      } else if (finished) {
        if (found) {
          deleteFromActiveList(cj, job.metadata!.uid);
          ctx.events.event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata!.name}, condition: ${finished}`);
          changed = true;
        }
        const completed = job.status?.completionTime;
        if (isJobSucceeded(job) && completed) {
          const last = cj.status?.lastSuccessfulTime;
          if (!last || Date.parse(completed) > Date.parse(last)) {
            cj.status = { ...cj.status, lastSuccessfulTime: completed };
            changed = true;
          }
        }
      }
    }
    for (const ref of [...(cj.status?.active ?? [])]) {
      if (uids.has(ref.uid)) continue;
      // The cache may be behind: ask the apiserver before calling the Job missing.
      try {
        await ctx.client.get<Job>(jobs, ref.namespace, ref.name!);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        ctx.events.event(cj, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
        deleteFromActiveList(cj, ref.uid);
        changed = true;
      }
    }
    return { cj, changed };
  }

  /** syncCronJob: returns the real requeue delay (if any), whether status changed, and the error to retry on. */
  async function syncCronJob(
    cj: CronJob,
    children: Job[],
    item?: ReconcileItem,
  ): Promise<{ cj: CronJob; requeueMs?: number; changed: boolean; error?: Error }> {
    let changed = false;
    try {
      const r = await reconcileActive(cj, children);
      cj = r.cj;
      changed = r.changed;
      const ct = clusterTime(cj);
      const now = ct.cluster(ctx.clock.now());
      const plan = planSchedule(cj, now, ct);
      item?.note(cronJobNotes(cj, plan, now, ct));
      for (const e of plan.events) record(cj, e);
      const toReal = (ms: number) => Math.max(0, Math.ceil(ct.realDuration(ms)));
      if (!plan.create) return { cj, changed, requeueMs: plan.requeueAfter === undefined ? undefined : toReal(plan.requeueAfter) };

      for (const ref of plan.create.replace) {
        let job: Job;
        try {
          job = await ctx.client.get<Job>(jobs, ref.namespace, ref.name!);
        } catch (err) {
          ctx.events.event(cj, 'Warning', 'FailedGet', `Get job: ${(err as Error).message}`);
          return { cj, changed, error: err as Error };
        }
        if (!(await deleteJob(cj, job))) return { cj, changed, error: new Error(`could not replace job ${ref.namespace}/${ref.name}`) };
        changed = true;
      }

      const request = plan.create.job;
      let created: Job;
      try {
        created = await ctx.client.create<Job>(jobs, cj.metadata!.namespace, request);
        const createdAt = Date.parse(created.metadata?.creationTimestamp ?? '');
        if (Number.isFinite(createdAt)) skew.observe((createdAt - ct.real(plan.create.scheduled)) / 1000);
        ctx.events.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata!.name}`);
      } catch (err) {
        if (namespaceTerminating(err)) return { cj, changed, error: err as Error };
        if (!isAlreadyExists(err)) {
          ctx.events.event(cj, 'Warning', 'FailedCreate', `Error creating job: ${(err as Error).message}`);
          return { cj, changed, error: err as Error };
        }
        // Created earlier without the status saying so: take it into the active list again, if it is ours.
        created = await ctx.client.get<Job>(jobs, cj.metadata!.namespace, request.metadata!.name!);
        if (controllerOf(created)?.uid !== cj.metadata!.uid || inActiveList(cj, created.metadata!.uid)) return { cj, changed };
        log.info({ cronjob: keyOf(cj), job: request.metadata!.name }, 'Job already exists');
      }
      cj.status = {
        ...cj.status,
        active: [...(cj.status?.active ?? []), jobRef(created)],
        lastScheduleTime: ct.stamp(plan.create.scheduled),
      };
      changed = true;
      const next = nextScheduleTimeDuration(cj, now, plan.create.schedule, ct);
      item?.note({ next: nextNote(now, next, ct) });
      return { cj, changed, requeueMs: toReal(next) };
    } catch (err) {
      return { cj, changed, error: err as Error };
    }
  }

  async function reconcile(key: string, item?: ReconcileItem) {
    const cached = cjInformer.cache.get(key);
    if (!cached) return;
    let cj = structuredClone(cached);
    const children = jobsOf(cj);
    let changed = false;
    for (const job of jobsBeyondHistory(cj, children)) if (await deleteJob(cj, job)) changed = true;
    const synced = await syncCronJob(cj, children, item);
    cj = synced.cj;
    if (synced.error) log.debug({ key, err: synced.error.message }, 'error reconciling cronjob');
    if (changed || synced.changed) {
      // An empty active list is left out, as Go's omitempty leaves it.
      if (cj.status?.active?.length === 0) delete cj.status.active;
      await ctx.client.update<CronJob>(cronjobs, cj, 'status');
    }
    if (synced.requeueMs !== undefined) return { requeueAfterMs: synced.requeueMs };
    if (synced.error) throw synced.error;
    return undefined;
  }

  log.debug('configured');
  return { name, queue, informers: [cjInformer, jobInformer], reconcile };
}
