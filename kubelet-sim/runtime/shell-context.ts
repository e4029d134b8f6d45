// What a simulated process sees of its container (ShellContext), its streams
// (Io), the errors that end it (Killed, OutOfMemory, a broken pipe), and the
// reader a shell and its commands share over one stdin, so `while read l`
// takes a line at a time and what it leaves is there for the next command.
import type { ClusterNet } from './cluster-net.ts';
import type { SimFs } from './filesystem.ts';
import type { StdinStream } from './stdin-pipe.ts';

/** Who the process runs as (the Pod's securityContext over the image's USER); root 0/0 when unset. */
export interface ProcessUser {
  uid: number;
  gid: number;
  /** Supplementary groups (getgroups), gid included where the runtime adds it. */
  groups?: number[];
  /** The user name, when the image's /etc/passwd has one (else the shell looks uid up in /etc/passwd). */
  name?: string;
}

/** The machine a container sees (nproc, free, uname). */
export interface HostInfo {
  cpus: number;
  memoryBytes: number;
  kernelVersion: string;
  architecture: string;
  nodeName?: string;
}

/** What a running command can touch. */
export interface ShellContext {
  fs: SimFs;
  env: Map<string, string>;
  /** Writes one chunk to the container's stdout (the log); a plain function, passed around as a callback. */
  out: (text: string) => void;
  /** Writes one chunk to stderr; without it stderr goes where stdout goes. */
  err?: (text: string) => void;
  /** The process's live stdin (an attached or exec'd client); without it stdin is empty. */
  stdin?: StdinStream;
  /** Aborted (with a Killed reason) when the process is killed, so a read of stdin ends too. */
  signal?: AbortSignal;
  /** Sleeps on the simulated clock (already scaled by --speed); rejects with Killed when the process is killed. */
  sleep(seconds: number): Promise<void>;
  /** The memory limit in bytes, or undefined; `stress --vm-bytes` / `alloc` beyond it is an OOM kill. */
  memoryLimit?: number;
  /** Now, for `date`. */
  now(): number;
  /** Cluster DNS and HTTP for nslookup, wget and curl; without it, every name fails to resolve. */
  net?: ClusterNet;
  /** The programs of the container's image (nginx, redis-cli, agnhost...), looked up before the shell's own commands. */
  programs?: (name: string) => ((args: string[], io: Io) => Promise<number>) | undefined;
  /** The user the process runs as; root (0/0) when unset. */
  user?: ProcessUser;
  /** The node's CPUs, memory and kernel; kubelet-sim's default node profile when unset. */
  host?: HostInfo;
  /** The Pod's IP (hostname -i, ping's source). */
  podIP?: string;
  /**
   * Given for the container's main process: the shell hands it the function the
   * runtime calls with each signal it sends PID 1 ('TERM' on stop), or undefined
   * when no trap is set (PID 1 then ignores SIGTERM, as the kernel does).
   */
  onSignal?: (handler: ((signal: string) => void) | undefined) => void;
}

/** A command's streams; out and err are plain functions, handed on to the commands it runs. */
export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  stdin: string | StdinStream;
}

/** Thrown out of a command when its process is killed; carries the exit code a signal gives. */
export class Killed extends Error {
  constructor(readonly exitCode = 137) {
    super('killed');
  }
}

/** Thrown when a command allocates beyond the memory limit. */
export class OutOfMemory extends Error {}

/** Thrown by a write to a pipe whose reader has gone (SIGPIPE: the writer dies with 141). */
export class BrokenPipe extends Error {
  constructor() {
    super('broken pipe');
  }
}

/**
 * A stdin shared by a shell and the commands it runs: lines are taken one
 * at a time (read), the rest stays for the next reader. Wraps a string or a
 * live stream.
 */
export class InputReader implements StdinStream {
  private buf = '';
  private eof = false;
  readonly tty?: boolean;

  constructor(
    private readonly src: string | StdinStream,
    private readonly signal?: AbortSignal,
  ) {
    if (typeof src === 'string') {
      this.buf = src;
      this.eof = true;
    } else this.tty = src.tty;
  }

  /** The reader over `stdin`: itself when it already is one. */
  static of(stdin: string | StdinStream, signal?: AbortSignal): InputReader {
    return stdin instanceof InputReader ? stdin : new InputReader(stdin, signal);
  }

  private async fill(): Promise<boolean> {
    if (this.eof || typeof this.src === 'string') return false;
    const chunk = await this.src.read(this.signal);
    if (chunk === null) {
      this.eof = true;
      return false;
    }
    this.buf += chunk;
    return true;
  }

  /** The next line with its newline (the last one may lack it), or null at end of input. */
  async readLine(): Promise<string | null> {
    for (;;) {
      const nl = this.buf.indexOf('\n');
      if (nl >= 0) {
        const line = this.buf.slice(0, nl + 1);
        this.buf = this.buf.slice(nl + 1);
        return line;
      }
      if (!(await this.fill())) {
        if (this.buf === '') return null;
        const line = this.buf;
        this.buf = '';
        return line;
      }
    }
  }

  /** What is buffered, else the next chunk, or null at end of input (StdinStream). */
  async read(): Promise<string | null> {
    if (this.buf === '' && !(await this.fill())) return null;
    const b = this.buf;
    this.buf = '';
    return b;
  }

  /** Everything to the end of input. */
  async readAll(): Promise<string> {
    while (await this.fill());
    const b = this.buf;
    this.buf = '';
    return b;
  }
}
