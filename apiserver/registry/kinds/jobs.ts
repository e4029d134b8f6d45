// batch/v1 Jobs and CronJobs: defaults (pkg/apis/batch/v1/defaults.go), the
// selector and labels the Job registry generates on create, and validation
// (pkg/apis/batch/validation).
import { isObject } from '../../../shared/patch/go-format.ts';
import { matchesLabels, selectorFromLabelSelector } from '../../../shared/labels/index.ts';
import { child, fe, goLabelSelector, goStringMap, jsonText, nonNegative, semanticEqual, zero, type FieldError } from './field.ts';
import { cronProblem, validTimeZone } from './cron.ts';
import { defaultPodTemplateSpec, validatePodTemplateSpec, type PodTemplateJSON } from './pod-spec.ts';
import type { CronJob, CronJobSpec, Job, JobSpec } from 'kubernetes-types/batch/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { validateLabelSelector, qualifiedName } from './validators.ts';
import { nameProblems } from '../names.ts';
import { selectorMismatch } from './workloads.ts';

const unset = (v: unknown): v is null | undefined => v === undefined || v === null;

/** The labels the Job registry puts on a Job's pods (and selects them by). */
export const JOB_LABELS = {
  controllerUid: 'batch.kubernetes.io/controller-uid',
  jobName: 'batch.kubernetes.io/job-name',
  legacyControllerUid: 'controller-uid',
  legacyJobName: 'job-name',
} as const;

/** SetDefaults_Job. */
export function defaultJob(job: Job): void {
  if (!isObject(job.spec)) job.spec = zero<JobSpec>();
  const spec = job.spec;
  if (unset(spec.completions) && unset(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  if (unset(spec.parallelism)) spec.parallelism = 1;
  if (unset(spec.backoffLimit)) spec.backoffLimit = unset(spec.backoffLimitPerIndex) ? 6 : 2147483647;
  if (isObject(job.spec.template?.metadata?.labels) && (!isObject(job.metadata?.labels) || Object.keys(job.metadata.labels).length === 0)) {
    if (!isObject(job.metadata)) job.metadata = {};
    job.metadata.labels = { ...job.spec.template.metadata.labels };
  }
  if (unset(spec.completionMode)) spec.completionMode = 'NonIndexed';
  if (unset(spec.suspend)) spec.suspend = false;
  for (const rule of Array.isArray(spec.podFailurePolicy?.rules) ? spec.podFailurePolicy.rules : []) {
    for (const p of Array.isArray(rule?.onPodConditions) ? rule.onPodConditions : []) if (isObject(p) && !p.status) p.status = 'True';
  }
  if (unset(spec.podReplacementPolicy)) spec.podReplacementPolicy = isObject(spec.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed';
  if (unset(spec.manualSelector)) spec.manualSelector = false;
  if (!isObject(spec.template)) spec.template = {};
  defaultPodTemplateSpec(spec.template);
}

/**
 * What the Job registry does on create once the uid is known: unless
 * spec.manualSelector, select the pods by controller-uid and label the
 * template with the uid and job name (new batch.kubernetes.io/ keys and the
 * legacy ones); then, as the defaulting of the stored object does, give a
 * Job without labels its template's labels. Mutates `job`.
 */
export function prepareJobCreate(job: Job, uid: string): void {
  if (!isObject(job.spec)) job.spec = zero<JobSpec>();
  const spec = job.spec;
  // In kube, defaulting makes the Job's labels the very map of its template's
  // labels, so the generated template labels show on the Job too.
  const jobLabels = job.metadata?.labels;
  const shared = !isObject(jobLabels) || Object.keys(jobLabels).length === 0 || semanticEqual(jobLabels, spec.template?.metadata?.labels);
  if (spec.manualSelector !== true) {
    if (!isObject(spec.template)) spec.template = {};
    if (!isObject(spec.template.metadata)) spec.template.metadata = {};
    const labels: Record<string, string> = isObject(spec.template.metadata.labels) ? spec.template.metadata.labels : {};
    const name = job.metadata?.name ?? '';
    for (const k of [JOB_LABELS.legacyJobName, JOB_LABELS.jobName]) if (!(k in labels)) labels[k] = name;
    for (const k of [JOB_LABELS.legacyControllerUid, JOB_LABELS.controllerUid]) if (!(k in labels)) labels[k] = uid;
    spec.template.metadata.labels = labels;
    if (!isObject(spec.selector)) spec.selector = {};
    if (!isObject(spec.selector.matchLabels)) spec.selector.matchLabels = {};
    if (!(JOB_LABELS.controllerUid in spec.selector.matchLabels)) spec.selector.matchLabels[JOB_LABELS.controllerUid] = uid;
  }
  const tplLabels = spec.template?.metadata?.labels;
  if (isObject(tplLabels) && shared) {
    if (!isObject(job.metadata)) job.metadata = {};
    job.metadata.labels = { ...tplLabels };
  }
}

function asSelector(sel: LabelSelector | null | undefined) {
  try {
    return selectorFromLabelSelector(sel);
  } catch {
    return undefined;
  }
}

function hasLabel(labels: Record<string, string> | undefined, key: string, want: string, path: string): FieldError[] {
  const p = `${path}[${key}]`;
  if (!isObject(labels) || !(key in labels)) return [fe.required(p, `must be '${want}'`)];
  if (labels[key] !== want) return [fe.invalidShown(p, goStringMap(labels), `must be '${want}'`)];
  return [];
}

/** `validateGeneratedSelector`. */
function validateGeneratedSelector(job: Job, requirePrefixed: boolean): FieldError[] {
  const spec: Partial<JobSpec> = job.spec ?? {};
  if (spec.manualSelector === true || unset(spec.selector)) return [];
  const errs: FieldError[] = [];
  const uid = String(job.metadata?.uid ?? '');
  const name = String(job.metadata?.name ?? '');
  if (!uid) errs.push(fe.required('metadata.uid'));
  const labels = spec.template?.metadata?.labels;
  const p = 'spec.template.metadata.labels';
  errs.push(...hasLabel(labels, JOB_LABELS.legacyControllerUid, uid, p));
  errs.push(...hasLabel(labels, JOB_LABELS.legacyJobName, name, p));
  const expected: Record<string, string> = {};
  if (requirePrefixed) {
    errs.push(...hasLabel(labels, JOB_LABELS.controllerUid, uid, p));
    errs.push(...hasLabel(labels, JOB_LABELS.jobName, name, p));
    expected[JOB_LABELS.controllerUid] = uid;
    expected[JOB_LABELS.jobName] = name;
  }
  expected[JOB_LABELS.legacyControllerUid] = uid;
  expected[JOB_LABELS.legacyJobName] = name;
  const sel = asSelector(spec.selector);
  if (sel && !matchesLabels(sel, expected))
    errs.push(fe.invalidShown('spec.selector', goLabelSelector(spec.selector), '`selector` not auto-generated'));
  return errs;
}

/** `validateJobSpec` (the part Jobs and CronJob job templates share). */
function validateJobSpecCommon(spec: Partial<JobSpec>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const p = (f: string) => child(path, f);
  for (const f of [
    'parallelism',
    'completions',
    'activeDeadlineSeconds',
    'backoffLimit',
    'ttlSecondsAfterFinished',
    'backoffLimitPerIndex',
  ] as const) {
    if (!unset(spec[f])) errs.push(...nonNegative(spec[f], p(f)));
  }
  if (!unset(spec.maxFailedIndexes)) {
    errs.push(...nonNegative(spec.maxFailedIndexes, p('maxFailedIndexes')));
    if (unset(spec.backoffLimitPerIndex)) errs.push(fe.required(p('backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
  }
  const mode = spec.completionMode;
  if (!unset(mode)) {
    if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(fe.notSupported(p('completionMode'), mode, ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed') {
      if (unset(spec.completions)) errs.push(fe.required(p('completions'), 'when completion mode is Indexed'));
      if (typeof spec.parallelism === 'number' && spec.parallelism > 100000) {
        errs.push(fe.invalid(p('parallelism'), spec.parallelism, 'must be less than or equal to 100000 when completion mode is Indexed'));
      }
      if (typeof spec.completions === 'number' && typeof spec.maxFailedIndexes === 'number' && spec.maxFailedIndexes > spec.completions) {
        errs.push(fe.invalid(p('maxFailedIndexes'), spec.maxFailedIndexes, 'must be less than or equal to completions'));
      }
    }
  }
  if (unset(mode) || mode === 'NonIndexed') {
    if (!unset(spec.backoffLimitPerIndex))
      errs.push(fe.invalid(p('backoffLimitPerIndex'), spec.backoffLimitPerIndex, 'requires indexed completion mode'));
    if (!unset(spec.maxFailedIndexes))
      errs.push(fe.invalid(p('maxFailedIndexes'), spec.maxFailedIndexes, 'requires indexed completion mode'));
  }
  if (isObject(spec.podFailurePolicy)) errs.push(...validatePodFailurePolicy(spec, p('podFailurePolicy')));
  if (!unset(spec.podReplacementPolicy)) {
    if (isObject(spec.podFailurePolicy)) {
      if (spec.podReplacementPolicy !== 'Failed')
        errs.push(fe.notSupported(p('podReplacementPolicy'), spec.podReplacementPolicy, ['Failed']));
    } else if (!['Failed', 'TerminatingOrFailed'].includes(spec.podReplacementPolicy)) {
      errs.push(fe.notSupported(p('podReplacementPolicy'), spec.podReplacementPolicy, ['Failed', 'TerminatingOrFailed']));
    }
  }
  errs.push(...validatePodTemplateSpec(spec.template, p('template')));
  const rp = spec.template?.spec?.restartPolicy ?? '';
  const rpPath = `${p('template')}.spec.restartPolicy`;
  if (rp === 'Always' || rp === '') errs.push(fe.required(rpPath, 'valid values: "OnFailure", "Never"'));
  else if (rp !== 'OnFailure' && rp !== 'Never') errs.push(fe.notSupported(rpPath, rp, ['OnFailure', 'Never']));
  else if (isObject(spec.podFailurePolicy) && rp !== 'Never')
    errs.push(fe.invalid(rpPath, rp, 'only "Never" is supported when podFailurePolicy is specified'));
  return errs;
}

function validatePodFailurePolicy(spec: Partial<JobSpec>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  // The caller checked that spec.podFailurePolicy is an object.
  const given = spec.podFailurePolicy?.rules;
  const rules = Array.isArray(given) ? given : [];
  const rulesPath = child(path, 'rules');
  if (rules.length > 20) errs.push(fe.tooMany(rulesPath, rules.length, 20));
  const actions = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
  rules.forEach((rule, i) => {
    const rp = `${rulesPath}[${i}]`;
    if (!rule?.action) errs.push(fe.required(child(rp, 'action'), `valid values: ["Count" "FailIndex" "FailJob" "Ignore"]`));
    else if (rule.action === 'FailIndex' && unset(spec.backoffLimitPerIndex))
      errs.push(fe.invalid(child(rp, 'action'), rule.action, 'requires the backoffLimitPerIndex to be set'));
    else if (!actions.includes(rule.action)) errs.push(fe.notSupported(child(rp, 'action'), rule.action, actions));
    const exit = rule?.onExitCodes;
    const conditions = rule?.onPodConditions;
    const hasExit = isObject(exit);
    const hasCond = Array.isArray(conditions) && conditions.length > 0;
    if (hasExit) {
      const op = exit.operator;
      const ep = child(rp, 'onExitCodes');
      if (!op) errs.push(fe.required(child(ep, 'operator'), 'valid values: ["In" "NotIn"]'));
      else if (op !== 'In' && op !== 'NotIn') errs.push(fe.notSupported(child(ep, 'operator'), op, ['In', 'NotIn']));
      const values: number[] = Array.isArray(exit.values) ? exit.values : [];
      if (values.length === 0) errs.push(fe.invalidShown(child(ep, 'values'), '[]int32(nil)', 'at least one value is required'));
    }
    if (hasCond) {
      conditions.forEach((c, j) => {
        const cp = `${child(rp, 'onPodConditions')}[${j}]`;
        errs.push(...qualifiedName(String(c?.type ?? ''), child(cp, 'type')));
        if (!['True', 'False', 'Unknown'].includes(c?.status))
          errs.push(fe.notSupported(child(cp, 'status'), c?.status ?? '', ['False', 'True', 'Unknown']));
      });
    }
    if (hasExit && hasCond) errs.push(fe.invalidNoValue(rp, 'specifying both OnExitCodes and OnPodConditions is not supported'));
    if (!hasExit && !hasCond) errs.push(fe.invalidNoValue(rp, 'specifying one of OnExitCodes and OnPodConditions is required'));
  });
  return errs;
}

function immutable(next: unknown, old: unknown, path: string, shown: string): FieldError[] {
  return semanticEqual(next, old) ? [] : [fe.invalidShown(path, shown, 'field is immutable')];
}

/** ValidateJob on create, ValidateJob + ValidateJobUpdate with `old`. */
export function validateJob(job: Job, old?: Job): FieldError[] {
  const spec: Partial<JobSpec> = job.spec ?? {};
  const requirePrefixed = !old || JOB_LABELS.jobName in (old.spec?.template?.metadata?.labels ?? {});
  const errs = validateGeneratedSelector(job, requirePrefixed);
  errs.push(...validateJobSpecCommon(spec, 'spec'));
  if (unset(spec.selector)) errs.push(fe.required('spec.selector'));
  else errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const sel = asSelector(unset(spec.selector) ? null : spec.selector);
  const labels = spec.template?.metadata?.labels;
  if (sel && !matchesLabels(sel, labels)) errs.push(selectorMismatch('spec.template.metadata.labels', labels));
  const name = String(job.metadata?.name ?? '');
  if (spec.completionMode === 'Indexed' && typeof spec.completions === 'number' && spec.completions > 0) {
    const host = `${name}-${spec.completions - 1}`;
    if (nameProblems(host, 'label').length > 0) {
      errs.push(fe.invalid('metadata.name', name, `will not able to create pod with invalid DNS label: ${host}`));
    }
  }
  if (old) errs.push(...validateJobUpdate(job, old));
  return errs;
}

function validateJobUpdate(job: Job, old: Job): FieldError[] {
  const spec: Partial<JobSpec> = job.spec ?? {};
  const oldSpec: Partial<JobSpec> = old.spec ?? {};
  const errs: FieldError[] = [];
  if (!semanticEqual(spec.completions, oldSpec.completions)) {
    if (spec.completionMode !== 'Indexed') errs.push(fe.invalid('spec.completions', spec.completions ?? null, 'field is immutable'));
    else if (!unset(spec.completions) && spec.completions !== spec.parallelism) {
      errs.push(fe.invalid('spec.completions', spec.completions, 'can only be modified in tandem with spec.parallelism'));
    }
  }
  errs.push(...immutable(spec.selector, oldSpec.selector, 'spec.selector', goLabelSelector(spec.selector)));
  // A suspended Job that never ran may still change its pods' scheduling directives.
  let oldTpl: PodTemplateJSON | undefined = oldSpec.template;
  const tpl = spec.template;
  if (oldSpec.suspend === true && unset(old.status?.startTime) && isObject(oldTpl) && isObject(tpl)) {
    oldTpl = structuredClone(oldTpl);
    oldTpl.metadata = { ...(oldTpl.metadata ?? {}), labels: tpl.metadata?.labels, annotations: tpl.metadata?.annotations };
    oldTpl.spec = {
      ...(oldTpl.spec ?? {}),
      nodeSelector: tpl.spec?.nodeSelector,
      tolerations: tpl.spec?.tolerations,
      schedulingGates: tpl.spec?.schedulingGates,
      affinity:
        isObject(tpl.spec?.affinity) || isObject(oldTpl.spec?.affinity)
          ? { ...(oldTpl.spec?.affinity ?? {}), nodeAffinity: tpl.spec?.affinity?.nodeAffinity }
          : undefined,
    };
  }
  errs.push(...immutable(tpl, oldTpl, 'spec.template', 'core.PodTemplateSpec{...}'));
  for (const f of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy'] as const) {
    const v = spec[f];
    const shown = typeof v === 'string' || typeof v === 'number' ? JSON.stringify(v) : unset(v) ? 'null' : JSON.stringify(v);
    errs.push(...immutable(v, oldSpec[f], `spec.${f}`, shown));
  }
  return errs;
}

/** SetDefaults_CronJob, plus the PodSpec defaults of its job template. */
export function defaultCronJob(cj: CronJob): void {
  if (!isObject(cj.spec)) cj.spec = zero<CronJobSpec>();
  const spec = cj.spec;
  if (!spec.concurrencyPolicy) spec.concurrencyPolicy = 'Allow';
  if (unset(spec.suspend)) spec.suspend = false;
  if (unset(spec.successfulJobsHistoryLimit)) spec.successfulJobsHistoryLimit = 3;
  if (unset(spec.failedJobsHistoryLimit)) spec.failedJobsHistoryLimit = 1;
  if (!isObject(spec.jobTemplate)) spec.jobTemplate = {};
  // Go's zero-value JobTemplateSpec serializes its metadata and spec.
  if (!isObject(spec.jobTemplate.metadata)) spec.jobTemplate.metadata = {};
  if (!isObject(spec.jobTemplate.spec)) spec.jobTemplate.spec = zero<JobSpec>();
  if (!isObject(spec.jobTemplate.spec.template)) spec.jobTemplate.spec.template = {};
  defaultPodTemplateSpec(spec.jobTemplate.spec.template);
}

/** validateScheduleFormat / validateTimeZone messages for a CronJob's spec. */
function validateSchedule(spec: Partial<CronJobSpec>, oldSpec: Partial<CronJobSpec> | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const schedule = spec.schedule;
  if (!schedule) return [fe.required('spec.schedule')];
  const problem = cronProblem(String(schedule));
  if (problem) errs.push(fe.invalid('spec.schedule', schedule, problem));
  const allowTZ = typeof oldSpec?.schedule === 'string' && oldSpec.schedule.includes('TZ');
  if (allowTZ && String(schedule).includes('TZ') && !unset(spec.timeZone)) {
    errs.push(fe.invalid('spec.schedule', schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  } else if (!allowTZ && String(schedule).includes('TZ')) {
    errs.push(fe.invalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  }
  return errs;
}

function validateTimeZoneField(tz: unknown): FieldError[] {
  if (unset(tz)) return [];
  const v = jsonText(tz);
  const p = 'spec.timeZone';
  if (v.length === 0) return [fe.invalid(p, v, 'timeZone must be nil or non-empty string')];
  for (const part of v.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !/^[A-Za-z.\-_0-9+]{1,14}$/.test(part))
      return [fe.invalid(p, v, `unknown time zone ${v}`)];
  }
  const errs: FieldError[] = [];
  if (v.toLowerCase() === 'local')
    errs.push(fe.invalid(p, v, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  else if (!validTimeZone(v)) errs.push(fe.invalid(p, v, `unknown time zone ${v}`));
  return errs;
}

/** ValidateCronJobCreate, or ValidateCronJobUpdate with `old`. */
export function validateCronJob(cj: CronJob, old?: CronJob): FieldError[] {
  const spec: Partial<CronJobSpec> = cj.spec ?? {};
  const oldSpec = old?.spec;
  const errs = validateSchedule(spec, oldSpec);
  if (!unset(spec.startingDeadlineSeconds)) errs.push(...nonNegative(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'));
  if (!old || !semanticEqual(oldSpec?.timeZone, spec.timeZone)) errs.push(...validateTimeZoneField(spec.timeZone));
  const cp = spec.concurrencyPolicy ?? '';
  if (!cp) errs.push(fe.required('spec.concurrencyPolicy'));
  else if (!['Allow', 'Forbid', 'Replace'].includes(cp))
    errs.push(fe.notSupported('spec.concurrencyPolicy', cp, ['Allow', 'Forbid', 'Replace']));
  const jts: Partial<JobSpec> = spec.jobTemplate?.spec ?? {};
  errs.push(...validateJobSpecCommon(jts, 'spec.jobTemplate.spec'));
  if (!unset(jts.selector))
    errs.push(fe.invalidShown('spec.jobTemplate.spec.selector', goLabelSelector(jts.selector), '`selector` will be auto-generated'));
  if (jts.manualSelector === true) errs.push(fe.notSupported('spec.jobTemplate.spec.manualSelector', true, ['nil', 'false']));
  if (!unset(spec.successfulJobsHistoryLimit))
    errs.push(...nonNegative(spec.successfulJobsHistoryLimit, 'spec.successfulJobsHistoryLimit'));
  if (!unset(spec.failedJobsHistoryLimit)) errs.push(...nonNegative(spec.failedJobsHistoryLimit, 'spec.failedJobsHistoryLimit'));
  const name = String(cj.metadata?.name ?? '');
  if (!old && name.length > 52) errs.push(fe.invalid('metadata.name', name, 'must be no more than 52 characters'));
  return errs;
}
