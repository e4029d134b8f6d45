// The front of every request, as kube-apiserver's handler chain has it:
// authentication (client certificate, bearer token, or anonymous on the few
// public paths), impersonation, then authorization of the request's
// attributes. What comes out is who the request acts as and why it was
// allowed; what fails is kube's 401 or 403 Status. Admission and storage
// come after, in the verb handlers.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { StatusError } from '../../shared/api/errors.ts';
import type { RequestUrl } from '../http/request-url.ts';
import { AuthenticationError, type Authenticated, type AuthnRequest } from './authenticator-types.ts';
import type { Authorizer, AuthzAttributes } from './authorizer-types.ts';
import { forbidden } from './forbidden.ts';
import { impersonatedUser } from './impersonation.ts';
import { requestAttributes } from './request-attributes.ts';
import { ANONYMOUS_USER, type UserInfo } from './user-info.ts';
import type { AuditRecord, Auditor } from '../audit/auditor.ts';
import type { AuditObjectRef } from '../audit/types.ts';
import { elapsed, type ActiveTrace, type RequestTraces } from '../request-trace/ring.ts';

/**
 * The paths anonymous requests may reach (kube's AuthenticationConfiguration
 * `anonymous.conditions`); on any other path a request without credentials
 * is a 401. RBAC's system:public-info-viewer then allows them.
 */
export const ANONYMOUS_PATHS: ReadonlySet<string> = new Set([
  '/livez',
  '/readyz',
  '/healthz',
  '/version',
  '/version/',
  '/.well-known/openid-configuration',
  '/openid/v1/jwks',
]);

/** Who a request acts as, and the decision that let it through. */
export interface RequestIdentity {
  /** The user the request acts as (the impersonated one, when it impersonates). */
  user: UserInfo;
  /** The user its credentials proved, when it impersonates someone else. */
  authenticatedUser?: UserInfo;
  authenticator: string;
  attrs: AuthzAttributes;
  reason: string;
  /** The request's audit record (undefined when the policy says None): the handler completes it. */
  audit?: AuditRecord;
  /** The request's trace (request-trace/): the handler and storage add their steps, the answer finishes it. */
  trace?: ActiveTrace;
}

/** What the request path needs. */
export interface RequestPathDeps {
  /** Authentication: anonymous for a request without credentials; throws AuthenticationError for bad ones. */
  authenticate(req: AuthnRequest): Promise<Authenticated>;
  authorizer: Authorizer;
  /** The audit backend: every request gets a record from authentication on. */
  auditor?: Auditor;
  /** The recent requests' traces (a request with an audit ID is traced). */
  traces?: RequestTraces;
}

/** kube's answer to missing or refused credentials. */
export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

/** The request path: see the file comment. */
export class RequestPath {
  // A connection's client certificate does not change: authenticate it once per TLS connection.
  private readonly byConnection = new WeakMap<TLSSocket, Authenticated>();

  constructor(private readonly deps: RequestPathDeps) {}

  /**
   * Authenticates and authorizes `req`; throws a 401 or 403 StatusError,
   * after recording it in the audit log. On success the caller completes
   * the returned audit record when the answer is sent.
   */
  async admit(req: IncomingMessage, url: RequestUrl, method = req.method ?? 'GET', auditID?: string): Promise<RequestIdentity> {
    const receivedAt = this.deps.auditor?.now();
    const requested = requestAttributes(method, url);
    const trace = auditID === undefined ? undefined : this.deps.traces?.begin(traceStart(req, url, requested, auditID));
    let who: Authenticated;
    let t0 = performance.now();
    try {
      who = await this.authenticate(req, url);
    } catch (err) {
      if (trace) {
        trace.step({ stage: 'authentication', outcome: 'error', detail: authnFailure(err), ms: elapsed(t0) });
        trace.finish(statusCode(err));
      }
      // kube's failed-authentication audit: an event with no user, answered 401.
      this.deps.auditor
        ?.begin(req, { verb: requested.verb, objectRef: objectRefOf(requested), receivedAt, auditID })
        ?.complete(statusCode(err), statusOf(err));
      throw err;
    }
    const audit = this.deps.auditor?.begin(req, {
      verb: requested.verb,
      user: who.user,
      objectRef: objectRefOf(requested),
      receivedAt,
      auditID,
    });
    trace?.step({ stage: 'authentication', outcome: 'ok', detail: `${who.authenticator}: ${describeUser(who.user)}`, ms: elapsed(t0) });
    let stage: 'impersonation' | 'authorization' = 'impersonation';
    try {
      t0 = performance.now();
      const impersonated = impersonatedUser(req.headers, who.user, this.deps.authorizer);
      if (impersonated) trace?.step({ stage, outcome: 'ok', detail: `as ${describeUser(impersonated)}`, ms: elapsed(t0) });
      stage = 'authorization';
      t0 = performance.now();
      const user = impersonated ?? who.user;
      if (impersonated) audit?.setUser(who.user, impersonated);
      if (trace) trace.trace.user = user.username;
      const attrs: AuthzAttributes = { user, ...requested };
      const { decision, reason } = this.deps.authorizer.authorize(attrs);
      audit?.setDecision(decision === 'allow' ? 'allow' : 'forbid', reason);
      trace?.step({ stage, outcome: decision === 'allow' ? 'allow' : 'deny', detail: reason, ms: elapsed(t0) });
      if (decision !== 'allow') throw forbidden(attrs, reason);
      return {
        user,
        authenticatedUser: impersonated ? who.user : undefined,
        authenticator: who.authenticator,
        attrs,
        reason,
        audit,
        trace,
      };
    } catch (err) {
      audit?.complete(statusCode(err), statusOf(err));
      if (trace) {
        // An impersonation refused, or an authorizer that failed: the decision step above is there for a plain deny.
        if (!trace.has('authorization'))
          trace.step({ stage, outcome: 'deny', detail: err instanceof StatusError ? err.message : 'error', ms: elapsed(t0) });
        trace.finish(statusCode(err));
      }
      throw err;
    }
  }

  private async authenticate(req: IncomingMessage, url: RequestUrl): Promise<Authenticated> {
    const tls = 'encrypted' in req.socket ? (req.socket as TLSSocket) : undefined;
    const bearer = req.headers.authorization !== undefined;
    const cached = tls && !bearer ? this.byConnection.get(tls) : undefined;
    let who: Authenticated;
    if (cached) who = cached;
    else {
      try {
        who = await this.deps.authenticate({ headers: req.headers, tls });
      } catch (err) {
        if (err instanceof AuthenticationError) throw Object.assign(unauthorized(), { authenticationFailure: err.message });
        throw err;
      }
      if (tls && !bearer && who.user.username !== ANONYMOUS_USER) this.byConnection.set(tls, who);
    }
    if (who.user.username === ANONYMOUS_USER && !ANONYMOUS_PATHS.has(url.pathname)) throw unauthorized();
    return who;
  }
}

/** What a trace starts with, from the request's attributes. */
function traceStart(req: IncomingMessage, url: RequestUrl, a: Omit<AuthzAttributes, 'user'>, auditID: string) {
  const base = { auditID, verb: a.verb, path: url.pathname, userAgent: req.headers['user-agent'] };
  if (!a.resourceRequest) return { ...base, resourceRequest: false };
  const { resource, apiGroup, namespace, name, subresource } = a;
  return { ...base, resourceRequest: true, resource, apiGroup, namespace, name, subresource };
}

function describeUser(u: UserInfo): string {
  return u.groups.length ? `${u.username} (groups ${u.groups.join(', ')})` : u.username;
}

function authnFailure(err: unknown): string {
  const why = (err as { authenticationFailure?: unknown }).authenticationFailure;
  return typeof why === 'string' ? why : err instanceof StatusError ? err.message : 'error';
}

function statusCode(err: unknown): number {
  return err instanceof StatusError ? err.code : 500;
}

function statusOf(err: unknown): { status: string; message: string; reason: string } | undefined {
  return err instanceof StatusError ? { status: 'Failure', message: err.message, reason: err.reason } : undefined;
}

/** The audit objectRef of a resource request (undefined for a non-resource one). */
function objectRefOf(a: Omit<AuthzAttributes, 'user'>): AuditObjectRef | undefined {
  if (!a.resourceRequest) return undefined;
  return {
    resource: a.resource,
    namespace: a.namespace || undefined,
    name: a.name || undefined,
    apiGroup: a.apiGroup,
    apiVersion: a.apiVersion,
    subresource: a.subresource || undefined,
  };
}
