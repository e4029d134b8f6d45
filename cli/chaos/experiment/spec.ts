// The experiment file `ksim chaos run FILE.yaml` reads, as types (validate.ts
// turns the YAML into these, with errors that name the field path). One YAML
// document:
//
//   apiVersion: ksim.dev/v1alpha1
//   kind: Experiment
//   metadata: { name: scheduler-crash, description: "..." }
//   spec:
//     seed: 7                      # every random choice (faults' seeds); --seed overrides
//     timeout: 5m                  # the whole run (default 10m)
//     requires: { controllerManagers: 2, schedulers: 1 }   # refuse to run on a smaller cluster
//     objects: [ ...manifests ]    # server-side applied (field manager ksim-experiment) before anything else
//     invariants:                  # hold from the start to the end
//       - { name: surge, maxPods: { namespace: default, deployment: web } }   # [maxSurge: 1|25%: override]
//       - { name: writes, noLostWrites: { namespace: default, rate: 20 } }     # ConfigMaps per second
//       - { name: view, watchConsistent: { resource: pods, namespace: default, labelSelector: app=web, within: 20s } }
//     checks:                      # probes, in Litmus's modes
//       - name: all-running
//         mode: EOT                # SOT (at start) | EOT (at end) | Edge (both) | Continuous | OnChaos (while a fault is active)
//         condition:
//           resource: pods         # plural, or plural.group (deployments.apps)
//           namespace: default
//           labelSelector: app=web # a list: the CEL variable `objects`; with `name:`, a get: `object` (null if absent)
//           expr: "size(objects) == 3 && objects.all(p, p.status.phase == 'Running')"
//         within: 60s              # SOT/EOT/Edge: must become true within this (default 60s)
//         interval: 1s             # Continuous/OnChaos: evaluated this often, must be true every time
//     steps:                       # run in order
//       - fault: { action: kill, target: scheduler }    # a ChaosRequest (shared/chaos/protocol.ts) in YAML
//         duration: 30s            # hold it this long, then recover it (when the supervisor gave it a fault id)
//       - wait: 5s
//       - apply: [ ...manifests ]  # change the workload mid-run
//       - check: { name: pending, condition: {...}, within: 10s }   # must become true within, here
//       - serial: [ ...steps ]     # Chaos Mesh's Serial / Parallel workflow nodes
//       - parallel: [ ...steps ]
//
// Durations are "250ms", "2s", "1m30s". With --speed N (as the cluster was
// started with) every duration in the file is divided by N, so a file states
// kube's real times (a 300 s toleration) and runs in seconds on a fast cluster.
import type { ChaosRequest } from '../../../shared/chaos/protocol.ts';

/** A manifest to apply: any object with apiVersion, kind and metadata.name. */
export type Manifest = Record<string, unknown> & { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };

/** What a condition reads and the CEL expression it must satisfy. */
export interface Condition {
  resource: string;
  namespace?: string;
  /** A get: the expression sees `object` (null when it does not exist). */
  name?: string;
  /** Otherwise a list: the expression sees `objects`. */
  labelSelector?: string;
  fieldSelector?: string;
  expr: string;
}

export type ProbeMode = 'SOT' | 'EOT' | 'Edge' | 'Continuous' | 'OnChaos';
export const PROBE_MODES: readonly ProbeMode[] = ['SOT', 'EOT', 'Edge', 'Continuous', 'OnChaos'];

export interface Check {
  name: string;
  mode: ProbeMode;
  condition: Condition;
  /** SOT/EOT/Edge: must become true within this. */
  withinMs: number;
  /** Continuous/OnChaos: the interval of evaluations. */
  intervalMs: number;
}

/** A check run as a step: must become true within its deadline at that point of the run. */
export interface StepCheck {
  name: string;
  condition: Condition;
  withinMs: number;
}

export interface MaxPods {
  namespace: string;
  deployment: string;
  /** Overrides the Deployment's own maxSurge (an int or a percent). */
  maxSurge?: number | string;
}

export interface NoLostWrites {
  namespace: string;
  /** Writes per second. */
  rate: number;
}

export interface WatchConsistent {
  resource: string;
  namespace?: string;
  labelSelector?: string;
  /** How long after recovery the watcher may take to catch up. */
  withinMs: number;
}

export type Invariant =
  | { name: string; kind: 'maxPods'; maxPods: MaxPods }
  | { name: string; kind: 'noLostWrites'; noLostWrites: NoLostWrites }
  | { name: string; kind: 'watchConsistent'; watchConsistent: WatchConsistent };

export type Step =
  | { kind: 'fault'; name: string; fault: ChaosRequest; durationMs?: number }
  | { kind: 'wait'; name: string; waitMs: number }
  | { kind: 'apply'; name: string; objects: Manifest[] }
  | { kind: 'check'; name: string; check: StepCheck }
  | { kind: 'serial'; name: string; steps: Step[] }
  | { kind: 'parallel'; name: string; steps: Step[] };

export interface Requirements {
  controllerManagers?: number;
  schedulers?: number;
}

export interface Experiment {
  name: string;
  description?: string;
  seed: number;
  timeoutMs: number;
  requires: Requirements;
  objects: Manifest[];
  invariants: Invariant[];
  checks: Check[];
  steps: Step[];
}
