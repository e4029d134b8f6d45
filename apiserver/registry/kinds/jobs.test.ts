import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { prepareJobCreate } from './jobs.ts';
import { defaulted, invalidMessage } from './testing.ts';
import { kindRules } from './index.ts';
import { invalid } from '../../../shared/api/errors.ts';

const podTpl = (spec: any = {}, labels?: any) => ({
  ...(labels ? { metadata: { labels } } : {}),
  spec: { containers: [{ name: 'pi', image: 'perl:5.34' }], restartPolicy: 'Never', ...spec },
});

/** Create as the apiserver does: defaults, then the registry's selector generation. */
function created(job: any, uid = 'uid-1'): any {
  const j = defaulted('batch/jobs', { metadata: { name: 'pi', namespace: 'default', uid }, ...job });
  prepareJobCreate(j, uid);
  return j;
}
const createMessage = (job: any) => {
  const j = created(job);
  const errs = kindRules['batch/jobs'].validate!(j);
  return errs.length ? invalid('Job', 'batch', 'pi', errs).message : '';
};

describe('Job defaults', () => {
  const cases: [string, any, any][] = [
    ['neither completions nor parallelism', {}, { completions: 1, parallelism: 1 }],
    ['parallelism only', { parallelism: 3 }, { parallelism: 3 }],
    ['completions only', { completions: 5 }, { completions: 5, parallelism: 1 }],
  ];
  for (const [name, spec, want] of cases) {
    it(name, () => {
      const j = defaulted('batch/jobs', { metadata: { name: 'pi' }, spec: { ...spec, template: podTpl() } });
      assert.equal(j.spec.completions, want.completions);
      assert.equal(j.spec.parallelism, want.parallelism);
    });
  }
  it('fills the rest', () => {
    const j = defaulted('batch/jobs', { metadata: { name: 'pi' }, spec: { template: podTpl() } });
    assert.deepEqual(
      {
        backoffLimit: j.spec.backoffLimit,
        completionMode: j.spec.completionMode,
        suspend: j.spec.suspend,
        podReplacementPolicy: j.spec.podReplacementPolicy,
        manualSelector: j.spec.manualSelector,
      },
      { backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, podReplacementPolicy: 'TerminatingOrFailed', manualSelector: false },
    );
    assert.equal(j.spec.template.spec.terminationGracePeriodSeconds, 30);
  });
  it('backoffLimitPerIndex and podFailurePolicy change the defaults', () => {
    const j = defaulted('batch/jobs', {
      metadata: { name: 'pi' },
      spec: {
        completionMode: 'Indexed',
        completions: 3,
        backoffLimitPerIndex: 1,
        podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] },
        template: podTpl(),
      },
    });
    assert.equal(j.spec.backoffLimit, 2147483647);
    assert.equal(j.spec.podReplacementPolicy, 'Failed');
    assert.deepEqual(j.spec.podFailurePolicy.rules[0].onPodConditions, [{ type: 'DisruptionTarget', status: 'True' }]);
  });
});

describe('prepareJobCreate', () => {
  it('generates the selector and pod labels, and labels the Job with them', () => {
    const j = created({ spec: { template: podTpl() } });
    const want = {
      'batch.kubernetes.io/controller-uid': 'uid-1',
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': 'uid-1',
      'job-name': 'pi',
    };
    assert.deepEqual(j.spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': 'uid-1' } });
    assert.deepEqual(j.spec.template.metadata.labels, want);
    assert.deepEqual(j.metadata.labels, want);
  });
  it('keeps user template labels and the Job shares them', () => {
    const j = created({ spec: { template: podTpl({}, { app: 'pi' }) } });
    assert.equal(j.spec.template.metadata.labels.app, 'pi');
    assert.deepEqual(j.metadata.labels, j.spec.template.metadata.labels);
  });
  it('leaves a Job with its own labels alone', () => {
    const j = created({ metadata: { name: 'pi', uid: 'uid-1', labels: { team: 'a' } }, spec: { template: podTpl() } });
    assert.deepEqual(j.metadata.labels, { team: 'a' });
  });
  it('does nothing with manualSelector', () => {
    const j = created({ spec: { manualSelector: true, selector: { matchLabels: { app: 'pi' } }, template: podTpl({}, { app: 'pi' }) } });
    assert.deepEqual(j.spec.selector, { matchLabels: { app: 'pi' } });
    assert.deepEqual(j.spec.template.metadata.labels, { app: 'pi' });
  });
});

describe('Job validation', () => {
  const cases: [string, any, string][] = [
    ['valid', { spec: { template: podTpl() } }, ''],
    [
      'restartPolicy defaulted to Always',
      { spec: { template: podTpl({ restartPolicy: undefined }) } },
      'Job.batch "pi" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    ],
    [
      'restartPolicy bogus',
      { spec: { template: podTpl({ restartPolicy: 'Sometimes' }) } },
      'Job.batch "pi" is invalid: [spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never", spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "OnFailure", "Never"]',
    ],
    [
      'negative backoffLimit',
      { spec: { backoffLimit: -1, template: podTpl() } },
      'Job.batch "pi" is invalid: spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0',
    ],
    [
      'Indexed without completions',
      { spec: { completionMode: 'Indexed', parallelism: 2, template: podTpl() } },
      'Job.batch "pi" is invalid: spec.completions: Required value: when completion mode is Indexed',
    ],
    [
      'manual selector mismatch',
      { spec: { manualSelector: true, selector: { matchLabels: { app: 'x' } }, template: podTpl({}, { app: 'y' }) } },
      'Job.batch "pi" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"y"}: `selector` does not match template `labels`',
    ],
    [
      'conflicting generated label',
      { spec: { template: podTpl({}, { 'controller-uid': 'other' }) } },
      'Job.batch "pi" is invalid: spec.template.metadata.labels[controller-uid]: Invalid value: map[string]string{"batch.kubernetes.io/controller-uid":"uid-1", "batch.kubernetes.io/job-name":"pi", "controller-uid":"other", "job-name":"pi"}: must be \'uid-1\'',
    ],
  ];
  for (const [name, job, want] of cases) it(name, () => assert.equal(createMessage(job), want));

  it('template and selector are immutable', () => {
    const old = created({ spec: { template: podTpl() } });
    const next = structuredClone(old);
    next.spec.template.spec.containers[0].image = 'perl:5.36';
    next.spec.completions = 2;
    assert.equal(
      invalidMessage('batch/jobs', 'Job', 'batch', next, old),
      'Job.batch "pi" is invalid: [spec.completions: Invalid value: 2: field is immutable, spec.template: Invalid value: core.PodTemplateSpec{...}: field is immutable]',
    );
  });
  it('a suspended Job that never ran may change scheduling directives', () => {
    const old = created({ spec: { suspend: true, template: podTpl() } });
    const next = structuredClone(old);
    next.spec.template.spec.nodeSelector = { zone: 'a' };
    next.spec.suspend = false;
    assert.equal(invalidMessage('batch/jobs', 'Job', 'batch', next, old), '');
  });
});

describe('CronJob', () => {
  const cj = (spec: any, name = 'hello') => ({
    metadata: { name, namespace: 'default' },
    spec: { schedule: '*/1 * * * *', jobTemplate: { spec: { template: podTpl({ restartPolicy: 'OnFailure' }) } }, ...spec },
  });
  it('defaults', () => {
    const c = defaulted('batch/cronjobs', cj({}));
    assert.deepEqual(
      {
        concurrencyPolicy: c.spec.concurrencyPolicy,
        suspend: c.spec.suspend,
        s: c.spec.successfulJobsHistoryLimit,
        f: c.spec.failedJobsHistoryLimit,
      },
      { concurrencyPolicy: 'Allow', suspend: false, s: 3, f: 1 },
    );
    assert.equal(c.spec.jobTemplate.spec.backoffLimit, undefined);
    assert.equal(c.spec.jobTemplate.spec.template.spec.dnsPolicy, 'ClusterFirst');
  });
  const M = (spec: any, name?: string) => invalidMessage('batch/cronjobs', 'CronJob', 'batch', cj(spec, name));
  const cases: [string, any, string, string?][] = [
    ['valid', {}, ''],
    ['@hourly', { schedule: '@hourly' }, ''],
    ['missing schedule', { schedule: undefined }, 'CronJob.batch "hello" is invalid: spec.schedule: Required value'],
    [
      'bad schedule',
      { schedule: '* * *' },
      'CronJob.batch "hello" is invalid: spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]',
    ],
    [
      'minute 60',
      { schedule: '60 * * * *' },
      'CronJob.batch "hello" is invalid: spec.schedule: Invalid value: "60 * * * *": end of range (60) above maximum (59): 60',
    ],
    [
      'TZ in schedule',
      { schedule: 'TZ=UTC 0 * * * *' },
      'CronJob.batch "hello" is invalid: spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    ],
    [
      'unknown time zone',
      { timeZone: 'Mars/Olympus' },
      'CronJob.batch "hello" is invalid: spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus',
    ],
    ['valid time zone', { timeZone: 'Europe/Paris' }, ''],
    [
      'concurrencyPolicy',
      { concurrencyPolicy: 'Sometimes' },
      'CronJob.batch "hello" is invalid: spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
    ],
    [
      'job template restartPolicy',
      { jobTemplate: { spec: { template: podTpl({ restartPolicy: 'Always' }) } } },
      'CronJob.batch "hello" is invalid: spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    ],
    [
      'long name',
      {},
      'CronJob.batch "a-very-long-cronjob-name-that-is-more-than-fifty-two-c" is invalid: metadata.name: Invalid value: "a-very-long-cronjob-name-that-is-more-than-fifty-two-c": must be no more than 52 characters',
      'a-very-long-cronjob-name-that-is-more-than-fifty-two-c',
    ],
  ];
  for (const [name, spec, want, objName] of cases) it(name, () => assert.equal(M(spec, objName), want));
});
