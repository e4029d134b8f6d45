// The set of supervised components and what can be done to each process:
// start (the apiserver on the port it first served, waiting until it serves
// again), stop, kill, pause, resume, restart, and the clean stop of
// everything in reverse start order. A death that nobody asked for is
// reported, and with --restart=on-failure the component is started again
// after a backoff (restart-policy.ts).
import type { Logger } from 'pino';
import { SupervisedChild, type ExitInfo } from './child.ts';
import { fileSize, waitServing, type Serving } from './apiserver-start.ts';
import { nextBackoff, shouldRestart, type RestartPolicy } from './restart-policy.ts';

/** A refused process operation (unknown component, wrong state); `status` is the control endpoint's answer. */
export class ProcessOpError extends Error {
  constructor(
    message: string,
    readonly status = 409,
  ) {
    super(message);
  }
}

export interface SupervisorHooks {
  /** Something about a component changed (cluster.json is rewritten). */
  changed(): void;
  /** A component died without being asked to (after the restart decision). */
  died(child: SupervisedChild, exit: ExitInfo, restarting: boolean): void;
  /** A component's new process started (by chaos, or by the restart policy); for the apiserver, once it serves. */
  started(child: SupervisedChild, why: 'chaos' | 'restart-policy'): void;
}

/** The components and their processes. */
export class Supervisor {
  readonly children: SupervisedChild[] = [];
  stopping = false;
  private readonly restartTimers = new Map<string, NodeJS.Timeout>();
  private readonly quickDeaths = new Map<string, number>();

  constructor(
    private readonly policy: RestartPolicy,
    private readonly log: Logger,
    private readonly hooks: SupervisorHooks,
  ) {}

  /** Adds a component (not started). */
  add(child: SupervisedChild): SupervisedChild {
    this.children.push(child);
    child.onExit = (exit) => this.exitedOne(child, exit);
    return child;
  }

  get apiserver(): SupervisedChild {
    return this.children[0];
  }

  find(name: string): SupervisedChild | undefined {
    return this.children.find((c) => c.name === name);
  }

  /** Starts the apiserver and resolves once it serves. */
  async startApiserver(): Promise<Serving> {
    const child = this.apiserver;
    const offset = fileSize(child.state.log);
    child.start();
    const serving = await waitServing(child, offset);
    child.state.endpoint = serving.url;
    // Started again, it serves on the port it served on (its URL is in every kubeconfig), even if that was --port 0.
    const i = child.args.indexOf('--port');
    if (i >= 0) child.args[i + 1] = String(serving.port);
    this.hooks.changed();
    return serving;
  }

  /** Starts a component that is not running; the apiserver resolves once it serves. */
  async start(name: string, why: 'chaos' | 'restart-policy' = 'chaos'): Promise<SupervisedChild> {
    const child = this.mustFind(name);
    if (child.running) throw new ProcessOpError(`${name} is already ${child.state.state} (pid ${child.state.pid})`);
    this.cancelRestart(name);
    if (child === this.apiserver) {
      await this.startApiserver();
    } else {
      child.start();
      this.hooks.changed();
    }
    this.hooks.started(child, why);
    return child;
  }

  /** SIGKILL; resolves at its exit. */
  async kill(name: string): Promise<SupervisedChild> {
    const child = this.mustRun(name);
    await child.kill();
    return child;
  }

  /** SIGTERM and wait (SIGKILL after a grace period). */
  async stop(name: string): Promise<SupervisedChild> {
    const child = this.mustFind(name);
    this.cancelRestart(name);
    if (!child.running) throw new ProcessOpError(`${name} is not running (${child.state.state})`);
    await child.stop();
    this.hooks.changed();
    return child;
  }

  pause(name: string): SupervisedChild {
    const child = this.mustRun(name);
    if (child.state.state === 'paused') throw new ProcessOpError(`${name} is already paused`);
    child.pause();
    this.hooks.changed();
    return child;
  }

  resume(name: string): SupervisedChild {
    const child = this.mustFind(name);
    if (child.state.state !== 'paused') throw new ProcessOpError(`${name} is not paused (${child.state.state})`);
    child.resume();
    this.hooks.changed();
    return child;
  }

  /** A graceful stop (if it runs) and a start. */
  async restart(name: string): Promise<SupervisedChild> {
    const child = this.mustFind(name);
    this.cancelRestart(name);
    if (child.running) await child.stop();
    return this.start(name);
  }

  /** Stops everything: paused children are resumed first, the components stop together, then the apiserver. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    for (const t of this.restartTimers.values()) clearTimeout(t);
    this.restartTimers.clear();
    for (const c of this.children) if (c.state.state === 'paused') c.resume();
    const [apiserver, ...components] = this.children;
    await Promise.all([...components].reverse().map((c) => c.stop(3000)));
    if (apiserver) await apiserver.stop(5000);
  }

  private mustFind(name: string): SupervisedChild {
    const child = this.find(name);
    if (!child) throw new ProcessOpError(`target: no component "${name}" (known: ${this.children.map((c) => c.name).join(', ')})`, 400);
    return child;
  }

  private mustRun(name: string): SupervisedChild {
    const child = this.mustFind(name);
    if (!child.running) throw new ProcessOpError(`${name} is not running (${child.state.state})`);
    return child;
  }

  private cancelRestart(name: string): void {
    const t = this.restartTimers.get(name);
    if (t) clearTimeout(t);
    this.restartTimers.delete(name);
  }

  private exitedOne(child: SupervisedChild, exit: ExitInfo): void {
    this.hooks.changed();
    if (this.stopping || exit.intended) return;
    const restarting = shouldRestart(this.policy, exit);
    this.hooks.died(child, exit, restarting);
    if (!restarting) return;
    const ranFor = Date.now() - Date.parse(child.state.startedAt ?? '') || 0;
    const backoff = nextBackoff(this.quickDeaths.get(child.name) ?? 0, ranFor);
    this.quickDeaths.set(child.name, backoff.quickDeaths);
    this.log.info(
      { component: child.name, delayMs: backoff.delayMs },
      `restarting ${child.name} in ${backoff.delayMs}ms (--restart=on-failure)`,
    );
    this.restartTimers.set(
      child.name,
      setTimeout(() => {
        this.restartTimers.delete(child.name);
        if (this.stopping || child.running) return;
        this.start(child.name, 'restart-policy').catch((err) => {
          // Its process's exit (an apiserver that could not serve) is a death too, retried with a longer backoff.
          this.log.error({ component: child.name, err: (err as Error).message }, `could not restart ${child.name}`);
        });
      }, backoff.delayMs),
    );
  }
}
