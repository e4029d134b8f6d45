// A process's live stdin: what an exec or attach client types arrives here in
// chunks and the simulated shell reads it as a process reads a pipe, waiting
// for more, seeing end of file once the writer closes it. The buffer is
// bounded like a kernel pipe: past the bound write() says so and the writer
// stops reading its client until onDrain fires (back-pressure, not memory).

/** A readable stdin, as the simulated shell sees it. */
export interface StdinStream {
  /** The next chunk, or null at end of file; rejects with the signal's reason when it aborts (the process was killed). */
  read(signal?: AbortSignal): Promise<string | null>;
  /** True when the stream is a terminal (prompts, line editing). */
  readonly tty?: boolean;
}

/** Bytes a pipe holds before its writer is asked to wait (Linux pipes hold 64 KiB). */
export const PIPE_BUFFER_BYTES = 64 * 1024;

/** See the file comment. */
export class StdinPipe implements StdinStream {
  private readonly chunks: string[] = [];
  private buffered = 0;
  private ended = false;
  private waiter?: (chunk: string | null) => void;
  private readonly drainers = new Set<() => void>();

  constructor(private readonly limit = PIPE_BUFFER_BYTES) {}

  /** Queues a chunk; false when the buffer is past its bound (wait for onDrain before writing more). */
  write(chunk: string): boolean {
    if (this.ended || chunk === '') return !this.ended;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w(chunk);
      return true;
    }
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    return this.buffered < this.limit;
  }

  /** Ends the stream: readers see end of file once the buffer is read. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w(null);
    }
    this.drained();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Calls fn once the buffer has room again (at once if it has now). */
  onDrain(fn: () => void): () => void {
    if (this.buffered < this.limit || this.ended) {
      fn();
      return () => {};
    }
    this.drainers.add(fn);
    return () => this.drainers.delete(fn);
  }

  read(signal?: AbortSignal): Promise<string | null> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.chunks.length) {
      const chunk = this.chunks.splice(0).join('');
      this.buffered = 0;
      this.drained();
      return Promise.resolve(chunk);
    }
    if (this.ended) return Promise.resolve(null);
    if (this.waiter) return Promise.reject(new Error('stdin already has a reader'));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiter = undefined;
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiter = (chunk) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(chunk);
      };
    });
  }

  private drained(): void {
    const fns = [...this.drainers];
    this.drainers.clear();
    for (const fn of fns) fn();
  }
}

/** Reads a stdin to its end (a string stdin is already whole). */
export async function readAllStdin(stdin: string | StdinStream, signal?: AbortSignal): Promise<string> {
  if (typeof stdin === 'string') return stdin;
  let all = '';
  for (let chunk = await stdin.read(signal); chunk !== null; chunk = await stdin.read(signal)) all += chunk;
  return all;
}

/**
 * Why `signal` was aborted, as the Error a read rejects with: the reason
 * itself (the process's Killed, or the platform's AbortError, both Errors),
 * wrapped only if someone aborted with something else.
 */
function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new Error(String(r));
}
