// Runs the ksim sources from one esbuild bundle rather than through tsx's
// loader hooks, which compile ~300 modules one by one on a loader thread:
// about 0.9 s of every process start (apiserver, each component, each test
// cluster). There is still no build step: the bundle lives in
// node_modules/.cache/ksim/, its first line lists every file it was built
// from with its mtime and size, and it is rebuilt (about 0.3 s) as soon as
// one of them differs, so an edit is never served stale. Should bundling be
// impossible (esbuild missing, a syntax error), tsx runs the sources as
// before and reports the error itself. The bundle has no source map (Node
// parsing its 2 MB map cost ~70 ms per start): a stack trace points into
// ksim.mjs, where a `// path/file.ts` comment heads each module's code.
// KSIM_NO_BUNDLE=1 runs through tsx, with .ts lines in stack traces.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const ENTRY = path.join(ROOT, 'cli', 'main.ts');
const BUNDLE = path.join(ROOT, 'node_modules', '.cache', 'ksim', 'ksim.mjs');
const HEADER = '// ksim-bundle ';
/** Files that shape the bundle without being modules of it. */
const BUILD_INPUTS = ['cli/bundle.mjs', 'tsconfig.json', 'package.json'];
/** mtimes this close to the build's start may belong to an edit the build did not see. */
const MTIME_SLACK_MS = 2000;

/** Imports cli/main.ts: from the bundle when it is current or can be rebuilt, else through tsx. */
export async function loadMain() {
  if (process.env.KSIM_NO_BUNDLE !== '1' && (isCurrent() || (await rebuild()))) {
    return import(pathToFileURL(BUNDLE).href);
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

/** Reads the input list from the bundle's first line (without reading the whole ~1 MB file). */
function recordedInputs() {
  let fd;
  try {
    fd = fs.openSync(BUNDLE, 'r');
  } catch {
    return undefined;
  }
  try {
    let bytes = Buffer.alloc(0);
    let nl = -1;
    while (nl < 0) {
      const chunk = Buffer.alloc(64 * 1024);
      const n = fs.readSync(fd, chunk, 0, chunk.length, bytes.length);
      if (n === 0) return undefined;
      bytes = Buffer.concat([bytes, chunk.subarray(0, n)]);
      nl = bytes.indexOf(10);
    }
    const head = bytes.toString('utf8', 0, nl);
    if (!head.startsWith(HEADER)) return undefined;
    const recorded = JSON.parse(head.slice(HEADER.length));
    // The bundle holds absolute paths (see importMetaUrl): a moved checkout needs a new one.
    return recorded.root === ROOT ? recorded.inputs : undefined;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

function isCurrent() {
  const inputs = recordedInputs();
  if (!Array.isArray(inputs)) return false;
  for (const [rel, mtimeMs, size] of inputs) {
    const now = fingerprint(rel);
    if (!now || now[1] !== mtimeMs || now[2] !== size) return false;
  }
  return true;
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

/** Builds the bundle; false when it cannot be built (the caller falls back to tsx). */
async function rebuild() {
  const esbuild = await importEsbuild();
  if (!esbuild) return false;
  const started = Date.now();
  let result;
  try {
    result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: [ENTRY],
      outfile: BUNDLE,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
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
  const inputs = [...Object.keys(result.metafile.inputs), ...BUILD_INPUTS].map((rel) => {
    const fp = fingerprint(rel) ?? [rel, -1, -1];
    // Possibly edited while esbuild was reading it: make the next start check again.
    if (fp[1] > started - MTIME_SLACK_MS) fp[1] = -1;
    return fp;
  });
  const code = result.outputFiles.find((f) => f.path === BUNDLE)?.text;
  if (code === undefined) return false;
  // Written aside and renamed: processes starting together never see half a file.
  const tmp = `${BUNDLE}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(BUNDLE), { recursive: true });
    fs.writeFileSync(tmp, `${HEADER}${JSON.stringify({ root: ROOT, inputs })}\n${code}`);
    fs.renameSync(tmp, BUNDLE);
    return true;
  } catch {
    // A read-only install, a full disk: run through tsx instead.
    fs.rmSync(tmp, { force: true });
    return false;
  }
}
