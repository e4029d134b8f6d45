// `ksim chaos ARGS` as a ChaosRequest (the syntax is in
// shared/chaos/protocol.ts's opening comment and in `ksim chaos --help`),
// `list`, or `run FILE ...` (handed to the experiment runner untouched).
// Everything is checked here, so a bad command line fails with exit 2 and a
// message naming the flag or argument before the cluster is asked anything.
import path from 'node:path';
import { SELECTION_MODES, type ChaosRequest, type RequestMatch, type SelectionMode } from '../../shared/chaos/protocol.ts';
import { parseLabelSelector } from '../../shared/labels/parse-label-selector.ts';
import {
  CHAOS_FLAGS,
  ChaosUsageError,
  durationMs,
  integerValue,
  numberValue,
  positiveDurationMs,
  splitArgs,
  type ChaosFlag,
  type SplitArgs,
} from './args.ts';
import { componentTarget, namespaceName, nodeTarget, podTarget } from './targets.ts';

export { ChaosUsageError } from './args.ts';

/** What the command line asks for: one of request, list, run or help. */
export interface ParsedChaosArgs {
  request?: ChaosRequest;
  list?: true;
  /** `ksim chaos run FILE ...`: argv is every argument after `run`, untouched. */
  run?: { file: string; argv: string[] };
  help?: true;
  /** Absolute: --data-dir, else $KSIM_DATA_DIR, else .ksim. */
  dataDir: string;
}

const PROCESS_VERBS = ['kill', 'stop', 'start', 'pause', 'resume', 'restart'] as const;
const NODE_VERBS = ['partition', 'heal', 'fail'] as const;
const MODES: readonly SelectionMode[] = SELECTION_MODES;
const ERROR_CODES = [500, 429, 409, 504];
const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const PRESSURES = ['memory', 'disk', 'pid'] as const;

const FAULT: ChaosFlag[] = ['duration', 'seed'];
const APISERVER: ChaosFlag[] = [
  ...FAULT,
  'latency',
  'error-rate',
  'error-code',
  'drop-watches',
  'watch-delay',
  'compact',
  'clear',
  'user',
  'user-agent',
  'verb',
  'resource',
];
const POD_SELECTION: ChaosFlag[] = ['namespace', 'all-namespaces', 'selector', 'mode', 'value'];
/** Undoing a fault has no duration of its own. */
const UNDO = new Set(['start', 'resume', 'heal']);

/** Refuses any flag not in `allowed` (besides --data-dir and --help). */
function only(a: SplitArgs, allowed: ChaosFlag[], context: string): void {
  for (const name of a.flags.keys()) {
    if (name === 'data-dir' || name === 'help' || allowed.includes(name)) continue;
    throw new ChaosUsageError(`flag ${a.spelled.get(name)} is not valid for ${context}`);
  }
}

/** Refuses positional arguments beyond the first `n`. */
function atMost(a: SplitArgs, n: number, context: string): void {
  if (a.positional.length > n) throw new ChaosUsageError(`${context}: unexpected argument "${a.positional[n]}"`);
}

const flag = (a: SplitArgs, name: ChaosFlag): string | undefined => a.flags.get(name);
const on = (a: SplitArgs, name: ChaosFlag): boolean => a.flags.get(name) === 'true';

/** --duration and --seed, common to every fault. */
function faultFields(a: SplitArgs): Pick<ChaosRequest, 'durationMs' | 'seed'> {
  const out: Pick<ChaosRequest, 'durationMs' | 'seed'> = {};
  const d = flag(a, 'duration');
  if (d !== undefined) out.durationMs = positiveDurationMs(d, 'flag --duration');
  const s = flag(a, 'seed');
  if (s !== undefined) out.seed = integerValue(s, 'flag --seed');
  return out;
}

/** `ksim chaos apiserver ...`. */
function apiserverRequest(a: SplitArgs): ChaosRequest {
  only(a, APISERVER, 'ksim chaos apiserver');
  atMost(a, 0, 'ksim chaos apiserver');
  const spec: NonNullable<ChaosRequest['apiserver']> = {};
  const latency = flag(a, 'latency');
  if (latency !== undefined) {
    const [l, j, extra] = latency.split(',');
    if (extra !== undefined) throw new ChaosUsageError(`flag --latency: "${latency}" is LATENCY or LATENCY,JITTER`);
    spec.latencyMs = durationMs(l, 'flag --latency');
    if (spec.latencyMs < 0) throw new ChaosUsageError(`flag --latency: "${l}" must not be negative`);
    if (j !== undefined) {
      spec.jitterMs = durationMs(j, 'flag --latency (jitter)');
      if (spec.jitterMs < 0) throw new ChaosUsageError(`flag --latency: jitter "${j}" must not be negative`);
    }
  }
  const rate = flag(a, 'error-rate');
  if (rate !== undefined) {
    spec.errorRate = numberValue(rate, 'flag --error-rate');
    if (spec.errorRate < 0 || spec.errorRate > 1) throw new ChaosUsageError(`flag --error-rate: ${rate} is not in [0,1]`);
  }
  const code = flag(a, 'error-code');
  if (code !== undefined) {
    if (rate === undefined) throw new ChaosUsageError('flag --error-code needs --error-rate');
    const n = Number(code);
    if (!ERROR_CODES.includes(n)) throw new ChaosUsageError(`flag --error-code: ${code} is not one of ${ERROR_CODES.join(', ')}`);
    spec.errorCode = n;
  }
  const delay = flag(a, 'watch-delay');
  if (delay !== undefined) spec.watchDelayMs = positiveDurationMs(delay, 'flag --watch-delay');
  if (on(a, 'drop-watches')) spec.dropWatches = true;
  if (on(a, 'compact')) spec.compact = true;
  const match: RequestMatch = {};
  const ua = flag(a, 'user-agent');
  if (ua !== undefined) match.userAgent = nonEmpty(ua, 'flag --user-agent');
  const user = flag(a, 'user');
  if (user !== undefined) match.user = nonEmpty(user, 'flag --user');
  const verb = flag(a, 'verb');
  if (verb !== undefined) {
    if (!VERBS.includes(verb)) throw new ChaosUsageError(`flag --verb: "${verb}" is not one of ${VERBS.join(', ')}`);
    match.verb = verb;
  }
  const resource = flag(a, 'resource');
  if (resource !== undefined) match.resource = nonEmpty(resource, 'flag --resource');
  if (on(a, 'clear')) {
    const other = [...a.flags.keys()].find((f) => f !== 'clear' && f !== 'data-dir' && f !== 'help');
    if (other) throw new ChaosUsageError(`flag --clear removes every API server fault: it takes no ${a.spelled.get(other)}`);
    return { action: 'apiserver', apiserver: { clear: true } };
  }
  if (Object.keys(spec).length === 0) {
    throw new ChaosUsageError(
      'ksim chaos apiserver needs a fault: --latency, --error-rate, --watch-delay, --drop-watches, --compact or --clear',
    );
  }
  if (Object.keys(match).length) spec.match = match;
  const fields = faultFields(a);
  if (fields.seed !== undefined) spec.seed = fields.seed;
  return { action: 'apiserver', ...fields, apiserver: spec };
}

function nonEmpty(v: string, what: string): string {
  if (v === '') throw new ChaosUsageError(`${what} must not be empty`);
  return v;
}

/** `ksim chaos kill|delete pod/NS/NAME | pods ...`. */
function podRequest(a: SplitArgs, verb: 'kill' | 'delete', target: string): ChaosRequest {
  const action = verb === 'kill' ? 'kill-pod' : 'delete-pod';
  const context = `ksim chaos ${verb} ${target === 'pods' ? 'pods' : 'pod/NS/NAME'}`;
  const containerFlag: ChaosFlag[] = verb === 'kill' ? ['container'] : [];
  atMost(a, 1, context);
  const container = flag(a, 'container');
  if (target !== 'pods') {
    only(a, [...FAULT, ...containerFlag], context);
    const req: ChaosRequest = { action, target: podTarget(target, verb), ...faultFields(a) };
    if (container !== undefined) req.pods = { container: nonEmpty(container, 'flag --container') };
    return req;
  }
  only(a, [...FAULT, ...POD_SELECTION, ...containerFlag], context);
  const pods: NonNullable<ChaosRequest['pods']> = {};
  const ns = flag(a, 'namespace');
  if (flag(a, 'all-namespaces') === 'true') {
    if (ns !== undefined)
      throw new ChaosUsageError(`flag ${a.spelled.get('all-namespaces')}: cannot be used with ${a.spelled.get('namespace')}`);
    pods.allNamespaces = true;
  } else pods.namespace = ns === undefined ? 'default' : namespaceName(ns, `flag ${a.spelled.get('namespace')}`);
  const selector = flag(a, 'selector');
  if (selector !== undefined) {
    try {
      parseLabelSelector(selector);
    } catch (err) {
      throw new ChaosUsageError(`flag ${a.spelled.get('selector')}: ${(err as Error).message}`);
    }
    pods.labelSelector = selector;
  }
  const mode = (flag(a, 'mode') ?? 'one') as SelectionMode;
  if (!MODES.includes(mode)) throw new ChaosUsageError(`flag --mode: "${mode}" is not one of ${MODES.join(', ')}`);
  pods.mode = mode;
  const value = flag(a, 'value');
  if (mode === 'fixed' || mode === 'fixed-percent' || mode === 'random-max-percent') {
    if (value === undefined) throw new ChaosUsageError(`flag --mode ${mode} needs --value`);
    pods.value = integerValue(value, 'flag --value');
    if (pods.value <= 0) throw new ChaosUsageError(`flag --value: ${value} must be above 0`);
    if (mode !== 'fixed' && pods.value > 100) throw new ChaosUsageError(`flag --value: ${value} is not a percentage in (0,100]`);
  } else if (value !== undefined) throw new ChaosUsageError(`flag --value is only for --mode fixed, fixed-percent or random-max-percent`);
  if (container !== undefined) pods.container = nonEmpty(container, 'flag --container');
  return { action, ...faultFields(a), pods };
}

/** `ksim chaos watch COMPONENT --delay D | --hold | --drop`. */
function watchRequest(a: SplitArgs): ChaosRequest {
  only(a, [...FAULT, 'delay', 'hold', 'drop'], 'ksim chaos watch');
  atMost(a, 1, 'ksim chaos watch');
  const target = componentTarget(a.positional[0], 'watch');
  const given = (['delay', 'hold', 'drop'] as const).filter((f) => a.flags.has(f) && (f === 'delay' || on(a, f)));
  if (given.length !== 1) throw new ChaosUsageError('ksim chaos watch needs exactly one of --delay DURATION, --hold, --drop');
  const watch: NonNullable<ChaosRequest['watch']> =
    given[0] === 'delay' ? { mode: 'delay', delayMs: positiveDurationMs(flag(a, 'delay')!, 'flag --delay') } : { mode: given[0] };
  return { action: 'watch', target, ...faultFields(a), watch };
}

/** The request of one fault verb. */
function faultRequest(verb: string, a: SplitArgs): ChaosRequest {
  const target = a.positional[0];
  if ((verb === 'kill' || verb === 'delete') && target !== undefined && (target === 'pods' || target.startsWith('pod/'))) {
    return podRequest(a, verb, target);
  }
  if (verb === 'delete') {
    throw new ChaosUsageError(
      target === undefined ? 'ksim chaos delete needs pod/NS/NAME or pods' : `ksim chaos delete: "${target}" is not pod/NS/NAME or pods`,
    );
  }
  if ((PROCESS_VERBS as readonly string[]).includes(verb)) {
    only(a, UNDO.has(verb) ? ['seed'] : FAULT, `ksim chaos ${verb}`);
    atMost(a, 1, `ksim chaos ${verb}`);
    return { action: verb as ChaosRequest['action'], target: componentTarget(target, verb), ...faultFields(a) };
  }
  if ((NODE_VERBS as readonly string[]).includes(verb)) {
    only(a, UNDO.has(verb) ? ['seed'] : FAULT, `ksim chaos ${verb}`);
    atMost(a, 1, `ksim chaos ${verb}`);
    return { action: verb as ChaosRequest['action'], target: nodeTarget(target, verb), ...faultFields(a) };
  }
  switch (verb) {
    case 'pressure': {
      only(a, FAULT, 'ksim chaos pressure');
      atMost(a, 2, 'ksim chaos pressure');
      const node = nodeTarget(target, verb);
      const kind = a.positional[1];
      if (!(PRESSURES as readonly string[]).includes(kind ?? '')) {
        throw new ChaosUsageError(
          kind === undefined
            ? 'ksim chaos pressure needs memory, disk or pid'
            : `ksim chaos pressure: "${kind}" is not memory, disk or pid`,
        );
      }
      return { action: 'pressure', target: node, pressure: kind as (typeof PRESSURES)[number], ...faultFields(a) };
    }
    case 'apiserver':
      return apiserverRequest(a);
    case 'watch':
      return watchRequest(a);
    case 'skew': {
      only(a, FAULT, 'ksim chaos skew');
      atMost(a, 2, 'ksim chaos skew');
      const component = componentTarget(target, verb);
      const offset = a.positional[1];
      if (offset === undefined) throw new ChaosUsageError('ksim chaos skew needs an offset such as +30s or -5s');
      return { action: 'skew', target: component, offsetMs: durationMs(offset, 'ksim chaos skew offset'), ...faultFields(a) };
    }
    case 'recover': {
      only(a, [], 'ksim chaos recover');
      atMost(a, 1, 'ksim chaos recover');
      return target === undefined ? { action: 'recover' } : { action: 'recover', faultId: target };
    }
    default:
      throw new ChaosUsageError(`unknown chaos action "${verb}" (see ksim chaos --help)`);
  }
}

/** The data dir of `--data-dir D` (or --data-dir=D) in argv, else $KSIM_DATA_DIR, else .ksim; absolute. */
export function dataDirOf(flagValue: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(flagValue || env.KSIM_DATA_DIR || '.ksim');
}

/** `run FILE ...`: the file is its first argument; its --data-dir (if any) is read without taking it out. */
function runArgs(rest: string[], env: NodeJS.ProcessEnv): ParsedChaosArgs {
  let dir: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--data-dir') dir = rest[i + 1];
    else if (rest[i].startsWith('--data-dir=')) dir = rest[i].slice('--data-dir='.length);
  }
  const file = rest.find((x) => !x.startsWith('-'));
  const help = rest.includes('--help') || rest.includes('-h');
  if (file === undefined && !help) throw new ChaosUsageError('ksim chaos run needs an experiment file: ksim chaos run FILE.yaml');
  return { run: { file: file ?? '', argv: [...rest] }, dataDir: dataDirOf(dir, env) };
}

/** The index of the first positional argument (the action), skipping flags and their values. */
function firstPositional(argv: string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    if (!x.startsWith('-') || /^[+-]\d/.test(x)) return i;
    const name = x.startsWith('--') ? x.slice(2) : (SHORT_WITH_VALUE.get(x) ?? '');
    if (!x.includes('=') && (CHAOS_FLAGS as Record<string, { value: boolean }>)[name]?.value) i++;
  }
  return -1;
}

const SHORT_WITH_VALUE = new Map([
  ['-n', 'namespace'],
  ['-l', 'selector'],
]);

/** Parses `ksim chaos` argv (without "chaos"); throws a ChaosUsageError naming what is wrong. */
export function parseChaosArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ParsedChaosArgs {
  const first = firstPositional(argv);
  // Flags may come before the verb (ksim chaos --data-dir D kill scheduler); `run`'s own are left to it.
  if (first >= 0 && argv[first] === 'run') {
    const before = splitArgs(argv.slice(0, first));
    only(before, [], 'ksim chaos');
    const parsed = runArgs(argv.slice(first + 1), env);
    if (before.flags.has('data-dir')) parsed.dataDir = dataDirOf(before.flags.get('data-dir'), env);
    return parsed;
  }
  const a = splitArgs(argv);
  const dataDirFlag = a.flags.get('data-dir');
  if (dataDirFlag === '') throw new ChaosUsageError('flag --data-dir must not be empty');
  const dataDir = dataDirOf(dataDirFlag, env);
  if (on(a, 'help') || a.positional[0] === 'help') return { help: true, dataDir };
  const verb = a.positional.shift();
  if (verb === undefined) throw new ChaosUsageError('ksim chaos needs an action (see ksim chaos --help)');
  if (verb === 'list') {
    only(a, [], 'ksim chaos list');
    atMost(a, 0, 'ksim chaos list');
    return { list: true, dataDir };
  }
  return { request: faultRequest(verb, a), dataDir };
}
