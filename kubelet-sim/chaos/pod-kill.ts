// The 'pod.kill' op: a container's process is SIGKILLed (exit code 137,
// reason Error) and kubelet restarts it per the Pod's restartPolicy with its
// back-off (restartCount + 1, lastState.terminated); without `container`, the
// first running one. A Pod that no node of this process runs is an error
// that names it.
import type { NodeFleet } from '../node/node-fleet.ts';
import type { PodWorker } from '../runtime/pod-worker.ts';

/** What 'pod.kill' needs from the Pod side of the process. */
export interface PodWorkers {
  worker(namespace: string, name: string): PodWorker | undefined;
}

/** The answer to 'pod.kill'. */
export interface PodKillResult {
  namespace: string;
  name: string;
  node: string;
  container: string;
  exitCode: 137;
}

/** Kills one container of one Pod. */
export function killPod(fleet: NodeFleet, pods: PodWorkers, args: Record<string, unknown>): PodKillResult {
  const { namespace, name, container } = args;
  if (typeof namespace !== 'string' || !namespace) throw new Error('pod.kill: namespace is required');
  if (typeof name !== 'string' || !name) throw new Error('pod.kill: name is required');
  if (container !== undefined && (typeof container !== 'string' || !container)) throw new Error('pod.kill: container must be a name');
  const w = pods.worker(namespace, name);
  const node = w?.pod.spec?.nodeName ?? '';
  if (!w || !fleet.nodes.has(node)) throw new Error(`pod.kill: pod "${namespace}/${name}" is not running on any node of this kubelet-sim`);
  if (!fleet.isOnline(node) && fleet.nodes.get(node)?.mode === 'stopped') throw new Error(`pod.kill: node ${node} is powered off`);
  const out = w.killProcess(container);
  if ('error' in out) throw new Error(`pod.kill: pod "${namespace}/${name}": ${out.error}`);
  return { namespace, name, node, container: out.container, exitCode: 137 };
}
