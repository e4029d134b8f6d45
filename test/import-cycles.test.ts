// The import-graph walk behind scripts/check-import-cycles.mjs (run by
// `npm test`): it finds circles, type-only ones included, and the tree has none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { findCycles, importsOf } from '../scripts/check-import-cycles.mjs';
import { repoRoot } from './helpers/index.ts';

test('circles are found, self-imports too; a tree without one has none', () => {
  const graph = new Map<string, string[]>([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a', 'd']],
    ['d', []],
    ['e', ['e']],
    ['f', ['d']],
  ]);
  const cycles = findCycles(graph);
  assert.deepEqual(cycles.map((c) => [...c].sort()).sort(), [['a', 'b', 'c'], ['e']]);
  assert.deepEqual(
    findCycles(
      new Map([
        ['x', ['y']],
        ['y', []],
      ]),
    ),
    [],
  );
});

test('every kind of import counts, comments do not', () => {
  const file = join(repoRoot, 'apiserver', 'app.ts');
  const text = [
    "import type { Store } from './storage/store.ts';",
    "import { x } from './request-info.ts';",
    "export * from './version.ts';",
    "export { y } from './metrics.ts';",
    "import './bootstrap.ts';",
    "const m = await import('./discovery.ts');",
    "// import { z } from './api-handler.ts';",
    "/* import { w } from './main.ts'; */",
    "import express from 'express';",
  ].join('\n');
  const got = importsOf(file, text)
    .map((p) => p.slice(join(repoRoot, 'apiserver').length + 1))
    .sort();
  assert.deepEqual(got, ['bootstrap.ts', 'discovery.ts', 'metrics.ts', 'request-info.ts', 'storage/store.ts', 'version.ts']);
});

test('the project has no circular imports', () => {
  const res = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'check-import-cycles.mjs')], { encoding: 'utf8' });
  assert.equal(res.status, 0, res.stderr);
});
