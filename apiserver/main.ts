// `ksim apiserver`: runs the API server in the foreground until SIGINT or
// SIGTERM, then closes cleanly (pending writes flushed) and exits 0.
import { createLogger } from '../shared/log/logger.ts';
import { parseCommandFlags, type FlagSpec } from '../shared/cli/flags.ts';
import { handleShutdown } from '../shared/cli/shutdown.ts';
import { startApiserver } from './app.ts';

const FLAGS = {
  'data-dir': { type: 'string', default: '.ksim', help: 'directory for the database' },
  port: { type: 'number', default: 6443, help: 'port to serve on (0 picks a free one)' },
  'bind-address': { type: 'string', default: '127.0.0.1', help: 'address to listen on' },
  'compaction-interval': { type: 'number', default: 300, help: 'seconds between change-log compactions (kube: 5 min)' },
  'watch-window-events': { type: 'number', default: 200000, help: 'most change-log events kept for watch resume' },
  'bookmark-interval': { type: 'number', default: 60, help: 'seconds between watch bookmarks' },
  'event-ttl': { type: 'number', default: 3600, help: 'seconds an Event is kept after its last write (kube: 1h)' },
  'create-workers': { type: 'number', default: -1, help: 'threads that decode, default and validate new objects (-1: one when there are two or more cores)' },
  help: { type: 'boolean', help: 'print this help' },
} satisfies FlagSpec;

/** Runs the apiserver command with `argv` (flags only). */
export async function apiserverMain(argv: string[]): Promise<void> {
  const flags = parseCommandFlags('apiserver', argv, FLAGS);
  if (!flags) return;
  if (!(flags['event-ttl'] > 0)) {
    process.stderr.write(`ksim apiserver: flag --event-ttl: must be more than 0 seconds, not ${flags['event-ttl']}\n`);
    process.exit(2);
  }
  const log = createLogger('apiserver');
  const server = await startApiserver({
    dataDir: flags['data-dir'],
    port: flags.port,
    host: flags['bind-address'],
    log,
    compaction: { intervalMs: flags['compaction-interval'] * 1000, maxEvents: flags['watch-window-events'] },
    bookmarkIntervalMs: flags['bookmark-interval'] * 1000,
    eventTtlMs: flags['event-ttl'] * 1000,
    createWorkers: flags['create-workers'] >= 0 ? flags['create-workers'] : undefined,
  });
  handleShutdown(log, () => server.close());
}
