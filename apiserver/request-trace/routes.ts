// The history API's request traces:
//   GET /apis/history.ksim.io/v1alpha1/requests[?limit=N][&user=U][&resource=R]   RequestTraceList, newest first
//   GET /apis/history.ksim.io/v1alpha1/requests/AUDITID                          RequestTrace (404 once evicted)
// A trace says who did what, and with which rights: only a caller allowed to
// `list` `requests` in history.ksim.io reads any, one trace as the list.
import { methodNotAllowed, notFound, StatusError } from '../../shared/api/errors.ts';
import { HISTORY_API_VERSION, HISTORY_GROUP, HISTORY_VERSION } from '../../shared/api/history-types.ts';
import type { Authorizer } from '../auth/authorizer-types.ts';
import { forbidden } from '../auth/forbidden.ts';
import type { UserInfo } from '../auth/user-info.ts';
import { decodeSegment, notFoundPath } from '../http/path-segments.ts';
import type { RequestUrl } from '../http/request-url.ts';
import { limitParam } from '../history-api/query-params.ts';
import type { ActiveTrace, RequestTraces } from './ring.ts';
import type { RequestTrace, RequestTraceList } from '../../shared/api/request-trace-types.ts';

const GR = { group: HISTORY_GROUP, resource: 'requests' };

/** Throws kube's 403 unless `user` may list requests.history.ksim.io. */
function checkMayList(authorizer: Authorizer, user: UserInfo): void {
  const attrs = {
    user,
    verb: 'list',
    resourceRequest: true,
    path: '',
    apiGroup: HISTORY_GROUP,
    apiVersion: HISTORY_VERSION,
    resource: 'requests',
    subresource: '',
    namespace: '',
    name: '',
  };
  const { decision, reason } = authorizer.authorize(attrs);
  if (decision !== 'allow') throw forbidden(attrs, reason);
}

const col = (name: string, description: string, priority = 0) => ({ name, type: 'string', format: '', description, priority });

/** Traces as a meta.k8s.io/v1 Table: what `kubectl get requests.history.ksim.io` prints. */
export function requestsTable(items: readonly RequestTrace[]): object {
  const objectText = (t: RequestTrace) =>
    t.resource
      ? [`${t.apiGroup ? `${t.resource}.${t.apiGroup}` : t.resource}${t.subresource ? `/${t.subresource}` : ''}`, t.namespace, t.name]
          .filter(Boolean)
          .join('/')
      : t.path;
  const last = (t: RequestTrace, stage: string) => t.steps.filter((s) => s.stage === stage).pop();
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: {},
    columnDefinitions: [
      col('Audit ID', "The request's audit ID (its Audit-Id header)."),
      col('Time', 'When the apiserver received it.'),
      col('Verb', 'The request verb.'),
      col('Object', 'RESOURCE.GROUP[/SUBRESOURCE]/NAMESPACE/NAME, or the path.'),
      col('User', 'Who it acted as.'),
      col('Code', 'The answer.'),
      col('Authorization', 'The decision and its reason.', 1),
      col('Revision', 'The revision it wrote.', 1),
      col('Watchers', 'How many watches its write was handed to.', 1),
    ],
    rows: items.map((t) => ({
      cells: [
        t.auditID,
        t.time,
        t.verb,
        objectText(t),
        t.user ?? '',
        t.code === undefined ? '' : String(t.code),
        [last(t, 'authorization')?.outcome, last(t, 'authorization')?.detail].filter(Boolean).join(': '),
        last(t, 'storage')?.revision ?? '',
        String(last(t, 'watch')?.watchers ?? ''),
      ],
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: t.auditID } },
    })),
  };
}

/** Answers one request-trace request: the JSON body (a Table when asked for); throws kube's Status errors. */
export function serveRequestTraces(
  traces: RequestTraces,
  method: string,
  url: RequestUrl,
  authorizer: Authorizer,
  user: UserInfo,
  view: 'object' | 'Table' = 'object',
): string {
  // "", "apis", "history.ksim.io", VERSION, "requests"[, ID]
  const parts = url.pathname.split('/').slice(3);
  if (parts[0] !== HISTORY_VERSION || parts.length > 3 || (parts.length === 3 && parts[2] === '')) throw notFoundPath();
  if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method.toLowerCase(), GR);
  checkMayList(authorizer, user);
  if (parts.length === 3) {
    const id = decodeSegment(parts[2]);
    const found = traces.get(id);
    if (!found) throw notFound(GR, id);
    return JSON.stringify(view === 'Table' ? requestsTable([found.trace]) : found.trace);
  }
  const q = url.searchParams;
  const list: RequestTraceList = {
    kind: 'RequestTraceList',
    apiVersion: HISTORY_API_VERSION,
    metadata: { capacity: traces.capacity },
    items: traces.list({ limit: limitParam(q), user: q.get('user') || undefined, resource: q.get('resource') || undefined }),
  };
  return JSON.stringify(view === 'Table' ? requestsTable(list.items) : list);
}

/**
 * The step a request's error answer tells of, when no step has: a 422 that
 * no admission plugin raised is validation's; a 409 (AlreadyExists,
 * Conflict) is the store's refusal.
 */
export function traceFailure(trace: ActiveTrace, err: unknown): void {
  if (!(err instanceof StatusError)) return;
  if (trace.has('admission', 'denied')) return;
  if (err.code === 422 && !trace.has('validation')) trace.step({ stage: 'validation', outcome: 'error', detail: err.message });
  else if (err.code === 409 && !trace.has('storage')) trace.step({ stage: 'storage', outcome: 'error', detail: err.message });
}
