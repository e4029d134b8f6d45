// The in-tree plugins by name, and kube-scheduler's default profile: which
// plugins run, in which order, with which score weights.
import type { PluginFactory } from '../framework/types.ts';
import { balancedAllocation } from './balanced-allocation.ts';
import { interPodAffinity } from './inter-pod-affinity.ts';
import { nodeAffinity } from './node-affinity.ts';
import { nodeName } from './node-name.ts';
import { nodePorts } from './node-ports.ts';
import { nodeResourcesFit } from './node-resources-fit.ts';
import { nodeUnschedulable } from './node-unschedulable.ts';
import { podTopologySpread } from './pod-topology-spread.ts';
import { taintToleration } from './taint-toleration.ts';
import { volumeBinding } from './volume-binding.ts';

/** Every plugin this scheduler knows, by kube's name; each reads its pluginConfig args as written. */
export const PLUGINS: Record<string, PluginFactory> = {
  NodeUnschedulable: () => nodeUnschedulable(),
  NodeName: () => nodeName(),
  TaintToleration: () => taintToleration(),
  NodeAffinity: () => nodeAffinity(),
  NodePorts: () => nodePorts(),
  NodeResourcesFit: (_h, args) => nodeResourcesFit(args),
  PodTopologySpread: (h, args) => podTopologySpread(h, args),
  InterPodAffinity: (h, args) => interPodAffinity(h, args),
  NodeResourcesBalancedAllocation: (_h, args) => balancedAllocation(args),
  VolumeBinding: (h, args) => volumeBinding(h, args),
};

/** Plugins kube knows that this simulator accepts in a config but does not run (no volumes, no images). */
export const IGNORED_PLUGINS = new Set([
  'PrioritySort',
  'SchedulingGates',
  'DefaultBinder',
  'VolumeRestrictions',
  'NodeVolumeLimits',
  'VolumeZone',
  'ImageLocality',
  'EBSLimits',
  'GCEPDLimits',
  'AzureDiskLimits',
  'CinderLimits',
  'NodeResourcesLeastAllocated',
  'DynamicResources',
]);

/** The default profile in kube's order: [name, filter?, score weight or 0]. */
export const DEFAULT_PLUGINS: readonly [name: string, filter: boolean, weight: number][] = [
  ['NodeUnschedulable', true, 0],
  ['NodeName', true, 0],
  ['TaintToleration', true, 3],
  ['NodeAffinity', true, 2],
  ['NodePorts', true, 0],
  ['NodeResourcesFit', true, 1],
  ['VolumeBinding', true, 0],
  ['PodTopologySpread', true, 2],
  ['InterPodAffinity', true, 2],
  ['NodeResourcesBalancedAllocation', false, 1],
];

/** The scheduler name Pods get by default. */
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';
