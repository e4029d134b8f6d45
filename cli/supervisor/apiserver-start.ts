// Waiting for the apiserver child to serve: it says so itself over its IPC
// channel, with its pid, port and URL (another apiserver answering /readyz
// on the same port must not pass for it). If it exits first, the reason is
// its last fatal log line.
import fs from 'node:fs';
import type { ServingMessage } from '../../apiserver/main.ts';
import type { SupervisedChild } from './child.ts';

const READY_TIMEOUT_MS = 30_000;

/** The serving report. */
export type Serving = { port: number; url: string };

/** The message of the last fatal line process `pid` wrote to `logFile` after byte `offset`. */
export function fatalMessage(logFile: string, offset: number, pid: number): string | undefined {
  let text: string;
  try {
    const fd = fs.openSync(logFile, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const buf = Buffer.alloc(Math.max(0, Math.min(size - offset, 1024 * 1024)));
      fs.readSync(fd, buf, 0, buf.length, offset);
      text = buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  let message: string | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line);
      if (entry.pid === pid && entry.level >= 60 && typeof entry.msg === 'string') message = entry.msg;
    } catch {
      // not a log line
    }
  }
  return message;
}

export function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * Resolves with the port (and URL) once the apiserver child's current process
 * reports serving; rejects with the reason it gave (its fatal log line) if it
 * exits first. `logOffset`: the log's size before it started.
 */
export function waitServing(child: SupervisedChild, logOffset: number): Promise<Serving> {
  const proc = child.proc!;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the apiserver did not start serving within ${READY_TIMEOUT_MS / 1000}s; see ${child.state.log}`)),
      READY_TIMEOUT_MS,
    );
    const onMessage = (m: Partial<ServingMessage>) => {
      if (m?.type !== 'serving' || m.pid !== proc.pid || typeof m.port !== 'number' || typeof m.url !== 'string') return;
      clearTimeout(timer);
      proc.off('message', onMessage);
      resolve({ port: m.port, url: m.url });
    };
    proc.on('message', onMessage);
    void child.exited.then((exit) => {
      clearTimeout(timer);
      proc.off('message', onMessage);
      const why = fatalMessage(child.state.log, logOffset, proc.pid ?? 0);
      const how = exit.code !== null ? `code ${exit.code}` : `signal ${exit.signal}`;
      reject(new Error(`the apiserver could not start (${how}): ${why ?? 'no reason logged'}; see ${child.state.log}`));
    });
  });
}
