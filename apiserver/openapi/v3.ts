// The OpenAPI v3 documents kube serves at /openapi/v3 (an index of
// group-versions with content-hash URLs) and /openapi/v3/<gv> (one
// OpenAPI 3.0 document per group-version). kubectl needs them for strict
// field validation (it looks for a PATCH operation of the kind that takes a
// fieldValidation parameter), for client-side apply (strategic merge patch
// keys) and for explain (component schemas tagged with their kind).
import { KUBE_VERSION } from '../version.ts';
import {
  groupVersionPaths,
  operationDefinitions,
  PATCH_MEDIA_TYPES,
  RESPONSE_MEDIA_TYPES,
  servedGroupVersions,
  type OperationSpec,
  type ParamSpec,
  type PathSpec,
} from './paths.ts';
import { gvkExtension, refTo, type Json } from './schemas.ts';
import { definitionsWithCustom, isCustomGroupVersion } from './custom-resources.ts';
import { dynamicResourcesGeneration } from '../../shared/api/resources.ts';
import { lazy, serveDocument, type ServedDocument } from './served-document.ts';

function parameter(p: ParamSpec): Json {
  return {
    description: p.description,
    in: p.in,
    name: p.name,
    ...(p.required ? { required: true } : {}),
    schema: { type: p.type, uniqueItems: true },
  };
}

function schemaOf(definition: string): Json {
  return definition === 'string' ? { type: 'string' } : { $ref: refTo(definition, 'v3') };
}

function operation(o: OperationSpec): Json {
  const out: Json = { description: o.description, operationId: o.operationId };
  if (o.parameters.length) out.parameters = o.parameters.map(parameter);
  if (o.body) {
    const schema = schemaOf(o.body.definition);
    const types = o.body.patch ? PATCH_MEDIA_TYPES : ['*/*'];
    out.requestBody = {
      content: Object.fromEntries(types.map((t) => [t, { schema }])),
      ...(o.body.optional ? {} : { required: true }),
    };
  }
  const responses: Json = {};
  for (const r of o.responses) {
    const schema = schemaOf(r.definition);
    responses[r.code] = {
      content: Object.fromEntries(RESPONSE_MEDIA_TYPES[o.produces].map((t) => [t, { schema }])),
      description: r.description,
    };
  }
  responses['401'] = { description: 'Unauthorized' };
  out.responses = responses;
  out.tags = [o.tag];
  out['x-kubernetes-action'] = o.action;
  out['x-kubernetes-group-version-kind'] = gvkExtension(o.gvk);
  return out;
}

function pathItem(p: PathSpec): Json {
  const item: Json = {};
  for (const o of p.operations) item[o.method] = operation(o);
  if (p.parameters.length) item.parameters = p.parameters.map(parameter);
  return item;
}

/** Builds the OpenAPI 3.0 document of one group-version from its paths. */
function buildDocument(paths: PathSpec[]): object {
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KUBE_VERSION.gitVersion },
    paths: Object.fromEntries(paths.map((p) => [p.path, pathItem(p)])),
    components: {
      schemas: definitionsWithCustom(operationDefinitions(paths), 'v3'),
      securitySchemes: { BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' } },
    },
  };
}

const builtinDocuments = lazy(() => {
  const out = new Map<string, ServedDocument>();
  for (const gv of servedGroupVersions()) {
    if (isCustomGroupVersion(gv.group, gv.version)) continue;
    out.set(gv.path, serveDocument(buildDocument(groupVersionPaths(gv.group, gv.version)!)));
  }
  return out;
});

// The custom resources' group-versions (and so the index) are built again when the served custom resources change.
let current: { gen: number; documents: Map<string, ServedDocument>; index?: ServedDocument } | undefined;

function documents(): Map<string, ServedDocument> {
  const gen = dynamicResourcesGeneration();
  if (current?.gen !== gen) {
    const out = new Map(builtinDocuments());
    for (const gv of servedGroupVersions()) {
      if (!isCustomGroupVersion(gv.group, gv.version)) continue;
      const paths = groupVersionPaths(gv.group, gv.version);
      if (paths) out.set(gv.path, serveDocument(buildDocument(paths)));
    }
    current = { gen, documents: out };
  }
  return current.documents;
}

function index(): ServedDocument {
  const docs = documents();
  if (!current!.index) {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const [gvPath, served] of docs) paths[gvPath] = { serverRelativeURL: openapiV3URL(gvPath, served.hash) };
    current!.index = serveDocument({ paths });
  }
  return current!.index;
}

/** The URL the index gives for a group-version document: /openapi/v3/apis/apps/v1?hash=HASH. */
export function openapiV3URL(groupVersionPath: string, hash: string): string {
  return `/openapi/v3/${groupVersionPath}?hash=${encodeURIComponent(hash)}`;
}

/** The group-version paths /openapi/v3 lists: "api/v1", "apis/apps/v1", ... */
export function openapiV3GroupVersions(): string[] {
  return [...documents().keys()];
}

/** The /openapi/v3 index: {paths: {"api/v1": {serverRelativeURL: "/openapi/v3/api/v1?hash=..."}, ...}}. */
export function openapiV3Index(): object {
  return index().document;
}

/** The /openapi/v3 index ready to serve (bytes and ETag). */
export function openapiV3IndexServed(): ServedDocument {
  return index();
}

/**
 * The OpenAPI 3.0 document of a group-version ("api/v1", "apis/apps/v1"),
 * or undefined if it is not served. Built once per process; frozen.
 */
export function openapiV3Document(groupVersionPath: string): object | undefined {
  return documents().get(groupVersionPath)?.document;
}

/** The group-version document ready to serve: bytes, content hash (ETag) and gzip copy. */
export function openapiV3Served(groupVersionPath: string): ServedDocument | undefined {
  return documents().get(groupVersionPath);
}
