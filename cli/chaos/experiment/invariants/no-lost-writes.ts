// Invariant noLostWrites: while the steps run, the runner writes a stream of
// ConfigMaps (at `rate` per second, one at a time, over a client with a
// short timeout so a dead apiserver fails the write instead of holding it).
// A write the apiserver answered 201 is acknowledged; at the end, after
// recovery, every acknowledged one must exist. Writes that failed or got no
// answer are counted, not judged: the client was never told they were
// stored. The ConfigMaps are deleted afterwards.
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { findResource } from '../../../../shared/api/resources.ts';
import type { KubeObject } from '../../../../shared/api/object.ts';
import { sleep } from '../sleep.ts';
import type { NoLostWrites } from '../spec.ts';
import { violate, type InvariantDeps, type InvariantRunner, type Violation } from './types.ts';

/** The label every written ConfigMap carries, valued with the run's id. */
export const WRITE_LABEL = 'ksim.dev/experiment-write';
const WRITE_TIMEOUT_MS = 3000;
const VERIFY_DEADLINE_MS = 30_000;

export function noLostWritesInvariant(name: string, spec: NoLostWrites, deps: InvariantDeps): InvariantRunner {
  const configmaps = findResource('', 'v1', 'configmaps')!;
  const writer = deps.makeClient(WRITE_TIMEOUT_MS);
  const stopper = new AbortController();
  const acked = new Set<string>();
  const failed = new Map<string, number>();
  let attempts = 0;
  let loop: Promise<void> | undefined;
  const run = async (): Promise<void> => {
    const start = Date.now();
    for (let i = 0; !stopper.signal.aborted; i++) {
      const due = start + (i * 1000) / spec.rate;
      await sleep(due - Date.now(), stopper.signal);
      if (stopper.signal.aborted) break;
      const cmName = `${deps.runId}-w${i}`;
      attempts++;
      const body: ConfigMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: cmName, namespace: spec.namespace, labels: { [WRITE_LABEL]: deps.runId } },
        data: { seq: String(i) },
      };
      try {
        await writer.create(configmaps, spec.namespace, body);
        acked.add(cmName);
      } catch (err) {
        const why = (err as { code?: number }).code ? `HTTP ${(err as { code: number }).code}` : 'no answer';
        failed.set(why, (failed.get(why) ?? 0) + 1);
      }
    }
  };
  const listWritten = async (): Promise<Set<string>> => {
    const names = new Set<string>();
    let cont: string | undefined;
    do {
      const page = await deps.client.list<KubeObject>(configmaps, {
        namespace: spec.namespace,
        labelSelector: `${WRITE_LABEL}=${deps.runId}`,
        limit: 500,
        continue: cont,
      });
      for (const o of page.items) names.add(o.metadata?.name ?? '');
      cont = page.metadata?.continue || undefined;
    } while (cont);
    return names;
  };
  return {
    start() {
      loop = run();
      return Promise.resolve();
    },
    async finish(signal) {
      stopper.abort();
      await loop;
      writer.close();
      const violations: Violation[] = [];
      const deadline = Date.now() + VERIFY_DEADLINE_MS;
      let stored: Set<string> | undefined;
      let lastError = '';
      while (!stored && Date.now() < deadline && !signal?.aborted) {
        try {
          stored = await listWritten();
        } catch (err) {
          lastError = (err as Error).message;
          await sleep(250, signal);
        }
      }
      const failures = [...failed].map(([why, n]) => `${n} ${why}`).join(', ');
      const tally = `${acked.size} of ${attempts} writes acknowledged${failures ? ` (failed: ${failures})` : ''}`;
      if (!stored) {
        violate(violations, name, deps.recorder, { message: `cannot list the written ConfigMaps to verify them: ${lastError}` });
        return { name, kind: 'noLostWrites', held: false, violations, message: `${tally}; not verified` };
      }
      const lost = [...acked].filter((n) => !stored.has(n));
      for (const n of lost.slice(0, 20))
        violate(violations, name, deps.recorder, { object: `ConfigMap ${spec.namespace}/${n}`, message: 'acknowledged but not stored' });
      try {
        await deps.client.request('DELETE', `/api/v1/namespaces/${encodeURIComponent(spec.namespace)}/configmaps`, {
          query: { labelSelector: `${WRITE_LABEL}=${deps.runId}` },
          discardBody: true,
        });
      } catch {
        // Leftover ConfigMaps are harmless; the verdict stands.
      }
      return {
        name,
        kind: 'noLostWrites',
        held: lost.length === 0 && acked.size > 0,
        violations,
        message:
          lost.length > 0
            ? `${lost.length} acknowledged write(s) lost (${lost.slice(0, 5).join(', ')}); ${tally}`
            : acked.size === 0
              ? `no write was acknowledged: ${tally}`
              : `all ${acked.size} acknowledged writes stored; ${tally}`,
      };
    },
    stop() {
      stopper.abort();
      writer.close();
    },
  };
}
