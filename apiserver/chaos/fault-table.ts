// The apiserver's active faults (shared/chaos/protocol.ts ApiserverFaultSpec),
// by id, in the order they were set. The request path asks it only while
// `requestFaults` is true and a watch only while `watchFaults` is: with no
// fault set, the whole cost is one boolean test per request and per watch.
import type { ApiserverFaultSpec } from '../../shared/chaos/protocol.ts';
import { INJECTABLE_CODES, type InjectableCode } from './fault-status.ts';
import { checkMatch, matches, type RequestTarget } from './match.ts';
import { randomSeed, seededDraws, type Draw } from './rng.ts';

/** A fault as it is held: the spec (with its seed), and its own stream of draws. */
export interface ActiveApiserverFault {
  spec: ApiserverFaultSpec & { seed: number };
  draw: Draw;
}

/** What the request path does to one request. */
export interface RequestVerdict {
  /** Added before the request is served (every matching fault's latency and jitter, summed). */
  delayMs: number;
  /** Set when a fault refuses the request: the first matching fault whose draw says so. */
  error?: { code: InjectableCode; faultId: string };
}

/** What happens to one watch's events while the faults last. */
export interface WatchVerdict {
  /** Close the watch (now, and at once whenever it is opened again). */
  drop: boolean;
  /** Hold every event back until no holding fault matches. */
  hold: boolean;
  /** Send each event this much later (every matching fault's watchDelayMs, summed). */
  delayMs: number;
}

const NO_WATCH_FAULT: WatchVerdict = { drop: false, hold: false, delayMs: 0 };

function nonNegative(spec: Record<string, unknown>, field: string): number | undefined {
  const v = spec[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    throw new Error(`${field}: must be a number of milliseconds >= 0, not ${JSON.stringify(v)}`);
  return v;
}

function flag(spec: Record<string, unknown>, field: string): boolean | undefined {
  const v = spec[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new Error(`${field}: must be true or false, not ${JSON.stringify(v)}`);
  return v;
}

const KNOWN_FIELDS = new Set([
  'id',
  'match',
  'latencyMs',
  'jitterMs',
  'errorRate',
  'errorCode',
  'watchDelayMs',
  'watchHold',
  'watchDrop',
  'seed',
]);

/** Checks a spec as it arrives on the control channel; throws an Error naming the field that is wrong. */
export function checkFaultSpec(raw: Record<string, unknown>): ApiserverFaultSpec & { seed: number } {
  const unknown = Object.keys(raw).find((k) => !KNOWN_FIELDS.has(k));
  if (unknown !== undefined) throw new Error(`${unknown}: unknown field of an apiserver fault`);
  if (typeof raw.id !== 'string' || raw.id === '') throw new Error('id: required, a non-empty string');
  const spec: ApiserverFaultSpec & { seed: number } = { id: raw.id, seed: 0 };
  const match = checkMatch(raw.match);
  if (match && Object.keys(match).length > 0) spec.match = match;
  const latencyMs = nonNegative(raw, 'latencyMs');
  if (latencyMs) spec.latencyMs = latencyMs;
  const jitterMs = nonNegative(raw, 'jitterMs');
  if (jitterMs) spec.jitterMs = jitterMs;
  const watchDelayMs = nonNegative(raw, 'watchDelayMs');
  if (watchDelayMs) spec.watchDelayMs = watchDelayMs;
  if (raw.errorRate !== undefined && raw.errorRate !== null) {
    const rate = raw.errorRate;
    if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1))
      throw new Error(`errorRate: must be a fraction from 0 to 1, not ${JSON.stringify(rate)}`);
    if (rate > 0) spec.errorRate = rate;
  }
  if (raw.errorCode !== undefined && raw.errorCode !== null) {
    if (!(INJECTABLE_CODES as readonly unknown[]).includes(raw.errorCode))
      throw new Error(`errorCode: must be one of ${INJECTABLE_CODES.join(', ')}, not ${JSON.stringify(raw.errorCode)}`);
    spec.errorCode = raw.errorCode as number;
  }
  if (spec.errorCode !== undefined && spec.errorRate === undefined) throw new Error('errorCode: needs an errorRate above 0');
  if (flag(raw, 'watchHold')) spec.watchHold = true;
  if (flag(raw, 'watchDrop')) spec.watchDrop = true;
  if (raw.seed !== undefined && raw.seed !== null) {
    if (typeof raw.seed !== 'number' || !Number.isInteger(raw.seed))
      throw new Error(`seed: must be an integer, not ${JSON.stringify(raw.seed)}`);
    spec.seed = raw.seed;
  } else spec.seed = randomSeed();
  const does = ['latencyMs', 'jitterMs', 'errorRate', 'watchDelayMs', 'watchHold', 'watchDrop'] as const;
  if (!does.some((f) => spec[f] !== undefined))
    throw new Error(`fault "${spec.id}" does nothing: give latencyMs, jitterMs, errorRate, watchDelayMs, watchHold or watchDrop`);
  return spec;
}

const isRequestFault = (s: ApiserverFaultSpec) => Boolean(s.latencyMs || s.jitterMs || s.errorRate);
const isWatchFault = (s: ApiserverFaultSpec) => Boolean(s.watchDelayMs || s.watchHold || s.watchDrop);

/** See the file comment. */
export class FaultTable {
  private readonly byId = new Map<string, ActiveApiserverFault>();
  private readonly listeners: (() => void)[] = [];
  /** True while some fault adds latency or errors to requests: the request path's only test when none does. */
  requestFaults = false;
  /** True while some fault delays, holds or drops watches. */
  watchFaults = false;

  /** Sets (or replaces, by id) a checked fault; its draws start again from its seed. */
  set(spec: ApiserverFaultSpec & { seed: number }): void {
    this.byId.delete(spec.id);
    this.byId.set(spec.id, { spec, draw: seededDraws(spec.seed) });
    this.changed();
  }

  /** Clears one fault, or every fault when `id` is undefined; returns the ids cleared. */
  clear(id?: string): string[] {
    const ids = id === undefined ? [...this.byId.keys()] : this.byId.has(id) ? [id] : [];
    for (const i of ids) this.byId.delete(i);
    if (ids.length > 0) this.changed();
    return ids;
  }

  /** The faults in the order they were set. */
  list(): ActiveApiserverFault[] {
    return [...this.byId.values()];
  }

  /** Called after every change (the open watches re-read their verdict). */
  onChange(cb: () => void): void {
    this.listeners.push(cb);
  }

  /** Draws what the matching faults do to one request. */
  request(target: RequestTarget): RequestVerdict {
    const verdict: RequestVerdict = { delayMs: 0 };
    for (const f of this.byId.values()) {
      const s = f.spec;
      if (!isRequestFault(s) || !matches(s.match, target)) continue;
      // The error draw comes first, and happens whatever an earlier fault decided: each fault's stream stays its own.
      if (s.errorRate) {
        const refused = f.draw() < s.errorRate;
        if (refused && !verdict.error) verdict.error = { code: (s.errorCode ?? 500) as InjectableCode, faultId: s.id };
      }
      verdict.delayMs += (s.latencyMs ?? 0) + (s.jitterMs ? f.draw() * s.jitterMs : 0);
    }
    return verdict;
  }

  /** What the matching faults do to a watch (no draws: watch faults are not random). */
  watch(target: RequestTarget): WatchVerdict {
    let verdict = NO_WATCH_FAULT;
    for (const { spec: s } of this.byId.values()) {
      if (!isWatchFault(s) || !matches(s.match, target)) continue;
      verdict = {
        drop: verdict.drop || s.watchDrop === true,
        hold: verdict.hold || s.watchHold === true,
        delayMs: verdict.delayMs + (s.watchDelayMs ?? 0),
      };
    }
    return verdict;
  }

  private changed(): void {
    const specs = [...this.byId.values()].map((f) => f.spec);
    this.requestFaults = specs.some(isRequestFault);
    this.watchFaults = specs.some(isWatchFault);
    for (const cb of this.listeners) cb();
  }
}

/** The apiserver's one table (a process serves one apiserver). */
export const apiserverFaults = new FaultTable();
