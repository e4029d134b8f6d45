// What kubelet-sim's main.ts calls: the control-plane node's identity (after
// the workers: its index fixes its addresses) and its static Pods.
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock/clock.ts';
import type { KubeClient } from '../../shared/client/kube-client.ts';
import type { NodeFleet } from '../node/node-fleet.ts';
import type { NodeIdentity } from '../node/node-object.ts';
import { controlPlaneIdentity, parseComponentEndpoints } from './control-plane.ts';
import { StaticPods } from './static-pods.ts';

/** The flags this reads. */
interface Flags {
  'control-plane-node': string;
  'static-pods': string;
  nodes: number;
  'start-index': number;
}

/** The control-plane node's identity, when --control-plane-node names one; throws on a bad --static-pods. */
export function controlPlaneIdentities(flags: Flags): NodeIdentity[] {
  parseComponentEndpoints(flags['static-pods']);
  const name = flags['control-plane-node'];
  return name ? [controlPlaneIdentity(name, flags['start-index'] + flags.nodes)] : [];
}

/** Starts the control-plane node's static Pods (once it is registered); undefined without a control-plane node. */
export function startStaticPods(
  flags: Flags,
  deps: {
    fleet: NodeFleet;
    client: KubeClient;
    clientFor(node: string): KubeClient;
    eventClientFor(node: string): KubeClient;
    clock: Clock;
    speed: number;
    version: string;
    log: Logger;
  },
): StaticPods | undefined {
  const node = deps.fleet.nodes.get(flags['control-plane-node']);
  if (!node) return undefined;
  const pods = new StaticPods({
    node,
    components: parseComponentEndpoints(flags['static-pods']),
    client: deps.client,
    nodeClient: deps.clientFor(node.name),
    eventClient: deps.eventClientFor(node.name),
    clock: deps.clock,
    speed: deps.speed,
    version: deps.version,
    log: deps.log.child({ component: 'static-pods', node: node.name }),
  });
  pods.start();
  return pods;
}
