// The Pod kind: create validation (ValidatePodCreate) and the update rule
// that freezes a Pod's spec except images, activeDeadlineSeconds,
// tolerations (additions only) and scheduling gates (removals only).
import { isObject } from '../../../shared/patch/go-format.ts';
import { child, fe, index, semanticEqual, type FieldError } from './field.ts';
import { inclusiveRange } from './validators.ts';
import { defaultPod, validatePodSpec, type PodJSON } from './pod-spec.ts';
import type { Container } from 'kubernetes-types/core/v1.js';

const UPDATABLE =
  '`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** The start of kube's Forbidden message for a Pod spec change. */
export const POD_UPDATE_FORBIDDEN = `pod updates may not change fields other than ${UPDATABLE}`;

const GO_NAMES: Record<string, string> = {
  dnsPolicy: 'DNSPolicy',
  dnsConfig: 'DNSConfig',
  os: 'OS',
  hostIPC: 'HostIPC',
  hostPID: 'HostPID',
};
const goName = (k: string) => GO_NAMES[k] ?? k.charAt(0).toUpperCase() + k.slice(1);

/** A shortened cmp.Diff of two PodSpecs: one -/+ pair per changed top-level field. */
function specDiff(oldSpec: Record<string, unknown>, newSpec: Record<string, unknown>): string {
  const keys = [...new Set([...Object.keys(oldSpec ?? {}), ...Object.keys(newSpec ?? {})])].sort();
  const lines = ['  core.PodSpec{'];
  for (const k of keys) {
    if (semanticEqual(oldSpec?.[k], newSpec?.[k])) continue;
    if (oldSpec?.[k] !== undefined) lines.push(`- \t${goName(k)}: ${JSON.stringify(oldSpec[k])},`);
    if (newSpec?.[k] !== undefined) lines.push(`+ \t${goName(k)}: ${JSON.stringify(newSpec[k])},`);
  }
  lines.push('  }');
  return lines.join('\n') + '\n';
}

function containerUpdates(
  next: Container[] | undefined,
  old: Container[] | undefined,
  path: string,
): { errs: FieldError[]; stop: boolean } {
  const n = Array.isArray(next) ? next : [];
  const o = Array.isArray(old) ? old : [];
  if (n.length !== o.length) return { errs: [fe.forbidden(path, 'pod updates may not add or remove containers')], stop: true };
  const errs: FieldError[] = [];
  n.forEach((c, i) => {
    if (!c?.image) errs.push(fe.required(child(index(path, i), 'image')));
  });
  return { errs, stop: false };
}

/** `ValidatePodUpdate` minus metadata (the lifecycle checks that): what may change in a Pod's spec. */
export function validatePodUpdate(pod: PodJSON, old: PodJSON): FieldError[] {
  const spec = pod.spec ?? {};
  const oldSpec = old.spec ?? {};
  const errs: FieldError[] = [];
  for (const key of ['containers', 'initContainers'] as const) {
    const r = containerUpdates(spec[key], oldSpec[key], child('spec', key));
    errs.push(...r.errs);
    if (r.stop) return errs;
  }
  const ads = spec.activeDeadlineSeconds;
  if (ads !== undefined && ads !== null) {
    if (typeof ads !== 'number' || ads < 0 || ads > 2147483647) {
      errs.push(fe.invalid('spec.activeDeadlineSeconds', ads, inclusiveRange(0, 2147483647)));
      return errs;
    }
    if (typeof oldSpec.activeDeadlineSeconds === 'number' && oldSpec.activeDeadlineSeconds < ads) {
      errs.push(fe.invalid('spec.activeDeadlineSeconds', ads, 'must be less than or equal to previous value'));
      return errs;
    }
  } else if (oldSpec.activeDeadlineSeconds !== undefined && oldSpec.activeDeadlineSeconds !== null) {
    errs.push(fe.invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }
  const newTols = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  for (const t of Array.isArray(oldSpec.tolerations) ? oldSpec.tolerations : []) {
    const found = newTols.some((n) => semanticEqual({ ...t, tolerationSeconds: n?.tolerationSeconds }, n));
    if (!found) {
      errs.push(fe.forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds'));
      break;
    }
  }
  const oldGates = new Set((Array.isArray(oldSpec.schedulingGates) ? oldSpec.schedulingGates : []).map((g) => g?.name));
  (Array.isArray(spec.schedulingGates) ? spec.schedulingGates : []).forEach((g, i) => {
    if (!oldGates.has(g?.name)) {
      errs.push(
        fe.forbidden(
          child(index('spec.schedulingGates', i), 'name'),
          `only deletion is allowed, but found new scheduling gate '${g?.name}'`,
        ),
      );
    }
  });
  if (semanticEqual(spec, oldSpec)) return errs;
  const munged = structuredClone(spec);
  for (const key of ['containers', 'initContainers'] as const) {
    const list = munged[key];
    if (!Array.isArray(list)) continue;
    // Same length as the old list (containerUpdates returned otherwise).
    const oldList = oldSpec[key];
    munged[key] = list.map((c, i) => ({ ...c, image: oldList?.[i]?.image }));
  }
  munged.activeDeadlineSeconds = oldSpec.activeDeadlineSeconds;
  munged.schedulingGates = oldSpec.schedulingGates;
  munged.tolerations = oldSpec.tolerations;
  if (
    typeof oldSpec.terminationGracePeriodSeconds === 'number' &&
    oldSpec.terminationGracePeriodSeconds < 0 &&
    munged.terminationGracePeriodSeconds === 1
  ) {
    munged.terminationGracePeriodSeconds = oldSpec.terminationGracePeriodSeconds;
  }
  if (oldGates.size > 0) {
    // A gated Pod may still gain node selectors and node affinity.
    munged.nodeSelector = oldSpec.nodeSelector;
    if (isObject(munged.affinity) || isObject(oldSpec.affinity)) {
      munged.affinity = { ...(munged.affinity ?? {}), nodeAffinity: oldSpec.affinity?.nodeAffinity };
    }
  }
  if (!semanticEqual(munged, oldSpec)) {
    const diff = specDiff(oldSpec, munged);
    errs.push(fe.forbidden('spec', `${POD_UPDATE_FORBIDDEN}\n${diff}`));
  }
  return errs;
}

/** Pod validation on create, and on update with `old`. */
export function validatePod(pod: PodJSON, old?: PodJSON): FieldError[] {
  const spec = pod?.spec ?? {};
  const errs = validatePodSpec(spec, 'spec', { isPod: true });
  if (!spec.serviceAccountName) {
    (Array.isArray(spec.volumes) ? spec.volumes : []).forEach((v, vi) => {
      (Array.isArray(v?.projected?.sources) ? v.projected.sources : []).forEach((s, si) => {
        if (isObject(s?.serviceAccountToken)) {
          errs.push(
            fe.forbidden(
              `spec.volumes[${vi}].projected.sources[${si}].serviceAccountToken`,
              'must not be specified when serviceAccountName is not set',
            ),
          );
        }
      });
    });
  }
  if (!old && Array.isArray(spec.ephemeralContainers) && spec.ephemeralContainers.length > 0) {
    errs.push(fe.forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  }
  if (old) errs.push(...validatePodUpdate(pod, old));
  return errs;
}

export { defaultPod };
