// ServiceAccount tokens for projected volumes, as kubelet's token manager
// gets them: one TokenRequest per (Pod, ServiceAccount, audiences,
// expirationSeconds), made as the Pod's node and bound to the Pod, cached, and
// fetched again once 80% of its lifetime has passed (or after 24 h), when the
// Pod's volumes are told to pick the new one up. A Pod that goes away drops
// its tokens and timers.
import type { Pod, ServiceAccountTokenProjection } from 'kubernetes-types/core/v1.js';
import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import type { Clock } from '../../shared/clock/clock.ts';

/** Posts a TokenRequest for `serviceAccount` in `namespace` as the node `node`; resolves with the answer. */
export type RequestToken = (node: string, namespace: string, serviceAccount: string, body: TokenRequest) => Promise<TokenRequest>;

/** kube's default and minimum expirationSeconds of a projected token. */
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MAX_AGE_MS = 24 * 60 * 60 * 1000;

interface Entry {
  token: string;
  podUid: string;
  refreshAt: number;
  cancel?: () => void;
  /** Called with nothing when a refreshed token replaced this one. */
  onRefresh?: () => void;
}

/** See the file comment. */
export class TokenManager {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<string>>();

  constructor(
    private readonly request: RequestToken,
    private readonly clock: Clock,
  ) {}

  /** The cached token of `source` for `pod`, or undefined until fetched. */
  cached(pod: Pod, source: ServiceAccountTokenProjection): string | undefined {
    return this.entries.get(keyOf(pod, source))?.token;
  }

  /** Whether every serviceAccountToken source of the Pod's volumes has a token. */
  ready(pod: Pod): boolean {
    return tokenSources(pod).every((s) => this.entries.has(keyOf(pod, s)));
  }

  /**
   * Fetches the token of every serviceAccountToken source of the Pod that has
   * none yet; `onRefresh` runs after a later refresh replaced one. Rejects
   * with the first failure (the API's message).
   */
  async fetchAll(pod: Pod, onRefresh: () => void): Promise<void> {
    await Promise.all(tokenSources(pod).map((s) => this.fetch(pod, s, onRefresh)));
  }

  /** Drops the tokens of a Pod that is gone (kubelet's DeleteServiceAccountToken). */
  forgetPod(podUid: string | undefined): void {
    for (const [key, e] of this.entries) {
      if (e.podUid !== podUid) continue;
      e.cancel?.();
      this.entries.delete(key);
    }
  }

  private fetch(pod: Pod, source: ServiceAccountTokenProjection, onRefresh: () => void, force = false): Promise<string> {
    const key = keyOf(pod, source);
    const have = this.entries.get(key);
    if (have && !force) return Promise.resolve(have.token);
    let p = this.inflight.get(key);
    if (!p) {
      p = this.requestFor(pod, source).then(
        (res) => {
          this.inflight.delete(key);
          this.store(key, pod, source, res, onRefresh);
          return res.status!.token;
        },
        (err: unknown) => {
          this.inflight.delete(key);
          throw err;
        },
      );
      this.inflight.set(key, p);
    }
    return p;
  }

  private async requestFor(pod: Pod, source: ServiceAccountTokenProjection): Promise<TokenRequest> {
    const m = pod.metadata ?? {};
    const body: TokenRequest = {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: {},
      spec: {
        audiences: source.audience ? [source.audience] : [],
        expirationSeconds: source.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: m.name, uid: m.uid },
      },
    };
    const res = await this.request(pod.spec?.nodeName ?? '', m.namespace ?? 'default', serviceAccountOf(pod), body);
    if (!res?.status?.token) throw new Error('the TokenRequest answer has no token');
    return res;
  }

  private store(key: string, pod: Pod, source: ServiceAccountTokenProjection, res: TokenRequest, onRefresh: () => void): void {
    const now = this.clock.now();
    const seconds = res.spec?.expirationSeconds ?? source.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
    const exp = res.status?.expirationTimestamp ? Date.parse(res.status.expirationTimestamp) : now + seconds * 1000;
    // kubelet's requiresRefresh: past 80% of the token's lifetime, or older than 24 hours.
    const issued = exp - seconds * 1000;
    const refreshAt = Math.min(issued + seconds * 800, now + MAX_AGE_MS);
    this.entries.get(key)?.cancel?.();
    const entry: Entry = { token: res.status!.token, podUid: pod.metadata?.uid ?? '', refreshAt, onRefresh };
    entry.cancel = this.clock.setTimeout(
      () => {
        if (this.entries.get(key) !== entry) return;
        this.fetch(pod, source, onRefresh, true).then(
          () => entry.onRefresh?.(),
          // The old token stays until it expires; the next try is a minute on.
          () => this.retryLater(key, entry, pod, source),
        );
      },
      Math.max(0, refreshAt - now),
    );
    this.entries.set(key, entry);
  }

  private retryLater(key: string, entry: Entry, pod: Pod, source: ServiceAccountTokenProjection): void {
    if (this.entries.get(key) !== entry) return;
    entry.cancel = this.clock.setTimeout(() => {
      if (this.entries.get(key) !== entry) return;
      this.fetch(pod, source, entry.onRefresh ?? (() => {}), true).then(
        () => entry.onRefresh?.(),
        () => this.retryLater(key, entry, pod, source),
      );
    }, 60_000);
  }
}

/** The ServiceAccount a Pod runs as. */
export function serviceAccountOf(pod: Pod): string {
  return pod.spec?.serviceAccountName || 'default';
}

/** Every serviceAccountToken projection in the Pod's volumes. */
export function tokenSources(pod: Pod): ServiceAccountTokenProjection[] {
  const out: ServiceAccountTokenProjection[] = [];
  for (const v of pod.spec?.volumes ?? [])
    for (const s of v.projected?.sources ?? []) if (s.serviceAccountToken) out.push(s.serviceAccountToken);
  return out;
}

/** kubelet's cache key: ServiceAccount, namespace, audiences, lifetime and the bound Pod. */
function keyOf(pod: Pod, source: ServiceAccountTokenProjection): string {
  const m = pod.metadata ?? {};
  return JSON.stringify([
    serviceAccountOf(pod),
    m.namespace,
    source.audience ?? '',
    source.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS,
    m.uid,
  ]);
}
