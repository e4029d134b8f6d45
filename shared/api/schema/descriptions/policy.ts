// policy/v1: PodDisruptionBudget (how many pods voluntary disruptions such
// as drains and evictions may take down at once).
import type { GroupTable } from './types.ts';

export const policy: GroupTable = {
  prefix: 'io.k8s.api.policy.v1',
  types: {
    PodDisruptionBudget: {
      spec: 'Which pods the budget protects and how many of them must stay up (or may be down).',
      status: 'How many protected pods are healthy and how many evictions are allowed now.',
    },
    PodDisruptionBudgetSpec: {
      $: 'The desired protection of a PodDisruptionBudget. It limits evictions (kubectl drain, the eviction API), not pods crashing or being deleted directly.',
      minAvailable:
        'How many selected pods must stay available after an eviction, as a number or a percentage. Set this or maxUnavailable, not both.',
      maxUnavailable: 'How many selected pods may be unavailable after an eviction, as a number or a percentage. Set this or minAvailable.',
      selector: 'Which pods the budget covers, in its namespace. An empty selector matches every pod in the namespace.',
      unhealthyPodEvictionPolicy:
        'When pods that are running but not Ready may be evicted: IfHealthyBudget (only while the budget is met, the default) or AlwaysAllow (always, so broken pods do not block drains).',
    },
    PodDisruptionBudgetStatus: {
      $: 'The observed state of a PodDisruptionBudget.',
      observedGeneration: 'The metadata.generation this status was computed for.',
      disruptedPods: 'Pods whose eviction was granted but which are not yet gone, with the time of the grant.',
      disruptionsAllowed: 'How many pods may be evicted right now.',
      currentHealthy: 'Selected pods that are healthy now.',
      desiredHealthy: 'The fewest healthy pods the budget allows.',
      expectedPods: "Selected pods counted by the budget (from their controllers' scale).",
      conditions: 'DisruptionAllowed: whether an eviction would be granted now, and why not.',
    },
  },
};
