// The apiserver's recent requests: a fixed-size ring of traces keyed by audit
// ID. Memory is bounded by the capacity (each trace holds a handful of
// steps), and recording costs O(1) per request: the oldest trace is
// overwritten and dropped from the index. Reads (the history API's
// `requests`) walk the ring newest first.
import { HISTORY_API_VERSION, HISTORY_GROUP } from '../../shared/api/history-types.ts';
import type { RequestTrace, TraceStep } from '../../shared/api/request-trace-types.ts';

/** How many requests are kept by default. */
export const DEFAULT_TRACE_CAPACITY = 2000;

const TRACE_PATH_PREFIX = `/apis/${HISTORY_GROUP}/`;

/** True for the trace API's own paths: reading the traces is not traced, or a polling view would fill the ring with itself. */
export function isRequestTracePath(pathname: string): boolean {
  return pathname.startsWith(TRACE_PATH_PREFIX) && /^\/apis\/history\.ksim\.io\/[^/]+\/requests(\/|$)/.test(pathname);
}

/** What a trace starts with: the request as the request path parsed it. */
export interface TraceStart {
  auditID: string;
  verb: string;
  path: string;
  resourceRequest: boolean;
  apiGroup?: string;
  resource?: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  userAgent?: string;
}

/** A trace being recorded: the request path, admission, storage and the handler add its steps. */
export class ActiveTrace {
  readonly trace: RequestTrace;
  private readonly t0 = performance.now();

  constructor(trace: RequestTrace) {
    this.trace = trace;
  }

  /** Adds a step. */
  step(step: TraceStep): void {
    this.trace.steps.push(step);
  }

  /** True once a step of `stage` has `outcome` (say, an admission plugin denied the request). */
  has(stage: TraceStep['stage'], outcome?: string): boolean {
    return this.trace.steps.some((s) => s.stage === stage && (outcome === undefined || s.outcome === outcome));
  }

  /** Records the answer; only the first call counts (an error answer, then the connection's close). */
  finish(code: number): void {
    if (this.trace.code !== undefined) return;
    const ms = elapsed(this.t0);
    this.trace.code = code;
    this.trace.ms = ms;
    this.trace.steps.push({ stage: 'response', outcome: String(code), ms });
  }
}

/** Milliseconds since `t0` (performance.now()), to a microsecond. */
export function elapsed(t0: number): number {
  return Math.round((performance.now() - t0) * 1000) / 1000;
}

/** Which traces a read wants. */
export interface TraceFilter {
  limit?: number;
  /** The user the request acted as. */
  user?: string;
  /** RESOURCE or RESOURCE.GROUP, as the history paths name resources. */
  resource?: string;
}

/** The ring: see the file comment. */
export class RequestTraces {
  private readonly slots: (ActiveTrace | undefined)[];
  private next = 0;
  private readonly byID = new Map<string, ActiveTrace>();

  constructor(
    readonly capacity = DEFAULT_TRACE_CAPACITY,
    private readonly now: () => Date = () => new Date(),
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new Error(`request traces: capacity must be a positive integer, not ${capacity}`);
    this.slots = new Array<ActiveTrace | undefined>(capacity);
  }

  /** Starts the trace of a request (undefined for the trace API's own requests); the oldest trace is evicted when the ring is full. */
  begin(start: TraceStart): ActiveTrace | undefined {
    if (isRequestTracePath(start.path)) return undefined;
    const trace: RequestTrace = {
      kind: 'RequestTrace',
      apiVersion: HISTORY_API_VERSION,
      auditID: start.auditID,
      time: this.now().toISOString(),
      verb: start.verb,
      path: start.path,
      steps: [],
    };
    if (start.resourceRequest) {
      trace.resource = start.resource;
      trace.apiGroup = start.apiGroup;
      if (start.namespace) trace.namespace = start.namespace;
      if (start.name) trace.name = start.name;
      if (start.subresource) trace.subresource = start.subresource;
    }
    if (start.userAgent) trace.userAgent = start.userAgent;
    const active = new ActiveTrace(trace);
    const old = this.slots[this.next];
    // A client may send its own Audit-Id twice: only drop the index entry if it is still the evicted trace's.
    if (old && this.byID.get(old.trace.auditID) === old) this.byID.delete(old.trace.auditID);
    this.slots[this.next] = active;
    this.next = (this.next + 1) % this.capacity;
    this.byID.set(trace.auditID, active);
    return active;
  }

  /** The trace of audit ID `id`, while it is kept. */
  get(id: string): ActiveTrace | undefined {
    return this.byID.get(id);
  }

  /** How many traces are kept now. */
  get size(): number {
    return this.byID.size;
  }

  /** The kept traces that match `f`, newest first. */
  list(f: TraceFilter = {}): RequestTrace[] {
    const limit = f.limit && f.limit > 0 ? f.limit : this.capacity;
    const out: RequestTrace[] = [];
    for (let i = 1; i <= this.capacity && out.length < limit; i++) {
      const t = this.slots[(this.next - i + this.capacity) % this.capacity]?.trace;
      if (!t) break;
      if (f.user !== undefined && t.user !== f.user) continue;
      if (f.resource !== undefined && !matchesResource(t, f.resource)) continue;
      out.push(t);
    }
    return out;
  }
}

function matchesResource(t: RequestTrace, segment: string): boolean {
  if (t.resource === undefined) return false;
  return t.apiGroup ? segment === `${t.resource}.${t.apiGroup}` : segment === t.resource;
}
