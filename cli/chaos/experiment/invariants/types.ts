// What every built-in invariant offers the runner: start before the steps
// (its watchers synced), finish after every fault is recovered (a final
// judgement, such as comparing with a fresh list), and its verdict.
import type { KubeClient } from '../../../../shared/client/kube-client.ts';
import type { Recorder } from '../recorder.ts';

export interface Violation {
  /** ms since the run started. */
  at: number;
  object?: string;
  message: string;
}

export interface InvariantResult {
  name: string;
  kind: string;
  held: boolean;
  violations: Violation[];
  /** One line: what was watched and what was seen. */
  message: string;
}

export interface InvariantRunner {
  start(): Promise<void>;
  /** Called after recovery; resolves with the verdict. Must stop everything it started. */
  finish(signal?: AbortSignal): Promise<InvariantResult>;
  /** Stops without judging (a run that failed to start). */
  stop(): void;
}

/** What an invariant is built with. */
export interface InvariantDeps {
  client: KubeClient;
  /** A client for writes that must fail fast while the apiserver is down. */
  makeClient(timeoutMs: number): KubeClient;
  recorder: Recorder;
  runId: string;
}

/** Records a violation on the timeline and in `list`. */
export function violate(list: Violation[], name: string, rec: Recorder, v: Omit<Violation, 'at'>): Violation {
  const e = rec.add({ type: 'invariant-violated', name, object: v.object, message: v.message });
  const out = { ...v, at: e.at };
  list.push(out);
  return out;
}
