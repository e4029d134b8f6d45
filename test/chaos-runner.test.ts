// The experiment runner (cli/chaos/experiment/runner.ts) without `ksim up`:
// a real apiserver for the objects and checks, and a fake ChaosDriver that
// records every inject and recover and answers status() with components
// whose states follow the faults it was given (a kill of the scheduler
// leaves it exited until a start). Each experiment is YAML text read by the
// validator at --speed 20, as `ksim chaos run` reads a file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { findResource } from '../shared/api/resources.ts';
import type { ChaosRequest, ChaosResult, ComponentStatus, SupervisorStatus } from '../shared/chaos/protocol.ts';
import { KubeClient } from '../shared/client/kube-client.ts';
import type { ChaosDriver } from '../cli/chaos/experiment/driver.ts';
import type { ExperimentReport } from '../cli/chaos/experiment/report.ts';
import { RequirementError, runExperiment, type RunDeps } from '../cli/chaos/experiment/runner.ts';
import { loadExperiment } from '../cli/chaos/experiment/validate.ts';
import { startApiserver, type Apiserver } from './helpers/index.ts';

const SPEED = 20;
const configmaps = findResource('', 'v1', 'configmaps')!;

let server: Apiserver;
let client: KubeClient;
const extraClients: KubeClient[] = [];

before(async () => {
  server = await startApiserver();
  client = new KubeClient(server.clientConfig);
});
after(async () => {
  for (const c of extraClients) c.close();
  client?.close();
  await server?.stop();
});

/** What the fake saw, in order. */
type Call = { op: 'inject'; req: ChaosRequest } | { op: 'recover'; id?: string } | { op: 'status' };

interface FakeOptions {
  /** Components before the run (all running); default one of each. */
  components?: string[];
  /** Throws for a request this says no to. */
  refuse?: (req: ChaosRequest) => string | undefined;
  /** Called after every inject has been recorded. */
  onInject?: (req: ChaosRequest) => void;
  /** Called at every status(). */
  onStatus?: () => void;
}

/** A supervisor in memory: components with states, active faults, and a log of every call. */
class FakeDriver implements ChaosDriver {
  readonly calls: Call[] = [];
  readonly active = new Map<string, ChaosRequest>();
  private readonly components: ComponentStatus[];
  private nextId = 1;

  constructor(private readonly opts: FakeOptions = {}) {
    const names = opts.components ?? ['apiserver', 'controller-manager', 'scheduler', 'kubelet-sim'];
    this.components = names.map((name, i) => ({ name, pid: 1000 + i, state: 'running', restarts: 0, endpoint: `ipc:${name}` }));
  }

  get injects(): ChaosRequest[] {
    return this.calls.flatMap((c) => (c.op === 'inject' ? [c.req] : []));
  }

  get recovers(): (string | undefined)[] {
    return this.calls.flatMap((c) => (c.op === 'recover' ? [c.id] : []));
  }

  stateOf(name: string): ComponentStatus['state'] | undefined {
    return this.components.find((c) => c.name === name)?.state;
  }

  inject(req: ChaosRequest): Promise<ChaosResult> {
    // A throw in the executor rejects, as a refused request to the supervisor does.
    return new Promise((resolve) => resolve(this.injectNow(req)));
  }

  recover(id?: string): Promise<void> {
    return new Promise((resolve) => resolve(this.recoverNow(id)));
  }

  status(): Promise<SupervisorStatus> {
    return new Promise((resolve) => resolve(this.statusNow()));
  }

  private injectNow(req: ChaosRequest): ChaosResult {
    this.calls.push({ op: 'inject', req: structuredClone(req) });
    this.opts.onInject?.(req);
    const refused = this.opts.refuse?.(req);
    if (refused) throw new Error(refused);
    const comp = this.components.find((c) => c.name === req.target);
    const setState = (state: ComponentStatus['state']) => {
      if (!comp) throw new Error(`no component ${req.target}`);
      comp.state = state;
    };
    switch (req.action) {
      case 'kill':
        // As the task has it: a kill leaves nothing to recover, only a later start.
        setState('exited');
        return { message: `killed ${req.target}`, affected: [String(comp!.pid)] };
      case 'stop':
        setState('stopped');
        return { message: `stopped ${req.target}`, affected: [] };
      case 'start':
        setState('running');
        return { message: `started ${req.target}`, affected: [] };
      case 'pause':
        setState('paused');
        return { message: `paused ${req.target}`, affected: [] };
      case 'resume':
        setState('running');
        return { message: `resumed ${req.target}`, affected: [] };
      default: {
        const id = `fault-${this.nextId++}`;
        this.active.set(id, req);
        return { faultId: id, message: `${req.action} injected`, affected: [] };
      }
    }
  }

  private recoverNow(id?: string): void {
    this.calls.push({ op: 'recover', id });
    if (id === undefined) return this.active.clear();
    if (!this.active.delete(id)) throw new Error(`no fault ${id}`);
  }

  private statusNow(): SupervisorStatus {
    this.calls.push({ op: 'status' });
    this.opts.onStatus?.();
    return {
      supervisorPid: 1,
      server: server.url,
      dataDir: '/nowhere',
      components: structuredClone(this.components),
      faults: [...this.active].map(([id, request]) => ({ id, request, injectedAt: new Date().toISOString(), message: '' })),
    };
  }
}

function deps(driver: ChaosDriver, more: Partial<RunDeps> = {}): RunDeps {
  return {
    client,
    makeClient: (timeoutMs) => {
      const c = new KubeClient(server.clientConfig, { timeoutMs });
      extraClients.push(c);
      return c;
    },
    driver,
    ...more,
  };
}

/** An experiment file: `spec` is the YAML under `spec:`, indented by two. */
function experiment(name: string, spec: string) {
  return loadExperiment(`apiVersion: ksim.dev/v1alpha1\nkind: Experiment\nmetadata: { name: ${name} }\nspec:\n${spec}`, { speed: SPEED });
}

const describe = (r: ExperimentReport) => JSON.stringify({ verdict: r.verdict, errors: r.errors, checks: r.checks }, null, 1);

test('a passing run: objects applied, a fault held for its duration and recovered once, an EOT check held', async () => {
  const exp = experiment(
    'runner-pass',
    `  seed: 3
  objects:
    - { apiVersion: v1, kind: ConfigMap, metadata: { name: runner-pass, namespace: default }, data: { phase: one } }
  checks:
    - name: cm-applied
      mode: SOT
      within: 1s
      condition: { resource: configmaps, namespace: default, name: runner-pass, expr: "object != null && object.data.phase == 'one'" }
    - name: cm-updated
      mode: EOT
      within: 3s
      condition: { resource: configmaps, namespace: default, name: runner-pass, expr: "object != null && object.data.phase == 'two'" }
  steps:
    - name: slow apiserver
      fault: { action: apiserver, apiserver: { latency: 20ms } }
      duration: 4s
    - wait: 2s
    - apply:
        - { apiVersion: v1, kind: ConfigMap, metadata: { name: runner-pass }, data: { phase: two } }
`,
  );
  assert.equal(exp.steps[0].kind === 'fault' && exp.steps[0].durationMs, 200, '4s at --speed 20');
  await client.delete(configmaps, 'default', 'runner-pass').catch(() => undefined);
  const driver = new FakeDriver();
  const t0 = Date.now();
  const report = await runExperiment(exp, deps(driver));
  const took = Date.now() - t0;

  assert.equal(report.verdict, 'passed', describe(report));
  assert.deepEqual(report.errors, []);
  assert.equal(report.experiment, 'runner-pass');
  assert.equal(report.seed, 3);
  assert.ok(took >= 200 + 100, `the fault was held and the wait waited (${took} ms)`);

  // One inject, recovered once by its id, after the duration (not again at the end).
  assert.equal(driver.injects.length, 1);
  assert.equal(driver.injects[0].action, 'apiserver');
  assert.deepEqual(driver.injects[0].apiserver, { latencyMs: 20 });
  assert.deepEqual(driver.recovers, ['fault-1']);
  assert.equal(driver.active.size, 0);
  assert.equal(report.faults.length, 1);
  const f = report.faults[0];
  assert.equal(f.step, 'slow apiserver');
  assert.equal(f.faultId, 'fault-1');
  assert.ok(f.recoveredAt !== undefined && f.recoveredAt - f.injectedAt >= 190, `held ~200 ms: ${f.injectedAt} -> ${f.recoveredAt}`);
  const inj = report.events.findIndex((e) => e.type === 'fault-injected' && e.faultId === 'fault-1');
  const rec = report.events.findIndex((e) => e.type === 'fault-recovered' && e.faultId === 'fault-1');
  const applied = report.events.findIndex((e) => e.type === 'step' && e.name === 'apply ConfigMap/runner-pass');
  assert.ok(inj >= 0 && rec > inj && applied > rec, 'the timeline injects, recovers after the duration, then applies');

  // The SOT check saw spec.objects applied; the EOT check ran at the end and saw the apply step's change.
  assert.deepEqual(
    report.checks.map((x) => [x.name, x.mode, x.passed]),
    [
      ['cm-applied', 'SOT', true],
      ['cm-updated', 'EOT', true],
    ],
  );
  const c = report.checks[1];
  assert.equal(c.name, 'cm-updated');
  assert.equal(c.mode, 'EOT');
  assert.equal(c.passed, true, c.message);
  assert.ok(c.evaluations >= 1, `evaluations: ${c.evaluations}`);
  assert.ok(c.timeToRecoveryMs !== undefined && c.timeToRecoveryMs >= 0, 'timed from the recovery');
  const cm = (await client.get(configmaps, 'default', 'runner-pass')) as { data?: Record<string, string> };
  assert.deepEqual(cm.data, { phase: 'two' });
  assert.equal(report.events[0].type, 'run-started');
  assert.deepEqual(report.events.at(-1), { ...report.events.at(-1), type: 'run-finished', message: 'passed' });
});

test('a fault the driver refuses fails the run, names the step, and the faults before it are still recovered', async () => {
  const exp = experiment(
    'runner-refused',
    `  steps:
    - name: latency
      fault: { action: apiserver, apiserver: { latency: 10ms } }
    - name: errors
      fault: { action: apiserver, apiserver: { errorRate: 0.5 } }
    - name: partition node
      fault: { action: partition, target: node/node-1 }
    - name: never runs
      fault: { action: apiserver, apiserver: { watchDrop: true } }
`,
  );
  const driver = new FakeDriver({ refuse: (r) => (r.action === 'partition' ? 'no node node-1' : undefined) });
  const report = await runExperiment(exp, deps(driver));

  assert.equal(report.verdict, 'failed', describe(report));
  assert.equal(report.errors.length, 1, report.errors.join('\n'));
  assert.match(report.errors[0], /^step "partition node": no node node-1$/);
  // The steps stopped at the refusal.
  assert.deepEqual(
    driver.injects.map((r) => r.action),
    ['apiserver', 'apiserver', 'partition'],
  );
  // Both lasting faults (no duration: still in effect when the steps stopped) were undone at the end, by id.
  assert.deepEqual([...driver.recovers].sort(), ['fault-1', 'fault-2']);
  assert.equal(driver.active.size, 0, 'nothing left injected');
  assert.deepEqual(
    report.faults.map((f) => [f.step, f.faultId, f.recoveredAt !== undefined, f.error]),
    [
      ['latency', 'fault-1', true, undefined],
      ['errors', 'fault-2', true, undefined],
      ['partition node', undefined, false, 'no node node-1'],
    ],
  );
});

test('a kill has no fault id: the run starts the component again at the end and says so', async () => {
  const exp = experiment(
    'runner-kill',
    `  steps:
    - fault: { action: kill, target: scheduler }
      duration: 2s
    - wait: 1s
`,
  );
  let stateAfterKill: string | undefined;
  const driver: FakeDriver = new FakeDriver({
    onStatus: () => {
      if (driver.injects.length > 0 && stateAfterKill === undefined) stateAfterKill = driver.stateOf('scheduler');
    },
  });
  const report = await runExperiment(exp, deps(driver));

  assert.equal(report.verdict, 'passed', describe(report));
  assert.equal(stateAfterKill, 'exited', 'the run saw the scheduler down at the end');
  assert.deepEqual(driver.injects, [
    { action: 'kill', target: 'scheduler', seed: report.faults[0].request.seed },
    { action: 'start', target: 'scheduler' },
  ]);
  assert.deepEqual(driver.recovers, [], 'nothing to recover by id');
  assert.equal(driver.stateOf('scheduler'), 'running');
  assert.equal(report.faults.length, 1);
  assert.equal(report.faults[0].faultId, undefined);
  const restored = report.events.filter((e) => e.type === 'fault-recovered');
  assert.equal(restored.length, 1);
  assert.equal(restored[0].name, 'start scheduler');
  assert.match(restored[0].message ?? '', /^restored at the end: started scheduler$/);
});

test('a run longer than spec.timeout fails with the timeout, cut short, with its faults recovered', async () => {
  const exp = experiment(
    'runner-timeout',
    `  timeout: 300ms
  checks:
    - name: api-answers
      mode: EOT
      within: 2s
      condition: { resource: namespaces, name: default, expr: "object != null" }
  steps:
    - name: long latency
      fault: { action: apiserver, apiserver: { latency: 5ms } }
      duration: 10m
    - wait: 10m
`,
  );
  const driver = new FakeDriver();
  const t0 = Date.now();
  const report = await runExperiment(exp, deps(driver));
  const took = Date.now() - t0;

  assert.equal(report.verdict, 'failed', describe(report));
  assert.ok(report.errors.includes('the run took longer than its timeout (0.3s)'), report.errors.join('\n'));
  assert.ok(took < 3000, `cut short at the timeout, not the 30 s fault (${took} ms)`);
  assert.deepEqual(driver.recovers, ['fault-1']);
  assert.equal(driver.active.size, 0);
  assert.ok(report.faults[0].recoveredAt !== undefined);
  // The end checks still judge the recovery after a timeout.
  assert.deepEqual(
    report.checks.map((c) => [c.name, c.passed]),
    [['api-answers', true]],
  );
});

test('an abort mid-run ends it as aborted, with its faults recovered and the component restarted', async () => {
  const exp = experiment(
    'runner-abort',
    `  checks:
    - name: never-judged
      mode: EOT
      within: 1s
      condition: { resource: namespaces, name: default, expr: "object != null" }
  steps:
    - fault: { action: kill, target: controller-manager }
    - name: long latency
      fault: { action: apiserver, apiserver: { latency: 5ms } }
      duration: 10m
    - wait: 10m
`,
  );
  const ctl = new AbortController();
  const driver = new FakeDriver({
    onInject: (r) => {
      if (r.action === 'apiserver') setTimeout(() => ctl.abort(), 100);
    },
  });
  const t0 = Date.now();
  const report = await runExperiment(exp, deps(driver, { signal: ctl.signal }));
  const took = Date.now() - t0;

  assert.equal(report.verdict, 'aborted', describe(report));
  assert.ok(took < 3000, `stopped at the abort (${took} ms)`);
  assert.deepEqual(driver.recovers, ['fault-1']);
  assert.equal(driver.active.size, 0);
  assert.equal(driver.stateOf('controller-manager'), 'running', 'restarted at the end');
  assert.deepEqual(driver.injects.at(-1), { action: 'start', target: 'controller-manager' });
  assert.ok(report.faults.every((f) => !f.faultId || f.recoveredAt !== undefined));
  assert.deepEqual(report.checks, [], 'Ctrl-C skips the end checks');
  assert.equal(report.events.at(-1)?.message, 'aborted');
});

test('an abort that arrives while the run reads the first status still stops it', async () => {
  const exp = experiment(
    'runner-early-abort',
    `  steps:
    - fault: { action: apiserver, apiserver: { latency: 5ms } }
      duration: 20s
`,
  );
  const ctl = new AbortController();
  const driver = new FakeDriver({ onStatus: () => ctl.abort() });
  const t0 = Date.now();
  const report = await runExperiment(exp, deps(driver, { signal: ctl.signal }));
  assert.equal(report.verdict, 'aborted');
  assert.deepEqual(driver.injects, [], 'no fault after Ctrl-C');
  assert.ok(Date.now() - t0 < 500, `stopped at once, not after the 1 s fault (${Date.now() - t0} ms)`);
});

test('spec.requires more controller-managers than the cluster runs: RequirementError before any inject', async () => {
  const exp = experiment(
    'runner-requires',
    `  requires: { controllerManagers: 2 }
  steps:
    - fault: { action: kill, target: leader/controller-manager }
`,
  );
  const driver = new FakeDriver();
  await assert.rejects(
    runExperiment(exp, deps(driver)),
    (e: unknown) =>
      e instanceof RequirementError &&
      e.message ===
        'experiment runner-requires needs 2 controller-managers; the cluster runs 1 (start it with ksim up --controller-managers 2)',
  );
  assert.deepEqual(driver.injects, []);
  assert.deepEqual(driver.recovers, []);

  // Two copies (controller-manager, controller-manager-2) are enough.
  const two = new FakeDriver({ components: ['apiserver', 'controller-manager', 'controller-manager-2', 'scheduler'] });
  const exp2 = experiment('runner-requires-ok', `  requires: { controllerManagers: 2 }\n  steps:\n    - wait: 1s\n`);
  assert.equal((await runExperiment(exp2, deps(two))).verdict, 'passed');
});

test('the seed decides the faults seeds: the same seed the same ones, another seed others, a given seed kept', async () => {
  const exp = experiment(
    'runner-seeds',
    `  seed: 7
  steps:
    - fault: { action: apiserver, apiserver: { errorRate: 0.1 } }
      duration: 1s
    - parallel:
        - fault: { action: apiserver, apiserver: { latency: 1ms } }
          duration: 1s
        - fault: { action: apiserver, apiserver: { errorRate: 0.2 }, seed: 42 }
          duration: 1s
`,
  );
  const seedsOf = (r: ExperimentReport) => r.faults.map((f) => f.request.seed);
  const a = await runExperiment(exp, deps(new FakeDriver()));
  const b = await runExperiment(exp, deps(new FakeDriver()));
  const other = new FakeDriver();
  const c = await runExperiment(exp, deps(other, { seed: 8 }));
  for (const r of [a, b, c]) assert.equal(r.verdict, 'passed', describe(r));
  assert.equal(a.seed, 7);
  assert.equal(c.seed, 8);

  const sa = seedsOf(a);
  assert.equal(sa.length, 3);
  for (const s of sa) assert.ok(Number.isInteger(s) && s! >= 0, `a seed for every fault: ${JSON.stringify(sa)}`);
  assert.deepEqual(seedsOf(b), sa, 'same seed, same fault seeds');
  const sc = seedsOf(c);
  assert.notDeepEqual(sc, sa, 'another seed, other fault seeds');
  // The fault with its own seed keeps it whatever the run's seed.
  for (const r of [a, c]) assert.ok(r.faults.some((f) => f.request.seed === 42 && f.request.apiserver?.errorRate === 0.2));
  // The driver was sent the assigned seeds, and the file's steps were not changed.
  assert.deepEqual(other.injects.map((r) => r.seed).sort(), c.faults.map((f) => f.request.seed).sort());
  assert.equal(exp.steps[0].kind === 'fault' && exp.steps[0].fault.seed, undefined);
});
