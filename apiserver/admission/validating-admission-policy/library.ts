// The part of kube's CEL library (k8s.io/apiserver/pkg/cel/library and the
// cel-go extensions kube enables) that ValidatingAdmissionPolicy expressions
// may call, registered on a @marcbachmann/cel-js environment: the lists
// functions (isSorted, sum, min, max, indexOf, lastIndexOf), the regex
// functions (find, findAll), Kubernetes quantities, the strings extensions
// the library lacks (charAt, replace, reverse), sets.* and base64.*. What
// kube has and this does not (url, ip, cidr, semver, format, math.*,
// lists.range, two-variable comprehensions) is listed in the README.
import type { Environment } from '@marcbachmann/cel-js';
import { addQuantity, cmpQuantity, formatQuantity, isInteger, parseQuantity, type Quantity } from '../../registry/kinds/quantity.ts';

/** An error a library function raises: the evaluation fails with this message, as cel-go's types.NewErr. */
export class CelFunctionError extends Error {}

/** A Kubernetes resource.Quantity as a CEL value (kube's kubernetes.Quantity type). */
export class KubeQuantity {
  constructor(readonly q: Quantity) {}
  toString(): string {
    return formatQuantity(this.q);
  }
}

const asNumber = (x: Quantity): number => Number(x.mant) * 10 ** x.exp;
const fromInt = (n: bigint): Quantity => ({ mant: n, exp: 0, format: 'DecimalSI' });
const negate = (x: Quantity): Quantity => ({ ...x, mant: -x.mant });

function quantityOf(text: string): KubeQuantity {
  const q = parseQuantity(text);
  if (typeof q === 'string') throw new CelFunctionError(q);
  return new KubeQuantity(q);
}

class SetsNamespace {}
class Base64Namespace {}

/** CEL's ordering of two values of one comparable type (int, uint, double, string, bool, bytes, timestamp). */
function compare(a: unknown, b: unknown): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (a instanceof KubeQuantity && b instanceof KubeQuantity) return cmpQuantity(a.q, b.q);
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) {
    const x = Number(a);
    const y = Number(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  throw new CelFunctionError(`no such overload: ${typeof a} < ${typeof b}`);
}

function extreme(list: unknown[], sign: 1 | -1, name: string): unknown {
  if (list.length === 0) throw new CelFunctionError(`${name}(list) called on an empty list`);
  return list.reduce((best, x) => (compare(x, best) * sign > 0 ? x : best));
}

function sum(list: unknown[]): unknown {
  if (list.length === 0) return 0n;
  if (list.every((x) => typeof x === 'bigint')) return list.reduce((a, b) => a + b, 0n);
  if (list.every((x) => typeof x === 'number')) return list.reduce((a, b) => a + b, 0);
  if (list.every((x) => x instanceof KubeQuantity))
    return new KubeQuantity(list.reduce<Quantity>((a, b) => addQuantity(a, b.q), fromInt(0n)));
  throw new CelFunctionError('sum(list) needs a list of one numeric type');
}

const equal = (a: unknown, b: unknown): boolean => {
  if (a instanceof KubeQuantity && b instanceof KubeQuantity) return cmpQuantity(a.q, b.q) === 0;
  if (typeof a === 'object' && a !== null) return JSON.stringify(a, jsonSafe) === JSON.stringify(b, jsonSafe);
  return a === b;
};
const jsonSafe = (_k: string, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v);

function regex(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    throw new CelFunctionError(`failed to compile regex: ${pattern}`);
  }
}

/** Registers the library on `env` (before it is cloned for each policy). */
export function registerKubeLibrary(env: Environment): Environment {
  env.registerType('kubernetes.Quantity', KubeQuantity);
  // lists (k8s.io/apiserver/pkg/cel/library/lists.go)
  env.registerFunction('list.isSorted(): bool', (l: unknown[]) => l.every((x, i) => i === 0 || compare(l[i - 1], x) <= 0));
  env.registerFunction('list.sum(): dyn', (l: unknown[]) => sum(l));
  env.registerFunction('list.min(): dyn', (l: unknown[]) => extreme(l, -1, 'min'));
  env.registerFunction('list.max(): dyn', (l: unknown[]) => extreme(l, 1, 'max'));
  env.registerFunction('list.indexOf(dyn): int', (l: unknown[], x: unknown) => BigInt(l.findIndex((y) => equal(y, x))));
  env.registerFunction('list.lastIndexOf(dyn): int', (l: unknown[], x: unknown) => {
    for (let i = l.length - 1; i >= 0; i--) if (equal(l[i], x)) return BigInt(i);
    return -1n;
  });
  // regex (library/regex.go)
  env.registerFunction('string.find(string): string', (s: string, p: string) => regex(p).exec(s)?.[0] ?? '');
  const findAll = (s: string, p: string): string[] => [...s.matchAll(new RegExp(regex(p).source, 'gu'))].map((m) => m[0]);
  env.registerFunction('string.findAll(string): list<string>', findAll);
  env.registerFunction('string.findAll(string, int): list<string>', (s: string, p: string, n: bigint) =>
    n < 0n ? findAll(s, p) : findAll(s, p).slice(0, Number(n)),
  );
  // strings extensions cel-js lacks (cel-go ext.Strings)
  env.registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
    const chars = [...s];
    if (i < 0n || i > BigInt(chars.length)) throw new CelFunctionError(`index out of range: ${i}`);
    return chars[Number(i)] ?? '';
  });
  env.registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => s.split(a).join(b));
  env.registerFunction('string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => {
    if (n < 0n) return s.split(a).join(b);
    let out = s;
    let from = 0;
    for (let k = 0n; k < n; k++) {
      const at = out.indexOf(a, from);
      if (at < 0) break;
      out = out.slice(0, at) + b + out.slice(at + a.length);
      from = at + b.length;
    }
    return out;
  });
  env.registerFunction('string.reverse(): string', (s: string) => [...s].reverse().join(''));
  // sets (cel-go ext.Sets) and encoders (ext.Encoders): namespaces as constants, the way cel-js serves optional.*
  env.registerType('SetsNamespace', SetsNamespace);
  env.registerConstant('sets', 'SetsNamespace', new SetsNamespace());
  env.registerType('Base64Namespace', Base64Namespace);
  env.registerConstant('base64', 'Base64Namespace', new Base64Namespace());
  env.registerFunction('SetsNamespace.contains(list, list): bool', (_: unknown, a: unknown[], b: unknown[]) =>
    b.every((x) => a.some((y) => equal(x, y))),
  );
  env.registerFunction(
    'SetsNamespace.equivalent(list, list): bool',
    (_: unknown, a: unknown[], b: unknown[]) => b.every((x) => a.some((y) => equal(x, y))) && a.every((x) => b.some((y) => equal(x, y))),
  );
  env.registerFunction('SetsNamespace.intersects(list, list): bool', (_: unknown, a: unknown[], b: unknown[]) =>
    a.some((x) => b.some((y) => equal(x, y))),
  );
  env.registerFunction('Base64Namespace.encode(bytes): string', (_: unknown, b: Uint8Array) => Buffer.from(b).toString('base64'));
  env.registerFunction('Base64Namespace.decode(string): bytes', (_: unknown, s: string) => new Uint8Array(Buffer.from(s, 'base64')));
  // quantity (library/quantity.go)
  env.registerFunction('quantity(string): kubernetes.Quantity', (s: string) => quantityOf(s));
  env.registerFunction('isQuantity(string): bool', (s: string) => typeof parseQuantity(s) !== 'string');
  env.registerFunction('kubernetes.Quantity.sign(): int', (q: KubeQuantity) => BigInt(Math.sign(cmpQuantity(q.q, fromInt(0n)))));
  env.registerFunction('kubernetes.Quantity.isInteger(): bool', (q: KubeQuantity) => isInteger(q.q));
  env.registerFunction('kubernetes.Quantity.asInteger(): int', (q: KubeQuantity) => {
    if (!isInteger(q.q)) throw new CelFunctionError('cannot convert value to integer');
    return q.q.mant * 10n ** BigInt(q.q.exp);
  });
  env.registerFunction('kubernetes.Quantity.asApproximateFloat(): double', (q: KubeQuantity) => asNumber(q.q));
  env.registerFunction(
    'kubernetes.Quantity.isGreaterThan(kubernetes.Quantity): bool',
    (a: KubeQuantity, b: KubeQuantity) => cmpQuantity(a.q, b.q) > 0,
  );
  env.registerFunction(
    'kubernetes.Quantity.isLessThan(kubernetes.Quantity): bool',
    (a: KubeQuantity, b: KubeQuantity) => cmpQuantity(a.q, b.q) < 0,
  );
  env.registerFunction('kubernetes.Quantity.compareTo(kubernetes.Quantity): int', (a: KubeQuantity, b: KubeQuantity) =>
    BigInt(cmpQuantity(a.q, b.q)),
  );
  env.registerFunction(
    'kubernetes.Quantity.add(kubernetes.Quantity): kubernetes.Quantity',
    (a: KubeQuantity, b: KubeQuantity) => new KubeQuantity(addQuantity(a.q, b.q)),
  );
  env.registerFunction(
    'kubernetes.Quantity.add(int): kubernetes.Quantity',
    (a: KubeQuantity, b: bigint) => new KubeQuantity(addQuantity(a.q, fromInt(b))),
  );
  env.registerFunction(
    'kubernetes.Quantity.sub(kubernetes.Quantity): kubernetes.Quantity',
    (a: KubeQuantity, b: KubeQuantity) => new KubeQuantity(addQuantity(a.q, negate(b.q))),
  );
  env.registerFunction(
    'kubernetes.Quantity.sub(int): kubernetes.Quantity',
    (a: KubeQuantity, b: bigint) => new KubeQuantity(addQuantity(a.q, fromInt(-b))),
  );
  env.registerOperator('kubernetes.Quantity == kubernetes.Quantity', (a: KubeQuantity, b: KubeQuantity) => cmpQuantity(a.q, b.q) === 0);
  return env;
}
