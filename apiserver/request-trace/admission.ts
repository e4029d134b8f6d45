// Admission plugins as the request trace sees them: each plugin is wrapped so
// that every hook it runs for a traced request adds a step (mutating or
// validating, allowed or denied with the plugin's message, whether it changed
// the object, how long it took). The hooks find their request's trace by
// the request's audit ID in the admission attributes; a request that is not
// traced pays one Map lookup per hook. A create worker thread wraps its
// plugins the same way, recording into a list that its reply carries back
// to the request's trace.
import type { TraceSink } from '../../shared/api/request-trace-types.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission/types.ts';
import { elapsed, type RequestTraces } from './ring.ts';

type Phase = 'mutating' | 'validating' | 'delete';

/** Where a hook's step goes: the trace of the request `attrs` belong to, or none. */
export type SinkOf = (attrs: AdmissionAttributes | undefined) => TraceSink | undefined;

/** The sink of each request: its trace in `traces`, found by the request ID in its admission attributes. */
export const traceOfRequest =
  (traces: RequestTraces): SinkOf =>
  (attrs) =>
    attrs?.requestID === undefined ? undefined : traces.get(attrs.requestID);

function timed<T>(trace: TraceSink, name: string, phase: Phase, hook: () => T): T {
  const t0 = performance.now();
  let result: T;
  try {
    result = hook();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    trace.step({ stage: 'admission', phase, plugin: name, outcome: 'denied', detail: message, ms: elapsed(t0) });
    throw err;
  }
  const step = { stage: 'admission' as const, phase, plugin: name, outcome: 'allowed', ms: elapsed(t0) };
  trace.step(phase === 'mutating' ? { ...step, changed: result === true } : step);
  return result;
}

/** `p`, recording each hook it runs for a traced request in the sink `traceOf` names. */
export function tracedPlugin(p: AdmissionPlugin, traceOf: SinkOf): AdmissionPlugin {
  const out: AdmissionPlugin = { name: p.name };
  if (p.transactional) out.transactional = true;
  if (p.contextual) out.contextual = true;
  if (p.appliesTo) out.appliesTo = (rt) => p.appliesTo!(rt);
  if (p.wanted) out.wanted = (rt, attrs) => p.wanted!(rt, attrs);
  if (p.deleted) out.deleted = (rt, obj) => p.deleted!(rt, obj);
  if (p.admit)
    out.admit = (op, rt, obj, old, attrs) => {
      const t = traceOf(attrs);
      return t ? timed(t, p.name, 'mutating', () => p.admit!(op, rt, obj, old, attrs)) : p.admit!(op, rt, obj, old, attrs);
    };
  if (p.validate)
    out.validate = (op, rt, obj, old, attrs) => {
      const t = traceOf(attrs);
      return t ? timed(t, p.name, 'validating', () => p.validate!(op, rt, obj, old, attrs)) : p.validate!(op, rt, obj, old, attrs);
    };
  if (p.admitDelete)
    out.admitDelete = (rt, obj, attrs) => {
      const t = traceOf(attrs);
      return t ? timed(t, p.name, 'delete', () => p.admitDelete!(rt, obj, attrs)) : p.admitDelete!(rt, obj, attrs);
    };
  return out;
}
