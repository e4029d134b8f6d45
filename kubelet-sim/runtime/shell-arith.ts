// $(( )) arithmetic as busybox ash evaluates it: C integer operators with
// their precedence, variables by name (unset or empty is 0), assignment
// operators and ++/--, decimal, 0x hex and 0-prefixed octal constants.

/** Variables seen by an expression. */
export interface ArithVars {
  get(name: string): string | undefined;
  set(name: string, value: string): void;
}

/** An arithmetic error; the message is ash's (the caller adds "sh: "). */
export class ArithError extends Error {}

type T = { k: 'n'; v: number } | { k: 'id'; v: string } | { k: 'op'; v: string };

const OPS = [
  '<<=',
  '>>=',
  '**',
  '<<',
  '>>',
  '<=',
  '>=',
  '==',
  '!=',
  '&&',
  '||',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
];

function lex(src: string): T[] {
  const out: T[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^(0[xX][0-9a-fA-F]+|\d+)/.exec(src.slice(i));
    if (num) {
      const s = num[1];
      let v: number;
      if (/^0[xX]/.test(s)) v = parseInt(s, 16);
      else if (s.length > 1 && s.startsWith('0')) {
        if (/[89]/.test(s)) throw new ArithError('arithmetic syntax error');
        v = parseInt(s, 8);
      } else v = Number(s);
      out.push({ k: 'n', v });
      i += s.length;
      if (/[A-Za-z_]/.test(src[i] ?? '')) throw new ArithError('arithmetic syntax error');
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (id) {
      out.push({ k: 'id', v: id[0] });
      i += id[0].length;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i)) ?? (/[-+*/%<>&|^!~?:=(),]/.test(c) ? c : undefined);
    if (!op) throw new ArithError('arithmetic syntax error');
    out.push({ k: 'op', v: op });
    i += op.length;
  }
  return out;
}

const BINARY: [string[], number][] = [
  [['||'], 1],
  [['&&'], 2],
  [['|'], 3],
  [['^'], 4],
  [['&'], 5],
  [['==', '!='], 6],
  [['<', '<=', '>', '>='], 7],
  [['<<', '>>'], 8],
  [['+', '-'], 9],
  [['*', '/', '%'], 10],
  [['**'], 11],
];
const PREC = new Map(BINARY.flatMap(([ops, p]) => ops.map((o) => [o, p] as const)));

const toInt = (n: number) => (Number.isFinite(n) ? Math.trunc(n) : 0);

/** Evaluates an expression (already $-expanded); throws ArithError. */
export function evalArith(src: string, vars: ArithVars): number {
  const toks = lex(src);
  let i = 0;
  const peek = () => toks[i];
  const isOp = (v: string) => toks[i]?.k === 'op' && toks[i].v === v;
  const valueOf = (name: string): number => {
    const raw = (vars.get(name) ?? '').trim();
    if (raw === '') return 0;
    if (/^-?\d+$/.test(raw)) return Number(raw);
    // A variable holding an expression is evaluated (ash does this recursively).
    return evalArith(raw, vars);
  };

  const assign = (): number => {
    const t = peek();
    const n = toks[i + 1];
    if (t?.k === 'id' && n?.k === 'op' && ['=', '+=', '-=', '*=', '/=', '%=', '<<=', '>>=', '&=', '|=', '^='].includes(n.v)) {
      i += 2;
      const rhs = assign();
      const cur = n.v === '=' ? 0 : valueOf(t.v);
      const v = n.v === '=' ? rhs : binary(n.v.slice(0, -1), cur, rhs);
      vars.set(t.v, String(v));
      return v;
    }
    return ternary();
  };

  const ternary = (): number => {
    const c = bin(1);
    if (!isOp('?')) return c;
    i++;
    const a = assign();
    if (!isOp(':')) throw new ArithError('arithmetic syntax error');
    i++;
    const b = ternary();
    return c !== 0 ? a : b;
  };

  const bin = (min: number): number => {
    let left = unary();
    for (;;) {
      const t = peek();
      const p = t?.k === 'op' ? PREC.get(t.v) : undefined;
      if (p === undefined || p < min) return left;
      i++;
      // ** is right-associative.
      const right = bin(t.v === '**' ? p : p + 1);
      left = binary(String(t.v), left, right);
    }
  };

  const unary = (): number => {
    const t = peek();
    if (t?.k === 'op') {
      if (t.v === '++' || t.v === '--') {
        i++;
        const id = peek();
        if (id?.k !== 'id') throw new ArithError('arithmetic syntax error');
        i++;
        const v = valueOf(id.v) + (t.v === '++' ? 1 : -1);
        vars.set(id.v, String(v));
        return v;
      }
      if (['-', '+', '!', '~'].includes(t.v)) {
        i++;
        const v = unary();
        return t.v === '-' ? -v : t.v === '+' ? v : t.v === '!' ? Number(v === 0) : ~v;
      }
      if (t.v === '(') {
        i++;
        const v = assign();
        if (!isOp(')')) throw new ArithError('arithmetic syntax error');
        i++;
        return v;
      }
    }
    if (t?.k === 'n') {
      i++;
      return t.v;
    }
    if (t?.k === 'id') {
      i++;
      if (isOp('++') || isOp('--')) {
        const old = valueOf(t.v);
        vars.set(t.v, String(old + (toks[i].v === '++' ? 1 : -1)));
        i++;
        return old;
      }
      return valueOf(t.v);
    }
    throw new ArithError('arithmetic syntax error');
  };

  if (toks.length === 0) return 0;
  const v = assign();
  while (isOp(',')) {
    i++;
    assign();
  }
  if (i < toks.length) throw new ArithError('arithmetic syntax error');
  return v;
}

function binary(op: string, a: number, b: number): number {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
    case '%':
      if (b === 0) throw new ArithError('divide by zero');
      return op === '/' ? toInt(a / b) : a % b;
    case '**':
      if (b < 0) throw new ArithError('exponent less than 0');
      return a ** b;
    case '<<':
      return a << b;
    case '>>':
      return a >> b;
    case '<':
      return Number(a < b);
    case '<=':
      return Number(a <= b);
    case '>':
      return Number(a > b);
    case '>=':
      return Number(a >= b);
    case '==':
      return Number(a === b);
    case '!=':
      return Number(a !== b);
    case '&':
      return a & b;
    case '^':
      return a ^ b;
    case '|':
      return a | b;
    case '&&':
      return Number(a !== 0 && b !== 0);
    case '||':
      return Number(a !== 0 || b !== 0);
  }
  throw new ArithError('arithmetic syntax error');
}
