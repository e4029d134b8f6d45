// The supervisor's side of a child's private control channel (its IPC
// channel): send a ComponentRequest, wait for the ComponentReply with the same
// id. A child that is paused (SIGSTOP), dead or not yet serving never answers:
// the request fails after a timeout with a message that says which, so no
// chaos request can hang the supervisor.
import type { ChildProcess } from 'node:child_process';
import type { ComponentReply, ComponentRequest } from '../../shared/chaos/protocol.ts';

/** A component's refusal, or no answer. `status` is what the control endpoint answers with. */
export class ComponentRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/** Requests to one child process over its IPC channel. */
export class ControlChannel {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly name: string,
    private readonly proc: ChildProcess,
    /** Whether the child is stopped with SIGSTOP right now (for the timeout's message). */
    private readonly paused: () => boolean,
  ) {
    proc.on('message', (m: Partial<ComponentReply> | null) => {
      if (m?.type !== 'ksim-control-reply' || typeof m.id !== 'number') return;
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.ok) p.resolve(m.result);
      else p.reject(new ComponentRequestError(`${this.name}: ${m.error ?? 'refused'}`, 400));
    });
    proc.once('exit', () => this.failAll(`${this.name} exited before it answered`));
    proc.once('disconnect', () => this.failAll(`${this.name} closed its control channel before it answered`));
  }

  /** Sends `op` and resolves with the component's result; rejects on a refusal, after `timeoutMs`, or when the child goes. */
  request<T = unknown>(op: string, args: Record<string, unknown> = {}, timeoutMs = 5000): Promise<T> {
    if (!this.proc.connected || this.proc.exitCode !== null || this.proc.signalCode !== null)
      return Promise.reject(new ComponentRequestError(`${this.name} is not running`, 409));
    const id = this.nextId++;
    const req: ComponentRequest = { type: 'ksim-control', id, op, args };
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        const why = this.paused() ? ' (it is paused: resume it first)' : '';
        reject(new ComponentRequestError(`${this.name} did not answer ${op} within ${timeoutMs / 1000}s${why}`, 504));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.proc.send(req, undefined, undefined, (err) => {
        if (!err) return;
        const p = this.pending.get(id);
        if (!p) return;
        this.pending.delete(id);
        clearTimeout(p.timer);
        reject(new ComponentRequestError(`${this.name}: could not send ${op}: ${err.message}`, 502));
      });
    });
  }

  private failAll(message: string): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new ComponentRequestError(message, 502));
      this.pending.delete(id);
    }
  }
}
