// Builds the browser app once, in memory, when the UI server starts: esbuild
// bundles ui/app/main.tsx (Preact with TSX) and its CSS; nothing is written
// to disk and npm has no build step.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The built app: one script and one stylesheet. */
export interface AppBundle {
  js: string;
  css: string;
}

const APP_ENTRY = join(dirname(fileURLToPath(import.meta.url)), '..', 'app', 'main.tsx');

/** Bundles the app (minified unless `dev`). */
export async function buildApp(opts: { dev?: boolean } = {}): Promise<AppBundle> {
  const result = await build({
    entryPoints: [APP_ENTRY],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: !opts.dev,
    sourcemap: opts.dev ? 'inline' : false,
    outdir: '/ksim-ui',
    logLevel: 'silent',
  });
  const file = (ext: string) => result.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? '';
  return { js: file('.js'), css: file('.css') };
}
