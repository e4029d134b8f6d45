// What a Job sync notes for step-through (shared/controller/stepper.ts): the
// counts it saw against parallelism and completions, and why it creates,
// deletes, waits or finishes. Built from what plan.ts already computed.
import type { DecisionNotes } from '../../../shared/controller/stepper.ts';
import { isSuspended, type ManageAction, type SyncCtx } from './plan.ts';

/** The want-vs-have arithmetic behind manage()'s action (or why manage was skipped). */
export function manageNotes(ctx: SyncCtx, action: ManageAction | undefined): DecisionNotes {
  const job = ctx.job;
  const active = ctx.activePods.length;
  const parallelism = job.spec?.parallelism ?? 1;
  const completions = job.spec?.completions;
  const have = { active, succeeded: ctx.succeeded, failed: ctx.failed, terminating: ctx.terminating };
  let want: string;
  if (isSuspended(job)) want = 'suspended: want 0 active';
  else if (completions === undefined || completions === null)
    want =
      ctx.succeeded > 0
        ? `no completions set and a Pod succeeded: want no new Pods, keep ${active} active`
        : `no completions set: want parallelism ${parallelism} active`;
  else {
    const n = Math.max(0, Math.min(completions - ctx.succeeded, parallelism));
    want = `want min(parallelism ${parallelism}, completions ${completions} - succeeded ${ctx.succeeded}) = ${n} active, have ${active}`;
  }
  let decision: string;
  if (!action) decision = 'wait: creates or deletes it made are not all observed yet (expectations)';
  else if (action.kind === 'create')
    decision = `create ${action.count} Pod(s)${action.indexes ? ` for index(es) ${action.indexes.join(', ')}` : ''}`;
  else if (action.kind === 'delete') decision = `delete ${action.pods.map((p) => p.metadata?.name).join(', ')}`;
  else if (action.kind === 'wait')
    decision = `wait ${Math.ceil(action.delayMs / 1000)}s: back-off after ${ctx.newBackoffRecord.failuresAfterLastSuccess} failure(s) since the last success`;
  else decision = 'nothing to do: have what is wanted';
  return { step: 'manage', want, have, decision };
}

/** Why the Job is finishing: backoffLimit reached, deadline exceeded, complete, or a policy. */
export function finishedNotes(ctx: SyncCtx): DecisionNotes {
  const c = ctx.finishedCondition!;
  const job = ctx.job;
  let why: string;
  if (c.reason === 'BackoffLimitExceeded') why = `failed ${ctx.failed} > backoffLimit ${job.spec?.backoffLimit ?? 6}`;
  else if (c.reason === 'DeadlineExceeded') why = `active longer than activeDeadlineSeconds ${job.spec?.activeDeadlineSeconds}s`;
  else if (c.reason === 'CompletionsReached') why = `succeeded ${ctx.succeeded} >= completions ${job.spec?.completions ?? 1}, none active`;
  else why = c.message ?? '';
  return {
    step: 'finish',
    condition: `${c.type} (${c.reason})`,
    why,
    decision:
      c.reason === 'CompletionsReached'
        ? 'complete: mark the Job Complete'
        : `delete the ${ctx.activePods.length} active Pod(s) and mark the Job ${c.type === 'FailureTarget' ? 'Failed' : c.type}`,
  };
}
