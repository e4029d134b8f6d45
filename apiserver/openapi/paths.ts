// The REST operations of each served group-version, as one dialect-neutral
// model that v2.ts and v3.ts both render: kube's path layout (namespaced,
// all-namespaces and legacy /watch/ paths), operation ids such as
// listCoreV1NamespacedPod, x-kubernetes-action and the query parameters each
// verb takes. Resources and subresources come from the discovery documents,
// so the OpenAPI never advertises what discovery does not.
import { apiResourceList } from '../discovery.ts';
import { apiGroups, findResource } from '../../shared/api/resources.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import { typeForKind, type GroupVersionKind } from '../../shared/api/schema/index.ts';
import { customDefinitionOf } from './custom-resources.ts';

/** One path or query parameter. */
export interface ParamSpec {
  name: string;
  in: 'path' | 'query';
  type: 'string' | 'integer' | 'boolean';
  required?: true;
  description: string;
}

/** What an operation returns, by HTTP status. */
export interface ResponseSpec {
  code: '200' | '201' | '202';
  description: 'OK' | 'Created' | 'Accepted';
  /** Definition name of the body, or 'string' for a plain-text body (pod logs). */
  definition: string;
}

/** Which media types an operation answers with. */
export type Produces = 'object' | 'list' | 'watch' | 'text';

/** One REST operation. */
export interface OperationSpec {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  operationId: string;
  description: string;
  /** x-kubernetes-action. */
  action: 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection' | 'watch' | 'watchlist' | 'connect';
  gvk: GroupVersionKind;
  tag: string;
  /** Operation-level parameters (kube keeps name, namespace and pretty on the path item). */
  parameters: ParamSpec[];
  /** The request body: an object of this definition, or a patch. */
  body?: { definition: string; patch?: true; optional?: true };
  responses: ResponseSpec[];
  produces: Produces;
}

/** One path with its shared parameters and operations. */
export interface PathSpec {
  path: string;
  parameters: ParamSpec[];
  operations: OperationSpec[];
}

/** A served group-version: "api/v1" or "apis/apps/v1" is how /openapi/v3 names it. */
export interface ServedGroupVersion {
  group: string;
  version: string;
  /** The key in the /openapi/v3 index and the path below /openapi/v3/. */
  path: string;
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const DELETE_OPTIONS = `${META}.DeleteOptions`;
export const STATUS = `${META}.Status`;
export const WATCH_EVENT = `${META}.WatchEvent`;
export const PATCH = `${META}.Patch`;

const q = (name: string, type: ParamSpec['type'], description: string): ParamSpec => ({ name, in: 'query', type, description });

/** The query parameters kube's operations take, by name (descriptions shortened from kube's). */
const P = {
  pretty: q('pretty', 'string', "If 'true', then the output is pretty printed."),
  dryRun: q(
    'dryRun',
    'string',
    'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed',
  ),
  fieldManager: q(
    'fieldManager',
    'string',
    'fieldManager is a name associated with the actor or entity that is making these changes. Required for apply requests (application/apply-patch), optional otherwise.',
  ),
  fieldValidation: q(
    'fieldValidation',
    'string',
    'fieldValidation determines how the server responds to unknown or duplicate fields in the request object. Valid values are: - Ignore - Warn - Strict: fail the request on unknown or duplicate fields.',
  ),
  force: q(
    'force',
    'boolean',
    'Force is going to "force" Apply requests: the caller re-acquires fields owned by other managers. Must be unset for non-apply patch requests.',
  ),
  labelSelector: q(
    'labelSelector',
    'string',
    'A selector to restrict the list of returned objects by their labels. Defaults to everything.',
  ),
  fieldSelector: q(
    'fieldSelector',
    'string',
    'A selector to restrict the list of returned objects by their fields. Defaults to everything.',
  ),
  limit: q(
    'limit',
    'integer',
    'limit is a maximum number of responses to return for a list call; the continue field of the list metadata then fetches the next chunk. Not supported if watch is true.',
  ),
  continue: q(
    'continue',
    'string',
    'The continue option should be set when retrieving more results from the server; it comes from the metadata of the previous list chunk. Not supported if watch is true.',
  ),
  resourceVersion: q(
    'resourceVersion',
    'string',
    'resourceVersion sets a constraint on what resource versions a request may be served from. Defaults to unset',
  ),
  resourceVersionMatch: q(
    'resourceVersionMatch',
    'string',
    'resourceVersionMatch determines how resourceVersion is applied to list calls. Defaults to unset',
  ),
  sendInitialEvents: q(
    'sendInitialEvents',
    'boolean',
    'With watch=true, start the watch stream with synthetic ADDED events for the current state of all objects, ending with a BOOKMARK event annotated k8s.io/initial-events-end: "true".',
  ),
  timeoutSeconds: q('timeoutSeconds', 'integer', 'Timeout for the list/watch call, regardless of any activity or inactivity.'),
  watch: q(
    'watch',
    'boolean',
    'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion.',
  ),
  allowWatchBookmarks: q(
    'allowWatchBookmarks',
    'boolean',
    'allowWatchBookmarks requests watch events with type "BOOKMARK". If this is not a watch, this field is ignored.',
  ),
  gracePeriodSeconds: q(
    'gracePeriodSeconds',
    'integer',
    'The duration in seconds before the object should be deleted. Zero means delete immediately; unset means the default for the type.',
  ),
  propagationPolicy: q(
    'propagationPolicy',
    'string',
    "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'.",
  ),
  orphanDependents: q(
    'orphanDependents',
    'boolean',
    'Deprecated: please use the PropagationPolicy. Should the dependent objects be orphaned.',
  ),
  ignoreStoreReadError: q(
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'boolean',
    'if set to true, it will trigger an unsafe deletion of the resource in case the normal deletion flow fails with a corrupt object error.',
  ),
} satisfies Record<string, ParamSpec>;

const LIST_PARAMS = [
  P.allowWatchBookmarks,
  P.continue,
  P.fieldSelector,
  P.labelSelector,
  P.limit,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
  P.watch,
];
const WRITE_PARAMS = [P.dryRun, P.fieldManager, P.fieldValidation];
const PATCH_PARAMS = [P.dryRun, P.fieldManager, P.fieldValidation, P.force];
const DELETE_PARAMS = [P.dryRun, P.gracePeriodSeconds, P.ignoreStoreReadError, P.orphanDependents, P.propagationPolicy];
const DELETE_COLLECTION_PARAMS = [
  P.continue,
  P.dryRun,
  P.fieldSelector,
  P.gracePeriodSeconds,
  P.ignoreStoreReadError,
  P.labelSelector,
  P.limit,
  P.orphanDependents,
  P.propagationPolicy,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
];
const byName = (a: ParamSpec, b: ParamSpec): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function nameParam(kind: string): ParamSpec {
  return { name: 'name', in: 'path', type: 'string', required: true, description: `name of the ${kind}` };
}
const NAMESPACE_PARAM: ParamSpec = {
  name: 'namespace',
  in: 'path',
  type: 'string',
  required: true,
  description: 'object name and auth scope, such as for teams and projects',
};

const upperFirst = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** "" -> "Core", "rbac.authorization.k8s.io" -> "RbacAuthorization" (kube's operation-id spelling). */

/** The query parameters of each connect (streaming) subresource, as kube's PodExecOptions, PodAttachOptions and PodPortForwardOptions have them. */
const CONNECT_PARAMS: Record<string, [string, 'string' | 'boolean' | 'integer'][]> = {
  exec: [
    ['command', 'string'],
    ['container', 'string'],
    ['stdin', 'boolean'],
    ['stdout', 'boolean'],
    ['stderr', 'boolean'],
    ['tty', 'boolean'],
  ],
  attach: [
    ['container', 'string'],
    ['stdin', 'boolean'],
    ['stdout', 'boolean'],
    ['stderr', 'boolean'],
    ['tty', 'boolean'],
  ],
  portforward: [['ports', 'integer']],
};
export function groupCamel(group: string): string {
  if (group === '') return 'Core';
  return group
    .replace(/\.k8s\.io$/, '')
    .split(/[.-]/)
    .map(upperFirst)
    .join('');
}

/** The operation tag, e.g. "core_v1", "rbacAuthorization_v1". */
export function groupVersionTag(group: string, version: string): string {
  const camel = groupCamel(group);
  return `${camel.charAt(0).toLowerCase()}${camel.slice(1)}_${version}`;
}

/** Every served group-version, core first, in discovery order. */
export function servedGroupVersions(): ServedGroupVersion[] {
  return apiGroups().flatMap(({ group, versions }) =>
    versions.map((version) => ({ group, version, path: group === '' ? `api/${version}` : `apis/${group}/${version}` })),
  );
}

/** Definition name of a kind; throws when the schema lacks it (a bug in the resource table or the schema). */
function definitionOf(group: string, version: string, kind: string): string {
  const t = typeForKind(group, version, kind);
  const custom = t ? undefined : customDefinitionOf(group, version, kind);
  if (custom) return custom;
  if (!t) throw new Error(`openapi: no schema for ${group}/${version} ${kind}`);
  return t.name;
}

interface DiscoveryEntry {
  name: string;
  namespaced: boolean;
  kind: string;
  group?: string;
  version?: string;
  verbs: string[];
}

const ok = (definition: string): ResponseSpec => ({ code: '200', description: 'OK', definition });
const created = (definition: string): ResponseSpec => ({ code: '201', description: 'Created', definition });
const accepted = (definition: string): ResponseSpec => ({ code: '202', description: 'Accepted', definition });

/** The HTTP method of a connect operation for each verb discovery lists. */
const CONNECT_METHODS: Record<string, 'get' | 'post' | 'put' | 'patch' | 'delete'> = {
  get: 'get',
  create: 'post',
  update: 'put',
  patch: 'patch',
  delete: 'delete',
};

/** The operations kube serves for one resource and its subresources. */
function resourcePaths(rt: ResourceType, entry: DiscoveryEntry, subs: DiscoveryEntry[]): PathSpec[] {
  const { group, version, kind } = rt;
  const gvk: GroupVersionKind = { group, version, kind };
  const prefix = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  const gv = `${groupCamel(group)}${upperFirst(version)}`;
  const tag = groupVersionTag(group, version);
  const ns = rt.namespaced ? 'Namespaced' : '';
  const scope = rt.namespaced ? `namespaces/{namespace}/${rt.plural}` : rt.plural;
  const collection = `${prefix}/${scope}`;
  const item = `${collection}/{name}`;
  const def = definitionOf(group, version, kind);
  const verbs = new Set(entry.verbs);
  // Create-only kinds (the reviews) have no list type.
  const listDef = verbs.has('list') ? definitionOf(group, version, rt.listKind) : def;
  const scopeParams = rt.namespaced ? [NAMESPACE_PARAM] : [];
  const itemParams = [nameParam(kind), ...scopeParams, P.pretty];
  const op = (o: Omit<OperationSpec, 'gvk' | 'tag'> & { gvk?: GroupVersionKind }): OperationSpec => ({ gvk, tag, ...o });
  const paths: PathSpec[] = [];

  const collectionOps: OperationSpec[] = [];
  if (verbs.has('list')) {
    collectionOps.push(
      op({
        method: 'get',
        operationId: `list${gv}${ns}${kind}`,
        description: `list or watch objects of kind ${kind}`,
        action: 'list',
        parameters: LIST_PARAMS,
        responses: [ok(listDef)],
        produces: 'list',
      }),
    );
  }
  if (verbs.has('create')) {
    collectionOps.push(
      op({
        method: 'post',
        operationId: `create${gv}${ns}${kind}`,
        description: `create a ${kind}`,
        action: 'post',
        parameters: WRITE_PARAMS,
        body: { definition: def },
        responses: [ok(def), created(def), accepted(def)],
        produces: 'object',
      }),
    );
  }
  if (verbs.has('deletecollection')) {
    collectionOps.push(
      op({
        method: 'delete',
        operationId: `delete${gv}Collection${ns}${kind}`,
        description: `delete collection of ${kind}`,
        action: 'deletecollection',
        parameters: DELETE_COLLECTION_PARAMS,
        body: { definition: DELETE_OPTIONS, optional: true },
        responses: [ok(STATUS)],
        produces: 'object',
      }),
    );
  }
  if (collectionOps.length) paths.push({ path: collection, parameters: [...scopeParams, P.pretty], operations: collectionOps });

  const itemOps: OperationSpec[] = [];
  if (verbs.has('get')) {
    itemOps.push(
      op({
        method: 'get',
        operationId: `read${gv}${ns}${kind}`,
        description: `read the specified ${kind}`,
        action: 'get',
        parameters: [],
        responses: [ok(def)],
        produces: 'object',
      }),
    );
  }
  if (verbs.has('update')) {
    itemOps.push(
      op({
        method: 'put',
        operationId: `replace${gv}${ns}${kind}`,
        description: `replace the specified ${kind}`,
        action: 'put',
        parameters: WRITE_PARAMS,
        body: { definition: def },
        responses: [ok(def), created(def)],
        produces: 'object',
      }),
    );
  }
  if (verbs.has('patch')) {
    itemOps.push(
      op({
        method: 'patch',
        operationId: `patch${gv}${ns}${kind}`,
        description: `partially update the specified ${kind}`,
        action: 'patch',
        parameters: PATCH_PARAMS,
        body: { definition: PATCH, patch: true },
        responses: [ok(def), created(def)],
        produces: 'object',
      }),
    );
  }
  if (verbs.has('delete')) {
    itemOps.push(
      op({
        method: 'delete',
        operationId: `delete${gv}${ns}${kind}`,
        description: `delete a ${kind}`,
        action: 'delete',
        parameters: DELETE_PARAMS,
        body: { definition: DELETE_OPTIONS, optional: true },
        responses: [ok(STATUS), accepted(STATUS)],
        produces: 'object',
      }),
    );
  }
  if (itemOps.length) paths.push({ path: item, parameters: itemParams, operations: itemOps });

  if (verbs.has('list') && rt.namespaced) {
    paths.push({
      path: `${prefix}/${rt.plural}`,
      parameters: [...LIST_PARAMS, P.pretty].sort(byName),
      operations: [
        op({
          method: 'get',
          operationId: `list${gv}${kind}ForAllNamespaces`,
          description: `list or watch objects of kind ${kind}`,
          action: 'list',
          parameters: [],
          responses: [ok(listDef)],
          produces: 'list',
        }),
      ],
    });
  }
  if (verbs.has('watch')) {
    // The legacy /watch/ paths, deprecated but still served and documented by kube.
    const watchOp = (operationId: string, description: string, action: 'watch' | 'watchlist'): OperationSpec =>
      op({ method: 'get', operationId, description, action, parameters: [], responses: [ok(WATCH_EVENT)], produces: 'watch' });
    const listDesc = `watch individual changes to a list of ${kind}. deprecated: use the 'watch' parameter with a list operation instead.`;
    const oneDesc = `watch changes to an object of kind ${kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`;
    paths.push({
      path: `${prefix}/watch/${scope}`,
      parameters: [...LIST_PARAMS, ...scopeParams, P.pretty].sort(byName),
      operations: [watchOp(`watch${gv}${ns}${kind}List`, listDesc, 'watchlist')],
    });
    paths.push({
      path: `${prefix}/watch/${scope}/{name}`,
      parameters: [...LIST_PARAMS, ...itemParams].sort(byName),
      operations: [watchOp(`watch${gv}${ns}${kind}`, oneDesc, 'watch')],
    });
    if (rt.namespaced) {
      paths.push({
        path: `${prefix}/watch/${rt.plural}`,
        parameters: [...LIST_PARAMS, P.pretty].sort(byName),
        operations: [watchOp(`watch${gv}${kind}ListForAllNamespaces`, listDesc, 'watchlist')],
      });
    }
  }

  for (const sub of subs) {
    const name = sub.name.slice(sub.name.indexOf('/') + 1);
    const subGvk: GroupVersionKind = { group: sub.group ?? group, version: sub.version ?? version, kind: sub.kind };
    // Streaming subresources (exec, attach, portforward) and proxies are connect operations answering a stream, as kube
    // describes them: one per verb discovery lists (a proxy takes every method).
    if (!typeForKind(subGvk.group, subGvk.version, subGvk.kind)) {
      const connectParams = (CONNECT_PARAMS[name] ?? []).map(([n, type]) => q(n, type, `The ${n} of the ${name} request.`));
      const id = `${gv}${ns}${kind}${upperFirst(name)}`;
      const connect = (method: 'get' | 'post' | 'put' | 'patch' | 'delete'): OperationSpec =>
        op({
          gvk: subGvk,
          method,
          operationId: `connect${upperFirst(method)}${id}`,
          description: `connect ${method.toUpperCase()} requests to ${name} of ${kind}`,
          action: 'connect',
          parameters: connectParams,
          responses: [ok('string')],
          produces: 'text',
        });
      paths.push({
        path: `${item}/${name}`,
        parameters: [nameParam(`${kind}Options`), ...scopeParams],
        operations: sub.verbs.flatMap((v) => {
          const method = CONNECT_METHODS[v];
          return method ? [connect(method)] : [];
        }),
      });
      continue;
    }
    const subDef = definitionOf(subGvk.group, subGvk.version, subGvk.kind);
    const id = `${gv}${ns}${kind}${upperFirst(name)}`;
    const what = `${name} of the specified ${kind}`;
    const subOps: OperationSpec[] = [];
    const sop = (o: Omit<OperationSpec, 'gvk' | 'tag'>): OperationSpec => op({ ...o, gvk: subGvk });
    const subVerbs = new Set(sub.verbs);
    if (subVerbs.has('get')) {
      const text = name === 'log';
      subOps.push(
        sop({
          method: 'get',
          operationId: `read${id}`,
          description: `read ${what}`,
          action: 'get',
          parameters: [],
          responses: [ok(text ? 'string' : subDef)],
          produces: text ? 'text' : 'object',
        }),
      );
    }
    if (subVerbs.has('create')) {
      subOps.push(
        sop({
          method: 'post',
          operationId: `create${id}`,
          description: `create ${name} of a ${kind}`,
          action: 'post',
          parameters: WRITE_PARAMS,
          body: { definition: subDef },
          responses: [ok(subDef), created(subDef), accepted(subDef)],
          produces: 'object',
        }),
      );
    }
    if (subVerbs.has('update')) {
      subOps.push(
        sop({
          method: 'put',
          operationId: `replace${id}`,
          description: `replace ${what}`,
          action: 'put',
          parameters: WRITE_PARAMS,
          body: { definition: subDef },
          responses: [ok(subDef), created(subDef)],
          produces: 'object',
        }),
      );
    }
    if (subVerbs.has('patch')) {
      subOps.push(
        sop({
          method: 'patch',
          operationId: `patch${id}`,
          description: `partially update ${what}`,
          action: 'patch',
          parameters: PATCH_PARAMS,
          body: { definition: PATCH, patch: true },
          responses: [ok(subDef), created(subDef)],
          produces: 'object',
        }),
      );
    }
    if (subOps.length) paths.push({ path: `${item}/${name}`, parameters: itemParams, operations: subOps });
  }
  return paths;
}

/** The paths of one group-version, sorted by path, or undefined if it is not served. */
export function groupVersionPaths(group: string, version: string): PathSpec[] | undefined {
  const list = apiResourceList(group, version) as { resources: DiscoveryEntry[] } | undefined;
  if (!list) return undefined;
  const paths: PathSpec[] = [];
  for (const entry of list.resources) {
    if (entry.name.includes('/')) continue;
    const rt = findResource(group, version, entry.name);
    if (!rt) throw new Error(`openapi: discovery lists ${entry.name}, the resource table does not`);
    const subs = list.resources.filter((s) => s.name.startsWith(`${entry.name}/`));
    paths.push(...resourcePaths(rt, entry, subs));
  }
  return paths.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Definition names the operations of these paths name as bodies or responses. */
export function operationDefinitions(paths: readonly PathSpec[]): Set<string> {
  const names = new Set<string>();
  for (const p of paths) {
    for (const o of p.operations) {
      if (o.body) names.add(o.body.definition);
      for (const r of o.responses) if (r.definition !== 'string') names.add(r.definition);
    }
  }
  return names;
}

/** The patch media types kube accepts, as the PATCH operations list them. */
export const PATCH_MEDIA_TYPES = [
  'application/apply-patch+cbor',
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

/** Response media types by what an operation produces (kube's lists). */
export const RESPONSE_MEDIA_TYPES: Record<Produces, string[]> = {
  object: ['application/json', 'application/vnd.kubernetes.protobuf', 'application/yaml'],
  list: [
    'application/json',
    'application/json;stream=watch',
    'application/vnd.kubernetes.protobuf',
    'application/vnd.kubernetes.protobuf;stream=watch',
    'application/yaml',
  ],
  watch: [
    'application/json',
    'application/json;stream=watch',
    'application/vnd.kubernetes.protobuf',
    'application/vnd.kubernetes.protobuf;stream=watch',
    'application/yaml',
  ],
  text: ['text/plain', 'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'],
};
