// The stdio of one run of a container, as the container runtime keeps it for
// `kubectl attach`: output goes to the log and to every attached client
// (stdout and stderr apart, or merged on a terminal when `tty: true`), and
// with `stdin: true` the clients' input goes to the process's stdin, which
// ends when the first client that attached with stdin leaves if
// `stdinOnce: true` (as kubectl run -i sets it).
import type { Container } from 'kubernetes-types/core/v1.js';
import { StdinPipe, type StdinStream } from './stdin-pipe.ts';
import { Terminal } from './terminal.ts';

/** What an attached client receives. */
export interface AttachListener {
  stdout?(text: string): void;
  stderr?(text: string): void;
  /** The process ended (or the container was stopped). */
  end(exitCode: number): void;
}

/** One client's attachment. */
export interface Attachment {
  /** Where the client's stdin goes; undefined when the container has no stdin or the client asked for none. */
  stdin?: StdinPipe;
  /** The client closed its stdin (v5 close frame) or left: with stdinOnce the process sees end of file. */
  closeStdin: () => void;
  /** The client left. */
  detach: () => void;
}

/** See the file comment. */
export class ContainerStdio {
  /** The raw input pipe clients write to. */
  private readonly pipe?: StdinPipe;
  private readonly terminal?: Terminal;
  private readonly listeners = new Set<AttachListener>();
  private readonly stdinOnce: boolean;
  private ended = false;
  readonly tty: boolean;

  constructor(
    spec: Pick<Container, 'stdin' | 'stdinOnce' | 'tty'>,
    /** Writes output to the container's log. */
    private readonly log: (text: string) => void,
  ) {
    this.tty = !!spec.tty;
    this.stdinOnce = !!spec.stdinOnce;
    if (spec.stdin) this.pipe = new StdinPipe();
    if (this.tty) this.terminal = new Terminal(this.pipe ?? endedPipe(), (t) => this.emit('stdout', t));
  }

  /** The process's stdin (undefined: empty, as a container without `stdin: true` has). */
  get stdin(): StdinStream | undefined {
    return this.terminal && this.pipe ? this.terminal : this.pipe;
  }

  /** The process's stdout. */
  out = (text: string): void => (this.terminal ? this.terminal.out(text) : this.emit('stdout', text));

  /** The process's stderr (the terminal's, merged with stdout, on a tty). */
  err = (text: string): void => (this.terminal ? this.terminal.out(text) : this.emit('stderr', text));

  private emit(stream: 'stdout' | 'stderr', text: string): void {
    this.log(text);
    for (const l of this.listeners) l[stream]?.(text);
  }

  /** Attaches a client; undefined once the process has ended. */
  attach(listener: AttachListener, wantStdin: boolean): Attachment | undefined {
    if (this.ended) return undefined;
    this.listeners.add(listener);
    const stdin = wantStdin ? this.pipe : undefined;
    let stdinClosed = !stdin;
    const closeStdin = () => {
      if (stdinClosed) return;
      stdinClosed = true;
      if (this.stdinOnce) this.pipe?.end();
    };
    return {
      stdin,
      closeStdin,
      detach: () => {
        closeStdin();
        this.listeners.delete(listener);
      },
    };
  }

  /** The process ended: every client is told, and stdin is closed. */
  end(exitCode: number): void {
    if (this.ended) return;
    this.ended = true;
    this.pipe?.end();
    const ls = [...this.listeners];
    this.listeners.clear();
    for (const l of ls) l.end(exitCode);
  }
}

function endedPipe(): StdinPipe {
  const p = new StdinPipe();
  p.end();
  return p;
}
