// `ksim kubelet-sim`: one process hosting N simulated nodes. Registers the
// Nodes, heartbeats, runs their Pods, each node under its own identity
// (node/node-identity.ts), serves the kubelet API (logs, exec, attach) on
// --kubelet-port, HTTPS with client certificates when the apiserver is HTTPS,
// and health, metrics and chaos switches on the plain-http --port, and stays
// in the foreground until SIGTERM/SIGINT (exit 0 after a clean stop) or until
// the `ksim up` supervisor (KSIM_SUPERVISOR_PID) is gone.
import fs from 'node:fs';
import { serveControl } from '../shared/chaos/component-control.ts';
import { realClock } from '../shared/clock/clock.ts';
import { KubeClient } from '../shared/client/kube-client.ts';
import { loadKubeconfig } from '../shared/client/kubeconfig.ts';
import { parseCommandFlags } from '../shared/cli/flags.ts';
import { handleShutdown } from '../shared/cli/shutdown.ts';
import { createLogger } from '../shared/log/logger.ts';
import { startHealthServer } from '../shared/metrics/health-server.ts';
import { createMetricsRegistry, prom } from '../shared/metrics/registry.ts';
import { EvictionManager } from './chaos/eviction-manager.ts';
import { registerKubeletChaos } from './chaos/register.ts';
import { KUBELET_SIM_FLAGS, loadProfile } from './config.ts';
import { loadCatalogFile, PROCESS_CATALOG } from './runtime/images/catalog.ts';
import { NodeFleet } from './node/node-fleet.ts';
import { NodeClients } from './node/node-identity.ts';
import type { KubeletEndpoint, NodeIdentity } from './node/node-object.ts';
import { PodManager } from './pod-manager.ts';
import { SarAuthorizer, subjectAccessReviewer } from './server/kubelet-auth.ts';
import { startControlServer, startKubeletApiServer, type KubeletTls } from './server/kubelet-server.ts';

/** Connections the whole process writes Events on. */
const EVENT_CONNECTIONS = 8;

/** Runs `ksim kubelet-sim`. */
export async function kubeletSimMain(argv: string[]): Promise<void> {
  const flags = parseCommandFlags('kubelet-sim', argv, KUBELET_SIM_FLAGS);
  if (!flags) return;
  if (!flags.kubeconfig) {
    process.stderr.write('ksim kubelet-sim: --kubeconfig is required\n');
    process.exit(2);
  }
  const log = createLogger('kubelet-sim');
  const registry = createMetricsRegistry('kubelet-sim');
  const clock = realClock;
  const speed = flags.speed > 0 ? flags.speed : 1;
  const { profile, timings } = loadProfile(flags.profile, speed);
  if (flags['image-catalog']) PROCESS_CATALOG.add(loadCatalogFile(flags['image-catalog']));
  const userAgent = `kubelet/${profile.kubeletVersion} (linux/${profile.architecture}) ksim`;
  // kubelet's three clients: Pods and the rest; heartbeats (Leases, Node status), so that they never wait
  // behind Pod writes; events, on a few connections of their own, so that they never crowd out status writes.
  const config = loadKubeconfig(flags.kubeconfig);
  const client = new KubeClient(config, { userAgent });
  const heartbeatClient = new KubeClient(config, { userAgent });
  const eventClient = new KubeClient(config, { userAgent, maxConnections: EVENT_CONNECTIONS });
  // Each node's requests as that node, over the three pools above.
  const impersonate = flags['impersonate-nodes'];
  const [asNode, heartbeatAsNode, eventsAsNode] = [client, heartbeatClient, eventClient].map((c) => new NodeClients(c, impersonate));
  const secure = new URL(config.server).protocol === 'https:';
  const clientCa = flags['client-ca-file'] ? fs.readFileSync(flags['client-ca-file']) : config.ca;
  if (secure && !clientCa) {
    process.stderr.write(
      "ksim kubelet-sim: the kubelet API needs a CA to verify the apiserver's client certificate: give --client-ca-file or a kubeconfig with certificate-authority-data\n",
    );
    process.exit(2);
  }

  const requests = new prom.Counter({
    name: 'ksim_kubelet_sim_api_requests_total',
    help: 'API writes by kind (register, lease, status, pod-status, pod-delete) and result.',
    labelNames: ['kind', 'result'],
    registers: [registry],
  });
  const staticPods = await import('./static-pods/index.ts');
  let controlPlane: NodeIdentity[];
  try {
    controlPlane = staticPods.controlPlaneIdentities(flags);
  } catch (err) {
    process.stderr.write(`ksim kubelet-sim: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const identities: NodeIdentity[] = [
    ...Array.from({ length: flags.nodes }, (_, i) => ({
      name: `${flags['name-prefix']}${flags['start-index'] + i}`,
      index: flags['start-index'] + i,
    })),
    ...controlPlane,
  ];
  const endpoint: KubeletEndpoint = {
    host: flags['bind-address'] === '0.0.0.0' ? '127.0.0.1' : flags['bind-address'],
    port: 0,
    scheme: secure ? 'https' : 'http',
  };
  const fleet = new NodeFleet(
    {
      client: heartbeatClient,
      clientFor: (name) => heartbeatAsNode.for(name),
      clock,
      timings,
      profile,
      endpoint,
      log,
      onRequest: (kind, ok) => requests.inc({ kind, result: ok ? 'ok' : 'error' }),
      // The fleet calls these only once started, after `pods` exists.
      onNodeOnline: (n, rebooted) => pods.nodeOnline(n, rebooted),
      onNodeStopped: (n) => pods.nodeStopped(n),
      onKubeletDown: (n) => pods.kubeletDown(n),
    },
    identities,
  );
  const pods = new PodManager({
    client,
    eventClient,
    clientFor: (name) => asNode.for(name),
    eventClientFor: (name) => eventsAsNode.for(name),
    rootCa: config.ca?.toString('utf8'),
    clock,
    timings,
    speed,
    fleet,
    log,
    registry,
    onWrite: (kind, ok) => requests.inc({ kind: `pod-${kind}`, result: ok ? 'ok' : 'error' }),
  });
  // The supervisor's chaos ops (node and container faults) on its IPC channel, when started by `ksim up`.
  const evictions = new EvictionManager({ fleet, pods, clock, speed, log });
  registerKubeletChaos({ fleet, pods, evictions });
  serveControl(log);
  // The control-plane node's kubelet runs its static Pods: mirror Pods whose status follows the components' health.
  staticPods.startStaticPods(flags, {
    fleet,
    client,
    clientFor: (n) => asNode.for(n),
    eventClientFor: (n) => eventsAsNode.for(n),
    clock,
    speed,
    version: profile.kubeletVersion,
    log,
  });
  new prom.Gauge({
    name: 'ksim_kubelet_sim_nodes_registered',
    help: 'Simulated nodes registered with the apiserver.',
    registers: [registry],
    collect() {
      this.set(fleet.registeredCount);
    },
  });
  new prom.Gauge({
    name: 'ksim_kubelet_sim_pods',
    help: 'Pods with a running worker.',
    registers: [registry],
    collect() {
      this.set(pods.podCount);
    },
  });

  let ready = false;
  const health = await startHealthServer({ port: 0, registry, ready: () => ready });
  const serverOpts = { host: flags['bind-address'], port: flags.port, fleet, pods, clock, log, healthPort: health.port };
  const server = await startControlServer(serverOpts);
  let tls: KubeletTls | undefined;
  if (secure) {
    const serving = await servingCertificate(flags['tls-cert-file'], flags['tls-private-key-file'], endpoint.host);
    // kubelet asks with its own credentials: each node reviews the requests for its own Pods.
    const authorizer = new SarAuthorizer({ review: subjectAccessReviewer((node) => asNode.for(node)), clock });
    tls = { certPem: serving.certPem, keyPem: serving.keyPem, clientCaPem: clientCa!, authorizer };
  }
  const kubeletApi = await startKubeletApiServer(serverOpts, flags['kubelet-port'], tls);
  endpoint.port = kubeletApi.port;

  handleShutdown(log, async () => {
    evictions.stop();
    fleet.stop();
    await pods.stop().catch(() => {});
    await server.close();
    await kubeletApi.close();
    await health.close();
    for (const c of [client, heartbeatClient, eventClient]) c.close();
  });

  const kubeletUrl = `${endpoint.scheme}://${endpoint.host}:${kubeletApi.port}`;
  log.info({ nodes: flags.nodes, port: server.port, kubeletApi: kubeletUrl, speed, impersonate }, 'kubelet-sim starting');
  process.stdout.write(
    `kubelet-sim: ${flags.nodes} node(s) ${identities[0]?.name ?? ''}..${identities.at(-1)?.name ?? ''}, serving on ${endpoint.host}:${server.port}, kubelet API at ${kubeletUrl}\n`,
  );
  const started = Date.now();
  await pods.start();
  // ksim's ingress-nginx on the host (--ingress-port), once the pod manager attached the networking informers.
  const { startProcessIngress } = await import('./ingress/server.ts');
  await startProcessIngress({ host: flags['bind-address'], port: flags['ingress-port'] });
  await fleet.start();
  ready = true;
  log.info({ nodes: fleet.registeredCount, ms: Date.now() - started }, 'nodes registered');
}

/**
 * The kubelet API's serving certificate: the files given (ksim up passes one
 * the cluster CA issued at first start), or else one made now, self-signed, as
 * kubelet does without --tls-cert-file (loading the certificate library only then).
 */
async function servingCertificate(certFile: string, keyFile: string, host: string): Promise<{ certPem: string; keyPem: string }> {
  if (certFile || keyFile) {
    if (!certFile || !keyFile) throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
    const [certPem, keyPem] = await Promise.all([fs.promises.readFile(certFile, 'utf8'), fs.promises.readFile(keyFile, 'utf8')]);
    return { certPem, keyPem };
  }
  const { selfSignedServingCert } = await import('./server/serving-cert.ts');
  return selfSignedServingCert(host);
}
