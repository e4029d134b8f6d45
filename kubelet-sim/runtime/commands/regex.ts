// POSIX regular expressions (basic for grep and sed, extended for grep -E,
// sed -E and awk) translated to JavaScript ones: BRE's \( \) \{ \} \| \+ \?,
// bracket classes such as [[:digit:]], and literal ( ) { } | + ? in a BRE.

const CLASSES: Record<string, string> = {
  alpha: 'A-Za-z',
  digit: '0-9',
  alnum: 'A-Za-z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  space: ' \\t\\n\\r\\f\\v',
  blank: ' \\t',
  punct: '!-\\/:-@\\[-`{-~',
  xdigit: '0-9A-Fa-f',
  print: ' -~',
  graph: '!-~',
  cntrl: '\\x00-\\x1f\\x7f',
};

/** The JavaScript source of a POSIX regex. */
export function posixRegex(re: string, extended: boolean): string {
  let out = '';
  for (let i = 0; i < re.length; i++) {
    const c = re[i];
    if (c === '[') {
      // A bracket expression, copied with its POSIX classes expanded.
      let j = i + 1;
      let cls = '';
      if (re[j] === '^') {
        cls += '^';
        j++;
      }
      if (re[j] === ']') {
        cls += '\\]';
        j++;
      }
      while (j < re.length && re[j] !== ']') {
        const m = /^\[:([a-z]+):\]/.exec(re.slice(j));
        if (m) {
          cls += CLASSES[m[1]] ?? '';
          j += m[0].length;
          continue;
        }
        cls += re[j] === '\\' ? '\\\\' : re[j];
        j++;
      }
      if (j >= re.length) {
        out += '\\[';
        continue;
      }
      out += `[${cls}]`;
      i = j;
      continue;
    }
    if (c === '\\') {
      const n = re[i + 1];
      i++;
      if (n === undefined) out += '\\\\';
      else if (!extended && '(){}|+?'.includes(n)) out += n;
      else if ('<>'.includes(n)) out += '\\b';
      else if (/[1-9wWsSbBdDntr.*[\]^$\\/]/.test(n)) out += `\\${n}`;
      else out += n.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
      continue;
    }
    if (!extended && '(){}|+?'.includes(c)) {
      out += `\\${c}`;
      continue;
    }
    // A * at the start of a BRE (or after \( or ^) is literal.
    if (c === '*' && !extended && (out === '' || out.endsWith('(') || out === '^')) {
      out += '\\*';
      continue;
    }
    out += c === '/' ? '\\/' : c;
  }
  return out;
}

/** A compiled POSIX regex, or the error grep/sed print for a bad one. */
export function compile(re: string, extended: boolean, flags = ''): RegExp | { error: string } {
  try {
    return new RegExp(posixRegex(re, extended), flags);
  } catch {
    return { error: `bad regex '${re}': Invalid regular expression` };
  }
}
