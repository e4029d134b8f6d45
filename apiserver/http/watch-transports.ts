// The two ways a watch reaches its client: a chunked HTTP response with one
// JSON event per line, or a WebSocket with one JSON event per message.
import type { ServerResponse } from 'node:http';
import type { WebSocket } from 'ws';
import type { WatchTransport } from '../handlers/watch.ts';

/** Streams events as newline-delimited JSON on `res`. */
export function httpWatchTransport(res: ServerResponse): WatchTransport {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  return {
    send(lines) {
      if (!res.writableEnded) res.write(lines.join('\n') + '\n');
    },
    sendChunk(chunk) {
      if (!res.writableEnded) res.write(chunk);
    },
    backlog: () => res.writableLength,
    close() {
      if (!res.writableEnded) res.end();
    },
    onClose(cb) {
      res.on('close', cb);
    },
  };
}

/** Sends each event as one text message on `ws`. */
export function wsWatchTransport(ws: WebSocket): WatchTransport {
  return {
    send(lines) {
      for (const line of lines) ws.send(line);
    },
    backlog: () => ws.bufferedAmount,
    close() {
      ws.close(1000);
    },
    onClose(cb) {
      ws.on('close', cb);
    },
  };
}
