// batch/v1 printers: Job (Status, Completions "1/3" or "0/1 of 3", Duration)
// and CronJob (Schedule, Timezone, Suspend, Active, Last Schedule).
import type { CronJob, Job, JobCondition } from 'kubernetes-types/batch/v1.js';
import { humanDuration, parseTime, since } from './duration.ts';
import { containerCells, formatLabelSelector, int } from './format.ts';
import { ageColumn, column, nameColumn, wide } from './types.ts';
import type { PrintContext, PrintedRow, Printer } from './types.ts';

/** hasJobCondition: the first condition of that type decides. */
const hasCondition = (conditions: JobCondition[] | undefined, type: string): boolean =>
  (conditions ?? []).find((c) => c.type === type)?.status === 'True';

/** The Job's Status cell, in kube's order of precedence. */
export function jobStatus(job: Job): string {
  const conditions = job.status?.conditions;
  if (hasCondition(conditions, 'Complete')) return 'Complete';
  if (hasCondition(conditions, 'Failed')) return 'Failed';
  if (job.metadata?.deletionTimestamp) return 'Terminating';
  if (hasCondition(conditions, 'Suspended')) return 'Suspended';
  if (hasCondition(conditions, 'FailureTarget')) return 'FailureTarget';
  if (hasCondition(conditions, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

/** "succeeded/completions"; without completions "n/1", or "n/1 of p" for parallelism > 1. */
export function jobCompletions(job: Job): string {
  const succeeded = int(job.status?.succeeded);
  const completions = job.spec?.completions;
  if (completions !== undefined && completions !== null) return `${succeeded}/${int(completions)}`;
  const parallelism = int(job.spec?.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** Run time so far (or in total once completed); "" before the job starts. */
export function jobDuration(job: Job, now: Date): string {
  const start = parseTime(job.status?.startTime);
  if (start === undefined) return '';
  const end = parseTime(job.status?.completionTime);
  return humanDuration((end ?? now.getTime()) - start);
}

/** batch/v1 Job: Name, Status, Completions, Duration, Age; wide Containers, Images, Selector. */
export const jobPrinter: Printer<Job> = {
  columns: [
    nameColumn(),
    column('Status', 'string', 'The job status: Running, Complete, Failed, Suspended...'),
    column('Completions', 'string', 'Succeeded pods out of the completions wanted.'),
    column('Duration', 'string', 'How long the job ran, or has been running.'),
    ageColumn(),
    wide(column('Containers', 'string', 'Names of the containers in the pod template.')),
    wide(column('Images', 'string', 'Images of the containers in the pod template.')),
    wide(column('Selector', 'string', "The label selector of the job's pods.")),
  ],
  row(job: Job, ctx: PrintContext): PrintedRow {
    const [names, images] = containerCells(job.spec?.template?.spec?.containers);
    return {
      cells: [
        job.metadata?.name ?? '',
        jobStatus(job),
        jobCompletions(job),
        jobDuration(job, ctx.now),
        since(job.metadata?.creationTimestamp, ctx.now),
        names,
        images,
        formatLabelSelector(job.spec?.selector),
      ],
    };
  },
};

/** printBoolPtr: "True", "False" or "<unset>". */
const boolPtr = (v: boolean | undefined | null): string => (v === undefined || v === null ? '<unset>' : v ? 'True' : 'False');

/** batch/v1 CronJob: Name, Schedule, Timezone, Suspend, Active, Last Schedule, Age; wide Containers, Images, Selector. */
export const cronJobPrinter: Printer<CronJob> = {
  columns: [
    nameColumn(),
    column('Schedule', 'string', 'The cron schedule.'),
    column('Timezone', 'string', 'The time zone the schedule is read in.'),
    column('Suspend', 'boolean', 'Whether new runs are suspended.'),
    column('Active', 'integer', 'Number of jobs currently running.'),
    column('Last Schedule', 'string', 'Time since a job was last scheduled.'),
    ageColumn(),
    wide(column('Containers', 'string', 'Names of the containers in the job template.')),
    wide(column('Images', 'string', 'Images of the containers in the job template.')),
    wide(column('Selector', 'string', 'The label selector of the job template.')),
  ],
  row(cj: CronJob, ctx: PrintContext): PrintedRow {
    const [names, images] = containerCells(cj.spec?.jobTemplate?.spec?.template?.spec?.containers);
    const last = cj.status?.lastScheduleTime ? since(cj.status.lastScheduleTime, ctx.now) : '<none>';
    return {
      cells: [
        cj.metadata?.name ?? '',
        cj.spec?.schedule ?? '',
        cj.spec?.timeZone ?? '<none>',
        boolPtr(cj.spec?.suspend),
        (cj.status?.active ?? []).length,
        last,
        since(cj.metadata?.creationTimestamp, ctx.now),
        names,
        images,
        formatLabelSelector(cj.spec?.jobTemplate?.spec?.selector),
      ],
    };
  },
};
