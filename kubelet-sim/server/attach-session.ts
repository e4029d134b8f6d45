// kubelet's attach over WebSocket: the client sees the container's output
// from now on (stdout on channel 1, stderr on 2, or one terminal stream when
// the container has tty: true) and, when both it and the container asked for
// stdin, what it types goes to the container's process. The session ends
// with a Success status when the process ends, as kubelet's does.
import type { WebSocket } from 'ws';
import { queryFlag } from '../../shared/api/query-bool.ts';
import type { Logger } from '../../shared/log/logger.ts';
import type { PodManager } from '../pod-manager.ts';
import { ChannelStream, internalErrorStatus, STDERR, STDOUT } from './channel-stream.ts';
import type { StreamTarget } from './exec-session.ts';

/** Serves one attach session on an upgraded WebSocket. */
export function attachSession(pods: PodManager, ws: WebSocket, t: StreamTarget, log: Logger): void {
  const stdio = pods.worker(t.namespace, t.pod)?.attach(t.container);
  let detach = () => {};
  let closeStdin = () => {};
  const stream = new ChannelStream(
    ws,
    {
      onStdinClosed: () => closeStdin(),
      onGone: () => detach(),
    },
    log,
  );
  if (!stdio) return stream.finish(internalErrorStatus(`container not found ("${t.container}")`));
  const wantStdout = queryFlag(t.query, 'stdout');
  const wantStderr = queryFlag(t.query, 'stderr') && !stdio.tty;
  const a = stdio.attach(
    {
      stdout: wantStdout ? (text) => stream.send(STDOUT, text) : undefined,
      stderr: wantStderr ? (text) => stream.send(STDERR, text) : undefined,
      end: () => stream.finish({ metadata: {}, status: 'Success' }),
    },
    queryFlag(t.query, 'stdin'),
  );
  if (!a) return stream.finish(internalErrorStatus(`container not found ("${t.container}")`));
  stream.stdin = a.stdin;
  detach = a.detach;
  closeStdin = a.closeStdin;
  if (!stream.open) a.detach();
}
