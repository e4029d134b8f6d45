// Durability under concurrent optimistic updates while the apiserver is
// killed with SIGKILL again and again and restarted on the same data dir.
//
// A counter ConfigMap is incremented by many clients, each with a
// resourceVersion precondition (PUT with the version it read; 409 means read
// again). Every increment also stores a token of its own, `data[token] =
// the count it made`, so a client whose response died with the server finds
// out from its next read whether that increment landed: present, it counts
// it once; absent, it tries again with the version it just read (which
// makes the lost attempt unable to land later). At the end the count equals
// the number of increments the clients know of, every one answered 200 is
// there, and the tokens' counts are exactly 1..count (none twice, no gap).
//
// Meanwhile a watcher resumes from its last resourceVersion after every
// kill (relisting on 410, as client-go's reflector does) and must end with
// exactly what a fresh list returns, while another client creates and
// deletes ConfigMaps beside the counter.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, startApiserver, WatchHttpError, type Apiserver } from './helpers/index.ts';

const NS = 'crash';
const COUNTER = `/api/v1/namespaces/${NS}/configmaps/counter`;
const CLIENTS = 8;
const KILLS = Number(process.env.KSIM_CRASH_KILLS ?? 8);
const seed = Number(process.env.KSIM_CRASH_SEED ?? Date.now() % 1_000_000);

/** A small seeded generator, so that a failing run's kill timing can be replayed (KSIM_CRASH_SEED). */
function random(s: number): () => number {
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: Apiserver | undefined;
after(() => server?.stop());

interface ClientTally {
  /** Increments answered 200. */
  acked: string[];
  /** Increments whose answer was lost, found applied by a later read. */
  foundAfterLoss: string[];
  lostAnswers: number;
}

test(
  `concurrent optimistic increments survive ${KILLS} SIGKILLs exactly, and a resuming watcher ends with a fresh list's state (seed ${seed})`,
  { timeout: 120_000 },
  async () => {
    const rnd = random(seed);
    server = await startApiserver();
    const c = api(server);
    assert.equal((await c.request('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
    assert.equal(
      (await c.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'counter' }, data: { count: '0' } })).status,
      201,
    );
    let stop = false;
    /** Set once the test is over, passed or failed: an increment still being resolved gives up. */
    let aborted = false;

    // One increment, retried until it is known to have landed exactly once.
    const increment = async (token: string, tally: ClientTally): Promise<void> => {
      let answerLost = false;
      while (!aborted) {
        let cur: any;
        try {
          const res = await c.request('GET', COUNTER);
          if (res.status !== 200) throw new Error(`GET answered ${res.status}`);
          cur = res.body;
        } catch {
          await sleep(50);
          continue;
        }
        if (cur.data[token] !== undefined) {
          assert.ok(answerLost, `token ${token} is stored, but no attempt of it lost its answer`);
          tally.foundAfterLoss.push(token);
          return;
        }
        const count = Number(cur.data.count) + 1;
        const next = { ...cur, data: { ...cur.data, count: String(count), [token]: String(count) } };
        let status: number;
        try {
          status = (await c.request('PUT', COUNTER, next)).status;
        } catch {
          // The server died with the request: it may or may not have committed. The next read tells.
          answerLost = true;
          tally.lostAnswers++;
          await sleep(50);
          continue;
        }
        if (status === 200) {
          tally.acked.push(token);
          return;
        }
        assert.equal(status, 409, `PUT answered ${status}`);
      }
    };
    const tallies: ClientTally[] = Array.from({ length: CLIENTS }, () => ({ acked: [], foundAfterLoss: [], lostAnswers: 0 }));
    const clients = tallies.map(async (tally, id) => {
      for (let seq = 0; !stop; seq++) await increment(`t${id}-${seq}`, tally);
    });

    // Churn beside the counter, for the watcher: creates and deletes, outcomes ignored.
    const churn = (async () => {
      for (let i = 0; !stop; i++) {
        await c
          .request('POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: `tmp-${i}` }, data: { i: String(i) } })
          .catch(() => {});
        if (i >= 2) await c.request('DELETE', `/api/v1/namespaces/${NS}/configmaps/tmp-${i - 2}`).catch(() => {});
        await sleep(20);
      }
    })();

    // The watcher: a cache of name -> object, resumed from its last resourceVersion, relisted on 410.
    const cache = new Map<string, any>();
    let rv = '';
    let relists = 0;
    let resumes = 0;
    let watchStop = false;
    const relist = async () => {
      const list = await c.request('GET', `/api/v1/namespaces/${NS}/configmaps`);
      if (list.status !== 200) throw new Error(`list answered ${list.status}`);
      cache.clear();
      for (const item of list.body.items) cache.set(item.metadata.name, item);
      rv = list.body.metadata.resourceVersion;
      relists++;
    };
    const watcher = (async () => {
      while (!watchStop) {
        try {
          if (rv === '') await relist();
          const w = c.watch(`/api/v1/namespaces/${NS}/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`);
          resumes++;
          let expired = false;
          for await (const ev of w) {
            if (ev.type === 'ERROR') {
              assert.equal(ev.object.code, 410, `watch ERROR: ${JSON.stringify(ev.object)}`);
              expired = true;
              break;
            }
            const evRv = ev.object.metadata.resourceVersion;
            assert.ok(BigInt(evRv) >= BigInt(rv), `watch went back from ${rv} to ${evRv}`);
            if (ev.type === 'ADDED' || ev.type === 'MODIFIED') cache.set(ev.object.metadata.name, ev.object);
            else if (ev.type === 'DELETED') cache.delete(ev.object.metadata.name);
            rv = evRv;
            if (watchStop) break;
          }
          if (expired) rv = '';
        } catch (err) {
          if (err instanceof WatchHttpError && err.status === 410) rv = '';
          await sleep(50);
        }
      }
    })();

    try {
      await killAndCheck();
    } finally {
      // Whatever failed, every loop ends, so the file does not hang until its timeout.
      stop = true;
      watchStop = true;
      aborted = true;
    }

    async function killAndCheck(): Promise<void> {
      // The killer.
      let last = Date.now();
      for (let k = 0; k < KILLS; k++) {
        await sleep(1200 + rnd() * 1800);
        await server!.kill9();
        await server!.restart();
        last = Date.now();
      }
      await sleep(Math.max(0, 1000 - (Date.now() - last)));
      stop = true;
      await Promise.all([...clients, churn]);

      // The final state, against what the clients know.
      const final = (await c.request('GET', COUNTER)).body;
      const acked = tallies.flatMap((t) => t.acked);
      const found = tallies.flatMap((t) => t.foundAfterLoss);
      const known = new Set([...acked, ...found]);
      const lostAnswers = tallies.reduce((n, t) => n + t.lostAnswers, 0);
      const stored = Object.keys(final.data).filter((k) => k !== 'count');
      const summary = `seed ${seed}: ${acked.length} answered 200, ${found.length} found applied after ${lostAnswers} lost answers, count ${final.data.count}`;
      const lost = acked.filter((t) => final.data[t] === undefined);
      assert.deepEqual(lost, [], `acknowledged increments lost (${summary})`);
      assert.deepEqual(
        stored.filter((t) => !known.has(t)),
        [],
        `increments stored that no client knows of (${summary})`,
      );
      assert.equal(Number(final.data.count), known.size, summary);
      assert.deepEqual(
        stored.map((t) => Number(final.data[t])).sort((a, b) => a - b),
        Array.from({ length: known.size }, (_, i) => i + 1),
        `the tokens' counts are not exactly 1..count: an increment counted twice or lost (${summary})`,
      );
      assert.ok(acked.length > 50, `too few increments to mean anything (${summary})`);

      // The watcher catches up to one last write, then must hold exactly a fresh list.
      const marker = await c.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'marker' } });
      assert.equal(marker.status, 201);
      const deadline = Date.now() + 15_000;
      while (cache.get('marker')?.metadata.resourceVersion !== marker.body.metadata.resourceVersion) {
        assert.ok(Date.now() < deadline, `the watcher never saw the marker (at ${rv}, ${resumes} watches, ${relists} relists)`);
        await sleep(50);
      }
      const fresh = await c.request('GET', `/api/v1/namespaces/${NS}/configmaps`);
      watchStop = true;
      const byName = (items: any[]) => Object.fromEntries(items.map((i) => [i.metadata.name, i]));
      assert.deepEqual(
        byName([...cache.values()]),
        byName(fresh.body.items),
        `watch cache differs from a fresh list (${resumes} watches, ${relists} relists)`,
      );
      assert.ok(resumes > KILLS, `the watcher did not resume after each kill (${resumes} watches)`);
      // End the watcher's current stream so that its loop exits.
      await server!.stop();
      await watcher;
      server = undefined;
      process.stderr.write(`# crash-restart: ${summary}; watcher: ${resumes} watches, ${relists} relists\n`);
    }
  },
);
