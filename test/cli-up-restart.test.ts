// `ksim up --restart=on-failure --controller-managers 2` as a user runs it:
// a killed component is started again with one more restart; a killed leader
// fails over within the lease duration divided by --speed (by at most
// MAX_ELECTION_SPEED); a paused component shows as paused and continues.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { api, ok, startCluster, until } from './helpers/index.ts';
import type { SupervisorStatus } from '../shared/chaos/protocol.ts';
import { electionSpeed } from '../shared/leader/leader-election.ts';

test('--restart=on-failure --controller-managers 2: a killed scheduler comes back by itself; a killed leader fails over within the lease duration / speed; pause/resume', async () => {
  const speed = 20;
  const c = await startCluster({ nodes: 1, speed, upArgs: ['--restart=on-failure', '--controller-managers', '2'] });
  try {
    const status = async () => (await c.control('GET', '/status')).body as SupervisorStatus;
    const component = async (name: string) => (await status()).components.find((s) => s.name === name)!;
    assert.deepEqual(
      (await status()).components.map((s) => s.name),
      ['apiserver', 'controller-manager', 'controller-manager-1', 'scheduler', 'kubelet-sim'],
    );

    // A kill is a crash: on-failure starts it again, with a new pid and one more restart.
    const pid = c.pidOf('scheduler');
    ok(await c.chaos(['kill', 'scheduler']));
    const back = await until(async () => {
      const s = await component('scheduler');
      return s.state === 'running' && s.pid !== pid && s;
    }, 'the scheduler restarted by --restart=on-failure');
    assert.equal(back.restarts, 1);
    const rows = ok(await c.status());
    assert.match(rows, new RegExp(`^scheduler\\s+${back.pid}\\s+running\\s+\\d+s\\s+1\\s+(leader|standby|-)\\s`, 'm'));
    // The kill fault ended with the restart.
    assert.deepEqual((await status()).faults, []);

    // A leader failover: the Lease's holder changes within the lease duration (divided by --speed), plus one retry.
    const admin = api({ url: c.url, tls: c.tls });
    const lease = async () =>
      (await admin.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager')).body as {
        spec: { holderIdentity?: string; leaseDurationSeconds?: number };
      };
    await until(
      async () => (await status()).components.some((s) => s.name.startsWith('controller-manager') && s.leader),
      'a controller-manager leader',
      30_000,
    );
    const before = (await lease()).spec;
    const leader = (await status()).components.find((s) => s.name.startsWith('controller-manager') && s.leader)!;
    // Timed from the leader's death (not from the command, whose own start is no part of the failover).
    let diedAt = 0;
    const deathWatch = setInterval(() => {
      try {
        process.kill(leader.pid, 0);
      } catch {
        diedAt ||= Date.now();
      }
    }, 5);
    const out = ok(await c.chaos(['kill', 'leader/controller-manager']));
    assert.match(out, new RegExp(`killed ${leader.name} \\(the controller-manager leader\\) \\(pid ${leader.pid}\\)`));
    await until(
      async () => {
        const holder = (await lease()).spec.holderIdentity;
        return holder && holder !== before.holderIdentity;
      },
      'another controller-manager holding the Lease',
      60_000,
    );
    clearInterval(deathWatch);
    assert.ok(diedAt > 0, 'the leader process died');
    const failoverMs = Date.now() - diedAt;
    const leaseMs = (before.leaseDurationSeconds ?? 15) * 1000;
    // One retry period (2 s / speed) of observation lag, and two seconds of slack for a loaded machine; election is divided by at most MAX_ELECTION_SPEED.
    const bound = (leaseMs + 2000) / electionSpeed(speed) + 2000;
    process.stderr.write(`leader failover took ${failoverMs} ms (lease ${leaseMs} ms, --speed ${speed}, bound ${bound} ms)\n`);
    assert.ok(
      failoverMs <= bound,
      `failover took ${failoverMs} ms, more than (lease ${leaseMs} ms + retry) / ${electionSpeed(speed)} + 2 s`,
    );

    // Pause and resume: the state shows, the process is stopped (SIGSTOP) and continues.
    ok(await c.chaos(['pause', 'kubelet-sim']));
    const paused = await component('kubelet-sim');
    assert.equal(paused.state, 'paused');
    assert.match(readFileSync(`/proc/${paused.pid}/stat`, 'utf8'), /^\d+ \(.*\) T /);
    assert.match(ok(await c.status()), /^kubelet-sim\s+\d+\s+paused\s/m);
    ok(await c.chaos(['resume', 'kubelet-sim']));
    assert.equal((await component('kubelet-sim')).state, 'running');
    assert.doesNotMatch(readFileSync(`/proc/${paused.pid}/stat`, 'utf8'), /^\d+ \(.*\) T /);
    assert.equal((await component('kubelet-sim')).restarts, 0, 'a pause is not a restart');
  } finally {
    await c.stop();
  }
});
