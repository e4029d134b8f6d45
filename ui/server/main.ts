// `ksim ui`: the web UI as its own process. Reads a kubeconfig (the UI's
// identity: every request to the apiserver is made through the shared client
// with it), builds the browser app in memory, and serves the page, its API,
// the /live feed, /healthz, /readyz and /metrics on one port. Run it as
//   node --import tsx ui/server/main.ts --kubeconfig FILE --port N
import { pathToFileURL } from 'node:url';
import { parseCommandFlags, type FlagSpec } from '../../shared/cli/flags.ts';
import { handleShutdown } from '../../shared/cli/shutdown.ts';
import { KubeClient } from '../../shared/client/kube-client.ts';
import { createLogger } from '../../shared/log/logger.ts';
import { createMetricsRegistry } from '../../shared/metrics/registry.ts';
import { buildApp, type AppBundle } from './bundle.ts';
import { startUiServer } from './ui-server.ts';

const FLAGS = {
  kubeconfig: { type: 'string', default: '', help: 'kubeconfig of the UI identity' },
  port: { type: 'number', default: 8090, help: 'port of the page, its API and /healthz, /readyz, /metrics (0 picks a free one)' },
  'bind-address': { type: 'string', default: '127.0.0.1', help: 'address to serve on' },
  'data-dir': { type: 'string', default: '', help: "the cluster's data dir, for the step-through of its controllers and scheduler" },
  dev: { type: 'boolean', default: false, help: 'bundle the app unminified, with a source map' },
  help: { type: 'boolean', help: 'print this help' },
} satisfies FlagSpec;

/** Runs the UI command with `argv` (flags only). */
export async function uiMain(argv: string[]): Promise<void> {
  const flags = parseCommandFlags('ui', argv, FLAGS);
  if (!flags) return;
  const log = createLogger('ui');
  if (!flags.kubeconfig) {
    process.stderr.write('ksim ui: --kubeconfig is required\n');
    process.exit(2);
  }
  const client = KubeClient.fromKubeconfig(flags.kubeconfig, { userAgent: 'ksim-ui' });
  const registry = createMetricsRegistry('ui');
  let built: Promise<AppBundle> | undefined;
  const bundle = () =>
    (built ??= (async () => {
      const started = Date.now();
      const b = await buildApp({ dev: flags.dev });
      log.info({ ms: Date.now() - started, jsBytes: b.js.length }, 'app built');
      return b;
    })());
  const server = await startUiServer({
    client,
    log,
    registry,
    bundle,
    host: flags['bind-address'],
    port: flags.port,
    dataDir: flags['data-dir'] || undefined,
  });
  const host = flags['bind-address'].includes(':') ? `[${flags['bind-address']}]` : flags['bind-address'];
  log.info({ port: server.port, url: `http://${host}:${server.port}/` }, 'ui serving');
  handleShutdown(log, async () => {
    await server.close();
    client.close();
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await uiMain(process.argv.slice(2));
