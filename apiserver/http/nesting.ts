// Nesting limits on request bodies, checked on the text before anything
// recursive walks the decoded value. kube's decoders stop at 10,000 levels:
// Go's encoding/json scanner ("invalid character '{' exceeded max depth") and
// go-yaml's scanner ("exceeded max depth of 10000", for flow collections and
// for block indentation alike). Text shorter than the limit cannot nest that
// deep, so ordinary bodies are never scanned.

/** kube's maxNestingDepth (encoding/json) and max_flow_level / max_indents (go-yaml). */
export const MAX_NESTING = 10_000;

/**
 * Go's scanner error for JSON text that opens more than `max` levels, or
 * undefined. Malformed text is scanned as far as it goes: whatever else is
 * wrong with it, the parser reports.
 */
export function jsonNestingError(text: string, max = MAX_NESTING): string | undefined {
  if (text.length <= max) return undefined;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // Skip the string, escapes included.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
    } else if (c === 123 || c === 91) {
      if (++depth > max) return `invalid character '${c === 123 ? '{' : '['}' exceeded max depth`;
    } else if (c === 125 || c === 93) {
      depth--;
    }
  }
  return undefined;
}

/**
 * go-yaml's error for YAML text nested more than `max` levels, in flow
 * collections or block indentation (`exceeded max depth of 10000`, with the
 * `line N: ` go-yaml puts before errors past the first line), or undefined.
 * A sketch of go-yaml's scanner, enough to count levels: a bracket opens a
 * flow level where a node may start (anywhere inside flow collections); in
 * block context a `- ` entry or a `key: ` deeper than the current indentation
 * pushes a level, and a line that starts further left pops them. Quoted
 * scalars and comments are skipped.
 */
export function yamlNestingError(text: string, max = MAX_NESTING): string | undefined {
  if (text.length <= max) return undefined;
  const fail = (line: number) => `${line > 0 ? `line ${line + 1}: ` : ''}exceeded max depth of ${max}`;
  const n = text.length;
  let flow = 0;
  let line = 0;
  let lineStart = 0;
  let indent = -1;
  const indents: number[] = [];
  /** Whether the next character may start a node, so that brackets and quotes are indicators. */
  let nodeStart = true;
  /** Whether no token has been seen yet on this line. */
  let firstOnLine = true;
  /** The column where the current block-context token began (a mapping key's column). */
  let tokenColumn = 0;
  const roll = (column: number): boolean => {
    if (indent >= column) return true;
    indents.push(indent);
    indent = column;
    return indents.length <= max;
  };
  const isBreak = (j: number) => j >= n || text[j] === ' ' || text[j] === '\n' || text[j] === '\t' || text[j] === '\r';
  for (let i = 0; i < n; i++) {
    const c = text[i];
    if (c === '\n') {
      line++;
      lineStart = i + 1;
      nodeStart = true;
      firstOnLine = true;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      if (flow > 0) nodeStart = true;
      continue;
    }
    if (c === '#' && (nodeStart || isBreak(i - 1))) {
      while (i + 1 < n && text[i + 1] !== '\n') i++;
      continue;
    }
    const column = i - lineStart;
    if (flow === 0 && firstOnLine) {
      while (indent > column) indent = indents.pop()!;
    }
    firstOnLine = false;
    if (flow === 0 && nodeStart) tokenColumn = column;
    if ((c === '"' || c === "'") && nodeStart) {
      // A quoted scalar: '' escapes a single quote, \ escapes in double quotes.
      for (i++; i < n; i++) {
        const d = text[i];
        if (d === '\n') {
          line++;
          lineStart = i + 1;
        } else if (c === '"' && d === '\\') i++;
        else if (d === c) {
          if (c === "'" && text[i + 1] === "'") i++;
          else break;
        }
      }
      nodeStart = false;
      continue;
    }
    if ((c === '[' || c === '{') && (nodeStart || flow > 0)) {
      if (++flow > max) return fail(line);
      nodeStart = true;
      continue;
    }
    if (c === ']' || c === '}') {
      if (flow > 0) flow--;
      nodeStart = false;
      continue;
    }
    if (flow > 0) {
      nodeStart = c === ',' || c === ':' || c === '?';
      continue;
    }
    if ((c === '-' || c === '?') && nodeStart && isBreak(i + 1)) {
      if (!roll(column)) return fail(line);
      continue;
    }
    if (c === ':' && isBreak(i + 1)) {
      if (!roll(tokenColumn)) return fail(line);
      nodeStart = true;
      continue;
    }
    nodeStart = false;
  }
  return undefined;
}

/**
 * Whether `err` is V8 running out of stack. Nesting within kube's 10,000
 * levels can still go deeper than V8's default stack lets a recursive walk
 * (JSON.stringify stops near 4,000 levels, structuredClone near 2,000): the
 * request that carried it gets a 4xx, not a 500.
 */
export function isStackExhausted(err: unknown): boolean {
  return err instanceof RangeError && err.message.includes('call stack');
}
