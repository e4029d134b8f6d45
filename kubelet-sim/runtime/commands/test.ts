// test / [ as busybox evaluates them: file tests, string and integer
// comparisons, !, -a, -o and parentheses, with POSIX's rules for one to four
// arguments ("[ -n ]" is true: one non-empty argument).
import type { SimFs } from '../filesystem.ts';

const UNARY_FILE = new Set(['-e', '-f', '-d', '-s', '-r', '-w', '-x', '-L', '-h', '-b', '-c', '-p', '-S', '-g', '-u', '-k', '-O', '-G']);
const BINARY = new Set(['=', '==', '!=', '<', '>', '-eq', '-ne', '-lt', '-le', '-gt', '-ge', '-nt', '-ot', '-ef']);

/** The result of `test args...`: true, false, or an error text (status 2). */
export function evalTest(args: string[], fs: SimFs): boolean | string {
  if (args.length === 0) return false;
  let i = 0;
  const num = (s: string): number | string => (/^\s*-?\d+\s*$/.test(s) ? Number(s) : `${s}: bad number`);

  const primary = (): boolean | string => {
    const a = args[i];
    if (a === '!') {
      i++;
      const r = primary();
      return typeof r === 'string' ? r : !r;
    }
    if (a === '(' && args.length - i > 2) {
      i++;
      const r = orExpr();
      if (args[i] !== ')') return 'syntax error: missing )';
      i++;
      return r;
    }
    // A binary operator after this operand?
    if (i + 2 <= args.length - 1 && BINARY.has(args[i + 1])) {
      const [l, op, r] = [args[i], args[i + 1], args[i + 2]];
      i += 3;
      switch (op) {
        case '=':
        case '==':
          return l === r;
        case '!=':
          return l !== r;
        case '<':
          return l < r;
        case '>':
          return l > r;
        case '-nt':
        case '-ot':
        case '-ef':
          return false;
      }
      const x = num(l);
      const y = num(r);
      if (typeof x === 'string') return x;
      if (typeof y === 'string') return y;
      return { '-eq': x === y, '-ne': x !== y, '-lt': x < y, '-le': x <= y, '-gt': x > y, '-ge': x >= y }[op]!;
    }
    if ((UNARY_FILE.has(a) || a === '-z' || a === '-n' || a === '-t') && i + 1 < args.length) {
      const v = args[i + 1];
      i += 2;
      const isFile = fs.read(v) !== undefined;
      switch (a) {
        case '-z':
          return v === '';
        case '-n':
          return v !== '';
        case '-t':
          return false;
        case '-e':
        case '-r':
        case '-w':
          return isFile || fs.isDir(v);
        case '-x':
          return fs.isDir(v) || (isFile && /^#!|\.sh$/.test((fs.read(v) ?? '').slice(0, 2) + v));
        case '-f':
          return isFile;
        case '-d':
          return fs.isDir(v);
        case '-s':
          return isFile ? (fs.read(v) ?? '').length > 0 : fs.isDir(v);
        default:
          return false;
      }
    }
    i++;
    return a !== '' && a !== undefined;
  };
  const andExpr = (): boolean | string => {
    let r = primary();
    while (args[i] === '-a') {
      i++;
      const s = primary();
      if (typeof r === 'string') return r;
      if (typeof s === 'string') return s;
      r = r && s;
    }
    return r;
  };
  const orExpr = (): boolean | string => {
    let r = andExpr();
    while (args[i] === '-o') {
      i++;
      const s = andExpr();
      if (typeof r === 'string') return r;
      if (typeof s === 'string') return s;
      r = r || s;
    }
    return r;
  };

  // POSIX: with one argument, true when it is not empty; two: unary or "! x"; three: binary first.
  if (args.length === 1) return args[0] !== '';
  if (args.length === 2 && args[0] === '!') return args[1] === '';
  if (args.length === 2 && !UNARY_FILE.has(args[0]) && !['-z', '-n', '-t'].includes(args[0])) return `${args[0]}: unknown operand`;
  const r = orExpr();
  if (typeof r !== 'string' && i < args.length) return `${args[i]}: unknown operand`;
  return r;
}
