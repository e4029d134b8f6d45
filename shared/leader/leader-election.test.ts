// The elector on a fake clock and an in-memory Lease: expiry is judged by the
// candidate's own observation, so a holder whose wall clock is skewed keeps
// its lease (and writes skewed timestamps), a skewed standby does not steal
// it, and --speed does not shorten election (MAX_ELECTION_SPEED), so an
// apiserver restart or a slow answer does not cost a holder its lease.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { conflict, notFound } from '../api/errors.ts';
import { FakeClock } from '../clock/clock.ts';
import type { KubeClient } from '../client/kube-client.ts';
import { createMetricsRegistry } from '../metrics/registry.ts';
import { LeaderElector, MAX_ELECTION_SPEED, electionSpeed, type LeaderElectionOptions } from './leader-election.ts';

const gr = { group: 'coordination.k8s.io', resource: 'leases' };

/** One Lease, with resourceVersion checks, and a switch that makes one identity's requests fail (a dead holder). */
function fakeLeases() {
  let stored: Lease | undefined;
  let rv = 0;
  const dead = new Set<string>();
  const hung = new Set<string>();
  const slow = new Map<string, () => Promise<void>>();
  // Answers a request a microtask later, as a network reply would; a dead identity's requests fail, a hung one's never end, a slow one's wait first.
  const reply = async <T>(identity: string, answer: () => T): Promise<T> => {
    await Promise.resolve();
    await slow.get(identity)?.();
    if (hung.has(identity)) await new Promise(() => {});
    if (dead.has(identity)) throw new Error('connection refused');
    return answer();
  };
  const write = (obj: Lease): Lease => {
    stored = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(++rv) } };
    return structuredClone(stored);
  };
  const client = (identity: string) =>
    ({
      get: () =>
        reply(identity, () => {
          if (!stored) throw notFound(gr, 'l');
          return structuredClone(stored);
        }),
      create: (_rt: unknown, _ns: string, obj: Lease) => reply(identity, () => write(obj)),
      update: (_rt: unknown, obj: Lease) =>
        reply(identity, () => {
          if (obj.metadata?.resourceVersion !== stored?.metadata?.resourceVersion) throw conflict(gr, 'l');
          return write(obj);
        }),
    }) as unknown as KubeClient;
  return { client, dead, hung, slow, lease: () => stored };
}

function candidate(
  leases: ReturnType<typeof fakeLeases>,
  identity: string,
  clock: FakeClock,
  extra: Partial<LeaderElectionOptions> = {},
): LeaderElector {
  return new LeaderElector(leases.client(identity), {
    namespace: 'kube-system',
    name: 'l',
    identity,
    clock,
    onStartedLeading: () => {},
    onStoppedLeading: () => {},
    ...extra,
  });
}

test('a holder 30 s ahead keeps its lease and writes renewTime 30 s ahead; the standby takes over only after the holder stops', async () => {
  const clock = new FakeClock();
  const leases = fakeLeases();
  const a = candidate(leases, 'a', clock, { wallNow: () => clock.now() + 30_000 });
  let tookOverAt = 0;
  const b = candidate(leases, 'b', clock, { onStartedLeading: () => (tookOverAt = clock.now()) });
  a.start();
  await clock.step(10);
  b.start();
  await clock.step(60_000);
  assert.equal(a.isLeader, true);
  assert.equal(b.isLeader, false);
  const renewed = Date.parse(leases.lease()!.spec!.renewTime!);
  assert.ok(renewed - clock.now() > 27_000, `renewTime ${leases.lease()!.spec!.renewTime} is about 30 s ahead`);
  leases.dead.add('a');
  const died = clock.now();
  while (!b.isLeader) await clock.step(50);
  assert.ok(tookOverAt - died <= 15_000 + 2_000 + 5, `took over ${tookOverAt - died} ms after the holder died`);
  assert.equal(leases.lease()!.spec!.holderIdentity, 'b');
  assert.equal(leases.lease()!.spec!.leaseTransitions, 1);
  await b.stop();
});

test('a standby whose wall clock is 60 s ahead does not take a lease that is being renewed', async () => {
  const clock = new FakeClock();
  const leases = fakeLeases();
  const a = candidate(leases, 'a', clock);
  const b = candidate(leases, 'b', clock, { wallNow: () => clock.now() + 60_000 });
  a.start();
  await clock.step(10);
  b.start();
  await clock.step(120_000);
  assert.equal(a.isLeader, true);
  assert.equal(b.isLeader, false);
  assert.equal(leases.lease()!.spec!.holderIdentity, 'a');
  await a.stop();
  await b.stop();
});

test("--speed 10: the standby takes over within kube's lease + retry of the holder dying (its observation of the last renewal can lag one retry), and the gauge follows", async () => {
  for (const deathOffset of [0, 37, 110, 199]) {
    const clock = new FakeClock();
    const leases = fakeLeases();
    const ra = createMetricsRegistry('a');
    const rb = createMetricsRegistry('b');
    const a = candidate(leases, 'a', clock, { speed: 10, registry: ra });
    let tookOverAt = 0;
    const b = candidate(leases, 'b', clock, { speed: 10, registry: rb, onStartedLeading: () => (tookOverAt = clock.now()) });
    a.start();
    await clock.step(5);
    b.start();
    await clock.step(30_000 + deathOffset * 10);
    assert.equal(a.isLeader, true);
    assert.match(await ra.metrics(), /leader_election_master_status\{name="l",component="a"\} 1/);
    assert.match(await rb.metrics(), /leader_election_master_status\{name="l",component="b"\} 0/);
    leases.dead.add('a');
    const died = clock.now();
    while (!b.isLeader) await clock.step(5);
    const took = tookOverAt - died;
    assert.ok(took <= 15_000 + 2_000 + 5, `took over after ${took} ms (death at +${deathOffset * 10})`);
    assert.ok(took >= 15_000 - 2_000 - 5, `not before the lease expired: ${took} ms`);
    // The dead holder steps down by its renew deadline (10 s).
    assert.equal(a.isLeader, false);
    assert.match(await rb.metrics(), /leader_election_master_status\{name="l",component="b"\} 1/);
    assert.match(await ra.metrics(), /leader_election_master_status\{name="l",component="a"\} 0/);
    await a.stop();
    await b.stop();
  }
});

test('a holder whose renewal hangs steps down by the renew deadline, before the standby takes over', async () => {
  const clock = new FakeClock();
  const leases = fakeLeases();
  const log: string[] = [];
  const a = candidate(leases, 'a', clock, { speed: 10, onStoppedLeading: () => log.push(`a- ${clock.now()}`) });
  const b = candidate(leases, 'b', clock, { speed: 10, onStartedLeading: () => log.push(`b+ ${clock.now()}`) });
  a.start();
  await clock.step(5);
  b.start();
  await clock.step(1_000);
  leases.hung.add('a');
  const hungAt = clock.now();
  while (!b.isLeader) await clock.step(5);
  assert.equal(a.isLeader, false);
  const [down, up] = log.map((l) => Number(l.split(' ')[1]) - hungAt);
  assert.match(log[0], /^a- /);
  assert.ok(down <= 10_000, `the holder stepped down ${down} ms after its renewals hung (renew deadline 10 s)`);
  assert.ok(up > down, `the standby took over (${up} ms) only after the holder stepped down (${down} ms)`);
  await a.stop();
  await b.stop();
});

test(`--speed 50 leaves election at kube's timings (MAX_ELECTION_SPEED ${MAX_ELECTION_SPEED}): a holder keeps its lease through answers 3 s late and through 6 s of refused connections (a slow apiserver restart)`, async () => {
  assert.equal(electionSpeed(50), MAX_ELECTION_SPEED);
  assert.equal(electionSpeed(0.5), 0.5);
  assert.equal(electionSpeed(undefined), 1);
  const clock = new FakeClock();
  const leases = fakeLeases();
  const stepDowns: number[] = [];
  const a = candidate(leases, 'a', clock, { speed: 50, onStoppedLeading: () => stepDowns.push(clock.now()) });
  const b = candidate(leases, 'b', clock, { speed: 50 });
  a.start();
  await clock.step(5);
  b.start();
  await clock.step(3_000);
  // A loaded machine: each of the holder's requests answers 3 s late (a renewal is one update, as client-go's fast path).
  leases.slow.set('a', () => clock.sleep(3_000));
  await clock.step(30_000);
  leases.slow.delete('a');
  await clock.step(3_000);
  // The apiserver restarting: the holder's requests are refused for 6 s (the renew deadline, less a retry period).
  leases.dead.add('a');
  await clock.step(6_000);
  leases.dead.delete('a');
  await clock.step(10_000);
  assert.deepEqual(stepDowns, [], 'the holder never stepped down');
  assert.equal(a.isLeader, true);
  assert.equal(b.isLeader, false);
  assert.equal(leases.lease()!.spec!.leaseTransitions, 0);
  await a.stop();
  await b.stop();
});
