// What a container's command line makes it use, read once when it starts
// (the shell that runs it is not instrumented): a busy loop (`while true; do
// :; done`, `yes > /dev/null`, `dd if=/dev/zero of=/dev/null`, `md5sum
// /dev/zero`) keeps one core busy; `stress --cpu N` (or `-c N`),
// `stress-ng --cpu N` and vish/stress's `-cpus N` keep N; `stress --vm N
// --vm-bytes X` holds N times X and, unless `--vm-hang` lets its workers
// sleep, keeps N more cores busy touching it; `alloc X` holds X. Anything
// else (sleep, a loop that sleeps, a server) demands nothing beyond its
// image's baseline and the requests it serves.
import { parseBytes } from '../shell.ts';

/** The demand of a command: cores it would keep busy, bytes it holds. */
export interface Demand {
  cpuCores: number;
  memoryBytes: number;
}

const SHELLS = new Set(['sh', 'bash', 'ash', 'dash', 'zsh']);
const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** The script a command line runs: `sh -c SCRIPT`'s script, else the words joined. */
export function scriptOf(argv: readonly string[]): string {
  if (argv.length >= 3 && SHELLS.has(basename(argv[0]))) {
    const c = argv.indexOf('-c');
    if (c > 0 && argv[c + 1] !== undefined) return argv[c + 1];
  }
  return argv.map((a) => (/\s/.test(a) ? `'${a}'` : a)).join(' ');
}

/** Splits a script into simple commands at ; & | && || newlines and the loop keywords (enough to find the programs). */
function commands(script: string): string[][] {
  return script
    .split(/\|\||&&|[;&|\n]/)
    .map((c) =>
      c
        .trim()
        .replace(/^(?:do|then|else|\{|\()\s+/, '')
        .split(/\s+/)
        .filter(Boolean)
        .map((w) => w.replace(/^['"]|['"]$/g, '')),
    )
    .filter((w) => w.length > 0);
}

/** The value of `--name N`, `--name=N`, `-n N` (the first form found). */
function flag(words: string[], names: string[]): string | undefined {
  for (let i = 0; i < words.length; i++) {
    for (const n of names) {
      if (words[i] === n) return words[i + 1];
      if (words[i].startsWith(`${n}=`)) return words[i].slice(n.length + 1);
    }
  }
  return undefined;
}

const count = (v: string | undefined, d: number) => {
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : d;
};

/** A loop whose body never waits: `while true; do :; done`, `while :; do i=$((i+1)); done`, `for (;;)`-like. */
function busyLoops(script: string): number {
  let n = 0;
  for (const m of script.matchAll(/\bwhile\s+(?:true|:|\[\s*1\s*\]|\[\s*1\s*=\s*1\s*\])\s*;?\s*do\b([\s\S]*?)\bdone\b/g)) {
    if (!/\b(?:sleep|wait|read|wget|curl|nc|ping|nslookup|tail|cat)\b/.test(m[1])) n++;
  }
  return n;
}

/** The demand of the command line `argv` (see the file comment). */
export function demandOf(argv: readonly string[]): Demand {
  const script = scriptOf(argv);
  let cpuCores = busyLoops(script);
  let memoryBytes = 0;
  for (const words of commands(script)) {
    const prog = basename(words[0]);
    const args = words.slice(1);
    const text = args.join(' ');
    switch (prog) {
      case 'stress':
      case 'stress-ng': {
        cpuCores += count(flag(args, ['--cpu', '-c', '-cpus', '--cpus']), 0);
        const vm = flag(args, ['--vm', '-m']);
        const bytes = flag(args, ['--vm-bytes']);
        if (vm !== undefined || bytes !== undefined) {
          const workers = count(vm, 1);
          const each = bytes === undefined ? 256 * 1024 * 1024 : parseBytes(bytes);
          if (Number.isFinite(each)) memoryBytes += workers * each;
          if (flag(args, ['--vm-hang']) === undefined && !args.includes('--vm-keep')) cpuCores += workers;
        }
        break;
      }
      case 'alloc': {
        const bytes = parseBytes(args[0] ?? '');
        if (Number.isFinite(bytes)) memoryBytes += bytes;
        break;
      }
      case 'yes':
        cpuCores += 1;
        break;
      case 'dd':
        if (/\bif=\/dev\/(?:zero|urandom|random)\b/.test(text)) cpuCores += 1;
        break;
      case 'md5sum':
      case 'sha1sum':
      case 'sha256sum':
      case 'gzip':
      case 'bzip2':
        if (/\/dev\/(?:zero|urandom|random)\b/.test(text)) cpuCores += 1;
        break;
      case 'cat':
        if (/^\/dev\/(?:zero|urandom)\b/.test(text)) cpuCores += 1;
        break;
    }
  }
  return { cpuCores, memoryBytes };
}
