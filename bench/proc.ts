// What the benchmark can see of the apiserver process from outside: memory
// (VmRSS, VmHWM) and CPU time from /proc, the size of its data directory,
// and GC and event-loop figures from its /metrics endpoint.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { api, type ApiTarget } from '../test/helpers/index.ts';

let clockTicks: number | undefined;

/** Clock ticks per second, the unit of utime/stime in /proc/<pid>/stat. */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** Resident memory now and at its peak, in bytes. */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** User and system CPU seconds the process has used so far. */
export function cpuTimesOf(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name, which may itself contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / ticksPerSecond(), system: Number(fields[12]) / ticksPerSecond() };
}

/** CPU seconds (user + system) the process has used so far. */
export function cpuSecondsOf(pid: number): number {
  const { user, system } = cpuTimesOf(pid);
  return user + system;
}

/** Measures CPU use of the apiserver and of this process since start(). */
export class CpuMeter {
  private t0 = 0;
  private server0 = 0;
  private serverPid = 0;
  private system0 = 0;
  private self0 = process.cpuUsage();

  /** `pid` is read at each start(), so one meter follows the apiserver across restarts. */
  constructor(private readonly pid: () => number) {
    this.start();
  }

  start(): void {
    this.t0 = performance.now();
    this.serverPid = this.pid();
    this.server0 = cpuSecondsOf(this.serverPid);
    this.system0 = systemTimes().busy;
    this.self0 = process.cpuUsage();
  }

  /**
   * Percent of one core used since start() by the apiserver (NaN if it was
   * restarted meanwhile), by the benchmark process, and by everything else
   * on the machine (other work that skews the figures).
   */
  read(): { server: number; client: number; others: number } {
    const wall = (performance.now() - this.t0) / 1000;
    const self = process.cpuUsage(this.self0);
    const pid = this.pid();
    const server = pid === this.serverPid ? ((cpuSecondsOf(pid) - this.server0) / wall) * 100 : NaN;
    const client = ((self.user + self.system) / 1e6 / wall) * 100;
    const all = ((systemTimes().busy - this.system0) / ticksPerSecond() / wall) * 100;
    return { server, client, others: Math.max(0, all - client - (Number.isNaN(server) ? 0 : server)) };
  }
}

/** Apparent size (sum of file sizes) and allocated size (as `du` counts it) of a directory tree. */
export async function dirSize(dir: string): Promise<{ apparent: number; allocated: number }> {
  let apparent = 0;
  let allocated = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) {
      const sub = await dirSize(p);
      apparent += sub.apparent;
      allocated += sub.allocated;
    } else {
      const st = await lstat(p).catch(() => undefined);
      if (!st) continue;
      apparent += st.size;
      allocated += st.blocks * 512;
    }
  }
  return { apparent, allocated };
}

/** Garbage-collection and event-loop figures scraped from the apiserver's /metrics. */
export interface RuntimeMetrics {
  /** Total seconds spent in GC since the process started. */
  gcSeconds: number;
  /** Event-loop delay p99 and max, in seconds, since the previous scrape (prom-client resets them). */
  loopLagP99: number;
  loopLagMax: number;
}

/** Scrapes the apiserver's /metrics (as its admin: /metrics needs credentials); NaN figures when it cannot. */
export async function runtimeMetrics(server: ApiTarget): Promise<RuntimeMetrics> {
  const c = api(server);
  try {
    const res = await c.request('GET', '/metrics', undefined, { accept: 'text/plain' });
    if (res.status !== 200) throw new Error(`/metrics: HTTP ${res.status}`);
    const text = res.text;
    let gcSeconds = 0;
    for (const m of text.matchAll(/^nodejs_gc_duration_seconds_sum\{[^}]*\} ([\d.e+-]+)$/gm)) gcSeconds += Number(m[1]);
    const gauge = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([\\d.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN);
    return { gcSeconds, loopLagP99: gauge('nodejs_eventloop_lag_p99_seconds'), loopLagMax: gauge('nodejs_eventloop_lag_max_seconds') };
  } catch {
    return { gcSeconds: NaN, loopLagP99: NaN, loopLagMax: NaN };
  } finally {
    c.close();
  }
}

/**
 * The quantiles `qs` of a histogram without labels of its own (the registry's default ones aside) on the apiserver's /metrics,
 * each as the upper bound of the bucket it falls in (seconds; Infinity past
 * the last bound), and how many observations it has; undefined when it cannot be read.
 */
export async function histogramQuantiles(
  server: ApiTarget,
  name: string,
  qs: number[],
): Promise<{ count: number; bounds: number[] } | undefined> {
  const c = api(server);
  try {
    const res = await c.request('GET', '/metrics', undefined, { accept: 'text/plain' });
    if (res.status !== 200) return undefined;
    const buckets = [...res.text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"[^}]*\\} (\\d+)$`, 'gm'))].map((m) => ({
      le: m[1] === '+Inf' ? Infinity : Number(m[1]),
      n: Number(m[2]),
    }));
    const count = buckets.at(-1)?.n ?? 0;
    if (!count) return undefined;
    return { count, bounds: qs.map((q) => buckets.find((b) => b.n >= q * count)!.le) };
  } catch {
    return undefined;
  } finally {
    c.close();
  }
}

/** For progress lines: each call returns the apiserver's and this process's CPU use since the previous call. */
export function cpuTicker(pid: () => number): () => string {
  const meter = new CpuMeter(pid);
  return () => {
    try {
      const { server, client, others } = meter.read();
      meter.start();
      return `, CPU apiserver ${Number.isNaN(server) ? '?' : Math.round(server)}% bench ${Math.round(client)}% others ${Math.round(others)}%`;
    } catch {
      return '';
    }
  };
}

function systemTimes(): { busy: number; total: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  // idle + iowait are not busy.
  return { busy: total - cpu[3] - (cpu[4] ?? 0), total };
}

/** Percent of the machine's CPU (all cores) busy over `ms`: how loaded it is by others before a benchmark starts. */
export async function machineBusy(ms: number): Promise<number> {
  const a = systemTimes();
  await new Promise((r) => setTimeout(r, ms));
  const b = systemTimes();
  return ((b.busy - a.busy) / Math.max(1, b.total - a.total)) * 100;
}
