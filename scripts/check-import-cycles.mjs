// Fails when source files import each other in a circle. Walks every
// import and re-export (type-only ones too: a circle of types is still two
// files that cannot be read one without the other) between the project's
// .ts and .mjs files, finds the strongly connected components of that graph
// (Tarjan's algorithm), and prints each circle. Run by `npm test` and as
// `node scripts/check-import-cycles.mjs`.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sourceRoots = ['apiserver', 'controller-manager', 'scheduler', 'kubelet-sim', 'shared', 'cli', 'bench', 'test', 'scripts'];

/** Every .ts/.mjs file under dir. */
function sourceFiles(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out);
    else if (/\.(ts|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

// `import x from '...'`, `import type {...} from '...'`, `export * from '...'`, `import '...'`, `import('...')`.
const SPECIFIERS = /(?:^|[\s;])(?:import|export)\s(?:[^'";]*?\sfrom\s)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The project files `file` imports. */
export function importsOf(file, text) {
  const out = new Set();
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  for (const m of code.matchAll(SPECIFIERS)) {
    const spec = m[1] ?? m[2];
    if (!spec.startsWith('.')) continue;
    const target = resolve(dirname(file), spec);
    if (existsSync(target)) out.add(target);
  }
  return [...out];
}

/** The circles of a graph: its strongly connected components with more than one file, or a file importing itself. */
export function findCycles(graph) {
  let index = 0;
  const indexOf = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  const visit = (v) => {
    // Iterative DFS: the import graph is deep enough to make recursion a risk on its own.
    const work = [{ v, edges: graph.get(v) ?? [], i: 0 }];
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    while (work.length) {
      const frame = work[work.length - 1];
      if (frame.i < frame.edges.length) {
        const w = frame.edges[frame.i++];
        if (!indexOf.has(w)) {
          indexOf.set(w, index);
          low.set(w, index++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, edges: graph.get(w) ?? [], i: 0 });
        } else if (onStack.has(w)) {
          low.set(frame.v, Math.min(low.get(frame.v), indexOf.get(w)));
        }
        continue;
      }
      work.pop();
      if (work.length) low.set(work[work.length - 1].v, Math.min(low.get(work[work.length - 1].v), low.get(frame.v)));
      if (low.get(frame.v) === indexOf.get(frame.v)) {
        const component = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          component.push(w);
        } while (w !== frame.v);
        if (component.length > 1 || (graph.get(frame.v) ?? []).includes(frame.v)) cycles.push(component.reverse());
      }
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return cycles;
}

function main() {
  const files = sourceRoots.flatMap((d) => (existsSync(join(root, d)) ? sourceFiles(join(root, d)) : []));
  const graph = new Map(files.map((f) => [f, importsOf(f, readFileSync(f, 'utf8'))]));
  const cycles = findCycles(graph);
  if (cycles.length === 0) {
    console.log(`check-import-cycles: ${files.length} files, no circular imports`);
    return 0;
  }
  console.error(`check-import-cycles: ${cycles.length} circle(s) of imports:`);
  for (const c of cycles) console.error(`  ${c.map((f) => relative(root, f)).join(' <-> ')}`);
  return 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main();
