// The two ways a watch reaches its client: a chunked HTTP response with one
// JSON event per line, or a WebSocket with one JSON event per message.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { WatchTransport } from '../handlers/watch.ts';
import { httpFramed } from '../storage/watch-encoding.ts';

/** The response's socket when nothing else is queued in front of our bytes, so they can go to it directly. */
function directSocket(res: ServerResponse): Socket | undefined {
  const socket: (Socket & { _httpMessage?: unknown }) | null = res.socket;
  const r = res as ServerResponse & { chunkedEncoding?: boolean; outputData?: unknown[] };
  if (!socket || socket._httpMessage !== res || !socket.writable || !r.chunkedEncoding || (r.outputData?.length ?? 0) > 0) return undefined;
  // A HEAD response has no body: its writes go through res, which drops them (as Go's server does for kube).
  if (res.req.method === 'HEAD') return undefined;
  return socket;
}

/** Streams events as newline-delimited JSON on `res`. */
export function httpWatchTransport(res: ServerResponse): WatchTransport {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  return {
    send(lines) {
      if (!res.writableEnded) res.write(lines.join('\n') + '\n');
    },
    sendChunk(chunk) {
      if (res.writableEnded) return;
      // ServerResponse.write would frame the chunk for each watcher in four writes; a prebuilt frame (shared, around the same bytes) is one.
      const socket = directSocket(res);
      if (socket) socket.write(httpFramed(chunk));
      else res.write(chunk);
    },
    backlog: () => res.writableLength,
    cork: () => res.socket?.cork(),
    uncork: () => res.socket?.uncork(),
    onDrain(cb) {
      const socket = res.socket;
      if (!socket || socket.writableLength === 0) setImmediate(cb);
      else socket.once('drain', cb);
    },
    close() {
      if (!res.writableEnded) res.end();
    },
    abort() {
      // Ending would queue the last chunk behind everything the peer is not reading; destroying frees it now.
      res.destroy();
    },
    onClose(cb) {
      res.on('close', cb);
    },
  };
}

/** Where each line of an NDJSON chunk ends, found once per chunk however many WebSockets send it. */
const lineEnds = new WeakMap<Buffer, number[]>();
function lineEndsOf(chunk: Buffer): number[] {
  let ends = lineEnds.get(chunk);
  if (!ends) {
    ends = [];
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, nl + 1)) ends.push(nl);
    lineEnds.set(chunk, ends);
  }
  return ends;
}

/** Sends each event as one text message on `ws`. */
export function wsWatchTransport(ws: WebSocket): WatchTransport {
  // Corked, a batch's messages leave in one write instead of one each.
  const socket = (ws as WebSocket & { _socket?: Socket })._socket;
  const open = () => ws.readyState === ws.OPEN;
  return {
    send(lines) {
      if (!open()) return;
      socket?.cork();
      for (const line of lines) ws.send(line);
      socket?.uncork();
    },
    sendChunk(chunk) {
      if (!open()) return;
      socket?.cork();
      let start = 0;
      // Slices of the shared encoding: no copy, no re-encoding per watcher.
      for (const end of lineEndsOf(chunk)) {
        ws.send(chunk.subarray(start, end), { binary: false });
        start = end + 1;
      }
      socket?.uncork();
    },
    backlog: () => ws.bufferedAmount,
    cork: () => socket?.cork(),
    uncork: () => socket?.uncork(),
    close() {
      ws.close(1000);
    },
    abort() {
      // A close frame would wait behind what the peer is not reading.
      ws.terminate();
    },
    onClose(cb) {
      ws.on('close', cb);
    },
  };
}
