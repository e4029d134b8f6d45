// `ksim chaos` and `ksim kubectl` as a user runs them, against `ksim up`
// (speed 20, one node): no cluster is one line and exit 1, a bad flag is
// exit 2 naming it, a fault is injected (its ChaosInjected Event shows in
// kubectl), listed as a table and recovered, and `ksim kubectl` reaches
// the cluster with its own kubeconfig.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { splitKubectlArgs } from '../cli/kubectl.ts';
import { ksimCli, spawnTracked, startCluster, tempDir, eventually, ok, type Cluster } from './helpers/index.ts';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `ksim ARGS` to its end (killed after 30 s). */
async function ksim(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const p = await spawnTracked(process.execPath, [ksimCli, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, KSIM_DATA_DIR: '', ...env },
  });
  let stdout = '';
  let stderr = '';
  p.child.stdout!.on('data', (d) => (stdout += d));
  p.child.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => p.signal('SIGKILL'), 30_000);
  const { code } = await p.exited;
  clearTimeout(timer);
  return { code, stdout, stderr };
}

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 1, speed: 20 });
});
after(() => c?.stop());

test('no cluster in the data dir: one line on stderr, exit 1', async () => {
  const empty = await tempDir('no-cluster');
  for (const args of [
    ['chaos', 'list'],
    ['chaos', 'kill', 'scheduler'],
  ]) {
    const r = await ksim([...args, '--data-dir', empty]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, `ksim chaos: no ksim is running in ${empty} (no control.json)\n`);
  }
  const k = await ksim(['kubectl', '--data-dir', empty, 'get', 'nodes']);
  assert.equal(k.code, 1);
  assert.match(k.stderr, /no cluster has been started in .* \(no kubeconfig\)/);
});

test('a bad flag or argument is exit 2 and named', async () => {
  const cases: [string[], RegExp][] = [
    [['chaos', 'kill', 'scheduler', '--bogus'], /unknown flag --bogus/],
    [['chaos', 'apiserver', '--error-rate', '2'], /flag --error-rate: 2 is not in \[0,1\]/],
    [['chaos', 'kill', 'pods', '--mode', 'fixed'], /flag --mode fixed needs --value/],
    [['chaos', 'kill', 'etcd'], /unknown component "etcd"/],
  ];
  for (const [args, want] of cases) {
    const r = await ksim([...args, '--data-dir', c.dataDir]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr.split('\n')[0], want);
  }
  const help = await ksim(['chaos', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: ksim chaos ACTION/);
  assert.match(help.stdout, /random-max-percent/);
});

test("ksim kubectl takes only a leading --data-dir; the rest is kubectl's, untouched", () => {
  const cases: [string[], Record<string, string>, { dataDir: string; args: string[] }][] = [
    [['get', 'pods'], {}, { dataDir: `${process.cwd()}/.ksim`, args: ['get', 'pods'] }],
    [['get', 'pods'], { KSIM_DATA_DIR: '/tmp/e' }, { dataDir: '/tmp/e', args: ['get', 'pods'] }],
    [['--data-dir', '/tmp/a', 'get', 'pods'], {}, { dataDir: '/tmp/a', args: ['get', 'pods'] }],
    [['--data-dir=/tmp/b', 'get', '--data-dir', 'x'], {}, { dataDir: '/tmp/b', args: ['get', '--data-dir', 'x'] }],
    [['-n', 'x', '--data-dir', '/tmp/c'], {}, { dataDir: `${process.cwd()}/.ksim`, args: ['-n', 'x', '--data-dir', '/tmp/c'] }],
  ];
  for (const [argv, env, want] of cases) assert.deepEqual(splitKubectlArgs(argv, env), want, argv.join(' '));
});

test('ksim kubectl runs kubectl against the cluster, with its exit status', async () => {
  const r = await ksim(['kubectl', '--data-dir', c.dataDir, 'get', 'nodes', '-o', 'name']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^node\/node-0$/m);
  // KSIM_DATA_DIR works too, and every argument after the data dir is kubectl's.
  const missing = await ksim(['kubectl', 'get', 'pod', 'no-such-pod'], { KSIM_DATA_DIR: c.dataDir });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /pods "no-such-pod" not found/);
  const version = await ksim(['kubectl', '--data-dir', c.dataDir, 'version', '--client']);
  assert.match(version.stdout, /Client Version: v1\.35/);
});

test('ksim status into a pipe that is already closed (ksim status | head -0) ends with exit 0 and no EPIPE trace', async () => {
  const p = await spawnTracked(process.execPath, [ksimCli, 'status', '--data-dir', c.dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  p.child.stdout!.destroy();
  let stderr = '';
  p.child.stderr!.on('data', (d) => (stderr += d));
  const { code } = await p.exited;
  assert.doesNotMatch(stderr, /EPIPE|Error/);
  assert.equal(code, 0, stderr);
});

test('a fault: injected with its id, listed as a table, recorded as an Event, recovered', async () => {
  const r = await ksim(['chaos', 'apiserver', '--latency', '1ms', '--verb', 'create', '--duration', '5m', '--data-dir', c.dataDir]);
  assert.equal(r.code, 0, r.stderr);
  const id = /recover with: ksim chaos recover (\S+) --data-dir/.exec(r.stdout)?.[1];
  assert.ok(id, `a fault id in: ${r.stdout}`);
  const [said, hint] = r.stdout.trimEnd().split('\n');
  assert.ok(said.length > 0 && !said.startsWith('fault '), `the supervisor's message first: ${r.stdout}`);
  assert.equal(hint, `fault ${id}; recover with: ksim chaos recover ${id} --data-dir ${c.dataDir}`);

  const list = await ksim(['chaos', 'list', '--data-dir', c.dataDir]);
  assert.equal(list.code, 0, list.stderr);
  const [header, ...rows] = list.stdout.trimEnd().split('\n');
  assert.match(header, /^ID\s+ACTION\s+TARGET\s+AGE\s+RECOVERS\s+MESSAGE$/);
  const row = rows.find((l) => l.startsWith(`${id} `));
  assert.ok(row, `${id} listed:\n${list.stdout}`);
  assert.match(row, new RegExp(`^${id}\\s+apiserver\\s+apiserver\\s+\\d+s\\s+in (4m\\d+s|5m)\\s+\\S`));

  await eventually(
    'the ChaosInjected Event',
    async () => /ksim-chaos/.test((await c.k(['get', 'events', '-A', '--field-selector', 'reason=ChaosInjected', '-o', 'wide'])).stdout),
    20_000,
  );

  const rec = await ksim(['chaos', 'recover', id, '--data-dir', c.dataDir]);
  assert.equal(rec.code, 0, rec.stderr);
  // A recover names what it undid; it offers no recover command for it.
  assert.match(rec.stdout, new RegExp(`^recovered ${id}: `, 'm'));
  assert.doesNotMatch(rec.stdout, /recover with/);
  const after = await ksim(['chaos', 'list', '--data-dir', c.dataDir]);
  assert.ok(!after.stdout.includes(`${id} `), after.stdout);
  ok(await c.k(['get', 'nodes']));
});
