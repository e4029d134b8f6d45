// printf as busybox prints it: %s %b %c %d %i %u %o %x %X %e %f %g %%, flags,
// width and precision (also `*`), backslash escapes in the format, and the
// format reused until every argument is consumed.

/** The output of `printf FORMAT ARGS...`, its error text and status. */
export function formatPrintf(format: string, args: string[]): { out: string; err: string; status: number } {
  let out = '';
  let err = '';
  let status = 0;
  let k = 0;
  const next = () => args[k++];
  const toNum = (s: string | undefined, float: boolean): number => {
    if (s === undefined || s === '') return 0;
    if (/^['"]./.test(s)) return s.charCodeAt(1);
    const v = float ? Number(s) : /^[-+]?0[xX][0-9a-fA-F]+$/.test(s) ? parseInt(s, 16) : Number(s);
    if (Number.isNaN(v) || (!float && !/^\s*[-+]?(\d+|0[xX][0-9a-fA-F]+)\s*$/.test(s))) {
      err += `printf: invalid number '${s}'\n`;
      status = 1;
      const lead = /^[-+]?\d+/.exec(s);
      return lead ? Number(lead[0]) : 0;
    }
    return float ? v : Math.trunc(v);
  };
  do {
    const startK = k;
    const re = /%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([a-zA-Z%])|\\(0[0-7]{0,3}|x[0-9a-fA-F]{1,2}|[abefnrtv\\"c])|[^%\\]+|[%\\]/g;
    let m: RegExpExecArray | null;
    let stop = false;
    while ((m = re.exec(format)) !== null) {
      if (m[5] !== undefined) {
        if (m[5] === 'c') {
          stop = true;
          break;
        }
        out += m[5] === '"' ? '"' : unescapeC(`\\${m[5]}`);
        continue;
      }
      if (m[4] === undefined) {
        out += m[0];
        continue;
      }
      const [, flags, w, p, conv] = m;
      if (conv === '%') {
        out += '%';
        continue;
      }
      const width = w === '*' ? Number(next() ?? 0) : w ? Number(w) : 0;
      const prec = p === '*' ? Number(next() ?? 0) : p !== undefined ? Number(p) : undefined;
      const arg = next();
      let s: string;
      switch (conv) {
        case 's':
          s = arg ?? '';
          if (prec !== undefined) s = s.slice(0, prec);
          break;
        case 'b': {
          s = unescapeC(arg ?? '');
          const cut = s.indexOf('\\c');
          if (cut >= 0) {
            s = s.slice(0, cut);
            stop = true;
          }
          break;
        }
        case 'c':
          s = (arg ?? '').slice(0, 1);
          break;
        case 'd':
        case 'i':
        case 'u': {
          const v = toNum(arg, false);
          s = String(Math.abs(v));
          if (prec !== undefined) s = s.padStart(prec, '0');
          s = (v < 0 ? '-' : flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '') + s;
          break;
        }
        case 'o':
        case 'x':
        case 'X': {
          const v = toNum(arg, false);
          s = (v >>> 0).toString(conv === 'o' ? 8 : 16);
          if (conv === 'X') s = s.toUpperCase();
          if (flags.includes('#') && v !== 0) s = (conv === 'o' ? '0' : conv === 'x' ? '0x' : '0X') + s;
          break;
        }
        case 'f':
        case 'F':
        case 'e':
        case 'E':
        case 'g':
        case 'G': {
          const v = toNum(arg, true);
          const pr = prec ?? 6;
          if (conv === 'f' || conv === 'F') s = v.toFixed(pr);
          else if (conv === 'e' || conv === 'E') s = v.toExponential(pr).replace(/e([+-])(\d)$/, 'e$10$2');
          else s = String(Number(v.toPrecision(pr || 1)));
          if (conv === 'E' || conv === 'G') s = s.toUpperCase();
          if (v >= 0 && flags.includes('+')) s = '+' + s;
          break;
        }
        default:
          err += `printf: %${conv}: invalid format\n`;
          return { out, err, status: 1 };
      }
      if (s.length < width) {
        if (flags.includes('-')) s = s.padEnd(width);
        else if (flags.includes('0') && /[diuoxXfFeEgG]/.test(conv)) {
          const sign = /^[-+ ]/.test(s) ? s[0] : '';
          s = sign + s.slice(sign.length).padStart(width - sign.length, '0');
        } else s = s.padStart(width);
      }
      out += s;
    }
    if (stop || k === startK) break;
  } while (k < args.length);
  return { out, err, status };
}

/** Backslash escapes of echo -e and printf %b. */
export function unescapeC(s: string): string {
  return s.replace(/\\(0[0-7]{0,3}|x[0-9a-fA-F]{1,2}|[abefnrtv\\])/g, (_m, e: string) => {
    if (e[0] === '0') return String.fromCharCode(parseInt(e.slice(1) || '0', 8));
    if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    return ({ a: '\x07', b: '\b', e: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' } as Record<string, string>)[e] ?? e;
  });
}
