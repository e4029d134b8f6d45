// The process's watches for the simulated network's policy and ingress
// layer: NetworkPolicies and Namespaces (the policy engine's input) and
// Ingresses and IngressClasses (ksim's ingress-nginx). `attachNetworking`
// plugs them into the pod manager's NetSource; the ingress controller made
// here answers at INGRESS_IP at once, and kubelet-sim/ingress/server.ts
// (started by main.ts) adds its host port and its status writer.
import type { Logger } from 'pino';
import type { Namespace } from 'kubernetes-types/core/v1.js';
import type { Ingress, IngressClass, NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { findResource } from '../../../shared/api/resources.ts';
import type { Clock } from '../../../shared/clock/clock.ts';
import type { KubeClient } from '../../../shared/client/kube-client.ts';
import { Informer } from '../../../shared/informer/informer.ts';
import { IngressController } from '../../ingress/controller.ts';
import type { NetSource } from '../cluster-net.ts';

/** The informers and the controller of one kubelet-sim process. */
export interface Networking {
  policies: Informer<NetworkPolicy>;
  namespaces: Informer<Namespace>;
  ingresses: Informer<Ingress>;
  classes: Informer<IngressClass>;
  controller: IngressController;
  client: KubeClient;
  log: Logger;
  clock: Clock;
}

let current: Networking | undefined;

/** This process's networking layer, once the pod manager attached it. */
export function processNetworking(): Networking | undefined {
  return current;
}

/**
 * Makes the informers, extends `net` with them and returns them for the pod manager to start. Until the
 * policies are listed nothing is isolated (a CNI that has not synced its policies yet lets traffic through).
 */
export function attachNetworking(net: NetSource, opts: { client: KubeClient; log: Logger; clock: Clock }): Informer[] {
  const o = { log: opts.log, clock: opts.clock };
  const policies = new Informer<NetworkPolicy>(opts.client, findResource('networking.k8s.io', 'v1', 'networkpolicies')!, o);
  const namespaces = new Informer<Namespace>(opts.client, findResource('', 'v1', 'namespaces')!, o);
  const ingresses = new Informer<Ingress>(opts.client, findResource('networking.k8s.io', 'v1', 'ingresses')!, o);
  const classes = new Informer<IngressClass>(opts.client, findResource('networking.k8s.io', 'v1', 'ingressclasses')!, o);
  const controller = new IngressController({ ingresses: () => ingresses.cache.list(), classes: () => classes.cache.list(), net });
  net.networkPolicies = (ns) => policies.cache.byIndex('namespace', ns);
  net.namespace = (name) => namespaces.cache.get(name);
  net.ingress = () => controller;
  current = { policies, namespaces, ingresses, classes, controller, ...opts };
  return [policies, namespaces, ingresses, classes];
}

/** Attaches the networking layer to `net` and starts its informers, waiting a little for their first list. */
export async function startNetworking(net: NetSource, opts: { client: KubeClient; log: Logger; clock: Clock }): Promise<void> {
  const informers = attachNetworking(net, opts);
  for (const i of informers) i.start();
  // Not waited for long: a list that keeps failing (a role without these resources) must not hold up the Pods.
  let cancel = () => {};
  const late = new Promise<void>((resolve) => (cancel = opts.clock.setTimeout(resolve, SYNC_WAIT_MS)));
  await Promise.race([Promise.all(informers.map((i) => i.waitForSync())), late]);
  cancel();
  if (!informers.every((i) => i.hasSynced())) opts.log.warn('networkpolicies, namespaces, ingresses or ingressclasses not listed yet');
}

const SYNC_WAIT_MS = 5000;
