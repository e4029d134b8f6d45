// A seeded fuzz test of the apiserver: it stores a corpus of objects, sends
// thousands of hostile requests (damaged JSON, YAML and protobuf bodies of
// several kinds, hostile names and paths, garbage query parameters, bad
// content types and Accept headers, every method and patch type, oversized
// and deeply nested bodies, JSON-patch copy bombs), and requires that:
//   - every request is answered in time (watches get timeoutSeconds=1 and
//     are closed by the client), never with a 5xx or a broken connection;
//   - every 4xx body is a metav1.Status (kind Status, apiVersion v1, status
//     Failure, code equal to the HTTP status, a message);
//   - requests kube must refuse (too large, too deep, guarded by a stale
//     resourceVersion or a wrong uid, hostile names) are refused;
//   - the apiserver is alive after the run, every protected object is byte
//     for byte what it was, no protected collection gained or lost an object,
//     and a normal create/get/delete still works.
//
// Knobs (environment variables):
//   KSIM_FUZZ_SEED=N|random   the seed (default 20261201, the same every run;
//                             printed on every run, so any run can be replayed)
//   KSIM_FUZZ_SECONDS=S       time budget (default 45; ignored when only
//                             KSIM_FUZZ_REQUESTS is set)
//   KSIM_FUZZ_REQUESTS=N      request count: the long mode, e.g. 20000; the
//                             runner's two-minute limit per file still holds,
//                             so raise it too:
//     KSIM_FUZZ_REQUESTS=20000 KSIM_TEST_TIMEOUT_MS=1800000 npm test -- test/robustness
//   KSIM_FUZZ_CONCURRENCY=N   requests in flight (default 4)
//   KSIM_FUZZ_ONLY=i,j,...    send only these request indexes of the seed
//   KSIM_FUZZ_KUBECONFIG=F    fuzz an apiserver that is already running, over
//                             https with F's CA and client certificate (no
//                             start, no restart after a crash)
//   KSIM_FUZZ_URL=http://...  the same for a plain-HTTP (--insecure-http) one
//   KSIM_FUZZ_SHOW=N          failure groups printed in full (default 30)
// A single request can also be printed and sent by hand:
//   node --import tsx test/robustness/fuzz/replay.ts SEED INDEX [URL|KUBECONFIG]
// Requests are sent as the admin (its client certificate), so that they get
// past authentication and authorization to the handlers under test.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { loadKubeconfig } from '../../shared/client/kubeconfig.ts';
import { startApiserver, tlsFor, tlsMaterialOf, type ApiTarget, type Apiserver } from '../helpers/index.ts';
import { STALE_RV } from './fuzz/bodies.ts';
import { kindByName, objectPath, SCRATCH_NS } from './fuzz/corpus.ts';
import { generateRequest } from './fuzz/generate.ts';
import { randomSeed } from './fuzz/prng.ts';
import { describeRequest, groupFailures, runFuzz, type RunResult } from './fuzz/run.ts';
import { compareSnapshots, jsonRequest, ready, snapshot, storeSeeds } from './fuzz/seed.ts';

const env = process.env;
// A fixed seed by default, so that `npm test` (and CI) sends the same requests every run; `random` for a new one.
const DEFAULT_SEED = 20261201;
const seed = env.KSIM_FUZZ_SEED === 'random' ? randomSeed() : env.KSIM_FUZZ_SEED ? Number(env.KSIM_FUZZ_SEED) : DEFAULT_SEED;
const requests = env.KSIM_FUZZ_REQUESTS ? Number(env.KSIM_FUZZ_REQUESTS) : Infinity;
const seconds = env.KSIM_FUZZ_SECONDS ? Number(env.KSIM_FUZZ_SECONDS) : requests === Infinity ? 45 : Infinity;
const concurrency = Number(env.KSIM_FUZZ_CONCURRENCY ?? 4);
const only = env.KSIM_FUZZ_ONLY ? env.KSIM_FUZZ_ONLY.split(',').map(Number) : undefined;
const show = Number(env.KSIM_FUZZ_SHOW ?? 30);
// The long mode needs more than the runner's two minutes: about 4 ms a request on a loaded machine, plus set-up.
const timeout = Number.isFinite(seconds) ? seconds * 1000 + 120_000 : requests * 25 + 120_000;

let server: Apiserver | undefined;
after(() => server?.stop());

/** Error lines the apiserver logged (5xx causes), grouped by message and the first project frame. */
function loggedErrors(logFile: string): string[] {
  let text: string;
  try {
    text = readFileSync(logFile, 'utf8');
  } catch {
    return [];
  }
  const groups = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const rec = JSON.parse(line);
      if ((rec.level ?? 0) < 50) continue;
      const stack: string = rec.err?.stack ?? '';
      const frame =
        stack
          .split('\n')
          .find((l) => /\/work\/|ksim/.test(l) && !/node_modules/.test(l))
          ?.trim() ?? '';
      const key = `${rec.msg}: ${rec.err?.type ?? ''} ${String(rec.err?.message ?? '').slice(0, 120)} ${frame.replace(/^at /, '@ ')}`;
      groups.set(key, (groups.get(key) ?? 0) + 1);
    } catch {
      // Not a pino line.
    }
  }
  return [...groups.entries()].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} x ${k}`);
}

function summary(res: RunResult): string {
  const codes = [...res.byStatus.entries()]
    .sort()
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');
  const fams = [...res.byFamily.entries()]
    .sort()
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');
  return [
    `fuzz: seed ${seed}, ${res.count} requests in ${(res.elapsedMs / 1000).toFixed(1)} s (${((res.count * 1000) / res.elapsedMs).toFixed(0)} requests/s, concurrency ${concurrency})`,
    `fuzz: by status: ${codes}`,
    `fuzz: by family: ${fams}`,
    `fuzz: ${res.failures.length} failed requests, ${res.crashes.length} crashes; replay with KSIM_FUZZ_SEED=${seed}`,
  ].join('\n');
}

test('a request is rebuilt from (seed, index) alone, as a replay needs', () => {
  for (const index of [0, 1, 7, 999, 12345]) {
    const a = generateRequest(seed, index);
    const b = generateRequest(seed, index);
    assert.deepEqual({ ...a, body: a.body?.toString('base64') }, { ...b, body: b.body?.toString('base64') }, `request ${index}`);
  }
  const run = (s: number) =>
    [0, 1, 2, 3, 4]
      .map((i) => {
        const q = generateRequest(s, i);
        return `${q.method} ${q.path} ${q.body?.toString('base64')}`;
      })
      .join('\n');
  assert.notEqual(run(seed), run(seed + 1), 'another seed must give other requests');
});

test(`apiserver fuzz (seed ${seed})`, { timeout }, async () => {
  // Another apiserver: KSIM_FUZZ_KUBECONFIG (its server, CA and client certificate), or KSIM_FUZZ_URL (plain http).
  let base: ApiTarget;
  if (env.KSIM_FUZZ_KUBECONFIG) {
    const config = loadKubeconfig(env.KSIM_FUZZ_KUBECONFIG);
    base = { url: config.server, tls: tlsMaterialOf(config) };
  } else if (env.KSIM_FUZZ_URL) {
    base = { url: new URL(env.KSIM_FUZZ_URL).origin };
  } else {
    server = await startApiserver();
    base = server;
  }
  const u = new URL(base.url);
  const host = u.hostname;
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  console.log(`fuzz: seed ${seed} (replay: KSIM_FUZZ_SEED=${seed}), apiserver ${base.url}`);

  await storeSeeds(base);
  const before = await snapshot(base);
  // Nothing but the fuzzer writes, so two snapshots a moment apart must agree; if not, the check below means nothing.
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(compareSnapshots(before, await snapshot(base)), [], 'protected objects changed with no request at all');
  for (const [path, text] of before.objects)
    assert.notEqual(JSON.parse(text).metadata?.resourceVersion, STALE_RV, `${path} has the guard's resourceVersion`);

  const problems: string[] = [];
  const res = await runFuzz({
    seed,
    host,
    port: () => port,
    // As the admin: past authentication and authorization, to the handlers.
    tls: tlsFor(base).tls,
    concurrency,
    maxRequests: requests,
    deadline: Date.now() + seconds * 1000,
    only,
    timeoutMs: 20_000,
    streamMs: 4_000,
    maxRestarts: server ? 5 : 0,
    alive: async () => (server ? server.pid > 0 && isRunning(server.pid) && (await ready(base)) : ready(base)),
    restart: async () => {
      if (!server) return 'not restarted: external apiserver';
      const tail = server.logTail(30);
      await server.restart();
      return tail;
    },
  });
  console.log(summary(res));

  // The process must be alive and serving.
  if (server && !isRunning(server.pid)) problems.push(`the apiserver process ${server.pid} is not running after the run`);
  if (!(await ready(base))) problems.push('the apiserver does not answer /readyz after the run');

  // Stored data unchanged.
  const diffs = compareSnapshots(before, await snapshot(base));
  for (const d of diffs) problems.push(`protected data changed: ${d}`);
  if (diffs.length) problems.push(culprits(diffs, res));

  // A normal create, get and delete still work.
  const cm = kindByName('ConfigMap');
  const name = `fuzz-after-${seed}`;
  const created = await jsonRequest(base, 'POST', objectPath(cm, SCRATCH_NS, ''), cm.make(SCRATCH_NS, name));
  const got = await jsonRequest(base, 'GET', objectPath(cm, SCRATCH_NS, name));
  const deleted = await jsonRequest(base, 'DELETE', objectPath(cm, SCRATCH_NS, name));
  if (created.status !== 201 || got.status !== 200 || deleted.status !== 200) {
    problems.push(
      `a normal create/get/delete after the run answered ${created.status}/${got.status}/${deleted.status}: ${created.text.slice(0, 200)}`,
    );
  }

  for (const c of res.crashes) {
    problems.push(
      `the apiserver died after ${c.afterRequests} requests; in flight:\n${c.inFlight.map(describeRequest).join('\n')}\n  log tail:\n${c.logTail.split('\n').slice(-12).join('\n')}`,
    );
  }
  const groups = groupFailures(res.failures);
  if (groups.length) {
    problems.push(
      `${res.failures.length} requests failed, in ${groups.length} groups (seed ${seed}):\n` +
        groups
          .slice(0, show)
          .map(
            (g) =>
              `--- ${g.count} x ${g.key}\n${g.examples
                .map(
                  (f) =>
                    `${describeRequest(f.req)}\n  answer: ${f.outcome}\n  wrong: ${f.problems
                      .map((p) => `${p.kind}: ${p.detail}`)
                      .join('; ')
                      .slice(0, 600)}\n  replay: KSIM_FUZZ_SEED=${seed} KSIM_FUZZ_ONLY=${f.req.index}`,
                )
                .join('\n')}`,
          )
          .join('\n') +
        (groups.length > show ? `\n... and ${groups.length - show} more groups (KSIM_FUZZ_SHOW)` : ''),
    );
  }
  if (server) {
    const errs = loggedErrors(server.logFile);
    if (errs.length) problems.push(`the apiserver logged ${errs.length} kinds of error:\n${errs.slice(0, 25).join('\n')}`);
  }
  assert.equal(problems.length, 0, `fuzz seed ${seed}:\n${problems.join('\n\n')}\n\n${summary(res)}`);
});

/**
 * The writes that were let through and whose answer names a changed object
 * (a delete or deletecollection answers the objects it removed, a write the
 * object it wrote): the culprits of a change to protected data.
 */
function culprits(diffs: string[], res: RunResult): string {
  const lines: string[] = [];
  for (const d of diffs) {
    const path = d.split(' ')[0];
    const parts = path.split('/');
    const nsAt = parts.indexOf('namespaces');
    const name = parts.at(-1)!;
    const ns = nsAt >= 0 && parts.length > nsAt + 2 ? parts[nsAt + 1] : '';
    const named = (f: { body?: string }) =>
      (f.body ?? '').includes(`"name":"${name}"`) && (!ns || (f.body ?? '').includes(`"namespace":"${ns}"`));
    // Dry runs last: they answer the object too, but should have changed nothing.
    const found = res.suspects
      .filter(named)
      .sort((a, b) => Number(a.req.path.includes('dryRun=All')) - Number(b.req.path.includes('dryRun=All')));
    const list = (found.length ? found : res.suspects.filter((f) => f.req.hostile)).slice(0, 6);
    lines.push(
      `${path}: ${found.length ? 'written or removed by' : 'no answer names it; hostile writes let through'}:\n${list.map((f) => `${describeRequest(f.req)}\n  answer: ${f.outcome}\n  replay: KSIM_FUZZ_SEED=${seed} KSIM_FUZZ_ONLY=${f.req.index}`).join('\n') || '  (none)'}`,
    );
  }
  return `what changed protected data (${res.suspects.length} guarded or hostile writes were let through):\n${lines.join('\n')}`;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
