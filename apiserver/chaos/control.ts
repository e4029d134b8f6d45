// The apiserver's ops on the supervisor's control channel
// (shared/chaos/component-control.ts): apiserver.faults.set / .clear,
// apiserver.watches.drop and apiserver.compact. Each is logged when it is
// applied and when it is cleared, next to what the cluster does about it.
import type { Logger } from 'pino';
import { registerControl } from '../../shared/chaos/component-control.ts';
import type { Store } from '../storage/store.ts';
import { apiserverFaults, checkFaultSpec } from './fault-table.ts';
import { checkMatch } from './match.ts';
import { countInjected } from './metrics.ts';
import { dropWatches, setWatchFaultLog } from './watch-faults.ts';

/** What 'apiserver.faults.set' answers: the fault as held (with the seed drawn when it named none) and every active id. */
export interface FaultSetResult {
  fault: ReturnType<typeof checkFaultSpec>;
  active: string[];
}

/** Registers the ops; `store` is what apiserver.compact compacts. */
export function registerApiserverChaos(store: Pick<Store, 'compact' | 'revision' | 'compactedRevision'>, log: Logger): void {
  const clog = log.child({ chaos: 'apiserver' });
  setWatchFaultLog(clog);

  registerControl('apiserver.faults.set', (args): FaultSetResult => {
    const fault = checkFaultSpec(args);
    const replaced = apiserverFaults.list().some((f) => f.spec.id === fault.id);
    apiserverFaults.set(fault);
    clog.warn({ fault, replaced }, `chaos: apiserver fault "${fault.id}" applied`);
    return { fault, active: apiserverFaults.list().map((f) => f.spec.id) };
  });

  registerControl('apiserver.faults.clear', (args) => {
    if (args.id !== undefined && typeof args.id !== 'string') throw new Error('id: must be a string (omit it to clear every fault)');
    const cleared = apiserverFaults.clear(args.id);
    if (cleared.length > 0) clog.warn({ cleared }, `chaos: apiserver faults cleared: ${cleared.join(', ')}`);
    else clog.info({ id: args.id }, 'chaos: no apiserver fault to clear');
    return { cleared, active: apiserverFaults.list().map((f) => f.spec.id) };
  });

  registerControl('apiserver.watches.drop', (args) => {
    const match = checkMatch(args.match);
    const closed = dropWatches(match);
    clog.warn({ match, closed }, `chaos: closed ${closed} open watch${closed === 1 ? '' : 'es'}`);
    return { closed };
  });

  registerControl('apiserver.compact', async () => {
    const before = store.compactedRevision;
    const revision = store.revision;
    await store.compact(revision);
    countInjected('compact');
    clog.warn(
      { revision, compactedBefore: before },
      `chaos: compacted storage through revision ${revision}: a watch or list from an older resourceVersion gets 410 Gone`,
    );
    return { compactedRevision: store.compactedRevision };
  });
}
