// Storage as the request trace sees it: the store tells it of each write
// (Store.observeWrites), and a write made for a traced request (its write
// record names the request's audit ID) adds the revision written and how
// long the write took, from the transaction's start to its durable commit.
// The object passed validation once the store takes it, so a validation step
// is added before (inferred, untimed: validation runs inside the registry's
// create and update paths). Then how many watches the event was handed to
// (the watch hub counts the recipients of a followed write's event; a
// watcher that is slow to read still has it queued).
import { StatusError } from '../../shared/api/errors.ts';
import type { Store } from '../storage/store.ts';
import { elapsed, type RequestTraces } from './ring.ts';

/** Records traced requests' writes from `store`. */
export function traceStoreWrites(store: Store, traces: RequestTraces): void {
  store.observeWrites((key, opts) => {
    const id = opts.writer?.requestID;
    const t = id === undefined ? undefined : traces.get(id);
    if (!t) return undefined;
    const t0 = performance.now();
    return ({ result, error }) => {
      if (result) {
        if (!t.has('validation')) t.step({ stage: 'validation', outcome: 'ok' });
        const detail = result.type === 'NOOP' ? `no change (revision ${result.rev})` : `${result.type} ${key} at revision ${result.rev}`;
        t.step({ stage: 'storage', outcome: 'ok', revision: String(result.rev), detail, ms: elapsed(t0) });
        if (result.type !== 'NOOP') {
          const n = result.watchers ?? 0;
          t.step({ stage: 'watch', outcome: 'notified', watchers: n, detail: `handed to ${n} watch${n === 1 ? '' : 'es'}` });
        }
        // A refusal from inside the transaction (admission, validation, a conflict) is not a storage failure.
      } else if (!(error instanceof StatusError) || error.code >= 500)
        t.step({ stage: 'storage', outcome: 'error', detail: error instanceof Error ? error.message : String(error), ms: elapsed(t0) });
    };
  });
}
