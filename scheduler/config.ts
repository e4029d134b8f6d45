// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as far as a
// simulator needs it: profiles by schedulerName, each with plugins enabled
// and disabled per extension point (multiPoint, filter, score; "*" disables
// every default), score weights, pluginConfig args, and
// percentageOfNodesToScore globally or per profile.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { PluginArgs } from './framework/types.ts';
import { DEFAULT_PLUGINS, DEFAULT_SCHEDULER_NAME, IGNORED_PLUGINS, PLUGINS } from './plugins/registry.ts';

/** One plugin of a resolved profile. */
export interface PluginChoice {
  name: string;
  filter: boolean;
  /** 0 = not scoring. */
  weight: number;
  args?: PluginArgs;
}

/** A resolved profile. */
export interface ProfileConfig {
  schedulerName: string;
  plugins: PluginChoice[];
  percentageOfNodesToScore: number;
  preemption: boolean;
}

/** A resolved configuration. */
export interface SchedulerConfig {
  profiles: ProfileConfig[];
}

/** A configuration problem, reported before the scheduler starts. */
export class ConfigError extends Error {}

/** One extension point's plugins in a profile (kube's config.PluginSet). */
export interface PluginSet {
  enabled?: { name: string; weight?: number }[];
  disabled?: { name: string }[];
}

/** A profile of KubeSchedulerConfiguration, the fields ksim reads. */
export interface KubeSchedulerProfile {
  schedulerName?: string;
  percentageOfNodesToScore?: number;
  /** By extension point: multiPoint, preFilter, filter, postFilter, preScore, score, ... */
  plugins?: Record<string, PluginSet>;
  pluginConfig?: { name: string; args?: PluginArgs }[];
}

/** KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1), the fields ksim reads. */
export interface KubeSchedulerConfiguration {
  apiVersion?: string;
  kind?: string;
  percentageOfNodesToScore?: number;
  profiles?: KubeSchedulerProfile[];
}

function defaultPlugins(): PluginChoice[] {
  return DEFAULT_PLUGINS.map(([name, filter, weight]) => ({ name, filter, weight }));
}

function check(name: string): boolean {
  if (PLUGINS[name]) return true;
  if (IGNORED_PLUGINS.has(name) || name === 'DefaultPreemption') return false;
  throw new ConfigError(`plugin "${name}" does not exist`);
}

function resolveProfile(p: KubeSchedulerProfile, globalPct: number): ProfileConfig {
  let plugins = defaultPlugins();
  const byName = (n: string) => plugins.find((x) => x.name === n);
  const sets = p.plugins ?? {};
  let preemption = true;
  const isDisabled = (set: PluginSet | undefined, name: string) => (set?.disabled ?? []).some((d) => d.name === '*' || d.name === name);
  // multiPoint first, then the specific extension points, as kube merges them.
  const mp = sets.multiPoint;
  if (mp) {
    if (isDisabled(mp, 'DefaultPreemption')) preemption = false;
    plugins = plugins.filter((x) => !isDisabled(mp, x.name));
    for (const e of mp.enabled ?? []) {
      if (e.name === 'DefaultPreemption') preemption = true;
      if (!check(e.name)) continue;
      const existing = byName(e.name);
      const def = DEFAULT_PLUGINS.find((d) => d[0] === e.name);
      if (existing) existing.weight = e.weight ?? existing.weight;
      else
        plugins.push({
          name: e.name,
          filter: e.name !== 'NodeResourcesBalancedAllocation',
          weight: e.weight ?? def?.[2] ?? (PLUGINS[e.name] ? 1 : 0),
        });
    }
  }
  const filter = sets.filter ?? sets.preFilter;
  if (filter) {
    for (const x of plugins) if (isDisabled(filter, x.name)) x.filter = false;
    for (const e of filter.enabled ?? []) {
      if (!check(e.name)) continue;
      const x = byName(e.name);
      if (x) x.filter = true;
      else plugins.push({ name: e.name, filter: true, weight: 0 });
    }
  }
  const score = sets.score ?? sets.preScore;
  if (score) {
    for (const x of plugins) if (isDisabled(score, x.name)) x.weight = 0;
    for (const e of score.enabled ?? []) {
      if (!check(e.name)) continue;
      const x = byName(e.name);
      const w = e.weight ?? 1;
      if (w < 0 || w > 100) throw new ConfigError(`score weight of ${e.name} must be between 1 and 100, got ${w}`);
      if (x) x.weight = w;
      else plugins.push({ name: e.name, filter: false, weight: w });
    }
  }
  if (isDisabled(sets.postFilter, 'DefaultPreemption')) preemption = false;
  plugins = plugins.filter((x) => x.filter || x.weight > 0);
  for (const pc of p.pluginConfig ?? []) {
    const x = byName(pc.name);
    if (x) x.args = pc.args ?? {};
  }
  const pct = p.percentageOfNodesToScore ?? globalPct;
  if (pct < 0 || pct > 100) throw new ConfigError(`percentageOfNodesToScore must be between 0 and 100, got ${pct}`);
  return { schedulerName: p.schedulerName ?? DEFAULT_SCHEDULER_NAME, plugins, percentageOfNodesToScore: pct, preemption };
}

/** Resolves a parsed KubeSchedulerConfiguration object (undefined: the defaults). */
export function resolveConfig(doc: KubeSchedulerConfiguration | undefined): SchedulerConfig {
  if (doc?.kind && doc.kind !== 'KubeSchedulerConfiguration')
    throw new ConfigError(`expected kind KubeSchedulerConfiguration, got ${doc.kind}`);
  const pct = doc?.percentageOfNodesToScore ?? 0;
  const profiles = (doc?.profiles?.length ? doc.profiles : [{}]).map((p) => resolveProfile(p, pct));
  const names = new Set<string>();
  for (const p of profiles) {
    if (names.has(p.schedulerName)) throw new ConfigError(`duplicate profile with scheduler name "${p.schedulerName}"`);
    names.add(p.schedulerName);
  }
  return { profiles };
}

/** Reads and resolves a config file (YAML or JSON). */
export function loadConfig(path: string): SchedulerConfig {
  let doc: unknown;
  try {
    doc = parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`cannot read scheduler config ${path}: ${(err as Error).message}`);
  }
  return resolveConfig(asConfigDocument(doc));
}

/**
 * A parsed file as a configuration document: an object is taken as
 * written (its fields are checked as they are resolved); anything else
 * (an empty file, a scalar) has no field and resolves to the defaults.
 */
function asConfigDocument(doc: unknown): KubeSchedulerConfiguration | undefined {
  return typeof doc === 'object' && doc !== null ? doc : undefined;
}
