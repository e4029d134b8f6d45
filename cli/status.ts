// `ksim status --data-dir DIR`: one line per component with its pid, whether
// it is alive (checked now, not just as recorded) and its endpoint. The
// apiserver's row also says when it is up but not ready, and which of its
// /readyz checks fail (etcd: its storage refuses writes, e.g. a full disk).
import path from 'node:path';
import { parseCommandFlags, type FlagSpec } from '../shared/cli/flags.ts';
import { readClusterState } from './cluster-state.ts';

const FLAGS = {
  'data-dir': { type: 'string', default: '.ksim', help: 'the cluster data directory' },
  help: { type: 'boolean', help: 'print this help' },
} satisfies FlagSpec;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The names of the /readyz checks that fail ("[-]etcd failed: ..."), or undefined when ready. */
async function failingReadyChecks(endpoint: string): Promise<string[] | undefined> {
  try {
    const res = await fetch(`${endpoint}/readyz`, { signal: AbortSignal.timeout(2000) });
    const body = await res.text();
    if (res.ok) return undefined;
    return [...body.matchAll(/^\[-\]([\w./-]+) failed/gm)].map((m) => m[1]);
  } catch {
    return [];
  }
}

/** Runs `ksim status`; exits 1 when no cluster state is found. */
export async function statusMain(argv: string[]): Promise<void> {
  const flags = parseCommandFlags('status', argv, FLAGS);
  if (!flags) return;
  const dataDir = path.resolve(flags['data-dir']);
  const state = readClusterState(dataDir);
  if (!state) {
    process.stderr.write(`ksim status: no cluster has been started in ${dataDir}\n`);
    process.exit(1);
  }
  const rows = [['COMPONENT', 'PID', 'STATE', 'ENDPOINT']];
  for (const c of state.components) {
    const running = c.state === 'running' && alive(c.pid);
    let health = running ? 'running' : c.state === 'running' ? 'dead' : `exited(${c.exitCode ?? c.signal ?? '?'})`;
    if (running && c.endpoint) {
      const ok = await fetch(`${c.endpoint}/healthz`, { signal: AbortSignal.timeout(2000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (!ok) health = 'unhealthy';
      else if (c.name === 'apiserver') {
        const failing = await failingReadyChecks(c.endpoint);
        if (failing) health = `not-ready(${failing.join(',') || '?'})`;
      }
    }
    rows.push([c.name, String(c.pid), health, c.endpoint]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows)
    process.stdout.write(
      r
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('   ')
        .trimEnd() + '\n',
    );
}
