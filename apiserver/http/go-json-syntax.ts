// The syntax error Go's encoding/json reports for malformed JSON (its
// scanner's exact words: "unexpected end of JSON input", "invalid character
// '}' looking for beginning of object key string", ...), which kube puts in
// its 400s. Only run when JSON.parse has already failed: the cold path.
import { MAX_NESTING } from './nesting.ts';

/** Go's quoteChar: a byte as the scanner names it. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x5c: '\\\\' };
  if (named[c]) return `'${named[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  // A byte above 0x7f is the rune of the same number to strconv.Quote: printable from U+00A1 on, except the soft hyphen.
  if (c >= 0x80 && (c <= 0xa0 || c === 0xad)) return `'\\u00${c.toString(16).padStart(2, '0')}'`;
  return `'${String.fromCharCode(c)}'`;
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

class Syntax extends Error {}
const invalid = (c: number, context: string) => new Syntax(`invalid character ${quoteChar(c)} ${context}`);

/** Go's json.Valid error for `data`, or undefined when Go would accept it. */
export function goJsonSyntaxError(data: Uint8Array): string | undefined {
  const n = data.length;
  let i = 0;
  const end = () => new Syntax('unexpected end of JSON input');
  const skipSpace = () => {
    while (i < n && isSpace(data[i])) i++;
  };
  const literal = (word: string) => {
    // The first letter is already known; each next one must match.
    for (let k = 1; k < word.length; k++, i++) {
      if (i + 1 >= n) {
        i++;
        throw end();
      }
      const c = data[i + 1];
      if (c !== word.charCodeAt(k)) throw invalid(c, `in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
    }
    i++;
  };
  const string = () => {
    i++; // the opening quote
    for (;;) {
      if (i >= n) throw end();
      const c = data[i];
      if (c === 0x22) {
        i++;
        return;
      }
      if (c === 0x5c) {
        i++;
        if (i >= n) throw end();
        const e = data[i];
        if (e === 0x75) {
          for (let k = 0; k < 4; k++) {
            i++;
            if (i >= n) throw end();
            if (!isHex(data[i])) throw invalid(data[i], 'in \\u hexadecimal character escape');
          }
        } else if (!'"\\/bfnrt'.includes(String.fromCharCode(e))) throw invalid(e, 'in string escape code');
        i++;
        continue;
      }
      if (c < 0x20) throw invalid(c, 'in string literal');
      i++;
    }
  };
  /** A number; returns with i on the first byte after it. */
  const number = () => {
    if (data[i] === 0x2d) {
      i++;
      if (i >= n) throw end();
      if (!isDigit(data[i])) throw invalid(data[i], 'in numeric literal');
    }
    if (data[i] === 0x30) i++;
    else while (i < n && isDigit(data[i])) i++;
    if (i < n && data[i] === 0x2e) {
      i++;
      if (i >= n) throw end();
      if (!isDigit(data[i])) throw invalid(data[i], 'after decimal point in numeric literal');
      while (i < n && isDigit(data[i])) i++;
    }
    if (i < n && (data[i] === 0x65 || data[i] === 0x45)) {
      i++;
      if (i < n && (data[i] === 0x2b || data[i] === 0x2d)) i++;
      if (i >= n) throw end();
      if (!isDigit(data[i])) throw invalid(data[i], 'in exponent of numeric literal');
      while (i < n && isDigit(data[i])) i++;
    }
  };
  // Go's scanner: an explicit stack of open containers and the state between tokens.
  const stack: number[] = [];
  type State = 'value' | 'keyOrEnd' | 'key' | 'colon' | 'valueOrEnd' | 'afterValue';
  let state: State = 'value';
  const open = (c: number) => {
    stack.push(c);
    if (stack.length > MAX_NESTING) throw invalid(c, 'exceeded max depth');
    i++;
  };
  try {
    for (;;) {
      skipSpace();
      if (state === 'afterValue' && stack.length === 0) break;
      if (i >= n) throw end();
      const c = data[i];
      // Right after an opener, the closer ends it; anything else starts the first element or key.
      if ((state === 'valueOrEnd' && c === 0x5d) || (state === 'keyOrEnd' && c === 0x7d)) {
        stack.pop();
        i++;
        state = 'afterValue';
        continue;
      }
      if (state === 'valueOrEnd') state = 'value';
      if (state === 'keyOrEnd') state = 'key';
      switch (state) {
        case 'value':
          if (c === 0x7b) {
            open(c);
            state = 'keyOrEnd';
          } else if (c === 0x5b) {
            open(c);
            state = 'valueOrEnd';
          } else {
            if (c === 0x22) string();
            else if (c === 0x2d || isDigit(c)) number();
            else if (c === 0x74) literal('true');
            else if (c === 0x66) literal('false');
            else if (c === 0x6e) literal('null');
            else throw invalid(c, 'looking for beginning of value');
            state = 'afterValue';
          }
          break;
        case 'key':
          if (c !== 0x22) throw invalid(c, 'looking for beginning of object key string');
          string();
          state = 'colon';
          break;
        case 'colon':
          if (c !== 0x3a) throw invalid(c, 'after object key');
          i++;
          state = 'value';
          break;
        case 'afterValue': {
          const top = stack[stack.length - 1];
          if (c === 0x2c) {
            i++;
            state = top === 0x7b ? 'key' : 'value';
          } else if ((top === 0x7b && c === 0x7d) || (top === 0x5b && c === 0x5d)) {
            stack.pop();
            i++;
          } else throw invalid(c, top === 0x7b ? 'after object key:value pair' : 'after array element');
          break;
        }
      }
    }
    if (i < n) throw invalid(data[i], 'after top-level value');
    return undefined;
  } catch (err) {
    if (err instanceof Syntax) return err.message;
    throw err;
  }
}
