// What every controller in the controller-manager is built from: the
// shared client, the shared informers, the clock, logging, metrics and the
// event recorder. Controllers take it as a parameter, so tests can build one.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Clock } from '../shared/clock/clock.ts';
import type { KubeClient } from '../shared/client/kube-client.ts';
import type { EventRecorder } from '../shared/events/event-recorder.ts';
import type { InformerFactory } from '../shared/informer/factory.ts';

/** The collaborators of a controller. */
export interface ControllerContext {
  client: KubeClient;
  informers: InformerFactory;
  clock: Clock;
  log: Logger;
  registry: Registry;
  events: EventRecorder;
  /** Every control-plane duration is divided by this. */
  speed: number;
  /** The CSR signer's CA files and --cluster-signing-duration (ms); without them csrsigning signs nothing. */
  csrSigning?: { certFile: string; keyFile: string; durationMs?: number };
  /** The tokens controller's --service-account-private-key-file and --root-ca-file; without a key it fills no Secrets. */
  tokenSigning?: { privateKeyFile: string; rootCaFile?: string };
}

/** A controller ready to run: what runController needs besides the logger. */
export interface ControllerParts {
  name: string;
  queue: import('../shared/workqueue/work-queue.ts').WorkQueue;
  informers: import('../shared/informer/informer.ts').Informer[];
  reconcile: (key: string) => Promise<{ requeueAfterMs?: number } | void>;
}
