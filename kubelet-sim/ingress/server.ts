// ksim's ingress-nginx on the host: a plain-HTTP TCP port (kubelet-sim's
// --ingress-port; 0 picks one, which kubelet-sim's log tells) that routes by
// the Host header to the simulated servers, so `curl -H 'Host: foo.example'
// http://127.0.0.1:PORT/` reaches a Service from a laptop, and the status
// writer that publishes the controller's address in status.loadBalancer of
// every Ingress it serves, as ingress-nginx's status sync does. Like
// ingress-nginx's store, it records a `Sync` event ("Scheduled for sync",
// from nginx-ingress-controller) each time it sees an Ingress it serves
// created or changed (its own status write included, hence the usual x2).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Ingress } from 'kubernetes-types/networking/v1.js';
import { StatusError } from '../../shared/api/errors.ts';
import { findResource } from '../../shared/api/resources.ts';
import { KubeClient } from '../../shared/client/kube-client.ts';
import { runController, type RunningController } from '../../shared/controller/run-controller.ts';
import { keyOf } from '../../shared/informer/cache.ts';
import { EventRecorder } from '../../shared/events/event-recorder.ts';
import { deepEqual } from '../../shared/util/deep-equal.ts';
import { WorkQueue } from '../../shared/workqueue/work-queue.ts';
import { processNetworking, type Networking } from '../runtime/network-policy/informers.ts';

const ingressesRT = findResource('networking.k8s.io', 'v1', 'ingresses')!;

/** A started host port and status writer. */
export interface IngressServer {
  port: number;
  close(): Promise<void>;
}

/** Starts the host port and the status writer for the process's ingress controller. */
export async function startIngressServer(n: Networking, opts: { host: string; port: number }): Promise<IngressServer> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const answer = n.controller.http({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      host: req.headers.host ?? '',
      clientIP: req.socket.remoteAddress ?? '',
    });
    res.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8', ...(answer.headers ?? {}) });
    res.end(req.method === 'HEAD' ? undefined : answer.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  // The writer starts once the Ingresses are listed, which must not hold up the port.
  const writer = startStatusWriter(n);
  writer.catch((err: Error) => n.log.error({ err: err.message }, 'ingress status writer failed'));
  return {
    port,
    async close() {
      await (await writer.catch(() => undefined))?.stop();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Starts this process's ingress port (kubelet-sim's --ingress-port) and says where it listens. */
export async function startProcessIngress(opts: { host: string; port: number }): Promise<IngressServer | undefined> {
  const n = processNetworking();
  if (!n) return undefined;
  const s = await startIngressServer(n, opts);
  const url = `http://${opts.host === '0.0.0.0' ? '127.0.0.1' : opts.host}:${s.port}`;
  n.log.info({ ingress: url, address: n.controller.address }, 'ingress-nginx serving');
  process.stdout.write(`kubelet-sim: ingress-nginx (class nginx) at ${url} from the host, ${n.controller.address} from Pods\n`);
  return s;
}

/** The status ingress-nginx publishes: its address (an IP, or a host name). */
function wantedStatus(address: string): NonNullable<Ingress['status']> {
  return { loadBalancer: { ingress: [/^[\d.]+$/.test(address) ? { ip: address } : { hostname: address }] } };
}

async function startStatusWriter(n: Networking): Promise<RunningController> {
  const queue = new WorkQueue({ clock: n.clock });
  const all = () => {
    for (const i of n.ingresses.cache.list()) queue.add(keyOf(i));
  };
  n.classes.on({ add: all, update: all, delete: all });
  const events = new EventRecorder(n.client, { component: 'nginx-ingress-controller', clock: n.clock, log: n.log });
  const scheduled = (ing: Ingress) => {
    if (n.controller.serves(ing))
      events.event({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: ing.metadata }, 'Normal', 'Sync', 'Scheduled for sync');
  };
  n.ingresses.on({
    add: (i) => {
      scheduled(i);
      queue.add(keyOf(i));
    },
    update: (old, i) => {
      if (!deepEqual(old, i)) scheduled(i);
      queue.add(keyOf(i));
    },
  });
  return runController({
    name: 'ingress-nginx-status',
    queue,
    informers: [n.ingresses],
    log: n.log,
    workers: 2,
    reconcile: async (key) => {
      const ing = n.ingresses.cache.get(key);
      if (!ing || !n.controller.serves(ing)) return;
      const status = wantedStatus(n.controller.address);
      if (deepEqual(ing.status?.loadBalancer ?? {}, status.loadBalancer)) return;
      const next = { ...structuredClone(ing), status };
      try {
        await n.client.request('PUT', KubeClient.path(ingressesRT, ing.metadata!.namespace, ing.metadata!.name, 'status'), {
          body: next,
          discardBody: true,
        });
      } catch (err) {
        // Gone meanwhile: nothing to publish; a conflict comes back with the newer object through the watch.
        if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
        throw err;
      }
    },
  });
}
