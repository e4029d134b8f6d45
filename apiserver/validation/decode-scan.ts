// One pass over the raw JSON text of a request body, led by the schema, that
// does what kube's decoder (sigs.k8s.io/json, a fork of encoding/json) does
// besides building the Go value: it finds unknown and duplicate fields with
// their paths, the first type or format error with Go's wording, and prunes
// the already-parsed object the way decoding into Go structs would (unknown
// fields dropped, null meaning unset). Values themselves are never built:
// JSON.parse did that; strings are unescaped only where a check needs them.
import { UINT8, type DecodeNode, type StructNode } from './decode-schema.ts';
import { RFC3339, RFC3339_MICRO, base64DecodeError, goQuote, intFits, parseGoTime, parseQuantityError } from './go-formats.ts';

/** The text is not the JSON the parsed object came from; scan JSON.stringify(obj) instead. */
export class SyntaxProblem extends Error {}

/** An error that ends decoding at once (from a type's own UnmarshalJSON). */
class Fatal extends Error {}

/** What a scan found. */
export interface ScanResult {
  /** Strict decoding errors in document order (`unknown field "spec.foo"`), deduplicated, at most 100. */
  strict: string[];
  /** The decoding error kube would return (type and format errors), if any. */
  error?: string;
  /** apiVersion and kind as kube reads them first (see scanTypeMeta); absent when decoding stopped early. */
  typeMeta?: TypeMetaResult;
}

type Json = Record<string, unknown>;

/** value() leaves the parsed value alone. */
const KEEP = 0;
/** value() read a JSON null: the container applies Go's rule for it. */
const NULL = 1;
/**
 * value() wants the parsed value replaced by what Go would write back, if the
 * container still holds `original` (with duplicate keys JSON.parse kept only
 * the last occurrence, and only that one may be replaced).
 */
class Replace {
  constructor(
    readonly value: unknown,
    readonly original: unknown,
  ) {}
}

type Outcome = typeof KEEP | typeof NULL | Replace;

/** Whether a value() outcome other than KEEP applies to what the container holds now. */
const applies = (outcome: Exclude<Outcome, typeof KEEP>, current: unknown): boolean =>
  outcome === NULL ? current === null : current === outcome.original;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go's strings.TrimSpace (Unicode White_Space, which differs from String.prototype.trim). */
const GO_SPACE =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

/** The zero value of a Go type as encoding/json writes it: what a JSON null becomes in a map or slice. */
function zeroValue(node: DecodeNode): unknown {
  switch (node.kind) {
    case 'string':
      return '';
    case 'int':
    case 'float':
    case 'intOrString':
      return 0;
    case 'bool':
      return false;
    case 'struct':
      return {};
    case 'quantity':
      return '0';
    default:
      return null;
  }
}

/** The word encoding/json uses for a JSON value in "cannot unmarshal <word>". */
function tokenWord(c: number): string {
  switch (c) {
    case 123:
      return 'object';
    case 91:
      return 'array';
    case 34:
      return 'string';
    case 116:
    case 102:
      return 'bool';
    default:
      return 'number';
  }
}

/** Scans `text` as a value of `root`, pruning `js` (the parsed `text`) in place. */
export function scanBody(text: string, root: StructNode, js: unknown, collectStrict: boolean): ScanResult {
  const scanner = new Scanner(text, collectStrict);
  try {
    scanner.ws();
    const c = text.charCodeAt(scanner.i);
    if (c === 123) scanner.struct(root, js, true);
    else {
      scanner.typeMeta = { apiVersion: '', kind: '' };
      if (c !== 110) scanner.typeMeta.error = `json: cannot unmarshal ${tokenWord(c)} into Go value of type ${FIND_KIND_TYPE}`;
      scanner.value(root, js);
    }
    scanner.ws();
    if (scanner.i !== text.length) throw new SyntaxProblem('trailing data');
  } catch (err) {
    if (err instanceof Fatal) return { strict: scanner.strictErrors, error: err.message };
    throw err;
  }
  return { strict: scanner.strictErrors, error: scanner.saved, typeMeta: scanner.typeMeta };
}

/** The apiVersion and kind kube reads first (runtime.SimpleMetaFactory), or its error. */
export interface TypeMetaResult {
  apiVersion: string;
  kind: string;
  error?: string;
}

const FIND_KIND_TYPE = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/**
 * kube reads apiVersion and kind with encoding/json into an anonymous struct
 * before anything else: keys match case-insensitively, the last string wins,
 * and the first value of another type is the error. scanBody finds the same
 * on its way; this is for when it stopped early.
 */
export function scanTypeMeta(text: string): TypeMetaResult {
  const sc = new Scanner(text, false);
  const out: TypeMetaResult = { apiVersion: '', kind: '' };
  sc.ws();
  const c = sc.s.charCodeAt(sc.i);
  if (c !== 123) {
    if (c !== 110) out.error = `json: cannot unmarshal ${tokenWord(c)} into Go value of type ${FIND_KIND_TYPE}`;
    return out;
  }
  sc.i++;
  sc.ws();
  if (sc.s.charCodeAt(sc.i) === 125) return out;
  for (;;) {
    const key = sc.key();
    sc.colon();
    const folded = key.toLowerCase();
    const field = folded === 'apiversion' ? 'apiVersion' : folded === 'kind' ? 'kind' : undefined;
    const v = sc.s.charCodeAt(sc.i);
    if (field && v === 34) out[field] = sc.stringValue();
    else {
      if (field && v !== 110 && !out.error)
        out.error = `json: cannot unmarshal ${tokenWord(v)} into Go struct field .${field} of type string`;
      sc.skip();
    }
    if (sc.next(125)) return out;
  }
}

class Scanner {
  i = 0;
  /** The first saved (non-fatal) error, as Go's decodeState.savedError. */
  saved: string | undefined;
  readonly strictErrors: string[] = [];
  /** Filled in by the top-level struct once all its members are read. */
  typeMeta: TypeMetaResult | undefined;
  private readonly seenStrict = new Set<string>();
  /** Go's errorContext: the struct being decoded and the JSON names leading to the field. */
  private errStruct = '';
  private readonly errStack: string[] = [];
  /** Go's strictFieldStack, as keys and indexes; joined ("spec.template[0]") only for an error. */
  private readonly strictPath: (string | number)[] = [];

  constructor(
    readonly s: string,
    private readonly collectStrict: boolean,
  ) {}

  ws(): void {
    const s = this.s;
    let c = s.charCodeAt(this.i);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = s.charCodeAt(++this.i);
  }

  /** After a member: true at the closing `close`, false after a comma. */
  next(close: number): boolean {
    this.ws();
    const c = this.s.charCodeAt(this.i++);
    if (c === close) return true;
    if (c !== 44) throw new SyntaxProblem(`expected , or close at ${this.i - 1}`);
    this.ws();
    return false;
  }

  colon(): void {
    this.ws();
    if (this.s.charCodeAt(this.i) !== 58) throw new SyntaxProblem(`expected : at ${this.i}`);
    this.i++;
    this.ws();
  }

  /** An object key, unescaped. */
  key(): string {
    const s = this.s;
    if (s.charCodeAt(this.i) !== 34) throw new SyntaxProblem(`expected a key at ${this.i}`);
    const start = this.i + 1;
    let j = start;
    let escaped = false;
    for (;;) {
      const c = s.charCodeAt(j);
      if (c === 34) break;
      if (c === 92) {
        escaped = true;
        j += 2;
        continue;
      }
      if (c !== c) throw new SyntaxProblem('unterminated key'); // NaN: end of text
      j++;
    }
    this.i = j + 1;
    return escaped ? (JSON.parse(s.slice(start - 1, j + 1)) as string) : s.slice(start, j);
  }

  /** Moves past a string; a quote ends it unless an odd run of backslashes precedes it. */
  skipString(): void {
    const s = this.s;
    let from = this.i + 1;
    for (;;) {
      const q = s.indexOf('"', from);
      if (q < 0) throw new SyntaxProblem('unterminated string');
      let b = q - 1;
      while (s.charCodeAt(b) === 92) b--;
      if ((q - 1 - b) % 2 === 0) {
        this.i = q + 1;
        return;
      }
      from = q + 1;
    }
  }

  /** A string value, unescaped only when it has escapes. */
  stringValue(): string {
    const start = this.i;
    this.skipString();
    const inner = this.s.slice(start + 1, this.i - 1);
    return inner.includes('\\') ? (JSON.parse(this.s.slice(start, this.i)) as string) : inner;
  }

  /** The text of a number or literal at i. */
  literal(): string {
    const s = this.s;
    const start = this.i;
    let c = s.charCodeAt(this.i);
    // digits, letters of true/false/null/exponents, sign and point
    while ((c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c === 45 || c === 43 || c === 46 || c === 69) c = s.charCodeAt(++this.i);
    if (this.i === start) throw new SyntaxProblem(`unexpected character at ${start}`);
    return s.slice(start, this.i);
  }

  /** Moves past any value. */
  skip(): void {
    const s = this.s;
    const c = s.charCodeAt(this.i);
    if (c === 34) return this.skipString();
    if (c !== 123 && c !== 91) {
      this.literal();
      return;
    }
    let depth = 0;
    for (;;) {
      const ch = s.charCodeAt(this.i);
      if (ch === 34) {
        this.skipString();
        continue;
      }
      if (ch === 123 || ch === 91) depth++;
      else if (ch === 125 || ch === 93) depth--;
      else if (ch !== ch) throw new SyntaxProblem('unterminated value');
      this.i++;
      if (depth === 0) return;
    }
  }

  /** encoding/json's UnmarshalTypeError text, with the error context as it stands. */
  private typeError(word: string, goType: string): string {
    if (this.errStruct || this.errStack.length) {
      return `json: cannot unmarshal ${word} into Go struct field ${this.errStruct}.${this.errStack.join('.')} of type ${goType}`;
    }
    return `json: cannot unmarshal ${word} into Go value of type ${goType}`;
  }

  private save(message: string): void {
    this.saved ??= message;
  }

  private strictError(type: 'unknown field' | 'duplicate field', field: string): void {
    if (this.strictErrors.length >= 100) return;
    let path = '';
    for (const seg of this.strictPath) path += typeof seg === 'number' ? `[${seg}]` : path ? '.' + seg : seg;
    path = path ? path + '.' + field : field;
    const message = `${type} ${goQuote(path)}`;
    if (this.seenStrict.has(message)) return;
    this.seenStrict.add(message);
    this.strictErrors.push(message);
  }

  /** Decodes the value at i as `node` (the parsed value is `js`); says what the container should do with it. */
  value(node: DecodeNode, js: unknown): Outcome {
    const c = this.s.charCodeAt(this.i);
    if (c === 110) {
      // null: unset for pointers, maps and slices; ignored by everything else, and
      // every self-decoding type here (Time, Quantity, IntOrString...) takes it.
      this.literal();
      return NULL;
    }
    switch (node.kind) {
      case 'struct':
        if (c === 123) this.struct(node, js);
        else this.mismatch(c, node.go);
        return KEEP;
      case 'map':
        if (c === 123) this.map(node, js);
        else this.mismatch(c, node.go);
        return KEEP;
      case 'slice':
        if (c === 91) this.array(node.elem, js);
        else this.mismatch(c, node.go);
        return KEEP;
      case 'bytes':
        return this.bytes(c, node.go, js);
      case 'string':
        if (c === 34) this.skipString();
        else this.mismatch(c, node.go);
        return KEEP;
      case 'int':
        if (c === 45 || (c >= 48 && c <= 57)) {
          const text = this.literal();
          if (!intFits(text, node.bits, node.unsigned)) this.save(this.typeError(`number ${text}`, node.go));
        } else this.mismatch(c, node.go);
        return KEEP;
      case 'float':
        if (c === 45 || (c >= 48 && c <= 57)) {
          const text = this.literal();
          if (!Number.isFinite(Number(text))) this.save(this.typeError(`number ${text}`, node.go));
        } else this.mismatch(c, node.go);
        return KEEP;
      case 'bool':
        if (c === 116 || c === 102) this.literal();
        else this.mismatch(c, node.go);
        return KEEP;
      case 'raw':
        this.skip();
        return KEEP;
      case 'quantity': {
        // Quantity.UnmarshalJSON strips the quotes without unescaping, then TrimSpace.
        const start = this.i;
        this.skip();
        let text = this.s.slice(start, this.i);
        if (c === 34) text = text.slice(1, -1);
        const err = parseQuantityError(text.replace(GO_SPACE, ''));
        if (err) throw new Fatal(err);
        return KEEP;
      }
      case 'intOrString':
        // IntOrString.UnmarshalJSON: a string, else json.Unmarshal into its int32;
        // the error comes back through the outer decoder, which adds its context.
        if (c === 34) this.skipString();
        else if (c === 45 || (c >= 48 && c <= 57)) {
          const text = this.literal();
          if (!intFits(text, 32, false)) throw new Fatal(this.typeError(`number ${text}`, 'int32'));
        } else {
          this.skip();
          throw new Fatal(this.typeError(tokenWord(c), 'int32'));
        }
        return KEEP;
      case 'time': {
        // Time.UnmarshalJSON: json.Unmarshal into a string, then time.Parse;
        // kube writes it back in UTC.
        if (c !== 34) {
          this.skip();
          throw new Fatal(this.typeError(tokenWord(c), 'string'));
        }
        const text = this.stringValue();
        const t = parseGoTime(node.micro ? RFC3339_MICRO : RFC3339, text);
        if (t.error !== undefined) throw new Fatal(t.error);
        return t.canonical === text ? KEEP : new Replace(t.canonical, text);
      }
    }
  }

  /** A []byte: base64 in a string (written back canonical), or an array of uint8. */
  private bytes(c: number, goType: string, js: unknown): Outcome {
    if (c === 34) {
      const text = this.stringValue();
      const err = base64DecodeError(text);
      if (err) {
        this.save(err);
        return KEEP;
      }
      const canonical = Buffer.from(text, 'base64').toString('base64');
      return canonical === text ? KEEP : new Replace(canonical, text);
    }
    if (c === 91) {
      this.array(UINT8, js);
      return Array.isArray(js) && this.saved === undefined ? new Replace(Buffer.from(js as number[]).toString('base64'), js) : KEEP;
    }
    this.mismatch(c, goType);
    return KEEP;
  }

  /** A value of the wrong JSON type for a Go type without its own decoder: saved, skipped. */
  private mismatch(c: number, goType: string): void {
    this.skip();
    this.save(this.typeError(tokenWord(c), goType));
  }

  struct(node: StructNode, js: unknown, root = false): void {
    const fields = node.fields();
    const obj = isObject(js) ? js : undefined;
    // A struct has few fields: a list beats a Set here.
    const seen: string[] | undefined = this.collectStrict ? [] : undefined;
    const outerStruct = this.errStruct;
    const typeMeta: TypeMetaResult | undefined = root ? { apiVersion: '', kind: '' } : undefined;
    this.i++;
    this.ws();
    if (this.s.charCodeAt(this.i) === 125) {
      this.i++;
      this.typeMeta = typeMeta;
      return;
    }
    for (;;) {
      const key = this.key();
      this.colon();
      const start = this.i;
      const field = fields.get(key);
      if (field) {
        if (seen) {
          if (seen.includes(key)) this.strictError('duplicate field', key);
          else seen.push(key);
          this.strictPath.push(key);
        }
        this.errStruct = node.name;
        this.errStack.push(key);
        const outcome = this.value(field, obj?.[key]);
        if (outcome !== KEEP && obj && applies(outcome, obj[key])) {
          // In a struct a null, or a value Go writes back as null, leaves the field unset.
          const next = outcome === NULL ? null : outcome.value;
          if (next === null) delete obj[key];
          else obj[key] = next;
        }
        this.errStruct = outerStruct;
        this.errStack.pop();
        if (seen) this.strictPath.pop();
      } else {
        if (this.collectStrict) this.strictError('unknown field', key);
        this.skip();
        if (obj) delete obj[key];
      }
      if (typeMeta && (key.length === 4 || key.length === 10)) this.noteTypeMeta(typeMeta, key, start);
      if (this.next(125)) {
        this.typeMeta = typeMeta;
        return;
      }
    }
  }

  /** scanTypeMeta's reading of a top-level member that has just been scanned from `start`. */
  private noteTypeMeta(typeMeta: TypeMetaResult, key: string, start: number): void {
    const folded = key.toLowerCase();
    const field = folded === 'apiversion' ? 'apiVersion' : folded === 'kind' ? 'kind' : undefined;
    if (!field) return;
    const c = this.s.charCodeAt(start);
    if (c === 34) {
      const token = this.s.slice(start, this.i);
      typeMeta[field] = token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
    } else if (c !== 110 && !typeMeta.error) {
      typeMeta.error = `json: cannot unmarshal ${tokenWord(c)} into Go struct field .${field} of type string`;
    }
  }

  private map(node: Extract<DecodeNode, { kind: 'map' }>, js: unknown): void {
    const obj = isObject(js) ? js : undefined;
    const seen = this.collectStrict ? new Set<string>() : undefined;
    this.i++;
    this.ws();
    if (this.s.charCodeAt(this.i) === 125) {
      this.i++;
      return;
    }
    for (;;) {
      const key = this.key();
      this.colon();
      if (seen) {
        if (seen.has(key)) this.strictError('duplicate field', key);
        else seen.add(key);
        this.strictPath.push(key);
      }
      const outcome = this.value(node.elem, obj?.[key]);
      if (outcome !== KEEP && obj && applies(outcome, obj[key])) obj[key] = outcome === NULL ? zeroValue(node.elem) : outcome.value;
      if (seen) this.strictPath.pop();
      if (this.next(125)) return;
    }
  }

  private array(elem: DecodeNode, js: unknown): void {
    const arr = Array.isArray(js) ? js : undefined;
    this.i++;
    this.ws();
    if (this.s.charCodeAt(this.i) === 93) {
      this.i++;
      return;
    }
    for (let index = 0; ; index++) {
      if (this.collectStrict) this.strictPath.push(index);
      const outcome = this.value(elem, arr?.[index]);
      if (outcome !== KEEP && arr && applies(outcome, arr[index])) arr[index] = outcome === NULL ? zeroValue(elem) : outcome.value;
      if (this.collectStrict) this.strictPath.pop();
      if (this.next(93)) return;
    }
  }
}
