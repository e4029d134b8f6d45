// The supervisor's own log, DIR/logs/supervisor.log (pino JSON lines, as
// every component's): its decisions (restarts) and every fault injected or
// recovered. A disk that refuses a write loses that line, never the
// supervisor.
import fs from 'node:fs';
import path from 'node:path';
import { pino, type Logger } from 'pino';

/** A logger writing to DIR/logs/supervisor.log. */
export function supervisorLogger(dataDir: string): Logger {
  const stream = fs.createWriteStream(path.join(dataDir, 'logs', 'supervisor.log'), { flags: 'a' });
  stream.on('error', () => undefined);
  return pino({ level: process.env.KSIM_LOG_LEVEL ?? 'info', base: { component: 'supervisor', pid: process.pid } }, stream);
}
