// The admission chain's vocabulary: plugins that see every write and may
// change the object or refuse it with a StatusError. Most only look at the
// object (and at data they are handed, such as the PriorityClasses), so a
// create can run them before its transaction, even on a create worker
// thread; a plugin that holds state which must change atomically with the
// write (IP allocation) is `transactional` and runs inside the transaction.
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { ObjectToStore, StoredObject } from '../storage/types.ts';
import type { UserInfo } from '../auth/user-info.ts';

/** A write operation, as kube's admission names them. */
export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/**
 * The request behind an admission call (kube's admission.Attributes beyond
 * the object): who asks, where, and whether it is a dry run. Absent only
 * where no request exists (bootstrap writes).
 */
export interface AdmissionAttributes {
  operation: Operation;
  user: UserInfo;
  namespace: string;
  name: string;
  subresource: string;
  dryRun: boolean;
  /** Called by the chain with each plugin that changed or refused the object, for the audit log. */
  record?: (plugin: string, verdict: 'mutated' | 'refused', detail?: string) => void;
}

/** Which plugins a call runs: all, only those that look at the object alone, or only the transactional ones. */
export type AdmissionStage = 'all' | 'object' | 'transaction';

/** One admission plugin. Hooks run synchronously. */
export interface AdmissionPlugin {
  name: string;
  /** True when the plugin must run inside the store transaction (it holds state of its own). */
  transactional?: boolean;
  /** The resources the plugin acts on (all when absent). */
  appliesTo?(rt: ResourceType): boolean;
  /** May mutate `obj` (an object of `rt`'s kind); throws a StatusError to refuse the write. */
  admit?(op: Operation, rt: ResourceType, obj: ObjectToStore, old?: StoredObject): void;
  /** Called once a delete has committed (to release what the object held). */
  deleted?(rt: ResourceType, obj: StoredObject): void;
}

/** The chain every write goes through, in order. */
export class AdmissionChain {
  constructor(private readonly plugins: AdmissionPlugin[]) {}

  admit(op: Operation, rt: ResourceType, obj: ObjectToStore, old?: StoredObject, stage: AdmissionStage = 'all'): void {
    for (const p of this.plugins) {
      if (stage !== 'all' && (stage === 'transaction') !== (p.transactional === true)) continue;
      p.admit?.(op, rt, obj, old);
    }
  }

  /** Whether a write of `rt` needs a transactional plugin (and so cannot be admitted ahead of its transaction alone). */
  needsTransaction(rt: ResourceType): boolean {
    return this.plugins.some((p) => p.transactional && (p.appliesTo?.(rt) ?? true));
  }

  deleted(rt: ResourceType, obj: StoredObject): void {
    for (const p of this.plugins) p.deleted?.(rt, obj);
  }
}
