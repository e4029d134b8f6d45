// Runs the real kubectl and helm (from .tools/bin, see
// scripts/setup-kubectl.mjs) against a test cluster. Each kubeconfig gets its
// own HOME, so kubectl's discovery cache and helm's config never leak from
// one cluster (or test) to another, nor from the developer's own home.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { resolve } from 'node:path';
import { onExit } from './cleanup.ts';
import { helmBin, kubectlBin, repoRoot } from './paths.ts';
import { tempDir } from './temp-dir.ts';

/** Options for one kubectl or helm invocation. */
export interface ToolOptions {
  /** Path of the kubeconfig, passed as --kubeconfig. */
  kubeconfig: string;
  /** Written to the process's stdin (e.g. a manifest for `apply -f -`). */
  input?: string;
  /** Killed after this long (default 30000 ms); the result then has code 124. */
  timeoutMs?: number;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Working directory (default: the repository root). */
  cwd?: string;
}

/** What a kubectl or helm run produced. */
export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
  /** True when the run was killed by the timeout. */
  timedOut: boolean;
}

const defaultTimeoutMs = 30_000;
const homes = new Map<string, Promise<string>>();

/** The private HOME used for every run against this kubeconfig. */
export function homeFor(kubeconfig: string): Promise<string> {
  const key = resolve(kubeconfig);
  let home = homes.get(key);
  if (!home) {
    home = tempDir('home');
    homes.set(key, home);
  }
  return home;
}

async function runTool(bin: string, args: string[], opts: ToolOptions): Promise<ToolResult> {
  const home = await homeFor(opts.kubeconfig);
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Anything that would point kubectl or helm outside the private HOME.
  for (const name of Object.keys(env)) {
    if (/^(KUBECONFIG|KUBECACHEDIR|XDG_.*_HOME|HELM_.*)$/.test(name)) delete env[name];
  }
  Object.assign(env, {
    HOME: home,
    KUBECONFIG: resolve(opts.kubeconfig),
    HELM_CACHE_HOME: `${home}/.cache/helm`,
    HELM_CONFIG_HOME: `${home}/.config/helm`,
    HELM_DATA_HOME: `${home}/.local/share/helm`,
    ...opts.env,
  });
  const child = spawn(bin, ['--kubeconfig', resolve(opts.kubeconfig), ...args], {
    cwd: opts.cwd ?? repoRoot,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const unregister = onExit(() => child.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  // EPIPE when the tool exits without reading stdin is not our failure.
  child.stdin.on('error', () => {});
  child.stdin.end(opts.input ?? '');

  let timedOut = false;
  const timeoutMs = opts.timeoutMs ?? defaultTimeoutMs;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  try {
    const code = await new Promise<number>((resolveCode, reject) => {
      child.once('error', reject);
      child.once('close', (c, signal) => resolveCode(c ?? 128 + (signal ? constants.signals[signal] : 0)));
    });
    if (timedOut) return { code: 124, stdout, stderr: `${stderr}\n(killed after ${timeoutMs} ms)`, timedOut };
    return { code, stdout, stderr, timedOut };
  } finally {
    clearTimeout(timer);
    unregister();
  }
}

/** Runs `.tools/bin/kubectl --kubeconfig K ...args`; never rejects on a non-zero exit. */
export function kubectl(args: string[], opts: ToolOptions): Promise<ToolResult> {
  return runTool(kubectlBin, args, opts);
}

/** Runs `.tools/bin/helm --kubeconfig K ...args`; never rejects on a non-zero exit. */
export function helm(args: string[], opts: ToolOptions): Promise<ToolResult> {
  return runTool(helmBin, args, opts);
}
