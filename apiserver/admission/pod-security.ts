// kube's PodSecurity admission: a namespace's pod-security.kubernetes.io/
// {enforce,warn,audit}[-version] labels choose a Pod Security Standards level
// for each mode; a Pod that fails the enforce level is refused, the warn
// level answers Warning headers (for Pods and for the pod templates of
// workloads), the audit level annotates the audit event. Changing a
// namespace's enforce label warns about the Pods already there that fail it.
// Nothing is exempt by default, as in kube. The checks are in
// pod-security-checks.ts; every version label is evaluated as "latest".
import type { Namespace, Pod, PodSpec, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { Store } from '../storage/store.ts';
import type { AdmissionPlugin } from './types.ts';
import { admissionForbidden, isCore } from './common.ts';
import { describeFailures, evaluatePod, type Level } from './pod-security-checks.ts';

const PREFIX = 'pod-security.kubernetes.io/';
const NAMESPACES_BUCKET = '/registry/core/namespaces';
const PODS_BUCKET = '/registry/core/pods';
const LEVELS = new Set<Level>(['privileged', 'baseline', 'restricted']);
export const AUDIT_VIOLATIONS_ANNOTATION = `${PREFIX}audit-violations`;
export const ENFORCE_POLICY_ANNOTATION = `${PREFIX}enforce-policy`;

/** One mode's policy: a level and the version it names. */
export interface Policy {
  level: Level;
  version: string;
}

type Mode = 'enforce' | 'warn' | 'audit';

/** The policy of each mode in `labels` (privileged when unset; an invalid level counts as restricted, as in kube). */
export function policiesOf(labels: Record<string, string> | undefined): Record<Mode, Policy> {
  const one = (mode: Mode): Policy => {
    const raw = labels?.[PREFIX + mode];
    const level = raw === undefined ? 'privileged' : LEVELS.has(raw as Level) ? (raw as Level) : 'restricted';
    return { level, version: labels?.[`${PREFIX}${mode}-version`] || 'latest' };
  };
  return { enforce: one('enforce'), warn: one('warn'), audit: one('audit') };
}

const text = (p: Policy) => `${p.level}:${p.version}`;

/** The failures of `spec` at `policy`, as kube words them after "violates PodSecurity ...: ", or undefined. */
export function violations(policy: Policy, meta: ObjectMeta, spec: PodSpec): string | undefined {
  const failed = evaluatePod(policy.level, meta, spec);
  return failed.length ? describeFailures(failed) : undefined;
}

/** The pod template of a workload object, for the warn and audit modes. */
function templateOf(group: string, plural: string, obj: Record<string, unknown>): PodTemplateSpec | undefined {
  const spec = obj.spec as Record<string, unknown> | undefined;
  if (group === '' && plural === 'podtemplates') return obj.template as PodTemplateSpec | undefined;
  if (group === 'batch' && plural === 'cronjobs')
    return ((spec?.jobTemplate as Record<string, unknown> | undefined)?.spec as Record<string, unknown> | undefined)?.template as
      PodTemplateSpec | undefined;
  const workloads =
    (group === 'apps' && ['deployments', 'replicasets', 'statefulsets', 'daemonsets'].includes(plural)) ||
    (group === 'batch' && plural === 'jobs') ||
    (group === '' && plural === 'replicationcontrollers');
  return workloads ? (spec?.template as PodTemplateSpec | undefined) : undefined;
}

/** PodSecurity over the namespaces (and, for label changes, the Pods) in `store`. */
export function podSecurity(store: Store): AdmissionPlugin {
  const namespaceLabels = (ns: string): Record<string, string> | undefined => {
    const entry = store.get(`${NAMESPACES_BUCKET}/${ns}`);
    if (!entry || !entry.json.includes(PREFIX)) return undefined;
    return (JSON.parse(entry.json) as Namespace).metadata?.labels;
  };

  /** kube's warnings for the Pods of `ns` that a new enforce policy refuses. */
  function existingPodWarnings(ns: string, policy: Policy): string[] {
    const pods = store.list({ bucket: PODS_BUCKET, keyPrefix: `${PODS_BUCKET}/${ns}/` }).items.map((j) => JSON.parse(j) as Pod);
    const lines: string[] = [];
    for (const pod of pods) {
      const failed = evaluatePod(policy.level, pod.metadata ?? {}, pod.spec ?? { containers: [] });
      if (failed.length) lines.push(`${pod.metadata?.name}: ${failed.map((f) => f.reason).join(', ')}`);
    }
    if (!lines.length) return [];
    return [`existing pods in namespace "${ns}" violate the new PodSecurity enforce level "${text(policy)}"`, ...lines];
  }

  return {
    name: 'PodSecurity',
    contextual: true,
    wanted: (rt, attrs) => (isCore(rt, 'namespaces') ? attrs.operation === 'UPDATE' : namespaceLabels(attrs.namespace) !== undefined),
    validate(op, rt, obj, old, attrs) {
      if (isCore(rt, 'namespaces')) {
        if (op !== 'UPDATE' || !attrs) return;
        const next = policiesOf(obj.metadata?.labels).enforce;
        const before = policiesOf(old?.metadata.labels).enforce;
        if (next.level === 'privileged' || text(next) === text(before)) return;
        for (const w of existingPodWarnings(obj.metadata?.name ?? '', next)) attrs.warn?.(w);
        return;
      }
      if (attrs?.subresource) return;
      if (op !== 'CREATE' && !(op === 'UPDATE' && templateOf(rt.group, rt.plural, obj) !== undefined)) return;
      const policies = policiesOf(namespaceLabels(obj.metadata?.namespace ?? ''));
      const isPod = isCore(rt, 'pods');
      const template = isPod ? undefined : templateOf(rt.group, rt.plural, obj);
      const meta = (isPod ? obj.metadata : template?.metadata) ?? {};
      const spec = isPod ? (obj as Pod).spec : template?.spec;
      if (!spec) return;
      if (isPod) {
        const enforced = violations(policies.enforce, meta, spec);
        attrs?.annotate?.(ENFORCE_POLICY_ANNOTATION, text(policies.enforce));
        if (enforced)
          throw admissionForbidden(rt, obj.metadata?.name ?? '', `violates PodSecurity "${text(policies.enforce)}": ${enforced}`);
      }
      const sameAsEnforce = isPod && text(policies.warn) === text(policies.enforce);
      const warned = sameAsEnforce ? undefined : violations(policies.warn, meta, spec);
      if (warned) attrs?.warn?.(`would violate PodSecurity "${text(policies.warn)}": ${warned}`);
      const audited = violations(policies.audit, meta, spec);
      if (audited) attrs?.annotate?.(AUDIT_VIOLATIONS_ANNOTATION, `would violate PodSecurity "${text(policies.audit)}": ${audited}`);
    },
  };
}
