// Table tests of the Job controller's pure decisions: index intervals, the
// back-off, the pod failure and success policies, what a sync creates or
// deletes, and the finalizer-tracked status steps up to Complete / Failed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { firstPending, format, generateNameWithIndex, has, parse, total, withIndexes } from './indexes.ts';
import { backoffRemaining, matchPodFailurePolicy, matchSuccessPolicy, nextBackoffRecord } from './policy.ts';
import {
  JOB_TRACKING_FINALIZER,
  afterManage,
  assess,
  cleanUncounted,
  enactFinished,
  manage,
  pastBackoffLimitOnFailure,
  podForJob,
  setCounts,
  trackStatus,
  type SyncInput,
} from './plan.ts';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

function job(spec: Partial<NonNullable<Job['spec']>> = {}, status: Job['status'] = {}): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'pi', namespace: 'default', uid: 'job-uid', generation: 1 },
    spec: {
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'job-uid' } },
      template: { metadata: { labels: { app: 'pi' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] } },
      ...spec,
    },
    status,
  };
}

let seq = 0;
function pod(
  phase: string,
  opts: {
    index?: number;
    finalizer?: boolean;
    exitCode?: number;
    finishedAt?: number;
    deleting?: boolean;
    restarts?: number;
    ready?: boolean;
  } = {},
): Pod {
  const n = seq++;
  const p: Pod = {
    metadata: {
      name: `pi-${n}`,
      namespace: 'default',
      uid: `uid-${n}`,
      creationTimestamp: iso(NOW - 60_000),
      finalizers: opts.finalizer === false ? [] : [JOB_TRACKING_FINALIZER],
      ...(opts.index !== undefined ? { annotations: { 'batch.kubernetes.io/job-completion-index': String(opts.index) } } : {}),
      ...(opts.deleting ? { deletionTimestamp: iso(NOW - 1000) } : {}),
    },
    spec: { nodeName: 'n1', containers: [{ name: 'pi' }] },
    status: { phase },
  };
  if (opts.exitCode !== undefined || opts.finishedAt !== undefined) {
    p.status!.containerStatuses = [
      {
        name: 'pi',
        image: 'perl',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { terminated: { exitCode: opts.exitCode ?? 0, finishedAt: iso(opts.finishedAt ?? NOW - 1000) } },
      },
    ];
  }
  if (opts.restarts !== undefined)
    p.status!.containerStatuses = [
      { name: 'pi', image: 'perl', imageID: '', ready: true, restartCount: opts.restarts, state: { running: {} } },
    ];
  if (opts.ready) p.status!.conditions = [{ type: 'Ready', status: 'True' }];
  return p;
}

const input = (j: Job, pods: Pod[], extra: Partial<SyncInput> = {}): SyncInput => ({
  job: j,
  pods,
  now: NOW,
  speed: 1,
  satisfiedExpectations: true,
  expectedRmFinalizers: new Set(),
  ...extra,
});

describe('completion index intervals', () => {
  const cases: [number[], string][] = [
    [[], ''],
    [[0], '0'],
    [[0, 1], '0,1'],
    [[0, 1, 2], '0-2'],
    [[0, 1, 2, 4, 6, 7], '0-2,4,6,7'],
  ];
  for (const [ixs, text] of cases) {
    test(`${JSON.stringify(ixs)} is "${text}" and back`, () => {
      const iv = withIndexes([], ixs);
      assert.equal(format(iv), text);
      assert.deepEqual(parse(text, 10), iv);
      assert.equal(total(iv), ixs.length);
    });
  }
  test('parse drops what lies past completions and skips corrupted parts', () => {
    assert.equal(format(parse('0-2,x,5-9', 7)), '0-2,5,6');
    assert.equal(format(parse('8', 7)), '');
  });
  test('has and firstPending', () => {
    const iv = parse('1,3-5', 10);
    assert.equal(has(iv, 4), true);
    assert.equal(has(iv, 2), false);
    assert.deepEqual(firstPending(iv, 3, 10), [0, 2, 6]);
    assert.deepEqual(firstPending(iv, 10, 7), [0, 2, 6]);
  });
  test('generateName keeps room for the random suffix', () => {
    assert.equal(generateNameWithIndex('pi', 3), 'pi-3-');
    assert.equal(generateNameWithIndex('a'.repeat(60), 12).length, 58);
  });
});

describe('back-off', () => {
  const cases: [number, number, number, number][] = [
    // failures, seconds since the last failure, speed, remaining ms
    [0, 0, 1, 0],
    [1, 0, 1, 10_000],
    [1, 4, 1, 6_000],
    [2, 0, 1, 20_000],
    [3, 0, 1, 40_000],
    [10, 0, 1, 600_000],
    [1, 11, 1, 0],
    [2, 0, 10, 2_000],
  ];
  for (const [failures, ago, speed, want] of cases) {
    test(`${failures} failures, ${ago}s ago, speed ${speed}: ${want} ms`, () => {
      assert.equal(backoffRemaining(failures, NOW - ago * 1000, NOW, speed), want);
    });
  }
  test('a success after the failures resets the count to the failures after it', () => {
    const early = pod('Failed', { exitCode: 1, finishedAt: NOW - 5000 });
    const ok = pod('Succeeded', { exitCode: 0, finishedAt: NOW - 4000 });
    const late = pod('Failed', { exitCode: 1, finishedAt: NOW - 3000 });
    assert.deepEqual(nextBackoffRecord({ failuresAfterLastSuccess: 4 }, [ok], [early, late]), {
      failuresAfterLastSuccess: 1,
      lastFailureTime: NOW - 3000,
    });
    assert.deepEqual(nextBackoffRecord({ failuresAfterLastSuccess: 2 }, [], [early]), {
      failuresAfterLastSuccess: 3,
      lastFailureTime: NOW - 5000,
    });
  });
});

describe('pod failure policy', () => {
  const policy = {
    rules: [
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } },
      { action: 'Count', onExitCodes: { operator: 'NotIn', values: [42] } },
    ],
  };
  test('exit code 42 fails the Job with kube message', () => {
    const p = pod('Failed', { exitCode: 42 });
    assert.deepEqual(matchPodFailurePolicy(policy, p), {
      action: 'FailJob',
      countFailed: true,
      failJobMessage: `Container pi for pod default/${p.metadata!.name} failed with exit code 42 matching FailJob rule at index 1`,
    });
  });
  test('a disruption is ignored; another code counts; no policy counts', () => {
    const disrupted = pod('Failed', { exitCode: 137 });
    disrupted.status!.conditions = [{ type: 'DisruptionTarget', status: 'True' }];
    assert.deepEqual(matchPodFailurePolicy(policy, disrupted), { countFailed: false, action: 'Ignore' });
    assert.deepEqual(matchPodFailurePolicy(policy, pod('Failed', { exitCode: 1 })), { countFailed: true, action: 'Count' });
    assert.deepEqual(matchPodFailurePolicy(undefined, pod('Failed', { exitCode: 1 })), { countFailed: true });
  });
  test('a FailJob match makes the Job fail with reason PodFailurePolicy', () => {
    const j = job({ podFailurePolicy: policy, podReplacementPolicy: 'Failed' });
    const ctx = assess(input(j, [pod('Failed', { exitCode: 42 })]));
    assert.equal(ctx.finishedCondition?.type, 'FailureTarget');
    assert.equal(ctx.finishedCondition?.reason, 'PodFailurePolicy');
  });
});

describe('success policy', () => {
  const cases: [string, { succeededIndexes?: string; succeededCount?: number }[], string, string | undefined][] = [
    ['count met', [{ succeededCount: 2 }], '0,3', 'Matched rules at index 0'],
    ['count not met', [{ succeededCount: 3 }], '0,3', undefined],
    ['indexes met', [{ succeededCount: 5 }, { succeededIndexes: '0-2' }], '0-3', 'Matched rules at index 1'],
    ['part of the indexes with a count', [{ succeededIndexes: '0-4', succeededCount: 2 }], '1,3', 'Matched rules at index 0'],
    ['indexes not met', [{ succeededIndexes: '0-2' }], '0,2', undefined],
  ];
  for (const [what, rules, succeeded, want] of cases) {
    test(what, () => assert.equal(matchSuccessPolicy({ rules }, 5, parse(succeeded, 5)), want));
  }
});

describe('manage', () => {
  const cases: [string, Job, Pod[], ReturnType<typeof manage>][] = [
    ['a new Job creates one Pod', job(), [], { kind: 'create', count: 1 }],
    ['parallelism bounds the creates', job({ completions: 5, parallelism: 2 }), [], { kind: 'create', count: 2 }],
    ['completions left bound them too', job({ completions: 5, parallelism: 3 }, { succeeded: 4 }), [], { kind: 'create', count: 1 }],
    ['no completions: parallelism until one succeeds', job({ completions: undefined, parallelism: 2 }), [], { kind: 'create', count: 2 }],
    ['enough running', job({ completions: 2, parallelism: 2 }), [pod('Running'), pod('Running')], { kind: 'none' }],
  ];
  for (const [what, j, pods, want] of cases) test(what, () => assert.deepEqual(manage(assess(input(j, pods))), want));

  test('an Indexed Job creates the lowest pending indexes', () => {
    const j = job({ completionMode: 'Indexed', completions: 5, parallelism: 3 }, { completedIndexes: '0' });
    assert.deepEqual(manage(assess(input(j, [pod('Running', { index: 2 })]))), { kind: 'create', count: 2, indexes: [1, 3] });
  });
  test('too many Pods: the surplus goes, duplicated indexes first', () => {
    const j = job({ completionMode: 'Indexed', completions: 3, parallelism: 3 });
    const a = pod('Running', { index: 1 });
    const b = pod('Pending', { index: 1 });
    const action = manage(assess(input(j, [a, b, pod('Running', { index: 0 })])));
    assert.equal(action.kind, 'delete');
    assert.deepEqual(action.kind === 'delete' && action.pods.map((p) => p.metadata!.name), [b.metadata!.name]);
  });
  test('a suspended Job deletes its active Pods', () => {
    const action = manage(assess(input(job({ suspend: true }), [pod('Running')])));
    assert.equal(action.kind, 'delete');
  });
  test('a recent failure holds the replacement back 10 s (1 s at speed 10)', () => {
    const failed = pod('Failed', { exitCode: 1, finishedAt: NOW - 2000 });
    assert.deepEqual(manage(assess(input(job(), [failed]))), { kind: 'wait', delayMs: 8000 });
    assert.deepEqual(manage(assess(input(job(), [failed], { speed: 10 }))), { kind: 'create', count: 1 });
  });
});

describe('failure conditions', () => {
  test('more failures than backoffLimit: BackoffLimitExceeded', () => {
    const ctx = assess(input(job({ backoffLimit: 1 }, { failed: 1 }), [pod('Failed', { exitCode: 1 })]));
    assert.equal(ctx.finishedCondition?.type, 'FailureTarget');
    assert.equal(ctx.finishedCondition?.reason, 'BackoffLimitExceeded');
    assert.equal(ctx.finishedCondition?.message, 'Job has reached the specified backoff limit');
  });
  test('restartPolicy OnFailure counts restarts of running Pods', () => {
    const j = job({ backoffLimit: 2 });
    j.spec!.template.spec!.restartPolicy = 'OnFailure';
    assert.equal(pastBackoffLimitOnFailure(j, [pod('Running', { restarts: 1 })]), false);
    assert.equal(pastBackoffLimitOnFailure(j, [pod('Running', { restarts: 2 })]), true);
  });
  test('activeDeadlineSeconds: DeadlineExceeded once passed, a requeue before', () => {
    const late = assess(input(job({ activeDeadlineSeconds: 30 }, { startTime: iso(NOW - 31_000) }), [pod('Running')]));
    assert.equal(late.finishedCondition?.reason, 'DeadlineExceeded');
    const early = assess(input(job({ activeDeadlineSeconds: 30 }, { startTime: iso(NOW - 10_000) }), [pod('Running')]));
    assert.equal(early.finishedCondition, undefined);
    assert.equal(early.deadlineRequeueMs, 20_000);
  });
  test('an existing FailureTarget becomes Failed with its reason', () => {
    const target = {
      type: 'FailureTarget',
      status: 'True',
      reason: 'BackoffLimitExceeded',
      message: 'Job has reached the specified backoff limit',
    };
    const ctx = assess(input(job({}, { conditions: [target] }), []));
    assert.equal(ctx.finishedCondition?.type, 'Failed');
    assert.equal(ctx.finishedCondition?.reason, 'BackoffLimitExceeded');
  });
  test('backoffLimitPerIndex: an index past its limit fails, and all indexes done fails the Job', () => {
    const j = job({ completionMode: 'Indexed', completions: 2, parallelism: 2, backoffLimitPerIndex: 0 }, { completedIndexes: '1' });
    const ctx = assess(input(j, [pod('Failed', { index: 0, exitCode: 1 })]));
    assert.equal(format(ctx.failedIndexes!), '0');
    assert.equal(ctx.finishedCondition?.reason, 'FailedIndexes');
  });
});

describe('tracking to Complete', () => {
  test('a succeeded Pod goes through uncountedTerminatedPods to succeeded and Complete', () => {
    const done = pod('Succeeded', { exitCode: 0 });
    const ctx = assess(input(job({}, { startTime: iso(NOW - 5000) }), [done]));
    assert.equal(ctx.succeeded, 1);
    assert.deepEqual(manage(ctx), { kind: 'none' });
    afterManage(ctx, 0, true);
    assert.equal(ctx.finishedCondition?.type, 'SuccessCriteriaMet');
    setCounts(ctx, 0);
    const plan = trackStatus(ctx, false);
    assert.equal(plan.needsFlush, true);
    assert.deepEqual(ctx.job.status!.uncountedTerminatedPods, { succeeded: [done.metadata!.uid] });
    assert.deepEqual(
      ctx.job.status!.conditions!.map((c) => [c.type, c.reason]),
      [['SuccessCriteriaMet', 'CompletionsReached']],
    );
    assert.equal(ctx.finishedCondition?.type, 'Complete');
    assert.deepEqual(
      plan.podsToRemoveFinalizer.map((p) => p.metadata!.uid),
      [done.metadata!.uid],
    );
    // The finalizer is removed: the uid leaves the list and is counted.
    plan.uidsWithFinalizer.delete(done.metadata!.uid!);
    assert.equal(cleanUncounted(ctx.job.status!, plan.uidsWithFinalizer), true);
    assert.equal(ctx.job.status!.succeeded, 1);
    const fin = enactFinished(ctx);
    assert.equal(fin.finished, true);
    assert.deepEqual(fin.events, [{ type: 'Normal', reason: 'Completed', message: 'Job completed' }]);
    assert.equal(ctx.job.status!.completionTime, '2026-01-01T00:10:00Z');
    assert.deepEqual(
      ctx.job.status!.conditions!.map((c) => c.type),
      ['SuccessCriteriaMet', 'Complete'],
    );
  });
  test('the Job does not finish while a uid is uncounted or a Pod terminates', () => {
    const ctx = assess(input(job({}, { uncountedTerminatedPods: { succeeded: ['x'] } }), []));
    ctx.finishedCondition = { type: 'Complete', status: 'True' };
    assert.equal(enactFinished(ctx).finished, false);
    ctx.job.status!.uncountedTerminatedPods = {};
    ctx.terminating = 1;
    assert.equal(enactFinished(ctx).finished, false);
  });
  test('Indexed: completedIndexes follow the succeeded Pods', () => {
    const j = job({ completionMode: 'Indexed', completions: 3, parallelism: 3 });
    const pods = [0, 1, 2].map((index) => pod('Succeeded', { index, exitCode: 0 }));
    const ctx = assess(input(j, pods));
    afterManage(ctx, 0, true);
    setCounts(ctx, 0);
    trackStatus(ctx, false);
    assert.equal(ctx.job.status!.completedIndexes, '0-2');
    assert.equal(ctx.job.status!.succeeded, 3);
  });
  test('a failed Pod is counted as failed once its finalizer is gone', () => {
    const failed = pod('Failed', { exitCode: 1, finishedAt: NOW - 60_000 });
    const ctx = assess(input(job(), [failed]));
    assert.equal(ctx.failed, 1);
    const plan = trackStatus(ctx, false);
    assert.deepEqual(ctx.job.status!.uncountedTerminatedPods, { failed: [failed.metadata!.uid] });
    plan.uidsWithFinalizer.clear();
    cleanUncounted(ctx.job.status!, plan.uidsWithFinalizer);
    assert.equal(ctx.job.status!.failed, 1);
    assert.deepEqual(ctx.job.status!.uncountedTerminatedPods, {});
  });
  test('suspend and resume set the Suspended condition; resuming resets startTime', () => {
    const suspended = assess(input(job({ suspend: true }), []));
    assert.deepEqual(afterManage(suspended, 0, true).events, [{ type: 'Normal', reason: 'Suspended', message: 'Job suspended' }]);
    assert.equal(suspended.job.status!.startTime, undefined);
    const cond = suspended.job.status!.conditions![0];
    assert.deepEqual([cond.type, cond.status, cond.reason, cond.message], ['Suspended', 'True', 'JobSuspended', 'Job suspended']);
    const resumed = assess(input(job({ suspend: false }, { conditions: [cond], startTime: iso(NOW - 99_000) }), [], { now: NOW + 5000 }));
    assert.deepEqual(afterManage(resumed, 1, true).events, [{ type: 'Normal', reason: 'Resumed', message: 'Job resumed' }]);
    assert.equal(resumed.job.status!.startTime, '2026-01-01T00:10:05Z');
    assert.equal(resumed.job.status!.conditions![0].status, 'False');
  });
});

describe('the Pods a Job creates', () => {
  test('NonIndexed: JOB- names, the template, the finalizer, a controller reference', () => {
    const p = podForJob(job());
    assert.equal(p.metadata!.generateName, 'pi-');
    assert.deepEqual(p.metadata!.finalizers, [JOB_TRACKING_FINALIZER]);
    assert.deepEqual(p.metadata!.ownerReferences, [
      { apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid: 'job-uid', controller: true, blockOwnerDeletion: true },
    ]);
    assert.equal(p.spec!.hostname, undefined);
  });
  test('Indexed: index annotation and label, env var, hostname NAME-INDEX, subdomain kept', () => {
    const j = job({ completionMode: 'Indexed', completions: 3 });
    j.spec!.template.spec!.subdomain = 'workers';
    const p = podForJob(j, 2);
    assert.equal(p.metadata!.generateName, 'pi-2-');
    assert.equal(p.metadata!.annotations!['batch.kubernetes.io/job-completion-index'], '2');
    assert.equal(p.metadata!.labels!['batch.kubernetes.io/job-completion-index'], '2');
    assert.equal(p.spec!.hostname, 'pi-2');
    assert.equal(p.spec!.subdomain, 'workers');
    assert.deepEqual(p.spec!.containers[0].env, [
      {
        name: 'JOB_COMPLETION_INDEX',
        valueFrom: { fieldRef: { fieldPath: "metadata.labels['batch.kubernetes.io/job-completion-index']" } },
      },
    ]);
  });
  test('backoffLimitPerIndex: the replacement carries the failure count', () => {
    const j = job({ completionMode: 'Indexed', completions: 3, backoffLimitPerIndex: 2 });
    const failed = pod('Failed', { index: 1, exitCode: 1 });
    failed.metadata!.annotations!['batch.kubernetes.io/job-index-failure-count'] = '1';
    assert.equal(podForJob(j, 1, failed).metadata!.annotations!['batch.kubernetes.io/job-index-failure-count'], '2');
    assert.equal(podForJob(j, 0).metadata!.annotations!['batch.kubernetes.io/job-index-failure-count'], '0');
  });
});
