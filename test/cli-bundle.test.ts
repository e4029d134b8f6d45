// The split build cli/bundle.mjs runs the sources from: built on first use
// into a build directory named by `current`, reused while no input changed,
// rebuilt when `current` is unusable, and stale builds removed; each command
// loads only the packages its own code imports (the scheduler neither the
// certificate library nor the database; the apiserver both), bundled into its
// chunks or, for the database, from node_modules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ksimCli, onExit, repoRoot } from './helpers/index.ts';

const run = promisify(execFile);

/** A build cache of this test's own, inside node_modules (the chunks import the packages from there). */
function cacheDir(): string {
  mkdirSync(join(repoRoot, 'node_modules', '.cache'), { recursive: true });
  const dir = mkdtempSync(join(repoRoot, 'node_modules', '.cache', 'ksim-test-'));
  onExit(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** `ksim ARGS` with the build cache in `cache`. */
const ksim = (cache: string, ...args: string[]) =>
  run(process.execPath, [ksimCli, ...args], { env: { ...process.env, KSIM_BUNDLE_CACHE: cache } });

const currentDir = (cache: string): string => (JSON.parse(readFileSync(join(cache, 'current'), 'utf8')) as { dir: string }).dir;

/**
 * The packages a command's process has loaded once its --help is printed:
 * those bundled into the chunks it imported (esbuild heads each module's code
 * with a `// node_modules/<package>/...` comment; a loader hook records the
 * chunks), and those it required from node_modules (level, classic-level).
 */
async function packagesLoaded(cache: string, command: string): Promise<string[]> {
  const record = join(cache, `loaded-${command}.txt`);
  const hook = `
    import { appendFileSync } from 'node:fs';
    export async function resolve(specifier, context, next) {
      const r = await next(specifier, context);
      appendFileSync(${JSON.stringify(record)}, r.url + '\\n');
      return r;
    }
  `;
  const script = `
    import { createRequire, register } from 'node:module';
    register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});
    const { loadMain } = await import(${JSON.stringify(new URL('../cli/bundle.mjs', import.meta.url).href)});
    const { main } = await loadMain();
    const out = process.stdout.write.bind(process.stdout);
    process.stdout.write = () => true;
    await main([${JSON.stringify(command)}, '--help']);
    out(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, KSIM_BUNDLE_CACHE: cache },
  });
  const chunks = readFileSync(record, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:') && url.includes(`/${currentDir(cache)}/`));
  const files = [...(JSON.parse(stdout) as string[])];
  for (const url of chunks)
    for (const m of readFileSync(new URL(url), 'utf8').matchAll(/^\/\/ (\S*node_modules\/\S+)$/gm)) files.push(m[1]);
  const names = files.map((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)?.[1]).filter((n): n is string => n !== undefined);
  return [...new Set(names)].sort();
}

test('the first start builds into the directory `current` names; later starts reuse it', async () => {
  const cache = cacheDir();
  await ksim(cache, '--help');
  const dir = currentDir(cache);
  assert.match(dir, /^build-\d+-\d+$/);
  assert.ok(existsSync(join(cache, dir, 'main.mjs')));
  await ksim(cache, '--help');
  assert.equal(currentDir(cache), dir);
});

test('an unreadable `current` is rebuilt, and builds an hour old are removed, the current one kept', async () => {
  const cache = cacheDir();
  mkdirSync(join(cache, 'build-1-1'));
  mkdirSync(join(cache, 'build-2-2'));
  const hourAgo = new Date(Date.now() - 2 * 3600_000);
  utimesSync(join(cache, 'build-1-1'), hourAgo, hourAgo);
  writeFileSync(join(cache, 'current'), '{"root":');
  await ksim(cache, '--help');
  const dir = currentDir(cache);
  assert.ok(existsSync(join(cache, dir, 'main.mjs')));
  assert.equal(existsSync(join(cache, 'build-1-1')), false, 'a stale build is removed');
  assert.equal(existsSync(join(cache, 'build-2-2')), true, 'a recent build may still be running somewhere');
});

test('each command loads only its own packages', async () => {
  const cache = cacheDir();
  await ksim(cache, '--help');
  const scheduler = await packagesLoaded(cache, 'scheduler');
  assert.ok(scheduler.includes('express'), String(scheduler));
  for (const p of ['@peculiar/x509', 'level', 'classic-level']) assert.ok(!scheduler.includes(p), `the scheduler loaded ${p}`);
  const up = await packagesLoaded(cache, 'up');
  for (const p of ['@peculiar/x509', 'level', 'express']) assert.ok(!up.includes(p), `ksim up loaded ${p}`);
  const apiserver = await packagesLoaded(cache, 'apiserver');
  for (const p of ['@peculiar/x509', 'classic-level', 'express'])
    assert.ok(apiserver.includes(p), `the apiserver did not load ${p}: ${apiserver.join(' ')}`);
});
