// One supervised component across its lifetimes: spawns `ksim NAME ARGS`
// with its log in DIR/logs/NAME.log and an IPC channel (the start signal and
// the control requests), tracks its state (starting, running, paused,
// stopped, exited), pid, start time and restarts, and sends it signals.
// Every start uses the same flags, so a component comes back on its port.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { START_MESSAGE, WAIT_FOR_START_ENV } from '../../shared/cli/start-signal.ts';
import type { ComponentState } from '../cluster-state.ts';
import { componentNodeFlags } from './components.ts';
import { ControlChannel } from './rpc.ts';

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'ksim.mjs');

/** How a lifetime ended. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The supervisor stopped it (stop, or the supervisor's own shutdown): not a failure. */
  intended: boolean;
}

/** A component the supervisor runs. */
export class SupervisedChild {
  readonly state: ComponentState;
  proc?: ChildProcess;
  channel?: ControlChannel;
  /** Resolves when the current process exits (resolved while none runs). */
  exited: Promise<ExitInfo> = Promise.resolve({ code: null, signal: null, intended: true });
  private stopIntended = false;
  private lifetimes = 0;
  /** Called once per lifetime at its exit. */
  onExit?: (exit: ExitInfo) => void;

  constructor(
    readonly name: string,
    /** The ksim subcommand (controller-manager-1 runs `ksim controller-manager`). */
    readonly command: string,
    public args: string[],
    readonly dataDir: string,
    endpoint: string,
  ) {
    this.state = { name, pid: 0, state: 'stopped', endpoint, log: path.join(dataDir, 'logs', `${name}.log`), restarts: 0 };
  }

  get running(): boolean {
    return this.state.state === 'running' || this.state.state === 'starting' || this.state.state === 'paused';
  }

  /**
   * Starts a new process. With `waitForStart` it loads its code, then waits
   * for START_MESSAGE (sent by `begin()`): that is how the components start
   * while the apiserver is still starting.
   */
  start(opts: { waitForStart?: boolean } = {}): void {
    if (this.running) throw new Error(`${this.name} is already running (pid ${this.state.pid})`);
    fs.mkdirSync(path.dirname(this.state.log), { recursive: true });
    const out = fs.openSync(this.state.log, 'a');
    let proc: ChildProcess;
    try {
      proc = spawn(process.execPath, [...componentNodeFlags(this.name), CLI, this.command, ...this.args], {
        stdio: ['ignore', out, out, 'ipc'],
        env: { ...process.env, KSIM_SUPERVISOR_PID: String(process.pid), ...(opts.waitForStart ? { [WAIT_FOR_START_ENV]: '1' } : {}) },
      });
    } finally {
      fs.closeSync(out);
    }
    if (this.lifetimes++ > 0) this.state.restarts = (this.state.restarts ?? 0) + 1;
    this.proc = proc;
    this.stopIntended = false;
    this.channel = new ControlChannel(this.name, proc, () => this.state.state === 'paused');
    Object.assign(this.state, { pid: proc.pid ?? 0, state: 'running', startedAt: new Date().toISOString() });
    delete this.state.exitCode;
    delete this.state.signal;
    // A child that cannot be spawned at all exits at once (an 'error' without 'exit' must not throw).
    proc.on('error', () => undefined);
    this.exited = new Promise<ExitInfo>((resolve) => {
      proc.once('exit', (code, signal) => {
        const intended = this.stopIntended;
        this.state.state = intended ? 'stopped' : 'exited';
        this.state.exitCode = code ?? undefined;
        this.state.signal = signal ?? undefined;
        const exit = { code, signal, intended };
        resolve(exit);
        this.onExit?.(exit);
      });
    });
  }

  /** Tells a child started with `waitForStart` that the apiserver serves. */
  begin(): void {
    if (this.proc?.connected) this.proc.send(START_MESSAGE, undefined, undefined, () => undefined);
  }

  /** Sends a signal to the current process (no-op when none runs). */
  signal(sig: NodeJS.Signals): void {
    if (!this.running || !this.proc) return;
    try {
      this.proc.kill(sig);
    } catch {
      // already gone
    }
  }

  /** SIGKILL: a crash, as far as a restart policy is concerned. */
  kill(): Promise<ExitInfo> {
    const exited = this.exited;
    this.signal('SIGKILL');
    return exited;
  }

  /** SIGTERM (after SIGCONT if paused), SIGKILL after `graceMs`; an intended stop. */
  async stop(graceMs = 5000): Promise<ExitInfo> {
    if (!this.running) return this.exited;
    this.stopIntended = true;
    const exited = this.exited;
    if (this.state.state === 'paused') this.resume();
    this.signal('SIGTERM');
    const killer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    try {
      return await exited;
    } finally {
      clearTimeout(killer);
    }
  }

  pause(): void {
    if (this.state.state !== 'running') throw new Error(`${this.name} is ${this.state.state}, not running`);
    this.signal('SIGSTOP');
    this.state.state = 'paused';
  }

  resume(): void {
    if (this.state.state !== 'paused') throw new Error(`${this.name} is ${this.state.state}, not paused`);
    this.signal('SIGCONT');
    this.state.state = 'running';
  }
}
