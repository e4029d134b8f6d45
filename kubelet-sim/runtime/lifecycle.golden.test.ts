// Golden tests of the lifecycle engine, kwok style: each file in
// testdata/lifecycle/ is an input (a Pod, ConfigMaps/Secrets, actions at given
// times, checkpoints in seconds) and the expected output (status and Events
// at each checkpoint), all on a FakeClock at speed 1. Regenerate the expected
// half after a deliberate change with KSIM_UPDATE_GOLDEN=1 and review the diff.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { FakeClock } from '../../shared/clock/clock.ts';
import { fakeNode, MapConfigSource, MemoryRecorder } from './fakes.ts';
import { LogStore } from './log-store.ts';
import { PodWorker } from './pod-worker.ts';
import { DEFAULT_TIMINGS } from './timings.ts';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'testdata', 'lifecycle');
const update = process.env.KSIM_UPDATE_GOLDEN === '1';

interface Case {
  description: string;
  pod: Pod;
  configMaps?: Record<string, Record<string, string>>;
  secrets?: Record<string, Record<string, string>>;
  actions?: {
    at: number;
    delete?: { gracePeriodSeconds: number };
    configMap?: { name: string; data: Record<string, string> };
    /** `kubectl set image pod/NAME container=image`. */
    setImage?: { container: string; image: string };
  }[];
  checkpoints: number[];
  /** The Pod already runs on this node (kubelet-sim restarted): adopt() instead of start(). */
  adopt?: boolean;
  /** Also record these containers' logs at each checkpoint. */
  logs?: string[];
  expected?: Record<string, unknown>;
}

/** Runs one case and returns what happened at each checkpoint. */
export async function runCase(c: Case): Promise<Record<string, unknown>> {
  const clock = new FakeClock();
  const t0 = clock.now();
  const recorder = new MemoryRecorder(() => clock.now());
  const config = new MapConfigSource();
  for (const [n, data] of Object.entries(c.configMaps ?? {})) config.configMaps.set(`default/${n}`, { data });
  for (const [n, data] of Object.entries(c.secrets ?? {}))
    config.secrets.set(`default/${n}`, {
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    });
  const pod: Pod = structuredClone(c.pod);
  pod.metadata = { namespace: 'default', uid: '00000000-0000-4000-8000-000000000001', ...pod.metadata };
  pod.spec = { nodeName: 'node-0', restartPolicy: 'Always', ...pod.spec } as Pod['spec'];
  const logs = new LogStore();
  const worker = new PodWorker(pod, {
    clock,
    timings: DEFAULT_TIMINGS,
    speed: 1,
    node: fakeNode(),
    recorder,
    config,
    logs,
    onChange: () => {},
  });
  if (c.adopt) worker.adopt();
  else worker.start();
  const out: Record<string, unknown> = {};
  const actions = [...(c.actions ?? [])];
  let seen = 0;
  let now = 0;
  for (const cp of c.checkpoints) {
    while (now < cp * 1000) {
      const ms = Math.min(100, cp * 1000 - now);
      await clock.step(ms);
      now += ms;
      for (const a of actions.filter((x) => x.at * 1000 <= now)) {
        actions.splice(actions.indexOf(a), 1);
        if (a.delete) {
          const cur = structuredClone(worker.pod);
          const deletionTimestamp = new Date(clock.now() + a.delete.gracePeriodSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
          const next = {
            ...cur,
            metadata: { ...cur.metadata, deletionTimestamp, deletionGracePeriodSeconds: a.delete.gracePeriodSeconds },
          };
          worker.update(next);
        }
        if (a.setImage) {
          const next = structuredClone(worker.pod);
          const ctr = next.spec!.containers.find((x) => x.name === a.setImage!.container)!;
          ctr.image = a.setImage.image;
          worker.update(next);
        }
        if (a.configMap) {
          config.configMaps.set(`default/${a.configMap.name}`, { data: a.configMap.data });
          worker.refreshVolumes();
        }
      }
    }
    const events = recorder.events.slice(seen).map((e) => `${(e.at - t0) / 1000}s ${e.line}`);
    seen = recorder.events.length;
    const entry: Record<string, unknown> = { status: worker.status(), events };
    if (worker.terminated()) entry.terminated = true;
    if (c.logs) {
      entry.logs = Object.fromEntries(
        c.logs.map((n) => {
          const l = logs.get('default', pod.metadata!.name!, n);
          return [n, { current: l?.current.map((x) => x.text).join('') ?? '', previous: l?.previous?.map((x) => x.text).join('') }];
        }),
      );
    }
    out[`${cp}s`] = JSON.parse(JSON.stringify(entry));
  }
  worker.stop();
  return out;
}

for (const file of fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort()) {
  test(`lifecycle golden: ${file}`, async () => {
    const full = path.join(dir, file);
    const c = YAML.parse(fs.readFileSync(full, 'utf8')) as Case;
    const got = await runCase(c);
    if (update || !c.expected) {
      const { expected: _, ...input } = c;
      fs.writeFileSync(full, YAML.stringify({ ...input, expected: got }, { lineWidth: 0 }));
      return;
    }
    assert.deepEqual(got, c.expected);
  });
}
