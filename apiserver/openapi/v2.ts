// The Swagger 2.0 document kube serves at /openapi/v2: every path of every
// served group-version and the definitions of every type they reach. kubectl
// only falls back to it when /openapi/v3 is missing (and then asks for
// protobuf, as it also does to validate the items of a `kind: List` on the
// client); other clients and tools read the JSON.
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
import { definitionsWithCustom } from './custom-resources.ts';
import { dynamicResourcesGeneration } from '../../shared/api/resources.ts';

/** A value computed on first use and again after the dynamic resources change. */
function byGeneration<T>(build: () => T): () => T {
  let built: { gen: number; value: T } | undefined;
  return () => {
    const gen = dynamicResourcesGeneration();
    if (built?.gen !== gen) built = { gen, value: build() };
    return built.value;
  };
}
import { serveDocument, servedBytes, type ServedBytes, type ServedDocument } from './served-document.ts';
import { encodeOpenapiV2, type SwaggerDocument } from './v2-proto.ts';

function parameter(p: ParamSpec): Json {
  return { description: p.description, in: p.in, name: p.name, ...(p.required ? { required: true } : {}), type: p.type, uniqueItems: true };
}

function schemaOf(definition: string): Json {
  return definition === 'string' ? { type: 'string' } : { $ref: refTo(definition, 'v2') };
}

function operation(o: OperationSpec): Json {
  const params: Json[] = [];
  if (o.body)
    params.push({ in: 'body', name: 'body', ...(o.body.optional ? {} : { required: true }), schema: schemaOf(o.body.definition) });
  params.push(...o.parameters.map(parameter));
  const responses: Json = {};
  for (const r of o.responses) responses[r.code] = { description: r.description, schema: schemaOf(r.definition) };
  responses['401'] = { description: 'Unauthorized' };
  return {
    consumes: o.body?.patch ? PATCH_MEDIA_TYPES : ['*/*'],
    description: o.description,
    operationId: o.operationId,
    ...(params.length ? { parameters: params } : {}),
    produces: RESPONSE_MEDIA_TYPES[o.produces],
    responses,
    schemes: ['https'],
    tags: [o.tag],
    'x-kubernetes-action': o.action,
    'x-kubernetes-group-version-kind': gvkExtension(o.gvk),
  };
}

function pathItem(p: PathSpec): Json {
  const item: Json = {};
  for (const o of p.operations) item[o.method] = operation(o);
  if (p.parameters.length) item.parameters = p.parameters.map(parameter);
  return item;
}

// Built again when the served custom resources change (their definitions and paths are in it).
const served = byGeneration((): ServedDocument => {
  const paths = servedGroupVersions().flatMap((gv) => groupVersionPaths(gv.group, gv.version) ?? []);
  return serveDocument({
    swagger: '2.0',
    info: { title: 'Kubernetes', version: KUBE_VERSION.gitVersion },
    paths: Object.fromEntries(paths.map((p) => [p.path, pathItem(p)])),
    definitions: definitionsWithCustom(operationDefinitions(paths), 'v2'),
    securityDefinitions: {
      BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' },
    },
    security: [{ BearerToken: [] }],
  });
});

/** The Swagger 2.0 document of the whole API. Built once per process; frozen. */
export function openapiV2Document(): object {
  return served().document;
}

/** The Swagger 2.0 document ready to serve: bytes, content hash (ETag) and gzip copy. */
export function openapiV2Served(): ServedDocument {
  return served();
}

const protobuf = byGeneration((): ServedBytes => {
  const doc = served();
  return servedBytes(Buffer.from(encodeOpenapiV2(doc.document as SwaggerDocument)), doc.hash, doc.builtAt);
});

/** The same document as a protobuf openapi.v2.Document (gnostic), which kubectl asks for. */
export function openapiV2ProtobufServed(): ServedBytes {
  return protobuf();
}
