// Authentication and authorization of the kubelet API (logs, exec, attach,
// run), as kubelet does them with --client-ca-file and
// --authorization-mode=Webhook: the caller is the subject of a client
// certificate that verifies against the cluster CA (CN = user, O = groups,
// plus system:authenticated as kube's delegating authenticator adds), and
// each request is the attributes of pkg/kubelet/server/auth.go (verb from the
// HTTP method, resource nodes, subresource proxy for these paths, name = the
// node) checked with a SubjectAccessReview, whose answers are cached for
// kubelet's default TTLs (5 min allowed, 30 s denied).
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { SubjectAccessReview } from 'kubernetes-types/authorization/v1.js';
import type { Clock } from '../../shared/clock/clock.ts';
import type { KubeClient } from '../../shared/client/kube-client.ts';

/** Who called, from a verified client certificate. */
export interface KubeletCaller {
  name: string;
  groups: string[];
}

/** The authorization attributes of one kubelet API request. */
export interface KubeletRequestAttributes {
  verb: string;
  subresource: string;
  /** The node the request is for. */
  node: string;
  path: string;
}

/** One SubjectAccessReview's answer. */
export interface ReviewResult {
  allowed: boolean;
  reason?: string;
}

/** Asks the apiserver whether `caller` may do `attrs` (a SubjectAccessReview). */
export type Reviewer = (caller: KubeletCaller, attrs: KubeletRequestAttributes) => Promise<ReviewResult>;

/** A refusal, answered as kubelet does: plain text, 401 or 403 (or 500 when the review itself failed). */
export class KubeletAuthError extends Error {
  constructor(
    readonly code: 401 | 403 | 500,
    message: string,
  ) {
    super(message);
  }
}

/** kubelet's authorizer verbs by HTTP method (nodeAuthorizerAttributesGetter). */
const VERBS: Record<string, string> = { POST: 'create', GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

const isSubpath = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** The attributes kubelet checks for `method path` on `node`: the paths kubelet-sim serves are all nodes/proxy but these. */
export function requestAttributes(method: string, path: string, node: string): KubeletRequestAttributes {
  let subresource = 'proxy';
  if (isSubpath(path, '/stats')) subresource = 'stats';
  else if (isSubpath(path, '/metrics')) subresource = 'metrics';
  else if (isSubpath(path, '/logs')) subresource = 'log';
  return { verb: VERBS[method] ?? '', subresource, node, path };
}

/**
 * The caller of a request on the TLS server, or undefined: no certificate, or
 * one that does not verify against the client CA (another CA's, expired),
 * which kubelet's x509 authenticator refuses alike.
 */
export function authenticate(req: IncomingMessage): KubeletCaller | undefined {
  const socket = req.socket as TLSSocket;
  if (typeof socket.getPeerCertificate !== 'function' || !socket.authorized) return undefined;
  const cert = socket.getPeerCertificate();
  const cn = cert?.subject?.CN;
  const name = Array.isArray(cn) ? cn[0] : cn;
  if (!name) return undefined;
  const o = cert.subject.O;
  const groups = o === undefined ? [] : Array.isArray(o) ? [...o] : [o];
  if (!groups.includes('system:authenticated')) groups.push('system:authenticated');
  return { name, groups };
}

/** Options of a SarAuthorizer. */
export interface SarAuthorizerOptions {
  review: Reviewer;
  clock: Clock;
  /** How long an allowed answer is reused (kubelet's --authorization-webhook-cache-authorized-ttl, 5 min). */
  allowedTtlMs?: number;
  /** How long a denial is reused (--authorization-webhook-cache-unauthorized-ttl, 30 s). */
  deniedTtlMs?: number;
  /** Answers kept at most; the oldest go first. */
  maxEntries?: number;
}

/** See the file comment: authorizes a caller's request, through a short-lived cache of reviews. */
export class SarAuthorizer {
  private readonly cache = new Map<string, { until: number; result: ReviewResult }>();

  constructor(private readonly opts: SarAuthorizerOptions) {}

  /** Throws a KubeletAuthError unless `caller` may do `attrs`. */
  async authorize(caller: KubeletCaller, attrs: KubeletRequestAttributes): Promise<void> {
    const key = JSON.stringify([caller.name, caller.groups, attrs.verb, attrs.subresource, attrs.node]);
    const now = this.opts.clock.now();
    let hit = this.cache.get(key);
    if (!hit || hit.until <= now) {
      let result: ReviewResult;
      try {
        result = await this.opts.review(caller, attrs);
      } catch {
        throw new KubeletAuthError(500, `Authorization error (${describe(caller, attrs)})`);
      }
      const ttl = result.allowed ? (this.opts.allowedTtlMs ?? 300_000) : (this.opts.deniedTtlMs ?? 30_000);
      hit = { until: this.opts.clock.now() + ttl, result };
      this.cache.delete(key);
      this.cache.set(key, hit);
      if (this.cache.size > (this.opts.maxEntries ?? 4096)) this.cache.delete(this.cache.keys().next().value!);
    }
    if (!hit.result.allowed) throw new KubeletAuthError(403, `Forbidden (${describe(caller, attrs)})`);
  }
}

/** kubelet's words for a request in its refusals. */
function describe(caller: KubeletCaller, attrs: KubeletRequestAttributes): string {
  return `user=${caller.name}, verb=${attrs.verb}, resource=nodes, subresource=${attrs.subresource}`;
}

/**
 * A Reviewer that posts a SubjectAccessReview, as kubelet's webhook authorizer
 * does, with `clientFor(node)`: kubelet asks with its own credentials, so each
 * simulated node asks as itself.
 */
export function subjectAccessReviewer(clientFor: (node: string) => KubeClient): Reviewer {
  return async (caller, attrs) => {
    const review: SubjectAccessReview = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: caller.name,
        groups: caller.groups,
        resourceAttributes: {
          verb: attrs.verb,
          group: '',
          version: 'v1',
          resource: 'nodes',
          subresource: attrs.subresource,
          name: attrs.node,
        },
      },
    };
    const answer = await clientFor(attrs.node).request<SubjectAccessReview>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: review,
    });
    return { allowed: answer?.status?.allowed === true, reason: answer?.status?.reason };
  };
}
