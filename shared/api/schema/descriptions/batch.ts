// batch/v1: Job (completions, parallelism, retries, failure and success
// policies) and CronJob (schedule, concurrency, history).
import type { GroupTable } from './types.ts';
import { conditionFields } from './common.ts';

export const batch: GroupTable = {
  prefix: 'io.k8s.api.batch.v1',
  types: {
    Job: {
      spec: 'The pod to run and when the Job is done: how many completions, how many pods at once, how many retries.',
      status: 'How many pods are active, succeeded and failed, and whether the Job is Complete or Failed.',
    },
    JobSpec: {
      $: 'The desired state of a Job: run pods until enough of them succeed.',
      template: 'The pod to run. Its restartPolicy must be Never or OnFailure.',
      completions:
        'How many pods must succeed for the Job to be complete. Unset (with parallelism set) means the Job is done once any pod succeeds and the others have finished, as for a work queue; with neither set, both default to 1.',
      parallelism: 'The most pods running at the same time. Defaults to 1; 0 pauses the Job.',
      backoffLimit:
        'How many times pods may fail (counted as retries) before the Job is marked Failed. Defaults to 6. Retries wait 10 s, 20 s, 40 s, ... up to 6 minutes.',
      backoffLimitPerIndex: 'For Indexed Jobs: retries allowed per index, instead of for the Job as a whole.',
      maxFailedIndexes: 'With backoffLimitPerIndex: the Job fails once more than this many indexes have failed.',
      activeDeadlineSeconds:
        'How many seconds the Job may run, counted from its start, before its pods are killed and it fails with DeadlineExceeded. Wins over backoffLimit.',
      ttlSecondsAfterFinished:
        'Delete the Job (and its pods) this many seconds after it completes or fails. Unset keeps it; 0 deletes it at once.',
      completionMode:
        'NonIndexed (the default: any completions successes finish it) or Indexed (each pod gets an index 0 to completions-1, in the JOB_COMPLETION_INDEX variable and an annotation, and each index must succeed once).',
      suspend: 'When true, no pods are created and running ones are deleted; setting it back to false resumes the Job. Defaults to false.',
      selector: "Which pods belong to the Job. Normally generated from the Job's uid; only set it together with manualSelector.",
      manualSelector:
        'Set true to give your own selector instead of the generated one. Rarely needed; a wrong selector can capture other pods.',
      podFailurePolicy:
        'Rules that decide, by exit code or pod condition, whether a failed pod counts against backoffLimit, is ignored, or fails the Job at once.',
      podReplacementPolicy:
        'When a replacement for a failing pod is created: TerminatingOrFailed (as soon as the old one is terminating, the default) or Failed (only once it has fully stopped).',
      successPolicy: 'For Indexed Jobs: rules that declare the Job succeeded before every index has, e.g. when index 0 succeeds.',
      managedBy:
        'The controller that manages the Job. Unset or "kubernetes.io/job-controller" is the built-in one; another value leaves the Job to an external controller.',
    },
    JobStatus: {
      $: 'The observed state of a Job.',
      conditions:
        'Complete or Failed once the Job is finished (SuccessCriteriaMet and FailureTarget just before), Suspended while suspended.',
      startTime: 'When the Job controller started working on the Job (again after a resume).',
      completionTime: 'When the Job completed; only set on success.',
      active: 'Pods that are pending or running.',
      succeeded: 'Pods that succeeded.',
      failed: 'Pods that failed.',
      terminating: 'Pods that are shutting down.',
      ready: 'Active pods that are Ready.',
      completedIndexes: 'For Indexed Jobs: the indexes that succeeded, as ranges, e.g. "0-3,7".',
      failedIndexes: 'With backoffLimitPerIndex: the indexes that failed, as ranges.',
      uncountedTerminatedPods:
        "Finished pods not yet counted in succeeded or failed (the controller's bookkeeping while it removes their finalizers).",
    },
    JobCondition: conditionFields('job', 'Complete, Failed, Suspended, FailureTarget, SuccessCriteriaMet', {
      lastProbeTime: 'When the condition was last checked.',
    }),
    UncountedTerminatedPods: {
      $: 'UIDs of finished pods the Job controller has yet to count.',
      succeeded: 'UIDs of succeeded pods.',
      failed: 'UIDs of failed pods.',
    },
    JobTemplateSpec: {
      $: 'The Job a CronJob creates on each run.',
      metadata: 'Labels and annotations for the Jobs created.',
      spec: 'The spec of the Jobs created.',
    },
    PodFailurePolicy: {
      $: 'How pod failures are handled.',
      rules: 'Rules checked in order for each failed pod; the first match decides. No match counts the failure against backoffLimit.',
    },
    PodFailurePolicyRule: {
      $: 'A rule for failed pods, by exit code or condition.',
      action:
        'FailJob (fail the Job at once), FailIndex (fail this index, with backoffLimitPerIndex), Ignore (do not count it against backoffLimit, just replace the pod) or Count (count it as usual).',
      onExitCodes: 'Matches by the exit codes of the containers.',
      onPodConditions: 'Matches by conditions of the pod, e.g. DisruptionTarget for pods that were evicted or preempted.',
    },
    PodFailurePolicyOnExitCodesRequirement: {
      $: 'Matches failed pods by container exit codes.',
      containerName: 'Only look at this container. Unset looks at all of them.',
      operator: 'In (some container exited with one of values) or NotIn (some container exited with a code not in values).',
      values: 'The exit codes (0 is not allowed with In), at most 255.',
    },
    PodFailurePolicyOnPodConditionsPattern: {
      $: 'Matches failed pods by a condition.',
      type: 'The condition type, e.g. DisruptionTarget.',
      status: 'The status it must have. Defaults to True.',
    },
    SuccessPolicy: { $: 'When an Indexed Job counts as succeeded early.', rules: 'The rules; any match makes the Job succeed.' },
    SuccessPolicyRule: {
      $: 'A success rule: some set of indexes, or some number of them, succeeded.',
      succeededIndexes: 'The indexes that must all succeed, as ranges, e.g. "0,2-4".',
      succeededCount: 'How many indexes (of succeededIndexes, if given) must succeed.',
    },
    CronJob: {
      spec: 'When to run (a cron schedule) and the Job to create each time.',
      status: 'The Jobs running now and when the last ones were scheduled and succeeded.',
    },
    CronJobSpec: {
      $: 'The desired state of a CronJob.',
      schedule:
        'When to run, in cron syntax: minute hour day-of-month month day-of-week, e.g. "*/5 * * * *" for every five minutes, or a macro such as @hourly.',
      timeZone: 'The time zone the schedule is read in, e.g. "Europe/Paris". Defaults to the controller\'s (usually UTC).',
      startingDeadlineSeconds:
        'How late, in seconds, a missed run may still be started. Runs missed by more are skipped. Unset means no deadline.',
      concurrencyPolicy:
        'What to do when a run is due while the previous Job still runs: Allow (run both, the default), Forbid (skip the new run) or Replace (delete the running Job, start the new one).',
      suspend: 'When true, no new runs start; running Jobs are not affected. Defaults to false.',
      jobTemplate: 'The Job to create on each run.',
      successfulJobsHistoryLimit: 'How many finished successful Jobs to keep. Defaults to 3.',
      failedJobsHistoryLimit: 'How many failed Jobs to keep. Defaults to 1.',
    },
    CronJobStatus: {
      $: 'The observed state of a CronJob.',
      active: 'The Jobs of this CronJob that are running.',
      lastScheduleTime: 'When a Job was last scheduled.',
      lastSuccessfulTime: 'When a Job last completed successfully.',
    },
  },
};
