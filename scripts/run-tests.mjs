// What `npm test` runs: installs kubectl/helm from the local layer.zip if they
// are missing, checks formatting (Prettier), lint errors (ESLint; the `any`
// warnings are for `npm run lint`) and circular imports, type-checks the
// project (tsx does not), then runs every *.test.ts with node:test. Node 20 does not expand `**` globs for
// `node --test`, so the files are listed here.
//
//   npm test                                  every test file
//   npm test -- apiserver/storage/x.test.ts   just that file (or a directory)
//   npm test -- --test-name-pattern=watch     extra flags go to `node --test`
//
// Every file is its own process. The unit files (outside test/) are light and
// run as many at once as the machine has cores; the end-to-end files in
// test/ each start an apiserver or a whole cluster and run
// KSIM_E2E_CONCURRENCY (default 1: on two cores a second cluster only
// slows the first, the run took as long, and load-bound timings flake) at once.
//
// Environment: KSIM_TEST_TIMEOUT_MS (default 120000) bounds each test and each
// test file; KSIM_SKIP_TYPECHECK=1 skips the format, lint, import and type
// checks when iterating on one file.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { availableParallelism, constants } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const testRoots = ['apiserver', 'controller-manager', 'scheduler', 'kubelet-sim', 'shared', 'cli', 'ui', 'bench', 'test'];
const timeoutMs = Number(process.env.KSIM_TEST_TIMEOUT_MS ?? 120000);

/** Runs a command with inherited stdio from the repo root and returns its exit code. */
function run(cmd, args) {
  const res = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (res.error) {
    console.error(`run-tests: could not run ${cmd}: ${res.error.message}`);
    return 1;
  }
  // Killed by a signal: report it the way a shell would.
  return res.status ?? 128 + (constants.signals[res.signal] ?? 1);
}

/** Runs a command from the repo root with its output captured; resolves with its exit code and output. */
function runCaptured(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (err) => resolve({ code: 1, output: `could not run ${cmd}: ${err.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? 128 + (constants.signals[signal] ?? 1), output }));
  });
}

/**
 * The format, lint, import-cycle and type checks, one after another (side by
 * side they took longer on two cores: tsc and ESLint each want a whole
 * core); each one's output is printed when it ends. The local tools are run
 * by node directly: `npx` could reach for the network.
 */
async function runChecks() {
  const checks = [
    ['prettier --check .', 'node_modules/prettier/bin/prettier.cjs', ['--check', '--log-level', 'warn', '.']],
    ['eslint --quiet .', 'node_modules/eslint/bin/eslint.js', ['--quiet', '.']],
    ['check-import-cycles', 'scripts/check-import-cycles.mjs', []],
    ['tsc --noEmit -p .', 'node_modules/typescript/bin/tsc', ['--noEmit', '-p', '.']],
    // The web UI's TSX and DOM code has its own compiler options (ui/tsconfig.json).
    ['tsc --noEmit -p ui', 'node_modules/typescript/bin/tsc', ['--noEmit', '-p', 'ui']],
  ];
  const started = Date.now();
  for (const [name, script, args] of checks) {
    console.log(`run-tests: ${name}`);
    const t0 = Date.now();
    const r = await runCaptured(process.execPath, [join(root, script), ...args]);
    process.stdout.write(r.output);
    const took = `${((Date.now() - t0) / 1000).toFixed(1)} s`;
    if (r.code !== 0) {
      console.error(`run-tests: ${name} failed (${took})${name.startsWith('prettier') ? ' (npm run format fixes formatting)' : ''}`);
      return r.code;
    }
    console.log(`run-tests: ${name} passed (${took})`);
  }
  console.log(`run-tests: checks took ${Math.round((Date.now() - started) / 1000)} s`);
  return 0;
}

/** Lists *.test.ts files under dir (recursively), skipping node_modules and dot directories. */
function findTests(dir, out = []) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) findTests(p, out);
    else if (e.isFile() && e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/**
 * Splits argv into test files (existing files, or directories to search),
 * arguments that look like paths but do not exist, and flags for node.
 */
function parseArgs(argv) {
  const files = [];
  const missing = [];
  const flags = [];
  let selected = false;
  // npm runs scripts from the package root; INIT_CWD is where `npm test` was typed.
  const bases = [...new Set([process.env.INIT_CWD, process.cwd(), root].filter(Boolean))];
  for (const arg of argv) {
    const abs = bases.map((b) => resolve(b, arg)).find((p) => existsSync(p)) ?? resolve(arg);
    if (!arg.startsWith('-') && existsSync(abs)) {
      selected = true;
      if (statSync(abs).isDirectory()) files.push(...findTests(abs));
      else files.push(abs);
    } else if (!arg.startsWith('-') && (arg.includes('/') || /\.[cm]?[jt]s$/.test(arg))) {
      missing.push(arg);
    } else {
      flags.push(arg);
    }
  }
  return { files, missing, flags, selected: selected || missing.length > 0 };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.missing.length > 0) {
    console.error(`run-tests: no such file or directory: ${args.missing.join(' ')}`);
    return 1;
  }

  if (!existsSync(join(root, '.tools/bin/kubectl')) || !existsSync(join(root, '.tools/bin/helm'))) {
    const code = run(process.execPath, [join(root, 'scripts/setup-kubectl.mjs')]);
    if (code !== 0) return code;
  }

  if (process.env.KSIM_SKIP_TYPECHECK !== '1') {
    const code = await runChecks();
    if (code !== 0) return code;
  }

  const files = args.selected ? args.files : testRoots.flatMap((d) => findTests(join(root, d)));
  files.sort();
  if (files.length === 0) {
    console.log('run-tests: no *.test.ts files found');
    return 0;
  }
  const timeoutFlag = args.flags.some((f) => f.startsWith('--test-timeout')) ? [] : [`--test-timeout=${timeoutMs}`];
  const e2eDir = join(root, 'test') + '/';
  const e2e = files.filter((f) => f.startsWith(e2eDir));
  const unit = files.filter((f) => !f.startsWith(e2eDir));
  const phases = [
    { name: 'unit', files: unit, concurrency: Math.max(2, availableParallelism()) },
    { name: 'end-to-end', files: e2e, concurrency: Number(process.env.KSIM_E2E_CONCURRENCY ?? 1) },
  ].filter((p) => p.files.length > 0);
  let code = 0;
  for (const phase of phases) {
    const concurrency = args.flags.some((f) => f.startsWith('--test-concurrency')) ? [] : [`--test-concurrency=${phase.concurrency}`];
    console.log(`run-tests: ${phase.files.length} ${phase.name} test file(s), ${phase.concurrency} at a time`);
    const started = Date.now();
    const phaseCode = run(process.execPath, [
      '--import',
      'tsx',
      '--test',
      '--test-reporter=spec',
      ...timeoutFlag,
      ...concurrency,
      ...args.flags,
      ...phase.files.map((f) => relative(root, f)),
    ]);
    console.log(`run-tests: ${phase.name} files took ${Math.round((Date.now() - started) / 1000)} s (exit ${phaseCode})`);
    if (phaseCode !== 0 && code === 0) code = phaseCode;
  }
  return code;
}

process.exitCode = await main();
