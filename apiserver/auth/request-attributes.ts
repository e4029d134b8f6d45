// The authorization attributes of a request, read from its method and path
// as kube's RequestInfoFactory reads them, before anything else looks at the
// request: the resource does not need to exist (an unknown resource is
// authorized like any other, then 404s), and a path outside /api and /apis is
// a non-resource request whose verb is the lower-case method.
import { queryFlag } from '../../shared/api/query-bool.ts';
import { splitPath } from '../http/path-segments.ts';
import type { RequestUrl } from '../http/request-url.ts';
import type { AuthzAttributes } from './authorizer-types.ts';

/** The attributes without the user. */
export type RequestAttributes = Omit<AuthzAttributes, 'user'>;

// kube's namespaceSubresources: /namespaces/NAME/status and /finalize are the Namespace's own.
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);
// Streams opened with a GET upgrade need `create` on the subresource (kube 1.35:
// AuthorizePodWebsocketUpgradeCreatePermission), as the POST form always did.
const CONNECT_SUBRESOURCES = new Set(['exec', 'attach', 'portforward']);

const METHOD_VERBS: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** The attributes of a non-resource request: `verb` on `path` (for an HTTP request, its lower-case method). */
export function nonResourceAttributes(verb: string, path: string): RequestAttributes {
  return {
    verb,
    resourceRequest: false,
    path,
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
  };
}

/**
 * The attributes of `method url`. A path whose segments cannot be decoded
 * is authorized as the non-resource path it is (its 400 comes later, from
 * the request parser), so nothing here throws.
 */
export function requestAttributes(method: string, url: RequestUrl): RequestAttributes {
  let parts: string[];
  try {
    parts = splitPath(url.pathname);
  } catch {
    return nonResourceAttributes(method.toLowerCase(), url.pathname);
  }
  let apiGroup = '';
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 2) {
    rest = parts.slice(1);
  } else if (parts[0] === 'apis' && parts.length >= 3) {
    apiGroup = parts[1];
    rest = parts.slice(2);
  } else {
    return nonResourceAttributes(method.toLowerCase(), url.pathname);
  }
  const apiVersion = rest[0];
  rest = rest.slice(1);
  let verb = METHOD_VERBS[method] ?? '';
  // /api/v1 and /apis/GROUP/VERSION themselves are discovery documents: non-resource paths.
  if (rest.length === 0) return nonResourceAttributes(method.toLowerCase(), url.pathname);
  if (rest[0] === 'watch' || rest[0] === 'proxy') {
    if (verb === 'get' || rest[0] === 'proxy') verb = rest[0];
    rest = rest.slice(1);
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1];
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2])) rest = rest.slice(2);
  }
  const resource = rest[0] ?? '';
  const name = rest[1] ?? '';
  const subresource = rest.length >= 3 && verb !== 'proxy' ? rest[2] : '';
  if (!name && verb === 'get') verb = 'list';
  if (!name && verb === 'delete') verb = 'deletecollection';
  let objectName = name;
  let fieldSelector: string | undefined;
  if (verb === 'list' || verb === 'watch') {
    fieldSelector = url.searchParams.get('fieldSelector') ?? undefined;
    if (verb === 'list' && queryFlag(url.searchParams, 'watch')) verb = 'watch';
    // kube reads a `metadata.name=NAME` field selector as the request's name (resourceNames rules, the Node authorizer).
    const selected = nameFromFieldSelector(url.searchParams.get('fieldSelector'));
    if (selected !== undefined) objectName = selected;
  }
  if (method === 'GET' && CONNECT_SUBRESOURCES.has(subresource)) verb = 'create';
  const attrs: RequestAttributes = {
    verb,
    resourceRequest: true,
    path: url.pathname,
    apiGroup,
    apiVersion,
    resource,
    subresource,
    namespace,
    name: objectName,
  };
  if (fieldSelector !== undefined) attrs.fieldSelector = fieldSelector;
  return attrs;
}

/** The name a field selector pins with `metadata.name=NAME` (or `==`), if that is one of its terms. */
function nameFromFieldSelector(selector: string | null): string | undefined {
  if (!selector) return undefined;
  for (const term of selector.split(',')) {
    const m = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(term);
    if (m) return m[1];
  }
  return undefined;
}
