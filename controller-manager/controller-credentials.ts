// Each controller's own identity, as kube-controller-manager runs its
// controllers with --use-service-account-credentials (kubeadm's setting):
// controller X acts as the ServiceAccount kube-system/X, which the bootstrap
// policy binds to the role system:controller:X. The controller-manager's own
// identity (system:kube-controller-manager) only creates those
// ServiceAccounts, asks the TokenRequest API for their tokens, runs the
// shared informers and holds the leader Lease. A token is renewed well
// before it expires, as client-go's dynamic client builder does.
import type { ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { Logger } from 'pino';
import { StatusError } from '../shared/api/errors.ts';
import { findResource } from '../shared/api/resources.ts';
import { KubeClient, type ClientOptions } from '../shared/client/kube-client.ts';
import { wallNow } from '../shared/clock/clock.ts';

const serviceaccounts = findResource('', 'v1', 'serviceaccounts')!;

/** The ServiceAccount each controller acts as (kube's names, from its controller descriptors). */
export const CONTROLLER_SERVICE_ACCOUNTS: Record<string, string> = {
  deployment: 'deployment-controller',
  replicaset: 'replicaset-controller',
  disruption: 'disruption-controller',
  endpoint: 'endpoint-controller',
  endpointslice: 'endpointslice-controller',
  'node-lifecycle': 'node-controller',
  'taint-eviction-controller': 'taint-eviction-controller',
  garbagecollector: 'generic-garbage-collector',
  namespace: 'namespace-controller',
  serviceaccount: 'service-account-controller',
  'root-ca-cert-publisher': 'root-ca-cert-publisher',
  'clusterrole-aggregation': 'clusterrole-aggregation-controller',
  resourcequota: 'resourcequota-controller',
  csrsigning: 'certificate-controller',
  job: 'job-controller',
  cronjob: 'cronjob-controller',
  daemonset: 'daemon-set-controller',
  statefulset: 'statefulset-controller',
  'ttl-after-finished': 'ttl-after-finished-controller',
  replicationcontroller: 'replication-controller',
  'persistentvolume-binder': 'persistent-volume-binder',
  'persistentvolume-expander': 'expand-controller',
  'pvc-protection': 'pvc-protection-controller',
  'pv-protection': 'pv-protection-controller',
  horizontalpodautoscaling: 'horizontal-pod-autoscaler',
  'validatingadmissionpolicy-status': 'validatingadmissionpolicy-status-controller',
};

/** How long a controller's token lives; it is renewed at 80% of that. */
const TOKEN_SECONDS = 3600;

/** A TokenRequest's answer. */
interface TokenRequestStatus {
  status?: { token?: string; expirationTimestamp?: string };
}

/**
 * Makes the clients of controllers: each a client of its own ServiceAccount's
 * token (no client certificate, so the token is who it is), renewed before
 * it expires. Without a TLS server (--insecure-http) every controller shares
 * the base client, as there is no authentication to act under.
 */
export class ControllerCredentials {
  private readonly clients = new Map<string, KubeClient>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly base: KubeClient,
    private readonly opts: ClientOptions,
    private readonly log: Logger,
  ) {}

  /** The client controller `controller` acts with. */
  async clientFor(controller: string): Promise<KubeClient> {
    const account = CONTROLLER_SERVICE_ACCOUNTS[controller];
    if (!account || !this.base.config.server.startsWith('https:')) return this.base;
    const cached = this.clients.get(controller);
    if (cached) return cached;
    await this.ensureServiceAccount(account);
    const { token, expiresAt } = await this.requestToken(account);
    const client = this.tokenClient(controller, token);
    this.clients.set(controller, client);
    this.scheduleRenewal(controller, account, expiresAt);
    return client;
  }

  /** Closes every controller client and stops renewing. */
  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }

  private tokenClient(controller: string, token: string): KubeClient {
    return new KubeClient(
      { ...this.base.config, cert: undefined, key: undefined, token },
      { ...this.opts, userAgent: `${this.opts.userAgent ?? 'ksim-controller-manager'}/${CONTROLLER_SERVICE_ACCOUNTS[controller]}` },
    );
  }

  private async ensureServiceAccount(name: string): Promise<void> {
    const sa: ServiceAccount = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'kube-system' } };
    try {
      await this.base.create(serviceaccounts, 'kube-system', sa);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
  }

  private async requestToken(account: string): Promise<{ token: string; expiresAt: number }> {
    const answer = await this.base.create<TokenRequestStatus & { metadata?: object }>(
      serviceaccounts,
      'kube-system',
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: TOKEN_SECONDS } },
      { name: account, subresource: 'token' },
    );
    const token = answer.status?.token;
    if (!token) throw new Error(`the TokenRequest for kube-system/${account} answered no token`);
    const expiresAt = Date.parse(answer.status?.expirationTimestamp ?? '') || wallNow() + TOKEN_SECONDS * 1000;
    return { token, expiresAt };
  }

  private scheduleRenewal(controller: string, account: string, expiresAt: number): void {
    const renewIn = Math.max(1000, (expiresAt - wallNow()) * 0.8);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.requestToken(account).then(
        ({ token, expiresAt: next }) => {
          this.clients.get(controller)?.setToken(token);
          this.scheduleRenewal(controller, account, next);
        },
        (err: unknown) => {
          this.log.warn({ err, controller, serviceAccount: account }, 'renewing the controller token failed; retrying in 10s');
          this.scheduleRenewal(controller, account, wallNow() + 12_500);
        },
      );
    }, renewIn);
    timer.unref();
    this.timers.add(timer);
  }
}
