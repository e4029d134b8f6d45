// The perl of the perl image, for what Job labs run with it: the Kubernetes
// docs' `perl -Mbignum=bpi -wle 'print bpi(2000)'` (pi to 2000 digits,
// computed), and print of a quoted string or a number. Other scripts are
// beyond the simulation and say so on stderr.

/** pi to `digits` significant digits, rounded as Math::BigFloat's bpi() (Machin's formula on BigInt). */
export function bpi(digits: number): string {
  const guard = 10;
  const scale = 10n ** BigInt(digits + guard);
  // arctan(1/x) * scale by its Taylor series.
  const arctanInv = (x: bigint): bigint => {
    let sum = 0n;
    let term = scale / x;
    const x2 = x * x;
    for (let k = 0n; term !== 0n; k++) {
      sum += (k % 2n === 0n ? 1n : -1n) * (term / (2n * k + 1n));
      term /= x2;
    }
    return sum;
  };
  const pi = 16n * arctanInv(5n) - 4n * arctanInv(239n);
  // pi has one integer digit: keep digits-1 decimals, rounding half up on the guard digits.
  const drop = 10n ** BigInt(guard + 1);
  const rounded = (pi + drop / 2n) / drop;
  const s = rounded.toString();
  return digits <= 1 ? s : `${s[0]}.${s.slice(1)}`;
}

/** Runs `perl ARGS`; returns stdout, stderr and the exit code. */
export function runPerl(args: string[]): { out: string; err: string; exitCode: number } {
  let script: string | undefined;
  let newline = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-v' || a === '--version')
      return {
        out: '\nThis is perl 5, version 40, subversion 2 (v5.40.2) built for x86_64-linux-gnu-thread-multi\n',
        err: '',
        exitCode: 0,
      };
    if (/^-[a-zA-Z]*e$/.test(a) || /^-[a-zA-Z]*E$/.test(a)) {
      newline ||= a.includes('l');
      script = args[++i];
    } else if (/^-[wlsTW]+$/.test(a)) newline ||= a.includes('l');
    else if (a.startsWith('-M') || a.startsWith('-m')) continue;
    else if (!a.startsWith('-')) break;
  }
  if (script === undefined) return { out: '', err: '', exitCode: 0 };
  let out = '';
  for (const stmt of script
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (!/^print\b/.test(stmt)) return { out, err: `ksim: this perl runs print statements only: ${stmt}\n`, exitCode: 255 };
    let e = stmt.slice(5).trim();
    if (e.startsWith('(') && e.endsWith(')')) e = e.slice(1, -1).trim();
    const pi = /^bpi\((\d+)\)$/.exec(e);
    const str = /^"(.*)"$/.exec(e) ?? /^'(.*)'$/.exec(e);
    if (pi) out += bpi(Number(pi[1]));
    else if (str) out += str[1].replace(/\\n/g, '\n').replace(/\\t/g, '\t');
    else if (/^-?\d+(\.\d+)?$/.test(e)) out += e;
    else return { out, err: `ksim: this perl cannot evaluate: ${e}\n`, exitCode: 255 };
    if (newline) out += '\n';
  }
  return { out, err: '', exitCode: 0 };
}
