// `ksim apiserver`: runs the API server in the foreground until SIGINT or
// SIGTERM, then closes cleanly (pending writes flushed) and exits 0. A start
// that fails (data dir unusable or held, port taken) is one fatal log line
// and one line on stderr naming the data dir or port and the cause, exit 1.
// Under `ksim up` (an IPC channel) it reports its pid and port once serving,
// so the supervisor knows which process answers.
import { createLogger } from '../shared/log/logger.ts';
import { parseCommandFlags, type FlagSpec } from '../shared/cli/flags.ts';
import { parseHistoryFlag } from './history-api/retention-flag.ts';
import { handleShutdown } from '../shared/cli/shutdown.ts';
import { StatusError } from '../shared/api/errors.ts';
import { startApiserver } from './app.ts';
import { OPTIONAL_ADMISSION_PLUGINS } from './admission/chain.ts';
import { StorageOpenError } from './storage/open-failure.ts';
import { describeStorageFailure } from './storage/storage-errors.ts';
import { serveControl } from '../shared/chaos/component-control.ts';
import { registerApiserverChaos } from './chaos/control.ts';

const FLAGS = {
  'data-dir': { type: 'string', default: '.ksim', help: 'directory for the database' },
  port: { type: 'number', default: 6443, help: 'port to serve on (0 picks a free one)' },
  'bind-address': { type: 'string', default: '127.0.0.1', help: 'address to listen on' },
  'compaction-interval': { type: 'number', default: 300, help: 'seconds between change-log compactions (kube: 5 min)' },
  'watch-window-events': { type: 'number', default: 200000, help: 'most change-log events kept for watch resume' },
  'bookmark-interval': { type: 'number', default: 60, help: 'seconds between watch bookmarks' },
  history: {
    type: 'string',
    default: 'all',
    help: 'how long every revision is kept: all, off, or revisions=N,age=DURATION,size=BYTES (any of them)',
  },
  'event-ttl': { type: 'number', default: 3600, help: 'seconds an Event is kept after its last write (kube: 1h)' },
  'create-workers': {
    type: 'number',
    default: -1,
    help: 'threads that decode, default and validate new objects (-1: one when there are two or more cores)',
  },
  'insecure-http': {
    type: 'boolean',
    default: false,
    help: 'serve plain HTTP with no authentication or authorization (teaching only: anyone can do anything)',
  },
  'advertise-address': { type: 'string', default: '', help: 'more addresses or names for the serving certificate, comma-separated' },
  'service-account-issuer': {
    type: 'string',
    default: '',
    help: 'issuer of ServiceAccount tokens (default https://kubernetes.default.svc.cluster.local)',
  },
  'api-audiences': { type: 'string', default: '', help: 'audiences of the API, comma-separated (default: the issuer)' },
  'authorization-mode': {
    type: 'string',
    default: 'Node,RBAC',
    help: 'authorizers in order: Node, RBAC, or AlwaysAllow (no authorization)',
  },
  'disable-admission-plugins': {
    type: 'string',
    default: '',
    help: `admission plugins to leave out, comma-separated (${OPTIONAL_ADMISSION_PLUGINS.join(', ')})`,
  },
  'token-auth-file': { type: 'string', default: '', help: 'static bearer tokens, kube\'s CSV: token,user,uid,"group1,group2"' },
  'oidc-issuer-url': { type: 'string', default: '', help: 'OIDC issuer whose ID tokens authenticate users (https)' },
  'oidc-client-id': { type: 'string', default: '', help: 'audience an OIDC ID token must carry' },
  'oidc-username-claim': { type: 'string', default: 'sub', help: 'OIDC claim that names the user' },
  'oidc-username-prefix': { type: 'string', default: '', help: 'prefix of OIDC usernames ("-" for none)' },
  'oidc-groups-claim': { type: 'string', default: '', help: 'OIDC claim that lists the groups' },
  'oidc-groups-prefix': { type: 'string', default: '', help: 'prefix of OIDC groups' },
  'oidc-ca-file': { type: 'string', default: '', help: "CA bundle for the OIDC issuer's TLS" },
  'oidc-jwks-file': { type: 'string', default: '', help: "the issuer's keys from a file instead of its jwks_uri (ksim)" },
  'audit-log-path': { type: 'string', default: '', help: 'audit log file (default DIR/audit.log; "-" for stdout)' },
  'audit-policy-file': { type: 'string', default: '', help: 'audit.k8s.io/v1 Policy (default: Metadata for every request)' },
  'audit-log-maxsize': { type: 'number', default: 100, help: 'megabytes before the audit log is rotated' },
  'audit-log-maxbackup': { type: 'number', default: 10, help: 'rotated audit logs kept' },
  'audit-log-maxage': { type: 'number', default: 0, help: 'days a rotated audit log is kept (0: no limit)' },
  help: { type: 'boolean', help: 'print this help' },
} satisfies FlagSpec;

/** A comma-separated flag's values. */
const list = (v: string): string[] =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Runs the apiserver command with `argv` (flags only). */
export async function apiserverMain(argv: string[]): Promise<void> {
  const flags = parseCommandFlags('apiserver', argv, FLAGS);
  if (!flags) return;
  if (!(flags['event-ttl'] > 0)) {
    process.stderr.write(`ksim apiserver: flag --event-ttl: must be more than 0 seconds, not ${flags['event-ttl']}\n`);
    process.exit(2);
  }
  let history: ReturnType<typeof parseHistoryFlag>;
  try {
    history = parseHistoryFlag(flags.history);
  } catch (err) {
    process.stderr.write(`ksim apiserver: flag --history: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const modes = list(flags['authorization-mode']);
  const badMode = modes.find((m) => m !== 'Node' && m !== 'RBAC' && m !== 'AlwaysAllow');
  const disabledPlugins = list(flags['disable-admission-plugins']);
  const badPlugin = disabledPlugins.find((p) => !(OPTIONAL_ADMISSION_PLUGINS as readonly string[]).includes(p));
  if (badMode !== undefined || modes.length === 0 || badPlugin !== undefined) {
    process.stderr.write(
      badPlugin !== undefined
        ? `ksim apiserver: flag --disable-admission-plugins: unknown plugin "${badPlugin}" (known: ${OPTIONAL_ADMISSION_PLUGINS.join(', ')})\n`
        : `ksim apiserver: flag --authorization-mode: "${flags['authorization-mode']}": each mode must be Node, RBAC or AlwaysAllow\n`,
    );
    process.exit(2);
  }
  const log = createLogger('apiserver');
  let server: Awaited<ReturnType<typeof startApiserver>>;
  try {
    server = await startApiserver({
      dataDir: flags['data-dir'],
      port: flags.port,
      host: flags['bind-address'],
      log,
      compaction: { intervalMs: flags['compaction-interval'] * 1000, maxEvents: flags['watch-window-events'] },
      bookmarkIntervalMs: flags['bookmark-interval'] * 1000,
      eventTtlMs: flags['event-ttl'] * 1000,
      history,
      createWorkers: flags['create-workers'] >= 0 ? flags['create-workers'] : undefined,
      insecureHttp: flags['insecure-http'],
      authorizationModes: modes as ('Node' | 'RBAC' | 'AlwaysAllow')[],
      disabledAdmissionPlugins: disabledPlugins,
      advertiseAddresses: list(flags['advertise-address']),
      audit: {
        path: flags['audit-log-path'] || undefined,
        policyFile: flags['audit-policy-file'] || undefined,
        maxSizeMb: flags['audit-log-maxsize'],
        maxBackups: flags['audit-log-maxbackup'],
        maxAgeDays: flags['audit-log-maxage'],
      },
      authn: {
        serviceAccountIssuer: flags['service-account-issuer'] || undefined,
        apiAudiences: list(flags['api-audiences']),
        tokenAuthFile: flags['token-auth-file'] || undefined,
        oidc: flags['oidc-issuer-url']
          ? {
              issuerUrl: flags['oidc-issuer-url'],
              clientId: flags['oidc-client-id'],
              usernameClaim: flags['oidc-username-claim'],
              usernamePrefix: flags['oidc-username-prefix'] || undefined,
              groupsClaim: flags['oidc-groups-claim'] || undefined,
              groupsPrefix: flags['oidc-groups-prefix'] || undefined,
              caFile: flags['oidc-ca-file'] || undefined,
              jwksFile: flags['oidc-jwks-file'] || undefined,
            }
          : undefined,
      },
    });
  } catch (err) {
    const message = startFailureMessage(err, { dataDir: flags['data-dir'], host: flags['bind-address'], port: flags.port });
    // No stack: the message says all a user needs, and the cause's own words are kept.
    log.fatal(
      { dataDir: flags['data-dir'], port: flags.port, cause: describeStorageFailure(err instanceof StorageOpenError ? err.cause : err) },
      message,
    );
    log.flush();
    process.stderr.write(`ksim apiserver: ${message}\n`, () => process.exit(1));
    return;
  }
  handleShutdown(log, () => server.close());
  // Under `ksim up`: the supervisor's chaos ops (request and watch faults, compaction) on the IPC channel.
  registerApiserverChaos(server.store, log);
  serveControl(log);
  if (process.send) {
    process.send({
      type: 'serving',
      pid: process.pid,
      port: server.port,
      url: server.url,
      kubeconfig: server.kubeconfig,
    } satisfies ServingMessage);
    // The channel only reports; it must not keep the process alive or be what stops it.
    process.channel?.unref();
  }
}

/** What the apiserver tells a supervisor on its IPC channel once it serves. */
export interface ServingMessage {
  type: 'serving';
  pid: number;
  port: number;
  /** https://HOST:PORT, or http:// on --insecure-http. */
  url: string;
  /** The admin kubeconfig it wrote. */
  kubeconfig: string;
}

/** One line saying why the apiserver could not start, naming the data dir or the address. */
export function startFailureMessage(err: unknown, where: { dataDir: string; host: string; port: number }): string {
  const e = err as NodeJS.ErrnoException & { path?: string };
  if (e instanceof StorageOpenError) return `data dir ${where.dataDir}: ${e.message}`;
  if (e?.code === 'EADDRINUSE')
    return `cannot serve on ${where.host}:${where.port}: the address is already in use (EADDRINUSE): is another ksim apiserver running?`;
  if (e?.code === 'EACCES' && e.syscall === 'listen') return `cannot serve on ${where.host}:${where.port}: permission denied (EACCES)`;
  if (e?.code === 'EADDRNOTAVAIL') return `cannot serve on ${where.host}:${where.port}: the address is not available here (EADDRNOTAVAIL)`;
  if (e instanceof StatusError) return `data dir ${where.dataDir}: could not write the bootstrap objects: ${e.message}`;
  return `could not start (data dir ${where.dataDir}): ${e?.message ?? String(err)}`;
}
