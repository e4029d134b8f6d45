// core/v1 ReplicationControllers: SetDefaults_ReplicationController (selector
// and labels taken from the template's labels when empty, one replica) and
// ValidateReplicationControllerSpec / ValidatePodTemplateSpecForRC, with
// kube's messages. An RC's selector is a plain map, and mutable.
import type { ReplicationController, ReplicationControllerSpec, ReplicationControllerStatus } from 'kubernetes-types/core/v1.js';
import { isObject } from '../../../shared/patch/go-format.ts';
import { child, fe, nonNegative, type FieldError } from './field.ts';
import { defaultPodTemplateSpec, validatePodTemplateSpec, type PodTemplateJSON } from './pod-spec.ts';
import { selectorMismatch } from './workloads.ts';

const unset = (v: unknown): v is null | undefined => v === undefined || v === null;
const isEmptyMap = (m: unknown): boolean => !isObject(m) || Object.keys(m).length === 0;

/** SetDefaults_ReplicationController, plus the defaults of the template's PodSpec. */
export function defaultReplicationController(obj: ReplicationController): void {
  if (!isObject(obj.spec)) obj.spec = {};
  const spec = obj.spec;
  const template: PodTemplateJSON | undefined = isObject(spec.template) ? spec.template : undefined;
  const labels = template?.metadata?.labels;
  if (isObject(labels)) {
    if (isEmptyMap(spec.selector)) spec.selector = { ...labels };
    if (isObject(obj.metadata) && isEmptyMap(obj.metadata.labels)) obj.metadata.labels = { ...labels };
  }
  if (unset(spec.replicas)) spec.replicas = 1;
  if (template) defaultPodTemplateSpec(template);
  // replicas is not omitempty in ReplicationControllerStatus: a zero still shows.
  if (isObject(obj.status) && unset(obj.status.replicas)) obj.status.replicas = 0;
}

/** True when every key of `selector` has the same value in `labels` (labels.Set(selector).AsSelector().Matches). */
function selectorMatches(selector: Record<string, string>, labels: unknown): boolean {
  const set: Record<string, unknown> = isObject(labels) ? labels : {};
  return Object.entries(selector).every(([k, v]) => Object.hasOwn(set, k) && String(set[k]) === String(v));
}

/** ValidatePodTemplateSpecForRC. */
function validateTemplateForRC(template: PodTemplateJSON | null | undefined, selector: unknown, path: string): FieldError[] {
  if (!isObject(template)) return [fe.required(path)];
  const errs: FieldError[] = [];
  if (!isEmptyMap(selector) && !selectorMatches(selector as Record<string, string>, template.metadata?.labels)) {
    errs.push(selectorMismatch(child(path, 'metadata.labels'), template.metadata?.labels));
  }
  errs.push(...validatePodTemplateSpec(template, path));
  const rp = template.spec?.restartPolicy ?? '';
  if (rp !== 'Always') errs.push(fe.notSupported(child(path, 'spec.restartPolicy'), rp, ['Always']));
  const ads = template.spec?.activeDeadlineSeconds;
  if (!unset(ads)) errs.push(fe.invalid(child(path, 'spec.activeDeadlineSeconds'), ads, 'must not be specified'));
  return errs;
}

/** ValidateReplicationControllerStatus. */
function validateStatus(status: Partial<ReplicationControllerStatus>): FieldError[] {
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  const errs: FieldError[] = [];
  for (const f of ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'] as const) {
    errs.push(...nonNegative(status[f], `status.${f}`));
  }
  const msg = 'cannot be greater than status.replicas';
  for (const f of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'] as const) {
    if (n(status[f]) > n(status.replicas)) errs.push(fe.invalid(`status.${f}`, n(status[f]), msg));
  }
  if (n(status.availableReplicas) > n(status.readyReplicas)) {
    errs.push(fe.invalid('status.availableReplicas', n(status.availableReplicas), 'cannot be greater than readyReplicas'));
  }
  return errs;
}

/**
 * ValidateReplicationController / ValidateReplicationControllerUpdate (the
 * spec; metadata is checked for every kind), and the status (which only a
 * status write can change: elsewhere it is the stored one).
 */
export function validateReplicationController(obj: ReplicationController): FieldError[] {
  const spec: Partial<ReplicationControllerSpec> = isObject(obj.spec) ? obj.spec : {};
  const errs: FieldError[] = [];
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  if (isEmptyMap(spec.selector)) errs.push(fe.required('spec.selector'));
  errs.push(...nonNegative(spec.replicas, 'spec.replicas'));
  errs.push(...validateTemplateForRC(spec.template, spec.selector, 'spec.template'));
  if (isObject(obj.status)) errs.push(...validateStatus(obj.status));
  return errs;
}
