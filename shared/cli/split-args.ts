// A command line split into positional arguments and flags, as kubectl
// takes them: `--name value`, `--name=value`, bare booleans, and one-letter
// forms (`-n NS`, `-nNS`, `-n=NS`). A signed number or duration such as -5s
// is an argument, not a flag. Used by the ksim commands that take positional
// arguments (chaos, history); the others use flags.ts.

/** A flag table: whether each flag takes a value, and its one-letter form. */
export type FlagTable = Record<string, { value: boolean; short?: string }>;

/** argv split: positional arguments in order, flags by name (a boolean's value is 'true' or 'false'). */
export interface SplitArgs<F extends string> {
  positional: string[];
  flags: Map<F, string>;
  /** How each flag was spelled, for messages (-n or --namespace). */
  spelled: Map<F, string>;
}

/** Splits argv against `table`; an unknown flag, a missing value or a repeated flag throws `usage(message)`. */
export function splitArgs<T extends FlagTable>(argv: string[], table: T, usage: (message: string) => Error): SplitArgs<keyof T & string> {
  type F = keyof T & string;
  const short = new Map<string, F>(Object.entries(table).flatMap(([name, f]) => (f.short ? [[f.short, name as F]] : [])));
  const out: SplitArgs<F> = { positional: [], flags: new Map(), spelled: new Map() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('-') || arg === '-' || /^[+-]\d/.test(arg)) {
      out.positional.push(arg);
      continue;
    }
    let name: F | undefined;
    let spelled: string;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const raw = arg.slice(2, eq < 0 ? undefined : eq);
      spelled = `--${raw}`;
      if (eq >= 0) inline = arg.slice(eq + 1);
      if (Object.hasOwn(table, raw)) name = raw;
    } else {
      spelled = arg.slice(0, 2);
      name = short.get(arg[1]);
      if (arg.length > 2) inline = arg.slice(arg[2] === '=' ? 3 : 2);
    }
    if (!name) throw usage(`unknown flag ${spelled}`);
    if (out.flags.has(name)) throw usage(`flag ${spelled} given twice`);
    let value: string;
    if (!table[name].value) {
      value = inline ?? 'true';
      if (value !== 'true' && value !== 'false') throw usage(`flag ${spelled}: "${value}" is not true or false`);
    } else if (inline !== undefined) value = inline;
    else {
      if (i + 1 >= argv.length) throw usage(`flag ${spelled} needs a value`);
      value = argv[++i];
    }
    out.flags.set(name, value);
    out.spelled.set(name, spelled);
  }
  return out;
}
