// Invariant maxPods: a Deployment never has more Pods than replicas +
// maxSurge, as kube's deployment controller promises during a rollout.
// maxSurge is resolved as kube resolves it (intstr scaled against
// spec.replicas, a percent rounded up; 25% by default; 0 for Recreate).
// Counted are the Pods the selector matches that are not terminating and
// not finished, which is what the ReplicaSet controller counts. After a
// scale-down the old limit holds until the count has come down to the new
// one, since kube removes the extra Pods only then.
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { findResource } from '../../../../shared/api/resources.ts';
import { labelSelectorString, selectorFromLabelSelector } from '../../../../shared/labels/label-selector.ts';
import { Informer } from '../../../../shared/informer/informer.ts';
import type { MaxPods } from '../spec.ts';
import { violate, type InvariantDeps, type InvariantRunner, type Violation } from './types.ts';

/** kube's intstr.GetScaledValueFromIntOrPercent with roundUp, for maxSurge. */
export function resolveMaxSurge(value: number | string | undefined, replicas: number): number {
  if (value === undefined) return Math.ceil((replicas * 25) / 100);
  if (typeof value === 'number') return value;
  const m = /^(\d+)%$/.exec(value);
  if (m) return Math.ceil((replicas * Number(m[1])) / 100);
  const n = Number(value);
  return Number.isInteger(n) ? n : 0;
}

/** The most Pods `d` may have (with `override` in place of its own maxSurge). */
export function podLimit(d: Deployment, override?: number | string): number {
  const replicas = d.spec?.replicas ?? 1;
  if (override !== undefined) return replicas + resolveMaxSurge(override, replicas);
  if (d.spec?.strategy?.type === 'Recreate') return replicas;
  return replicas + resolveMaxSurge(d.spec?.strategy?.rollingUpdate?.maxSurge, replicas);
}

/** A Pod the ReplicaSet controller counts: not being deleted, not Succeeded or Failed. */
export function countsAsActive(p: Pod): boolean {
  return !p.metadata?.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';
}

export function maxPodsInvariant(name: string, spec: MaxPods, deps: InvariantDeps): InvariantRunner {
  const deployments = findResource('apps', 'v1', 'deployments')!;
  const pods = findResource('', 'v1', 'pods')!;
  const violations: Violation[] = [];
  let podInformer: Informer<Pod> | undefined;
  let deploymentInformer: Informer<Deployment> | undefined;
  let held = 0;
  let over = false;
  let most = 0;
  let limitSeen = 0;
  const judge = (trigger?: Pod): void => {
    const d = deploymentInformer?.cache.get(`${spec.namespace}/${spec.deployment}`);
    if (!d || !podInformer) return;
    const limit = podLimit(d, spec.maxSurge);
    const active = podInformer.cache.list().filter(countsAsActive);
    const count = active.length;
    if (count <= limit) held = 0;
    const effective = Math.max(limit, held);
    limitSeen = limit;
    most = Math.max(most, count);
    if (count > effective && !over) {
      over = true;
      violate(violations, name, deps.recorder, {
        object: trigger ? `Pod ${spec.namespace}/${trigger.metadata?.name}` : `Deployment ${spec.namespace}/${spec.deployment}`,
        message: `${count} Pods of Deployment ${spec.deployment} (limit ${effective} = replicas ${d.spec?.replicas ?? 1} + maxSurge ${effective - (d.spec?.replicas ?? 1)}): ${active
          .map((p) => p.metadata?.name)
          .sort()
          .join(', ')}`,
      });
    } else if (count <= effective) over = false;
  };
  return {
    async start() {
      const d = await deps.client.get<Deployment>(deployments, spec.namespace, spec.deployment);
      const selector = labelSelectorString(selectorFromLabelSelector(d.spec?.selector));
      deploymentInformer = new Informer<Deployment>(deps.client, deployments, {
        namespace: spec.namespace,
        fieldSelector: `metadata.name=${spec.deployment}`,
      });
      deploymentInformer.on({
        update: (old, cur) => {
          // A scale-down keeps the old limit until the extra Pods are gone.
          if ((cur.spec?.replicas ?? 1) < (old.spec?.replicas ?? 1)) held = Math.max(held, podLimit(old, spec.maxSurge));
          judge();
        },
      });
      podInformer = new Informer<Pod>(deps.client, pods, { namespace: spec.namespace, labelSelector: selector });
      podInformer.on({ add: (p) => judge(p), update: (_o, p) => judge(p), delete: () => judge() });
      deploymentInformer.start();
      await deploymentInformer.waitForSync();
      podInformer.start();
      await podInformer.waitForSync();
      judge();
    },
    finish() {
      podInformer?.stop();
      deploymentInformer?.stop();
      return Promise.resolve({
        name,
        kind: 'maxPods',
        held: violations.length === 0,
        violations,
        message:
          violations.length === 0
            ? `at most ${most} Pods of Deployment ${spec.namespace}/${spec.deployment} (limit ${limitSeen})`
            : `${violations.length} time(s) over the limit; first at ${(violations[0].at / 1000).toFixed(1)}s: ${violations[0].message}`,
      });
    },
    stop() {
      podInformer?.stop();
      deploymentInformer?.stop();
    },
  };
}
