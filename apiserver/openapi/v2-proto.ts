// The Swagger 2.0 document in protobuf, as gnostic's openapi_v2.Document
// (package openapi.v2, gnostic-models OpenAPIv2.proto): what kubectl asks
// /openapi/v2 for (Accept application/com.github.proto-openapi.spec.v2@v1.0+protobuf)
// when it validates on the client, e.g. the items of a `kind: List`
// manifest. Encodes exactly the parts of the JSON document v2.ts builds.
// Vendor extensions, enums and defaults travel as Any{yaml}: YAML text of
// the value, as gnostic writes them.
import YAML from 'yaml';
import { Writer, WIRE_BYTES, WIRE_VARINT } from '../../shared/api/protobuf/wire.ts';

/** An object that may carry vendor extensions (x- keys). Leaf values go to Msg as they are: it writes only what has the right type. */
interface Extensible {
  [key: string]: unknown;
}

/** The parts of a Swagger 2.0 schema the encoder reads. */
interface Schema extends Extensible {
  $ref?: string;
  format?: string;
  description?: string;
  default?: unknown;
  required?: string[];
  enum?: unknown[];
  additionalProperties?: boolean | Schema;
  type?: string | string[];
  items?: Schema | Schema[];
  properties?: Record<string, Schema>;
}

/** A body, query or path parameter. */
interface Parameter {
  in?: string;
  name?: string;
  description?: string;
  required?: boolean;
  /** Set on body parameters. */
  schema?: Schema;
  type?: string;
  uniqueItems?: boolean;
}

interface Response {
  description?: string;
  schema?: Schema;
}

interface Operation extends Extensible {
  tags?: string[];
  description?: string;
  operationId?: string;
  produces?: string[];
  consumes?: string[];
  parameters?: Parameter[];
  responses: Record<string, Response>;
  schemes?: string[];
}

type Method = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch';

interface PathItem extends Extensible, Partial<Record<Method, Operation>> {
  parameters?: Parameter[];
}

interface SecurityScheme extends Extensible {
  type?: string;
  name?: string;
  in?: string;
  description?: string;
}

/** The Swagger 2.0 document v2.ts builds, as far as the encoder reads it. */
export interface SwaggerDocument extends Extensible {
  swagger?: string;
  info?: { title?: string; version?: string };
  paths?: Record<string, PathItem>;
  definitions?: Record<string, Schema>;
  security?: Record<string, string[]>[];
  securityDefinitions?: Record<string, SecurityScheme>;
}

/** A message under construction: fields appended in field-number order by the callers. */
class Msg {
  readonly w = new Writer();

  str(n: number, v: unknown): this {
    if (typeof v === 'string' && v !== '') this.w.tag(n, WIRE_BYTES).bytes(Buffer.from(v, 'utf8'));
    return this;
  }

  strs(n: number, vs: unknown): this {
    // Repeated strings are written even when empty, one tag per element.
    if (Array.isArray(vs)) for (const v of vs) this.w.tag(n, WIRE_BYTES).bytes(Buffer.from(String(v), 'utf8'));
    return this;
  }

  bool(n: number, v: unknown): this {
    if (v === true) this.w.tag(n, WIRE_VARINT).uvarint(1);
    return this;
  }

  msg(n: number, m: Msg | undefined): this {
    if (m) this.w.tag(n, WIRE_BYTES).bytes(m.w.finish());
    return this;
  }

  msgs(n: number, ms: Msg[]): this {
    for (const m of ms) this.msg(n, m);
    return this;
  }
}

/** Any{yaml = 2}: the value as YAML text. */
function any(value: unknown): Msg {
  return new Msg().str(2, YAML.stringify(value));
}

/** repeated NamedAny from the x- keys of an object. */
function vendorExtensions(o: Extensible): Msg[] {
  return Object.keys(o)
    .filter((k) => k.startsWith('x-'))
    .map((k) => new Msg().str(1, k).msg(2, any(o[k])));
}

function schema(s: Schema): Msg {
  const m = new Msg().str(1, s.$ref).str(2, s.format).str(4, s.description);
  if (s.default !== undefined) m.msg(5, any(s.default));
  m.strs(19, s.required);
  if (Array.isArray(s.enum)) m.msgs(20, s.enum.map(any));
  if (s.additionalProperties !== undefined) {
    const ap = new Msg();
    if (typeof s.additionalProperties === 'boolean') ap.bool(2, s.additionalProperties);
    else ap.msg(1, schema(s.additionalProperties));
    m.msg(21, ap);
  }
  if (s.type !== undefined) m.msg(22, new Msg().strs(1, Array.isArray(s.type) ? s.type : [s.type]));
  if (s.items !== undefined) m.msg(23, new Msg().msgs(1, (Array.isArray(s.items) ? s.items : [s.items]).map(schema)));
  if (s.properties !== undefined) {
    m.msg(
      25,
      new Msg().msgs(
        1,
        Object.entries(s.properties).map(([k, v]) => new Msg().str(1, k).msg(2, schema(v))),
      ),
    );
  }
  return m.msgs(31, vendorExtensions(s));
}

/** ParametersItem{parameter = 1: Parameter{body_parameter = 1 | non_body_parameter = 2}}. */
function parameter(p: Parameter): Msg {
  let param: Msg;
  if (p.in === 'body') {
    param = new Msg().msg(1, new Msg().str(1, p.description).str(2, p.name).str(3, p.in).bool(4, p.required).msg(5, schema(p.schema!)));
  } else {
    // Query (3) and path (4) sub-schemas share the first fields; type and uniqueItems sit at different numbers.
    const sub = new Msg().bool(1, p.required).str(2, p.in).str(3, p.description).str(4, p.name);
    if (p.in === 'query') sub.str(6, p.type).bool(20, p.uniqueItems);
    else sub.str(5, p.type).bool(19, p.uniqueItems);
    param = new Msg().msg(2, new Msg().msg(p.in === 'query' ? 3 : 4, sub));
  }
  return new Msg().msg(1, param);
}

function operation(o: Operation): Msg {
  const responses = new Msg().msgs(
    1,
    Object.entries(o.responses).map(([code, r]) => {
      const response = new Msg().str(1, r.description);
      if (r.schema) response.msg(2, new Msg().msg(1, schema(r.schema)));
      return new Msg().str(1, code).msg(2, new Msg().msg(1, response));
    }),
  );
  return new Msg()
    .strs(1, o.tags)
    .str(3, o.description)
    .str(5, o.operationId)
    .strs(6, o.produces)
    .strs(7, o.consumes)
    .msgs(8, (o.parameters ?? []).map(parameter))
    .msg(9, responses)
    .strs(10, o.schemes)
    .msgs(13, vendorExtensions(o));
}

const METHOD_FIELDS: [Method, number][] = [
  ['get', 2],
  ['put', 3],
  ['post', 4],
  ['delete', 5],
  ['options', 6],
  ['head', 7],
  ['patch', 8],
];

function pathItem(item: PathItem): Msg {
  const m = new Msg();
  for (const [method, n] of METHOD_FIELDS) {
    const op = item[method];
    if (op) m.msg(n, operation(op));
  }
  return m.msgs(9, (item.parameters ?? []).map(parameter)).msgs(10, vendorExtensions(item));
}

/** Encodes a Swagger 2.0 document (as v2.ts builds it) as an openapi.v2.Document message. */
export function encodeOpenapiV2(doc: SwaggerDocument): Uint8Array {
  const d = new Msg().str(1, doc.swagger);
  if (doc.info) d.msg(2, new Msg().str(1, doc.info.title).str(2, doc.info.version));
  d.msg(
    8,
    new Msg().msgs(
      2,
      Object.entries(doc.paths ?? {}).map(([p, item]) => new Msg().str(1, p).msg(2, pathItem(item))),
    ),
  );
  d.msg(
    9,
    new Msg().msgs(
      1,
      Object.entries(doc.definitions ?? {}).map(([name, s]) => new Msg().str(1, name).msg(2, schema(s))),
    ),
  );
  for (const req of doc.security ?? []) {
    d.msg(
      12,
      new Msg().msgs(
        1,
        Object.entries(req).map(([name, scopes]) => new Msg().str(1, name).msg(2, new Msg().strs(1, scopes))),
      ),
    );
  }
  if (doc.securityDefinitions) {
    const items = Object.entries(doc.securityDefinitions).map(([name, s]) => {
      // Only apiKey schemes occur in kube's document (SecurityDefinitionsItem.api_key_security = 2).
      const apiKey = new Msg().str(1, s.type).str(2, s.name).str(3, s.in).str(4, s.description).msgs(5, vendorExtensions(s));
      return new Msg().str(1, name).msg(2, new Msg().msg(2, apiKey));
    });
    d.msg(13, new Msg().msgs(1, items));
  }
  return d.msgs(16, vendorExtensions(doc)).w.finish();
}
