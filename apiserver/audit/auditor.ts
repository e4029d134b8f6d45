// The audit of one request, as kube-apiserver's audit filters record it: the
// policy decides the level when the request is known (after authentication),
// then the request path adds what it learns (impersonation, the
// authorization decision, admission annotations, the objects) and each stage
// the policy keeps becomes one audit.k8s.io/v1 Event line in the log.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import type { UserInfo } from '../auth/user-info.ts';
import type { Clock } from '../../shared/clock/clock.ts';
import { AuditLogWriter } from './log-writer.ts';
import { DEFAULT_POLICY, policyEvaluator, type AuditConfig } from './policy.ts';
import {
  levelAtLeast,
  type AuditEvent,
  type AuditObjectRef,
  type AuditResponseStatus,
  type Level,
  type Policy,
  type Stage,
} from './types.ts';

/** The request header a client may name its audit ID in, and the response header that returns it. */
export const AUDIT_ID_HEADER = 'Audit-Id';
/** The annotations WithAuthorization adds. */
export const DECISION_ANNOTATION = 'authorization.k8s.io/decision';
export const REASON_ANNOTATION = 'authorization.k8s.io/reason';

/** Where lines go: the log file, or a test's array. */
export interface AuditSink {
  write(line: string): void;
  close(): Promise<void>;
}

/** The audit configuration (kube's --audit-* flags). */
export interface AuditorOptions {
  /** --audit-log-path (ksim's default: DIR/audit.log); `-` is standard output. Ignored when `sink` is given. */
  path?: string;
  /** The parsed --audit-policy-file; without one, DEFAULT_POLICY. */
  policy?: Policy;
  maxSizeMB?: number;
  maxBackups?: number;
  maxAgeDays?: number;
  sink?: AuditSink;
  /** For the rotation's file names and the pruning by age. */
  clock?: Clock;
  /** Milliseconds since the epoch with a fraction, for microsecond timestamps (default: performance's clock). */
  now?: () => number;
  log?: Logger;
}

/** What the request path knows when it begins the audit. */
export interface AuditBeginAttributes {
  /** kube's verb (get, list, watch, create, ..., or the lower-cased HTTP method of a non-resource request). */
  verb: string;
  /** The authenticated user (undefined when authentication failed); the policy is evaluated for it. */
  user?: UserInfo;
  /** For resource requests. */
  objectRef?: AuditObjectRef;
  /** Defaults to the request's own URL. */
  requestURI?: string;
  /** Defaults to requestAuditID(req). */
  auditID?: string;
  /** When the request arrived (ms since the epoch); defaults to now. */
  receivedAt?: number;
}

const defaultNow = () => performance.timeOrigin + performance.now();

let cachedSecond = NaN;
let cachedPrefix = '';

/** metav1.MicroTime: UTC with six fractional digits (the date part is formatted once a second). */
export function microTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 20); // 2026-01-01T00:00:00.
  }
  const micros = Math.floor((ms - second * 1000) * 1000);
  return `${cachedPrefix}${String(micros).padStart(6, '0')}Z`;
}

/** The request's Audit-ID header if the client sent one, else a new UUID (kube's WithAuditInit). */
export function requestAuditID(req: IncomingMessage): string {
  const given = req.headers['audit-id'];
  const id = Array.isArray(given) ? given[0] : given;
  return id ? id : randomUUID();
}

const unmapped = (ip: string) => (ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip);

/** kube's utilnet.SourceIPs: X-Forwarded-For, then X-Real-Ip, then the peer, each once. */
export function sourceIPs(req: IncomingMessage): string[] {
  const ips: string[] = [];
  const forwarded = headerValue(req, 'x-forwarded-for');
  if (forwarded) for (const ip of forwarded.split(',')) addSourceIP(ips, ip);
  addSourceIP(ips, headerValue(req, 'x-real-ip'));
  addSourceIP(ips, req.socket?.remoteAddress);
  return ips;
}

// Module functions, not closures: this runs for every request.
function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

function addSourceIP(ips: string[], ip: string | undefined): void {
  const v = ip?.trim();
  if (!v || !isIP(v)) return;
  const u = unmapped(v);
  if (!ips.includes(u)) ips.push(u);
}

/** A user as authnv1.UserInfo marshals: empty fields left out. */
function copyUser(u: UserInfo): UserInfo {
  const out = {} as UserInfo;
  if (u.username) out.username = u.username;
  if (u.uid) out.uid = u.uid;
  if (u.groups.length > 0) out.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length > 0) out.extra = structuredClone(u.extra);
  return out;
}

/** The object without metadata.managedFields (each item's, for a list); the original is not changed. */
export function withoutManagedFields(obj: unknown): unknown {
  if (typeof obj !== 'object' || obj === null) return obj;
  const o = obj as { metadata?: { managedFields?: unknown }; items?: unknown[] };
  let out: typeof o = o;
  if (o.metadata?.managedFields !== undefined) {
    const { managedFields: _, ...meta } = o.metadata;
    out = { ...o, metadata: meta };
  }
  if (Array.isArray(o.items)) out = { ...out, items: o.items.map(withoutManagedFields) };
  return out;
}

/** The fields of a metav1.Status the audit keeps. */
export interface StatusFields {
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
}

/** One request's audit; see the file comment. Every method is cheap and never throws. */
export class AuditRecord {
  private impersonatedUser?: UserInfo;
  private annotations: Record<string, string> = {};
  private requestObject?: unknown;
  private responseObject?: unknown;
  private responseStatus?: AuditResponseStatus;
  private answerStatus?: StatusFields;
  private done = false;
  private started = false;
  private readonly receivedAt: string;

  constructor(
    private readonly auditor: Auditor,
    readonly auditID: string,
    private readonly config: AuditConfig,
    private user: UserInfo,
    private readonly base: { requestURI: string; verb: string; sourceIPs: string[]; userAgent?: string },
    private readonly objectRef: AuditObjectRef | undefined,
    receivedAt: number,
  ) {
    this.receivedAt = microTime(receivedAt);
  }

  /** The level the policy chose. */
  get level(): Level {
    return this.config.level;
  }

  /** Whether the request body is recorded (level Request or more): decoding it only for the audit is worth it then. */
  get wantsRequestObject(): boolean {
    return levelAtLeast(this.config.level, 'Request');
  }

  /** Whether the response body is recorded (level RequestResponse). */
  get wantsResponseObject(): boolean {
    return this.config.level === 'RequestResponse';
  }

  /** Who the request is from, and whom it impersonates (kube: user stays the authenticated one). */
  setUser(user: UserInfo, impersonated?: UserInfo): void {
    this.user = user;
    if (impersonated) this.impersonatedUser = impersonated;
  }

  /** The user the request acts as, after impersonation. */
  setImpersonatedUser(user: UserInfo): void {
    this.impersonatedUser = user;
  }

  /** The authorizer's answer, as WithAuthorization annotates it. */
  setDecision(decision: 'allow' | 'forbid', reason: string): void {
    this.annotate(DECISION_ANNOTATION, decision);
    this.annotate(REASON_ANNOTATION, reason);
  }

  /** An annotation (e.g. an admission plugin's); as in kube, the first value of a key stays. */
  annotate(key: string, value: string): void {
    if (key in this.annotations) return;
    this.annotations[key] = value;
  }

  /**
   * The decoded request body. At any level it completes objectRef (namespace,
   * name, uid, resourceVersion) as kube's LogRequestObject does, so a create
   * names what it created; at Request and above the body is recorded.
   */
  setRequestObject(obj: unknown): void {
    const meta = (obj as { metadata?: Record<string, unknown> } | null)?.metadata;
    const ref = this.objectRef;
    if (ref && meta && typeof meta === 'object') {
      // Only fields the object has are added: the reference keeps its shape otherwise.
      for (const k of ['namespace', 'name', 'uid', 'resourceVersion'] as const) {
        const v = meta[k];
        if (!ref[k] && typeof v === 'string' && v) ref[k] = v;
      }
    }
    if (this.wantsRequestObject) this.requestObject = this.config.omitManagedFields ? withoutManagedFields(obj) : obj;
  }

  /**
   * The metav1.Status an error answer carries, at any level (kube's
   * LogResponseObject keeps its bounded fields): complete() then reports it
   * even when the caller that completes knows only the code.
   */
  setResponseStatus(status: StatusFields): void {
    this.answerStatus = status;
  }

  /** The response body; recorded at RequestResponse only. A Status answer also fills responseStatus. */
  setResponseObject(obj: unknown): void {
    if ((obj as { kind?: unknown } | null)?.kind === 'Status') this.answerStatus = obj as StatusFields;
    if (this.wantsResponseObject) this.responseObject = this.config.omitManagedFields ? withoutManagedFields(obj) : obj;
  }

  /** A long-running request (a watch) started answering: the ResponseStarted stage. */
  responseStarted(code = 200): void {
    if (this.started || this.done) return;
    this.started = true;
    this.responseStatus = { metadata: {}, code };
    this.emit('ResponseStarted');
  }

  /** The answer is complete: the ResponseComplete stage. `status` is the metav1.Status body of an error answer. */
  complete(code: number, status?: StatusFields): void {
    if (this.done) return;
    this.done = true;
    this.responseStatus = statusOf(code, status ?? this.answerStatus);
    this.emit('ResponseComplete');
  }

  /** The handler failed unexpectedly: the Panic stage, with kube's 500 status. */
  panic(reason: unknown): void {
    if (this.done) return;
    this.done = true;
    this.responseStatus = {
      metadata: {},
      status: 'Failure',
      message: `APIServer panic'd: ${reason instanceof Error ? reason.message : String(reason)}`,
      reason: 'InternalError',
      code: 500,
    };
    this.emit('Panic');
  }

  /** Writes the event of `stage` unless the policy omits it. */
  emit(stage: Stage): void {
    if (this.config.omitStages.has(stage)) return;
    // Built field by field in kube's order, so the line reads as kube's does.
    const ev = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: this.config.level,
      auditID: this.auditID,
      stage,
      requestURI: this.base.requestURI,
      verb: this.base.verb,
      user: copyUser(this.user),
    } as AuditEvent;
    if (this.impersonatedUser) ev.impersonatedUser = copyUser(this.impersonatedUser);
    if (this.base.sourceIPs.length > 0) ev.sourceIPs = this.base.sourceIPs;
    if (this.base.userAgent) ev.userAgent = this.base.userAgent;
    if (this.objectRef) ev.objectRef = orderedRef(this.objectRef);
    if (stage !== 'RequestReceived' && this.responseStatus) ev.responseStatus = this.responseStatus;
    if (this.requestObject !== undefined) ev.requestObject = this.requestObject;
    if (this.responseObject !== undefined && stage !== 'RequestReceived') ev.responseObject = this.responseObject;
    ev.requestReceivedTimestamp = this.receivedAt;
    ev.stageTimestamp = microTime(this.auditor.now());
    const keys = Object.keys(this.annotations).sort();
    if (keys.length > 0) ev.annotations = Object.fromEntries(keys.map((k) => [k, this.annotations[k]]));
    this.auditor.write(ev);
  }
}

function statusOf(code: number, status?: StatusFields): AuditResponseStatus {
  const out: AuditResponseStatus = { metadata: {}, code };
  if (!status) return out;
  // kube copies the bounded fields of a Status answer, in metav1.Status's order.
  const ordered: AuditResponseStatus = { metadata: {} } as AuditResponseStatus;
  if (status.status) ordered.status = status.status;
  if (status.message) ordered.message = status.message;
  if (status.reason) ordered.reason = status.reason;
  if (status.details !== undefined) ordered.details = status.details;
  ordered.code = code;
  return ordered;
}

function orderedRef(r: AuditObjectRef): AuditObjectRef {
  const out: AuditObjectRef = {};
  for (const k of ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'] as const) {
    if (r[k]) out[k] = r[k];
  }
  return out;
}

/** The audit backend of one apiserver. */
export class Auditor {
  private readonly evaluate: (attrs: Parameters<ReturnType<typeof policyEvaluator>>[0]) => AuditConfig;
  private readonly sink: AuditSink;
  readonly now: () => number;

  constructor(opts: AuditorOptions) {
    this.evaluate = policyEvaluator(opts.policy ?? DEFAULT_POLICY);
    this.now = opts.now ?? defaultNow;
    this.sink =
      opts.sink ??
      new AuditLogWriter({
        path: opts.path ?? 'audit.log',
        maxSizeMB: opts.maxSizeMB,
        maxBackups: opts.maxBackups,
        maxAgeDays: opts.maxAgeDays,
        clock: opts.clock,
        log: opts.log,
      });
  }

  /**
   * Starts the audit of a request and writes its RequestReceived event
   * (unless omitted). Undefined when the policy's level for it is None.
   */
  begin(req: IncomingMessage, attrs: AuditBeginAttributes): AuditRecord | undefined {
    const requestURI = attrs.requestURI ?? req.url ?? '/';
    const path = requestURI.split('?')[0];
    const objectRef = attrs.objectRef ? { ...attrs.objectRef } : undefined;
    const config = this.evaluate({ user: attrs.user, verb: attrs.verb, path, objectRef });
    if (config.level === 'None') return undefined;
    const userAgent = req.headers['user-agent'];
    const record = new AuditRecord(
      this,
      attrs.auditID ?? requestAuditID(req),
      config,
      // A request whose authentication failed is recorded with an empty user, as kube's failed-authentication audit.
      attrs.user ?? { username: '', groups: [] },
      { requestURI, verb: attrs.verb, sourceIPs: sourceIPs(req), userAgent },
      objectRef,
      attrs.receivedAt ?? this.now(),
    );
    record.emit('RequestReceived');
    return record;
  }

  /** @internal Queues one event. */
  write(ev: AuditEvent): void {
    this.sink.write(JSON.stringify(ev));
  }

  /** Writes what is queued and closes the log. */
  close(): Promise<void> {
    return this.sink.close();
  }
}

/** An Auditor for the given options. */
export function createAuditor(opts: AuditorOptions): Auditor {
  return new Auditor(opts);
}
