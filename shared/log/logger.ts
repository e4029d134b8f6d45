// The one way a component gets a logger: pino, JSON lines on stderr (stdout
// stays free for what a command prints for humans), level from KSIM_LOG_LEVEL.
import { pino, type Logger } from 'pino';

/** A root logger tagged with the component name. */
export function createLogger(component: string, level = process.env.KSIM_LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { component, pid: process.pid } }, pino.destination({ fd: 2, sync: false }));
}

export type { Logger };
