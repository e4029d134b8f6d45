// kubelet's /containerLogs endpoint: a container's log (current or previous
// run, tailLines, sinceSeconds, sinceTime, timestamps, limitBytes) and, with
// follow, new lines as they are written until the run ends. A follower that
// stops reading is dropped once MAX_BUFFERED bytes wait for it, so a slow
// client costs bounded memory.
import type http from 'node:http';
import { StatusError } from '../../shared/api/errors.ts';
import { queryFlag } from '../../shared/api/query-bool.ts';
import type { Clock } from '../../shared/clock/clock.ts';
import type { PodManager } from '../pod-manager.ts';
import { formatLine, selectLines, type LogQuery } from '../runtime/log-store.ts';
import { MAX_BUFFERED } from './channel-stream.ts';

const badRequest = (msg: string) => new StatusError(400, 'BadRequest', msg);
const notFound = (msg: string) => new StatusError(404, 'NotFound', msg);

function logQuery(q: URLSearchParams): LogQuery {
  const num = (k: string) => (q.has(k) ? Number(q.get(k)) : undefined);
  return {
    previous: queryFlag(q, 'previous'),
    timestamps: queryFlag(q, 'timestamps'),
    tailLines: num('tailLines'),
    sinceSeconds: num('sinceSeconds'),
    sinceTime: q.has('sinceTime') ? Date.parse(q.get('sinceTime')!) : undefined,
    limitBytes: num('limitBytes'),
  };
}

/** Serves one log request (throws a StatusError before any byte is written). */
export function containerLogs(
  opts: { pods: PodManager; clock: Clock },
  res: http.ServerResponse,
  ns: string,
  podName: string,
  container: string,
  q: URLSearchParams,
): void {
  const w = opts.pods.worker(ns, podName);
  if (!w) throw notFound(`pods "${podName}" not found`);
  if (!w.containerNames().includes(container)) throw badRequest(`container ${container} is not valid for pod ${podName}`);
  const query = logQuery(q);
  const log = opts.pods.logs.get(ns, podName, container);
  const status = [...(w.pod.status?.containerStatuses ?? []), ...(w.pod.status?.initContainerStatuses ?? [])].find(
    (c) => c.name === container,
  );
  const own = w.status();
  const cur = [...(own.containerStatuses ?? []), ...(own.initContainerStatuses ?? [])].find((c) => c.name === container) ?? status;
  if (query.previous) {
    if (!log?.previous) throw badRequest(`previous terminated container "${container}" in pod "${podName}" not found`);
  } else if (cur?.state?.waiting && !cur.lastState?.terminated && !log?.current.length) {
    throw badRequest(`container "${container}" in pod "${podName}" is waiting to start: ${cur.state.waiting.reason}`);
  }
  const lines = query.previous ? log!.previous! : (log?.current ?? []);
  let budget = query.limitBytes ?? Infinity;
  // The backlog is bounded by the log store; only what follows it can grow without end.
  let following = false;
  const write = (text: string): boolean => {
    if (budget <= 0 || res.destroyed) return false;
    if (following && res.writableLength > MAX_BUFFERED) {
      // The reader stopped reading: end its stream rather than hold the log for it.
      res.destroy();
      return false;
    }
    const chunk = Buffer.byteLength(text) > budget ? Buffer.from(text).subarray(0, budget).toString() : text;
    budget -= Buffer.byteLength(chunk);
    res.write(chunk);
    return budget > 0;
  };
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
  for (const l of selectLines(lines, query, opts.clock.now())) if (!write(formatLine(l, query.timestamps))) return void res.end();
  const running = !!cur?.state?.running;
  if (!queryFlag(q, 'follow') || query.previous || !log || !running) return void res.end();
  following = true;
  const stop = log.follow(
    (l) => {
      if (!write(formatLine(l, query.timestamps))) {
        stop();
        if (!res.destroyed) res.end();
      }
    },
    () => {
      stop();
      res.end();
    },
  );
  res.on('close', stop);
}
