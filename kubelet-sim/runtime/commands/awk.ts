// awk for the common one-liners: BEGIN/END, patterns (expressions, /re/,
// ranges), fields ($0, $N, NF, assignment rebuilds $0 with OFS), NR, FNR, FS,
// OFS, ORS, FILENAME, -F and -v, associative arrays (count[$1]++, for (k in
// a), delete, in), print (with > and >> files) and printf, if/while/do/for,
// next, exit, user functions, and the string and math builtins.
import { formatPrintf } from './printf.ts';
import { posixRegex } from './regex.ts';
import { getopts, readStdin, usage, type Command, type CommandHost } from './types.ts';

/** A value that came from input (a field, split()): numeric when it looks like a number. */
class StrNum {
  constructor(readonly s: string) {}
}
type Val = number | string | StrNum;

type Tok =
  | { k: 'num'; v: number }
  | { k: 'str'; v: string }
  | { k: 're'; v: string }
  | { k: 'name'; v: string }
  | { k: 'fname'; v: string }
  | { k: 'op'; v: string }
  | { k: 'nl' };

const KEYWORDS = new Set([
  'BEGIN',
  'END',
  'function',
  'func',
  'if',
  'else',
  'while',
  'for',
  'do',
  'break',
  'continue',
  'next',
  'nextfile',
  'exit',
  'return',
  'delete',
  'in',
  'getline',
  'print',
  'printf',
]);
const BUILTIN_FUNCS = new Set([
  'length',
  'substr',
  'index',
  'split',
  'sub',
  'gsub',
  'match',
  'sprintf',
  'tolower',
  'toupper',
  'int',
  'sqrt',
  'exp',
  'log',
  'sin',
  'cos',
  'atan2',
  'rand',
  'srand',
  'system',
  'close',
  'fflush',
]);
const OPS = [
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '^=',
  '==',
  '<=',
  '>=',
  '!=',
  '++',
  '--',
  '&&',
  '||',
  '>>',
  '!~',
  '**',
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  ';',
  ',',
  '+',
  '-',
  '*',
  '/',
  '%',
  '^',
  '!',
  '>',
  '<',
  '|',
  '?',
  ':',
  '~',
  '$',
  '=',
];

class AwkError extends Error {}

function lex(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const operand = () => {
    const t = out[out.length - 1];
    return (
      t && (t.k === 'num' || t.k === 'str' || t.k === 'name' || t.k === 're' || (t.k === 'op' && [')', ']', '$', '++', '--'].includes(t.v)))
    );
  };
  while (i < src.length) {
    const c = src[i];
    if (c === ' ' || c === '\t' || c === '\r') i++;
    else if (c === '\\' && src[i + 1] === '\n') i += 2;
    else if (c === '\n') {
      out.push({ k: 'nl' });
      i++;
    } else if (c === '#') while (i < src.length && src[i] !== '\n') i++;
    else if (c === '"') {
      let s = '';
      i++;
      while (i < src.length && src[i] !== '"') {
        if (src[i] === '\\') {
          const e = src[++i];
          s += { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', '/': '/', a: '\x07', b: '\b', f: '\f', v: '\v' }[e] ?? `\\${e}`;
          i++;
        } else s += src[i++];
      }
      i++;
      out.push({ k: 'str', v: s });
    } else if (c === '/' && !operand()) {
      let s = '';
      i++;
      while (i < src.length && src[i] !== '/') {
        if (src[i] === '\\' && src[i + 1] === '/') {
          s += '/';
          i += 2;
        } else if (src[i] === '\\') {
          s += src[i] + src[i + 1];
          i += 2;
        } else s += src[i++];
      }
      i++;
      out.push({ k: 're', v: s });
    } else if (/[0-9.]/.test(c) && /[0-9]/.test(c === '.' ? (src[i + 1] ?? '') : c)) {
      const m = /^(0[xX][0-9a-fA-F]+|\d*\.?\d*(?:[eE][-+]?\d+)?)/.exec(src.slice(i))!;
      out.push({ k: 'num', v: Number(m[0]) });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      i += m[0].length;
      out.push(src[i] === '(' && !KEYWORDS.has(m[0]) ? { k: 'fname', v: m[0] } : { k: 'name', v: m[0] });
    } else {
      const op = OPS.find((o) => src.startsWith(o, i));
      if (!op) throw new AwkError(`Unexpected token`);
      out.push({ k: 'op', v: op === '**' ? '^' : op });
      i += op.length;
    }
  }
  return out;
}

type Expr =
  | { t: 'num'; v: number }
  | { t: 'str'; v: string }
  | { t: 're'; v: string }
  | { t: 'var'; name: string }
  | { t: 'field'; e: Expr }
  | { t: 'index'; name: string; keys: Expr[] }
  | { t: 'assign'; op: string; target: Expr; e: Expr }
  | { t: 'cond'; c: Expr; a: Expr; b: Expr }
  | { t: 'bin'; op: string; a: Expr; b: Expr }
  | { t: 'un'; op: string; e: Expr }
  | { t: 'incdec'; op: '++' | '--'; prefix: boolean; target: Expr }
  | { t: 'in'; keys: Expr[]; name: string }
  | { t: 'match'; neg: boolean; a: Expr; re: Expr }
  | { t: 'call'; name: string; args: Expr[] }
  | { t: 'group'; e: Expr };

type Stmt =
  | { t: 'print'; printf: boolean; args: Expr[]; dest?: { op: string; e: Expr } }
  | { t: 'expr'; e: Expr }
  | { t: 'if'; c: Expr; a: Stmt; b?: Stmt }
  | { t: 'while'; c: Expr; body: Stmt; doWhile: boolean }
  | { t: 'for'; init?: Stmt; c?: Expr; step?: Stmt; body: Stmt }
  | { t: 'forin'; v: string; arr: string; body: Stmt }
  | { t: 'block'; body: Stmt[] }
  | { t: 'simple'; k: 'next' | 'break' | 'continue' | 'nextfile' }
  | { t: 'exit'; e?: Expr }
  | { t: 'return'; e?: Expr }
  | { t: 'delete'; name: string; keys?: Expr[] }
  | { t: 'getline'; v?: Expr };

interface Rule {
  kind: 'begin' | 'end' | 'main';
  pattern?: Expr;
  pattern2?: Expr;
  action?: Stmt[];
  inRange?: boolean;
}
interface Func {
  params: string[];
  body: Stmt[];
}

class Parser {
  i = 0;
  constructor(private readonly toks: Tok[]) {}
  peek(): Tok | undefined {
    return this.toks[this.i];
  }
  isOp(v: string): boolean {
    const t = this.toks[this.i];
    return t?.k === 'op' && t.v === v;
  }
  isName(v: string): boolean {
    const t = this.toks[this.i];
    return t?.k === 'name' && t.v === v;
  }
  expect(v: string): void {
    if (!this.isOp(v)) throw new AwkError(`Unexpected token`);
    this.i++;
  }
  nl(): void {
    while (this.peek()?.k === 'nl' || this.isOp(';')) this.i++;
  }
  optNl(): void {
    while (this.peek()?.k === 'nl') this.i++;
  }

  program(): { rules: Rule[]; funcs: Map<string, Func> } {
    const rules: Rule[] = [];
    const funcs = new Map<string, Func>();
    this.nl();
    while (this.peek()) {
      if (this.isName('BEGIN') || this.isName('END')) {
        const kind = (this.toks[this.i++] as { v: string }).v === 'BEGIN' ? 'begin' : 'end';
        this.optNl();
        rules.push({ kind, action: this.block() });
      } else if (this.isName('function') || this.isName('func')) {
        this.i++;
        const name = (this.toks[this.i++] as { v: string }).v;
        this.expect('(');
        const params: string[] = [];
        while (!this.isOp(')')) {
          params.push((this.toks[this.i++] as { v: string }).v);
          if (this.isOp(',')) this.i++;
          this.optNl();
        }
        this.i++;
        this.optNl();
        funcs.set(name, { params, body: this.block() });
      } else {
        const r: Rule = { kind: 'main' };
        if (!this.isOp('{')) {
          r.pattern = this.expr();
          if (this.isOp(',')) {
            this.i++;
            this.optNl();
            r.pattern2 = this.expr();
          }
        }
        if (this.isOp('{')) r.action = this.block();
        rules.push(r);
      }
      this.nl();
    }
    return { rules, funcs };
  }

  block(): Stmt[] {
    this.expect('{');
    const body: Stmt[] = [];
    this.nl();
    while (!this.isOp('}')) {
      if (!this.peek()) throw new AwkError('Unexpected end of program');
      body.push(this.stmt());
      this.nl();
    }
    this.i++;
    return body;
  }

  simpleEnd(): void {
    if (this.isOp(';') || this.peek()?.k === 'nl') this.i++;
  }

  stmt(): Stmt {
    const t = this.peek()!;
    if (t.k === 'op' && t.v === '{') return { t: 'block', body: this.block() };
    if (t.k === 'op' && t.v === ';') {
      this.i++;
      return { t: 'block', body: [] };
    }
    if (t.k === 'name') {
      switch (t.v) {
        case 'if': {
          this.i++;
          this.expect('(');
          const c = this.expr();
          this.expect(')');
          this.optNl();
          const a = this.stmt();
          const save = this.i;
          this.nl();
          if (this.isName('else')) {
            this.i++;
            this.optNl();
            return { t: 'if', c, a, b: this.stmt() };
          }
          this.i = save;
          return { t: 'if', c, a };
        }
        case 'while': {
          this.i++;
          this.expect('(');
          const c = this.expr();
          this.expect(')');
          if (this.isOp(';')) {
            this.i++;
            return { t: 'while', c, body: { t: 'block', body: [] }, doWhile: false };
          }
          this.optNl();
          return { t: 'while', c, body: this.stmt(), doWhile: false };
        }
        case 'do': {
          this.i++;
          this.optNl();
          const body = this.stmt();
          this.nl();
          if (!this.isName('while')) throw new AwkError('Unexpected token');
          this.i++;
          this.expect('(');
          const c = this.expr();
          this.expect(')');
          this.simpleEnd();
          return { t: 'while', c, body, doWhile: true };
        }
        case 'for': {
          this.i++;
          this.expect('(');
          const n1 = this.toks[this.i];
          const n2 = this.toks[this.i + 1];
          const n3 = this.toks[this.i + 2];
          if (
            n1?.k === 'name' &&
            n2?.k === 'name' &&
            n2.v === 'in' &&
            n3?.k === 'name' &&
            this.toks[this.i + 3]?.k === 'op' &&
            (this.toks[this.i + 3] as { v: string }).v === ')'
          ) {
            this.i += 4;
            this.optNl();
            return { t: 'forin', v: n1.v, arr: n3.v, body: this.stmt() };
          }
          const init = this.isOp(';') ? undefined : this.simpleStmt();
          this.expect(';');
          this.optNl();
          const c = this.isOp(';') ? undefined : this.expr();
          this.expect(';');
          this.optNl();
          const step = this.isOp(')') ? undefined : this.simpleStmt();
          this.expect(')');
          if (this.isOp(';')) {
            this.i++;
            return { t: 'for', init, c, step, body: { t: 'block', body: [] } };
          }
          this.optNl();
          return { t: 'for', init, c, step, body: this.stmt() };
        }
        case 'next':
        case 'nextfile':
        case 'break':
        case 'continue':
          this.i++;
          this.simpleEnd();
          return { t: 'simple', k: t.v };
        case 'exit':
        case 'return': {
          this.i++;
          const e = this.isOp(';') || this.isOp('}') || this.peek()?.k === 'nl' || !this.peek() ? undefined : this.expr();
          this.simpleEnd();
          return t.v === 'exit' ? { t: 'exit', e } : { t: 'return', e };
        }
        case 'delete': {
          this.i++;
          const name = (this.toks[this.i++] as { v: string }).v;
          let keys: Expr[] | undefined;
          if (this.isOp('[')) {
            this.i++;
            keys = this.exprList(']');
          }
          this.simpleEnd();
          return { t: 'delete', name, keys };
        }
      }
    }
    const s = this.simpleStmt();
    this.simpleEnd();
    return s;
  }

  simpleStmt(): Stmt {
    if (this.isName('print') || this.isName('printf')) {
      const printf = (this.toks[this.i++] as { v: string }).v === 'printf';
      let args: Expr[] = [];
      const end = () =>
        this.isOp(';') || this.isOp('}') || this.isOp('>') || this.isOp('>>') || this.isOp('|') || this.peek()?.k === 'nl' || !this.peek();
      if (this.isOp('(')) {
        // print (a, b) > "f" or print (a)(b): try a parenthesized list.
        const save = this.i;
        this.i++;
        const list = this.exprList(')', true);
        if (end()) args = list;
        else {
          this.i = save;
          args = this.exprList(undefined, true);
        }
      } else if (!end()) args = this.exprList(undefined, true);
      let dest: { op: string; e: Expr } | undefined;
      if (this.isOp('>') || this.isOp('>>') || this.isOp('|')) {
        const op = (this.toks[this.i++] as { v: string }).v;
        dest = { op, e: this.concat(true) };
      }
      return { t: 'print', printf, args, dest };
    }
    if (this.isName('getline')) {
      this.i++;
      const v = this.peek()?.k === 'name' ? this.primary(true) : undefined;
      return { t: 'getline', v };
    }
    return { t: 'expr', e: this.expr() };
  }

  exprList(close?: string, noGt = false): Expr[] {
    const out: Expr[] = [];
    if (close && this.isOp(close)) {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.expr(noGt && !close));
      if (this.isOp(',')) {
        this.i++;
        this.optNl();
        continue;
      }
      break;
    }
    if (close) this.expect(close);
    return out;
  }

  expr(noGt = false): Expr {
    return this.ternary(noGt);
  }

  ternary(noGt: boolean): Expr {
    const c = this.or(noGt);
    if (this.isOp('?')) {
      this.i++;
      this.optNl();
      const a = this.ternary(noGt);
      this.optNl();
      this.expect(':');
      this.optNl();
      const b = this.ternary(noGt);
      return { t: 'cond', c, a, b };
    }
    if (['=', '+=', '-=', '*=', '/=', '%=', '^='].some((o) => this.isOp(o)) && (c.t === 'var' || c.t === 'field' || c.t === 'index')) {
      const op = (this.toks[this.i++] as { v: string }).v;
      this.optNl();
      return { t: 'assign', op, target: c, e: this.ternary(noGt) };
    }
    return c;
  }

  or(noGt: boolean): Expr {
    let a = this.and(noGt);
    while (this.isOp('||')) {
      this.i++;
      this.optNl();
      a = { t: 'bin', op: '||', a, b: this.and(noGt) };
    }
    return a;
  }

  and(noGt: boolean): Expr {
    let a = this.inExpr(noGt);
    while (this.isOp('&&')) {
      this.i++;
      this.optNl();
      a = { t: 'bin', op: '&&', a, b: this.inExpr(noGt) };
    }
    return a;
  }

  inExpr(noGt: boolean): Expr {
    let a = this.matchExpr(noGt);
    while (this.isName('in')) {
      this.i++;
      const name = (this.toks[this.i++] as { v: string }).v;
      a = { t: 'in', keys: [a], name };
    }
    return a;
  }

  matchExpr(noGt: boolean): Expr {
    let a = this.compare(noGt);
    while (this.isOp('~') || this.isOp('!~')) {
      const neg = (this.toks[this.i++] as { v: string }).v === '!~';
      a = { t: 'match', neg, a, re: this.compare(noGt) };
    }
    return a;
  }

  compare(noGt: boolean): Expr {
    const a = this.concat(noGt);
    for (const op of ['<', '<=', '!=', '==', '>', '>=']) {
      if (this.isOp(op) && !(noGt && op === '>')) {
        this.i++;
        return { t: 'bin', op, a, b: this.concat(noGt) };
      }
    }
    return a;
  }

  concat(noGt: boolean): Expr {
    let a = this.additive();
    for (;;) {
      const t = this.peek();
      const starts =
        t &&
        (t.k === 'num' ||
          t.k === 'str' ||
          t.k === 're' ||
          t.k === 'fname' ||
          (t.k === 'name' && !KEYWORDS.has(t.v)) ||
          (t.k === 'op' && ['$', '!', '(', '-', '+', '++', '--'].includes(t.v)));
      if (!starts || (t.k === 'op' && (t.v === '-' || t.v === '+'))) break;
      if (t.k === 'op' && t.v === '!') break;
      a = { t: 'bin', op: 'concat', a, b: this.additive() };
      void noGt;
    }
    return a;
  }

  additive(): Expr {
    let a = this.mul();
    while (this.isOp('+') || this.isOp('-')) {
      const op = (this.toks[this.i++] as { v: string }).v;
      a = { t: 'bin', op, a, b: this.mul() };
    }
    return a;
  }

  mul(): Expr {
    let a = this.unary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      const op = (this.toks[this.i++] as { v: string }).v;
      a = { t: 'bin', op, a, b: this.unary() };
    }
    return a;
  }

  unary(): Expr {
    if (this.isOp('!') || this.isOp('-') || this.isOp('+')) {
      const op = (this.toks[this.i++] as { v: string }).v;
      return { t: 'un', op, e: this.unary() };
    }
    return this.power();
  }

  power(): Expr {
    const a = this.postfix();
    if (this.isOp('^')) {
      this.i++;
      return { t: 'bin', op: '^', a, b: this.unary() };
    }
    return a;
  }

  postfix(): Expr {
    if (this.isOp('++') || this.isOp('--')) {
      const op = (this.toks[this.i++] as { v: string }).v as '++' | '--';
      return { t: 'incdec', op, prefix: true, target: this.postfix() };
    }
    const e = this.primary(false);
    if ((this.isOp('++') || this.isOp('--')) && (e.t === 'var' || e.t === 'field' || e.t === 'index')) {
      const op = (this.toks[this.i++] as { v: string }).v as '++' | '--';
      return { t: 'incdec', op, prefix: false, target: e };
    }
    return e;
  }

  primary(lvalueOnly: boolean): Expr {
    const t = this.toks[this.i++];
    if (!t) throw new AwkError('Unexpected end of program');
    if (t.k === 'num') return { t: 'num', v: t.v };
    if (t.k === 'str') return { t: 'str', v: t.v };
    if (t.k === 're') return { t: 're', v: t.v };
    if (t.k === 'op' && t.v === '$') {
      const e = this.isOp('++') || this.isOp('--') ? this.postfix() : this.primary(false);
      return { t: 'field', e };
    }
    if (t.k === 'op' && t.v === '(') {
      const list = this.exprList(')');
      if (list.length > 1 && this.isName('in')) {
        this.i++;
        return { t: 'in', keys: list, name: (this.toks[this.i++] as { v: string }).v };
      }
      return { t: 'group', e: list[0] };
    }
    if (t.k === 'fname') {
      this.expect('(');
      return { t: 'call', name: t.v, args: this.exprList(')') };
    }
    if (t.k === 'name') {
      if (BUILTIN_FUNCS.has(t.v) && !lvalueOnly) {
        if (this.isOp('(')) {
          this.i++;
          return { t: 'call', name: t.v, args: this.exprList(')') };
        }
        if (t.v === 'length') return { t: 'call', name: 'length', args: [] };
      }
      if (this.isOp('[')) {
        this.i++;
        return { t: 'index', name: t.v, keys: this.exprList(']') };
      }
      return { t: 'var', name: t.v };
    }
    throw new AwkError(`Unexpected token`);
  }
}

class Next extends Error {}
class Exit extends Error {
  constructor(readonly code: number) {
    super('exit');
  }
}
class Return extends Error {
  constructor(readonly v: Val) {
    super('return');
  }
}
class Loop extends Error {
  constructor(readonly kind: 'break' | 'continue') {
    super(kind);
  }
}

const looksNumeric = (s: string) => /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(s);

function toNum(v: Val): number {
  if (typeof v === 'number') return v;
  const s = v instanceof StrNum ? v.s : v;
  const m = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(s);
  return m ? Number(m[0]) : 0;
}

function numStr(n: number, fmt = '%.6g'): string {
  if (Number.isInteger(n)) return String(n);
  return formatPrintf(fmt, [String(n)]).out;
}

function toStr(v: Val): string {
  if (typeof v === 'number') return numStr(v);
  return v instanceof StrNum ? v.s : v;
}

/** One run of an awk program over its inputs. */
class Interp {
  vars = new Map<string, Val>();
  arrays = new Map<string, Map<string, Val>>();
  fields: string[] = [''];
  nf = 0;
  out = '';
  private locals: Map<string, Val | Map<string, Val>>[] = [];
  files = new Map<string, string>();

  constructor(
    private readonly funcs: Map<string, Func>,
    private readonly host: CommandHost,
    private readonly write: (t: string) => void,
  ) {
    this.vars.set('FS', ' ');
    this.vars.set('OFS', ' ');
    this.vars.set('ORS', '\n');
    this.vars.set('NR', 0);
    this.vars.set('FNR', 0);
    this.vars.set('SUBSEP', '\x1c');
    this.vars.set('RSTART', 0);
    this.vars.set('RLENGTH', -1);
  }

  setRecord(line: string): void {
    this.fields = [line, ...this.split(line, toStr(this.vars.get('FS') ?? ' '))];
    this.nf = this.fields.length - 1;
  }

  split(s: string, fs: string): string[] {
    if (fs === ' ') return s.split(/[ \t\n]+/).filter((x) => x !== '');
    if (s === '') return [];
    if (fs.length === 1 && fs !== '\\') return s.split(fs);
    return s.split(new RegExp(posixRegex(fs, true)));
  }

  getField(n: number): Val {
    if (n === 0) return new StrNum(this.fields[0]);
    return n <= this.nf ? new StrNum(this.fields[n] ?? '') : '';
  }

  setField(n: number, v: string): void {
    if (n === 0) {
      this.setRecord(v);
      return;
    }
    while (this.nf < n) this.fields[++this.nf] = '';
    this.fields[n] = v;
    this.rebuild();
  }

  rebuild(): void {
    this.fields.length = this.nf + 1;
    for (let k = 1; k <= this.nf; k++) this.fields[k] ??= '';
    this.fields[0] = this.fields.slice(1).join(toStr(this.vars.get('OFS') ?? ' '));
  }

  private frame(name: string): Map<string, Val | Map<string, Val>> | undefined {
    const f = this.locals[this.locals.length - 1];
    return f?.has(name) ? f : undefined;
  }

  getVar(name: string): Val {
    if (name === 'NF') return this.nf;
    const f = this.frame(name);
    if (f) {
      const v = f.get(name);
      return v instanceof Map ? '' : (v ?? '');
    }
    return this.vars.get(name) ?? '';
  }

  setVar(name: string, v: Val): void {
    if (name === 'NF') {
      this.nf = Math.max(0, Math.trunc(toNum(v)));
      this.rebuild();
      return;
    }
    const f = this.frame(name);
    if (f) f.set(name, v);
    else this.vars.set(name, v);
  }

  array(name: string): Map<string, Val> {
    const f = this.frame(name);
    if (f) {
      let a = f.get(name);
      if (!(a instanceof Map)) f.set(name, (a = new Map()));
      return a;
    }
    let a = this.arrays.get(name);
    if (!a) this.arrays.set(name, (a = new Map()));
    return a;
  }

  key(keys: Expr[]): string {
    return keys.map((k) => toStr(this.eval(k))).join(toStr(this.vars.get('SUBSEP') ?? '\x1c'));
  }

  regex(e: Expr): RegExp {
    const src = e.t === 're' ? e.v : toStr(this.eval(e));
    return new RegExp(posixRegex(src, true));
  }

  assignTo(target: Expr, v: Val): void {
    if (target.t === 'var') this.setVar(target.name, v);
    else if (target.t === 'field') this.setField(Math.trunc(toNum(this.eval(target.e))), toStr(v));
    else if (target.t === 'index') this.array(target.name).set(this.key(target.keys), v);
  }

  compare(a: Val, b: Val): number {
    const numeric = (v: Val) => typeof v === 'number' || (v instanceof StrNum && looksNumeric(v.s));
    if (numeric(a) && numeric(b)) return toNum(a) - toNum(b);
    const x = toStr(a);
    const y = toStr(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }

  eval(e: Expr): Val {
    switch (e.t) {
      case 'num':
        return e.v;
      case 'str':
        return e.v;
      case 're':
        return Number(this.regex(e).test(this.fields[0]));
      case 'group':
        return this.eval(e.e);
      case 'var':
        return this.getVar(e.name);
      case 'field':
        return this.getField(Math.trunc(toNum(this.eval(e.e))));
      case 'index':
        return this.array(e.name).get(this.key(e.keys)) ?? (this.array(e.name).set(this.key(e.keys), ''), '');
      case 'in':
        return Number(this.array(e.name).has(this.key(e.keys)));
      case 'assign': {
        let v = this.eval(e.e);
        if (v instanceof StrNum && e.op === '=') v = new StrNum(v.s);
        if (e.op !== '=') {
          const cur = toNum(this.eval(e.target));
          const r = toNum(v);
          v = this.arith(e.op.slice(0, -1), cur, r);
        }
        this.assignTo(e.target, v);
        return v;
      }
      case 'incdec': {
        const old = toNum(this.eval(e.target));
        const nv = old + (e.op === '++' ? 1 : -1);
        this.assignTo(e.target, nv);
        return e.prefix ? nv : old;
      }
      case 'cond':
        return this.truthy(this.eval(e.c)) ? this.eval(e.a) : this.eval(e.b);
      case 'un': {
        const v = this.eval(e.e);
        return e.op === '!' ? Number(!this.truthy(v)) : e.op === '-' ? -toNum(v) : toNum(v);
      }
      case 'match': {
        const m = this.regex(e.re).test(toStr(this.eval(e.a)));
        return Number(m !== e.neg);
      }
      case 'bin': {
        if (e.op === '&&') return Number(this.truthy(this.eval(e.a)) && this.truthy(this.eval(e.b)));
        if (e.op === '||') return Number(this.truthy(this.eval(e.a)) || this.truthy(this.eval(e.b)));
        const a = this.eval(e.a);
        const b = this.eval(e.b);
        if (e.op === 'concat') return toStr(a) + toStr(b);
        const c = ['<', '<=', '>', '>=', '==', '!='].includes(e.op) ? this.compare(a, b) : 0;
        switch (e.op) {
          case '<':
            return Number(c < 0);
          case '<=':
            return Number(c <= 0);
          case '>':
            return Number(c > 0);
          case '>=':
            return Number(c >= 0);
          case '==':
            return Number(c === 0);
          case '!=':
            return Number(c !== 0);
        }
        return this.arith(e.op, toNum(a), toNum(b));
      }
      case 'call':
        return this.call(e.name, e.args);
    }
  }

  arith(op: string, a: number, b: number): number {
    switch (op) {
      case '+':
        return a + b;
      case '-':
        return a - b;
      case '*':
        return a * b;
      case '/':
        if (b === 0) throw new AwkError('Division by zero');
        return a / b;
      case '%':
        if (b === 0) throw new AwkError('Division by zero');
        return a % b;
      case '^':
        return a ** b;
    }
    return 0;
  }

  truthy(v: Val): boolean {
    if (typeof v === 'number') return v !== 0;
    if (v instanceof StrNum) return looksNumeric(v.s) ? toNum(v) !== 0 : v.s !== '';
    return v !== '';
  }

  call(name: string, args: Expr[]): Val {
    const s = (k: number) => toStr(this.eval(args[k]));
    const n = (k: number) => toNum(this.eval(args[k]));
    switch (name) {
      case 'length':
        if (args.length === 0) return this.fields[0].length;
        if (args[0].t === 'var' && (this.arrays.has(args[0].name) || this.frame(args[0].name)?.get(args[0].name) instanceof Map))
          return this.array(args[0].name).size;
        return s(0).length;
      case 'substr': {
        const str = s(0);
        const m = Math.round(n(1));
        const len = args.length > 2 ? Math.round(n(2)) : Infinity;
        const start = Math.max(1, m);
        const end = len === Infinity ? str.length + 1 : m + len;
        return end <= start ? '' : str.slice(start - 1, end - 1);
      }
      case 'index':
        return s(0).indexOf(s(1)) + 1;
      case 'split': {
        const target = args[1];
        if (target.t !== 'var') throw new AwkError('split: second argument is not an array');
        const parts = this.split(s(0), args.length > 2 ? (args[2].t === 're' ? args[2].v : s(2)) : toStr(this.vars.get('FS') ?? ' '));
        const a = this.array(target.name);
        a.clear();
        parts.forEach((p, k) => a.set(String(k + 1), new StrNum(p)));
        return parts.length;
      }
      case 'sub':
      case 'gsub': {
        const re = this.regex(args[0]);
        const rep = s(1);
        const target: Expr = args[2] ?? { t: 'field', e: { t: 'num', v: 0 } };
        const str = toStr(this.eval(target));
        let count = 0;
        const g = new RegExp(re.source, name === 'gsub' ? 'g' : '');
        const res = str.replace(g, (m) => {
          count++;
          return rep.replace(/\\\\|\\&|&/g, (x) => (x === '&' ? m : x === '\\&' ? '&' : '\\'));
        });
        if (count) this.assignTo(target, res);
        return count;
      }
      case 'match': {
        const m = this.regex(args[1]).exec(s(0));
        this.vars.set('RSTART', m ? m.index + 1 : 0);
        this.vars.set('RLENGTH', m ? m[0].length : -1);
        return m ? m.index + 1 : 0;
      }
      case 'sprintf':
        return this.sprintf(args);
      case 'tolower':
        return s(0).toLowerCase();
      case 'toupper':
        return s(0).toUpperCase();
      case 'int':
        return Math.trunc(n(0));
      case 'sqrt':
        return Math.sqrt(n(0));
      case 'exp':
        return Math.exp(n(0));
      case 'log':
        return Math.log(n(0));
      case 'sin':
        return Math.sin(n(0));
      case 'cos':
        return Math.cos(n(0));
      case 'atan2':
        return Math.atan2(n(0), n(1));
      case 'rand':
        return Math.random();
      case 'srand':
        return 0;
      case 'system':
      case 'close':
      case 'fflush':
        return 0;
    }
    const f = this.funcs.get(name);
    if (!f) throw new AwkError(`Call to undefined function ${name}`);
    const frame = new Map<string, Val | Map<string, Val>>();
    f.params.forEach((p, k) => {
      const a = args[k];
      if (a?.t === 'var' && (this.arrays.has(a.name) || this.frame(a.name)?.get(a.name) instanceof Map)) frame.set(p, this.array(a.name));
      else frame.set(p, a ? this.eval(a) : '');
    });
    this.locals.push(frame);
    try {
      this.exec(f.body);
      return '';
    } catch (e) {
      if (e instanceof Return) return e.v;
      throw e;
    } finally {
      this.locals.pop();
    }
  }

  sprintf(args: Expr[]): string {
    if (!args.length) return '';
    const fmt = toStr(this.eval(args[0]));
    const vals = args.slice(1).map((a) => this.eval(a));
    // %c of a number is that character, as in awk.
    let k = 0;
    const conv = [...fmt.matchAll(/%[-+ #0]*(\*|\d+)?(?:\.(\*|\d+))?([a-zA-Z%])/g)];
    const strs = vals.map((v) => toStr(v));
    for (const m of conv) {
      if (m[3] === '%') continue;
      if (m[1] === '*') k++;
      if (m[2] === '*') k++;
      if (m[3] === 'c' && typeof vals[k] === 'number') strs[k] = String.fromCharCode(vals[k] as number);
      if (/[di]/.test(m[3]) && vals[k] !== undefined) strs[k] = String(Math.trunc(toNum(vals[k])));
      if (/[eEfgG]/.test(m[3]) && vals[k] !== undefined) strs[k] = String(toNum(vals[k]));
      k++;
    }
    return formatPrintf(fmt, strs).out;
  }

  exec(body: Stmt[]): void {
    for (const s of body) this.stmt(s);
  }

  stmt(s: Stmt): void {
    switch (s.t) {
      case 'expr':
        this.eval(s.e);
        return;
      case 'print': {
        let text: string;
        if (s.printf) text = this.sprintf(s.args);
        else {
          const ofs = toStr(this.vars.get('OFS') ?? ' ');
          const parts = s.args.length
            ? s.args.map((a) => {
                const v = this.eval(a);
                return typeof v === 'number' ? numStr(v, toStr(this.vars.get('OFMT') ?? '%.6g')) : toStr(v);
              })
            : [this.fields[0]];
          text = parts.join(ofs) + toStr(this.vars.get('ORS') ?? '\n');
        }
        if (!s.dest) this.write(text);
        else if (s.dest.op === '|') this.write(text);
        else {
          const file = toStr(this.eval(s.dest.e));
          if (file === '/dev/stdout' || file === '-') this.write(text);
          else if (file === '/dev/stderr') this.files.set('/dev/stderr', (this.files.get('/dev/stderr') ?? '') + text);
          else {
            const fs = this.host.ctx.fs;
            if (!this.files.has(file)) {
              this.files.set(file, '');
              fs.write(file, s.dest.op === '>>' ? (fs.read(file) ?? '') : '');
            }
            fs.append(file, text);
          }
        }
        return;
      }
      case 'if':
        if (this.truthy(this.eval(s.c))) this.stmt(s.a);
        else if (s.b) this.stmt(s.b);
        return;
      case 'while':
        if (s.doWhile) {
          do {
            if (this.loopBody(s.body)) break;
          } while (this.truthy(this.eval(s.c)));
        } else while (this.truthy(this.eval(s.c))) if (this.loopBody(s.body)) break;
        return;
      case 'for':
        if (s.init) this.stmt(s.init);
        while (!s.c || this.truthy(this.eval(s.c))) {
          if (this.loopBody(s.body)) break;
          if (s.step) this.stmt(s.step);
        }
        return;
      case 'forin':
        for (const k of [...this.array(s.arr).keys()]) {
          this.setVar(s.v, k);
          if (this.loopBody(s.body)) break;
        }
        return;
      case 'block':
        this.exec(s.body);
        return;
      case 'simple':
        if (s.k === 'next' || s.k === 'nextfile') throw new Next();
        throw new Loop(s.k);
      case 'exit':
        throw new Exit(s.e ? Math.trunc(toNum(this.eval(s.e))) : 0);
      case 'return':
        throw new Return(s.e ? this.eval(s.e) : '');
      case 'delete':
        if (s.keys) this.array(s.name).delete(this.key(s.keys));
        else this.array(s.name).clear();
        return;
      case 'getline':
        return;
    }
  }

  /** Runs a loop body; true means break. */
  loopBody(s: Stmt): boolean {
    try {
      this.stmt(s);
      return false;
    } catch (e) {
      if (e instanceof Loop) return e.kind === 'break';
      throw e;
    }
  }
}

export const awk: Command = async (args, io, host) => {
  const o = getopts(args, '', 'Fvf', { stopAtFirst: true });
  if ('error' in o) return usage(io, 'awk', o.error);
  const rest = [...o.rest];
  let src: string;
  if (o.flags.has('f'))
    src = o.flags
      .get('f')!
      .map((f) => host.ctx.fs.read(f) ?? '')
      .join('\n');
  else {
    if (!rest.length) return usage(io, 'awk', 'no program');
    src = rest.shift()!;
  }
  let prog: { rules: Rule[]; funcs: Map<string, Func> };
  try {
    prog = new Parser(lex(src)).program();
  } catch (e) {
    if (!(e instanceof AwkError)) throw e;
    io.err(`awk: cmd. line:1: ${e.message}\n`);
    return 2;
  }
  const it = new Interp(prog.funcs, host, io.out);
  const unescape = (v: string) => v.replace(/\\([nt\\])/g, (_m, c: string) => ({ n: '\n', t: '\t', '\\': '\\' })[c]!);
  if (o.flags.has('F')) {
    const fs = o.flags.get('F')!.at(-1)!;
    it.vars.set('FS', fs === 't' ? '\t' : unescape(fs));
  }
  for (const v of o.flags.get('v') ?? []) {
    const eq = v.indexOf('=');
    it.vars.set(v.slice(0, eq), new StrNum(unescape(v.slice(eq + 1))));
  }
  let code = 0;
  const runRules = (kind: Rule['kind']) => {
    for (const r of prog.rules) {
      if (r.kind !== kind) continue;
      if (kind === 'main' && r.pattern) {
        if (r.pattern2) {
          if (!r.inRange) {
            if (!it.truthy(it.eval(r.pattern))) continue;
            r.inRange = !it.truthy(it.eval(r.pattern2));
          } else if (it.truthy(it.eval(r.pattern2))) r.inRange = false;
        } else if (!it.truthy(it.eval(r.pattern))) continue;
      }
      if (r.action) it.exec(r.action);
      else io.out(it.fields[0] + toStr(it.vars.get('ORS') ?? '\n'));
    }
  };
  try {
    try {
      runRules('begin');
      const hasMain = prog.rules.some((r) => r.kind !== 'begin');
      if (hasMain) {
        const files = rest.filter((a) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(a));
        for (const name of files.length ? files : ['-']) {
          let text: string | undefined;
          if (name === '-') text = await readStdin(io, host);
          else {
            text = host.ctx.fs.read(name);
            if (text === undefined) {
              io.err(`awk: cannot open "${name}" (No such file or directory)\n`);
              code = 2;
              continue;
            }
          }
          it.vars.set('FILENAME', name === '-' ? '' : name);
          it.vars.set('FNR', 0);
          const ls = text.split('\n');
          if (ls[ls.length - 1] === '') ls.pop();
          for (const line of ls) {
            it.vars.set('NR', toNum(it.vars.get('NR') ?? 0) + 1);
            it.vars.set('FNR', toNum(it.vars.get('FNR') ?? 0) + 1);
            it.setRecord(line);
            try {
              runRules('main');
            } catch (e) {
              if (!(e instanceof Next)) throw e;
            }
          }
        }
      }
    } catch (e) {
      if (!(e instanceof Exit)) throw e;
      code = e.code;
      runRules('end');
      return code;
    }
    runRules('end');
  } catch (e) {
    if (e instanceof Exit) return e.code;
    if (e instanceof AwkError) {
      io.err(`awk: cmd. line:1: ${e.message}\n`);
      return 2;
    }
    throw e;
  } finally {
    const err = it.files.get('/dev/stderr');
    if (err) io.err(err);
  }
  return code;
};
