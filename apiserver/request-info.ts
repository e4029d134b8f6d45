// Turns an API request's method and path into what it asks for: the verb,
// the resource, the namespace, the name and the subresource, following
// kube's path grammar (including the legacy /watch/ prefix). The name and
// namespace of the path are checked here, once, so no handler or storage
// key ever sees `.`, `..` or a name with `/` in it.
import { findResource } from '../shared/api/resources.ts';
import type { ResourceType } from '../shared/api/resource-type.ts';
import { badRequest, StatusError } from '../shared/api/errors.ts';
import { goQuote } from '../shared/patch/go-format.ts';
import { notFoundPath, splitPath } from './http/path-segments.ts';
import { nameProblems } from './registry/names.ts';

/** The kube verbs the handlers implement. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** What an API request is about. */
export interface RequestInfo {
  verb: Verb;
  resource: ResourceType;
  /** Namespace from the path; '' for cluster-scoped or all-namespaces requests. */
  namespace: string;
  /** Object name; '' for collection requests. */
  name: string;
  subresource: string;
}

/** The result of parsing: a resource request, or a discovery path (group/version prefix only). */
export type ParsedPath = { kind: 'resource'; info: RequestInfo } | { kind: 'discovery'; group: string; version?: string; legacy: boolean };

/**
 * kube's storage key functions refuse a name that is not a path segment
 * (registry.NamespaceKeyFunc: `Name parameter invalid: "..": may not be '..'`).
 * A namespace has no such check in kube, whose storage then refuses the key
 * with a 500; here it gets the name's 400, in the same words.
 */
function checkPathSegment(what: 'Name' | 'Namespace', value: string): void {
  if (!value) return;
  const problems = nameProblems(value, 'path-segment');
  if (problems.length > 0) throw badRequest(`${what} parameter invalid: ${goQuote(value)}: ${problems.join(';')}`);
}

/**
 * Parses `/api/v1/...` or `/apis/<group>/<version>/...`. `watchParam` is the
 * `watch` query parameter; `pathname` is the raw path, as sent. Throws a
 * 404 Status for unknown paths, a 405 for methods a path does not serve,
 * and a 400 for a malformed escape or a name or namespace that is not a path segment.
 */
export function parseRequest(method: string, pathname: string, watchParam: boolean): ParsedPath {
  const parts = splitPath(pathname);
  let group: string;
  let rest: string[];
  if (parts[0] === 'api') {
    if (parts.length === 1) return { kind: 'discovery', group: '', legacy: true };
    group = '';
    rest = parts.slice(1);
  } else if (parts[0] === 'apis') {
    if (parts.length === 1) return { kind: 'discovery', group: '', legacy: false };
    group = parts[1];
    rest = parts.slice(2);
    if (rest.length === 0) return { kind: 'discovery', group, legacy: false };
  } else {
    throw notFoundPath();
  }
  const version = rest[0];
  rest = rest.slice(1);
  if (rest.length === 0) return { kind: 'discovery', group, version, legacy: group === '' };

  let watchPrefix = false;
  if (rest[0] === 'watch') {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  let namespace = '';
  let plural: string;
  let name: string;
  let subresource: string;
  // As kube's RequestInfoFactory: /namespaces/NAME/status and /finalize are subresources of the Namespace itself.
  const namespaceSubresource = rest[0] === 'namespaces' && rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize');
  if (rest[0] === 'namespaces' && rest.length >= 3 && !namespaceSubresource) {
    namespace = rest[1];
    plural = rest[2];
    name = rest[3] ?? '';
    subresource = rest.slice(4).join('/');
  } else {
    plural = rest[0];
    name = rest[1] ?? '';
    subresource = rest.slice(2).join('/');
  }
  if (plural === undefined) throw notFoundPath();
  const resource = findResource(group, version, plural);
  if (!resource) throw notFoundPath();
  // "/namespaces/ns/pods" needs a namespaced resource; "/pods/x" needs a cluster-scoped one.
  if (namespace && !resource.namespaced) throw notFoundPath();
  if (!namespace && resource.namespaced && name) throw notFoundPath();
  if (
    subresource &&
    !resource.subresources.includes(subresource as never) &&
    !(resource.plural === 'namespaces' && subresource === 'finalize')
  ) {
    throw notFoundPath();
  }
  const verb = verbFor(method, name !== '', watchParam || watchPrefix);
  checkPathSegment('Namespace', namespace);
  checkPathSegment('Name', name);
  return { kind: 'resource', info: { verb, resource, namespace, name, subresource } };
}

function verbFor(method: string, hasName: boolean, watch: boolean): Verb {
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (watch) return 'watch';
      return hasName ? 'get' : 'list';
    case 'POST':
      // POST to a named object is how kube serves create-style subresources (binding, eviction, token).
      return 'create';
    case 'PUT':
      if (!hasName) throw methodNotAllowed();
      return 'update';
    case 'PATCH':
      if (!hasName) throw methodNotAllowed();
      return 'patch';
    case 'DELETE':
      return hasName ? 'delete' : 'deletecollection';
    default:
      throw methodNotAllowed();
  }
}

function methodNotAllowed(): StatusError {
  return new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}
