// The simulated shell's grammar: a tokenizer and a recursive-descent parser
// for the POSIX sh that labs write (lists, pipelines, && ||, if/while/until/
// for/case, functions, { } and ( ) groups, redirections and here-documents).
// Words keep their quotes and $-forms raw; shell.ts expands them when it runs
// them, as sh does. Errors carry busybox ash's wording.

/** A word as written (quotes, $VAR, $(...), `...` still in it). */
export type Word = string;

/** One redirection: `[fd]>file`, `>>`, `<`, `>&fd`, `<&fd`, or a here-document. */
export interface Redirect {
  fd: number;
  op: '>' | '>>' | '<' | '>&' | '<&' | '<<';
  target: Word;
  /** A here-document's body; quoted says its delimiter was quoted (no expansion). */
  heredoc?: { body: string; quoted: boolean };
}

export interface Simple {
  t: 'cmd';
  assigns: Word[];
  words: Word[];
  redirects: Redirect[];
}
export interface Pipeline {
  t: 'pipe';
  cmds: Node[];
  negate: boolean;
}
export interface AndOr {
  t: 'andor';
  first: Node;
  rest: { op: '&&' | '||'; node: Node }[];
}
export interface Seq {
  t: 'seq';
  items: { node: Node; bg: boolean }[];
}
export interface Loop {
  t: 'while';
  until: boolean;
  cond: Node;
  body: Node;
  redirects: Redirect[];
}
export interface For {
  t: 'for';
  name: string;
  /** Undefined: `for x; do` iterates over "$@". */
  words?: Word[];
  body: Node;
  redirects: Redirect[];
}
export interface If {
  t: 'if';
  branches: { cond: Node; body: Node }[];
  otherwise?: Node;
  redirects: Redirect[];
}
export interface Case {
  t: 'case';
  word: Word;
  items: { patterns: Word[]; body: Node }[];
  redirects: Redirect[];
}
export interface Group {
  t: 'group';
  body: Node;
  /** ( ... ) runs in a subshell; { ...; } in this one. */
  subshell: boolean;
  redirects: Redirect[];
}
export interface FuncDef {
  t: 'func';
  name: string;
  body: Node;
}
export type Node = Simple | Pipeline | AndOr | Seq | Loop | For | If | Case | Group | FuncDef;

/** A syntax error, worded as busybox ash words it (the caller adds "sh: "). */
export class ShellSyntaxError extends Error {
  /** True when more input could complete the script (an interactive shell asks for it with "> "). */
  readonly incomplete: boolean;
  constructor(message: string, incomplete = false) {
    super(message);
    this.incomplete = incomplete;
  }
}

type Tok = { k: 'w'; v: string } | { k: 'op'; v: string; fd?: number; heredoc?: Redirect['heredoc'] & { delim?: string; strip?: boolean } };

const OPS = ['&&', '||', ';;', '<<-', '<<', '>>', '>&', '<&', '>|', ';', '&', '|', '(', ')', '<', '>', '\n'];

/** The index just past the `)` that closes the `(` at `open`, skipping quotes and nested parens. */
export function matchParen(src: string, open: number): number {
  let depth = 0;
  for (let j = open; j < src.length; j++) {
    const ch = src[j];
    if (ch === '\\') j++;
    else if (ch === "'") {
      j = src.indexOf("'", j + 1);
      if (j < 0) break;
    } else if (ch === '"') j = skipDouble(src, j) - 1;
    else if (ch === '`') j = skipBacktick(src, j) - 1;
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return j + 1;
  }
  throw new ShellSyntaxError('unexpected end of file (expecting ")")', true);
}

function skipDouble(src: string, i: number): number {
  let j = i + 1;
  while (j < src.length && src[j] !== '"') {
    if (src[j] === '\\') j += 2;
    else if (src[j] === '$' && src[j + 1] === '(') j = matchParen(src, j + 1);
    else if (src[j] === '`') j = skipBacktick(src, j);
    else j++;
  }
  if (j >= src.length) throw new ShellSyntaxError('unterminated quoted string', true);
  return j + 1;
}

function skipBacktick(src: string, i: number): number {
  let j = i + 1;
  while (j < src.length && src[j] !== '`') j += src[j] === '\\' ? 2 : 1;
  if (j >= src.length) throw new ShellSyntaxError('unterminated quoted string', true);
  return j + 1;
}

/** The index just past `${...}` starting at `i` (the `$`). */
function skipBrace(src: string, i: number): number {
  let depth = 0;
  for (let j = i + 1; j < src.length; j++) {
    const ch = src[j];
    if (ch === '\\') j++;
    else if (ch === "'") j = src.indexOf("'", j + 1);
    else if (ch === '"') j = skipDouble(src, j) - 1;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return j + 1;
    if (j < 0) break;
  }
  throw new ShellSyntaxError('unterminated quoted string', true);
}

/** Splits a script into words and operators, reading here-document bodies at the newline after their operator. */
export function tokenize(src: string, eofOk = true): Tok[] {
  const out: Tok[] = [];
  const pendingDocs: NonNullable<Extract<Tok, { k: 'op' }>['heredoc']>[] = [];
  let wantDelim: (typeof pendingDocs)[number] | undefined;
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '\\' && src[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (c === '#' && (out.length === 0 || i === 0 || ' \t\n;&|()'.includes(src[i - 1]))) {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === '\n') {
      out.push({ k: 'op', v: '\n' });
      i++;
      // Here-document bodies start on the line after their operator.
      for (const doc of pendingDocs.splice(0)) {
        const lines: string[] = [];
        let found = false;
        while (i < src.length) {
          let end = src.indexOf('\n', i);
          if (end < 0) end = src.length;
          let line = src.slice(i, end);
          i = Math.min(end + 1, src.length);
          if (doc.strip) line = line.replace(/^\t+/, '');
          if (line === doc.delim) {
            found = true;
            break;
          }
          lines.push(line + '\n');
        }
        if (!found && !eofOk) throw new ShellSyntaxError(`unexpected end of file (expecting "${doc.delim}")`, true);
        doc.body = lines.join('');
      }
      continue;
    }
    const fdOp = /^(\d)(<<-|<<|>>|>&|<&|>\||<|>)/.exec(src.slice(i, i + 4));
    const op = fdOp ? fdOp[2] : OPS.find((o) => src.startsWith(o, i));
    if (op) {
      const tok: Tok = { k: 'op', v: op };
      if (fdOp) tok.fd = Number(fdOp[1]);
      if (op === '<<' || op === '<<-') {
        tok.heredoc = { body: '', quoted: false, strip: op === '<<-' };
        tok.v = '<<';
        pendingDocs.push(tok.heredoc);
        wantDelim = tok.heredoc;
      }
      out.push(tok);
      i += (fdOp ? 1 : 0) + op.length;
      continue;
    }
    let j = i;
    while (j < src.length && !' \t\n;&|()<>'.includes(src[j])) {
      const ch = src[j];
      if (ch === "'") {
        const end = src.indexOf("'", j + 1);
        if (end < 0) throw new ShellSyntaxError('unterminated quoted string', true);
        j = end + 1;
      } else if (ch === '"') j = skipDouble(src, j);
      else if (ch === '`') j = skipBacktick(src, j);
      else if (ch === '\\') j += 2;
      else if (ch === '$' && src[j + 1] === '(') j = matchParen(src, j + 1);
      else if (ch === '$' && src[j + 1] === '{') j = skipBrace(src, j);
      else j++;
    }
    const w = src.slice(i, Math.min(j, src.length));
    i = j;
    out.push({ k: 'w', v: w });
    if (wantDelim) {
      wantDelim.quoted = /['"\\]/.test(w);
      wantDelim.delim = w.replace(/['"\\]/g, '');
      wantDelim = undefined;
    }
  }
  if (pendingDocs.length && !eofOk) throw new ShellSyntaxError(`unexpected end of file (expecting "${pendingDocs[0].delim}")`, true);
  return out;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED = new Set(['if', 'then', 'elif', 'else', 'fi', 'do', 'done', 'case', 'esac', 'while', 'until', 'for', '{', '}', '!', 'in']);

class Parser {
  private i = 0;
  constructor(private readonly toks: Tok[]) {}

  parseAll(): Node {
    const n = this.list(new Set());
    const t = this.toks[this.i];
    if (t) throw new ShellSyntaxError(`unexpected "${t.v === '\n' ? 'newline' : t.v}"`);
    return n;
  }

  private peek(): Tok | undefined {
    return this.toks[this.i];
  }

  private isWord(v: string): boolean {
    const t = this.toks[this.i];
    return t?.k === 'w' && t.v === v;
  }

  private isOp(v: string): boolean {
    const t = this.toks[this.i];
    return t?.k === 'op' && t.v === v;
  }

  private skipNewlines(): void {
    while (this.isOp('\n')) this.i++;
  }

  private expectWord(v: string): void {
    this.skipNewlines();
    if (!this.isWord(v)) this.unexpected(v);
    this.i++;
  }

  private unexpected(expecting?: string): never {
    const t = this.peek();
    if (!t) throw new ShellSyntaxError(`unexpected end of file${expecting ? ` (expecting "${expecting}")` : ''}`, true);
    throw new ShellSyntaxError(
      `unexpected "${t.v === '\n' ? 'newline' : t.v}"${expecting && t.k === 'w' ? ` (expecting "${expecting}")` : ''}`,
    );
  }

  /** A list up to one of the stop words (not consumed). */
  private list(stop: Set<string>): Seq {
    const items: Seq['items'] = [];
    for (;;) {
      while (this.isOp('\n') || this.isOp(';')) this.i++;
      const p = this.peek();
      if (p === undefined || (p.k === 'w' && stop.has(p.v)) || (p.k === 'op' && (stop.has(p.v) || p.v === ')' || p.v === ';;'))) break;
      const node = this.andOr();
      let bg = false;
      if (this.isOp('&')) {
        bg = true;
        this.i++;
      } else if (this.isOp(';') || this.isOp('\n')) this.i++;
      else if (this.peek() && !(this.peek()!.k === 'w' && stop.has(this.peek()!.v)) && !this.isOp(')') && !this.isOp(';;'))
        this.unexpected();
      items.push({ node, bg });
    }
    return { t: 'seq', items };
  }

  private andOr(): Node {
    const first = this.pipeline();
    const rest: AndOr['rest'] = [];
    while (this.isOp('&&') || this.isOp('||')) {
      const op = this.toks[this.i++].v as '&&' | '||';
      this.skipNewlines();
      rest.push({ op, node: this.pipeline() });
    }
    return rest.length ? { t: 'andor', first, rest } : first;
  }

  private pipeline(): Node {
    let negate = false;
    while (this.isWord('!')) {
      negate = !negate;
      this.i++;
    }
    const cmds = [this.command()];
    while (this.isOp('|')) {
      this.i++;
      this.skipNewlines();
      cmds.push(this.command());
    }
    return cmds.length === 1 && !negate ? cmds[0] : { t: 'pipe', cmds, negate };
  }

  private redirects(into: Redirect[]): Redirect[] {
    for (;;) {
      const t = this.peek();
      if (t?.k !== 'op' || !['>', '>>', '<', '>&', '<&', '>|', '<<'].includes(t.v)) return into;
      this.i++;
      const target = this.peek();
      if (target?.k !== 'w') this.unexpected();
      this.i++;
      const op = (t.v === '>|' ? '>' : t.v) as Redirect['op'];
      const fd = t.fd ?? (op === '<' || op === '<&' || op === '<<' ? 0 : 1);
      into.push({ fd, op, target: target.v, heredoc: t.heredoc ? { body: t.heredoc.body, quoted: t.heredoc.quoted } : undefined });
    }
  }

  private command(): Node {
    const p = this.peek();
    if (p === undefined) this.unexpected();
    if (p.k === 'op' && p.v === '(') {
      this.i++;
      const body = this.list(new Set());
      if (!this.isOp(')')) this.unexpected(')');
      this.i++;
      return { t: 'group', body, subshell: true, redirects: this.redirects([]) };
    }
    if (p.k === 'w') {
      switch (p.v) {
        case '{': {
          this.i++;
          const body = this.list(new Set(['}']));
          this.expectWord('}');
          return { t: 'group', body, subshell: false, redirects: this.redirects([]) };
        }
        case 'while':
        case 'until': {
          this.i++;
          const cond = this.list(new Set(['do']));
          this.expectWord('do');
          const body = this.list(new Set(['done']));
          this.expectWord('done');
          return { t: 'while', until: p.v === 'until', cond, body, redirects: this.redirects([]) };
        }
        case 'for':
          return this.forLoop();
        case 'if':
          return this.ifClause();
        case 'case':
          return this.caseClause();
        case 'function': {
          this.i++;
          const name = this.peek();
          if (name?.k !== 'w') this.unexpected();
          this.i++;
          if (this.isOp('(')) {
            this.i++;
            if (!this.isOp(')')) this.unexpected(')');
            this.i++;
          }
          this.skipNewlines();
          return { t: 'func', name: name.v, body: this.command() };
        }
        case 'then':
        case 'elif':
        case 'else':
        case 'fi':
        case 'do':
        case 'done':
        case 'esac':
        case '}':
          this.unexpected();
      }
      // name() compound-command
      const next = this.toks[this.i + 1];
      if (NAME.test(p.v) && next?.k === 'op' && next.v === '(' && this.toks[this.i + 2]?.v === ')') {
        this.i += 3;
        this.skipNewlines();
        return { t: 'func', name: p.v, body: this.command() };
      }
    }
    return this.simple();
  }

  private simple(): Simple {
    const node: Simple = { t: 'cmd', assigns: [], words: [], redirects: [] };
    for (;;) {
      this.redirects(node.redirects);
      const t = this.peek();
      if (t?.k !== 'w') break;
      if (node.words.length === 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(t.v)) node.assigns.push(t.v);
      else node.words.push(t.v);
      this.i++;
    }
    if (node.words.length === 0 && node.assigns.length === 0 && node.redirects.length === 0) this.unexpected();
    return node;
  }

  private forLoop(): For {
    this.i++;
    const name = this.peek();
    if (name?.k !== 'w' || !NAME.test(name.v)) throw new ShellSyntaxError(`bad for loop variable`);
    this.i++;
    let words: Word[] | undefined;
    this.skipNewlines();
    if (this.isWord('in')) {
      this.i++;
      words = [];
      while (this.peek()?.k === 'w') words.push(this.toks[this.i++].v);
      if (this.isOp(';') || this.isOp('\n')) this.i++;
      else if (this.peek()) this.unexpected('do');
    } else if (this.isOp(';')) this.i++;
    this.expectWord('do');
    const body = this.list(new Set(['done']));
    this.expectWord('done');
    return { t: 'for', name: name.v, words, body, redirects: this.redirects([]) };
  }

  private ifClause(): If {
    this.i++;
    const branches: If['branches'] = [];
    let otherwise: Node | undefined;
    for (;;) {
      const cond = this.list(new Set(['then']));
      this.expectWord('then');
      const body = this.list(new Set(['elif', 'else', 'fi']));
      branches.push({ cond, body });
      this.skipNewlines();
      const k = this.peek();
      if (k === undefined) this.unexpected('fi');
      this.i++;
      if (k.v === 'elif') continue;
      if (k.v === 'else') {
        otherwise = this.list(new Set(['fi']));
        this.expectWord('fi');
      } else if (k.v !== 'fi') {
        this.i--;
        this.unexpected('fi');
      }
      break;
    }
    return { t: 'if', branches, otherwise, redirects: this.redirects([]) };
  }

  private caseClause(): Case {
    this.i++;
    const word = this.peek();
    if (word?.k !== 'w') this.unexpected();
    this.i++;
    this.expectWord('in');
    const items: Case['items'] = [];
    for (;;) {
      this.skipNewlines();
      if (this.isWord('esac')) {
        this.i++;
        break;
      }
      if (this.isOp('(')) this.i++;
      const patterns: Word[] = [];
      for (;;) {
        const t = this.peek();
        if (t?.k !== 'w') this.unexpected(')');
        patterns.push(t.v);
        this.i++;
        if (this.isOp('|')) {
          this.i++;
          continue;
        }
        if (!this.isOp(')')) this.unexpected(')');
        this.i++;
        break;
      }
      const body = this.list(new Set(['esac']));
      items.push({ patterns, body });
      if (this.isOp(';;')) this.i++;
      else {
        this.skipNewlines();
        if (!this.isWord('esac')) this.unexpected('esac');
      }
    }
    return { t: 'case', word: word.v, items, redirects: this.redirects([]) };
  }
}

/** Parses a script into its syntax tree; with eofOk false an unfinished here-document is incomplete, as on a terminal. */
export function parseScript(src: string, eofOk = true): Node {
  return new Parser(tokenize(src, eofOk)).parseAll();
}

/** Reserved words (what `type` calls a "shell keyword"). */
export const RESERVED_WORDS: ReadonlySet<string> = RESERVED;
