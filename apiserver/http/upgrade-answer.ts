// The answer to an upgrade request as its raw socket carries it. Each kind
// of upgrade writes its own status line (the WebSocket watch's 101 from `ws`,
// the kubelet's 101 relayed for exec, attach and port-forward, a refusal's
// Status), so the one place that sees every answer is the socket: the first
// write on it starts with the status line. watchUpgradeAnswer looks at that
// first write only, adds the Audit-Id header after the status line (every
// answer names its audit ID, as a plain request's does) and reports the
// status code (the request trace's response step).
import type { Duplex } from 'node:stream';

const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})[^\r\n]*\r\n/;

type Write = Duplex['write'];
type End = Duplex['end'];
type Call = (...args: unknown[]) => unknown;

/** Calls `answered` with the status code of the first thing written on `socket`, after adding `Audit-Id: auditID` to it. */
export function watchUpgradeAnswer(socket: Duplex, auditID: string, answered: (code: number) => void): void {
  const write = socket.write.bind(socket);
  const end = socket.end.bind(socket);
  const restore = () => {
    socket.write = write;
    socket.end = end;
  };
  /** The first chunk, with the header added when it starts with a status line. */
  const firstChunk = (chunk: unknown): unknown => {
    restore();
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('latin1', 0, Math.min(chunk.length, 64)) : '';
    const m = STATUS_LINE.exec(text);
    if (!m) return chunk;
    answered(Number(m[1]));
    const header = `Audit-Id: ${auditID}\r\n`;
    if (typeof chunk === 'string') return chunk.slice(0, m[0].length) + header + chunk.slice(m[0].length);
    const buf = chunk as Buffer;
    return Buffer.concat([buf.subarray(0, m[0].length), Buffer.from(header, 'latin1'), buf.subarray(m[0].length)]);
  };
  socket.write = ((chunk: unknown, ...rest: unknown[]) => (write as Call)(firstChunk(chunk), ...rest)) as Write;
  socket.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (chunk === undefined || typeof chunk === 'function') {
      restore();
      return (end as Call)(chunk, ...rest);
    }
    return (end as Call)(firstChunk(chunk), ...rest);
  }) as End;
}
