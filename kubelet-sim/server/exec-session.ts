// kubelet's exec over WebSocket: runs the command in the container's
// simulated shell with stdout on channel 1 and stderr on channel 2 (both on
// 1 through a terminal with tty=true), the client's stdin as the process's
// live stdin, and the exit code in the final status. A client that leaves
// kills the process, so nothing it started (a sleep, a timer) outlives it.
import type { WebSocket } from 'ws';
import { queryFlag } from '../../shared/api/query-bool.ts';
import type { Logger } from '../../shared/log/logger.ts';
import type { PodManager } from '../pod-manager.ts';
import { Killed, runProcess } from '../runtime/shell.ts';
import { StdinPipe } from '../runtime/stdin-pipe.ts';
import { Terminal } from '../runtime/terminal.ts';
import { ChannelStream, exitStatus, internalErrorStatus, STDERR, STDOUT } from './channel-stream.ts';

/** Where a stream request points. */
export interface StreamTarget {
  namespace: string;
  pod: string;
  container: string;
  query: URLSearchParams;
}

/** Serves one exec session on an upgraded WebSocket. */
export function execSession(pods: PodManager, ws: WebSocket, t: StreamTarget, log: Logger): void {
  const argv = t.query.getAll('command');
  const tty = queryFlag(t.query, 'tty');
  const wantStdin = queryFlag(t.query, 'stdin');
  const wantStderr = queryFlag(t.query, 'stderr');
  const pipe = wantStdin ? new StdinPipe() : undefined;
  let kill: (code: number) => void = () => {};
  let done = false;
  const stream = new ChannelStream(
    ws,
    {
      stdin: pipe,
      onStdinClosed: () => pipe?.end(),
      onGone: () => {
        pipe?.end();
        if (!done) kill(137);
      },
    },
    log,
  );
  if (argv.length === 0) return stream.finish(internalErrorStatus('you must specify at least one command for the container'));
  const terminal = tty ? new Terminal(pipe ?? endedPipe(), (text) => stream.send(STDOUT, text)) : undefined;
  const out = terminal ? terminal.out : (text: string) => stream.send(STDOUT, text);
  const err = terminal ? terminal.out : (text: string) => wantStderr && stream.send(STDERR, text);
  const worker = pods.worker(t.namespace, t.pod);
  const ctx = worker?.execContext(t.container, out, err, (k) => (kill = k));
  if (!ctx) return stream.finish(internalErrorStatus(`container not found ("${t.container}")`));
  // An exec'd process dies with its container, as in a real runtime.
  const watch = worker?.attach(t.container)?.attach({ end: () => !done && kill(137) }, false);
  runProcess(argv, ctx, terminal && pipe ? terminal : pipe).then(
    (res) => {
      done = true;
      watch?.detach();
      stream.finish(exitStatus(res.exitCode, argv));
    },
    (e) => {
      done = true;
      watch?.detach();
      if (!(e instanceof Killed)) log.error({ err: (e as Error).message }, 'exec failed');
      stream.finish(internalErrorStatus('the command could not be run'));
    },
  );
}

function endedPipe(): StdinPipe {
  const p = new StdinPipe();
  p.end();
  return p;
}
