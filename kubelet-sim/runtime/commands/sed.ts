// sed for the common one-liners: s///[gpNI], p, d, q, Q, =, a, i, c, y, n,
// N, P, D, h/H/g/G/x, { } blocks, b/t and labels; addresses N, $, /re/,
// first~step and ranges, with !; -n, -e, -f, -E/-r, -i (in place), -s.
import { compile } from './regex.ts';
import { getopts, flag, readStdin, usage, type Command } from './types.ts';

type Addr = { line: number } | { last: true } | { re: RegExp } | { step: [number, number] };
interface Cmd {
  a1?: Addr;
  a2?: Addr;
  negate: boolean;
  name: string;
  text?: string;
  re?: RegExp;
  rep?: string;
  global?: boolean;
  nth?: number;
  print?: boolean;
  from?: string;
  to?: string;
  label?: string;
  /** For `{`: the index of its `}`. */
  end?: number;
  inRange?: boolean;
}

class SedError extends Error {}

function parse(script: string, extended: boolean): Cmd[] {
  const cmds: Cmd[] = [];
  const open: number[] = [];
  let i = 0;
  const ws = () => {
    while (i < script.length && /[ \t]/.test(script[i])) i++;
  };
  const delimited = (d: string): string => {
    let out = '';
    while (i < script.length && script[i] !== d) {
      if (script[i] === '\\' && i + 1 < script.length) {
        out += script[i + 1] === d ? d : script[i] + script[i + 1];
        i += 2;
      } else if (script[i] === '\n') throw new SedError("unterminated `s' command");
      else out += script[i++];
    }
    if (i >= script.length) throw new SedError(`unmatched '${d}'`);
    i++;
    return out;
  };
  const regex = (src: string, flags = ''): RegExp => {
    const r = compile(src, extended, flags);
    if ('error' in r) throw new SedError(r.error);
    return r;
  };
  const addr = (): Addr | undefined => {
    const n = /^(\d+)(?:~(\d+))?/.exec(script.slice(i));
    if (n) {
      i += n[0].length;
      return n[2] !== undefined ? { step: [Number(n[1]), Number(n[2])] } : { line: Number(n[1]) };
    }
    if (script[i] === '$') {
      i++;
      return { last: true };
    }
    if (script[i] === '/' || script[i] === '\\') {
      const d = script[i] === '\\' ? script[++i] : '/';
      i++;
      const src = delimited(d);
      let flags = '';
      if (script[i] === 'I') {
        flags = 'i';
        i++;
      }
      return { re: regex(src, flags) };
    }
    return undefined;
  };
  while (i < script.length) {
    while (i < script.length && /[\s;]/.test(script[i])) i++;
    if (i >= script.length) break;
    if (script[i] === '#') {
      while (i < script.length && script[i] !== '\n') i++;
      continue;
    }
    const c: Cmd = { negate: false, name: '' };
    c.a1 = addr();
    if (c.a1 && script[i] === ',') {
      i++;
      c.a2 = addr();
      if (!c.a2) throw new SedError("unexpected `,'");
    }
    ws();
    if (script[i] === '!') {
      c.negate = true;
      i++;
      ws();
    }
    const name = script[i++];
    if (name === undefined) throw new SedError('missing command');
    c.name = name;
    switch (name) {
      case '{':
        open.push(cmds.length);
        break;
      case '}':
        if (!open.length) throw new SedError("unexpected '}'");
        cmds[open.pop()!].end = cmds.length;
        break;
      case 's': {
        const d = script[i++];
        const src = delimited(d);
        c.rep = delimited(d);
        let flags = '';
        while (i < script.length && /[gpIi0-9]/.test(script[i])) {
          const f = script[i++];
          if (f === 'g') c.global = true;
          else if (f === 'p') c.print = true;
          else if (f === 'I' || f === 'i') flags += 'i';
          else {
            let num = f;
            while (/[0-9]/.test(script[i] ?? '')) num += script[i++];
            c.nth = Number(num);
          }
        }
        c.re = regex(src, flags);
        break;
      }
      case 'y': {
        const d = script[i++];
        c.from = delimited(d);
        c.to = delimited(d);
        if ([...c.from].length !== [...c.to].length) throw new SedError("strings for `y' command are different lengths");
        break;
      }
      case 'a':
      case 'i':
      case 'c': {
        if (script[i] === '\\') i++;
        if (script[i] === '\n') i++;
        ws();
        let t = '';
        while (i < script.length && script[i] !== '\n') {
          if (script[i] === '\\' && script[i + 1] === '\n') {
            t += '\n';
            i += 2;
          } else t += script[i++];
        }
        c.text = t.replace(/\\(.)/g, '$1');
        break;
      }
      case 'b':
      case 't':
      case 'T':
      case ':': {
        ws();
        let l = '';
        while (i < script.length && !/[;\n]/.test(script[i])) l += script[i++];
        c.label = l.trim();
        break;
      }
      case 'w':
      case 'r': {
        ws();
        let f = '';
        while (i < script.length && script[i] !== '\n') f += script[i++];
        c.text = f;
        break;
      }
      case 'p':
      case 'd':
      case 'q':
      case 'Q':
      case '=':
      case 'n':
      case 'N':
      case 'P':
      case 'D':
      case 'h':
      case 'H':
      case 'g':
      case 'G':
      case 'x':
      case 'l':
      case 'z':
        break;
      default:
        throw new SedError(`unsupported command ${name}`);
    }
    cmds.push(c);
  }
  if (open.length) throw new SedError('unmatched {');
  return cmds;
}

/** The replacement text of s for one match: & and \1..\9, \n. */
function replacement(rep: string, m: RegExpExecArray): string {
  return rep.replace(/\\([0-9n&\\t])|&/g, (all, e: string | undefined) => {
    if (e === undefined) return m[0];
    if (e === 'n') return '\n';
    if (e === 't') return '\t';
    if (e === '&' || e === '\\') return e;
    return m[Number(e)] ?? '';
  });
}

/** Runs a sed program over some inputs' lines; returns the output per input (for -i) or in one. */
function runSed(
  cmds: Cmd[],
  inputs: string[][],
  quiet: boolean,
  separate: boolean,
  files: { write(f: string, t: string): void; read(f: string): string | undefined },
): { outs: string[]; code: number } {
  const outs: string[] = [];
  let out = '';
  let hold = '';
  let code = 0;
  let lineNo = 0;
  const all = separate ? inputs : [inputs.flat()];
  outer: for (const input of all) {
    if (separate) lineNo = 0;
    for (const c of cmds) c.inRange = false;
    let k = 0;
    let appendQueue: string[] = [];
    while (k < input.length) {
      let ps = input[k++];
      lineNo++;
      let subst = false;
      let deleted = false;
      let restart = false;
      const isLast = () => k >= input.length;
      const match = (a: Addr): boolean => {
        if ('line' in a) return lineNo === a.line;
        if ('last' in a) return isLast();
        if ('step' in a) return a.step[1] <= 0 ? lineNo === a.step[0] : lineNo >= a.step[0] && (lineNo - a.step[0]) % a.step[1] === 0;
        a.re.lastIndex = 0;
        return a.re.test(ps);
      };
      const selected = (c: Cmd): boolean => {
        let r: boolean;
        if (!c.a1) r = true;
        else if (!c.a2) r = match(c.a1);
        else if (c.inRange) {
          const a2 = c.a2;
          if ('line' in a2 ? lineNo >= a2.line : match(a2)) c.inRange = false;
          r = true;
        } else if (match(c.a1)) {
          const a2 = c.a2;
          c.inRange = !('line' in a2 && a2.line <= lineNo) && !('last' in a2 && isLast());
          r = true;
        } else r = false;
        return r !== c.negate;
      };
      for (let pc = 0; pc < cmds.length; pc++) {
        const c = cmds[pc];
        if (c.name === '}' || c.name === ':') continue;
        if (!selected(c)) {
          if (c.name === '{') pc = c.end!;
          continue;
        }
        switch (c.name) {
          case '{':
            break;
          case 's': {
            const re = new RegExp(c.re!.source, c.re!.flags.replace('g', '') + 'g');
            let n = 0;
            let did = false;
            ps = ps.replace(re, (...m) => {
              n++;
              const arr = m.slice(0, -2) as unknown as RegExpExecArray;
              if ((c.nth && n !== c.nth) || (!c.global && !c.nth && n > 1) || (c.nth && !c.global && n > c.nth)) return m[0];
              if (c.nth && c.global && n < c.nth) return m[0];
              did = true;
              return replacement(c.rep!, arr);
            });
            if (did) {
              subst = true;
              if (c.print) out += ps + '\n';
            }
            break;
          }
          case 'y':
            ps = [...ps]
              .map((ch) => {
                const idx = [...c.from!].indexOf(ch);
                return idx >= 0 ? [...c.to!][idx] : ch;
              })
              .join('');
            break;
          case 'p':
            out += ps + '\n';
            break;
          case 'P':
            out += ps.split('\n')[0] + '\n';
            break;
          case 'd':
            deleted = true;
            break;
          case 'D': {
            const nl = ps.indexOf('\n');
            if (nl < 0) deleted = true;
            else {
              ps = ps.slice(nl + 1);
              restart = true;
            }
            break;
          }
          case '=':
            out += lineNo + '\n';
            break;
          case 'a':
            appendQueue.push(c.text! + '\n');
            break;
          case 'i':
            out += c.text + '\n';
            break;
          case 'c':
            if (!c.a2 || !c.inRange) out += c.text + '\n';
            deleted = true;
            break;
          case 'r': {
            const t = files.read(c.text!);
            if (t !== undefined) appendQueue.push(t);
            break;
          }
          case 'w':
            files.write(c.text!, ps + '\n');
            break;
          case 'h':
            hold = ps;
            break;
          case 'H':
            hold += '\n' + ps;
            break;
          case 'g':
            ps = hold;
            break;
          case 'G':
            ps += '\n' + hold;
            break;
          case 'x':
            [ps, hold] = [hold, ps];
            break;
          case 'l':
            out += ps.replace(/\\/g, '\\\\').replace(/\t/g, '\\t') + '$\n';
            break;
          case 'n':
            // At the last line, n ends the script: the line is printed as usual.
            if (k >= input.length) {
              pc = cmds.length;
              break;
            }
            if (!quiet) out += ps + '\n';
            out += appendQueue.join('');
            appendQueue = [];
            ps = input[k++];
            lineNo++;
            break;
          case 'N':
            if (k >= input.length) break;
            ps += '\n' + input[k++];
            lineNo++;
            break;
          case 'q':
          case 'Q':
            if (c.name === 'q' && !quiet) out += ps + '\n';
            out += appendQueue.join('');
            code = Number(c.label ?? 0) || 0;
            break outer;
          case 'b':
          case 't':
          case 'T': {
            if (c.name === 't' && !subst) break;
            if (c.name === 'T' && subst) break;
            if (c.name !== 'b') subst = false;
            if (!c.label) pc = cmds.length;
            else pc = cmds.findIndex((x) => x.name === ':' && x.label === c.label);
            if (pc < 0) pc = cmds.length;
            break;
          }
          case 'z':
            ps = '';
            break;
        }
        if (deleted || restart) break;
      }
      if (!deleted && !restart && !quiet) out += ps + '\n';
      out += appendQueue.join('');
      appendQueue = [];
      if (restart) {
        input.splice(k, 0, ps);
        lineNo--;
      }
    }
    if (separate) {
      outs.push(out);
      out = '';
    }
  }
  if (!separate || outs.length === 0) outs.push(out);
  return { outs, code };
}

export const sed: Command = async (args, io, host) => {
  // -i takes an optional suffix glued to it only.
  const norm = args.map((a) => (a === '-i' ? '-i\u0000' : a));
  const o2 = getopts(norm, 'nrEsu', 'efi', { long: { quiet: 'n', silent: 'n', expression: 'e', 'regexp-extended': 'r' } });
  if ('error' in o2) return usage(io, 'sed', o2.error);
  const f = o2.flags;
  const rest = [...o2.rest];
  const scripts = [...(f.get('e') ?? [])];
  for (const file of f.get('f') ?? []) scripts.push(host.ctx.fs.read(file) ?? '');
  if (!scripts.length) {
    if (!rest.length) return usage(io, 'sed', 'no script specified');
    scripts.push(rest.shift()!);
  }
  let cmds: Cmd[];
  try {
    cmds = parse(scripts.join('\n'), f.has('r') || f.has('E'));
  } catch (e) {
    if (!(e instanceof SedError)) throw e;
    io.err(`sed: ${e.message}\n`);
    return 1;
  }
  const fs = host.ctx.fs;
  const inPlace = f.has('i');
  const names = rest.length ? rest : ['-'];
  const inputs: string[][] = [];
  const kept: string[] = [];
  let failed = false;
  for (const n of names) {
    const text = n === '-' ? await readStdin(io, host) : fs.read(n);
    if (text === undefined) {
      io.err(`sed: can't read ${n}: No such file or directory\n`);
      failed = true;
      continue;
    }
    kept.push(n);
    const ls = text.split('\n');
    if (ls[ls.length - 1] === '') ls.pop();
    inputs.push(ls);
  }
  const writes = new Map<string, string>();
  const r = runSed(cmds, inputs, f.has('n'), inPlace || f.has('s'), {
    read: (x) => fs.read(x),
    write: (x, t) => writes.set(x, (writes.get(x) ?? '') + t),
  });
  for (const [x, t] of writes) fs.write(x, t);
  if (inPlace) {
    const suffix = (flag(f, 'i') ?? '').replace('\u0000', '');
    kept.forEach((n, k) => {
      if (suffix) fs.write(n + suffix, fs.read(n) ?? '');
      fs.write(n, r.outs[k] ?? '');
    });
  } else io.out(r.outs.join(''));
  return failed ? 2 : r.code;
};
