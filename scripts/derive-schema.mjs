// Derives shared/api/schema/types.json: one machine-readable schema of the API
// types ksim serves (JSON shape, required lists, merge keys, list/map types,
// enums, group-version-kinds and protobuf field numbers), taken as data from
// Kubernetes' published OpenAPI v2 document and its generated.proto files.
// Descriptions are deliberately left out. Run by hand against a local copy of
// the sources; CI never runs it (the output is committed).
//
//   node scripts/derive-schema.mjs \
//     --swagger <swagger.json | GITDIR@REF:path> \
//     --api <k8s.io/api checkout dir | GITDIR@REF> \
//     --apimachinery <k8s.io/apimachinery checkout dir | GITDIR@REF> \
//     --apiextensions <k8s.io/apiextensions-apiserver checkout dir | GITDIR@REF> \
//     --aggregator <k8s.io/kube-aggregator checkout dir | GITDIR@REF> \
//     [--origin 'text recorded verbatim in source.origin' ...] [--out DIR]
//
// A GITDIR@REF input is read with `git --git-dir=GITDIR show REF:path`, so a
// bare mirror works. A kubernetes/kubernetes checkout works too: pass
// <kk>/staging/src/k8s.io/api and <kk>/staging/src/k8s.io/apimachinery.
// (Reading those inputs is shared with derive-go-types.mjs and
// derive-go-fields.mjs, which read the Go sources: scripts/lib/go-sources.mjs.)
//
// The committed types.json came from (see its "source" for hashes):
//   --swagger  kubernetes-sigs/reference-docs@58cd75edc564e7ff9d47acd987be6ab0f466e7d8:gen-apidocs/config/v1_35/swagger.json
//              (kube-apiserver v1.35's OpenAPI v2, generated with OpenAPIEnums on, as a live server serves it;
//               kubernetes/kubernetes' own api/openapi-spec/swagger.json is the same without enum lists)
//   --api           kubernetes/api@v0.35.0 (9afe7de0a56c582b06ca094f7309015bc84657a7)
//   --apimachinery  kubernetes/apimachinery@v0.35.0 (72d71eac265e06713c6d83d7034aac609450243f)
//   --apiextensions kubernetes/apiextensions-apiserver@v0.35.0 (a8d2a03a6b798832f3b9a63638d404ef89fe5b69)
//   --aggregator    kubernetes/kube-aggregator@v0.35.0 (98a003863a2fad2640ccb616ecaf1490dc79316c)
// (CustomResourceDefinition's and APIService's protos live in those two
// repositories; their OpenAPI definitions are in the same swagger.json.)
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openKubeSources, openSource, parseArgs, protoFileOf } from './lib/go-sources.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// ---------------------------------------------------------------------------
// What to include: the kinds ksim serves, their lists, and the kinds the API
// needs around them (subresources, reviews, meta types). Everything reachable
// from these through $ref or protobuf message fields is included too.

/** [group, version, kind, hasList] */
const ROOT_KINDS = [
  ['', 'v1', 'Namespace', true],
  ['', 'v1', 'Pod', true],
  ['', 'v1', 'Node', true],
  ['', 'v1', 'Service', true],
  ['', 'v1', 'Endpoints', true],
  ['', 'v1', 'ConfigMap', true],
  ['', 'v1', 'Secret', true],
  ['', 'v1', 'ServiceAccount', true],
  ['', 'v1', 'Event', true],
  ['', 'v1', 'ResourceQuota', true],
  ['', 'v1', 'LimitRange', true],
  ['', 'v1', 'Binding', false],
  ['apps', 'v1', 'Deployment', true],
  ['apps', 'v1', 'ReplicaSet', true],
  ['apps', 'v1', 'DaemonSet', true],
  ['apps', 'v1', 'StatefulSet', true],
  ['apps', 'v1', 'ControllerRevision', true],
  ['batch', 'v1', 'Job', true],
  ['batch', 'v1', 'CronJob', true],
  ['coordination.k8s.io', 'v1', 'Lease', true],
  ['events.k8s.io', 'v1', 'Event', true],
  ['rbac.authorization.k8s.io', 'v1', 'Role', true],
  ['rbac.authorization.k8s.io', 'v1', 'RoleBinding', true],
  ['rbac.authorization.k8s.io', 'v1', 'ClusterRole', true],
  ['rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', true],
  ['certificates.k8s.io', 'v1', 'CertificateSigningRequest', true],
  ['policy', 'v1', 'PodDisruptionBudget', true],
  ['policy', 'v1', 'Eviction', false],
  ['autoscaling', 'v1', 'Scale', false],
  ['authentication.k8s.io', 'v1', 'TokenRequest', false],
  ['authentication.k8s.io', 'v1', 'SelfSubjectReview', false],
  ['authorization.k8s.io', 'v1', 'SelfSubjectAccessReview', false],
  ['authorization.k8s.io', 'v1', 'SelfSubjectRulesReview', false],
  ['authorization.k8s.io', 'v1', 'SubjectAccessReview', false],
  ['authorization.k8s.io', 'v1', 'LocalSubjectAccessReview', false],
  ['authentication.k8s.io', 'v1', 'TokenReview', false],
  ['discovery.k8s.io', 'v1', 'EndpointSlice', true],
  ['scheduling.k8s.io', 'v1', 'PriorityClass', true],
  ['', 'v1', 'PersistentVolume', true],
  ['', 'v1', 'PersistentVolumeClaim', true],
  ['', 'v1', 'ReplicationController', true],
  ['storage.k8s.io', 'v1', 'StorageClass', true],
  ['autoscaling', 'v1', 'HorizontalPodAutoscaler', true],
  ['autoscaling', 'v2', 'HorizontalPodAutoscaler', true],
  ['networking.k8s.io', 'v1', 'NetworkPolicy', true],
  ['networking.k8s.io', 'v1', 'Ingress', true],
  ['networking.k8s.io', 'v1', 'IngressClass', true],
  ['admissionregistration.k8s.io', 'v1', 'ValidatingAdmissionPolicy', true],
  ['admissionregistration.k8s.io', 'v1', 'ValidatingAdmissionPolicyBinding', true],
  ['admissionregistration.k8s.io', 'v1', 'ValidatingWebhookConfiguration', true],
  ['admissionregistration.k8s.io', 'v1', 'MutatingWebhookConfiguration', true],
  ['apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', true],
  ['apiregistration.k8s.io', 'v1', 'APIService', true],
  ['', 'v1', 'PodTemplate', true],
  ['', 'v1', 'ComponentStatus', true],
  ['node.k8s.io', 'v1', 'RuntimeClass', true],
  ['flowcontrol.apiserver.k8s.io', 'v1', 'FlowSchema', true],
  ['flowcontrol.apiserver.k8s.io', 'v1', 'PriorityLevelConfiguration', true],
  ['storage.k8s.io', 'v1', 'CSIDriver', true],
  ['storage.k8s.io', 'v1', 'CSINode', true],
  ['storage.k8s.io', 'v1', 'VolumeAttachment', true],
  ['storage.k8s.io', 'v1', 'CSIStorageCapacity', true],
  ['storage.k8s.io', 'v1', 'VolumeAttributesClass', true],
  ['networking.k8s.io', 'v1', 'IPAddress', true],
  ['networking.k8s.io', 'v1', 'ServiceCIDR', true],
  ['resource.k8s.io', 'v1', 'DeviceClass', true],
  ['resource.k8s.io', 'v1', 'ResourceClaim', true],
  ['resource.k8s.io', 'v1', 'ResourceClaimTemplate', true],
  ['resource.k8s.io', 'v1', 'ResourceSlice', true],
  ['', 'v1', 'Status', false],
  ['', 'v1', 'DeleteOptions', false],
  ['', 'v1', 'WatchEvent', false],
];

/** Definitions without a group-version-kind that the API still needs by name. */
const ROOT_NAMES = [
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
];

/** Protobuf messages with no OpenAPI definition that still appear on the wire. */
const ROOT_PROTO_MESSAGES = [
  'k8s.io.apimachinery.pkg.runtime.Unknown',
  'k8s.io.apimachinery.pkg.runtime.TypeMeta',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Duration',
];

/** One-line descriptions of our own for the top-level kinds (Kubernetes' texts are left out). */
const KIND_DESCRIPTIONS = {
  Namespace: 'A scope for names; most objects live in exactly one namespace.',
  Pod: 'A group of containers scheduled together onto one node.',
  Node: 'A worker machine that runs pods.',
  Service: 'A stable name and virtual address for a set of pods.',
  Endpoints: 'The addresses that implement a service (superseded by EndpointSlice).',
  ConfigMap: 'Non-secret configuration data as key/value pairs.',
  Secret: 'Sensitive data as key/value pairs, base64-encoded in JSON.',
  ServiceAccount: 'An identity for processes that run in pods.',
  Event: 'A report of something that happened to an object.',
  ResourceQuota: 'Limits on the total resources used in a namespace.',
  LimitRange: 'Per-object resource defaults and limits in a namespace.',
  Binding: 'Binds a pod to a node (the pods/binding subresource).',
  Deployment: 'Declarative updates for pods through replica sets.',
  ReplicaSet: 'Keeps a number of identical pods running.',
  DaemonSet: 'Runs one copy of a pod on each matching node.',
  StatefulSet: 'Pods with stable identities and storage, ordered.',
  ControllerRevision: 'An immutable snapshot of a controller template.',
  Job: 'Runs pods until a number of them complete.',
  CronJob: 'Creates jobs on a schedule.',
  Lease: 'A lightweight lock held by one holder for a duration.',
  Role: 'Namespaced RBAC permissions.',
  RoleBinding: 'Grants a role to subjects within a namespace.',
  ClusterRole: 'Cluster-wide RBAC permissions.',
  ClusterRoleBinding: 'Grants a cluster role to subjects cluster-wide.',
  CertificateSigningRequest: 'A request to have a certificate signed.',
  PodDisruptionBudget: 'Limits voluntary disruptions of a set of pods.',
  Eviction: 'Evicts a pod, subject to disruption budgets (pods/eviction).',
  Scale: 'The replica count of a scalable resource (the scale subresource).',
  TokenRequest: 'Requests a token for a service account.',
  SelfSubjectReview: 'Returns the user information of the caller.',
  SelfSubjectAccessReview: 'Asks whether the caller may perform an action.',
  SelfSubjectRulesReview: 'Lists the actions the caller may perform in a namespace.',
  SubjectAccessReview: 'Asks whether a given user may perform an action.',
  LocalSubjectAccessReview: 'Asks whether a given user may perform an action in one namespace.',
  TokenReview: 'Asks who a bearer token authenticates.',
  EndpointSlice: 'A subset of the endpoints that implement a service.',
  PriorityClass: 'A named pod priority value.',
  PersistentVolume: 'A piece of storage in the cluster, provisioned by an administrator or a storage class.',
  PersistentVolumeClaim: 'A request for storage by a user, bound to one persistent volume.',
  ReplicationController: 'Keeps a number of identical pods running (the older form of ReplicaSet).',
  StorageClass: 'A class of storage and the provisioner that makes its volumes.',
  HorizontalPodAutoscaler: 'Scales a workload between bounds from observed metrics.',
  NetworkPolicy: 'Which traffic may reach and leave a set of pods.',
  Ingress: 'HTTP routes from outside the cluster to services, by host and path.',
  IngressClass: 'The controller that implements a class of ingresses.',
  ValidatingAdmissionPolicy: 'CEL rules that admission checks writes against.',
  ValidatingAdmissionPolicyBinding: 'Applies a validating admission policy to matching resources, with parameters.',
  ValidatingWebhookConfiguration: 'Webhooks asked to accept or refuse writes during admission.',
  MutatingWebhookConfiguration: 'Webhooks that may change objects during admission.',
  CustomResourceDefinition: 'Adds a new resource, with its schema, to the API.',
  APIService: 'Where one group-version of the API is served: locally or by an extension server.',
  PodTemplate: 'A stored pod template that other objects can refer to.',
  ComponentStatus: 'The health of a control-plane component (deprecated).',
  RuntimeClass: 'A container runtime configuration that pods can select.',
  FlowSchema: 'Sorts incoming requests into priority levels (API priority and fairness).',
  PriorityLevelConfiguration: 'A share of the API server concurrency for the requests assigned to it.',
  CSIDriver: 'How the cluster talks to a CSI volume driver installed on the nodes.',
  CSINode: 'The CSI drivers installed on one node.',
  VolumeAttachment: 'A request to attach or detach a volume to or from a node.',
  CSIStorageCapacity: 'Storage capacity that a CSI driver reports for a topology segment.',
  VolumeAttributesClass: 'A class of mutable volume attributes a CSI driver can apply.',
  IPAddress: 'One IP address allocated to an object, such as a service.',
  ServiceCIDR: 'A range of addresses that service cluster IPs are allocated from.',
  DeviceClass: 'A kind of device that resource claims can ask for, with its selectors.',
  ResourceClaim: 'A request for devices that pods can use (dynamic resource allocation).',
  ResourceClaimTemplate: 'A template from which a resource claim is made for each pod.',
  ResourceSlice: 'Devices that a driver publishes as available in a pool.',
  Status: 'The result of an operation that does not return an object.',
  DeleteOptions: 'Options for a delete request.',
  WatchEvent: 'One event in a watch stream.',
};

/**
 * The types whose JSON form is not their protobuf message: what each looks
 * like in JSON and how its message fields are read. Facts from
 * k8s.io/apimachinery (MarshalJSON / OpenAPISchemaType / OpenAPIV3OneOfTypes).
 */
const SPECIALS = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': {
    special: 'Time',
    jsonNote:
      'RFC 3339 in UTC with second precision, e.g. "2006-01-02T15:04:05Z"; null when zero. Proto: seconds and nanos since the Unix epoch (nanos are dropped in JSON).',
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': {
    special: 'MicroTime',
    jsonNote:
      'RFC 3339 in UTC with exactly six fractional digits, e.g. "2006-01-02T15:04:05.000000Z". Proto: seconds and nanos since the Unix epoch.',
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Duration': {
    special: 'Duration',
    synthetic: true,
    type: 'string',
    jsonNote:
      'A Go duration string, e.g. "1h2m3.5s". Proto: int64 nanoseconds. OpenAPI has no definition for it: fields of this type are written inline as type string.',
  },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': {
    special: 'Quantity',
    v3OneOf: ['string', 'number'],
    jsonNote: 'A string such as "100m", "1Gi" or "1e3" (a JSON number is accepted on input). Proto: the canonical string in field 1.',
  },
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': {
    special: 'IntOrString',
    v3OneOf: ['integer', 'string'],
    jsonNote: 'A JSON number (int32) or a JSON string. Proto: type (0 = Int, 1 = String) selects intVal or strVal.',
  },
  'io.k8s.apimachinery.pkg.runtime.RawExtension': {
    special: 'RawExtension',
    jsonNote:
      'Any JSON value (usually a whole object with apiVersion and kind), embedded as is. Proto: raw holds the embedded object serialized (JSON text, or a protobuf-encoded object).',
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': {
    special: 'FieldsV1',
    jsonNote:
      'A JSON object of field-set entries ("f:name", "k:{...}", "v:...", "i:N", "."), embedded as is. Proto: Raw holds the same JSON text as bytes.',
  },
  // apiextensions.k8s.io/v1 (k8s.io/apiextensions-apiserver): the schema a CRD
  // carries, whose JSON forms are written by hand (marshal.go there).
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON': {
    special: 'JSON',
    jsonNote:
      'Any JSON value (object, array, string, number, boolean or null), embedded as is; OpenAPI gives it no type. Proto: raw holds its JSON text.',
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray': {
    special: 'JSONSchemaPropsOrArray',
    jsonNote:
      'One JSONSchemaProps object, or a JSON array of them; OpenAPI gives it no type. Proto: schema (1) holds the single schema, jSONSchemas (2) the array.',
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool': {
    special: 'JSONSchemaPropsOrBool',
    jsonNote:
      'A JSON boolean, or a JSONSchemaProps object (which means true); OpenAPI gives it no type. Proto: allows (1) is the boolean (true when a schema is given), schema (2) the schema.',
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray': {
    special: 'JSONSchemaPropsOrStringArray',
    jsonNote:
      'A JSONSchemaProps object, or a JSON array of property names; OpenAPI gives it no type. Proto: schema (1) holds the schema, property (2) the names.',
  },
  'io.k8s.apimachinery.pkg.runtime.Unknown': {
    special: 'Unknown',
    synthetic: true,
    type: 'object',
    jsonNote:
      'Protobuf only: the envelope after the 4-byte magic "k8s\\u0000" of every application/vnd.kubernetes.protobuf body. typeMeta names the kind; raw is the object message itself.',
  },
};

// ---------------------------------------------------------------------------
// Inputs

/** The OpenAPI document: a file, or GITDIR@REF:path. Its sha256 goes into the output. */
function readSwagger(spec) {
  const m = /^(.*)@([^@:]+):(.+)$/.exec(spec);
  let text;
  let describe = {};
  if (!existsSync(spec) && m) {
    const src = openSource(`${m[1]}@${m[2]}`);
    text = src.read(m[3]);
    if (text === undefined) throw new Error(`no ${m[3]} at ${m[2]}`);
    describe = { ...src.describe, path: m[3] };
  } else {
    text = readFileSync(spec, 'utf8');
  }
  describe.sha256 = createHash('sha256').update(text).digest('hex');
  return { doc: JSON.parse(text), describe };
}

// ---------------------------------------------------------------------------
// Protobuf: a small parser for the proto2 subset go-to-protobuf writes.

const PROTO_SCALARS = {
  double: 'fixed64',
  float: 'fixed32',
  int32: 'varint',
  int64: 'varint',
  uint32: 'varint',
  uint64: 'varint',
  sint32: 'varint',
  sint64: 'varint',
  bool: 'varint',
  fixed32: 'fixed32',
  fixed64: 'fixed64',
  sfixed32: 'fixed32',
  sfixed64: 'fixed64',
  string: 'bytes',
  bytes: 'bytes',
};

/** Parses one generated.proto into [{ name: full message name, fields: [...] }]. */
function parseProto(text, file) {
  const src = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');
  const pkg = /\bpackage\s+([\w.]+)\s*;/.exec(src)?.[1];
  if (!pkg) throw new Error(`${file}: no package`);
  const tokens = src.match(/map\s*<[^>]*>|[\w.]+|[{};=<>,[\]]|"[^"]*"/g) ?? [];
  const messages = [];
  const stack = [];
  let i = 0;
  const resolveType = (t, scope) => {
    if (PROTO_SCALARS[t]) return t;
    if (t.startsWith('.')) return t.slice(1);
    if (t.startsWith('k8s.io.')) return t;
    // Same package (go-to-protobuf writes no nested messages).
    return `${scope}.${t}`;
  };
  while (i < tokens.length) {
    const t = tokens[i];
    if (t === 'message') {
      const name = tokens[i + 1];
      const full = stack.length ? `${stack[stack.length - 1].name}.${name}` : `${pkg}.${name}`;
      const msg = { name: full, fields: [] };
      messages.push(msg);
      stack.push(msg);
      i += 3; // message Name {
      continue;
    }
    if (t === '}') {
      stack.pop();
      i++;
      continue;
    }
    if (t === 'enum' || t === 'oneof') throw new Error(`${file}: ${t} is not handled`);
    if (stack.length && (t === 'optional' || t === 'repeated' || t === 'required' || t.startsWith('map'))) {
      const msg = stack[stack.length - 1];
      let label = 'optional';
      let j = i;
      if (t === 'optional' || t === 'repeated' || t === 'required') {
        label = t;
        j++;
      }
      const typeTok = tokens[j];
      const name = tokens[j + 1];
      if (tokens[j + 2] !== '=') throw new Error(`${file}: cannot read field near ${tokens.slice(i, i + 6).join(' ')}`);
      const n = Number(tokens[j + 3]);
      let k = j + 4;
      if (tokens[k] === '[') while (tokens[k] !== ']') k++;
      while (tokens[k] !== ';') k++;
      const field = { name, n };
      const mm = /^map\s*<\s*([\w.]+)\s*,\s*([\w.]+)\s*>$/.exec(typeTok);
      if (mm) {
        field.map = { key: resolveType(mm[1], pkg), value: resolveType(mm[2], pkg) };
      } else {
        field.type = resolveType(typeTok, pkg);
        if (label === 'repeated') field.repeated = true;
      }
      msg.fields.push(field);
      i = k + 1;
      continue;
    }
    if (t === 'syntax' || t === 'package' || t === 'import' || t === 'option' || t === 'reserved') {
      while (tokens[i] !== ';') i++;
      i++;
      continue;
    }
    i++;
  }
  return messages;
}

// go-to-protobuf writes a repository's "-" as "_": io.k8s.kube-aggregator.pkg... is k8s.io.kube_aggregator.pkg...
const HYPHENATED_TREES = ['apiextensions-apiserver', 'kube-aggregator'];
const openApiToProto = (name) => {
  const tree = HYPHENATED_TREES.find((t) => name.startsWith(`io.k8s.${t}.`));
  const p = name.replace(/^io\.k8s\./, 'k8s.io.');
  return tree ? p.replace(tree, tree.replaceAll('-', '_')) : p;
};
const protoToOpenApi = (name) => {
  const tree = HYPHENATED_TREES.find((t) => name.startsWith(`k8s.io.${t.replaceAll('-', '_')}.`));
  const o = name.replace(/^k8s\.io\./, 'io.k8s.');
  return tree ? o.replace(tree.replaceAll('-', '_'), tree) : o;
};
const packageOf = (full) => full.slice(0, full.lastIndexOf('.'));

// ---------------------------------------------------------------------------
// OpenAPI -> schema

const refName = (ref) => ref.replace(/^#\/definitions\//, '');

/** Converts a property schema (or items / additionalProperties) to a SchemaField, without proto. */
function toField(p, where, problems) {
  const f = {};
  if (p.$ref) {
    f.type = 'ref';
    f.ref = refName(p.$ref);
  } else if (p.type) {
    f.type = p.type;
  } else {
    problems.push(`${where}: no type and no $ref`);
    f.type = 'object';
  }
  if (p.format) f.format = p.format;
  if (p.enum) f.enum = p.enum;
  if (p.items) f.items = toField(p.items, `${where}[]`, problems);
  if (p.additionalProperties && typeof p.additionalProperties === 'object') {
    f.additionalProperties = toField(p.additionalProperties, `${where}{}`, problems);
  }
  if (p['x-kubernetes-patch-merge-key']) f.mergeKey = p['x-kubernetes-patch-merge-key'];
  if (p['x-kubernetes-patch-strategy']) f.patchStrategy = p['x-kubernetes-patch-strategy'];
  if (p['x-kubernetes-list-type']) f.listType = p['x-kubernetes-list-type'];
  if (p['x-kubernetes-list-map-keys']) f.listMapKeys = p['x-kubernetes-list-map-keys'];
  if (p['x-kubernetes-map-type']) f.mapType = p['x-kubernetes-map-type'];
  const known = new Set([
    'description',
    '$ref',
    'type',
    'format',
    'enum',
    'items',
    'additionalProperties',
    'x-kubernetes-patch-merge-key',
    'x-kubernetes-patch-strategy',
    'x-kubernetes-list-type',
    'x-kubernetes-list-map-keys',
    'x-kubernetes-map-type',
  ]);
  for (const k of Object.keys(p)) if (!known.has(k)) problems.push(`${where}: key ${k} dropped`);
  return f;
}

/** Field refs of a SchemaField tree. */
function* refsOf(f) {
  if (!f) return;
  if (f.ref) yield f.ref;
  yield* refsOf(f.items);
  yield* refsOf(f.additionalProperties);
}

// ---------------------------------------------------------------------------
// Proto <-> JSON field checks

/** The protobuf facts of one message field, in the shape stored in types.json. */
function protoFact(pf, via) {
  const out = { n: pf.n };
  if (via?.length) out.via = via;
  if (pf.map) {
    const v = pf.map.value;
    out.wire = 'bytes';
    out.type = 'map';
    out.map = PROTO_SCALARS[v] ? { key: pf.map.key, value: v } : { key: pf.map.key, value: 'message', message: v };
    return out;
  }
  if (PROTO_SCALARS[pf.type]) {
    out.wire = PROTO_SCALARS[pf.type];
    out.type = pf.type;
  } else {
    out.wire = 'bytes';
    out.type = 'message';
    out.message = pf.type;
  }
  if (pf.repeated) out.repeated = true;
  return out;
}

/** A property name without case and punctuation: JSONSchemaProps' "$ref" is proto ref, "x-kubernetes-list-type" xKubernetesListType. */
const looseName = (s) => s.replace(/[^A-Za-z0-9]/g, '').toLowerCase();

/**
 * Pairs JSON property names with the fields of a proto message. Names match
 * exactly, else case-insensitively (BoundObjectReference.uid is proto uID),
 * else without punctuation too (JSONSchemaProps.$ref is proto ref).
 * A Go struct embedded with json:",inline" is one message-typed proto field
 * (e.g. Volume.volumeSource = 2) whose own fields are JSON properties of the
 * outer object; those are matched through it, with `via` giving the path.
 */
function matchProto(props, msg, protoMessage, via = []) {
  const assigned = new Map();
  const embedded = [];
  let rest = new Set(props);
  let leftover = [];
  for (const pf of msg.fields) {
    const exact = rest.has(pf.name) ? pf.name : undefined;
    const loose =
      exact ??
      [...rest].find((p) => p.toLowerCase() === pf.name.toLowerCase()) ??
      [...rest].find((p) => looseName(p) === looseName(pf.name));
    if (loose !== undefined) {
      assigned.set(loose, { pf, via });
      rest.delete(loose);
    } else {
      leftover.push(pf);
    }
  }
  const stillLeft = [];
  for (const pf of leftover) {
    const sub = pf.type && !pf.repeated && !PROTO_SCALARS[pf.type] ? protoMessage(pf.type) : undefined;
    if (sub && rest.size) {
      const inner = matchProto([...rest], sub, protoMessage, [...via, pf.n]);
      if (inner.assigned.size) {
        embedded.push({ n: pf.n, name: pf.name, message: pf.type, ...(via.length ? { via } : {}) });
        embedded.push(...inner.embedded);
        for (const [k, v] of inner.assigned) {
          assigned.set(k, v);
          rest.delete(k);
        }
        continue;
      }
    }
    stillLeft.push(pf);
  }
  return { assigned, embedded, leftover: stillLeft };
}

/** Does the JSON shape of a field agree with its protobuf field? Returns a problem text or ''. */
function checkCompat(jf, pf, types) {
  const scalarOk = (j, t) => {
    if (j.type === 'ref') {
      const target = types.get(j.ref);
      return t === openApiToProto(j.ref) || (target?.special && t === openApiToProto(j.ref));
    }
    switch (j.type) {
      case 'string':
        if (j.format === 'byte') return t === 'bytes';
        return t === 'string' || (t === 'k8s.io.apimachinery.pkg.apis.meta.v1.Duration' && !j.format);
      case 'integer':
        return j.format === 'int64' ? t === 'int64' : j.format === 'int32' ? t === 'int32' : t === 'int32' || t === 'int64';
      case 'number':
        return t === 'double' || t === 'float';
      case 'boolean':
        return t === 'bool';
      case 'object':
        return t === 'k8s.io.apimachinery.pkg.runtime.RawExtension';
      case 'array':
        // A named slice type ([]string with its own proto message, e.g. ExtraValue).
        return !PROTO_SCALARS[t];
      default:
        return false;
    }
  };
  if (pf.map) {
    if (jf.type !== 'object' || !jf.additionalProperties) return 'proto map but JSON is not a map';
    if (pf.map.key !== 'string') return `map key ${pf.map.key}`;
    return scalarOk(jf.additionalProperties, pf.map.value)
      ? ''
      : `map value ${pf.map.value} vs JSON ${JSON.stringify(jf.additionalProperties)}`;
  }
  if (pf.repeated) {
    if (jf.type !== 'array') return 'proto repeated but JSON is not an array';
    return scalarOk(jf.items, pf.type) ? '' : `items ${pf.type} vs JSON ${JSON.stringify(jf.items)}`;
  }
  return scalarOk(jf, pf.type) ? '' : `${pf.type} vs JSON ${JSON.stringify({ type: jf.type, format: jf.format, ref: jf.ref })}`;
}

/** The OpenAPI half of a type: JSON shape, gvk, required, extensions. `d` is undefined for proto-only messages. */
function openApiPart(name, d, servedGVs, problems) {
  const special = SPECIALS[name];
  const t = { type: d?.type ?? special?.type ?? 'object' };
  if (d?.format) t.format = d.format;
  if (special) {
    t.special = special.special;
    if (special.v3OneOf) t.v3OneOf = special.v3OneOf;
    t.jsonNote = special.jsonNote;
  }
  if (!d) t.synthetic = true;
  // The apiextensions specials have no type in OpenAPI (any JSON, or one of two shapes): recorded as object.
  if (d && !d.type && !special) problems.push(`${name}: definition has no type`);
  const gvks = (d?.['x-kubernetes-group-version-kind'] ?? []).filter((g) => servedGVs.has(`${g.group}/${g.version}`));
  if (gvks.length) {
    t.gvk = gvks.map((g) => ({ group: g.group, version: g.version, kind: g.kind }));
    const kind = gvks[0].kind;
    const desc = KIND_DESCRIPTIONS[kind] ?? (kind.endsWith('List') ? `A list of ${kind.slice(0, -4)} objects.` : undefined);
    if (desc) t.description = desc;
  }
  if (d?.required) t.required = d.required;
  if (d?.['x-kubernetes-map-type']) t.mapType = d['x-kubernetes-map-type'];
  if (d?.['x-kubernetes-unions']) t.unions = d['x-kubernetes-unions'];
  t.fields = {};
  for (const [prop, p] of Object.entries(d?.properties ?? {})) t.fields[prop] = toField(p, `${name}.${prop}`, problems);
  return t;
}

/**
 * The protobuf half of a type: puts `proto` on each JSON field (or
 * `protoFields` on special types and list wrappers). Returns the message
 * names it refers to, so the walk can include them.
 */
function protoPart(t, name, protoOnly, msg, protoMessage, notes, problems) {
  t.proto = msg.name;
  const refs = [];
  const addRefs = (pf) => {
    for (const r of [pf.type, pf.map?.value]) if (r && !PROTO_SCALARS[r]) refs.push(r);
  };
  if (t.special || protoOnly) {
    const protoFields = Object.fromEntries(msg.fields.map((pf) => [pf.name, protoFact(pf)]));
    msg.fields.forEach(addRefs);
    if (t.special) {
      t.protoFields = protoFields;
    } else if (msg.fields.length === 1 && msg.fields[0].repeated && msg.fields[0].name === 'items') {
      // A named Go slice such as ExtraValue.
      const it = msg.fields[0].type;
      t.type = 'array';
      t.special = 'ListWrapper';
      t.items = PROTO_SCALARS[it] ? { type: jsonTypeOfProtoScalar(it) } : { type: 'ref', ref: protoToOpenApi(it) };
      t.jsonNote = 'A named Go slice: a plain JSON array; in protobuf a message whose repeated field 1 holds the items.';
      t.protoFields = protoFields;
    } else {
      // runtime.TypeMeta: plain scalar fields named as in JSON.
      for (const pf of msg.fields) {
        if (pf.repeated || pf.map || !PROTO_SCALARS[pf.type]) problems.push(`${name}: proto-only field ${pf.name} is not a scalar`);
        t.fields[pf.name] = { type: jsonTypeOfProtoScalar(pf.type), proto: protoFact(pf) };
      }
    }
    return refs;
  }
  const { assigned, embedded, leftover } = matchProto(Object.keys(t.fields), msg, protoMessage);
  for (const [prop, a] of assigned) {
    t.fields[prop].proto = protoFact(a.pf, a.via);
    if (a.pf.name !== prop) notes.push(`${name}.${prop}: proto field is named ${a.pf.name}`);
    addRefs(a.pf);
  }
  if (embedded.length) {
    t.protoEmbedded = embedded;
    for (const e of embedded) notes.push(`${name}: proto field ${e.name} = ${e.n} (${e.message}) is inlined in JSON`);
  }
  for (const prop of Object.keys(t.fields)) {
    if (!assigned.has(prop) && prop !== 'apiVersion' && prop !== 'kind') problems.push(`${name}.${prop}: JSON field with no proto field`);
  }
  for (const pf of leftover) problems.push(`${name}: proto field ${pf.name} = ${pf.n} has no JSON field`);
  return refs;
}

// ---------------------------------------------------------------------------

function main() {
  const args = parseArgs(process.argv.slice(2), {
    required: ['swagger', 'api', 'apimachinery', 'apiextensions', 'aggregator'],
    optional: ['out'],
    repeated: ['origin'],
    defaults: { out: join(root, 'shared/api/schema') },
  });
  const { doc, describe: swaggerDesc } = readSwagger(args.swagger);
  const sources = openKubeSources(args);
  const defs = doc.definitions;
  const problems = [];
  const notes = [];

  // Served group-versions: gvk lists (DeleteOptions, WatchEvent) are cut to these.
  const servedGVs = new Set(ROOT_KINDS.map(([g, v]) => `${g}/${v}`));

  // Find root definitions by gvk.
  const byGvk = new Map();
  for (const [name, d] of Object.entries(defs)) {
    for (const gvk of d['x-kubernetes-group-version-kind'] ?? []) byGvk.set(`${gvk.group}/${gvk.version}/${gvk.kind}`, name);
  }
  const roots = [...ROOT_NAMES];
  for (const [g, v, k, list] of ROOT_KINDS) {
    const name = byGvk.get(`${g}/${v}/${k}`);
    if (!name) throw new Error(`no definition has gvk ${g}/${v}/${k}`);
    roots.push(name);
    if (list) {
      const listName = byGvk.get(`${g}/${v}/${k}List`);
      if (!listName) throw new Error(`no definition has gvk ${g}/${v}/${k}List`);
      roots.push(listName);
    }
  }

  // Proto messages, loaded per package on demand.
  const protoMessages = new Map();
  const loadedPkgs = new Set();
  const protoFiles = {};
  const loadPkg = (pkg) => {
    if (loadedPkgs.has(pkg)) return;
    loadedPkgs.add(pkg);
    const { source, path } = protoFileOf(pkg);
    const text = sources[source].read(path);
    if (text === undefined) {
      problems.push(`no proto file ${source}:${path}`);
      return;
    }
    protoFiles[`${source}:${path}`] = createHash('sha256').update(text).digest('hex');
    for (const m of parseProto(text, path)) protoMessages.set(m.name, m);
  };
  const protoMessage = (full) => {
    loadPkg(packageOf(full));
    return protoMessages.get(full);
  };

  // Walk: OpenAPI refs and proto message fields.
  const types = new Map();
  const queue = [...roots.map((n) => ({ openapi: n })), ...ROOT_PROTO_MESSAGES.map((m) => ({ proto: m }))];
  while (queue.length) {
    const item = queue.shift();
    const name = item.openapi ?? protoToOpenApi(item.proto);
    if (types.has(name)) continue;
    const t = openApiPart(name, defs[name], servedGVs, problems);
    types.set(name, t);
    for (const f of Object.values(t.fields)) for (const r of refsOf(f)) queue.push({ openapi: r });
    const protoName = openApiToProto(name);
    const msg = protoMessage(protoName);
    if (msg) {
      const more = protoPart(t, name, !defs[name], msg, protoMessage, notes, problems);
      for (const m of more) queue.push({ proto: m });
    } else if (name !== 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch') {
      problems.push(`${name}: no proto message ${protoName}`);
    }
  }

  // JSON/proto agreement, now that every type is known.
  for (const [name, t] of types) {
    if (t.special || t.synthetic) continue;
    const msg = protoMessages.get(t.proto);
    if (!msg) continue;
    for (const [prop, f] of Object.entries(t.fields)) {
      if (!f.proto) continue;
      let m = msg;
      for (const n of f.proto.via ?? []) m = protoMessages.get(m.fields.find((x) => x.n === n).type);
      const pf = m.fields.find((x) => x.n === f.proto.n);
      const why = checkCompat(f, pf, types);
      if (why) notes.push(`${name}.${prop}: ${why}`);
    }
  }

  // Stable output: types sorted by name, fields in the order OpenAPI lists them (alphabetical).
  const out = {
    source: {
      kubernetes: 'v1.35',
      origin: args.origin,
      swagger: swaggerDesc,
      api: sources.api.describe,
      apimachinery: sources.apimachinery.describe,
      ...(sources['apiextensions-apiserver'] ? { apiextensions: sources['apiextensions-apiserver'].describe } : {}),
      ...(sources['kube-aggregator'] ? { aggregator: sources['kube-aggregator'].describe } : {}),
      protoFiles,
      note: 'Facts only: field names, types, formats, required lists, x-kubernetes-* extensions, enums, gvks and protobuf field numbers. Kubernetes description texts are left out.',
    },
    types: Object.fromEntries([...types.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  };
  const outDir = resolve(args.out);
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, 'types.json');
  writeFileSync(file, JSON.stringify(out) + '\n');

  console.log(`derive-schema: ${types.size} types -> ${file} (${statSync(file).size} bytes)`);
  for (const n of notes) console.log(`  note: ${n}`);
  for (const p of problems) console.log(`  problem: ${p}`);
  // A problem is something this script does not know how to map: look before committing.
  if (problems.length) process.exitCode = 1;
}

/** The JSON type a proto scalar is written as. */
function jsonTypeOfProtoScalar(t) {
  if (t === 'bool') return 'boolean';
  if (t === 'string' || t === 'bytes') return 'string';
  if (t === 'double' || t === 'float') return 'number';
  return 'integer';
}

main();
