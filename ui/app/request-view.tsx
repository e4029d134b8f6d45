/** @jsxImportSource preact */
// One request's path through the apiserver (issue 18's request view):
// authentication, impersonation, the authorization decision, each admission
// plugin, validation, storage and the answer, as a vertical list with each
// step's outcome and time; and the recent requests to pick one from. Read
// through the UI server's /api/history proxy of history.ksim.io `requests`.
import { useEffect, useState } from 'preact/hooks';
import type { RequestTrace, RequestTraceList, TraceStep } from '../../shared/api/request-trace-types.ts';
import { getJson } from './api.ts';

/** The UI server's path of the recent requests (newest first), optionally filtered. */
export function requestsPath(opts: { limit?: number; user?: string; resource?: string } = {}): string {
  const q = new URLSearchParams();
  if (opts.limit) q.set('limit', String(opts.limit));
  if (opts.user) q.set('user', opts.user);
  if (opts.resource) q.set('resource', opts.resource);
  const search = q.toString();
  return `/api/history/requests${search ? `?${search}` : ''}`;
}

/** The UI server's path of one request's trace. */
export const requestPath = (auditID: string) => `/api/history/requests/${encodeURIComponent(auditID)}`;

/** A step's title: the stage, and for admission the phase and plugin. */
export function stepTitle(s: TraceStep): string {
  if (s.stage === 'admission') return `admission (${s.phase ?? '?'}) ${s.plugin ?? ''}`.trim();
  return s.stage;
}

/** Whether a step stopped the request (a deny, a refusal, an error, or a failed answer). */
export function stepFailed(s: TraceStep): boolean {
  if (s.stage === 'response') return Number(s.outcome) >= 400;
  return s.outcome === 'deny' || s.outcome === 'denied' || s.outcome === 'error';
}

/** One request as a line of the recent list: verb, what, who, the answer. */
export function requestLine(t: RequestTrace): string {
  const what = t.resource
    ? `${t.apiGroup ? `${t.resource}.${t.apiGroup}` : t.resource}${t.subresource ? `/${t.subresource}` : ''} ${t.namespace ? `${t.namespace}/` : ''}${t.name ?? ''}`
    : t.path;
  return `${t.verb} ${what.trim()} by ${t.user ?? '(unauthenticated)'} → ${t.code ?? '…'}`;
}

const ms = (v: number | undefined) => (v === undefined ? '' : `${v < 1 ? v.toFixed(3) : v.toFixed(1)} ms`);

/** One request's steps, top to bottom. */
export function RequestView(props: { auditID: string }) {
  const [trace, setTrace] = useState<RequestTrace | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    setTrace(undefined);
    setError(undefined);
    getJson<RequestTrace>(requestPath(props.auditID)).then(setTrace, (err: Error) => setError(err.message));
  }, [props.auditID]);
  if (error) return <p class="error">{error}</p>;
  if (!trace) return <p class="hint">loading request {props.auditID}…</p>;
  return (
    <div class="request-view" data-audit-id={trace.auditID}>
      <div class="item-head">
        <strong>{requestLine(trace)}</strong> <span class="hint">{trace.time}</span>
        {trace.userAgent && <span class="hint"> · {trace.userAgent}</span>}
      </div>
      <ol class="request-steps">
        {trace.steps.map((s, i) => (
          <li key={i} class={stepFailed(s) ? 'step failed' : 'step'} data-stage={s.stage}>
            <strong>{stepTitle(s)}</strong> <span class="state">{s.outcome}</span>
            {s.changed && <span class="hint"> · changed the object</span>}
            {s.revision && <span class="hint"> · revision {s.revision}</span>} <span class="hint">{ms(s.ms)}</span>
            {s.detail && <div class="hint">{s.detail}</div>}
          </li>
        ))}
      </ol>
    </div>
  );
}

/** The recent requests, newest first; picking one hands its audit ID to `onPick`. */
export function RecentRequests(props: { onPick: (auditID: string) => void; limit?: number }) {
  const [list, setList] = useState<RequestTrace[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [user, setUser] = useState('');
  const [resource, setResource] = useState('');
  const [reads, setReads] = useState(0);
  useEffect(() => {
    getJson<RequestTraceList>(requestsPath({ limit: props.limit ?? 100, user, resource })).then(
      (l) => {
        setList(l.items);
        setError(undefined);
      },
      (err: Error) => setError(err.message),
    );
  }, [user, resource, props.limit, reads]);
  return (
    <div class="recent-requests">
      <input placeholder="user" value={user} onChange={(e) => setUser((e.target as HTMLInputElement).value)} />{' '}
      <input
        placeholder="resource (pods, deployments.apps)"
        value={resource}
        onChange={(e) => setResource((e.target as HTMLInputElement).value)}
      />{' '}
      <button class="refresh" onClick={() => setReads((n) => n + 1)}>
        refresh
      </button>
      {error && <p class="error">{error}</p>}
      {list && list.length === 0 && <p class="hint">no request kept</p>}
      <ul>
        {list?.map((t) => (
          <li key={t.auditID} data-audit-id={t.auditID}>
            <a
              href="#"
              onClick={(e) => {
                e.preventDefault();
                props.onPick(t.auditID);
              }}
            >
              {requestLine(t)}
            </a>{' '}
            <span class="hint">{ms(t.ms)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
