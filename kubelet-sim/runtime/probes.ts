// Startup, liveness and readiness probes of one running container, with
// kube's initialDelaySeconds, periodSeconds, timeoutSeconds, successThreshold
// and failureThreshold. Exec probes run in the simulated shell; httpGet,
// tcpSocket and grpc probes succeed when the container "listens" (it runs its
// image's own server: no command), and fail with connection refused otherwise.
// An exec probe whose executable is missing errors (containerd's exec error)
// and, as in kubelet's prober worker, its result is thrown away: it never
// kills the container.
import type { Container, Probe } from 'kubernetes-types/core/v1.js';
import type { Clock } from '../../shared/clock/clock.ts';
import { execId, missingExecutable } from './hooks.ts';
import type { ExitResult } from './shell.ts';

/** What a probe runner reports to its pod worker. */
export interface ProbeHooks {
  clock: Clock;
  speed: number;
  podIP: string;
  listening: boolean;
  /** Asks the container's listening process (when set, instead of `listening`): an HTTP status, or undefined when refused. */
  httpGet?(port: number | string, path: string): number | undefined;
  /** Whether a TCP connect to the container's port succeeds (when set, instead of `listening`). */
  tcpOpen?(port: number | string): boolean;
  exec(argv: string[], out: (t: string) => void): Promise<ExitResult>;
  onStarted(): void;
  onReady(ready: boolean): void;
  /** A failed probe's output (`errored`: the probe could not run; its result does not count). */
  onUnhealthy(kind: 'Startup' | 'Liveness' | 'Readiness', message: string, errored?: boolean): void;
  onFailed(kind: 'Startup' | 'Liveness'): void;
}

type Kind = 'Startup' | 'Liveness' | 'Readiness';

/** See the file comment. */
export class ProbeRunner {
  private stopped = false;
  private started: boolean;
  private readonly cancels = new Set<() => void>();

  constructor(
    private readonly c: Container,
    private readonly h: ProbeHooks,
  ) {
    this.started = !c.startupProbe;
  }

  start(): void {
    if (this.c.startupProbe) this.loop('Startup', this.c.startupProbe);
    else this.afterStartup();
  }

  stop(): void {
    this.stopped = true;
    for (const c of this.cancels) c();
    this.cancels.clear();
  }

  private afterStartup(): void {
    if (this.c.livenessProbe) this.loop('Liveness', this.c.livenessProbe);
    if (this.c.readinessProbe) this.loop('Readiness', this.c.readinessProbe);
  }

  private wait(seconds: number, fn: () => void): void {
    const cancel = this.h.clock.setTimeout(
      () => {
        this.cancels.delete(cancel);
        if (!this.stopped) fn();
      },
      (seconds * 1000) / this.h.speed,
    );
    this.cancels.add(cancel);
  }

  private loop(kind: Kind, p: Probe): void {
    const period = p.periodSeconds ?? 10;
    const failureThreshold = p.failureThreshold ?? 3;
    const successThreshold = p.successThreshold ?? 1;
    let failures = 0;
    let successes = 0;
    const tick = async () => {
      const res = await this.probe(p);
      if (this.stopped) return;
      if (res.errored) {
        this.h.onUnhealthy(kind, res.message, true);
        this.wait(period, () => void tick());
        return;
      }
      if (res.ok) {
        failures = 0;
        successes++;
        if (kind === 'Startup') {
          this.started = true;
          this.h.onStarted();
          this.afterStartup();
          return;
        }
        if (kind === 'Readiness' && successes >= successThreshold) this.h.onReady(true);
      } else {
        successes = 0;
        failures++;
        this.h.onUnhealthy(kind, res.message);
        if (failures >= failureThreshold) {
          if (kind === 'Readiness') this.h.onReady(false);
          else {
            this.h.onFailed(kind);
            return;
          }
        }
      }
      this.wait(period, () => void tick());
    };
    this.wait(p.initialDelaySeconds ?? 0, () => void tick());
  }

  private async probe(p: Probe): Promise<{ ok: boolean; message: string; errored?: boolean }> {
    const timeout = p.timeoutSeconds ?? 1;
    if (p.exec) {
      let out = '';
      const run = this.h.exec(p.exec.command ?? [], (t) => (out += t));
      let cancel = () => {};
      const timedOut = new Promise<'timeout'>((r) => {
        cancel = this.h.clock.setTimeout(() => r('timeout'), (timeout * 1000) / this.h.speed);
      });
      const res = await Promise.race([run, timedOut]);
      cancel();
      if (res === 'timeout') return { ok: false, message: `command timed out after ${timeout}s` };
      const argv = p.exec.command ?? [];
      const missing = missingExecutable(argv, res, out, execId(`${this.c.name}/${argv.join(' ')}/${this.h.clock.now()}`));
      if (missing) return { ok: false, errored: true, message: missing };
      return { ok: res.exitCode === 0, message: out.trimEnd() };
    }
    const port = p.httpGet?.port ?? p.tcpSocket?.port ?? p.grpc?.port ?? 0;
    const host = p.httpGet?.host ?? p.tcpSocket?.host ?? this.h.podIP;
    if (p.httpGet && this.h.httpGet) {
      const status = this.h.httpGet(port, p.httpGet.path ?? '/');
      if (status !== undefined)
        return status >= 200 && status < 400
          ? { ok: true, message: '' }
          : { ok: false, message: `HTTP probe failed with statuscode: ${status}` };
    } else if ((p.tcpSocket || p.grpc) && this.h.tcpOpen) {
      if (this.h.tcpOpen(port)) return { ok: true, message: '' };
    } else if (this.h.listening) return { ok: true, message: '' };
    if (p.httpGet) {
      const scheme = (p.httpGet.scheme ?? 'HTTP').toLowerCase();
      return {
        ok: false,
        message: `Get "${scheme}://${host}:${port}${p.httpGet.path ?? '/'}": dial tcp ${host}:${port}: connect: connection refused`,
      };
    }
    if (p.grpc)
      return { ok: false, message: `timeout: failed to connect service "${host}:${port}" within ${timeout}s: context deadline exceeded` };
    return { ok: false, message: `dial tcp ${host}:${port}: connect: connection refused` };
  }
}
