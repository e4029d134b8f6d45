// Mutations of request bodies: byte-level damage (bit flips, truncation,
// invalid UTF-8, wrong protobuf lengths), structural damage of parsed JSON
// (wrong types, huge strings and numbers, unknown fields with odd Unicode),
// and text-level tricks no serializer produces (duplicate keys, deep nesting,
// YAML anchors and tags).
import YAML from 'yaml';
import type { Rng } from './prng.ts';

/** kube-apiserver's request body limit; bodies above it must get a 413. */
export const MAX_BODY = 3 * 1024 * 1024;
/** kube's decoders refuse nesting deeper than this. */
export const MAX_DEPTH = 10_000;

/** A mutated body and what the mutation promises about the answer. */
export interface Mutated {
  body: Buffer;
  /** What was done, for the failure report. */
  how: string[];
  /** The body is too big or too deep for kube: any answer but a 4xx is a failure. */
  mustRefuse?: string;
}

const INVALID_UTF8 = [
  [0xc3, 0x28],
  [0xa0, 0xa1],
  [0xe2, 0x28, 0xa1],
  [0xed, 0xa0, 0x80], // an encoded surrogate
  [0xf0, 0x28, 0x8c, 0x28],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xff, 0xfe],
  [0xc0, 0xaf], // overlong "/"
  [0x00],
];

/** Odd keys for unknown fields: above U+00FF, bidi controls, emoji, NUL, lone surrogates, JSON-pointer metacharacters. */
export const ODD_KEYS = [
  'ñandú',
  'Ā',
  '\u0100x',
  '日本語',
  '😀',
  '\u202eevil',
  '\u0000',
  '\ud800',
  'a/b',
  'a~b',
  '~1',
  '$patch',
  '__proto__',
  'constructor',
  '',
  ' ',
  'x'.repeat(300),
  '\ufeff',
  'Ω≈ç√',
];

/** Odd scalar values: huge and non-finite numbers, wrong types, control characters. */
export function oddValue(r: Rng): unknown {
  switch (r.int(0, 16)) {
    case 0:
      return 1e308;
    case 1:
      return -1;
    case 2:
      // The edge of the integers a float64 holds exactly (2^53 + 1 cannot be written as a JS number).
      return 2 ** 53;
    case 3:
      return 0.5;
    case 4:
      return '';
    case 5:
      return null;
    case 6:
      return true;
    case 7:
      return [];
    case 8:
      return {};
    case 9:
      return 'x'.repeat(r.int(1000, 200_000));
    case 10:
      return r.pick(ODD_KEYS);
    case 11:
      return [[[[null]]]];
    case 12:
      return { [r.pick(ODD_KEYS)]: r.pick(ODD_KEYS) };
    case 13:
      return -2147483649;
    case 14:
      return '\u0000\u0001\u001f';
    case 15:
      return '2026-13-45T99:99:99Z';
    default:
      return ['a', 1, null, { a: [] }];
  }
}

/** Every path (as key lists) to a value inside o, up to a limit. */
function paths(o: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (out.length > 400) return out;
  out.push(prefix);
  if (Array.isArray(o)) o.forEach((v, i) => paths(v, [...prefix, i], out));
  else if (o && typeof o === 'object') for (const [k, v] of Object.entries(o)) paths(v, [...prefix, k], out);
  return out;
}

function setAt(o: any, path: (string | number)[], value: unknown): any {
  if (path.length === 0) return value;
  let cur = o;
  for (const k of path.slice(0, -1)) cur = cur[k];
  cur[path[path.length - 1]] = value;
  return o;
}

function deleteAt(o: any, path: (string | number)[]): void {
  if (path.length === 0) return;
  let cur = o;
  for (const k of path.slice(0, -1)) cur = cur[k];
  const last = path[path.length - 1];
  if (Array.isArray(cur) && typeof last === 'number') cur.splice(last, 1);
  else delete cur[last];
}

/** Structural mutations of a parsed object (in place); returns what was done. */
export function mutateTree(r: Rng, obj: any, count = r.int(1, 3)): { obj: any; how: string[] } {
  const how: string[] = [];
  for (let i = 0; i < count; i++) {
    const all = paths(obj);
    const p = r.pick(all);
    const where = '/' + p.join('/');
    switch (r.int(0, 6)) {
      case 0: {
        const v = oddValue(r);
        obj = setAt(obj, p, v);
        how.push(`set ${where} to ${typeof v === 'string' && v.length > 40 ? `string(${v.length})` : JSON.stringify(v)?.slice(0, 40)}`);
        break;
      }
      case 1:
        deleteAt(obj, p);
        how.push(`delete ${where}`);
        break;
      case 2: {
        const target = r.pick(
          all
            .filter((q) => {
              let cur = obj;
              for (const k of q) cur = cur?.[k];
              return cur && typeof cur === 'object' && !Array.isArray(cur);
            })
            .concat([[]]),
        );
        const key = r.pick(ODD_KEYS);
        const parent = target.reduce((c: any, k) => c?.[k], obj);
        // defineProperty: "__proto__" must become a field of the body, not the object's prototype.
        if (parent && typeof parent === 'object')
          Object.defineProperty(parent, key, { value: oddValue(r), enumerable: true, writable: true, configurable: true });
        how.push(`unknown field ${JSON.stringify(key).slice(0, 30)} at /${target.join('/')}`);
        break;
      }
      case 3: {
        // A field of the right name with the type of another field.
        const v = r.pick([{ a: 'b' }, ['x'], 42, 'str', false]);
        obj = setAt(obj, p, v);
        how.push(`wrong type at ${where}`);
        break;
      }
      case 4: {
        const target = r.pick([
          'kind',
          'apiVersion',
          'metadata',
          'metadata/name',
          'metadata/namespace',
          'metadata/resourceVersion',
          'metadata/uid',
          'metadata/generateName',
          'metadata/labels',
          'metadata/finalizers',
          'metadata/ownerReferences',
          'metadata/managedFields',
          'metadata/deletionTimestamp',
        ]);
        const v = r.pick<unknown>([
          '',
          '..',
          '.',
          'default',
          'kube-system',
          'Bad_Name',
          'v2',
          'x'.repeat(300),
          '-',
          '%2e%2e',
          '../../kube-system',
          'a\\b',
          null,
          42,
          [],
          { a: 'b' },
          ['x'],
          [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'keep-configmap', uid: 'u' }],
          { 'bad key!': 'v', [`${'a'.repeat(64)}`]: 'x' },
          '2020-01-01T00:00:00Z',
          'hidden',
        ]);
        if (obj && typeof obj === 'object' && !Array.isArray(obj)) {
          const keys = target.split('/');
          if (keys.length === 2) obj.metadata = obj.metadata && typeof obj.metadata === 'object' ? obj.metadata : {};
          setAt(obj, keys, v);
        }
        how.push(`set /${target} to ${JSON.stringify(v)?.slice(0, 40)}`);
        break;
      }
      case 5: {
        const n = r.pick([1e21, -1e21, 2 ** 31, -(2 ** 63), 1.0000001, 123456789.5]);
        obj = setAt(obj, p, n);
        how.push(`number ${n} at ${where}`);
        break;
      }
      default: {
        const v = 'é'.repeat(r.int(10, 5000)) + '\u2028\u2029';
        obj = setAt(obj, p, v);
        how.push(`unicode string at ${where}`);
      }
    }
  }
  return { obj, how };
}

/** Byte-level damage of an encoded body. */
export function mutateBytes(r: Rng, input: Buffer, count = r.int(1, 4)): { body: Buffer; how: string[] } {
  let b = Buffer.from(input);
  const how: string[] = [];
  for (let i = 0; i < count && b.length > 0; i++) {
    const at = r.int(0, b.length - 1);
    switch (r.int(0, 7)) {
      case 0:
        b[at] ^= 1 << r.int(0, 7);
        how.push(`bit flip at ${at}`);
        break;
      case 1:
        b = b.subarray(0, at);
        how.push(`truncate to ${at}`);
        break;
      case 2: {
        const seq = Buffer.from(r.pick(INVALID_UTF8));
        b = Buffer.concat([b.subarray(0, at), seq, b.subarray(at)]);
        how.push(`invalid UTF-8 ${seq.toString('hex')} at ${at}`);
        break;
      }
      case 3: {
        const len = r.int(1, Math.min(64, b.length - at));
        b = Buffer.concat([b.subarray(0, at), b.subarray(at + len)]);
        how.push(`delete ${len} bytes at ${at}`);
        break;
      }
      case 4: {
        const len = r.int(1, Math.min(64, b.length - at));
        const chunk = b.subarray(at, at + len);
        b = Buffer.concat([b.subarray(0, at), chunk, chunk, b.subarray(at)]);
        how.push(`duplicate ${len} bytes at ${at}`);
        break;
      }
      case 5:
        b[at] = r.pick([0x00, 0xff, 0x7f, 0x80, 0x22, 0x5c, 0x7b, 0x5d]);
        how.push(`set byte ${at}`);
        break;
      case 6: {
        const junk = Buffer.alloc(r.int(1, 32));
        for (let j = 0; j < junk.length; j++) junk[j] = r.int(0, 255);
        b = Buffer.concat([b, junk]);
        how.push(`append ${junk.length} random bytes`);
        break;
      }
      default: {
        // A varint somewhere set to a huge length: protobuf's "wrong length".
        const big = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]);
        b = Buffer.concat([b.subarray(0, at), big, b.subarray(at + 1)]);
        how.push(`huge varint at ${at}`);
      }
    }
  }
  return { body: b, how };
}

/** JSON text with a key of the top object repeated (the last one wins in JSON.parse, the first in some decoders). */
export function duplicateKeys(r: Rng, obj: any): { text: string; how: string } {
  const json = JSON.stringify(obj);
  if (!obj || typeof obj !== 'object' || Array.isArray(obj) || json.length < 2) return { text: json, how: 'no duplicate (not an object)' };
  const key = r.pick(['kind', 'apiVersion', 'metadata', 'data', 'spec', ...Object.keys(obj)]);
  const dup = `${JSON.stringify(key)}:${JSON.stringify(r.pick<unknown>([{ name: 'keep-configmap', namespace: 'default' }, 'Secret', 'v1', null, 1, { k: 'dup' }]))}`;
  return { text: `{${dup},${json.slice(1)}`, how: `duplicate key ${key}` };
}

/** Deeply nested JSON text, as an unknown field, a known field, or the whole body. */
export function deepJson(r: Rng, obj: any): { text: string; how: string; depth: number } {
  const depth = r.pick([100, 1000, 5000, 9_000, 10_001, 20_000, 100_000, 300_000]);
  const open = r.chance(0.5) ? '[' : '{"a":';
  const close = open === '[' ? ']' : '}';
  const nest = open.repeat(depth) + (open === '[' ? '1' : '1') + close.repeat(depth);
  const where = r.pick(['unknown', 'labels', 'data', 'spec', 'body']);
  if (where === 'body' || !obj || typeof obj !== 'object') return { text: nest, how: `body nested ${depth} deep`, depth };
  const json = JSON.stringify({ ...obj, __deep__: 0 });
  const field = where === 'unknown' ? '"__deep__":0' : '"__deep__":0';
  const key = where === 'unknown' ? '"zzDeep"' : where === 'labels' ? '"metadata":{"name":"x","labels"' : `"${where}"`;
  const text = where === 'labels' ? json.replace(field, `${key}:${nest}}`) : json.replace(field, `${key}:${nest}`);
  return { text, how: `${where} nested ${depth} deep`, depth: depth + 1 };
}

/** A body larger than kube's request limit, or just below it. */
export function hugeJson(r: Rng, obj: any): { text: string; how: string } {
  const size = r.pick([MAX_BODY - 4096, MAX_BODY + 1, MAX_BODY + 100_000, 4 * 1024 * 1024]);
  const base = JSON.stringify({ ...obj, metadata: { ...(obj?.metadata ?? {}), annotations: { big: '' } } });
  const pad = Math.max(0, size - base.length);
  return { text: base.replace('"big":""', `"big":"${'x'.repeat(pad)}"`), how: `body of ${size} bytes` };
}

/** Numbers no Go or JS type holds exactly, written as JSON text. */
export function hugeNumbers(r: Rng, obj: any): { text: string; how: string } {
  const num = r.pick([
    '1e400',
    '-1e400',
    '123456789012345678901234567890',
    '0.' + '1'.repeat(2000),
    '1' + '0'.repeat(5000),
    '-0',
    '1E+2',
    '0x10',
    '01',
    'NaN',
    'Infinity',
    '.5',
    '1.',
  ]);
  const json = JSON.stringify({ ...obj, __n__: 0 });
  const field = r.pick(['"spec":{"replicas"', '"zzNum"', '"data"', '"metadata"']);
  const text =
    field === '"spec":{"replicas"' ? json.replace('"__n__":0', `${field}:${num}}`) : json.replace('"__n__":0', `${field}:${num}`);
  return { text, how: `number ${num.slice(0, 20)} as ${field}` };
}

/** YAML-only tricks: anchors and aliases (cycles, fan-out), tags, merge keys, several documents, tabs. */
export function yamlTrick(r: Rng, obj: any): { text: string; how: string; depth?: number } {
  const base = YAML.stringify(obj ?? {});
  switch (r.int(0, 9)) {
    case 0:
      return { text: `${base}zzCycle: &a [*a]\n`, how: 'anchor cycle' };
    case 1:
      return {
        text: `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n${base}`,
        how: 'alias fan-out (billion laughs, 9^7)',
      };
    case 2:
      return {
        text: `${base}zzTag: !!binary "not base64 %%%"\nzzPy: !!python/object:os.system "id"\nzzCustom: !foo bar\n`,
        how: 'odd tags',
      };
    case 3:
      return { text: `base: &base {kind: Secret, apiVersion: v1}\n<<: *base\n${base}`, how: 'merge key' };
    case 4:
      return { text: `${base}---\n${base}---\nkind: Secret\n`, how: 'several documents' };
    case 5:
      return { text: base.replace(/^ {2}/gm, '\t'), how: 'tabs for indentation' };
    case 6: {
      const depth = r.pick([1000, 10_001, 50_000]);
      return { text: `${base}zzDeep: ${'['.repeat(depth)}1${']'.repeat(depth)}\n`, how: `flow nesting ${depth}`, depth };
    }
    case 7:
      return { text: `${base}${base.split('\n')[0]}\n`, how: 'duplicate key' };
    case 8:
      return { text: `${base}zzKey: &k {a: 1}\n? *k\n: complex key\n`, how: 'complex key' };
    default: {
      const depth = r.pick([1000, 20_000]);
      return {
        text: `${base}zzBlock:\n${Array.from({ length: Math.min(depth, 3000) }, (_, i) => `${' '.repeat(i + 1)}- `).join('\n')}1\n`,
        how: `block nesting ${Math.min(depth, 3000)}`,
      };
    }
  }
}
