// The entry point of every /api and /apis request: parse the path, negotiate
// the format, dispatch to the verb's handler, and turn every failure into a
// metav1.Status. Kept off express on purpose: this is the hot path.
import type { RequestUrl } from './http/request-url.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, methodNotAllowed, StatusError } from '../shared/api/errors.ts';
import { notFoundPath } from './http/path-segments.ts';
import { queryFlag } from '../shared/api/query-bool.ts';
import { handleReview, isReview } from './handlers/reviews.ts';
import { handleSelfSubjectReview, handleTokenReview } from './handlers/authn-reviews.ts';
import { handleTokenRequest } from './handlers/subresources/token-request.ts';
import { handleComponentStatus } from './registry/kinds/component-status.ts';
import { proxyLog } from './handlers/subresources/kubelet-proxy.ts';
import { matchProxyPath, serveProxyRequest } from './handlers/subresources/proxy-route.ts';
import { handleEphemeralContainers } from './handlers/subresources/ephemeral-containers.ts';
import { withServedGroups } from './served-groups.ts';
import { isHistoryApiPath, mayReadAs, serveHistory } from './history-api/handler.ts';
import { isChangesWatch, serveChangesWatch } from './history-api/changes-watch.ts';
import { HISTORY_GROUP } from '../shared/api/history-types.ts';
import { isMetricsApiPath, serveMetrics } from './metrics-api/handler.ts';
import {
  aggregatedContentType,
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  subresourceVerbs,
  wantsAggregated,
} from './discovery.ts';
import { readBody } from './http/body.ts';
import { negotiate, type Negotiated, type ResponseFormat } from './http/codec.ts';
import { renderList, renderObject, watchView } from './http/views.ts';
import { sendError, sendJson } from './http/respond.ts';
import { httpWatchTransport } from './http/watch-transports.ts';
import { parseRequest, type RequestInfo } from './request-info.ts';
import { toScale } from './registry/scale.ts';
import type { ApiContext, ApiRequest, ApiResponse } from './handlers/context.ts';
import { handleCreate } from './handlers/create.ts';
import { handleDelete, handleDeleteCollection } from './handlers/delete.ts';
import { handleGet } from './handlers/get.ts';
import { handleList } from './handlers/list.ts';
import { handlePatch } from './handlers/patch.ts';
import { handleUpdate } from './handlers/update.ts';
import { bookmarkObject, checkWatchParams, runWatch } from './handlers/watch.ts';
import type { RequestMetrics } from './metrics.ts';
import { ANONYMOUS } from './auth/user-info.ts';
import type { RequestIdentity } from './auth/request-path.ts';
import { withCustomResources } from './crd/dispatch.ts';
import { apiserverFaults } from './chaos/fault-table.ts';
import { injectRequestFaults, requestTarget } from './chaos/request-faults.ts';
import type { RequestTraces } from './request-trace/ring.ts';
import { isRequestTracePath } from './request-trace/ring.ts';
import { serveRequestTraces, traceFailure } from './request-trace/routes.ts';

/** Custom resources and CRDs take their extra steps (crd/dispatch.ts) around the same verb handlers. */
const dispatch = (ctx: ApiContext, r: ApiRequest) => withCustomResources(ctx, r, dispatchResource);

async function dispatchResource(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse | undefined> {
  const { verb, subresource, resource } = r.info;
  const verbs = subresource ? subresourceVerbs(subresource) : resource.verbs;
  if (!verbs.includes(verb)) throw methodNotAllowed(verb, { group: resource.group, resource: resource.plural });
  // Streams are served on a WebSocket upgrade (http/upgrade.ts); a plain request for one is refused, whatever its verb.
  if (subresource === 'exec' || subresource === 'attach' || subresource === 'portforward') throw badRequest('Upgrade request required');
  if (resource.group === '' && resource.plural === 'componentstatuses') return handleComponentStatus(ctx, r);
  if (resource.group === 'authentication.k8s.io') {
    if (resource.plural === 'selfsubjectreviews') return handleSelfSubjectReview(ctx, r);
    if (resource.plural === 'tokenreviews') return handleTokenReview(ctx, r, ctx.authentication);
  }
  if (isReview(resource.group, resource.plural)) return handleReview(ctx, r);
  if (subresource === 'token' && resource.plural === 'serviceaccounts') return handleTokenRequest(ctx, r, ctx.authentication);
  if (subresource === 'ephemeralcontainers' && (verb === 'update' || verb === 'patch')) return handleEphemeralContainers(ctx, r);
  switch (verb) {
    case 'get': {
      if (subresource === 'log') {
        await proxyLog(ctx, r);
        return undefined;
      }
      const res = await handleGet(ctx, r);
      if (subresource === 'scale') return { status: 200, json: JSON.stringify(toScale(JSON.parse(res.json))) };
      return r.view === 'object' ? res : { status: 200, json: renderObject(r.view, r.info.resource, res.json, r.query, ctx.now()) };
    }
    case 'list': {
      const res = await handleList(ctx, r);
      return r.view === 'object' || !res.list
        ? res
        : { status: 200, json: renderList(r.view, r.info.resource, res.list, r.query, ctx.now()) };
    }
    case 'watch': {
      const rt = r.info.resource;
      const client = { user: r.user.username, userAgent: r.req.headers['user-agent'] };
      const params = { rt, namespace: r.info.namespace, name: r.info.name, query: r.query, client };
      checkWatchParams(params);
      const view = watchView(r.view, rt, r.query, ctx.now, (rev, end) => bookmarkObject(rt, rev, end));
      await runWatch(ctx, { ...params, view }, httpWatchTransport(r.res));
      return undefined;
    }
    case 'create':
      return handleCreate(ctx, r);
    case 'update':
      return handleUpdate(ctx, r);
    case 'patch':
      return handlePatch(ctx, r);
    case 'delete':
      return handleDelete(ctx, r);
    case 'deletecollection':
      return handleDeleteCollection(ctx, r);
  }
}

function discovery(path: ReturnType<typeof parseRequest> & { kind: 'discovery' }, host: string): object {
  if (path.version !== undefined) {
    const list = apiResourceList(path.group, path.version);
    if (list) return list;
  } else if (path.legacy) {
    return apiVersions(host);
  } else if (path.group === '') {
    return apiGroupList();
  } else {
    const g = apiGroup(path.group);
    if (g) return g;
  }
  // kube answers a group or group-version it does not serve with its bare 404, as for any unknown path.
  throw notFoundPath();
}

/** Builds the request listener for /api and /apis. */
export function createApiHandler(
  ctx: ApiContext,
  metrics: RequestMetrics,
  traces?: RequestTraces,
): (req: IncomingMessage, res: ServerResponse, url: RequestUrl, who?: RequestIdentity) => void {
  return (req, res, url, who) => {
    const started = process.hrtime.bigint();
    let verb = req.method?.toLowerCase() ?? 'unknown';
    let resource = '';
    let format: ResponseFormat = 'json';
    let negotiated: Negotiated = { format: 'json', view: 'object' };
    const finish = (code: number) => metrics.observe(verb, resource, code, Number(process.hrtime.bigint() - started) / 1e9);
    const run = async (): Promise<void> => {
      // metrics.k8s.io is served beside the resource table, as an aggregated API would be (metrics-api/).
      if (isMetricsApiPath(url.pathname)) {
        negotiated = negotiate(req.headers.accept);
        format = negotiated.format;
        resource = 'metrics.k8s.io';
        sendJson(res, 200, await serveMetrics(ctx, req, url, negotiated.view), format);
        finish(200);
        return;
      }
      if (traces && isRequestTracePath(url.pathname)) {
        resource = 'history.ksim.io';
        const view = negotiate(req.headers.accept).view === 'Table' ? 'Table' : 'object';
        sendJson(res, 200, serveRequestTraces(traces, req.method ?? 'GET', url, ctx.authorizer, who?.user ?? ANONYMOUS, view), format);
        finish(200);
        return;
      }
      // A watch of the changes streams until the client goes (history-api/changes-watch.ts).
      if (isChangesWatch(url)) {
        verb = 'watch';
        resource = 'history.ksim.io';
        if (req.method !== 'GET') throw methodNotAllowed((req.method ?? '').toLowerCase(), { group: HISTORY_GROUP, resource: 'changes' });
        metrics.watchOpened();
        res.once('close', () => {
          metrics.watchClosed();
          finish(200);
        });
        await serveChangesWatch(ctx.store, res, url, mayReadAs(ctx.authorizer, who?.user ?? ANONYMOUS), ctx.log);
        return;
      }
      if (isHistoryApiPath(url.pathname)) {
        // JSON only; a Table when asked for (kubectl get changes), as kube answers lists.
        const view = negotiate(req.headers.accept).view === 'Table' ? 'Table' : 'object';
        negotiated = { format: 'json', view };
        resource = 'history.ksim.io';
        const mayRead = mayReadAs(ctx.authorizer, who?.user ?? ANONYMOUS);
        sendJson(res, 200, await serveHistory(ctx.store, req, url, mayRead, view), format);
        finish(200);
        return;
      }
      // pods/proxy, services/proxy and nodes/proxy carry a path of their own after the subresource.
      const proxied = matchProxyPath(url.pathname);
      if (proxied) {
        resource = `${proxied.resource}/proxy`;
        finish(await serveProxyRequest(ctx, req, res, proxied));
        return;
      }
      const parsed = parseRequest(req.method ?? 'GET', url.pathname, queryFlag(url.searchParams, 'watch'));
      negotiated = negotiate(req.headers.accept);
      format = negotiated.format;
      if (parsed.kind === 'discovery') {
        verb = 'get';
        const aggregated =
          parsed.version === undefined && (parsed.legacy || parsed.group === '') ? wantsAggregated(req.headers.accept) : undefined;
        if (aggregated) {
          const body = JSON.stringify(withServedGroups(aggregatedDiscovery(parsed.legacy, aggregated), parsed.legacy));
          res.writeHead(200, {
            'Content-Type': aggregatedContentType(aggregated),
            'Content-Length': Buffer.byteLength(body),
            Vary: 'Accept',
          });
          res.end(body);
          finish(200);
          return;
        }
        sendJson(res, 200, JSON.stringify(withServedGroups(discovery(parsed, req.headers.host ?? ''), parsed.legacy)), format);
        finish(200);
        return;
      }
      const info: RequestInfo = parsed.info;
      verb = info.verb;
      resource = info.subresource ? `${info.resource.plural}/${info.subresource}` : info.resource.plural;
      // Injected faults (ksim chaos): one boolean test while none is set.
      if (apiserverFaults.requestFaults) await injectRequestFaults(requestTarget(info, (who?.user ?? ANONYMOUS).username, req));
      if (info.verb === 'watch') metrics.watchOpened();
      const r: ApiRequest = {
        info,
        user: who?.user ?? ANONYMOUS,
        audit: who?.audit,
        query: url.searchParams,
        contentType: req.headers['content-type'],
        format,
        view: negotiated.view,
        body: () => readBody(req),
        req,
        res,
        trace: who?.trace,
      };
      try {
        const out = await dispatch(ctx, r);
        if (out) {
          if (who?.audit?.wantsResponseObject) who.audit.setResponseObject(parseForAudit(out.encoded?.toString('utf8') ?? out.json));
          sendJson(res, out.status, out.encoded ?? out.json, format, [...(out.warnings ?? []), ...deprecationWarnings(info)]);
          finish(out.status);
        } else {
          res.on('close', () => {
            metrics.watchClosed();
            finish(200);
          });
        }
      } catch (err) {
        if (info.verb === 'watch') metrics.watchClosed();
        throw err;
      }
    };
    run().catch((err) => {
      // Drain what the client sent so the connection stays usable after an early error.
      if (!req.complete) req.resume();
      if (who?.trace) traceFailure(who.trace, err);
      // The audit event of an error answer carries its Status (the close handler's completion then changes nothing).
      if (who?.audit && err instanceof StatusError)
        who.audit.complete(err.code, { status: 'Failure', message: err.message, reason: err.reason });
      finish(sendError(res, err, ctx.log, format));
    });
  };
}

/** A JSON text as the audit log records it (anything else as it is). */
function parseForAudit(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** kube 1.33+ warns on every use of core/v1 Endpoints. */
function deprecationWarnings(info: RequestInfo): string[] {
  return info.resource.group === '' && info.resource.plural === 'endpoints'
    ? ['v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice']
    : [];
}
