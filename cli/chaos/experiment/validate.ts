// Reads an experiment file (spec.ts describes the format) into an
// Experiment, or every error in it, each naming the field's path:
// `spec.steps[2].fault.action: unknown action "kil"`. Nothing here touches a
// cluster: a file is judged on its own.
import { parseAllDocuments } from 'yaml';
import { CHAOS_ACTIONS, SELECTION_MODES, type ChaosAction, type ChaosRequest } from '../../../shared/chaos/protocol.ts';
import { parseDuration } from './duration.ts';
import { compileCondition } from './cel.ts';
import { isComponentTarget, isDNSLabel, isNodeTarget, isPodTarget } from '../targets.ts';
import {
  PROBE_MODES,
  type Check,
  type Condition,
  type Experiment,
  type Invariant,
  type Manifest,
  type ProbeMode,
  type Step,
} from './spec.ts';

/** The file could not be read as an experiment. */
export class ExperimentError extends Error {
  constructor(readonly errors: string[]) {
    super(errors.join('\n'));
  }
}

export interface LoadOptions {
  /** Divides fault durations and waits (cluster time) by this. */
  speed?: number;
}

const ACTIONS: readonly ChaosAction[] = CHAOS_ACTIONS;
const MODES: readonly string[] = SELECTION_MODES;
const COMPONENT_ACTIONS = new Set(['kill', 'stop', 'start', 'pause', 'resume', 'restart', 'skew', 'watch']);
const NODE_ACTIONS = new Set(['partition', 'heal', 'fail', 'pressure']);
const DEFAULT_WITHIN_MS = 60_000;
const DEFAULT_INTERVAL_MS = 1000;
const DEFAULT_TIMEOUT_MS = 600_000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const quote = (v: unknown): string => JSON.stringify(v) ?? String(v);

/** Collects errors while reading; each reader returns undefined for a value it refused. */
class Reader {
  readonly errors: string[] = [];
  fail(path: string, message: string): undefined {
    this.errors.push(`${path}: ${message}`);
    return undefined;
  }
  obj(path: string, v: unknown, required = true): Obj | undefined {
    if (v === undefined || v === null) return required ? this.fail(path, 'required') : undefined;
    return isObj(v) ? v : this.fail(path, `must be a mapping, not ${quote(v)}`);
  }
  list(path: string, v: unknown): unknown[] {
    if (v === undefined || v === null) return [];
    if (Array.isArray(v)) return v;
    this.fail(path, `must be a list, not ${quote(v)}`);
    return [];
  }
  str(path: string, v: unknown, required = false): string | undefined {
    if (v === undefined || v === null) return required ? this.fail(path, 'required') : undefined;
    return typeof v === 'string' && v !== '' ? v : this.fail(path, `must be a non-empty string, not ${quote(v)}`);
  }
  num(path: string, v: unknown, opts: { min?: number; max?: number; int?: boolean } = {}): number | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v)) return this.fail(path, `must be a number, not ${quote(v)}`);
    if (opts.int && !Number.isInteger(v)) return this.fail(path, `must be a whole number, not ${v}`);
    if (opts.min !== undefined && v < opts.min) return this.fail(path, `must be at least ${opts.min}, not ${v}`);
    if (opts.max !== undefined && v > opts.max) return this.fail(path, `must be at most ${opts.max}, not ${v}`);
    return v;
  }
  bool(path: string, v: unknown): boolean | undefined {
    if (v === undefined || v === null) return undefined;
    return typeof v === 'boolean' ? v : this.fail(path, `must be true or false, not ${quote(v)}`);
  }
  duration(path: string, v: unknown, signed = false): number | undefined {
    if (v === undefined || v === null) return undefined;
    const ms = parseDuration(v, signed);
    return ms === undefined ? this.fail(path, `invalid duration ${quote(v)} (e.g. 500ms, 2s, 1m30s${signed ? ', +30s' : ''})`) : ms;
  }
  /** Refuses keys outside `known`, so a typo does not pass silently. */
  keys(path: string, o: Obj, known: readonly string[]): void {
    for (const k of Object.keys(o))
      if (!known.includes(k)) this.fail(`${path}.${k}`, `unknown field (expected one of ${known.join(', ')})`);
  }
}

/** Parses and checks `text`; throws ExperimentError listing every problem. */
export function loadExperiment(text: string, opts: LoadOptions = {}): Experiment {
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  if (list.length !== 1) throw new ExperimentError([`the file must hold one YAML document, not ${list.length}`]);
  const doc = list[0];
  if (doc.errors.length > 0) throw new ExperimentError(doc.errors.map((e) => `YAML: ${e.message}`));
  return readExperiment(doc.toJS() as unknown, opts);
}

/** Checks an already-parsed document. */
export function readExperiment(raw: unknown, opts: LoadOptions = {}): Experiment {
  const r = new Reader();
  const speed = opts.speed && opts.speed > 0 ? opts.speed : 1;
  const scaled = (ms: number | undefined): number | undefined => (ms === undefined ? undefined : ms / speed);
  const root = r.obj('(file)', raw);
  if (!root) throw new ExperimentError(r.errors);
  r.keys('', root, ['apiVersion', 'kind', 'metadata', 'spec']);
  if (root.apiVersion !== undefined && root.apiVersion !== 'ksim.dev/v1alpha1')
    r.fail('apiVersion', `must be ksim.dev/v1alpha1, not ${quote(root.apiVersion)}`);
  if (root.kind !== 'Experiment') r.fail('kind', `must be Experiment, not ${quote(root.kind)}`);
  const meta = r.obj('metadata', root.metadata) ?? {};
  const name = r.str('metadata.name', meta.name, true) ?? '';
  const description = r.str('metadata.description', meta.description);
  const spec = r.obj('spec', root.spec) ?? {};
  r.keys('spec', spec, ['seed', 'timeout', 'requires', 'objects', 'invariants', 'checks', 'steps']);
  const seed = r.num('spec.seed', spec.seed, { int: true, min: 0 }) ?? 1;
  const timeoutMs = r.duration('spec.timeout', spec.timeout) ?? DEFAULT_TIMEOUT_MS;
  const req = r.obj('spec.requires', spec.requires, false) ?? {};
  r.keys('spec.requires', req, ['controllerManagers', 'schedulers']);
  const requires = {
    controllerManagers: r.num('spec.requires.controllerManagers', req.controllerManagers, { int: true, min: 1 }),
    schedulers: r.num('spec.requires.schedulers', req.schedulers, { int: true, min: 1 }),
  };

  const manifest = (path: string, v: unknown): Manifest | undefined => {
    const o = r.obj(path, v);
    if (!o) return undefined;
    const okVersion = r.str(`${path}.apiVersion`, o.apiVersion, true);
    const okKind = r.str(`${path}.kind`, o.kind, true);
    const m = r.obj(`${path}.metadata`, o.metadata);
    const okName = m ? r.str(`${path}.metadata.name`, m.name, true) : undefined;
    if (m?.namespace !== undefined) r.str(`${path}.metadata.namespace`, m.namespace);
    return okVersion && okKind && okName ? (o as Manifest) : undefined;
  };
  const objects = r.list('spec.objects', spec.objects).flatMap((v, i) => manifest(`spec.objects[${i}]`, v) ?? []);

  const condition = (path: string, v: unknown): Condition | undefined => {
    const o = r.obj(path, v);
    if (!o) return undefined;
    r.keys(path, o, ['resource', 'namespace', 'name', 'labelSelector', 'fieldSelector', 'expr']);
    const c: Condition = {
      resource: r.str(`${path}.resource`, o.resource, true) ?? '',
      namespace: r.str(`${path}.namespace`, o.namespace),
      name: r.str(`${path}.name`, o.name),
      labelSelector: r.str(`${path}.labelSelector`, o.labelSelector),
      fieldSelector: r.str(`${path}.fieldSelector`, o.fieldSelector),
      expr: r.str(`${path}.expr`, o.expr, true) ?? '',
    };
    if (c.name && (c.labelSelector || c.fieldSelector)) r.fail(`${path}.name`, 'a get (name) takes no labelSelector or fieldSelector');
    if (c.expr) {
      const compiled = compileCondition(c.expr, c.name ? 'object' : 'objects');
      if ('error' in compiled) r.fail(`${path}.expr`, compiled.error);
    }
    return c;
  };

  const names = new Set<string>();
  const uniqueName = (path: string, v: unknown): string => {
    const n = r.str(path, v, true) ?? '';
    if (n && names.has(n)) r.fail(path, `duplicate name ${quote(n)}`);
    names.add(n);
    return n;
  };

  const checks: Check[] = r.list('spec.checks', spec.checks).flatMap((v, i): Check[] => {
    const path = `spec.checks[${i}]`;
    const o = r.obj(path, v);
    if (!o) return [];
    r.keys(path, o, ['name', 'mode', 'condition', 'within', 'interval']);
    const checkName = uniqueName(`${path}.name`, o.name);
    let mode = (o.mode ?? 'EOT') as ProbeMode;
    if (!PROBE_MODES.includes(mode)) {
      r.fail(`${path}.mode`, `unknown mode ${quote(o.mode)} (expected one of ${PROBE_MODES.join(', ')})`);
      mode = 'EOT';
    }
    const cond = condition(`${path}.condition`, o.condition);
    const withinMs = r.duration(`${path}.within`, o.within) ?? DEFAULT_WITHIN_MS;
    const intervalMs = r.duration(`${path}.interval`, o.interval) ?? DEFAULT_INTERVAL_MS;
    if (intervalMs < 50) r.fail(`${path}.interval`, 'must be at least 50ms');
    return cond ? [{ name: checkName, mode, condition: cond, withinMs, intervalMs }] : [];
  });

  const invariants: Invariant[] = r.list('spec.invariants', spec.invariants).flatMap((v, i): Invariant[] => {
    const path = `spec.invariants[${i}]`;
    const o = r.obj(path, v);
    if (!o) return [];
    const kinds = ['maxPods', 'noLostWrites', 'watchConsistent'].filter((k) => o[k] !== undefined);
    r.keys(path, o, ['name', 'maxPods', 'noLostWrites', 'watchConsistent']);
    if (kinds.length !== 1) {
      r.fail(path, `must have exactly one of maxPods, noLostWrites, watchConsistent (has ${kinds.length ? kinds.join(', ') : 'none'})`);
      return [];
    }
    const kind = kinds[0];
    const invName = uniqueName(`${path}.name`, o.name ?? kind);
    const b = r.obj(`${path}.${kind}`, o[kind]);
    if (!b) return [];
    const p = `${path}.${kind}`;
    switch (kind) {
      case 'maxPods': {
        r.keys(p, b, ['namespace', 'deployment', 'maxSurge']);
        const surge = b.maxSurge;
        if (
          surge !== undefined &&
          !(typeof surge === 'number' && Number.isInteger(surge) && surge >= 0) &&
          !(typeof surge === 'string' && /^\d+%$/.test(surge))
        )
          r.fail(`${p}.maxSurge`, `must be a whole number or a percent like 25%, not ${quote(surge)}`);
        return [
          {
            name: invName,
            kind: 'maxPods',
            maxPods: {
              namespace: r.str(`${p}.namespace`, b.namespace) ?? 'default',
              deployment: r.str(`${p}.deployment`, b.deployment, true) ?? '',
              maxSurge: surge as number | string | undefined,
            },
          },
        ];
      }
      case 'noLostWrites':
        r.keys(p, b, ['namespace', 'rate']);
        return [
          {
            name: invName,
            kind: 'noLostWrites',
            noLostWrites: {
              namespace: r.str(`${p}.namespace`, b.namespace) ?? 'default',
              rate: r.num(`${p}.rate`, b.rate, { min: 0.1, max: 500 }) ?? 10,
            },
          },
        ];
      default:
        r.keys(p, b, ['resource', 'namespace', 'labelSelector', 'within']);
        return [
          {
            name: invName,
            kind: 'watchConsistent',
            watchConsistent: {
              resource: r.str(`${p}.resource`, b.resource, true) ?? '',
              namespace: r.str(`${p}.namespace`, b.namespace),
              labelSelector: r.str(`${p}.labelSelector`, b.labelSelector),
              withinMs: r.duration(`${p}.within`, b.within) ?? 30_000,
            },
          },
        ];
    }
  });

  const fault = (path: string, v: unknown): ChaosRequest | undefined => {
    const o = r.obj(path, v);
    if (!o) return undefined;
    r.keys(path, o, ['action', 'target', 'pressure', 'apiserver', 'watch', 'pods', 'offset', 'faultId', 'seed']);
    const action = o.action as ChaosAction;
    if (!ACTIONS.includes(action)) {
      r.fail(
        `${path}.action`,
        o.action === undefined ? 'required' : `unknown action ${quote(o.action)} (expected one of ${ACTIONS.join(', ')})`,
      );
      return undefined;
    }
    const req: ChaosRequest = { action };
    const target = r.str(`${path}.target`, o.target);
    if (target !== undefined) req.target = target;
    if (COMPONENT_ACTIONS.has(action)) {
      if (!target)
        r.fail(
          `${path}.target`,
          `required for ${action} (apiserver, controller-manager, scheduler, node/NAME, leader/controller-manager, ...)`,
        );
      else if (!isComponentTarget(target)) r.fail(`${path}.target`, `unknown component ${quote(target)}`);
    }
    if (NODE_ACTIONS.has(action)) {
      if (!target) r.fail(`${path}.target`, `required for ${action} (node/NAME)`);
      else if (!isNodeTarget(target)) r.fail(`${path}.target`, `must be node/NAME, not ${quote(target)}`);
    }
    if (action === 'pressure') {
      if (!['memory', 'disk', 'pid'].includes(String(o.pressure)))
        r.fail(`${path}.pressure`, `must be memory, disk or pid, not ${quote(o.pressure)}`);
      else req.pressure = o.pressure as 'memory' | 'disk' | 'pid';
    }
    if (action === 'skew') {
      const off = r.duration(`${path}.offset`, o.offset, true);
      if (off === undefined) r.fail(`${path}.offset`, 'required for skew (e.g. +30s)');
      else req.offsetMs = off;
    }
    if (action === 'kill-pod' || action === 'delete-pod') {
      if (target !== undefined && !isPodTarget(target)) r.fail(`${path}.target`, `must be pod/NAMESPACE/NAME, not ${quote(target)}`);
      const pods = r.obj(`${path}.pods`, o.pods, false);
      if (!target && !pods) r.fail(path, `${action} needs a target (pod/NS/NAME) or pods (a selector)`);
      if (pods) {
        const pp = `${path}.pods`;
        r.keys(pp, pods, ['namespace', 'labelSelector', 'mode', 'value', 'container']);
        const mode = pods.mode;
        if (mode !== undefined && !MODES.includes(mode as string))
          r.fail(`${pp}.mode`, `unknown mode ${quote(mode)} (one, all, fixed, fixed-percent, random-max-percent)`);
        req.pods = {
          namespace: r.str(`${pp}.namespace`, pods.namespace),
          labelSelector: r.str(`${pp}.labelSelector`, pods.labelSelector),
          mode: mode as NonNullable<ChaosRequest['pods']>['mode'],
          value: r.num(`${pp}.value`, pods.value, { min: 0 }),
          container: r.str(`${pp}.container`, pods.container),
        };
      }
    }
    if (action === 'apiserver') {
      const a = r.obj(`${path}.apiserver`, o.apiserver);
      if (a) {
        const ap = `${path}.apiserver`;
        r.keys(ap, a, [
          'latency',
          'jitter',
          'errorRate',
          'errorCode',
          'watchDelay',
          'watchHold',
          'watchDrop',
          'dropWatches',
          'compact',
          'clear',
          'match',
        ]);
        const errorCode = r.num(`${ap}.errorCode`, a.errorCode, { int: true });
        if (errorCode !== undefined && ![500, 429, 409, 504].includes(errorCode))
          r.fail(`${ap}.errorCode`, `must be 500, 429, 409 or 504, not ${errorCode}`);
        const match = r.obj(`${ap}.match`, a.match, false);
        if (match) r.keys(`${ap}.match`, match, ['userAgent', 'user', 'verb', 'resource']);
        req.apiserver = {
          latencyMs: r.duration(`${ap}.latency`, a.latency),
          jitterMs: r.duration(`${ap}.jitter`, a.jitter),
          errorRate: r.num(`${ap}.errorRate`, a.errorRate, { min: 0, max: 1 }),
          errorCode,
          watchDelayMs: r.duration(`${ap}.watchDelay`, a.watchDelay),
          watchHold: r.bool(`${ap}.watchHold`, a.watchHold),
          watchDrop: r.bool(`${ap}.watchDrop`, a.watchDrop),
          dropWatches: r.bool(`${ap}.dropWatches`, a.dropWatches),
          compact: r.bool(`${ap}.compact`, a.compact),
          clear: r.bool(`${ap}.clear`, a.clear),
          match: match
            ? {
                userAgent: r.str(`${ap}.match.userAgent`, match.userAgent),
                user: r.str(`${ap}.match.user`, match.user),
                verb: r.str(`${ap}.match.verb`, match.verb),
                resource: r.str(`${ap}.match.resource`, match.resource),
              }
            : undefined,
        };
        req.apiserver = dropUndefined(req.apiserver);
        if (Object.keys(req.apiserver).length === 0)
          r.fail(ap, 'names no fault (latency, errorRate, watchDelay, watchHold, watchDrop, dropWatches, compact, clear)');
      }
    }
    if (action === 'watch') {
      const w = r.obj(`${path}.watch`, o.watch);
      if (w) {
        r.keys(`${path}.watch`, w, ['mode', 'delay']);
        if (!['delay', 'hold', 'drop'].includes(String(w.mode)))
          r.fail(`${path}.watch.mode`, `must be delay, hold or drop, not ${quote(w.mode)}`);
        const delayMs = r.duration(`${path}.watch.delay`, w.delay);
        if (w.mode === 'delay' && delayMs === undefined) r.fail(`${path}.watch.delay`, 'required for mode delay');
        req.watch = dropUndefined({ mode: w.mode as 'delay' | 'hold' | 'drop', delayMs });
      }
    }
    if (action === 'recover') {
      const id = r.str(`${path}.faultId`, o.faultId);
      if (id) req.faultId = id;
    }
    const s = r.num(`${path}.seed`, o.seed, { int: true, min: 0 });
    if (s !== undefined) req.seed = s;
    return req;
  };

  const STEP_KINDS = ['fault', 'wait', 'apply', 'check', 'serial', 'parallel'];
  const step = (path: string, v: unknown): Step | undefined => {
    const o = r.obj(path, v);
    if (!o) return undefined;
    const kinds = STEP_KINDS.filter((k) => o[k] !== undefined);
    if (kinds.length !== 1) {
      r.fail(path, `must have exactly one of ${STEP_KINDS.join(', ')} (has ${kinds.length ? kinds.join(', ') : 'none'})`);
      return undefined;
    }
    const kind = kinds[0];
    r.keys(path, o, kind === 'fault' ? ['name', 'fault', 'duration'] : ['name', kind]);
    const stepName = r.str(`${path}.name`, o.name);
    switch (kind) {
      case 'fault': {
        const f = fault(`${path}.fault`, o.fault);
        const durationMs = scaled(r.duration(`${path}.duration`, o.duration));
        if (!f) return undefined;
        return { kind, name: stepName ?? `${f.action}${f.target ? ` ${f.target}` : ''}`, fault: f, durationMs };
      }
      case 'wait': {
        const ms = r.duration(`${path}.wait`, o.wait);
        return ms === undefined ? undefined : { kind, name: stepName ?? `wait ${String(o.wait)}`, waitMs: scaled(ms)! };
      }
      case 'apply': {
        const objs = r.list(`${path}.apply`, o.apply).flatMap((m, i) => manifest(`${path}.apply[${i}]`, m) ?? []);
        return { kind, name: stepName ?? `apply ${objs.map((m) => `${m.kind}/${m.metadata.name}`).join(', ')}`, objects: objs };
      }
      case 'check': {
        const c = r.obj(`${path}.check`, o.check);
        if (!c) return undefined;
        r.keys(`${path}.check`, c, ['name', 'condition', 'within']);
        const checkName = uniqueName(`${path}.check.name`, c.name);
        const cond = condition(`${path}.check.condition`, c.condition);
        const withinMs = r.duration(`${path}.check.within`, c.within) ?? DEFAULT_WITHIN_MS;
        return cond ? { kind, name: stepName ?? `check ${checkName}`, check: { name: checkName, condition: cond, withinMs } } : undefined;
      }
      default: {
        const children = r.list(`${path}.${kind}`, o[kind]).flatMap((s, i) => step(`${path}.${kind}[${i}]`, s) ?? []);
        return { kind: kind as 'serial' | 'parallel', name: stepName ?? kind, steps: children };
      }
    }
  };
  const steps = r.list('spec.steps', spec.steps).flatMap((v, i) => step(`spec.steps[${i}]`, v) ?? []);

  if (name && !isDNSLabel(name)) r.fail('metadata.name', `must be a DNS label (lower case letters, digits and -), not ${quote(name)}`);
  if (r.errors.length > 0) throw new ExperimentError(r.errors);
  return { name, description, seed, timeoutMs, requires, objects, invariants, checks, steps };
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
