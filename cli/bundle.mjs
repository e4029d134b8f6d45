// Runs the ksim sources from an esbuild build rather than through tsx's
// loader hooks, which compile ~300 modules one by one on a loader thread:
// about 0.9 s of every process start (apiserver, each component, each test
// cluster). There is still no build step: the build lives in
// node_modules/.cache/ksim/, the file `current` there names its directory and
// lists every file it was built from with its mtime and size, and it is
// rebuilt (about 0.3 s) as soon as one of them differs, so an edit is never
// served stale. Should building be impossible (esbuild missing, a syntax
// error), tsx runs the sources as before and reports the error itself.
//
// The build is split at cli/main.ts's dynamic imports: each command (up,
// apiserver, scheduler, ...) is its own chunk, with chunks for the code they
// share, so a process parses only its own code and loads only the packages
// that code imports (the scheduler never loads level, jose or
// @peculiar/x509). A build goes into a new directory and `current` is then
// replaced by a rename, so processes starting together never see half a
// build, and a running process that imports a chunk later (the apiserver's
// create workers) still finds the build it started from: older builds are
// removed only once they are an hour old.
//
// The packages are bundled into the chunks too: Node resolving each bare
// import (stat, realpath, package.json reads per file) and compiling each
// CommonJS file in its own wrapper was about half of a process's start
// (the apiserver's code load 1.29 -> 0.6 s of CPU, each component's
// 0.6 -> 0.35 s). A chunk gets a `require` of its own (createRequire) for the
// Node built-ins those CommonJS packages require. Left outside: the packages
// that find files of their own at run time (classic-level's native binding,
// thread-stream's worker, which pino's transports start), optional native add-ons, and the build tools.
// node_modules files are not fingerprinted one by one: the lock files
// npm rewrites on every install stand for them.
//
// There are no source maps (Node parsing a 2 MB map cost ~70 ms per start):
// a stack trace points into the chunks, where a `// path/file.ts` comment
// heads each module's code. KSIM_NO_BUNDLE=1 runs through tsx, with .ts lines
// in stack traces. KSIM_BUNDLE_CACHE moves the cache (tests); it must stay
// inside this checkout's node_modules, where the chunks find the packages.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const ENTRY = path.join(ROOT, 'cli', 'main.ts');
const CACHE = process.env.KSIM_BUNDLE_CACHE || path.join(ROOT, 'node_modules', '.cache', 'ksim');
/** The pointer to the current build: one JSON line { root, dir, inputs }. */
const CURRENT = path.join(CACHE, 'current');
/** Builds other than the current one are removed once this old. */
const STALE_BUILD_MS = 60 * 60 * 1000;
/** Files that shape the bundle without being modules of it (the lock files stand for node_modules). */
const BUILD_INPUTS = ['cli/bundle.mjs', 'tsconfig.json', 'package.json', 'package-lock.json', 'node_modules/.package-lock.json'];
/** Packages imported from node_modules at run time rather than bundled: they load files relative to their own directory. */
const EXTERNAL = ['classic-level', 'level', 'thread-stream', 'bufferutil', 'utf-8-validate', 'esbuild', 'tsx'];
/** A chunk's own `require`, for the built-ins (and external packages) that bundled CommonJS code requires. */
const BANNER = "import { createRequire as __ksimCreateRequire } from 'node:module'; const require = __ksimCreateRequire(import.meta.url);";
/** mtimes this close to the build's start may belong to an edit the build did not see. */
const MTIME_SLACK_MS = 2000;

/** Imports cli/main.ts: from the bundle when it is current or can be rebuilt, else through tsx. */
export async function loadMain() {
  if (process.env.KSIM_NO_BUNDLE !== '1') {
    const dir = currentBuild() ?? (await rebuild());
    if (dir) return import(pathToFileURL(path.join(dir, 'main.mjs')).href);
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import('./main.ts');
}

/** [path relative to the root, mtimeMs, size], or undefined for a file that is gone. */
function fingerprint(rel) {
  try {
    const st = fs.statSync(path.join(ROOT, rel));
    return [rel, st.mtimeMs, st.size];
  } catch {
    return undefined;
  }
}

/** The current build's record, or undefined when there is none (or it is unreadable, or from another checkout). */
function readCurrent() {
  try {
    const recorded = JSON.parse(fs.readFileSync(CURRENT, 'utf8'));
    // The build holds absolute paths (see importMetaUrl): a moved checkout needs a new one.
    if (recorded.root !== ROOT || typeof recorded.dir !== 'string' || !Array.isArray(recorded.inputs)) return undefined;
    return recorded;
  } catch {
    return undefined;
  }
}

/** The directory of the current build when every file it was built from is unchanged. */
export function currentBuild() {
  const recorded = readCurrent();
  if (!recorded) return undefined;
  for (const [rel, mtimeMs, size] of recorded.inputs) {
    const now = fingerprint(rel);
    if (!now || now[1] !== mtimeMs || now[2] !== size) return undefined;
  }
  const dir = path.join(CACHE, recorded.dir);
  return fs.existsSync(path.join(dir, 'main.mjs')) ? dir : undefined;
}

/**
 * esbuild moves every module into the bundle's file, so each module's own
 * import.meta.url (used to find the JSON beside it, or ksim.mjs) is written
 * into it as a literal: the sources behave the same bundled or not.
 */
const importMetaUrl = {
  name: 'ksim-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?ts$/ }, async ({ path: file }) => {
      const source = await fs.promises.readFile(file, 'utf8');
      if (!source.includes('import.meta.')) return undefined;
      const own = { url: pathToFileURL(file).href, dirname: path.dirname(file), filename: file };
      return {
        contents: source.replace(/\bimport\.meta\.(url|dirname|filename)\b/g, (_, what) => JSON.stringify(own[what])),
        loader: 'ts',
      };
    });
  },
};

/** esbuild comes with tsx: hoisted to the top of node_modules by npm, or else found from tsx's own directory. */
async function importEsbuild() {
  try {
    return await import('esbuild');
  } catch {
    try {
      const fromTsx = createRequire(fileURLToPath(import.meta.resolve('tsx/package.json')));
      return await import(pathToFileURL(fromTsx.resolve('esbuild')).href);
    } catch {
      return undefined;
    }
  }
}

/** Builds into a new directory and makes it current; its path, or false when it cannot be built (the caller falls back to tsx). */
export async function rebuild() {
  const esbuild = await importEsbuild();
  if (!esbuild) return false;
  const started = Date.now();
  const name = `build-${started}-${process.pid}`;
  const dir = path.join(CACHE, name);
  let result;
  try {
    result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: { main: ENTRY },
      outdir: dir,
      entryNames: '[name]',
      chunkNames: 'chunk-[hash]',
      outExtension: { '.js': '.mjs' },
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      external: EXTERNAL.flatMap((p) => [p, `${p}/*`]),
      banner: { js: BANNER },
      // Error types and functions keep their names (pino logs err.type, for one).
      keepNames: true,
      metafile: true,
      write: false,
      logLevel: 'silent',
      plugins: [importMetaUrl],
    });
  } catch {
    return false;
  } finally {
    // The esbuild service process is not needed again in this process.
    void esbuild.stop?.();
  }
  const sources = Object.keys(result.metafile.inputs).filter((rel) => !rel.split('/').includes('node_modules'));
  const inputs = [...sources, ...BUILD_INPUTS].map((rel) => {
    const fp = fingerprint(rel) ?? [rel, -1, -1];
    // Possibly edited while esbuild was reading it: make the next start check again.
    if (fp[1] > started - MTIME_SLACK_MS) fp[1] = -1;
    return fp;
  });
  // The chunks are written first, then `current` is replaced by a rename: a process starting meanwhile sees the old build or the new one.
  const tmp = `${CURRENT}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(dir, { recursive: true });
    for (const file of result.outputFiles) fs.writeFileSync(file.path, file.contents);
    fs.writeFileSync(tmp, `${JSON.stringify({ root: ROOT, dir: name, inputs })}\n`);
    fs.renameSync(tmp, CURRENT);
  } catch {
    // A read-only install, a full disk: run through tsx instead.
    fs.rmSync(tmp, { force: true });
    fs.rmSync(dir, { recursive: true, force: true });
    return false;
  }
  removeStaleBuilds(name, started);
  return dir;
}

/** Removes builds other than `keep` that are over an hour old (and the single-file bundle of earlier versions). */
function removeStaleBuilds(keep, now) {
  let entries;
  try {
    entries = fs.readdirSync(CACHE, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const full = path.join(CACHE, e.name);
    try {
      if (e.isDirectory() && e.name.startsWith('build-') && e.name !== keep && now - fs.statSync(full).mtimeMs > STALE_BUILD_MS) {
        fs.rmSync(full, { recursive: true, force: true });
      } else if (e.name === 'ksim.mjs') {
        fs.rmSync(full, { force: true });
      }
    } catch {
      // Another process removed it first.
    }
  }
}
