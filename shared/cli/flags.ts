// Command-line flags for every ksim command: `--name value`, `--name=value`
// and bare boolean `--name`, with defaults, types and a clear error for
// unknown flags (no flag parser dependency needed for this little).

/** A flag's declaration: its type and default. */
export type FlagSpec = Record<string, { type: 'string' | 'number' | 'boolean'; default?: string | number | boolean; help: string }>;

/** The parsed values, keyed by flag name. */
export type FlagValues<S extends FlagSpec> = {
  [K in keyof S]: S[K]['type'] extends 'number' ? number : S[K]['type'] extends 'boolean' ? boolean : string;
};

/** An unknown flag or a bad value. */
export class FlagError extends Error {}

/** Parses `argv` (without the command names) against `spec`. */
export function parseFlags<S extends FlagSpec>(argv: string[], spec: S): FlagValues<S> {
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(spec)) out[name] = s.default ?? (s.type === 'boolean' ? false : s.type === 'number' ? 0 : '');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new FlagError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const s = spec[name];
    if (!s) throw new FlagError(`unknown flag --${name}`);
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (s.type === 'boolean') value = 'true';
    else {
      if (i + 1 >= argv.length) throw new FlagError(`flag --${name} needs a value`);
      value = argv[++i];
    }
    if (s.type === 'number') {
      const n = Number(value);
      if (value === '' || !Number.isFinite(n)) throw new FlagError(`flag --${name}: "${value}" is not a number`);
      out[name] = n;
    } else if (s.type === 'boolean') {
      if (value !== 'true' && value !== 'false') throw new FlagError(`flag --${name}: "${value}" is not true or false`);
      out[name] = value === 'true';
    } else out[name] = value;
  }
  return out as FlagValues<S>;
}

/** One line per flag, for --help. */
export function flagHelp(spec: FlagSpec): string {
  return Object.entries(spec)
    .map(
      ([name, s]) =>
        `  --${name}${s.type === 'boolean' ? '' : ' ' + s.type.toUpperCase()}  ${s.help}${s.default !== undefined ? ` (default ${s.default})` : ''}`,
    )
    .join('\n');
}

/**
 * Parses the flags of `ksim <command>` for a CLI entry point: prints the
 * error and the flag list and exits 2 on a bad flag; prints usage and returns
 * undefined for --help (the spec must declare a boolean `help`).
 */
export function parseCommandFlags<S extends FlagSpec>(command: string, argv: string[], spec: S): FlagValues<S> | undefined {
  let flags: FlagValues<S>;
  try {
    flags = parseFlags(argv, spec);
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    process.stderr.write(`ksim ${command}: ${err.message}\n${flagHelp(spec)}\n`);
    process.exit(2);
  }
  if ((flags as Record<string, unknown>).help) {
    process.stdout.write(`Usage: ksim ${command} [flags]\n${flagHelp(spec)}\n`);
    return undefined;
  }
  return flags;
}
