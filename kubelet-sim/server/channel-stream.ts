// The Kubernetes remote-command channel protocol on one WebSocket (what
// kubelet speaks for exec and attach): binary frames whose first byte is the
// channel (0 stdin, 1 stdout, 2 stderr, 3 error/status, 4 resize) and, in
// v5.channel.k8s.io, [255, channel] when the client closes a channel. Output
// is bounded: a client that stops reading is dropped past MAX_BUFFERED bytes
// instead of the kubelet holding its output forever; input is paused while
// the process's stdin pipe is full.
import type { WebSocket } from 'ws';
import type { Logger } from '../../shared/log/logger.ts';
import type { StdinPipe } from '../runtime/stdin-pipe.ts';

/** The subprotocols served, best first. */
export const CHANNEL_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

/** Output bytes buffered for one client before it is considered gone. */
export const MAX_BUFFERED = 16 * 1024 * 1024;

export const STDIN = 0;
export const STDOUT = 1;
export const STDERR = 2;
export const ERROR = 3;
const CLOSE = 255;

/** Callbacks of a channel stream. */
export interface ChannelHandlers {
  /** Stdin from the client, written to the pipe (the client is paused while the pipe is full). */
  stdin?: StdinPipe;
  /** The client closed its stdin (v5) or left. */
  onStdinClosed?(): void;
  /** The client is gone (closed, broke, or stopped reading): stop the session's work. */
  onGone(): void;
}

/** See the file comment. */
export class ChannelStream {
  private gone = false;
  private stdinClosed = false;
  /** Where frames on channel 0 go (settable: attach learns it after the stream exists). */
  stdin?: StdinPipe;

  constructor(
    private readonly ws: WebSocket,
    private readonly handlers: ChannelHandlers,
    private readonly log: Logger,
  ) {
    this.stdin = handlers.stdin;
    ws.on('message', (data: Buffer, isBinary) => this.receive(isBinary ? data : Buffer.from(data)));
    ws.on('close', () => this.lost());
    ws.on('error', () => this.lost());
  }

  private receive(data: Buffer): void {
    if (data.length === 0) return;
    const ch = data[0];
    const stdin = this.stdin;
    if (ch === STDIN && stdin && !this.stdinClosed) {
      if (data.length > 1 && !stdin.write(data.subarray(1).toString())) {
        this.ws.pause();
        stdin.onDrain(() => this.ws.readyState === this.ws.OPEN && this.ws.resume());
      }
    } else if (ch === CLOSE && data[1] === STDIN) this.closeStdin();
    // Resize (4) has no effect on a simulated terminal.
  }

  private closeStdin(): void {
    if (this.stdinClosed) return;
    this.stdinClosed = true;
    this.handlers.onStdinClosed?.();
  }

  private lost(): void {
    if (this.gone) return;
    this.gone = true;
    this.closeStdin();
    this.handlers.onGone();
  }

  /** True while the client is there. */
  get open(): boolean {
    return !this.gone && this.ws.readyState === this.ws.OPEN;
  }

  /** Sends text on a channel; drops the client when too much is waiting for it. */
  send(ch: number, text: string): void {
    if (!this.open || text === '') return;
    if (this.ws.bufferedAmount > MAX_BUFFERED) {
      this.log.warn({ buffered: this.ws.bufferedAmount }, 'stream client is not reading; closing the session');
      this.ws.terminate();
      this.lost();
      return;
    }
    this.ws.send(Buffer.concat([Buffer.from([ch]), Buffer.from(text)]));
  }

  /** Sends the final status (a metav1.Status on the error channel) and closes normally. */
  finish(status: object): void {
    if (!this.open) return;
    this.send(ERROR, JSON.stringify(status));
    this.gone = true;
    this.ws.close(1000);
  }
}

/** kube's Status for a command that exited non-zero (kubectl prints "command terminated with exit code N"). */
export function exitStatus(exitCode: number, argv: string[]): object {
  if (exitCode === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${argv.join(' ')}], exit code ${exitCode}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  };
}

/** kube's Status for a session that could not start (kubectl prints "Internal error occurred: ..."). */
export function internalErrorStatus(message: string): object {
  return {
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: ${message}`,
    reason: 'InternalError',
    details: { causes: [{ message }] },
    code: 500,
  };
}
