// Locations inside the repository that the end-to-end helpers need, resolved
// from this file so tests work from any working directory.
import { fileURLToPath } from 'node:url';

/** Absolute path of the repository root. */
export const repoRoot: string = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');

/** The ksim command line entry point (`node cli/ksim.mjs ...`). */
export const ksimCli: string = `${repoRoot}/cli/ksim.mjs`;

/**
 * Node's arguments for a spawned ksim process: with BENCH_CPU_PROF=DIR set,
 * every process the tests or benchmarks start writes a V8 CPU profile into
 * DIR when it exits (Node refuses --cpu-prof in NODE_OPTIONS).
 */
export function ksimNodeArgs(): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, ksimCli] : [ksimCli];
}

/** The kubectl binary installed by scripts/setup-kubectl.mjs. */
export const kubectlBin: string = `${repoRoot}/.tools/bin/kubectl`;

/** The helm binary installed by scripts/setup-kubectl.mjs. */
export const helmBin: string = `${repoRoot}/.tools/bin/helm`;
