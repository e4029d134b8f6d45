// The container start-up pipeline as data, in the manner of kwok's Stages:
// each stage names the waiting reason shown meanwhile, how long it takes
// (a key into Timings, so a profile or --speed changes it), and the kubelet
// Events written as it begins and ends. The engine in pod-worker.ts runs them
// in order for every container; failures (image pull, config) are decided by
// the engine from what the Pod says.
import type { Timings } from './timings.ts';

/** Values a stage's event messages may use: {image}, {container}, {duration}, {size}. */
export type StageVars = Record<string, string>;

/** One step of starting a container. */
export interface ContainerStage {
  name: 'pull' | 'create' | 'start';
  /** The waiting reason while the stage runs. */
  waiting: string;
  /** Which timing applies; `skipWhen` makes the stage take no time and emit `skipEvent` instead. */
  delay: keyof Timings;
  skipWhen?: 'imagePresent';
  begin?: { type: 'Normal' | 'Warning'; reason: string; message: string };
  end?: { type: 'Normal' | 'Warning'; reason: string; message: string };
  skipEvent?: { type: 'Normal' | 'Warning'; reason: string; message: string };
}

/** kubelet's order and messages (kube 1.35). */
export const CONTAINER_STAGES: readonly ContainerStage[] = [
  {
    name: 'pull',
    waiting: 'ContainerCreating',
    delay: 'pullMs',
    skipWhen: 'imagePresent',
    begin: { type: 'Normal', reason: 'Pulling', message: 'Pulling image "{image}"' },
    end: {
      type: 'Normal',
      reason: 'Pulled',
      message: 'Successfully pulled image "{image}" in {duration} ({duration} including waiting). Image size: {size} bytes.',
    },
    skipEvent: { type: 'Normal', reason: 'Pulled', message: 'Container image "{image}" already present on machine' },
  },
  {
    name: 'create',
    waiting: 'ContainerCreating',
    delay: 'createMs',
    end: { type: 'Normal', reason: 'Created', message: 'Created container: {container}' },
  },
  {
    name: 'start',
    waiting: 'ContainerCreating',
    delay: 'startMs',
    end: { type: 'Normal', reason: 'Started', message: 'Started container {container}' },
  },
];

/** Fills {name} placeholders. */
export function fill(template: string, vars: StageVars): string {
  return template.replace(/\{(\w+)\}/g, (m: string, k: string) => vars[k] ?? m);
}

/** Go's time.Duration formatting for the Pulled message (e.g. 2s, 1.5s, 250ms). */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${+ms.toFixed(3)}ms`;
  return `${+(ms / 1000).toFixed(3)}s`;
}
